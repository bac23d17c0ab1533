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
#include "emu/sched/claims.h"
#include "emu/sched/fit_index.h"
#include "emu/sched/key_sort.h"
#include "emu/sched/ready_set.h"
#include "emu/sched/round_memo.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DEP_NONE, DEP_RESPECT };

struct srpt_opts { double alpha, beta, epoch; int dep; bool index; };

struct srpt {
	double *since;       /* per task: when its current wait began (-1: not waiting) */
	double *waited;      /* per task: waiting before its current run */
	double *key;         /* per task: its priority this heartbeat */
	int *wait, nwait;    /* waiting tasks, highest priority first */
	struct key_order order;   /* wait's last order (key_resort) */
	int *run, nrun;      /* running tasks, lowest priority first */
	int *claim;          /* per server: a task that killed for room there, -1 */
	bool *used;          /* per task: a victim already, this round */
	int *nclaims;        /* per task: servers it claims (claim's inverse) */
	/* A round's answers per job and stage (a later waiting task has a
	 * lower priority, so "no victim" stays so within the round). */
	struct round_memo memo;
	struct ready_set rs; /* whether a task's parents have ended */
	/* wait as a fit index (no server has slots): what each asks; built at
	 * the heartbeat; an entry that left wait (started) is removed, and put
	 * back when a task went back to pending (requeues, summed over jobs) */
	struct fit_index fx;
	struct res *asks;
	struct res *task_ask;   /* per task: what it asks, as the heartbeat saw it waiting (read in task order) */
	int *memo_key;          /* per task, the same: its job and stage's in memo */
	int *gone, ngone;    /* wait entries removed since the build */
	bool indexed;
	long gen;
	/* per job, its tasks not done, in order (the heartbeat's walk), and
	 * j->requeues when last compacted (-1: not built) */
	int **undone, *nundone, *undone_rq;
	double next_epoch;
};

static long requeues(const struct cluster *c)
{
	long g = 0;
	for (int i = 0; i < c->w->njobs; i++)
		g += c->w->jobs[i].requeues;
	return g;
}

/* The fit index of wait, from what its tasks ask; off when out of memory. */
static void index_wait(struct srpt *p, const struct cluster *c)
{
	for (int i = 0; i < p->nwait; i++)
		p->asks[i] = p->task_ask[p->wait[i]];
	p->gen = requeues(c);
	p->ngone = 0;
	if (fit_index_build(&p->fx, p->nwait, p->asks))
		p->indexed = false;
}

/* Tasks went back to pending: the removed entries that wait again are back. */
static void index_requeued(struct srpt *p, const struct cluster *c)
{
	int n = 0;
	for (int k = 0; k < p->ngone; k++) {
		int i = p->gone[k];
		const struct task *t = &c->w->tasks[p->wait[i]];
		if (t->state == TASK_PENDING || t->state == TASK_SUSPENDED)
			fit_index_put(&p->fx, i, &p->asks[i]);
		else
			p->gone[n++] = i;
	}
	p->ngone = n;
	p->gen = requeues(c);
}

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

