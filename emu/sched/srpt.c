/* srpt.c — SRPT, DSP's preemption baseline (seed 004 §V after [22],
 * notes §6.6): a task's priority is alpha x its waiting time - beta x its
 * remaining time (OPEN-24: shorter remaining and longer waiting both
 * raise it).  A free server runs the waiting task of the highest priority
 * that fits; every `epoch`, a waiting task of a higher priority than the
 * lowest running one kills it, and takes its place.  No checkpoint: a
 * killed task restarts from zero (pending again).  As the seed's SRPT it
 * ignores dependencies (dep=none): a task may start before its parents end
 * and then waits for them (a disorder, emu/sched.h); dep=respect starts
 * only runnable tasks. */
#include "emu/sched.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DEP_NONE, DEP_RESPECT };

struct srpt_opts { double alpha, beta, epoch; int dep; };

struct srpt {
	double *since;       /* per task: when its current wait began (-1: not waiting) */
	double *waited;      /* per task: waiting before its current run */
	double *key;         /* per task: its priority this heartbeat */
	int *wait, nwait;    /* waiting tasks, highest priority first */
	int *run, nrun;      /* running tasks, lowest priority first */
	int *claim;          /* per server: a task that killed for room there, -1 */
	bool *used;          /* per task: a victim already, this round */
	double next_epoch;
};

static double remaining(const struct sched *s, const struct task *t)
{
	if (t->state == TASK_RUNNING)
		return fmax(0, t->t_start + t->duration_s - s->c->now);
	return t->work_s;   /* from zero, on the reference server */
}

