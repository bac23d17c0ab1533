/* amoeba.c — Amoeba (Ananthanarayanan et al., SoCC 2012) as DSP's
 * preemption baseline (seed 004 §V, notes §6.4).
 *
 * The notes': a task's priority is 1 / its remaining time, so the task that
 * needs the most (longest remaining) is the first victim; every epoch a
 * waiting task of a higher priority than a running one on a full server
 * takes its place; a preemption is a checkpoint (PREEMPT_SUSPEND: the
 * victim keeps its progress and its server and resumes there); it ignores
 * dependencies (dep=none: a task may start before its parents end and waits
 * for them, a disorder, emu/sched.h).
 *
 * Ours: one queue for the cluster, shortest remaining first (a pending
 * task's remaining is its work on the reference server, a suspended one's
 * what it had left when suspended), as the notes' OPEN-20 recommends; a
 * free server resumes what was suspended there and can compute (its parents
 * have ended) first: checkpointed tasks come back before new ones start
 * (without it, short children started before their suspended parents held
 * the parents' servers, and a small DAG workload never ended); then it
 * takes the first that fits of the first `window` waiting tasks that may
 * start now (killed tasks waiting for their parents do not fill it: at full
 * size 6188 of them did, and nothing started again); one victim
 * per server and round, the running task of the longest remaining whose
 * server then fits the waiting task; a suspended task whose parents have
 * not ended neither preempts nor is resumed by it; remaining time counts a
 * run from when the task was offered (or seen resumed), the recovery delay
 * included, and not while it waits for its parents (it computes nothing
 * then); a task the core's deadlock breaker killed starts again only once
 * its parents have ended (startable below). */
#include "emu/sched.h"
#include "emu/sched/fit_index.h"
#include "emu/sched/ready_set.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DEP_NONE, DEP_RESPECT };
struct amoeba_opts { double epoch; int window, dep; bool index; };

struct amoeba {
	double *ran, *run_from;   /* per task: computed before its current run; when that began (-1: none) */
	double *key;              /* per task: remaining when it began to wait (its place in wait) */
	double *rkey;             /* per task: remaining this round, when running */
	bool *inrun;              /* per task: in run */
	bool *infresh;            /* per task: in fresh (an entry in wait is then stale) */
	int *wait, nwait, head;   /* waiting tasks (pending or suspended), shortest first; head: first maybe waiting */
	int *fresh, nfresh;       /* waiting tasks to merge into wait */
	int *tmp;
	int *run, nrun;           /* tasks it saw start or resume (some may have ended since) */
	int *susp, nsusp;         /* tasks it suspended, until they resume */
	int *claim;               /* per server: the waiting task that preempted for room there, -1 */
	int *requeues;            /* per job: j->requeues last seen */
	struct ready_set rs;      /* whether a task's parents have ended */
	/* wait's pending entries (pend), built at each merge: an entry no
	 * longer pending is removed (as it is offered: a pending task starts
	 * only so), and put back when a task went back to pending (requeues,
	 * summed over the jobs).  Of those, as fit indexes (no server has
	 * slots), the ones that may start: rn, those whose parents have ended
	 * (runnable), and sk, those and the ones never killed (what may start
	 * when dependencies are ignored: a task the deadlock breaker killed
	 * waits for its parents).  Kept exact by checking a job's entries again
	 * when one of its tasks ends or goes back to pending (dirty). */
	bool *pend;
	struct fit_index rn, sk;
	struct res *asks;
	int *pos;                 /* per task: its entry in wait (if wait[pos] is it) */
	int *gone, ngone;
	int *job_first, *job_ent, *job_fill;   /* wait's entries by job (CSR, built with the index) */
	int *wjob;                /* per entry: its job */
	struct res *asks_tmp;     /* asks, wjob and pend being merged */
	int *wjob_tmp;
	bool *pend_tmp;
	bool *in_rn, *in_sk;      /* per entry, at the build: live in rn, sk */
	bool *dirty;              /* per job: its entries' rn and sk to check again */
	int *dirtyq, ndirty;
	int *rq_seen;             /* per job: j->requeues when last marked dirty for it */
	bool indexed;
	long gen;
	double next_epoch;
};