/* Job j's tasks not done, in order (from all of them when new or after a requeue). */
static int *undone(struct srpt *p, const struct job *j)
{
	if (p->undone_rq[j->id] != j->requeues) {
		int n = j->nmaps + j->nreduces;
		if (!p->undone[j->id] && !(p->undone[j->id] = malloc((n ? n : 1) * sizeof **p->undone)))
			return NULL;
		for (int k = 0; k < n; k++)
			p->undone[j->id][k] = j->first_task + k;
		p->nundone[j->id] = n;
		p->undone_rq[j->id] = j->requeues;
	}
	return p->undone[j->id];
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
		int *u = undone(p, j), nu = 0, n = u ? p->nundone[j->id] : j->nmaps + j->nreduces;
		for (int k = 0; k < n; k++) {   /* out of memory (u NULL): all of them */
			struct task *t = &c->w->tasks[u ? u[k] : j->first_task + k];
			if (t->state == TASK_DONE)
				continue;
			if (u)
				u[nu++] = t->id;
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
				if (t->state == TASK_PENDING && !ready_set_startable(&p->rs, t))
					continue;
				p->key[t->id] = o->alpha * (p->waited[t->id] + c->now - p->since[t->id]) -
						o->beta * remaining(s, t);
				p->task_ask[t->id] = t->state == TASK_SUSPENDED ? t->held : j->stages[t->stage].ask;
				p->memo_key[t->id] = round_memo_key(j->id, t->stage);
				p->wait[p->nwait++] = t->id;
			}
		}
		if (u != NULL)
			p->nundone[j->id] = nu;
	}
	/* by_key_desc and by_key_asc's orders (ties: ascending ids, and
	 * descending for run) by a stable key sort of ids in ascending order */
	bool up = true;
	for (int i = 1; i < p->nwait && up; i++)
		up = p->wait[i - 1] < p->wait[i];
	if (!up || key_resort(&p->order, p->wait, p->nwait, p->key, true, c->w->ntasks))
		qsort_r(p->wait, p->nwait, sizeof *p->wait, by_key_desc, p->key);
	up = true;
	for (int i = 1; i < p->nrun && up; i++)
		up = p->run[i - 1] < p->run[i];
	for (int i = 0; up && i < p->nrun / 2; i++) {
		int x = p->run[i];
		p->run[i] = p->run[p->nrun - 1 - i];
		p->run[p->nrun - 1 - i] = x;
	}
	if (!up || key_sort(p->run, p->nrun, p->key, false))
		qsort_r(p->run, p->nrun, sizeof *p->run, by_key_asc, p->key);
	if (p->indexed)
		index_wait(p, c);
}

static bool fits(struct srpt *p, const struct cluster *c, const struct task *t, int server)
{
	if (t->state == TASK_SUSPENDED)
		return cluster_resume_fits(c, t, server);
	return t->state == TASK_PENDING && ready_set_startable(&p->rs, t) && cluster_task_fits(c, t, server);
}

struct offer { struct srpt *p; struct cluster *c; int server; };

/* Wait's entry i may go to the offer's server; one that left wait goes from the index. */
static bool offer_check(void *ctx, int i)
{
	struct offer *o = ctx;
	struct task *t = &o->c->w->tasks[o->p->wait[i]];
	if (fits(o->p, o->c, t, o->server))
		return true;
	if (t->state != TASK_PENDING && t->state != TASK_SUSPENDED) {
		fit_index_remove(&o->p->fx, i);
		o->p->gone[o->p->ngone++] = i;
	}
	return false;
}

static struct task *srpt_offer(struct sched *s, int server)
{
	struct srpt *p = s->priv;
	struct cluster *c = s->c;
	if (p->claim[server] >= 0) {   /* what killed for this room, first */
		struct task *t = &c->w->tasks[p->claim[server]];
		if (fits(p, c, t, server)) {
			claims_set(p->claim, p->nclaims, server, -1);
			return t;
		}
		if (t->state != TASK_PENDING)
			claims_set(p->claim, p->nclaims, server, -1);
	}
	if (p->indexed) {   /* the first that fits, as the loop below finds it */
		if (p->gen != requeues(c))
			index_requeued(p, c);
	}
	if (p->indexed) {
		struct offer o = {p, c, server};
		int i = fit_index_first(&p->fx, 0, &c->servers[server].avail, offer_check, &o);
		return i >= 0 ? &c->w->tasks[p->wait[i]] : NULL;
	}
	for (int i = 0; i < p->nwait; i++) {
		struct task *t = &c->w->tasks[p->wait[i]];
		if (fits(p, c, t, server))
			return t;
	}
	return NULL;
}

/* Pending task a can start without a kill: it may start and an unclaimed
 * server fits its stage's ask (from the stage's memo). */
