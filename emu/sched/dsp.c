/* dsp.c — DSP (seed 004): dependency-aware scheduling and preemption.
 *
 * Offline, every `period` (the seed's 5 min), the jobs that arrived since
 * the last plan are planned at once: each task gets a machine (a slot of a
 * server: the notes' OPEN-1) and a start, by the seed's ILP (GLPK) when the
 * batch is small and by H1 otherwise (dsp.h).  Each server keeps its
 * planned tasks in the order of their planned starts and runs, when it has
 * room, the first whose parents are done and that fits: the plan is an
 * order, not a timetable (OPEN-16).  A plan is also made before the period
 * ends when a server has room and nothing planned to run, so the cluster
 * does not idle waiting for the period (the seed is silent).
 *
 * Online, every `epoch`, on each server whose first waiting task does not
 * fit, Algorithm 1 (notes §4.3): an urgent (allowable waiting time <= eps)
 * or starving (waited >= tau) task suspends the lowest-priority running
 * task it does not depend on (waited: past its planned start, as the notes
 * advise when, counted from runnable, with tau = 0.05 s nearly every
 * waiting task starves and the preemptions explode); then the first delta of the queue may
 * suspend a running task of lower priority (C1), that it does not depend
 * on (C2), by more than rho times the mean priority gap (PP; pp=off is
 * DSPW/oPP).  Only running tasks with more allowable waiting time than an
 * epoch are victims.  A suspended task resumes on its server, from where
 * it was, after the run's recovery delay (--recovery-delay: t_r + sigma).
 * DSP never starts a task whose parents have not ended: no disorders.
 * The offers and Algorithm 1 read a queue's candidates only (struct marks:
 * the tasks whose own parents have ended, counted by ready.h, and the
 * suspended ones), not the tasks still waiting on their parents. */
#include "emu/sched.h"
#include "emu/sched/dsp.h"
#include "emu/sched/ready.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SOLVER_AUTO, SOLVER_ILP, SOLVER_H1 };
enum { PRIO_PAPER, PRIO_URGENCY };
enum { WAIT_RUNNABLE, WAIT_LATENESS };

struct dsp_opts {
	int solver, ilp_max_tasks, ilp_nodes;
	double ilp_max_size, ilp_time_limit, ilp_gap;
	double period, epoch;
	double gamma, w1, w2, w3;
	double delta, tau, epsilon, rho;
	bool adaptive, pp, preempt, steal, late_urgent;
	int prio_mode, wait_mode;
};

struct list { int *id, n, cap, cur; };

/* A planned queue's candidates: a bit per position, set for every task
 * that may start or resume (pending with its own parents done, or
 * suspended; a superset: the scans still test each), so that offers and
 * Algorithm 1 skip the tasks still waiting on their parents. */
struct marks { uint64_t *w; };   /* a word per 64 of the workload's tasks */

struct dsp {
	int *cfirst, *child;          /* children CSR (dsp_children) */
	int *plan_srv;                /* per task: its planned server, -1 = not planned */
	double *plan_at;              /* per task: its planned start (run time) */
	double *ran, *run_from, *wait_acc, *susp_at;   /* per task: run and wait accounting */
	double *leaf, *P;             /* per task: Eq. 13 and Eq. 12 this epoch */
	bool *listed;                 /* per task: in its server's running list */
	double *dl;                   /* per job x stage: the level deadline (run time) */
	bool *planned;                /* per job */
	long *prio_epoch;             /* per job: the epoch its P was computed in */
	struct list *queue, *running, *promoted;   /* per server */
	struct marks *cand;           /* per server: its queue's candidates */
	int *pos;                     /* per task: its place in its planned server's queue */
	struct ready *rj;             /* per job: its tasks' parents not done */
	int nlanes, *lane_srv;        /* machines of the plan: every slot of every server */
	double *lane_free;            /* when each is free of what was planned (run time) */
	double last_plan, next_epoch, delta;
	long epoch_no, requeues_seen;
	bool idle, any_plan;
	/* What could make a task startable (an end, a plan, a suspension, a
	 * requeue) bumps version; a server whose queues had nothing startable
	 * at this version has nothing now either (empty_at), so its offer
	 * skips the scan. */
	unsigned long version, *empty_at;
};

#define T_MIN 1e-3   /* s: remaining times below this count as this (no division by 0) */

static int list_add(struct list *l, int id)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16, *n = realloc(l->id, cap * sizeof *n);
		if (!n)
			return -1;
		l->id = n;
		l->cap = cap;
	}
	l->id[l->n++] = id;
	return 0;
}

static void list_del(struct list *l, int i)
{
	memmove(&l->id[i], &l->id[i + 1], (l->n - i - 1) * sizeof *l->id);
	l->n--;
}

/* ---- the candidates ------------------------------------------------------ */

