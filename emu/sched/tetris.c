/* tetris.c — Tetris (Grandl et al., SIGCOMM 2014), the clairvoyant
 * multi-resource packer that COBRA (seed 001) and DSP (seed 004, TetrisW/oDep
 * and TetrisW/SimDep) compare against.
 *
 * Offered a server, it scores every candidate task that fits what the server
 * has free by alignment, the dot product of the task's ask and the free
 * vector, both over the server's capacity (less remote_penalty of it when
 * the task would read its input from another server), minus eps x its job's
 * remaining work (SRPT: remaining work = the work x normalised ask summed
 * over the job's unfinished tasks; eps = m x mean alignment / mean remaining
 * work over the candidates, so that both terms weigh alike), and returns the
 * best.  The fairness knob f leaves only the ceil((1 - f) x n) jobs furthest
 * below their share eligible (dominant share of the cluster's resources held);
 * a server none of their tasks fits waits for them.
 *
 * Candidates, per job and stage, so that an offer costs jobs x stages and
 * not the tasks of every job: a map stage's best map for the server (the
 * cluster's index); a stage read over shuffles, its first pending task (its
 * tasks ask alike and are runnable alike); a stage whose tasks wait on their
 * own parents (one-to-one, listed), the top of a heap of its ready tasks,
 * kept up to date as parents finish (ready.c), and a ready task whose one-to-one
 * parent ran on the server.
 *
 * dep=sim (TetrisW/SimDep): only tasks whose parents have ended; a stage's
 * ready tasks in order of most dependents; early reduces within YARN's
 * ramp-up limit, as every policy offers them.  dep=none (TetrisW/oDep): also
 * a stage's first pending task whatever its parents (shuffle barriers
 * included), no ramp-up limit (it too is about dependencies); the core
 * starts such a task, which holds its resources and waits for its inputs (a
 * disorder, sched_ignore_deps), except while its deadlock breaker bars them:
 * then the best candidate that may start goes instead.
 *
 * grant_latency (COBRA's Tetris, whose variable-sized containers are
 * disposable and each costs the container response time): a choice is a
 * grant that holds the task's ask on the server and starts it that long
 * after (at the first offer of the server from then); 0 starts it at once.
 *
 * Clairvoyant: it reads every task's work at submission.  Under
 * --visibility semi-clairvoyant a stage whose sizes are hidden
 * (cluster_sizes_known) counts nothing in its job's remaining work; asks are
 * requests, which it always sees. */
#include "emu/sched/tetris.h"
#include "emu/sched/ready.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DEP_NONE, DEP_SIM };
struct tetris_opts { double f, m, remote_penalty, grant_latency; int dep; bool report; };

/* Per active job, built on first sight and again after a requeue. */
struct tjob {
	struct ready r;            /* its stages' ready tasks (dep=sim: most dependents first) */
	int cur[JOB_MAX_STAGES];   /* first task of the stage that may still be pending */
	int mcur;                  /* first map that may still be pending (grants) */
	int o2o_kids[JOB_MAX_STAGES];   /* stages reading it one-to-one */
	double dsum[JOB_MAX_STAGES];    /* a task's ask, summed over resources, normalised */
	double rem[JOB_MAX_STAGES];     /* work x dsum of its unfinished tasks */
};

struct cand { struct task *t; int job; double align, score; bool remote, blocked; };   /* blocked: parents not ended */
struct jent { struct job *j; double share, rem; int first, n; bool eligible; };

/* A chosen task waiting for its container (grant_latency). */
struct grant { int task; double ready; };

struct tetris {
	struct tjob *jobs;
	struct jent *ent, *rank;   /* an offer's jobs, and the same by share (f) */
	struct cand *cand;
	int ncand_max;
	int ref;                   /* the largest server: what asks are normalised by */
	double total[RES_KINDS];   /* the cluster's capacity (0: not limited) */
	struct tetris_stats st;
	/* grant_latency: per server its grants and what they hold; per task, granted */
	struct grant **g;
	int *ng, *gcap;
	struct res *held;
	unsigned char *granted;
};