static long requeues(const struct cluster *c)
{
	long g = 0;
	for (int i = 0; i < c->w->njobs; i++)
		g += c->w->jobs[i].requeues;
	return g;
}

static void index_remove(struct amoeba *a, int i)
{
	if (!a->pend[i])
		return;
	a->pend[i] = false;
	fit_index_remove(&a->rn, i);
	fit_index_remove(&a->sk, i);
	a->gone[a->ngone++] = i;
}

static void set_live(struct amoeba *a, struct fit_index *f, int i, bool on)
{
	if (on && !fit_index_live(f, i))
		fit_index_put(f, i, &a->asks[i]);
	else if (!on && fit_index_live(f, i))
		fit_index_remove(f, i);
}

/* Pending task t's entry: in rn if runnable, in sk if that or never killed. */
static void may_start(struct amoeba *a, const struct task *t, bool *rn, bool *sk)
{
	*rn = ready_set_runnable(&a->rs, t);
	*sk = *rn || !t->kills;
}

static void mark(struct amoeba *a, const struct cluster *c, int i)
{
	bool rn, sk;
	may_start(a, &c->w->tasks[a->wait[i]], &rn, &sk);
	set_live(a, &a->rn, i, rn);
	set_live(a, &a->sk, i, sk);
}

static void index_put(struct amoeba *a, const struct cluster *c, int i)
{
	a->pend[i] = true;
	mark(a, c, i);
}

static void make_dirty(struct amoeba *a, int job)
{
	if (!a->dirty[job]) {
		a->dirty[job] = true;
		a->dirtyq[a->ndirty++] = job;
	}
}

/* rn and sk, exact again: the entries of the jobs whose tasks ended or
 * went back to pending since. */
static void mark_dirty(struct amoeba *a, const struct cluster *c)
{
	for (int d = 0; d < a->ndirty; d++) {
		int j = a->dirtyq[d];
		a->dirty[j] = false;
		for (int k = a->job_first[j]; k < a->job_first[j + 1]; k++)
			if (a->pend[a->job_ent[k]])
				mark(a, c, a->job_ent[k]);
	}
	a->ndirty = 0;
}

/* Wait's entry n (being built, in the _tmp arrays) is task id, seen afresh. */
static void entry(struct amoeba *a, const struct cluster *c, int n, int id)
{
	const struct task *t = &c->w->tasks[id];
	a->asks_tmp[n] = c->w->jobs[t->job].stages[t->stage].ask;
	a->wjob_tmp[n] = t->job;
	a->pend_tmp[n] = t->state == TASK_PENDING;
	a->in_rn[n] = a->in_sk[n] = false;
	if (a->pend_tmp[n])
		may_start(a, t, &a->in_rn[n], &a->in_sk[n]);
}

/* Wait's entry n is its entry i before the merge, still pending: as it was
 * (rn and sk are exact, the merge checked the dirty jobs first). */
static void carry(struct amoeba *a, int n, int i)
{
	a->asks_tmp[n] = a->asks[i];
	a->wjob_tmp[n] = a->wjob[i];
	a->pend_tmp[n] = true;
	a->in_rn[n] = fit_index_live(&a->rn, i);
	a->in_sk[n] = fit_index_live(&a->sk, i);
}