static bool has_room(struct srpt *p, const struct cluster *c, const struct task *a)
{
	if (!ready_set_startable(&p->rs, a))
		return false;
	int m = round_memo_slot(&p->memo, a->job, a->stage), k = p->memo.room[m];
	if (k == -2 || (k >= 0 && p->claim[k] >= 0)) {
		for (k = 0; k < c->nservers; k++)
			if (p->claim[k] < 0 && cluster_task_fits(c, a, k))
				break;
		p->memo.room[m] = k = k < c->nservers ? k : -1;
	}
	return k >= 0;
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
	round_memo_next(&p->memo);
	for (int i = 0; i < p->nwait && n < max; i++) {
		while (lo < p->nrun && p->used[p->run[lo]])
			lo++;
		int aid = p->wait[i];   /* ids, not a->id: a task is read only when it must be */
		if (lo == p->nrun || p->key[aid] <= p->key[p->run[lo]])
			break;   /* no running task has a lower priority than this one or the rest */
		if (round_memo_no_victim(&p->memo, p->memo_key[aid]))
			continue;   /* as below, without reading the task */
		struct task *a = &c->w->tasks[aid];
		if (a->state != TASK_PENDING || p->nclaims[aid] || has_room(p, c, a))
			continue;
		int m = round_memo_slot(&p->memo, a->job, a->stage);
		if (p->memo.novictim[m])
			continue;
		bool found = false;
		for (int v = lo; v < p->nrun; v++) {
			int bid = p->run[v];
			if (p->key[bid] >= p->key[aid])
				break;   /* the rest have higher priorities still */
			struct task *b = &c->w->tasks[bid];
			if (p->used[bid] || b->state != TASK_RUNNING || p->claim[b->server] >= 0)
				continue;
			struct res after = c->servers[b->server].avail, ask = cluster_task_ask(c, a, b->server);
			res_give(&after, &b->held);
			if (!res_fits(&ask, &after))
				continue;
			out[n++] = (struct preemption){b, PREEMPT_KILL};
			claims_set(p->claim, p->nclaims, b->server, a->id);
			p->used[b->id] = true;
			found = true;
			break;
		}
		p->memo.novictim[m] = !found;
	}
	for (int i = 0; i < n; i++)
		p->used[out[i].t->id] = false;
	return n;
}

static void srpt_finished(struct sched *s, struct task *t)
{
	struct srpt *p = s->priv;
	p->since[t->id] = -1;
	ready_set_task_done(&p->rs, t);
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
	p->nclaims = calloc(nt, sizeof *p->nclaims);
	size_t nj = s->c->w->njobs ? s->c->w->njobs : 1;
	p->undone = calloc(nj, sizeof *p->undone);
	p->nundone = calloc(nj, sizeof *p->nundone);
	p->undone_rq = malloc(nj * sizeof *p->undone_rq);
	for (size_t j = 0; p->undone_rq && j < nj; j++)
		p->undone_rq[j] = -1;
	p->asks = malloc(nt * sizeof *p->asks);
	p->task_ask = malloc(nt * sizeof *p->task_ask);
	p->memo_key = malloc(nt * sizeof *p->memo_key);
	p->gone = malloc(nt * sizeof *p->gone);
	p->indexed = o->index;
	for (int k = 0; k < s->c->nservers; k++)
		p->indexed &= !s->c->servers[k].slots;
	if (ready_set_init(&p->rs, s->c) || !p->undone || !p->nundone || !p->undone_rq || !p->asks || !p->task_ask ||
	    !p->memo_key || !p->gone || !p->nclaims || round_memo_init(&p->memo, s->c->w->njobs) ||
	    !p->since || !p->waited || !p->key || !p->wait || !p->run || !p->claim || !p->used)
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
	key_order_free(&p->order);
	free(p->run);
	free(p->claim);
	free(p->used);
	free(p->nclaims);
	round_memo_free(&p->memo);
	ready_set_free(&p->rs);
	fit_index_free(&p->fx);
	for (int j = 0; p->undone && j < s->c->w->njobs; j++)
		free(p->undone[j]);
	free(p->undone);
	free(p->nundone);
	free(p->undone_rq);
	free(p->asks);
	free(p->task_ask);
	free(p->memo_key);
	free(p->gone);
}

static const char *const dep_names[] = {"none", "respect", NULL};
static const struct sched_opt srpt_opt_table[] = {
	SCHED_NUM_OPT(struct srpt_opts, alpha, 0.5, 0, INFINITY, 0, "weight of the waiting time (the seed's alpha)"),
	SCHED_NUM_OPT(struct srpt_opts, beta, 1, 0, INFINITY, 0, "weight of the remaining time (the seed's beta)"),
	SCHED_NUM_OPT(struct srpt_opts, epoch, 1, 0, INFINITY, SCHED_OPT_ABOVE_MIN, "seconds between preemption rounds"),
	SCHED_CHOICE_OPT(struct srpt_opts, dep, DEP_NONE, dep_names,
			 "none: a task may start before its parents end (disorder); respect: only runnable tasks"),
	SCHED_BOOL_OPT(struct srpt_opts, index, true, "offers read the waiting tasks through a fit index (off: a scan; "
			"the same choices)"),
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
