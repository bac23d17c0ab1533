/* ready_set.c — every job's ready index (ready_set.h). */
#include "emu/sched/ready_set.h"
#include <stdlib.h>

int ready_set_init(struct ready_set *s, const struct cluster *c)
{
	s->c = c;
	s->rj = calloc(c->w->njobs ? c->w->njobs : 1, sizeof *s->rj);
	return s->rj ? 0 : -1;
}

void ready_set_free(struct ready_set *s)
{
	for (int i = 0; s->rj && i < s->c->w->njobs; i++)
		ready_free(&s->rj[i]);
	free(s->rj);
	s->rj = NULL;
}

struct ready *ready_set_job(struct ready_set *s, const struct job *j)
{
	struct ready *r = &s->rj[j->id];
	if (ready_current(r, j))
		return r;
	if (ready_build(r, s->c->w, j, NULL, NULL)) {
		ready_free(r);
		return NULL;
	}
	return r;
}

void ready_set_task_done(struct ready_set *s, const struct task *t)
{
	const struct job *j = &s->c->w->jobs[t->job];
	if (ready_current(&s->rj[t->job], j))   /* else built from the states on next use */
		ready_task_done(&s->rj[t->job], s->c->w, j, t);
}

bool ready_set_deps_done(struct ready_set *s, const struct task *t)
{
	const struct cluster *c = s->c;
	const struct job *j = &c->w->jobs[t->job];
	if (t->kind == TASK_MAP)
		return true;
	const struct ready *r = ready_set_job(s, j);
	if (!r)
		return cluster_task_deps_done(c, t);
	return cluster_stage_allowed(c, j, t->stage) && ready_parents_done(r, j, t);
}

bool ready_set_runnable(struct ready_set *s, const struct task *t)
{
	const struct cluster *c = s->c;
	return t->state == TASK_PENDING && cluster_job_active(c, &c->w->jobs[t->job]) && ready_set_deps_done(s, t);
}

bool ready_set_startable(struct ready_set *s, const struct task *t)
{
	const struct cluster *c = s->c;
	if (!c->ignore_deps || c->deps_barred)
		return ready_set_runnable(s, t);
	return t->state == TASK_PENDING && cluster_job_active(c, &c->w->jobs[t->job]);
}
