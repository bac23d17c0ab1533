/* tetris.h — what the tetris scheduler (emu/sched/tetris.c) counted, for
 * its tests and its report. */
#ifndef EMU_SCHED_TETRIS_H
#define EMU_SCHED_TETRIS_H
#include "emu/sched.h"

struct tetris_stats {
	long offers;       /* offers answered with a task */
	long disorders;    /* dep=none: of them, tasks whose parents had not ended */
	long barred;       /* dep=none: such best choices the core's deadlock breaker
			      barred (the best that could start went instead) */
};

/* s: a tetris scheduler (or an alias of it). */
struct tetris_stats tetris_stats(const struct sched *s);
#endif
