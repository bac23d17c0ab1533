/* A preempting policy for tests: Fair, plus a preempt hook that kills or
 * suspends chosen running tasks (emu/sched.h), on either backend. */
#ifndef TESTS_PREEMPT_FIXTURE_H
#define TESTS_PREEMPT_FIXTURE_H
#include "emu/sched.h"

/* Each victim: the first running task of the wanted kind of the largest job
 * (of `job` when it is >= 0), at or after `at`, once `maps_done` of its
 * job's maps are done (a reduce then has outputs to fetch). */
struct px_want {
	enum preempt_op op;
	enum task_kind kind;
	int job;
	double maps_done, at;
	int victim;        /* out: the task preempted, -1 = none yet */
	double when;       /* out: when */
};
static struct px_want px_wants[4];
static int px_nwants;

static int px_pick(struct sched *s, struct preemption *out, int max)
{
	int n = 0;
	for (int k = 0; k < px_nwants && n < max; k++) {
		struct px_want *w = &px_wants[k];
		if (w->victim >= 0 || s->c->now < w->at)
			continue;
		const struct job *j = &s->c->w->jobs[w->job >= 0 ? w->job : 0];
		for (int i = 1; w->job < 0 && i < s->c->w->njobs; i++)
			if (s->c->w->jobs[i].nmaps > j->nmaps)
				j = &s->c->w->jobs[i];
		for (int i = 0; i < j->nmaps + j->nreduces; i++) {
			struct task *t = &s->c->w->tasks[j->first_task + i];
			if (t->state != TASK_RUNNING || t->kind != w->kind || j->maps_done < w->maps_done * j->nmaps)
				continue;
			w->victim = t->id;
			w->when = s->c->now;
			out[n++] = (struct preemption){t, w->op};
			break;
		}
	}
	return n;
}

/* Fair with px_pick as its preempt hook, for run_params.sched_ops. */
static inline const struct sched_ops *px_policy(void)
{
	static struct sched_ops ops;
	ops = *sched_find("fair");
	ops.preempt = px_pick;
	return &ops;
}
#endif
