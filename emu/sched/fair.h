/* fair.h — Fair's job order, for policies that run Fair on a part of the
 * cluster's jobs (FAWKES: one Fair scheduler per logical cluster). */
#ifndef EMU_SCHED_FAIR_H
#define EMU_SCHED_FAIR_H
#include "emu/sched.h"

/* The job Fair serves first (fewest running tasks, ties: earlier
 * submission) among the active jobs for which in(ctx, j) holds; in NULL:
 * those with a pending task that may start. */
struct job *fair_pick_in(struct sched *s, bool (*in)(void *ctx, const struct job *j), void *ctx);
#endif
