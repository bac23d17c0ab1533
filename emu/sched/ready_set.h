/* ready_set.h — every job's ready index (ready.h), built on a job's first
 * use and again after a requeue, kept up to date as tasks end: what the
 * policies that ask, candidate by candidate, whether a task may start
 * (runnable, startable) read instead of each task's listed parents
 * (amoeba.c, natjam.c, srpt.c).  The heaps are by task order. */
#ifndef EMU_SCHED_READY_SET_H
#define EMU_SCHED_READY_SET_H
#include "emu/cluster.h"
#include "emu/sched/ready.h"

struct ready_set {
	const struct cluster *c;
	struct ready *rj;   /* per job */
};

int ready_set_init(struct ready_set *s, const struct cluster *c);   /* -1 out of memory */
void ready_set_free(struct ready_set *s);
/* Job j's index, current; NULL when out of memory (the callers then ask the cluster). */
struct ready *ready_set_job(struct ready_set *s, const struct job *j);
/* From the policy's task_finished. */
void ready_set_task_done(struct ready_set *s, const struct task *t);
/* cluster_task_deps_done, cluster_task_runnable and cluster_task_startable,
 * from the counts. */
bool ready_set_deps_done(struct ready_set *s, const struct task *t);
bool ready_set_runnable(struct ready_set *s, const struct task *t);
bool ready_set_startable(struct ready_set *s, const struct task *t);
#endif