static int by_key_desc(const void *a, const void *b, void *arg)
{
	const double *k = arg;
	double x = k[*(const int *)a], y = k[*(const int *)b];
	return x != y ? (x > y ? -1 : 1) : (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static int by_key_asc(const void *a, const void *b, void *arg)
{
	return -by_key_desc(a, b, arg);
}

/* Every heartbeat: the waiting and running tasks of the active jobs, by priority. */
static void srpt_tick(struct sched *s)
{
	const struct srpt_opts *o = s->opts;
	struct srpt *p = s->priv;
	struct cluster *c = s->c;
	p->nwait = p->nrun = 0;
	for (int i = 0; i < c->running_jobs; i++) {
		const struct job *j = cluster_active(c, i);
		for (int k = 0; k < j->nmaps + j->nreduces; k++) {
			struct task *t = &c->w->tasks[j->first_task + k];
			if (t->state == TASK_RUNNING) {
				if (p->since[t->id] >= 0) {   /* started since the last heartbeat */
					p->waited[t->id] += t->t_start - p->since[t->id];
					p->since[t->id] = -1;
				}
				p->key[t->id] = o->alpha * p->waited[t->id] - o->beta * remaining(s, t);
				p->run[p->nrun++] = t->id;
			} else if (t->state == TASK_PENDING || t->state == TASK_SUSPENDED) {
				if (p->since[t->id] < 0)
					p->since[t->id] = c->now;
				if (!cluster_task_startable(c, t) && t->state == TASK_PENDING)
					continue;
				p->key[t->id] = o->alpha * (p->waited[t->id] + c->now - p->since[t->id]) -
						o->beta * remaining(s, t);
				p->wait[p->nwait++] = t->id;
			}
		}
	}
	qsort_r(p->wait, p->nwait, sizeof *p->wait, by_key_desc, p->key);
	qsort_r(p->run, p->nrun, sizeof *p->run, by_key_asc, p->key);
}

static bool fits(const struct cluster *c, const struct task *t, int server)
{
	if (t->state == TASK_SUSPENDED)
		return cluster_resume_fits(c, t, server);
	return t->state == TASK_PENDING && cluster_task_startable(c, t) && cluster_task_fits(c, t, server);
}

static struct task *srpt_offer(struct sched *s, int server)
{
	struct srpt *p = s->priv;
	struct cluster *c = s->c;
	if (p->claim[server] >= 0) {   /* what killed for this room, first */
		struct task *t = &c->w->tasks[p->claim[server]];
		if (fits(c, t, server)) {
			p->claim[server] = -1;
			return t;
		}
		if (t->state != TASK_PENDING)
			p->claim[server] = -1;
	}
	for (int i = 0; i < p->nwait; i++) {
		struct task *t = &c->w->tasks[p->wait[i]];
		if (fits(c, t, server))
			return t;
	}
	return NULL;
}

static bool claimed(const struct srpt *p, const struct cluster *c, int id)
{
	for (int k = 0; k < c->nservers; k++)
		if (p->claim[k] == id)
			return true;
	return false;
}

/* Every epoch: the waiting tasks, highest first, each kills the lowest
 * running task of a lower priority whose server it fits once freed. */
static int srpt_preempt(struct sched *s, struct preemption *out, int max)
{
	const struct srpt_opts *o = s->opts;
	struct srpt *p = s->priv;
	struct cluster *c = s->c;
	if (c->now < p->next_epoch)
		return 0;
	p->next_epoch = c->now + o->epoch;
	int n = 0, lo = 0;   /* p->run[lo] is the lowest candidate not used */
	for (int i = 0; i < p->nwait && n < max; i++) {
		while (lo < p->nrun && p->used[p->run[lo]])
			lo++;
		struct task *a = &c->w->tasks[p->wait[i]];
		if (lo == p->nrun || p->key[a->id] <= p->key[p->run[lo]])
			break;   /* no running task has a lower priority than this one or the rest */
		if (a->state != TASK_PENDING || claimed(p, c, a->id))
			continue;
		bool room = false;   /* it can start without a kill */
		for (int k = 0; k < c->nservers && !room; k++)
			room = fits(c, a, k) && p->claim[k] < 0;
		if (room)
			continue;
		for (int v = lo; v < p->nrun; v++) {
			struct task *b = &c->w->tasks[p->run[v]];
			if (p->key[b->id] >= p->key[a->id])
				break;   /* the rest have higher priorities still */
			if (p->used[b->id] || b->state != TASK_RUNNING || p->claim[b->server] >= 0)
				continue;
			struct res after = c->servers[b->server].avail, ask = cluster_task_ask(c, a, b->server);
			res_give(&after, &b->held);
			if (!res_fits(&ask, &after))
				continue;
			out[n++] = (struct preemption){b, PREEMPT_KILL};
			p->claim[b->server] = a->id;
			p->used[b->id] = true;
			break;
		}
	}
	for (int i = 0; i < n; i++)
		p->used[out[i].t->id] = false;
	return n;
}

static void srpt_finished(struct sched *s, struct task *t)
{
	struct srpt *p = s->priv;
	p->since[t->id] = -1;
}

static int srpt_init(struct sched *s)
{
	const struct srpt_opts *o = s->opts;
	struct srpt *p = s->priv;
	size_t nt = s->c->w->ntasks ? s->c->w->ntasks : 1;
	p->since = malloc(nt * sizeof *p->since);
	p->waited = calloc(nt, sizeof *p->waited);
	p->key = calloc(nt, sizeof *p->key);
	p->wait = malloc(nt * sizeof *p->wait);
	p->run = malloc(nt * sizeof *p->run);
	p->claim = malloc((s->c->nservers ? s->c->nservers : 1) * sizeof *p->claim);
	p->used = calloc(nt, sizeof *p->used);
	if (!p->since || !p->waited || !p->key || !p->wait || !p->run || !p->claim || !p->used)
		return -1;
	for (size_t i = 0; i < nt; i++)
		p->since[i] = -1;
	for (int k = 0; k < s->c->nservers; k++)
		p->claim[k] = -1;
	if (o->dep == DEP_NONE)
		sched_ignore_deps(s);
	return 0;
}

static void srpt_destroy(struct sched *s)
{
	struct srpt *p = s->priv;
	free(p->since);
	free(p->waited);
	free(p->key);
	free(p->wait);
	free(p->run);
	free(p->claim);
	free(p->used);
}

static const char *const dep_names[] = {"none", "respect", NULL};
static const struct sched_opt srpt_opt_table[] = {
	SCHED_NUM_OPT(struct srpt_opts, alpha, 0.5, 0, INFINITY, 0, "weight of the waiting time (the seed's alpha)"),
	SCHED_NUM_OPT(struct srpt_opts, beta, 1, 0, INFINITY, 0, "weight of the remaining time (the seed's beta)"),
	SCHED_NUM_OPT(struct srpt_opts, epoch, 1, 0, INFINITY, SCHED_OPT_ABOVE_MIN, "seconds between preemption rounds"),
	SCHED_CHOICE_OPT(struct srpt_opts, dep, DEP_NONE, dep_names,
			 "none: a task may start before its parents end (disorder); respect: only runnable tasks"),
	{0},
};

const struct sched_ops sched_srpt = {
	.name = "srpt",
	.help = "SRPT: alpha x waiting - beta x remaining time first, kill-and-restart preemption (DSP's baseline)",
	.priv_size = sizeof(struct srpt),
	.opts = srpt_opt_table,
	.opts_size = sizeof(struct srpt_opts),
	.init = srpt_init,
	.destroy = srpt_destroy,
	.offer = srpt_offer,
	.tick = srpt_tick,
	.task_finished = srpt_finished,
	.preempt = srpt_preempt,
};