/* The fit indexes of wait from its entries; off when out of memory. */
static void index_wait(struct amoeba *a, const struct cluster *c)
{
	int nj = c->w->njobs;
	memset(a->job_first, 0, (nj + 1) * sizeof *a->job_first);
	a->ngone = 0;
	for (int i = 0; i < a->nwait; i++) {
		a->pos[a->wait[i]] = i;
		a->job_first[a->wjob[i] + 1]++;
		if (!a->pend[i])
			a->gone[a->ngone++] = i;
	}
	a->gen = requeues(c);
	if (fit_index_build_some(&a->rn, a->nwait, a->asks, a->in_rn) ||
	    fit_index_build_some(&a->sk, a->nwait, a->asks, a->in_sk)) {
		a->indexed = false;
		return;
	}
	for (int j = 0; j < nj; j++) {
		a->job_first[j + 1] += a->job_first[j];
		a->job_fill[j] = a->job_first[j];
		a->dirty[j] = false;
	}
	a->ndirty = 0;
	for (int i = 0; i < a->nwait; i++)
		a->job_ent[a->job_fill[a->wjob[i]]++] = i;
}

/* Tasks went back to pending: the removed entries pending again are back. */
static void index_requeued(struct amoeba *a, const struct cluster *c)
{
	int n = 0;
	for (int k = 0; k < a->ngone; k++) {
		int i = a->gone[k];
		if (c->w->tasks[a->wait[i]].state == TASK_PENDING)
			index_put(a, c, i);
		else
			a->gone[n++] = i;
	}
	a->ngone = n;
	a->gen = requeues(c);
	for (int i = 0; i < c->running_jobs; i++) {   /* a task done may be pending again: who may run changes */
		const struct job *j = cluster_active(c, i);
		if (a->rq_seen[j->id] != j->requeues) {
			a->rq_seen[j->id] = j->requeues;
			make_dirty(a, j->id);
		}
	}
}

static bool waiting(const struct task *t)
{
	return t->state == TASK_PENDING || t->state == TASK_SUSPENDED;
}

/* Running and not waiting for its parents (a disorder does not compute). */
static bool computing(const struct sched *s, const struct task *t)
{
	struct amoeba *a = s->priv;
	return t->state == TASK_RUNNING && a->run_from[t->id] >= 0 && ready_set_deps_done(&a->rs, t);
}

static double remaining(const struct sched *s, const struct task *t)
{
	const struct amoeba *a = s->priv;
	if (t->state == TASK_PENDING)
		return t->work_s;
	double r = cluster_task_duration(s->c, t, t->server) - a->ran[t->id];
	if (computing(s, t))
		r -= s->c->now - a->run_from[t->id];
	return fmax(r, 0);
}

static void add_fresh(struct sched *s, struct task *t)
{
	struct amoeba *a = s->priv;
	if (a->infresh[t->id])
		return;
	a->key[t->id] = remaining(s, t);
	a->infresh[t->id] = true;
	a->fresh[a->nfresh++] = t->id;
}

static int by_key(const void *x, const void *y, void *arg)
{
	const double *k = arg;
	int i = *(const int *)x, j = *(const int *)y;
	return k[i] != k[j] ? (k[i] < k[j] ? -1 : 1) : (i > j) - (i < j);
}

#define SWAP(x, y) do { __typeof__(x) sw_ = (x); (x) = (y); (y) = sw_; } while (0)

/* wait = its waiting tasks and fresh's, by key; an entry still pending
 * carries what the index knew of it (no read of its task). */
static void merge(struct sched *s)
{
	struct amoeba *a = s->priv;
	struct cluster *c = s->c;
	const struct task *T = c->w->tasks;
	if (a->indexed) {
		if (a->gen != requeues(c))
			index_requeued(a, c);
		mark_dirty(a, c);
	}
	qsort_r(a->fresh, a->nfresh, sizeof *a->fresh, by_key, a->key);
	int n = 0, i = a->head, f = 0;
	while (i < a->nwait || f < a->nfresh) {
		int id;
		if (f == a->nfresh || (i < a->nwait && by_key(&a->wait[i], &a->fresh[f], a->key) < 0)) {
			id = a->wait[i++];
			if (a->infresh[id])
				continue;
			if (a->indexed && a->pend[i - 1]) {
				carry(a, n, i - 1);
				a->tmp[n++] = id;
				continue;
			}
		} else {
			id = a->fresh[f++];
		}
		if (!waiting(&T[id]))
			continue;
		if (a->indexed)
			entry(a, c, n, id);
		a->tmp[n++] = id;
	}
	SWAP(a->wait, a->tmp);
	SWAP(a->asks, a->asks_tmp);
	SWAP(a->wjob, a->wjob_tmp);
	SWAP(a->pend, a->pend_tmp);
	for (f = 0; f < a->nfresh; f++)
		a->infresh[a->fresh[f]] = false;
	a->nwait = n;
	a->head = a->nfresh = 0;
	if (a->indexed)
		index_wait(a, s->c);
}

