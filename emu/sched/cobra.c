/* cobra.c — COBRA (seed 001): each job adapts its desire for containers
 * every period L by MIMD from how well it used its last allotment (Af,
 * Algorithm 1), the fair job scheduler divides the containers among the
 * desires (emu/lease.h), and each job packs its waiting tasks into its
 * containers with a locality wait proportional to the task's processing
 * time (Pdelay, Algorithm 2).  Semi-clairvoyant: a task's processing time
 * is read only when cluster_sizes_known allows it; before that the wait is
 * fixed (first_wait), as the seed's real system does for a stage's first
 * tasks.
 *
 * Where the seed is silent (docs/reproduction.md, COBRA): a job is served
 * from its arrival with desire d0 (not from the next period); a period in
 * which it held no usable container gives no feedback (d stays); "a task
 * waited" means one waited at least a second (the monitor's sample) during
 * the period; a task without input locality (a later stage's) counts as
 * node-local everywhere; a map's wait runs from its job's arrival; tau
 * defaults to 0.3, after the notes' DECIDE-8. */
#include "emu/sched/cobra.h"
#include "emu/lease.h"
#include "emu/sched.h"
#include <math.h>
#include <stdlib.h>

struct cobra_opts {
	struct lease_params lease;
	double rho, delta, period, tau, d0, first_wait;
};

struct cobra {
	struct lease l;
	double *d;            /* per job: its desire (real; it asks for ceil(d)) */
	double *since;        /* per job: its arrival (its maps' wait runs from it) */
	double *pend_since;   /* per job: since when it has had a waiting task, -1 none */
	bool *waited;         /* per job: a task waited >= 1 s this period */
	double next_period;
};

double cobra_af(double d, int a, double u, bool waited, double rho, double delta, enum cobra_af *branch)
{
	enum cobra_af b = u < delta && !waited ? AF_INEFFICIENT : a < (int)ceil(d - 1e-9) ? AF_DEPRIVED : AF_SATISFIED;
	if (branch)
		*branch = b;
	double next = b == AF_INEFFICIENT ? d / rho : b == AF_DEPRIVED ? d : d * rho;
	return next < 1 ? 1 : next;
}

bool cobra_pdelay_ok(enum locality loc, double wait, double tau_p, bool gate)
{
	return loc == LOCAL_NODE || (loc == LOCAL_RACK && wait >= tau_p) || (wait >= 2 * tau_p && gate);
}

static void set_want(struct sched *s, const struct job *j)
{
	struct cobra *x = s->priv;
	int total = lease_total(&x->l), want = (int)ceil(x->d[j->id] - 1e-9);
	x->l.job[j->id].want = want < total ? want : total;
}

/* Pdelay for container k of job j: one task per call (the runtime offers
 * the server again while it has room, so several are packed). */
static struct task *cobra_pick(struct lease *l, struct container *k, struct job *j)
{
	struct sched *s = l->ctx;
	const struct cobra_opts *o = s->opts;
	struct cobra *x = s->priv;
	enum locality loc = LOCAL_NONE;
	struct task *m = cluster_pending_maps(s->c, j) ? cluster_best_map(s->c, j, k->server, &loc) : NULL;
	if (m && loc == LOCAL_NODE) {
		if (lease_fits(l, k, m))
			return m;
		m = NULL;   /* the job's maps are alike: none fits */
	}
	struct task *r = lease_next_reduce(l, j, k->server);
	if (r && lease_fits(l, k, r))
		return r;
	if (!m || !lease_fits(l, k, m))
		return NULL;
	double tau_p = cluster_sizes_known(s->c, m) ? o->tau * cluster_task_duration(s->c, m, k->server) : o->first_wait;
	bool gate = lease_free_at_least(l, k, 1 - o->delta);
	return cobra_pdelay_ok(loc, s->c->now - x->since[j->id], tau_p, gate) ? m : NULL;
}

static struct task *cobra_offer(struct sched *s, int server)
{
	struct cobra *x = s->priv;
	return lease_offer(&x->l, server, cobra_pick);
}

/* The end of a period: every job's next desire by Af. */
static void cobra_period(struct sched *s)
{
	const struct cobra_opts *o = s->opts;
	struct cobra *x = s->priv;
	for (int i = 0; i < s->c->running_jobs; i++) {
		struct job *j = cluster_active(s->c, i);
		double u = lease_util(&x->l, j->id);
		if (u >= 0)   /* no usable container all period: no feedback */
			x->d[j->id] = cobra_af(x->d[j->id], x->l.job[j->id].allot, u, x->waited[j->id], o->rho, o->delta, NULL);
		lease_util_reset(&x->l, j->id);
		x->waited[j->id] = false;
		set_want(s, j);
	}
}