static bool limited(int64_t cap) { return cap > 0 && cap != RES_UNLIMITED; }

/* Not a candidate: started, done, or granted a container already. */
static bool taken(const struct tetris *T, const struct task *t)
{
	return t->state != TASK_PENDING || (T->granted && T->granted[t->id]);
}

/* ---- per-job state --------------------------------------------------------- */

static void tjob_free(struct tjob *x)
{
	ready_free(&x->r);
	memset(x, 0, sizeof *x);
}

static int dependents(const struct tjob *x, const struct task *t)
{
	return t->nchildren + x->o2o_kids[t->stage];
}

/* dep=sim's heap order: most dependents first, then task order. */
static bool by_dependents(const void *ctx, const struct job *j, int st, int a, int b)
{
	const struct sched *s = ctx;
	const struct tjob *x = &((const struct tetris *)s->priv)->jobs[j->id];
	int da = dependents(x, stage_task(s->c->w->tasks, j, st, a));
	int db = dependents(x, stage_task(s->c->w->tasks, j, st, b));
	return da != db ? da > db : a < b;
}

static const struct stage_edge *o2o_parent(const struct job *j, int st)
{
	for (int p = 0; p < j->stages[st].nparents; p++)
		if (j->stages[st].parent[p].kind == EDGE_ONE_TO_ONE)
			return &j->stages[st].parent[p];
	return NULL;
}

static double ask_sum(const struct sched *s, const struct task *t)
{
	const struct tetris *T = s->priv;
	const struct server *r = &s->c->servers[T->ref];
	struct res a = cluster_task_ask(s->c, t, T->ref);
	double sum = 0;
	for (int k = 0; k < RES_KINDS; k++)
		if (limited(r->cap.v[k]))
			sum += (double)a.v[k] / (double)r->cap.v[k];
	return sum;
}

/* From the tasks' states: what is ready, what remains. */
static int tjob_build(struct sched *s, struct job *j)
{
	struct tetris *T = s->priv;
	struct tjob *x = &T->jobs[j->id];
	struct task *tasks = s->c->w->tasks;
	tjob_free(x);
	for (int st = 0; st < j->nstages; st++) {
		const struct stage *sg = &j->stages[st];
		const struct stage_edge *o = o2o_parent(j, st);
		if (o)
			x->o2o_kids[o->stage]++;
		x->dsum[st] = sg->ntasks ? ask_sum(s, stage_task(tasks, j, st, 0)) : 0;
		/* The sizes are read here once; the score reads a stage's sum
		 * only once the run lets it know them (remaining()). */
		for (int i = 0; i < sg->ntasks; i++) {
			const struct task *t = stage_task(tasks, j, st, i);
			if (t->state != TASK_DONE)
				x->rem[st] += t->work_s * x->dsum[st];
		}
	}
	/* The heaps' order reads o2o_kids, counted above. */
	return ready_build(&x->r, s->c->w, j,
			   ((const struct tetris_opts *)s->opts)->dep == DEP_SIM ? by_dependents : NULL, s);
}

static struct tjob *tjob_of(struct sched *s, struct job *j)
{
	struct tjob *x = &((struct tetris *)s->priv)->jobs[j->id];
	if (!ready_current(&x->r, j) && tjob_build(s, j)) {
		tjob_free(x);
		return NULL;
	}
	return x;
}

/* Its stage's sizes are visible (cluster_sizes_known's rule for a stage). */
static bool stage_known(const struct cluster *c, const struct job *j, int st)
{
	if (!c->semi_clairvoyant)
		return true;
	for (int p = 0; p < j->stages[st].nparents; p++) {
		const struct stage *ps = &j->stages[j->stages[st].parent[p].stage];
		if (ps->done < ps->ntasks)
			return false;
	}
	return true;
}

