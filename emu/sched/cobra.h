/* cobra.h — COBRA's two rules (seed 001), for its scheduler and its tests. */
#ifndef EMU_SCHED_COBRA_H
#define EMU_SCHED_COBRA_H
#include "emu/cluster.h"

/* Algorithm 1's branches. */
enum cobra_af { AF_INEFFICIENT, AF_DEPRIVED, AF_SATISFIED };

/* Af: the desire for the next period from the last one's desire d, its
 * allotment a, utilisation u and whether a task waited.  Inefficient (u <
 * delta and nothing waited): d / rho; else deprived (a < ceil(d)): d; else
 * satisfied: d x rho.  Never below 1 (the proof's d >= 1). */
double cobra_af(double d, int a, double u, bool waited, double rho, double delta, enum cobra_af *branch);

/* Pdelay's test for one task on a container: node-local always; rack-local
 * once it waited tau x p; anywhere once it waited 2 tau x p and the
 * container has 1 - delta of it free in every resource (`gate`). */
bool cobra_pdelay_ok(enum locality loc, double wait, double tau_p, bool gate);
#endif