static void ran_now(struct sched *s, struct task *t)
{
	struct amoeba *a = s->priv;
	a->run_from[t->id] = s->c->now;
	if (!a->inrun[t->id]) {
		a->inrun[t->id] = true;
		a->run[a->nrun++] = t->id;
	}
}

static void amoeba_arrived(struct sched *s, struct job *j)
{
	for (int i = 0; i < j->nmaps + j->nreduces; i++)
		if (s->c->w->tasks[j->first_task + i].state == TASK_PENDING)
			add_fresh(s, &s->c->w->tasks[j->first_task + i]);
}

/* A task the core's deadlock breaker killed waits for its parents before it
 * starts again (else, the shortest, it went straight back into the same
 * wait: a kill loop a small DAG workload never left). */
static bool startable(struct amoeba *a, const struct task *t)
{
	return t->kills ? ready_set_runnable(&a->rs, t) : ready_set_startable(&a->rs, t);
}

static bool fits(struct amoeba *a, const struct cluster *c, const struct task *t, int server)
{
	if (t->state == TASK_SUSPENDED)
		return cluster_resume_fits(c, t, server);
	return t->state == TASK_PENDING && startable(a, t) && cluster_task_fits(c, t, server);
}

struct offer { struct amoeba *a; struct cluster *c; int server; };

/* Wait's entry i may start on the offer's server (a suspended task never
 * is in the window); one no longer pending goes from the index. */
static bool offer_check(void *ctx, int i)
{
	struct offer *o = ctx;
	struct task *t = &o->c->w->tasks[o->a->wait[i]];
	if (t->state != TASK_PENDING) {
		index_remove(o->a, i);
		return false;
	}
	return startable(o->a, t) && cluster_task_fits(o->c, t, o->server);
}

/* The window's first entry that fits the server, as the scan finds it:
 * the first that fits of those that may start now (ignoring dependencies,
 * all but those killed before and not runnable; else the runnable), if
 * fewer than `window` of those come before it. */
static struct task *window_first(struct sched *s, int server)
{
	const struct amoeba_opts *o = s->opts;
	struct amoeba *a = s->priv;
	struct cluster *c = s->c;
	if (a->gen != requeues(c))
		index_requeued(a, c);
	mark_dirty(a, c);
	struct fit_index *may = c->ignore_deps && !c->deps_barred ? &a->sk : &a->rn;
	struct offer of = {a, c, server};
	int i = fit_index_first(may, a->head, &c->servers[server].avail, offer_check, &of);
	if (i < 0 || fit_index_count(may, a->head, i) >= o->window)
		return NULL;
	return &c->w->tasks[a->wait[i]];
}

