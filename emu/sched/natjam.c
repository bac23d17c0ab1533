/* natjam.c — Natjam (Cho et al., SoCC 2013) as DSP's preemption baseline
 * (seed 004 §V, notes §6.5).
 *
 * The notes': production jobs come before research jobs; a waiting
 * production task that finds no room suspends a running research task
 * (PREEMPT_SUSPEND: checkpointed, it resumes on its server where it left
 * off); production tasks are never victims and research tasks never
 * preempt; the victim, among the research tasks whose server then fits the
 * production task, is the one using the most resources (cores and memory
 * over the server's capacity), then the one of the latest job deadline, then
 * the shortest remaining time (victim=notes); a job is production with
 * probability prod_frac = 0.5, seeded (OPEN-23; classes=deadline, the notes'
 * other choice: the tightest-deadline share); dependencies are ignored
 * (dep=none, disorders as emu/sched.h says).
 *
 * Ours: within a class FIFO by job arrival, a job's tasks stage by stage in
 * order (a stage's tasks ask alike, so a server a stage's first task does
 * not fit skips the stage); a free server resumes the research tasks
 * suspended on it, earliest suspended first, before it starts a research
 * task; victim=srt (Natjam's own shortest-remaining-time rule) and mrs (the
 * most recently started, least work to checkpoint) are the alternatives;
 * one victim per server and round; remaining time as amoeba.c counts it. */
#include "emu/sched.h"
#include "emu/sched/claims.h"
#include "emu/sched/ready_set.h"
#include "emu/sched/round_memo.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DEP_NONE, DEP_RESPECT };
enum { VICTIM_NOTES, VICTIM_SRT, VICTIM_MRS };
enum { CLASS_RANDOM, CLASS_DEADLINE };
struct natjam_opts { double prod_frac, epoch; int classes, victim, window, dep; };

struct natjam {
	bool *prod;               /* per job */
	int *cur;                 /* per job and stage: the first task that may be pending (job-relative) */
	int *nk;                  /* the same, the first that may be pending and never killed */
	struct ready_set rs;      /* whether a task's parents have ended, and a stage's first that have */
	int *requeues;            /* per job: j->requeues when cur was last valid */
	double *ran, *run_from;   /* per task: computed before its current run; when that began (-1: none) */
	bool *inrun;
	int *run, nrun;           /* tasks it saw start or resume (some may have ended since) */
	int *susp, nsusp;         /* research tasks it suspended, earliest first, until they resume */
	int *claim;               /* per server: the production task that preempted for room there, -1 */
	int *nclaims;             /* per task: servers it claims (claim's inverse) */
	struct round_memo memo;   /* a round's answers per job and stage */
	double next_epoch;
};

static double remaining(const struct sched *s, const struct task *t)
{
	const struct natjam *n = s->priv;
	if (t->state == TASK_PENDING)
		return t->work_s;
	double r = cluster_task_duration(s->c, t, t->server) - n->ran[t->id];
	if (t->state == TASK_RUNNING && n->run_from[t->id] >= 0)
		r -= s->c->now - n->run_from[t->id];
	return fmax(r, 0);
}

static void ran_now(struct sched *s, struct task *t)
{
	struct natjam *n = s->priv;
	n->run_from[t->id] = s->c->now;
	if (!n->inrun[t->id]) {
		n->inrun[t->id] = true;
		n->run[n->nrun++] = t->id;
	}
}

/* A task the core's deadlock breaker killed waits for its parents before it
 * starts again (as amoeba.c: no kill loop). */
static bool startable(struct natjam *n, const struct task *t)
{
	return t->kills ? ready_set_runnable(&n->rs, t) : ready_set_startable(&n->rs, t);
}

/* Each stage's cursor past its tasks that are not pending (rewound when
 * tasks went back to pending). */
static void advance(struct natjam *n, const struct cluster *c, const struct job *j)
{
	int *cur = &n->cur[j->id * JOB_MAX_STAGES];
	int *nk = &n->nk[j->id * JOB_MAX_STAGES];
	if (j->requeues != n->requeues[j->id]) {
		n->requeues[j->id] = j->requeues;
		for (int st = 0; st < j->nstages; st++)
			cur[st] = nk[st] = j->stages[st].first;
	}
	for (int st = 0; st < j->nstages; st++) {
		const struct stage *sg = &j->stages[st];
		int end = sg->first + sg->ntasks;
		const struct task *T = c->w->tasks + j->first_task;
		while (cur[st] < end && T[cur[st]].state != TASK_PENDING)
			cur[st]++;
		while (nk[st] < end && (T[nk[st]].state != TASK_PENDING || T[nk[st]].kills))
			nk[st]++;
	}
}

/* Stage st's first task from its cursor that may start (startable), from
 * the cursors and the ready index: the first ready one (its heap, by task
 * order) or, while any pending task may start, the first never killed. */