static double remaining(const struct cluster *c, const struct tjob *x, const struct job *j)
{
	double r = 0;
	for (int st = 0; st < j->nstages; st++)
		r += stage_known(c, j, st) ? x->rem[st] : 0;
	return r > 0 ? r : 0;
}

/* Dominant share of the cluster's resources its running tasks hold. */
static double share(const struct sched *s, const struct job *j)
{
	const struct tetris *T = s->priv;
	double held[RES_KINDS] = {0}, dom = 0;
	for (int st = 0; st < j->nstages; st++) {
		if (!j->stages[st].running || !j->stages[st].ntasks)
			continue;
		struct res a = cluster_task_ask(s->c, stage_task(s->c->w->tasks, j, st, 0), T->ref);
		for (int k = 0; k < RES_KINDS; k++)
			held[k] += (double)j->stages[st].running * (double)a.v[k];
	}
	for (int k = 0; k < RES_KINDS; k++)
		if (T->total[k] > 0)
			dom = fmax(dom, held[k] / T->total[k]);
	return dom;
}

/* ---- candidates ------------------------------------------------------------ */

static int add(struct tetris *T, int from, int n, struct task *t, int job, bool remote, bool blocked)
{
	for (int i = from; i < n; i++)   /* one task of the job may come by two roads */
		if (T->cand[i].t == t)
			return n;
	T->cand[n] = (struct cand){.t = t, .job = job, .remote = remote, .blocked = blocked};
	return n + 1;
}

/* Job j's candidates for `server` into T->cand from n; the new count. */
static int candidates(struct sched *s, struct job *j, int e, struct tjob *x, int server, int n, int *early)
{
	int from = n;
	struct tetris *T = s->priv;
	const struct tetris_opts *o = s->opts;
	struct task *tasks = s->c->w->tasks;
	enum locality loc;
	struct task *m = cluster_best_map(s->c, j, server, &loc);
	if (m && taken(T, m)) {   /* granted: the first map that is not */
		while (x->mcur < j->nmaps && job_map(tasks, j, x->mcur)->state != TASK_PENDING)
			x->mcur++;
		m = NULL;
		for (int i = x->mcur; i < j->nmaps && !m; i++)
			m = taken(T, job_map(tasks, j, i)) ? NULL : job_map(tasks, j, i);
		loc = m ? cluster_locality(s->c, m, server) : LOCAL_NONE;
	}
	if (m)
		n = add(T, from, n, m, e, m->replicas[0] >= 0 && loc != LOCAL_NODE, false);
	/* Early reduces within YARN's ramp-up limit (dep=sim). */
	bool early_ok = o->dep == DEP_NONE || !cluster_pending_maps(s->c, j);
	if (!early_ok && j->reduces_running < 0.5 * (sched_running(j) + 1)) {
		if (*early < 0)   /* the same for every job of the offer: counted once */
			*early = sched_early_reduces(s->c);
		early_ok = sched_ramp_up_ok_early(s->c, j, *early);
	}
	for (int st = 1; st < j->nstages && early_ok; st++) {
		const struct stage *sg = &j->stages[st];
		while (x->cur[st] < sg->ntasks && stage_task(tasks, j, st, x->cur[st])->state != TASK_PENDING)
			x->cur[st]++;
		struct task *first = NULL;
		for (int i = x->cur[st]; i < sg->ntasks && !first; i++)
			first = taken(T, stage_task(tasks, j, st, i)) ? NULL : stage_task(tasks, j, st, i);
		if (!first)
			continue;
		const struct stage_edge *oe = o2o_parent(j, st);
		if (!x->r.per_task[st]) {
			bool ok = cluster_task_runnable(s->c, first);
			if (ok || o->dep == DEP_NONE)
				n = add(T, from, n, first, e, false, !ok);
			continue;
		}
		if (o->dep == DEP_NONE && !cluster_task_runnable(s->c, first))
			n = add(T, from, n, first, e, oe && stage_task(tasks, j, oe->stage, first->sindex)->server != server, true);
		const int *heap = ready_heap(&x->r, j, st);
		while (x->r.hn[st] && taken(T, stage_task(tasks, j, st, heap[0])))
			ready_pop(&x->r, j, st);   /* a grant dropped unstarted rebuilds the job */
		if (!x->r.hn[st])
			continue;
		struct task *top = stage_task(tasks, j, st, heap[0]);
		if (!cluster_task_runnable(s->c, top))
			continue;   /* the stage's own barrier (a shuffle parent's slowstart) */
		n = add(T, from, n, top, e, oe && stage_task(tasks, j, oe->stage, top->sindex)->server != server, false);
		/* A ready task whose one-to-one parent wrote on this server. */
		for (int i = 1; oe && i < x->r.hn[st] && i <= 8; i++) {
			struct task *t = stage_task(tasks, j, st, heap[i]);
			if (!taken(T, t) && stage_task(tasks, j, oe->stage, t->sindex)->server == server) {
				n = add(T, from, n, t, e, false, false);
				break;
			}
		}
	}
	return n;
}