static struct task *amoeba_offer(struct sched *s, int server)
{
	const struct amoeba_opts *o = s->opts;
	struct amoeba *a = s->priv;
	struct cluster *c = s->c;
	struct task *t = NULL;
	bool held = false;   /* the room is claimed by a task that cannot take it yet */
	if (a->claim[server] >= 0) {   /* what preempted for this room, first */
		t = &c->w->tasks[a->claim[server]];
		if (!fits(a, c, t, server))
			t = NULL;
		held = !t && waiting(&c->w->tasks[a->claim[server]]);
		if (!held)
			a->claim[server] = -1;
	}
	for (int i = 0; !t && !held && i < a->nsusp; i++) {   /* what was suspended here and can compute, first */
		struct task *x = &c->w->tasks[a->susp[i]];
		if (ready_set_deps_done(&a->rs, x) && cluster_resume_fits(c, x, server))
			t = x;
	}
	if (!t && a->nfresh)
		merge(s);
	while (!t && a->head < a->nwait && !waiting(&c->w->tasks[a->wait[a->head]]))
		a->head++;
	if (!t && a->indexed)
		t = window_first(s, server);
	for (int i = a->head, seen = 0; !t && !a->indexed && i < a->nwait && seen < o->window; i++) {
		struct task *x = &c->w->tasks[a->wait[i]];
		if (!waiting(x) || !startable(a, x))   /* may not start now: not in the window */
			continue;
		seen++;
		if (fits(a, c, x, server))
			t = x;
	}
	if (t && t->state == TASK_PENDING && a->indexed && a->pos[t->id] < a->nwait && a->wait[a->pos[t->id]] == t->id)
		index_remove(a, a->pos[t->id]);   /* it starts */
	if (t)
		ran_now(s, t);
	return t;
}

/* Every heartbeat: the tasks the core resumed by itself, and those its
 * deadlock breaker sent back to pending. */
static void amoeba_tick(struct sched *s)
{
	struct amoeba *a = s->priv;
	struct cluster *c = s->c;
	int n = 0;
	for (int i = 0; i < a->nsusp; i++) {
		struct task *t = &c->w->tasks[a->susp[i]];
		if (t->state == TASK_SUSPENDED)
			a->susp[n++] = t->id;
		else if (t->state == TASK_RUNNING && a->run_from[t->id] < 0)
			ran_now(s, t);
	}
	a->nsusp = n;
	for (int i = 0; i < c->running_jobs; i++) {
		struct job *j = cluster_active(c, i);
		if (j->requeues == a->requeues[j->id])
			continue;
		a->requeues[j->id] = j->requeues;
		for (int k = 0; k < j->nmaps + j->nreduces; k++) {
			struct task *t = &c->w->tasks[j->first_task + k];
			if (t->state == TASK_PENDING) {
				a->ran[t->id] = 0;
				a->run_from[t->id] = -1;
				add_fresh(s, t);
			}
		}
	}
}

static int by_key_desc(const void *x, const void *y, void *arg)
{
	return -by_key(x, y, arg);
}

static bool claimed(const struct amoeba *a, const struct cluster *c, int id)
{
	for (int k = 0; k < c->nservers; k++)
		if (a->claim[k] == id)
			return true;
	return false;
}

/* Every epoch: the waiting tasks, shortest first, each suspends the running
 * task of the longest remaining time, longer than its own, whose server
 * then fits it. */
