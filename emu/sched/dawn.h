/* dawn.h — Dawn's online plan and Algorithm 1 as pure functions over
 * per-rack byte vectors (seed 000, §III-B/C), so that the equations and
 * the rack assignment are tested on hand-made cases (tests/unit/test_dawn.c)
 * apart from the cluster.  The scheduler is emu/sched/dawn.c. */
#ifndef EMU_SCHED_DAWN_H
#define EMU_SCHED_DAWN_H
#include <stdbool.h>

/* A preferred rack and the cross-rack bytes the job causes there. */
struct dawn_pref { int rack; double cost; };

/* A job as Algorithm 1 sees it: one or two preferred racks (max_r, then
 * dep_r when it differs), its submission time and id (ties). */
struct dawn_cand { int n; struct dawn_pref p[2]; double submit; int id; };

/* Eqs. 1 and 2: the rack holding most of v (ties: the lowest id) and the
 * bytes outside it (sum - v[max_r]). */
int dawn_max_rack(int racks, const double *v, double *cost);

/* Eqs. 3-5 for a job x in its output stage: x's output, `out_here` already
 * placed (per rack, may be NULL) and `out_rest` bytes still to be written
 * where its reduces go; for each child y (nchild of them) prev[y] is the
 * output of y's other parents per rack (Eq. 3's sum; with the child's base
 * input if counted).  Returns dep_r, the rack minimising Eq. 4's sum of the
 * children's Eq. 1 costs; ties go to rmax, then to the larger inter[r], then
 * the lowest id.  dep_cost (may be NULL): Eq. 4's value per rack. */
int dawn_dep_rack(int racks, const double *inter, int rmax, const double *out_here, double out_rest, int nchild,
		  const double *const *prev, double *dep_cost);

/* Algorithm 1 for a heartbeat from `rack`: each candidate's preferred rack
 * with the smallest traffic (saturated) or the highest (not), the list by
 * that traffic (ascending / descending; ties: earlier submission, lower
 * id), the first whose rack is `rack`, then the rest of the list with the
 * same traffic (within `tol`, relative) that also prefer `rack`.  With
 * `relaxed` and no such first, the same over the candidates having any
 * preferred rack equal to `rack` (at that rack's traffic) and *relaxed_used
 * is set.  Writes the chosen set (indexes into c, first the first) and
 * returns its size, 0 when nobody prefers the rack. */
int dawn_select(const struct dawn_cand *c, int n, int rack, bool saturated, double tol, bool relaxed, int *set,
		bool *relaxed_used);
#endif