/* What is free on the server less what its grants hold. */
static struct res free_now(const struct sched *s, int server)
{
	const struct tetris *T = s->priv;
	struct res f = s->c->servers[server].avail;
	if (T->held)
		for (int k = 0; k < RES_KINDS; k++)
			if (f.v[k] != RES_UNLIMITED)
				f.v[k] -= T->held[server].v[k];
	return f;
}

static double alignment(const struct sched *s, const struct task *t, int server, const struct res *f)
{
	const struct server *v = &s->c->servers[server];
	struct res a = cluster_task_ask(s->c, t, server);
	double sum = 0;
	for (int k = 0; k < RES_KINDS; k++)
		if (limited(v->cap.v[k]) && f->v[k] != RES_UNLIMITED)
			sum += (double)a.v[k] / (double)v->cap.v[k] * (double)f->v[k] / (double)v->cap.v[k];
	return sum;
}

static int by_share(const void *pa, const void *pb)
{
	const struct jent *a = pa, *b = pb;
	if (a->share != b->share)
		return a->share < b->share ? -1 : 1;
	if (a->j->submit_s != b->j->submit_s)
		return a->j->submit_s < b->j->submit_s ? -1 : 1;
	return (a->j->id > b->j->id) - (a->j->id < b->j->id);
}

/* a beats b: higher score, then (sim) more dependents, earlier job, lower task id. */
static bool better(const struct sched *s, const struct cand *a, const struct cand *b)
{
	const struct tetris *T = s->priv;
	if (a->score != b->score)
		return a->score > b->score;
	if (((const struct tetris_opts *)s->opts)->dep == DEP_SIM) {
		int da = dependents(&T->jobs[a->t->job], a->t), db = dependents(&T->jobs[b->t->job], b->t);
		if (da != db)
			return da > db;
	}
	const struct job *ja = T->ent[a->job].j, *jb = T->ent[b->job].j;
	if (ja->submit_s != jb->submit_s)
		return ja->submit_s < jb->submit_s;
	return a->t->id < b->t->id;
}

/* Scores the eligible candidates that fit; the best, and the best runnable. */
static void choose(struct sched *s, int server, int ncand, struct cand **best, struct cand **best_ok)
{
	struct tetris *T = s->priv;
	const struct tetris_opts *o = s->opts;
	double asum = 0, psum = 0;
	int k = 0;
	struct res f = free_now(s, server);
	bool alive = s->c->servers[server].alive;
	for (int i = 0; i < ncand; i++) {
		struct cand *c = &T->cand[i];
		c->score = NAN;   /* not a contender */
		struct res ask = cluster_task_ask(s->c, c->t, server);
		if (!T->ent[c->job].eligible || !alive || !res_fits(&ask, &f))
			continue;
		c->align = alignment(s, c->t, server, &f) * (c->remote ? 1 - o->remote_penalty : 1);
		c->score = 0;
		asum += c->align;
		psum += T->ent[c->job].rem;
		k++;
	}
	*best = *best_ok = NULL;
	double eps = k && psum > 0 ? o->m * (asum / k) / (psum / k) : 0;
	for (int i = 0; i < ncand; i++) {
		struct cand *c = &T->cand[i];
		if (isnan(c->score))
			continue;
		c->score = c->align - eps * T->ent[c->job].rem;
		if (!*best || better(s, c, *best))
			*best = c;
		if (!c->blocked && (!*best_ok || better(s, c, *best_ok)))
			*best_ok = c;
	}
}

