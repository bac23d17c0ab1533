/* drs.c — DRS, COBRA's dynamic baseline (seed 001's deployment: Spark's
 * dynamic allocation on YARN, from the waiting tasks alone).  A job's
 * executor target starts at 0; once tasks have waited backlog_timeout it
 * grows by 1, then every sustained_timeout while they still wait by twice
 * the last step (1, 2, 4, ...), never past the executors its running and
 * waiting tasks need (and max_executors); it drops to that need when the
 * need falls.  An executor idle for idle_timeout goes back while the job
 * holds more than its target.  The fair job scheduler divides containers
 * by the targets (emu/lease.h); executors run tasks as Spark's do
 * (emu/sched/spark.h). */
#include "emu/sched/spark.h"
#include <math.h>
#include <stdlib.h>

struct drs_opts {
	struct spark_opts spark;
	double backlog_timeout, sustained_timeout, idle_timeout;
	int max_executors;
};

struct drs {
	struct spark sp;      /* first: spark.c's view */
	int *target, *step;   /* per job: executor target, and the next increase */
	double *add_at;       /* per job: when the target grows next, -1 no backlog */
};

/* Executors its running and waiting tasks need: one per task, or with pack
 * as many tasks per executor as fit (the asks of its next task). */
static int drs_need(struct sched *s, const struct job *j, int pending)
{
	const struct drs_opts *o = s->opts;
	struct drs *x = s->priv;
	int tasks = pending + sched_running(j), per = 1;
	struct task *t = cluster_pending_maps(s->c, j) ? cluster_best_map(s->c, j, 0, NULL) : NULL;
	if (!t)
		t = cluster_next_reduce(s->c, j);
	if (o->spark.pack && t) {
		const struct container *k = &x->sp.l.ctr[0];
		struct res a = lease_ask(&x->sp.l, k, t);
		per = res_count(&k->cap, &a);
		per = per < 1 ? 1 : per;
	}
	int need = (tasks + per - 1) / per;
	return need < o->max_executors ? need : o->max_executors;
}

static void drs_update(struct sched *s)
{
	const struct drs_opts *o = s->opts;
	struct drs *x = s->priv;
	struct lease *l = &x->sp.l;
	double now = s->c->now;
	for (int i = 0; i < s->c->running_jobs; i++) {
		const struct job *j = cluster_active(s->c, i);
		int id = j->id, pending = cluster_pending_maps(s->c, j) + cluster_pending_reduces(s->c, j);
		int need = drs_need(s, j, pending);
		if (x->target[id] > need) {
			x->target[id] = need;
			x->step[id] = 1;
		} else if (pending) {
			if (x->add_at[id] < 0)
				x->add_at[id] = now + o->backlog_timeout;
			if (now >= x->add_at[id] - 1e-9) {
				int before = x->target[id];
				x->target[id] = before + x->step[id] < need ? before + x->step[id] : need;
				x->step[id] = x->target[id] - before == x->step[id] ? 2 * x->step[id] : 1;
				x->add_at[id] = now + o->sustained_timeout;
			}
		}
		if (!pending) {
			x->add_at[id] = -1;
			x->step[id] = 1;
		}
		l->job[id].want = x->target[id];
	}
	/* Idle executors above the target go back. */
	for (int i = 0; i < l->n; i++) {
		struct container *k = &l->ctr[i];
		if (k->owner < 0 || now < k->ready_at)
			continue;
		lease_refresh(l, k);
		double idle = now - fmax(k->idle_since, k->ready_at);
		if (!k->ntasks && idle >= o->idle_timeout - 1e-9 && l->job[k->owner].held > x->target[k->owner])
			lease_release(l, k);
	}
	lease_balance(l);
}

static void drs_arrived(struct sched *s, struct job *j)
{
	struct drs *x = s->priv;
	spark_arrived(s, j);
	x->add_at[j->id] = -1;
	x->step[j->id] = 1;
	drs_update(s);
}

static void drs_finished(struct sched *s, struct task *t)
{
	(void)t;
	drs_update(s);
}

static int drs_init(struct sched *s)
{
	struct drs *x = s->priv;
	int n = s->c->w->njobs ? s->c->w->njobs : 1;
	if (spark_init(s, false))
		return -1;
	x->target = calloc(n, sizeof *x->target);
	x->step = calloc(n, sizeof *x->step);
	x->add_at = calloc(n, sizeof *x->add_at);
	return x->target && x->step && x->add_at ? 0 : -1;
}

static void drs_destroy(struct sched *s)
{
	struct drs *x = s->priv;
	spark_destroy(s);
	free(x->target);
	free(x->step);
	free(x->add_at);
}

static const struct sched_opt drs_opt_table[] = {
	SPARK_SCHED_OPTS(struct drs_opts),
	SCHED_NUM_OPT(struct drs_opts, backlog_timeout, 1, 0, 3600, 0,
		      "seconds tasks wait before the first request (schedulerBacklogTimeout)"),
	SCHED_NUM_OPT(struct drs_opts, sustained_timeout, 1, 0, 3600, 0,
		      "seconds between requests while they still wait (sustainedSchedulerBacklogTimeout)"),
	SCHED_NUM_OPT(struct drs_opts, idle_timeout, 60, 0, 1e6, 0,
		      "seconds an executor stays idle before it goes back (executorIdleTimeout)"),
	SCHED_INT_OPT(struct drs_opts, max_executors, 1 << 20, 1, 1 << 20, "executors a job holds at most (maxExecutors)"),
	{0},
};

const struct sched_ops sched_drs = {
	.name = "drs",
	.help = "COBRA's DRS: Spark dynamic allocation (backlog 1 s, exponential ramp, idle 60 s), over Fair",
	.priv_size = sizeof(struct drs),
	.opts = drs_opt_table,
	.opts_size = sizeof(struct drs_opts),
	.init = drs_init,
	.destroy = drs_destroy,
	.job_arrived = drs_arrived,
	.offer = spark_offer,
	.task_finished = drs_finished,
	.tick = drs_update,
};