static int amoeba_preempt(struct sched *s, struct preemption *out, int max)
{
	const struct amoeba_opts *o = s->opts;
	struct amoeba *a = s->priv;
	struct cluster *c = s->c;
	if (c->now < a->next_epoch)
		return 0;
	a->next_epoch = c->now + o->epoch;
	merge(s);
	int nr = 0, nclaim = 0;   /* the running tasks, longest remaining first, keyed now */
	for (int i = 0; i < a->nrun; i++) {
		struct task *t = &c->w->tasks[a->run[i]];
		if (t->state != TASK_RUNNING) {
			a->inrun[t->id] = false;
			continue;
		}
		a->run[nr++] = t->id;
		a->rkey[t->id] = remaining(s, t);
	}
	a->nrun = nr;
	for (int k = 0; k < c->nservers; k++)
		nclaim += a->claim[k] >= 0;
	qsort_r(a->run, a->nrun, sizeof *a->run, by_key_desc, a->rkey);
	int n = 0, lo = 0, seen = 0;
	for (int i = 0; i < a->nwait && n < max && nclaim < c->nservers && seen < o->window; i++) {
		struct task *w = &c->w->tasks[a->wait[i]];
		if (!waiting(w))
			continue;
		seen++;
		while (lo < a->nrun && c->w->tasks[a->run[lo]].state != TASK_RUNNING)
			lo++;
		if (lo == a->nrun || a->key[w->id] >= a->rkey[a->run[lo]])
			break;   /* no running task needs more than this one or the rest */
		if (claimed(a, c, w->id) || (w->state == TASK_PENDING ? !startable(a, w) : !ready_set_deps_done(&a->rs, w)))
			continue;
		bool room = false;
		for (int k = 0; k < c->nservers && !room; k++)
			room = a->claim[k] < 0 && fits(a, c, w, k);
		if (room)
			continue;
		for (int v = lo; v < a->nrun; v++) {
			struct task *b = &c->w->tasks[a->run[v]];
			if (a->rkey[b->id] <= a->key[w->id])
				break;
			if (b->state != TASK_RUNNING || a->claim[b->server] >= 0 ||
			    (w->state == TASK_SUSPENDED && w->server != b->server))
				continue;
			struct res after = c->servers[b->server].avail;
			struct res ask = w->state == TASK_SUSPENDED ? w->held : cluster_task_ask(c, w, b->server);
			res_give(&after, &b->held);
			if (!res_fits(&ask, &after))
				continue;
			out[n++] = (struct preemption){b, PREEMPT_SUSPEND};
			a->claim[b->server] = w->id;
			nclaim++;
			if (computing(s, b))
				a->ran[b->id] += c->now - a->run_from[b->id];
			a->run_from[b->id] = -1;
			a->susp[a->nsusp++] = b->id;
			a->inrun[b->id] = false;
			memmove(&a->run[v], &a->run[v + 1], (a->nrun - v - 1) * sizeof *a->run);
			a->nrun--;
			break;
		}
	}
	/* The victims wait from now with what they have left (after the core
	 * suspends them: they are still running here). */
	for (int i = 0; i < n; i++) {
		struct task *b = out[i].t;
		a->key[b->id] = fmax(cluster_task_duration(c, b, b->server) - a->ran[b->id], 0);
		a->infresh[b->id] = true;
		a->fresh[a->nfresh++] = b->id;
	}
	return n;
}

static int amoeba_init(struct sched *s)
{
	const struct amoeba_opts *o = s->opts;
	struct amoeba *a = s->priv;
	size_t nt = s->c->w->ntasks ? s->c->w->ntasks : 1;
	a->ran = calloc(nt, sizeof *a->ran);
	a->run_from = malloc(nt * sizeof *a->run_from);
	a->key = calloc(nt, sizeof *a->key);
	a->rkey = calloc(nt, sizeof *a->rkey);
	a->inrun = calloc(nt, sizeof *a->inrun);
	a->infresh = calloc(nt, sizeof *a->infresh);
	a->wait = malloc(nt * sizeof *a->wait);
	a->tmp = malloc(nt * sizeof *a->tmp);
	a->fresh = malloc(nt * sizeof *a->fresh);
	a->run = malloc(nt * sizeof *a->run);
	a->susp = malloc(nt * sizeof *a->susp);
	a->claim = malloc((s->c->nservers ? s->c->nservers : 1) * sizeof *a->claim);
	a->requeues = calloc(s->c->w->njobs ? s->c->w->njobs : 1, sizeof *a->requeues);
	a->asks = malloc(nt * sizeof *a->asks);
	a->gone = malloc(nt * sizeof *a->gone);
	a->pos = calloc(nt, sizeof *a->pos);
	size_t nj = s->c->w->njobs ? s->c->w->njobs : 1;
	a->job_first = malloc((nj + 1) * sizeof *a->job_first);
	a->job_fill = malloc(nj * sizeof *a->job_fill);
	a->job_ent = malloc(nt * sizeof *a->job_ent);
	a->wjob = malloc(nt * sizeof *a->wjob);
	a->wjob_tmp = malloc(nt * sizeof *a->wjob_tmp);
	a->asks_tmp = malloc(nt * sizeof *a->asks_tmp);
	a->pend_tmp = malloc(nt * sizeof *a->pend_tmp);
	a->pend = malloc(nt * sizeof *a->pend);
	a->in_rn = malloc(nt * sizeof *a->in_rn);
	a->in_sk = malloc(nt * sizeof *a->in_sk);
	a->dirty = calloc(nj, sizeof *a->dirty);
	a->dirtyq = malloc(nj * sizeof *a->dirtyq);
	a->rq_seen = calloc(nj, sizeof *a->rq_seen);
	a->indexed = o->index;
	for (int k = 0; k < s->c->nservers; k++)
		a->indexed &= !s->c->servers[k].slots;
	if (ready_set_init(&a->rs, s->c) || !a->job_first || !a->job_fill || !a->job_ent || !a->wjob || !a->wjob_tmp || !a->asks_tmp || !a->pend_tmp || !a->pend || !a->in_rn || !a->in_sk || !a->dirty || !a->dirtyq ||
	    !a->rq_seen || !a->asks || !a->gone || !a->pos || !a->ran || !a->run_from || !a->key ||
	    !a->rkey || !a->inrun || !a->infresh || !a->wait || !a->tmp || !a->fresh || !a->run || !a->susp || !a->claim ||
	    !a->requeues)
		return -1;
	for (size_t i = 0; i < nt; i++)
		a->run_from[i] = -1;
	for (int k = 0; k < s->c->nservers; k++)
		a->claim[k] = -1;
	if (o->dep == DEP_NONE)
		sched_ignore_deps(s);
	return 0;
}