/* The best task for `server` now, or NULL. */
static struct task *pick(struct sched *s, int server)
{
	struct tetris *T = s->priv;
	const struct tetris_opts *o = s->opts;
	int nj = 0, ncand = 0, early = -1;
	for (int i = 0; i < s->c->running_jobs; i++) {
		struct job *j = cluster_active(s->c, i);
		struct tjob *x = tjob_of(s, j);
		if (!x)
			continue;
		if (ncand + 2 * JOB_MAX_STAGES + 1 > T->ncand_max) {
			int want = 2 * T->ncand_max + 4 * JOB_MAX_STAGES;
			struct cand *c = realloc(T->cand, want * sizeof *c);
			if (!c)
				break;
			T->cand = c;
			T->ncand_max = want;
		}
		int n = candidates(s, j, nj, x, server, ncand, &early);
		if (n == ncand)
			continue;
		T->ent[nj] = (struct jent){.j = j, .first = ncand, .n = n - ncand, .eligible = true};
		ncand = n;
		nj++;
	}
	if (!nj)
		return NULL;
	for (int e = 0; e < nj; e++) {
		T->ent[e].rem = remaining(s->c, &T->jobs[T->ent[e].j->id], T->ent[e].j);
		T->ent[e].share = o->f > 0 ? share(s, T->ent[e].j) : 0;
	}
	int keep = (int)ceil((1 - o->f) * nj - 1e-9);
	struct cand *best, *best_ok;
	if (keep < nj) {
		/* Rank the jobs by share without moving them (candidates refer to them by index). */
		struct jent *r = T->rank;
		memcpy(r, T->ent, nj * sizeof *r);
		for (int e = 0; e < nj; e++)
			r[e].first = e;   /* its index in T->ent */
		qsort(r, nj, sizeof *r, by_share);
		for (int e = 0; e < nj; e++)
			T->ent[r[e].first].eligible = e < (keep > 0 ? keep : 1);
	}
	/* Nothing eligible fits: the server waits for them (as Fair's chosen job
	 * that does not fit), which is what lets a large ask ever fit. */
	choose(s, server, ncand, &best, &best_ok);
	if (best && best->blocked) {
		if (cluster_task_startable(s->c, best->t)) {
			T->st.disorders++;
		} else {   /* the deadlock breaker bars it */
			T->st.barred++;
			best = best_ok;
		}
	}
	return best ? best->t : NULL;
}

/* A grant ends: what it held is free again; unstarted, its task is a
 * candidate again (its job's heaps are rebuilt). */
static void grant_end(struct sched *s, int server, int i, bool started)
{
	struct tetris *T = s->priv;
	struct task *t = &s->c->w->tasks[T->g[server][i].task];
	struct res ask = cluster_task_ask(s->c, t, server);
	for (int k = 0; k < RES_KINDS; k++)
		T->held[server].v[k] -= ask.v[k];
	T->granted[t->id] = 0;
	if (!started)
		T->jobs[t->job].r.built = false;
	T->g[server][i] = T->g[server][--T->ng[server]];
}

