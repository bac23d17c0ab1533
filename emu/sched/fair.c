/* fair.c — YARN Fair style: every active job gets an equal share of the
 * containers; a free container goes to the job furthest below its share,
 * i.e. with the fewest running tasks (ties: earlier submission).  On a
 * hybrid topology this is the dissertation's F-Hybrid, on an EPS-only one
 * (geni-10rack-eps) F-EPS.
 *
 * With preempt=kill or suspend, also YARN's fair-share preemption: a job
 * held below half its share (fairSharePreemptionThreshold 0.5) for
 * preempt_timeout seconds takes containers back from the jobs most over
 * theirs, their latest-started tasks first, as the ResourceManager picks
 * its victims. */
#include "emu/sched/fair.h"
#include <math.h>
#include <stdlib.h>

struct fair_opts { int preempt; double preempt_timeout; };
struct fair {
	double *starved_since;   /* per job; < 0: not starved */
	int *idle_at;            /* per job: j->changes when it had no pending task (-1: not known) */
};

/* fair_pick_in; idle_at, when given, remembers the jobs found with nothing
 * to run until their tasks change (a job whose last maps run and whose
 * reduces may not start yet has the fewest running, and is looked at in
 * every offer). */
static struct job *pick(struct sched *s, bool (*in)(void *ctx, const struct job *j), void *ctx, int *idle_at)
{
	struct job *best = NULL;
	for (int i = 0; i < s->c->running_jobs; i++) {
		struct job *j = cluster_active(s->c, i);
		if (best && !(sched_running(j) < sched_running(best) ||
			      (sched_running(j) == sched_running(best) && j->submit_s < best->submit_s)))
			continue;   /* first the cheap test: whether it has work only if it would win */
		if (idle_at && idle_at[j->id] == j->changes)
			continue;
		if (in ? !in(ctx, j) : !cluster_pending_maps(s->c, j) && !cluster_pending_reduces(s->c, j)) {
			if (idle_at)
				idle_at[j->id] = j->changes;
			continue;
		}
		best = j;
	}
	return best;
}

struct job *fair_pick_in(struct sched *s, bool (*in)(void *ctx, const struct job *j), void *ctx)
{
	return pick(s, in, ctx, NULL);
}

static struct task *fair_offer(struct sched *s, int server)
{
	struct job *j = pick(s, NULL, NULL, ((struct fair *)s->priv)->idle_at);
	return j ? sched_job_task(s, j, server) : NULL;
}

/* ---- preemption ---------------------------------------------------------- */

static int fair_init(struct sched *s)
{
	struct fair *f = s->priv;
	size_t nj = s->c->w->njobs ? s->c->w->njobs : 1;
	f->starved_since = malloc(nj * sizeof *f->starved_since);
	f->idle_at = malloc(nj * sizeof *f->idle_at);
	if (!f->starved_since || !f->idle_at)
		return -1;
	for (int i = 0; i < s->c->w->njobs; i++) {
		f->starved_since[i] = -1;
		f->idle_at[i] = -1;
	}
	return 0;
}

static void fair_destroy(struct sched *s)
{
	struct fair *f = s->priv;
	free(f->starved_since);
	free(f->idle_at);
}

static bool chosen(const struct task *t, const struct preemption *out, int n)
{
	for (int q = 0; q < n; q++)
		if (out[q].t == t)
			return true;
	return false;
}

/* The latest-started running task of job j not chosen yet. */
static struct task *latest(struct sched *s, const struct job *j, const struct preemption *out, int n)
{
	struct task *best = NULL;
	for (int i = 0; i < j->nmaps + j->nreduces; i++) {
		struct task *t = &s->c->w->tasks[j->first_task + i];
		if (t->state == TASK_RUNNING && (!best || t->t_start > best->t_start) && !chosen(t, out, n))
			best = t;
	}
	return best;
}

static int fair_preempt(struct sched *s, struct preemption *out, int max)
{
	const struct fair_opts *o = s->opts;
	struct fair *f = s->priv;
	if (!o->preempt || !s->c->running_jobs)
		return 0;
	double share = (double)s->c->containers / s->c->running_jobs;
	int n = 0;
	for (int i = 0; i < s->c->running_jobs && n < max; i++) {
		struct job *j = cluster_active(s->c, i);
		int run = sched_running(j), want = run + cluster_pending_maps(s->c, j) + cluster_pending_reduces(s->c, j);
		double fair = want < share ? want : share;
		if (run >= 0.5 * fair) {
			f->starved_since[j->id] = -1;
			continue;
		}
		if (f->starved_since[j->id] < 0)
			f->starved_since[j->id] = s->c->now;
		if (s->c->now - f->starved_since[j->id] < o->preempt_timeout)
			continue;
		/* Up to its share back, from the jobs most over theirs. */
		for (int need = (int)(fair - run); need > 0 && n < max; need--) {
			struct job *over = NULL;
			for (int k = 0; k < s->c->running_jobs; k++) {
				struct job *x = cluster_active(s->c, k);
				int xr = sched_running(x);
				for (int q = 0; q < n; q++)
					xr -= out[q].t->job == x->id;
				if (xr > share && (!over || xr > sched_running(over)))
					over = x;
			}
			struct task *v = over ? latest(s, over, out, n) : NULL;
			if (!v)
				break;
			out[n++] = (struct preemption){v, o->preempt == 1 ? PREEMPT_KILL : PREEMPT_SUSPEND};
		}
		f->starved_since[j->id] = s->c->now;   /* the next round waits a timeout again */
	}
	return n;
}

static const char *const preempt_names[] = {"off", "kill", "suspend", NULL};
static const struct sched_opt fair_opt_table[] = {
	SCHED_CHOICE_OPT(struct fair_opts, preempt, 0, preempt_names,
			 "fair-share preemption: off, kill (restart elsewhere) or suspend (resume in place)"),
	SCHED_NUM_OPT(struct fair_opts, preempt_timeout, 15, 0, INFINITY, 0,
		      "seconds a job stays below half its share before it preempts (YARN's fairSharePreemptionTimeout)"),
	{0},
};

const struct sched_ops sched_fair = {
	.name = "fair",
	.help = "equal share of containers per job (YARN Fair; F-Hybrid / F-EPS)",
	.priv_size = sizeof(struct fair),
	.opts = fair_opt_table,
	.opts_size = sizeof(struct fair_opts),
	.init = fair_init,
	.destroy = fair_destroy,
	.offer = fair_offer,
	.preempt = fair_preempt,
};
