/* ready.h — a job's ready index for the policies that pick a runnable task
 * without rescanning the tasks still waiting on their own parents: per task
 * the parents not done (one-to-one, listed) and the listed children; then
 * either per stage whose tasks wait on their own parents a heap of its
 * ready pending tasks, in the policy's order (aalo.c, tetris.c), or a call
 * as each pending task becomes ready, for a policy that keeps its own order
 * (dsp.c: its servers' planned queues). */
#ifndef EMU_SCHED_READY_H
#define EMU_SCHED_READY_H
#include "emu/workload.h"
#include <stdbool.h>

/* Stage st's task a goes before task b (stage indices); ctx as given to
 * ready_build. */
typedef bool ready_before_fn(const void *ctx, const struct job *j, int st, int a, int b);
/* Pending task rel (job-relative) has no parent left not done. */
typedef void ready_fn(void *ctx, const struct job *j, int rel);

struct ready {
	bool built;
	int requeues;              /* j->requeues when built */
	int *missing;              /* per task (job-relative): parents not done (one-to-one, listed) */
	int *kid_start, *kids;     /* listed children, CSR by task */
	int *heap;                 /* per-task stages: ready pending tasks (sindex), at stages[st].first */
	int hn[JOB_MAX_STAGES];
	bool per_task[JOB_MAX_STAGES];   /* its tasks wait on their own parents: it has a heap */
	ready_before_fn *before;   /* NULL: by index */
	const void *ctx;
	ready_fn *became;          /* ready_build_counts: no heaps, this instead */
	void *became_ctx;
};

/* Built, and no task of the job went back to pending since. */
static inline bool ready_current(const struct ready *r, const struct job *j)
{
	return r->built && r->requeues == j->requeues;
}

/* From the tasks' states; -1 out of memory (then ready_free it). */
int ready_build(struct ready *r, const struct workload *w, const struct job *j, ready_before_fn *before,
		const void *ctx);
/* The counts alone, from the tasks' states: no heaps; became(ctx, j, rel)
 * as a pending task's last parent ends (ready_task_done). */
int ready_build_counts(struct ready *r, const struct workload *w, const struct job *j, ready_fn *became,
		       void *ctx);
void ready_free(struct ready *r);

/* Task t of job j has no own parent (one-to-one, listed) left not done. */
static inline bool ready_parents_done(const struct ready *r, const struct job *j, const struct task *t)
{
	return !r->missing[t->id - j->first_task];
}

/* Stage st's heap: hn[st] tasks (sindex), the first one first. */
static inline const int *ready_heap(const struct ready *r, const struct job *j, int st)
{
	return r->heap + j->stages[st].first;
}
void ready_pop(struct ready *r, const struct job *j, int st);

/* Task t of job j is done: its children that became ready and are pending
 * go to their heaps (or to became). */
void ready_task_done(struct ready *r, const struct workload *w, const struct job *j, const struct task *t);
#endif