static int grant(struct sched *s, int server, struct task *t)
{
	struct tetris *T = s->priv;
	if (T->ng[server] == T->gcap[server]) {
		int want = T->gcap[server] ? 2 * T->gcap[server] : 8;
		struct grant *g = realloc(T->g[server], want * sizeof *g);
		if (!g)
			return -1;
		T->g[server] = g;
		T->gcap[server] = want;
	}
	struct res ask = cluster_task_ask(s->c, t, server);
	for (int k = 0; k < RES_KINDS; k++)
		T->held[server].v[k] += ask.v[k];
	T->granted[t->id] = 1;
	T->g[server][T->ng[server]++] = (struct grant){t->id, s->c->now + ((const struct tetris_opts *)s->opts)->grant_latency};
	return 0;
}

/* With a grant latency: a grant of this server that is due starts; else
 * the server's free part is granted, task by task, and nothing starts. */
static struct task *offer_granted(struct sched *s, int server)
{
	struct tetris *T = s->priv;
	for (int i = 0; i < T->ng[server]; i++) {
		struct task *t = &s->c->w->tasks[T->g[server][i].task];
		bool ok = t->state == TASK_PENDING && cluster_task_startable(s->c, t);
		if (ok && T->g[server][i].ready > s->c->now + 1e-6)
			continue;
		if (ok && !cluster_task_fits(s->c, t, server))
			continue;   /* cannot happen while it holds its ask; wait */
		grant_end(s, server, i, ok);
		if (ok)
			return t;
		i--;
	}
	for (int n = 0; n < 4096; n++) {
		struct task *t = pick(s, server);
		if (!t || grant(s, server, t))
			break;
	}
	return NULL;
}

/* Grants on a lost server end unstarted (it is never offered again). */
static void tetris_tick(struct sched *s)
{
	struct tetris *T = s->priv;
	for (int i = 0; T->g && i < s->c->nservers; i++)
		while (T->ng[i] && !s->c->servers[i].alive)
			grant_end(s, i, T->ng[i] - 1, false);
}

static struct task *tetris_offer(struct sched *s, int server)
{
	struct tetris *T = s->priv;
	struct task *t = T->g ? offer_granted(s, server) : pick(s, server);
	T->st.offers += t != NULL;
	return t;
}

static void tetris_task_finished(struct sched *s, struct task *t)
{
	struct tetris *T = s->priv;
	struct job *j = &s->c->w->jobs[t->job];
	struct tjob *x = &T->jobs[j->id];
	if (cluster_job_finished(j)) {
		tjob_free(x);
		return;
	}
	if (!ready_current(&x->r, j))
		return;   /* built from the states when next offered */
	x->rem[t->stage] -= t->work_s * x->dsum[t->stage];
	ready_task_done(&x->r, s->c->w, j, t);
}

static int tetris_init(struct sched *s)
{
	struct tetris *T = s->priv;
	if (((const struct tetris_opts *)s->opts)->dep == DEP_NONE)
		sched_ignore_deps(s);
	int nj = s->c->w->njobs ? s->c->w->njobs : 1;
	T->jobs = calloc(nj, sizeof *T->jobs);
	T->ent = calloc(nj, sizeof *T->ent);
	T->rank = calloc(nj, sizeof *T->rank);
	if (!T->jobs || !T->ent || !T->rank)
		return -1;
	int ns = s->c->nservers ? s->c->nservers : 1;
	if (((const struct tetris_opts *)s->opts)->grant_latency > 0 &&
	    (!(T->g = calloc(ns, sizeof *T->g)) || !(T->ng = calloc(ns, sizeof *T->ng)) ||
	     !(T->gcap = calloc(ns, sizeof *T->gcap)) || !(T->held = calloc(ns, sizeof *T->held)) ||
	     !(T->granted = calloc(s->c->w->ntasks ? s->c->w->ntasks : 1, 1))))
		return -1;
	for (int i = 0; i < s->c->nservers; i++) {
		const struct server *v = &s->c->servers[i];
		const struct server *r = &s->c->servers[T->ref];
		if (v->cap.v[RES_CORES] > r->cap.v[RES_CORES] ||
		    (v->cap.v[RES_CORES] == r->cap.v[RES_CORES] && v->cap.v[RES_MEM] > r->cap.v[RES_MEM]))
			T->ref = i;
		for (int k = 0; k < RES_KINDS; k++)
			if (limited(v->cap.v[k]))
				T->total[k] += (double)v->cap.v[k];
	}
	return 0;
}

