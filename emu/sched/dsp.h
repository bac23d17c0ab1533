/* dsp.h — DSP's parts (seed 004, notes shared/notes/004_dsp.md), shared by
 * the policy (dsp.c) and the unit tests:
 *   - the offline plan: which machine (a task slot of a server) runs each
 *     task and from when, to minimise the makespan under the DAG's
 *     precedence and the jobs' deadlines: exactly by the seed's ILP solved
 *     with GLPK for small batches (dsp_ilp.c), by the list heuristic H1 at
 *     scale (dsp_h1.c);
 *   - the dependency-aware priority, Eqs. 12-13 (dsp_prio.c).
 * A plan instance is plain arrays, so tests state one by hand. */
#ifndef EMU_SCHED_DSP_H
#define EMU_SCHED_DSP_H
#include "emu/cluster.h"
#include <stdbool.h>

/* n tasks on m machines, times relative to the planning instant. */
struct dsp_inst {
	int n, m;
	const double *p;        /* n x m: task v's time on machine k, p[v * m + k] (overhead included) */
	const double *rel_m;    /* m: when machine k is free of earlier plans' work (NULL: 0) */
	const int *job;         /* n: its job, 0..njobs-1 */
	int njobs;
	const double *dl;       /* njobs: the job's deadline (INFINITY: none) */
	int nedges;
	const int (*edge)[2];   /* u -> w: w starts after u ends; u < w (tasks in a topological order) */
	double gamma;           /* the level coefficient of Eq. 12 (H1's rank) */
};

struct dsp_plan {
	int *machine;           /* n */
	double *start, *end;    /* n */
	double makespan;        /* the latest end */
	double late;            /* the sum over jobs of how far their last task ends past the deadline */
};

int dsp_plan_alloc(struct dsp_plan *pl, int n);
/* The plan's lateness (struct dsp_plan.late). */
double dsp_plan_late(const struct dsp_inst *in, const struct dsp_plan *pl);
void dsp_plan_free(struct dsp_plan *pl);

/* H1, list scheduling in DSP's order: the ready task whose slack is
 * negative first (least slack), else the largest dependency rank (Eq. 12
 * with unit leaves), then the longest path to a leaf, the earliest level
 * deadline, the lowest index; each on the machine that ends it first.
 * 0, or -1 out of memory. */
int dsp_h1(const struct dsp_inst *in, struct dsp_plan *out);

struct dsp_ilp_opts {
	double time_limit_s;    /* GLPK's tm_lim (wall clock: a run that reaches it is not reproducible) */
	long node_limit;        /* subproblems GLPK may select (0: no limit), then its best so far */
	double gap;             /* GLPK's mip_gap */
	double late_weight;     /* W: soft deadlines, objective makespan + W x lateness (notes OPEN-3) */
};
/* The seed's ILP (Eqs. 3-11, linearised as notes §2.3), H1's plan as the
 * first incumbent: 0 optimal, 1 the best found within the limits, -1 none
 * (infeasible, no incumbent, or out of memory). */
int dsp_ilp(const struct dsp_inst *in, const struct dsp_ilp_opts *o, struct dsp_plan *out);
/* The ILP's rows and columns for n tasks on m machines (a bound on its
 * size: the policy solves exactly only below a limit). */
double dsp_ilp_size(int n, int m);

/* The task-level deadline of the seed (§IV-B): the job's, less the
 * longest task of every later level.  A job's levels are its stages'
 * depths (1 for the first); by stage, for the tasks of the job (s after
 * its submit time; INFINITY without a deadline). */
void dsp_level_deadlines(const struct cluster *c, const struct job *j, double out[JOB_MAX_STAGES]);

/* Eq. 12 over job j: P[v] = sum over v's live children w of (1 + gamma)
 * P[w], and leaf[v] for a task without live children.  Children: the
 * tasks that list v or read it one-to-one (cfirst/child, global ids, CSR),
 * and every task of a stage reading v's over a shuffle or a broadcast.
 * P and leaf are indexed by global task id; a done task gets 0. */
void dsp_prio_job(const struct cluster *c, const struct job *j, const int *cfirst, const int *child,
		  const double *leaf, double gamma, double *P);
/* The children CSR dsp_prio_job reads, for the whole workload (malloc'd). */
int dsp_children(const struct workload *w, int **cfirst, int **child);
/* Whether b is an ancestor of a (a reads b's output, directly or not). */
bool dsp_depends(const struct cluster *c, const struct task *a, const struct task *b);
/* PP (notes §4.2): may a waiting task of priority pa preempt a running one
 * of pb, where pbar is the mean gap between neighbouring priorities
 * ((max - min) / (N - 1) over the node's tasks; 0: none)?  pa > pb always,
 * and with pp, (pa - pb) / pbar > rho. */
bool dsp_pp_ok(double pa, double pb, double pbar, double rho, bool pp);
#endif