static struct task *first_startable(struct sched *s, struct job *j, int st)
{
	struct natjam *n = s->priv;
	struct cluster *c = s->c;
	const struct stage *sg = &j->stages[st];
	int k = n->cur[j->id * JOB_MAX_STAGES + st], end = sg->first + sg->ntasks;
	struct task *T = c->w->tasks + j->first_task;
	if (k >= end)
		return NULL;
	struct ready *r = ready_set_job(&n->rs, j);
	if (!r) {   /* out of memory: task by task */
		for (; k < end; k++)
			if (T[k].state == TASK_PENDING && startable(n, &T[k]))
				return &T[k];
		return NULL;
	}
	if (T[k].kind == TASK_MAP)
		return &T[k];   /* every pending map may start */
	int best = end;
	if (cluster_stage_allowed(c, j, st)) {
		if (!r->per_task[st]) {
			best = k;
		} else {
			const int *h = ready_heap(r, j, st);
			while (r->hn[st] && T[sg->first + h[0]].state != TASK_PENDING)
				ready_pop(r, j, st);
			if (r->hn[st])
				best = sg->first + h[0];
		}
	}
	if (c->ignore_deps && !c->deps_barred) {
		int f = n->nk[j->id * JOB_MAX_STAGES + st];
		if (f < best)
			best = f;
	}
	return best < end ? &T[best] : NULL;
}

/* Job j's next pending task that may start, for `server` (any server: -1),
 * stage by stage; NULL if none. */
static struct task *job_next(struct sched *s, struct job *j, int server)
{
	struct natjam *n = s->priv;
	struct cluster *c = s->c;
	advance(n, c, j);
	for (int st = 0; st < j->nstages; st++) {
		struct task *t = first_startable(s, j, st);   /* the window's first */
		if (t && (server < 0 || cluster_task_fits(c, t, server)))
			return t;   /* else the stage's others ask alike */
	}
	return NULL;
}

static struct task *natjam_offer(struct sched *s, int server)
{
	struct natjam *n = s->priv;
	struct cluster *c = s->c;
	struct task *t = NULL;
	if (n->claim[server] >= 0) {
		struct task *a = &c->w->tasks[n->claim[server]];
		if (a->state == TASK_PENDING && startable(n, a) && cluster_task_fits(c, a, server))
			t = a;
		if (t || a->state != TASK_PENDING)
			claims_set(n->claim, n->nclaims, server, -1);
	}
	for (int i = 0; !t && i < c->running_jobs; i++)
		if (n->prod[c->active[i]])
			t = job_next(s, cluster_active(c, i), server);
	for (int i = 0; !t && i < n->nsusp; i++) {
		struct task *x = &c->w->tasks[n->susp[i]];
		if (cluster_resume_fits(c, x, server))
			t = x;
	}
	for (int i = 0; !t && i < c->running_jobs; i++)
		if (!n->prod[c->active[i]])
			t = job_next(s, cluster_active(c, i), server);
	if (t)
		ran_now(s, t);
	return t;
}

static void natjam_tick(struct sched *s)
{
	struct natjam *n = s->priv;
	int k = 0;
	for (int i = 0; i < n->nsusp; i++) {
		struct task *t = &s->c->w->tasks[n->susp[i]];
		if (t->state == TASK_SUSPENDED)
			n->susp[k++] = t->id;
		else if (t->state == TASK_RUNNING && n->run_from[t->id] < 0)
			ran_now(s, t);   /* the core resumed it */
		else if (t->state == TASK_PENDING)
			n->ran[t->id] = 0;
	}
	n->nsusp = k;
}

static void natjam_finished(struct sched *s, struct task *t)
{
	struct natjam *n = s->priv;
	ready_set_task_done(&n->rs, t);
}

static double used(const struct cluster *c, const struct task *t)
{
	const struct res *cap = &c->servers[t->server].cap;
	return (double)t->held.v[RES_CORES] / (double)cap->v[RES_CORES] +
	       (double)t->held.v[RES_MEM] / (double)cap->v[RES_MEM];
}

/* Whether b is a better victim than v. */
static bool better(const struct sched *s, const struct task *b, const struct task *v)
{
	const struct natjam_opts *o = s->opts;
	const struct natjam *n = s->priv;
	const struct cluster *c = s->c;
	if (!v)
		return true;
	if (o->victim == VICTIM_SRT)
		return remaining(s, b) < remaining(s, v);
	if (o->victim == VICTIM_MRS)
		return n->run_from[b->id] > n->run_from[v->id];
	double ub = used(c, b), uv = used(c, v);
	if (ub != uv)
		return ub > uv;
	const struct job *jb = &c->w->jobs[b->job], *jv = &c->w->jobs[v->job];
	double db = jb->deadline_s > 0 ? jb->submit_s + jb->deadline_s : INFINITY;
	double dv = jv->deadline_s > 0 ? jv->submit_s + jv->deadline_s : INFINITY;
	if (db != dv)
		return db > dv;
	return remaining(s, b) < remaining(s, v);
}