static void cobra_tick(struct sched *s)
{
	const struct cobra_opts *o = s->opts;
	struct cobra *x = s->priv;
	lease_sample(&x->l);
	for (int i = 0; i < s->c->running_jobs; i++) {
		struct job *j = cluster_active(s->c, i);
		if (!cluster_pending_maps(s->c, j) && !cluster_pending_reduces(s->c, j))
			x->pend_since[j->id] = -1;
		else if (x->pend_since[j->id] < 0)
			x->pend_since[j->id] = s->c->now;
		else if (s->c->now - x->pend_since[j->id] >= 1)
			x->waited[j->id] = true;
	}
	if (s->c->now >= x->next_period - 1e-9) {
		cobra_period(s);
		while (x->next_period <= s->c->now + 1e-9)
			x->next_period += o->period;
	}
	lease_balance(&x->l);
}

static void cobra_arrived(struct sched *s, struct job *j)
{
	const struct cobra_opts *o = s->opts;
	struct cobra *x = s->priv;
	x->d[j->id] = o->d0;
	x->since[j->id] = s->c->now;
	x->pend_since[j->id] = -1;
	set_want(s, j);
	lease_balance(&x->l);
}

static void cobra_finished(struct sched *s, struct task *t)
{
	(void)t;
	lease_balance(&((struct cobra *)s->priv)->l);
}

static int cobra_init(struct sched *s)
{
	const struct cobra_opts *o = s->opts;
	struct cobra *x = s->priv;
	int n = s->c->w->njobs ? s->c->w->njobs : 1;
	struct lease_params lp = o->lease;
	lp.drain = true;
	if (lease_init(&x->l, s->c, &lp))
		return -1;
	x->l.ctx = s;
	x->d = calloc(n, sizeof *x->d);
	x->since = calloc(n, sizeof *x->since);
	x->pend_since = calloc(n, sizeof *x->pend_since);
	x->waited = calloc(n, sizeof *x->waited);
	x->next_period = o->period;
	return x->d && x->since && x->pend_since && x->waited ? 0 : -1;
}

static void cobra_destroy(struct sched *s)
{
	struct cobra *x = s->priv;
	lease_free(&x->l);
	free(x->d);
	free(x->since);
	free(x->pend_since);
	free(x->waited);
}

static const struct sched_opt cobra_opt_table[] = {
	LEASE_SCHED_OPTS(struct cobra_opts, lease),
	SCHED_NUM_OPT(struct cobra_opts, period, 5, 0, 3600, SCHED_OPT_ABOVE_MIN,
		      "seconds of a scheduling period L: desires change at its end"),
	SCHED_NUM_OPT(struct cobra_opts, rho, 1.5, 1, 100, SCHED_OPT_ABOVE_MIN,
		      "Af's factor: the desire is multiplied or divided by it"),
	SCHED_NUM_OPT(struct cobra_opts, delta, 0.7, 0, 1, 0,
		      "utilisation threshold: below it, with no task waiting, a period is inefficient"),
	SCHED_NUM_OPT(struct cobra_opts, tau, 0.3, 0, 100, 0,
		      "Pdelay: rack-local after tau x p of waiting, anywhere after 2 tau x p (the seed gives no value)"),
	SCHED_NUM_OPT(struct cobra_opts, first_wait, 5, 0, 3600, 0,
		      "Pdelay's tau x p while p is hidden (semi-clairvoyant)"),
	SCHED_NUM_OPT(struct cobra_opts, d0, 1, 1, 1e6, 0, "a job's desire in its first period (Algorithm 1: 1)"),
	{0},
};

const struct sched_ops sched_cobra = {
	.name = "cobra",
	.help = "COBRA: MIMD desires (Af) over Fair, leased containers, locality wait ~ task time (Pdelay)",
	.priv_size = sizeof(struct cobra),
	.opts = cobra_opt_table,
	.opts_size = sizeof(struct cobra_opts),
	.init = cobra_init,
	.destroy = cobra_destroy,
	.job_arrived = cobra_arrived,
	.offer = cobra_offer,
	.task_finished = cobra_finished,
	.tick = cobra_tick,
};