/* A job without its counts (out of memory): every pending task of it. */
static bool candidate(const struct dsp *d, const struct workload *w, const struct task *t)
{
	const struct ready *r = &d->rj[t->job];
	return t->state == TASK_SUSPENDED ||
	       (t->state == TASK_PENDING &&
		(!r->built || t->kind == TASK_MAP || ready_parents_done(r, &w->jobs[t->job], t)));
}

static void mark(struct dsp *d, int id, bool on)
{
	int k = d->plan_srv[id], i = d->pos[id];
	if (k < 0)
		return;
	if (on)
		d->cand[k].w[i >> 6] |= (uint64_t)1 << (i & 63);
	else
		d->cand[k].w[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

/* The first candidate at or after position i of server k's queue (q->n: none). */
static int next_cand(const struct dsp *d, int k, int i)
{
	const struct list *q = &d->queue[k];
	const uint64_t *w = d->cand[k].w;
	while (i < q->n) {
		uint64_t b = w[i >> 6] >> (i & 63);
		if (b)
			return i + __builtin_ctzll(b) < q->n ? i + __builtin_ctzll(b) : q->n;
		i = (i | 63) + 1;
	}
	return q->n;
}

/* Server k's queue was ordered anew: its places and candidates. */
static void mark_queue(struct dsp *d, const struct workload *w, int k)
{
	struct list *q = &d->queue[k];
	memset(d->cand[k].w, 0, (q->n + 63) / 64 * sizeof *d->cand[k].w);
	for (int i = 0; i < q->n; i++) {
		d->pos[q->id[i]] = i;
		if (candidate(d, w, &w->tasks[q->id[i]]))
			mark(d, q->id[i], true);
	}
}

static void became_ready(void *ctx, const struct job *j, int rel)
{
	mark(ctx, j->first_task + rel, true);
}

/* A task went back to pending: every active job's counts and every queue's
 * candidates again, from the tasks' states. */
static void recount(struct dsp *d, const struct cluster *c)
{
	for (int i = 0; i < c->running_jobs; i++) {
		const struct job *j = cluster_active(c, i);
		if (ready_build_counts(&d->rj[j->id], c->w, j, became_ready, d))
			ready_free(&d->rj[j->id]);
	}
	for (int k = 0; k < c->nservers; k++)
		mark_queue(d, c->w, k);
}

/* cluster_task_runnable, its own parents read from the counts (a task may
 * list many). */
static bool runnable(const struct dsp *d, const struct cluster *c, const struct task *t)
{
	const struct job *j = &c->w->jobs[t->job];
	const struct ready *r = &d->rj[t->job];
	if (!ready_current(r, j))
		return cluster_task_runnable(c, t);
	return t->state == TASK_PENDING && cluster_job_active(c, j) &&
	       (t->kind == TASK_MAP || (ready_parents_done(r, j, t) && cluster_stage_allowed(c, j, t->stage)));
}

/* ---- accounting ---------------------------------------------------------- */

/* When t became runnable: its job's submission or its last listed or
 * one-to-one parent's end. */
static double ready_at(const struct cluster *c, const struct task *t)
{
	const struct job *j = &c->w->jobs[t->job];
	double at = j->submit_s;
	for (int q = 0; q < t->ntdeps; q++)
		at = fmax(at, c->w->tasks[j->first_task + c->w->tdeps[t->tdep_first + q].task].t_end);
	const struct stage *s = &j->stages[t->stage];
	for (int p = 0; p < s->nparents; p++)
		if (s->parent[p].kind == EDGE_ONE_TO_ONE)
			at = fmax(at, stage_task(c->w->tasks, j, s->parent[p].stage, t->sindex)->t_end);
	return at;
}

static double rem(const struct sched *s, const struct task *t)
{
	const struct dsp *d = s->priv;
	int srv = t->server >= 0 ? t->server : d->plan_srv[t->id] >= 0 ? d->plan_srv[t->id] : 0;
	double r = cluster_task_duration(s->c, t, srv);
	if (t->state == TASK_RUNNING)
		r -= d->ran[t->id] + s->c->now - (d->run_from[t->id] >= 0 ? d->run_from[t->id] : t->t_start);
	else if (t->state == TASK_SUSPENDED)
		r -= d->ran[t->id];
	return fmax(r, T_MIN);
}

static double waited(const struct sched *s, const struct task *t)
{
	const struct dsp_opts *o = s->opts;
	const struct dsp *d = s->priv;
	double now = s->c->now;
	if (o->wait_mode == WAIT_LATENESS)
		return t->state == TASK_RUNNING ? 0 : fmax(0, now - d->plan_at[t->id]);
	if (t->state == TASK_SUSPENDED)
		return d->wait_acc[t->id] + now - d->susp_at[t->id];
	if (t->state == TASK_PENDING && runnable(d, s->c, t))
		return d->wait_acc[t->id] + now - ready_at(s->c, t);
	return d->wait_acc[t->id];
}

/* Allowable waiting time: the level deadline less now and what is left. */
static double allowed(const struct sched *s, const struct task *t)
{
	const struct dsp *d = s->priv;
	return d->dl[t->job * JOB_MAX_STAGES + t->stage] - s->c->now - rem(s, t);
}

/* t starts (or resumes) on `server` now: its wait ends. */
static void started(struct sched *s, struct task *t, int server)
{
	struct dsp *d = s->priv;
	if (t->state == TASK_SUSPENDED)
		d->wait_acc[t->id] += s->c->now - d->susp_at[t->id];
	else
		d->wait_acc[t->id] += s->c->now - ready_at(s->c, t);
	d->run_from[t->id] = s->c->now;
	mark(d, t->id, false);
	if (!d->listed[t->id] && !list_add(&d->running[server], t->id))
		d->listed[t->id] = true;
}

/* ---- the plan ----------------------------------------------------------- */

static int by_plan(const void *a, const void *b, void *arg)
{
	const struct dsp *d = arg;
	int x = *(const int *)a, y = *(const int *)b;
	if (d->plan_at[x] != d->plan_at[y])
		return d->plan_at[x] < d->plan_at[y] ? -1 : 1;
	return (x > y) - (x < y);
}

/* Precedence edges of the batch (local ids): listed and one-to-one
 * parents, and a shuffle or broadcast whole when it is small. */
static int batch_edges(const struct cluster *c, const int *ids, const int *local, int n, int (**edge)[2])
{
	int ne = 0, cap = 64;
	int (*e)[2] = malloc(cap * sizeof *e);
	for (int v = 0; e && v < n; v++) {
		const struct task *t = &c->w->tasks[ids[v]];
		const struct job *j = &c->w->jobs[t->job];
		const struct stage *st = &j->stages[t->stage];
		for (int p = 0; p < st->nparents + t->ntdeps; p++) {
			int first = 0, cnt = 0;
			if (p >= st->nparents) {
				first = j->first_task + c->w->tdeps[t->tdep_first + p - st->nparents].task;
				cnt = 1;
			} else if (st->parent[p].kind == EDGE_ONE_TO_ONE) {
				first = stage_task(c->w->tasks, j, st->parent[p].stage, t->sindex)->id;
				cnt = 1;
			} else if (st->parent[p].kind != EDGE_TASKS &&
				   (double)j->stages[st->parent[p].stage].ntasks * st->ntasks <= 1e5) {
				first = stage_task(c->w->tasks, j, st->parent[p].stage, 0)->id;
				cnt = j->stages[st->parent[p].stage].ntasks;
			}
			for (int u = first; u < first + cnt; u++) {
				if (local[u] < 0)
					continue;
				if (ne == cap) {
					int (*n2)[2] = realloc(e, 2 * cap * sizeof *e);
					if (!n2) {
						free(e);
						return -1;
					}
					e = n2;
					cap *= 2;
				}
				e[ne][0] = local[u];
				e[ne++][1] = v;
			}
		}
	}
	*edge = e;
	return e ? ne : -1;
}

static int by_release(const void *a, const void *b, void *arg)
{
	const double *rel = arg;
	int x = *(const int *)a, y = *(const int *)b;
	return rel[x] != rel[y] ? (rel[x] < rel[y] ? -1 : 1) : (x > y) - (x < y);
}

/* The plan of `in` into pl: the ILP when asked or (auto) when small, on the
 * n machines free first (a batch of n tasks needs no more, and on alike
 * machines these do best), else or failing that H1 on all. */
static int solve(struct sched *s, const struct dsp_inst *in, struct dsp_plan *pl)
{
	const struct dsp_opts *o = s->opts;
	int n = in->n, m = in->m, sub = n < m ? n : m;
	if (o->solver == SOLVER_H1 ||
	    (o->solver == SOLVER_AUTO && (n > o->ilp_max_tasks || dsp_ilp_size(n, sub) > o->ilp_max_size)))
		return dsp_h1(in, pl);
	int *lane = malloc((m ? m : 1) * sizeof *lane);
	double *p = malloc(((size_t)n * sub + 1) * sizeof *p), *rel = malloc((sub ? sub : 1) * sizeof *rel);
	int rc = -1;
	if (lane && p && rel) {
		for (int k = 0; k < m; k++)
			lane[k] = k;
		qsort_r(lane, m, sizeof *lane, by_release, (void *)in->rel_m);
		for (int k = 0; k < sub; k++) {
			rel[k] = in->rel_m[lane[k]];
			for (int v = 0; v < n; v++)
				p[(size_t)v * sub + k] = in->p[(size_t)v * m + lane[k]];
		}
		struct dsp_inst sin = *in;
		sin.m = sub;
		sin.p = p;
		sin.rel_m = rel;
		struct dsp_ilp_opts io = {.time_limit_s = o->ilp_time_limit, .node_limit = o->ilp_nodes, .gap = o->ilp_gap,
					  .late_weight = 1e3};
		if (dsp_ilp(&sin, &io, pl) >= 0) {
			for (int v = 0; v < n; v++)
				pl->machine[v] = lane[pl->machine[v]];
			rc = 0;
		}
	}
	free(lane);
	free(p);
	free(rel);
	return rc ? dsp_h1(in, pl) : 0;
}

/* Plan every arrived job not planned yet.  Returns -1 out of memory. */
static int plan(struct sched *s)
{
	const struct dsp_opts *o = s->opts;
	struct dsp *d = s->priv;
	struct cluster *c = s->c;
	int n = 0, nj = 0, m = d->nlanes;
	for (int i = 0; i < c->running_jobs; i++) {
		const struct job *j = cluster_active(c, i);
		if (!d->planned[j->id]) {
			n += j->nmaps + j->nreduces;
			nj++;
		}
	}
	if (!nj)
		return 0;
	int *ids = malloc((n ? n : 1) * sizeof *ids), *job = malloc((n ? n : 1) * sizeof *job);
	int *local = malloc((size_t)c->w->ntasks * sizeof *local), (*edge)[2] = NULL;
	double *p = malloc(((size_t)n * m + 1) * sizeof *p), *rel = malloc(m * sizeof *rel);
	double *dl = malloc(nj * sizeof *dl);
	struct dsp_plan pl = {0};
	int rc = -1, ne;
	if (!ids || !job || !local || !p || !rel || !dl || dsp_plan_alloc(&pl, n))
		goto out;
	memset(local, -1, (size_t)c->w->ntasks * sizeof *local);
	n = nj = 0;
	for (int i = 0; i < c->running_jobs; i++) {
		struct job *j = cluster_active(c, i);
		if (d->planned[j->id])
			continue;
		d->planned[j->id] = true;
		dl[nj] = j->deadline_s > 0 ? j->submit_s + j->deadline_s - c->now : INFINITY;
		for (int k = 0; k < j->nmaps + j->nreduces; k++) {
			local[j->first_task + k] = n;
			job[n] = nj;
			ids[n++] = j->first_task + k;
		}
		nj++;
	}
	for (int v = 0; v < n; v++)
		for (int k = 0; k < m; k++)
			p[(size_t)v * m + k] = cluster_task_duration(c, &c->w->tasks[ids[v]], d->lane_srv[k]);
	for (int k = 0; k < m; k++)
		rel[k] = fmax(0, d->lane_free[k] - c->now);
	if ((ne = batch_edges(c, ids, local, n, &edge)) < 0)
		goto out;
	struct dsp_inst in = {.n = n, .m = m, .p = p, .rel_m = rel, .job = job, .njobs = nj, .dl = dl,
			      .nedges = ne, .edge = (const int(*)[2])edge, .gamma = o->gamma};
	if (solve(s, &in, &pl))
		goto out;
	for (int v = 0; v < n; v++) {
		int t = ids[v], srv = d->lane_srv[pl.machine[v]];
		d->plan_srv[t] = srv;
		d->plan_at[t] = c->now + pl.start[v];
		d->lane_free[pl.machine[v]] = fmax(d->lane_free[pl.machine[v]], c->now + pl.end[v]);
		if (list_add(&d->queue[srv], t))
			goto out;
	}
	/* each queue in planned order, without what is done */
	for (int k = 0; k < c->nservers; k++) {
		struct list *q = &d->queue[k];
		int w = 0;
		for (int i = 0; i < q->n; i++)
			if (c->w->tasks[q->id[i]].state != TASK_DONE)
				q->id[w++] = q->id[i];
		q->n = w;
		q->cur = 0;
		if (q->n)
			qsort_r(q->id, q->n, sizeof *q->id, by_plan, d);
		mark_queue(d, c->w, k);
	}
	d->last_plan = c->now;
	d->any_plan = true;
	d->version++;
	rc = 0;
out:
	free(ids);
	free(job);
	free(local);
	free(p);
	free(rel);
	free(dl);
	free(edge);
	dsp_plan_free(&pl);
	return rc;
}

static void dsp_tick(struct sched *s)
{
	const struct dsp_opts *o = s->opts;
	struct dsp *d = s->priv;
	long requeues = 0;
	for (int i = 0; i < s->c->w->njobs; i++)
		requeues += s->c->w->jobs[i].requeues;
	if (requeues != d->requeues_seen) {   /* a task pending again may sit behind a cursor */
		d->requeues_seen = requeues;
		d->version++;
		for (int k = 0; k < s->c->nservers; k++)
			d->queue[k].cur = 0;
		recount(d, s->c);
	}
	bool unplanned = false;
	for (int i = 0; i < s->c->running_jobs && !unplanned; i++)
		unplanned = !d->planned[cluster_active(s->c, i)->id];
	if (unplanned && (!d->any_plan || d->idle || s->c->now >= d->last_plan + o->period))
		plan(s);
	d->idle = false;
}

/* ---- dispatch ------------------------------------------------------------ */

static bool startable(const struct dsp *d, const struct cluster *c, const struct task *t, int server)
{
	if (t->state == TASK_SUSPENDED)
		return cluster_resume_fits(c, t, server);
	return t->state == TASK_PENDING && runnable(d, c, t) && cluster_task_fits(c, t, server);
}

static struct task *dsp_offer(struct sched *s, int server)
{
	const struct dsp_opts *o = s->opts;
	struct dsp *d = s->priv;
	struct cluster *c = s->c;
	struct list *pr = &d->promoted[server], *q = &d->queue[server];
	if (d->empty_at[server] == d->version) {
		d->idle = true;
		return NULL;
	}
	for (int i = 0; i < pr->n; i++) {   /* those that preempted, first */
		struct task *t = &c->w->tasks[pr->id[i]];
		if (t->state == TASK_RUNNING || t->state == TASK_DONE) {
			list_del(pr, i--);
			continue;
		}
		if (startable(d, c, t, server)) {
			list_del(pr, i);
			started(s, t, server);
			return t;
		}
	}
	while (q->cur < q->n && c->w->tasks[q->id[q->cur]].state == TASK_DONE)
		q->cur++;
	for (int i = next_cand(d, server, q->cur); i < q->n; i = next_cand(d, server, i + 1)) {
		struct task *t = &c->w->tasks[q->id[i]];
		if (startable(d, c, t, server)) {
			started(s, t, server);
			return t;
		}
	}
	/* Nothing of its own: the earliest-planned runnable task among the
	 * heads of the other queues (a plan's estimates are not exact, and a
	 * lost server's tasks need another). */
	for (int k = 1; o->steal && k < c->nservers; k++) {
		int ok = (server + k) % c->nservers;
		struct list *oq = &d->queue[ok];
		for (int i = next_cand(d, ok, oq->cur); i < oq->n && i < oq->cur + 64; i = next_cand(d, ok, i + 1)) {
			struct task *t = &c->w->tasks[oq->id[i]];
			if (t->state == TASK_PENDING && startable(d, c, t, server)) {
				started(s, t, server);
				return t;
			}
		}
	}
	d->idle = true;
	d->empty_at[server] = d->version;
	return NULL;
}

static void dsp_task_finished(struct sched *s, struct task *t)
{
	struct dsp *d = s->priv;
	const struct job *j = &s->c->w->jobs[t->job];
	d->version++;
	mark(d, t->id, false);
	if (ready_current(&d->rj[t->job], j))
		ready_task_done(&d->rj[t->job], s->c->w, j, t);
	else if (d->rj[t->job].built)   /* a task went back to pending since */
		recount(d, s->c);
}

/* ---- preemption ----------------------------------------------------------- */

static double leaf_prio(const struct sched *s, const struct task *t)
{
	const struct dsp_opts *o = s->opts;
	double r = rem(s, t), a = allowed(s, t), w = waited(s, t);
	double deadline_term = !isfinite(a) ? 0 : o->prio_mode == PRIO_URGENCY ? 1 / fmax(a, T_MIN) : a;
	return o->w1 / r + o->w2 * w + o->w3 * deadline_term;
}

static double prio(struct sched *s, const struct task *t)
{
	const struct dsp_opts *o = s->opts;
	struct dsp *d = s->priv;
	const struct job *j = &s->c->w->jobs[t->job];
	if (d->prio_epoch[j->id] != d->epoch_no) {
		d->prio_epoch[j->id] = d->epoch_no;
		for (int k = 0; k < j->nmaps + j->nreduces; k++) {
			const struct task *x = &s->c->w->tasks[j->first_task + k];
			d->leaf[x->id] = x->state == TASK_DONE ? 0 : leaf_prio(s, x);
		}
		dsp_prio_job(s->c, j, d->cfirst, d->child, d->leaf, o->gamma, d->P);
	}
	return d->P[t->id];
}

static int by_prio(const void *a, const void *b, void *arg)
{
	const struct dsp *d = arg;
	double x = d->P[*(const int *)a], y = d->P[*(const int *)b];
	return (x > y) - (x < y);
}

/* Whether a fits on `server` once the victim's resources are back. */
static bool fits_with(const struct cluster *c, const struct task *a, int server, struct res avail)
{
	struct res ask = a->state == TASK_SUSPENDED ? a->held : cluster_task_ask(c, a, server);
	return res_fits(&ask, &avail);
}

/* Algorithm 1 on one server; returns how many it wrote into out. */
static int preempt_server(struct sched *s, int server, struct preemption *out, int max, int *considered,
			  int *preempting)
{
	const struct dsp_opts *o = s->opts;
	struct dsp *d = s->priv;
	struct cluster *c = s->c;
	struct list *q = &d->queue[server], *run = &d->running[server];
	int na = 0, nb = 0, n = 0;
	int *A = malloc((q->n + 1) * sizeof *A), *B = malloc((run->n + 1) * sizeof *B);
	bool *taken = calloc(q->n + 1, sizeof *taken);   /* by index in A: started by a preemption */
	if (!A || !B || !taken)
		goto out;
	for (int i = next_cand(d, server, q->cur); i < q->n; i = next_cand(d, server, i + 1)) {
		struct task *t = &c->w->tasks[q->id[i]];
		if ((t->state == TASK_PENDING && runnable(d, c, t)) ||
		    (t->state == TASK_SUSPENDED && t->server == server))
			A[na++] = t->id;
	}
	/* only a server that cannot run its first waiting task preempts */
	if (!na || startable(d, c, &c->w->tasks[A[0]], server))
		goto out;
	double eps = isnan(o->epsilon) ? o->epoch : o->epsilon, lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < run->n; i++) {
		struct task *t = &c->w->tasks[run->id[i]];
		if (t->state != TASK_RUNNING || t->server != server) {
			d->listed[t->id] = false;
			list_del(run, i--);
			continue;
		}
		if (allowed(s, t) > o->epoch)
			B[nb++] = t->id;
	}
	if (!nb)
		goto out;
	for (int i = 0; i < na + nb; i++) {   /* the mean gap between neighbours: (max - min) / (N - 1) */
		double p = prio(s, &c->w->tasks[i < na ? A[i] : B[i - na]]);
		lo = fmin(lo, p);
		hi = fmax(hi, p);
	}
	double pbar = na + nb > 1 ? (hi - lo) / (na + nb - 1) : 0;
	qsort_r(B, nb, sizeof *B, by_prio, d);
	struct res avail = c->servers[server].avail;
	int head = (int)ceil(d->delta * na);
	for (int phase = 1; phase <= 2 && nb && n < max; phase++)
		for (int i = 0; i < na && nb && n < max; i++) {
			struct task *a = &c->w->tasks[A[i]];
			if (taken[i])
				continue;
			double allow = allowed(s, a);
			bool urgent = (allow <= eps && (o->late_urgent || allow >= 0)) || waited(s, a) >= o->tau;
			if ((phase == 1 && !urgent) || (phase == 2 && i >= head))
				continue;
			if (fits_with(c, a, server, avail))   /* room already: no victim needed */
				continue;
			if (phase == 2)
				(*considered)++;
			for (int k = 0; k < nb; k++) {
				struct task *b = &c->w->tasks[B[k]];
				if (dsp_depends(c, a, b))   /* C2 */
					continue;
				if (phase == 2 && !dsp_pp_ok(d->P[a->id], d->P[b->id], pbar, o->rho, o->pp))
					break;   /* C1 or PP: a later victim has a higher priority still */
				struct res after = avail;
				res_give(&after, &b->held);
				if (!fits_with(c, a, server, after))
					continue;
				out[n++] = (struct preemption){b, PREEMPT_SUSPEND};
				avail = after;
				struct res ask = a->state == TASK_SUSPENDED ? a->held : cluster_task_ask(c, a, server);
				res_take(&avail, &ask);
				d->ran[b->id] += c->now - d->run_from[b->id];
				d->susp_at[b->id] = c->now;
				mark(d, b->id, true);
				memmove(&B[k], &B[k + 1], (nb - k - 1) * sizeof *B);
				nb--;
				list_add(&d->promoted[server], a->id);
				taken[i] = true;
				*preempting += phase == 2;
				break;
			}
		}
out:
	free(A);
	free(B);
	free(taken);
	return n;
}

static int dsp_preempt(struct sched *s, struct preemption *out, int max)
{
	const struct dsp_opts *o = s->opts;
	struct dsp *d = s->priv;
	if (!o->preempt || s->c->now < d->next_epoch)
		return 0;
	d->next_epoch = s->c->now + o->epoch;
	d->epoch_no++;
	int n = 0, considered = 0, preempting = 0;
	for (int k = 0; k < s->c->nservers && n < max; k++)
		if (s->c->servers[k].alive)
			n += preempt_server(s, k, out + n, max - n, &considered, &preempting);
	if (n)
		d->version++;
	/* delta follows how much of the plan needed changing (OPEN-9) */
	if (o->adaptive && considered) {
		double f = (double)preempting / considered;
		if (f > 0.5)
			d->delta = fmin(1, d->delta + 0.05);
		else if (f < 0.1)
			d->delta = fmax(o->delta, d->delta - 0.05);
	}
	return n;
}

/* ---- life ------------------------------------------------------------------ */

static void dsp_job_arrived(struct sched *s, struct job *j)
{
	struct dsp *d = s->priv;
	dsp_level_deadlines(s->c, j, &d->dl[j->id * JOB_MAX_STAGES]);
	if (ready_build_counts(&d->rj[j->id], s->c->w, j, became_ready, d))
		ready_free(&d->rj[j->id]);   /* out of memory: all its pending tasks are candidates */
}

static int dsp_init(struct sched *s)
{
	const struct dsp_opts *o = s->opts;
	struct dsp *d = s->priv;
	struct cluster *c = s->c;
	size_t nt = c->w->ntasks ? c->w->ntasks : 1, nj = c->w->njobs ? c->w->njobs : 1, ns = c->nservers;
	d->delta = o->delta;
	for (int k = 0; k < c->nservers; k++)
		d->nlanes += c->servers[k].containers > 1 ? c->servers[k].containers : 1;
	d->lane_srv = malloc(d->nlanes * sizeof *d->lane_srv);
	d->lane_free = calloc(d->nlanes, sizeof *d->lane_free);
	d->plan_srv = malloc(nt * sizeof *d->plan_srv);
	d->plan_at = calloc(nt, sizeof *d->plan_at);
	d->ran = calloc(nt, sizeof *d->ran);
	d->run_from = malloc(nt * sizeof *d->run_from);
	d->wait_acc = calloc(nt, sizeof *d->wait_acc);
	d->susp_at = calloc(nt, sizeof *d->susp_at);
	d->leaf = calloc(nt, sizeof *d->leaf);
	d->P = calloc(nt, sizeof *d->P);
	d->listed = calloc(nt, sizeof *d->listed);
	d->dl = malloc(nj * JOB_MAX_STAGES * sizeof *d->dl);
	d->planned = calloc(nj, sizeof *d->planned);
	d->prio_epoch = calloc(nj, sizeof *d->prio_epoch);
	d->queue = calloc(ns, sizeof *d->queue);
	d->running = calloc(ns, sizeof *d->running);
	d->promoted = calloc(ns, sizeof *d->promoted);
	d->empty_at = malloc((ns ? ns : 1) * sizeof *d->empty_at);
	d->cand = calloc(ns ? ns : 1, sizeof *d->cand);
	for (size_t k = 0; d->cand && k < ns; k++)
		if (!(d->cand[k].w = calloc((nt + 63) / 64, sizeof *d->cand[k].w)))
			return -1;
	d->pos = calloc(nt, sizeof *d->pos);
	d->rj = calloc(nj, sizeof *d->rj);
	if (!d->lane_srv || !d->lane_free || !d->plan_srv || !d->plan_at || !d->ran || !d->run_from ||
	    !d->wait_acc || !d->susp_at || !d->leaf || !d->P || !d->listed || !d->dl || !d->planned ||
	    !d->prio_epoch || !d->queue || !d->running || !d->promoted || !d->empty_at || !d->cand || !d->pos || !d->rj ||
	    dsp_children(c->w, &d->cfirst, &d->child))
		return -1;
	for (size_t k = 0; k < ns; k++)
		d->empty_at[k] = (unsigned long)-1;
	for (int k = 0, l = 0; k < c->nservers; k++)
		for (int i = 0; i < (c->servers[k].containers > 1 ? c->servers[k].containers : 1); i++)
			d->lane_srv[l++] = k;
	for (size_t v = 0; v < nt; v++) {
		d->plan_srv[v] = -1;
		d->run_from[v] = -1;
	}
	for (size_t i = 0; i < nj; i++)
		d->prio_epoch[i] = -1;
	return 0;
}

static void dsp_destroy(struct sched *s)
{
	struct dsp *d = s->priv;
	for (int k = 0; k < s->c->nservers; k++) {
		if (d->queue)
			free(d->queue[k].id);
		if (d->running)
			free(d->running[k].id);
		if (d->promoted)
			free(d->promoted[k].id);
		if (d->cand)
			free(d->cand[k].w);
	}
	for (int i = 0; d->rj && i < s->c->w->njobs; i++)
		ready_free(&d->rj[i]);
	free(d->cand);
	free(d->pos);
	free(d->rj);
	free(d->queue);
	free(d->running);
	free(d->promoted);
	free(d->cfirst);
	free(d->child);
	free(d->lane_srv);
	free(d->lane_free);
	free(d->plan_srv);
	free(d->plan_at);
	free(d->ran);
	free(d->run_from);
	free(d->wait_acc);
	free(d->susp_at);
	free(d->leaf);
	free(d->P);
	free(d->listed);
	free(d->dl);
	free(d->planned);
	free(d->prio_epoch);
	free(d->empty_at);
}

static const char *const solver_names[] = {"auto", "ilp", "h1", NULL};
static const char *const prio_names[] = {"paper", "urgency", NULL};
static const char *const wait_names[] = {"runnable", "lateness", NULL};
static const struct sched_opt dsp_opt_table[] = {
	SCHED_CHOICE_OPT(struct dsp_opts, solver, SOLVER_AUTO, solver_names,
			 "the plan: the ILP (GLPK), H1, or auto: the ILP for batches of at most ilp_max_tasks"),
	SCHED_INT_OPT(struct dsp_opts, ilp_max_tasks, 40, 1, 100000, "auto: the largest batch solved exactly"),
	SCHED_NUM_OPT(struct dsp_opts, ilp_max_size, 20000, 0, INFINITY, 0,
		      "auto: the largest model solved exactly (columns and rows, dsp_ilp_size)"),
	SCHED_INT_OPT(struct dsp_opts, ilp_nodes, 2000, 0, 1000000000,
		      "branch-and-bound nodes GLPK may explore per plan, then its best (at least H1's); 0: no limit"),
	SCHED_NUM_OPT(struct dsp_opts, ilp_time_limit, 30, 0, INFINITY, SCHED_OPT_ABOVE_MIN,
		      "wall-clock seconds GLPK may take per plan, then its best (a run that reaches it is not reproducible)"),
	SCHED_NUM_OPT(struct dsp_opts, ilp_gap, 0.01, 0, 1, 0, "GLPK's relative MIP gap"),
	SCHED_NUM_OPT(struct dsp_opts, period, 300, 0, INFINITY, 0, "seconds between plans (the seed's unit period)"),
	SCHED_NUM_OPT(struct dsp_opts, epoch, 1, 0, INFINITY, SCHED_OPT_ABOVE_MIN,
		      "seconds between preemption rounds"),
	SCHED_NUM_OPT(struct dsp_opts, gamma, 0.5, 0, 1, 0, "Eq. 12's level coefficient"),
	SCHED_NUM_OPT(struct dsp_opts, w1, 0.5, 0, 1, 0, "Eq. 13's weight of 1/remaining time"),
	SCHED_NUM_OPT(struct dsp_opts, w2, 0.3, 0, 1, 0, "Eq. 13's weight of waiting time"),
	SCHED_NUM_OPT(struct dsp_opts, w3, 0.2, 0, 1, 0, "Eq. 13's weight of allowable waiting time"),
	SCHED_NUM_OPT(struct dsp_opts, delta, 0.35, 0, 1, 0, "share of a queue's head that may preempt (and its floor)"),
	SCHED_BOOL_OPT(struct dsp_opts, adaptive, true, "delta grows when preempting tasks do preempt, shrinks when not"),
	SCHED_NUM_OPT(struct dsp_opts, tau, 0.05, 0, INFINITY, 0, "seconds of waiting after which a task preempts regardless"),
	SCHED_NUM_OPT(struct dsp_opts, epsilon, NAN, 0, INFINITY, SCHED_OPT_AUTO,
		      "allowable waiting time at or below which a task is urgent (auto: the epoch)"),
	SCHED_BOOL_OPT(struct dsp_opts, late_urgent, true,
		       "a task past its level deadline stays urgent (off: only one that can still meet it)"),
	SCHED_NUM_OPT(struct dsp_opts, rho, 1.2, 1, INFINITY, SCHED_OPT_ABOVE_MIN,
		      "PP: the priority gap, over the mean gap, must exceed this"),
	SCHED_BOOL_OPT(struct dsp_opts, pp, true, "the normalised-priority test (off: DSPW/oPP)"),
	SCHED_BOOL_OPT(struct dsp_opts, preempt, true, "the online preemption (off: the plan alone)"),
	SCHED_BOOL_OPT(struct dsp_opts, steal, true, "a server with nothing planned runnable takes another's"),
	SCHED_CHOICE_OPT(struct dsp_opts, prio_mode, PRIO_PAPER, prio_names,
			 "Eq. 13's deadline term: paper (w3 x allowable wait) or urgency (w3 / it)"),
	SCHED_CHOICE_OPT(struct dsp_opts, wait_mode, WAIT_LATENESS, wait_names,
			 "waiting time: past the planned start, or since runnable (over suspensions too)"),
	{0},
};

const struct sched_ops sched_dsp = {
	.name = "dsp",
	.help = "DSP: planned DAG tasks (ILP/H1), dependency-aware priority and preemption",
	.priv_size = sizeof(struct dsp),
	.opts = dsp_opt_table,
	.opts_size = sizeof(struct dsp_opts),
	.init = dsp_init,
	.destroy = dsp_destroy,
	.job_arrived = dsp_job_arrived,
	.offer = dsp_offer,
	.task_finished = dsp_task_finished,
	.tick = dsp_tick,
	.preempt = dsp_preempt,
};

const struct sched_ops sched_dsp_nopp = {
	.name = "dsp-nopp",
	.help = "DSPW/oPP: DSP without the normalised-priority test",
	.alias_of = &sched_dsp,
	.preset = (const char *const[]){"pp=off", NULL},
};