static int room_for(const struct natjam *n, const struct cluster *c, const struct task *a)
{
	for (int k = 0; k < c->nservers; k++)
		if (n->claim[k] < 0 && cluster_task_fits(c, a, k))
			return k;
	return -1;
}

/* Some unclaimed server fits a (what room_for says, from the stage's memo). */
static bool has_room(struct natjam *n, const struct cluster *c, const struct job *j, const struct task *a)
{
	int m = round_memo_slot(&n->memo, j->id, a->stage);
	int k = n->memo.room[m];
	if (k == -2 || (k >= 0 && n->claim[k] >= 0))
		k = n->memo.room[m] = room_for(n, c, a);
	return k >= 0;
}

/* Job j's tasks in index order from `k`, past each stage's tasks before its
 * cursor (not pending): the next index at or after k that may be pending. */
static int skip_done(const struct natjam *n, const struct job *j, int k)
{
	const int *cur = &n->cur[j->id * JOB_MAX_STAGES];
	for (int st = 0; st < j->nstages; st++) {
		const struct stage *sg = &j->stages[st];
		if (k >= sg->first && k < cur[st] && cur[st] <= sg->first + sg->ntasks)
			return cur[st];
	}
	return k;
}

/* Every epoch: the production jobs' waiting tasks, FIFO, each suspends the
 * best research victim whose server then fits it. */