static void amoeba_destroy(struct sched *s)
{
	struct amoeba *a = s->priv;
	free(a->ran);
	free(a->run_from);
	free(a->key);
	free(a->rkey);
	free(a->inrun);
	free(a->infresh);
	free(a->wait);
	free(a->tmp);
	free(a->fresh);
	free(a->run);
	free(a->susp);
	free(a->claim);
	free(a->requeues);
	ready_set_free(&a->rs);
	fit_index_free(&a->rn);
	fit_index_free(&a->sk);
	free(a->pos);
	free(a->job_first);
	free(a->job_fill);
	free(a->job_ent);
	free(a->wjob);
	free(a->wjob_tmp);
	free(a->asks_tmp);
	free(a->pend_tmp);
	free(a->pend);
	free(a->in_rn);
	free(a->in_sk);
	free(a->dirty);
	free(a->dirtyq);
	free(a->rq_seen);
	free(a->asks);
	free(a->gone);
}

static void amoeba_finished(struct sched *s, struct task *t)
{
	struct amoeba *a = s->priv;
	ready_set_task_done(&a->rs, t);
	if (a->indexed)
		make_dirty(a, t->job);   /* its children, or its stage's, may run now */
}

static const char *const dep_names[] = {"none", "respect", NULL};
static const struct sched_opt amoeba_opt_table[] = {
	SCHED_NUM_OPT(struct amoeba_opts, epoch, 1, 0, INFINITY, SCHED_OPT_ABOVE_MIN, "seconds between preemption rounds"),
	SCHED_INT_OPT(struct amoeba_opts, window, 4096, 1, 1 << 30,
		      "waiting tasks a free server or a preemption round looks at, shortest first"),
	SCHED_CHOICE_OPT(struct amoeba_opts, dep, DEP_NONE, dep_names,
			 "none: a task may start before its parents end (disorder); respect: only runnable tasks"),
	SCHED_BOOL_OPT(struct amoeba_opts, index, true, "offers read the waiting tasks through a fit index (off: a scan; "
			"the same choices)"),
	{0},
};

const struct sched_ops sched_amoeba = {
	.name = "amoeba",
	.help = "Amoeba: shortest remaining first, longest-remaining victims suspended and resumed in place (DSP's baseline)",
	.priv_size = sizeof(struct amoeba),
	.opts = amoeba_opt_table,
	.opts_size = sizeof(struct amoeba_opts),
	.init = amoeba_init,
	.destroy = amoeba_destroy,
	.job_arrived = amoeba_arrived,
	.offer = amoeba_offer,
	.tick = amoeba_tick,
	.task_finished = amoeba_finished,
	.preempt = amoeba_preempt,
};