static void tetris_destroy(struct sched *s)
{
	struct tetris *T = s->priv;
	if (((const struct tetris_opts *)s->opts)->report)
		fprintf(stderr, "tetris: %ld tasks offered, %ld before their parents ended; %ld such choices barred "
			"by the deadlock breaker\n", T->st.offers, T->st.disorders, T->st.barred);
	for (int i = 0; T->jobs && i < s->c->w->njobs; i++)
		tjob_free(&T->jobs[i]);
	free(T->jobs);
	free(T->ent);
	free(T->rank);
	free(T->cand);
	for (int i = 0; T->g && i < s->c->nservers; i++)
		free(T->g[i]);
	free(T->g);
	free(T->ng);
	free(T->gcap);
	free(T->held);
	free(T->granted);
}

struct tetris_stats tetris_stats(const struct sched *s)
{
	return ((const struct tetris *)s->priv)->st;
}

static const char *const dep_names[] = {"none", "sim", NULL};
static const struct sched_opt tetris_opt_table[] = {
	SCHED_NUM_OPT(struct tetris_opts, f, 0.25, 0, 1, 0,
		      "fairness knob: only the ceil((1-f) x jobs) jobs furthest below their share are eligible; "
		      "0 is pure efficiency"),
	SCHED_NUM_OPT(struct tetris_opts, m, 1, 0, INFINITY, 0,
		      "weight of the SRPT term: eps = m x mean alignment / mean remaining work; 0: packing alone"),
	SCHED_NUM_OPT(struct tetris_opts, remote_penalty, 0.1, 0, 1, 0,
		      "fraction of its alignment a task loses when it would read its input from another server"),
	SCHED_NUM_OPT(struct tetris_opts, grant_latency, 0, 0, 3600, 0,
		      "seconds from choosing a task to starting it, its ask held on the server meanwhile (COBRA's "
		      "container response time, 1; 0: at once)"),
	SCHED_CHOICE_OPT(struct tetris_opts, dep, DEP_SIM, dep_names,
			 "task dependencies: sim (TetrisW/SimDep: tasks whose parents ended, most dependents first) or "
			 "none (TetrisW/oDep: chooses ignoring them; a task started before its parents end waits for them "
			 "holding its resources)"),
	SCHED_BOOL_OPT(struct tetris_opts, report, false,
		       "print at the end (stderr) the tasks offered and how many started before their parents ended"),
	{0},
};

const struct sched_ops sched_tetris = {
	.name = "tetris",
	.help = "clairvoyant multi-resource packing, alignment + SRPT (Tetris; COBRA's and DSP's baseline)",
	.priv_size = sizeof(struct tetris),
	.opts = tetris_opt_table,
	.opts_size = sizeof(struct tetris_opts),
	.init = tetris_init,
	.destroy = tetris_destroy,
	.offer = tetris_offer,
	.task_finished = tetris_task_finished,
	.tick = tetris_tick,
};

static const char *const odep_preset[] = {"dep=none", NULL};
static const char *const simdep_preset[] = {"dep=sim", NULL};
const struct sched_ops sched_tetris_nodep = {
	.name = "tetris-nodep",
	.help = "DSP's TetrisW/oDep: Tetris choosing without regard to task dependencies",
	.alias_of = &sched_tetris,
	.preset = odep_preset,
};
const struct sched_ops sched_tetris_simdep = {
	.name = "tetris-simdep",
	.help = "DSP's TetrisW/SimDep: Tetris over the tasks whose parents have ended",
	.alias_of = &sched_tetris,
	.preset = simdep_preset,
};