static int natjam_preempt(struct sched *s, struct preemption *out, int max)
{
	const struct natjam_opts *o = s->opts;
	struct natjam *n = s->priv;
	struct cluster *c = s->c;
	if (c->now < n->next_epoch)
		return 0;
	n->next_epoch = c->now + o->epoch;
	int nr = 0, nclaim = 0, victims = 0;
	for (int i = 0; i < n->nrun; i++) {
		struct task *t = &c->w->tasks[n->run[i]];
		if (t->state != TASK_RUNNING) {
			n->inrun[t->id] = false;
			continue;
		}
		n->run[nr++] = t->id;
		victims += !n->prod[t->job];
	}
	n->nrun = nr;
	for (int k = 0; k < c->nservers; k++)
		nclaim += n->claim[k] >= 0;
	int np = 0;
	round_memo_next(&n->memo);
	for (int i = 0; i < c->running_jobs && np < max && victims && nclaim < c->nservers; i++) {
		struct job *j = cluster_active(c, i);
		if (!n->prod[j->id])
			continue;
		advance(n, c, j);
		for (int k = skip_done(n, j, 0), seen = 0; k < j->nmaps + j->nreduces && np < max && victims &&
							nclaim < c->nservers && seen < o->window;
		     k = skip_done(n, j, k + 1)) {
			struct task *a = &c->w->tasks[j->first_task + k];
			if (a->state != TASK_PENDING || !startable(n, a))
				continue;
			seen++;
			if (n->nclaims[a->id] || has_room(n, c, j, a))
				continue;
			int m = round_memo_slot(&n->memo, j->id, a->stage);
			if (n->memo.novictim[m])
				continue;
			struct task *v = NULL;
			for (int q = 0; q < n->nrun; q++) {
				struct task *b = &c->w->tasks[n->run[q]];
				if (b->state != TASK_RUNNING || n->prod[b->job] || n->claim[b->server] >= 0)
					continue;
				struct res after = c->servers[b->server].avail, ask = cluster_task_ask(c, a, b->server);
				res_give(&after, &b->held);
				if (res_fits(&ask, &after) && better(s, b, v))
					v = b;
			}
			if (!v) {
				n->memo.novictim[m] = true;
				continue;
			}
			out[np++] = (struct preemption){v, PREEMPT_SUSPEND};
			claims_set(n->claim, n->nclaims, v->server, a->id);
			nclaim++;
			victims--;
			n->ran[v->id] += c->now - n->run_from[v->id];
			n->run_from[v->id] = -1;
			n->inrun[v->id] = false;
			n->susp[n->nsusp++] = v->id;
			for (int q = 0; q < n->nrun; q++)
				if (n->run[q] == v->id) {
					n->run[q] = n->run[--n->nrun];
					break;
				}
		}
	}
	return np;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int natjam_init(struct sched *s)
{
	const struct natjam_opts *o = s->opts;
	struct natjam *n = s->priv;
	size_t nt = s->c->w->ntasks ? s->c->w->ntasks : 1, nj = s->c->w->njobs ? s->c->w->njobs : 1;
	n->prod = calloc(nj, sizeof *n->prod);
	n->cur = calloc(nj * JOB_MAX_STAGES, sizeof *n->cur);
	n->nk = calloc(nj * JOB_MAX_STAGES, sizeof *n->nk);
	n->requeues = malloc(nj * sizeof *n->requeues);
	n->ran = calloc(nt, sizeof *n->ran);
	n->run_from = malloc(nt * sizeof *n->run_from);
	n->inrun = calloc(nt, sizeof *n->inrun);
	n->run = malloc(nt * sizeof *n->run);
	n->susp = malloc(nt * sizeof *n->susp);
	n->claim = malloc((s->c->nservers ? s->c->nservers : 1) * sizeof *n->claim);
	n->nclaims = calloc(nt, sizeof *n->nclaims);
	if (ready_set_init(&n->rs, s->c) || !n->prod || !n->cur || !n->nk || !n->requeues || !n->ran || !n->run_from ||
	    !n->inrun || !n->run || !n->susp || !n->claim || !n->nclaims ||
	    round_memo_init(&n->memo, s->c->w->njobs))
		return -1;
	for (size_t i = 0; i < nt; i++)
		n->run_from[i] = -1;
	for (int k = 0; k < s->c->nservers; k++)
		n->claim[k] = -1;
	/* random: drawn for every job in id order, so the split depends on the
	 * seed only; deadline: the prod_frac of the jobs with a deadline whose
	 * deadlines are the tightest (relative to their submission). */
	double *rel = malloc(nj * sizeof *rel), cut = -INFINITY;
	int nd = 0;
	if (!rel)
		return -1;
	for (int j = 0; j < s->c->w->njobs; j++)
		if (s->c->w->jobs[j].deadline_s > 0)
			rel[nd++] = s->c->w->jobs[j].deadline_s;
	qsort(rel, nd, sizeof *rel, by_double);
	if (nd && ceil(o->prod_frac * nd) >= 1)
		cut = rel[(int)ceil(o->prod_frac * nd) - 1];
	free(rel);
	for (int j = 0; j < s->c->w->njobs; j++) {
		double u = (double)(rng_next(&s->rng) >> 11) / 9007199254740992.0, d = s->c->w->jobs[j].deadline_s;
		n->prod[j] = o->classes == CLASS_RANDOM ? u < o->prod_frac : d > 0 && d <= cut;
		n->requeues[j] = -1;   /* cur is set on first use */
	}
	if (o->dep == DEP_NONE)
		sched_ignore_deps(s);
	return 0;
}

static void natjam_destroy(struct sched *s)
{
	struct natjam *n = s->priv;
	free(n->prod);
	free(n->cur);
	free(n->nk);
	ready_set_free(&n->rs);
	free(n->requeues);
	free(n->ran);
	free(n->run_from);
	free(n->inrun);
	free(n->run);
	free(n->susp);
	free(n->claim);
	free(n->nclaims);
	round_memo_free(&n->memo);
}

static const char *const dep_names[] = {"none", "respect", NULL};
static const char *const victim_names[] = {"notes", "srt", "mrs", NULL};
static const char *const class_names[] = {"random", "deadline", NULL};
static const struct sched_opt natjam_opt_table[] = {
	SCHED_NUM_OPT(struct natjam_opts, prod_frac, 0.5, 0, 1, 0, "share of jobs that are production (seeded draw per job)"),
	SCHED_CHOICE_OPT(struct natjam_opts, classes, CLASS_RANDOM, class_names,
			 "random: each job production with probability prod_frac; deadline: the prod_frac of jobs "
			 "with the tightest deadlines"),
	SCHED_NUM_OPT(struct natjam_opts, epoch, 1, 0, INFINITY, SCHED_OPT_ABOVE_MIN, "seconds between preemption rounds"),
	SCHED_CHOICE_OPT(struct natjam_opts, victim, VICTIM_NOTES, victim_names,
			 "notes: most resources, then latest deadline, then shortest remaining; srt: shortest remaining; "
			 "mrs: most recently started"),
	SCHED_INT_OPT(struct natjam_opts, window, 4096, 1, 1 << 30, "tasks of a job a free server or a round looks at"),
	SCHED_CHOICE_OPT(struct natjam_opts, dep, DEP_NONE, dep_names,
			 "none: a task may start before its parents end (disorder); respect: only runnable tasks"),
	{0},
};

const struct sched_ops sched_natjam = {
	.name = "natjam",
	.help = "Natjam: production jobs first, research tasks suspended for them and resumed in place (DSP's baseline)",
	.priv_size = sizeof(struct natjam),
	.opts = natjam_opt_table,
	.opts_size = sizeof(struct natjam_opts),
	.init = natjam_init,
	.destroy = natjam_destroy,
	.offer = natjam_offer,
	.tick = natjam_tick,
	.task_finished = natjam_finished,
	.preempt = natjam_preempt,
};
