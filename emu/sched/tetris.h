/* tetris.h — what the tetris scheduler (emu/sched/tetris.c) counted, for
 * its tests and its report. */
#ifndef EMU_SCHED_TETRIS_H
#define EMU_SCHED_TETRIS_H
#include "emu/sched.h"

struct tetris_stats {
	long offers;       /* offers answered with a task */
	long blocked;      /* dep=none: its best choice was a task whose parents had not
			      ended (the core cannot start it yet; the best runnable went) */
};

/* s: a tetris scheduler (or an alias of it). */
struct tetris_stats tetris_stats(const struct sched *s);
#endif
