/* cobra_default.c — COBRA's Default baseline (seed 001, its simulation):
 * fixed-capacity, disposable containers.  A job asks for a container per
 * task it could run (running and waiting, as YARN's MapReduce AM does),
 * the fair job scheduler divides the containers (emu/lease.h), each
 * container runs one task however small and goes back when the task ends,
 * and every grant pays the container response time.  Locality is the
 * resource manager's delay scheduling with a fixed wait per level (Spark's
 * and YARN's 3 s): a job whose turn it is takes only a node-local
 * container until it has waited `wait`, a rack-local one until 2 x wait,
 * then any; its wait starts when it first passes and ends at a node-local
 * grant (Zaharia et al.). */
#include "emu/lease.h"
#include "emu/sched.h"
#include <stdlib.h>

struct cdef_opts { struct lease_params lease; double wait; };
struct cdef { struct lease l; double *skip_since; };

static enum locality cdef_reach(struct lease *l, const struct job *j)
{
	struct sched *s = l->ctx;
	const struct cdef_opts *o = s->opts;
	double *since = &((struct cdef *)s->priv)->skip_since[j->id];
	if (*since < 0)
		*since = s->c->now;
	double waited = s->c->now - *since;
	return waited >= 2 * o->wait ? LOCAL_NONE : waited >= o->wait ? LOCAL_RACK : LOCAL_NODE;
}

static void cdef_granted(struct lease *l, const struct job *j, enum locality loc)
{
	struct sched *s = l->ctx;
	if (loc == LOCAL_NODE)
		((struct cdef *)s->priv)->skip_since[j->id] = -1;
}

/* One task per container: the best for its server; a container the job
 * has no task for any more goes back. */
static struct task *cdef_pick(struct lease *l, struct container *k, struct job *j)
{
	struct sched *s = l->ctx;
	if (k->placed)
		return NULL;
	struct task *t = cluster_pending_maps(s->c, j) ? cluster_best_map(s->c, j, k->server, NULL) : NULL;
	if (!t)
		t = lease_next_reduce(l, j, k->server);
	if (t && lease_fits(l, k, t))
		return t;
	if (!t)
		lease_release(l, k);
	return NULL;
}

static struct task *cdef_offer(struct sched *s, int server)
{
	return lease_offer(&((struct cdef *)s->priv)->l, server, cdef_pick);
}

/* Disposable: a container whose task ended (or failed) goes back. */
static void cdef_balance(struct sched *s)
{
	struct cdef *x = s->priv;
	for (int i = 0; i < x->l.n; i++) {
		struct container *k = &x->l.ctr[i];
		if (k->owner < 0 || !k->placed)
			continue;
		lease_refresh(&x->l, k);
		if (!k->ntasks)
			lease_release(&x->l, k);
	}
	for (int i = 0; i < s->c->running_jobs; i++) {
		struct job *j = cluster_active(s->c, i);
		x->l.job[j->id].want = sched_running(j) + cluster_pending_maps(s->c, j) + cluster_pending_reduces(s->c, j);
	}
	lease_balance(&x->l);
}

static void cdef_finished(struct sched *s, struct task *t)
{
	(void)t;
	cdef_balance(s);
}

static void cdef_arrived(struct sched *s, struct job *j)
{
	((struct cdef *)s->priv)->skip_since[j->id] = -1;
	cdef_balance(s);
}

static int cdef_init(struct sched *s)
{
	const struct cdef_opts *o = s->opts;
	struct cdef *x = s->priv;
	if (lease_init(&x->l, s->c, &o->lease))
		return -1;
	x->l.ctx = s;
	x->l.reach = cdef_reach;
	x->l.granted = cdef_granted;
	return (x->skip_since = calloc(s->c->w->njobs ? s->c->w->njobs : 1, sizeof *x->skip_since)) ? 0 : -1;
}

static void cdef_destroy(struct sched *s)
{
	struct cdef *x = s->priv;
	lease_free(&x->l);
	free(x->skip_since);
}

static const struct sched_opt cdef_opt_table[] = {
	LEASE_SCHED_OPTS(struct cdef_opts, lease),
	SCHED_NUM_OPT(struct cdef_opts, wait, 3, 0, 3600, 0,
		      "delay scheduling: seconds a job waits for a node-local container, and as long again for a rack-local one"),
	{0},
};

const struct sched_ops sched_cobra_default = {
	.name = "cobra-default",
	.help = "COBRA's Default: Fair, one task per disposable container, each grant paying its latency, delay scheduling",
	.priv_size = sizeof(struct cdef),
	.opts = cdef_opt_table,
	.opts_size = sizeof(struct cdef_opts),
	.init = cdef_init,
	.destroy = cdef_destroy,
	.job_arrived = cdef_arrived,
	.offer = cdef_offer,
	.task_finished = cdef_finished,
	.tick = cdef_balance,
};
