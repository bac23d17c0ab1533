/* aalo.c — Aalo (Chowdhury and Stoica, SIGCOMM 2015) as DSP's scheduling
 * baseline (seed 004 §V, notes §6.3): a job is a coflow and its tasks its
 * flows, scheduled by D-CLAS at task level.
 *
 * The notes': K = 10 queues; a job's queue is where its attained service
 * (bytes) falls among exponentially spaced thresholds, q1 = 10 MB, q1 x E,
 * q1 x E^2 ... (E = 10), so it only moves down as it is served (never
 * promoted); FIFO by arrival within a queue; within a job runnable tasks
 * only (Aalo respects dependencies: no disorder), in order; no preemption
 * and no deadlines; across queues weighted sharing (the Aalo paper's, as
 * PIAS; interq=strict is coflowsim's strict priority).
 *
 * Ours: attained service is the bytes a job's ended tasks have served, their
 * output (OPEN-21: emu's children fetch a parent's output once it ends,
 * so that is when its bytes are sent); queue q weighs K - q, and a free
 * server goes to the non-empty queue of the fewest running tasks per weight
 * (work-conserving: a queue with nothing for it gives way to the next);
 * placement is the core's offers, servers with room (OPEN-22); a stage's
 * tasks ask alike, so a stage whose first runnable task does not fit the
 * server is skipped, and a job in which nothing is runnable is skipped
 * until one of its tasks ends.
 *
 * A stage whose tasks wait on their own parents (one-to-one, listed) keeps
 * its ready pending tasks in a heap by index, updated as parents end
 * (ready.c), so that an offer does not rescan the tasks still waiting;
 * a stage read only whole (maps, shuffles, broadcasts) has its tasks
 * runnable alike, and its first pending one stands for all. */
#include "emu/sched/aalo.h"
#include "emu/sched/ready.h"
#include "emu/sched.h"
#include <math.h>
#include <stdlib.h>

enum { INTERQ_WEIGHTED, INTERQ_STRICT };
struct aalo_opts { int queues; double q1, mult; int interq, window; };

struct aalo {
	struct ready *jobs;   /* per job, built on first sight and again after a requeue */
	double *served;    /* per job: bytes its ended tasks output */
	int *cur;          /* per job and stage: the first task that may be pending (job-relative) */
	int *requeues;     /* per job: j->requeues when cur was last valid */
	int *idle_at;      /* per job: tasks done when nothing was runnable, -1 */
	int *nrun;         /* per queue: running tasks, this offer */
	int *order;        /* queues, in the order this offer tries them */
};

int aalo_queue(double bytes, int queues, double q1, double mult)
{
	int q = 0;
	for (double hi = q1; bytes >= hi && q < queues - 1; hi *= mult)
		q++;
	return q;
}

static int queue_of(const struct sched *s, const struct job *j)
{
	const struct aalo_opts *o = s->opts;
	return aalo_queue(((const struct aalo *)s->priv)->served[j->id], o->queues, o->q1, o->mult);
}

static void aalo_finished(struct sched *s, struct task *t)
{
	struct aalo *a = s->priv;
	struct job *j = &s->c->w->jobs[t->job];
	a->served[t->job] += (double)t->output_bytes;
	if (ready_current(&a->jobs[t->job], j))   /* else built again from the states when next read */
		ready_task_done(&a->jobs[t->job], s->c->w, j, t);
}

/* Job j's first runnable pending task, stage by stage, if it fits `server`
 * (NULL also out of memory: the job waits). */
static struct task *job_next(struct sched *s, struct job *j, int server)
{
	const struct aalo_opts *o = s->opts;
	struct aalo *a = s->priv;
	struct cluster *c = s->c;
	struct ready *x = &a->jobs[j->id];
	int *cur = &a->cur[j->id * JOB_MAX_STAGES], done = j->maps_done + j->reduces_done;
	if (j->requeues != a->requeues[j->id]) {   /* tasks went back to pending: rewind */
		a->requeues[j->id] = j->requeues;
		a->idle_at[j->id] = -1;
		for (int st = 0; st < j->nstages; st++)
			cur[st] = j->stages[st].first;
	}
	if (a->idle_at[j->id] == done)
		return NULL;
	if (!ready_current(x, j) && ready_build(x, c->w, j, NULL, NULL)) {
		ready_free(x);
		return NULL;
	}
	bool any = false;
	for (int st = 0; st < j->nstages; st++) {
		const struct stage *sg = &j->stages[st];
		int end = sg->first + sg->ntasks, k = cur[st];
		while (k < end && c->w->tasks[j->first_task + k].state != TASK_PENDING)
			k++;
		cur[st] = k;
		if (x->per_task[st]) {   /* the first ready one, within `window` of the first pending */
			while (x->hn[st] && stage_task(c->w->tasks, j, st, ready_heap(x, j, st)[0])->state != TASK_PENDING)
				ready_pop(x, j, st);
			k = x->hn[st] ? sg->first + ready_heap(x, j, st)[0] : end;
		}
		if (k >= end || k - cur[st] >= o->window)
			continue;
		struct task *t = &c->w->tasks[j->first_task + k];
		if (!cluster_task_runnable(c, t))
			continue;
		any = true;
		if (cluster_task_fits(c, t, server))
			return t;
	}
	if (!any)
		a->idle_at[j->id] = done;
	return NULL;
}

static struct task *aalo_offer(struct sched *s, int server)
{
	const struct aalo_opts *o = s->opts;
	struct aalo *a = s->priv;
	struct cluster *c = s->c;
	for (int q = 0; q < o->queues; q++) {
		a->nrun[q] = 0;
		a->order[q] = q;
	}
	for (int i = 0; i < c->running_jobs; i++)
		a->nrun[queue_of(s, cluster_active(c, i))] += sched_running(cluster_active(c, i));
	if (o->interq == INTERQ_WEIGHTED)   /* insertion sort by running / weight, ties: the higher queue */
		for (int i = 1; i < o->queues; i++)
			for (int k = i; k > 0; k--) {
				int x = a->order[k], y = a->order[k - 1];
				if ((double)a->nrun[x] / (o->queues - x) >= (double)a->nrun[y] / (o->queues - y))
					break;
				a->order[k] = y;
				a->order[k - 1] = x;
			}
	for (int i = 0; i < o->queues; i++)
		for (int k = 0; k < c->running_jobs; k++) {
			struct job *j = cluster_active(c, k);
			if (queue_of(s, j) != a->order[i])
				continue;
			struct task *t = job_next(s, j, server);
			if (t)
				return t;
		}
	return NULL;
}

static int aalo_init(struct sched *s)
{
	const struct aalo_opts *o = s->opts;
	struct aalo *a = s->priv;
	size_t nj = s->c->w->njobs ? s->c->w->njobs : 1;
	a->jobs = calloc(nj, sizeof *a->jobs);
	a->served = calloc(nj, sizeof *a->served);
	a->cur = calloc(nj * JOB_MAX_STAGES, sizeof *a->cur);
	a->requeues = malloc(nj * sizeof *a->requeues);
	a->idle_at = malloc(nj * sizeof *a->idle_at);
	a->nrun = malloc(o->queues * sizeof *a->nrun);
	a->order = malloc(o->queues * sizeof *a->order);
	if (!a->jobs || !a->served || !a->cur || !a->requeues || !a->idle_at || !a->nrun || !a->order)
		return -1;
	for (size_t j = 0; j < nj; j++)
		a->requeues[j] = -1;   /* cur is set on first use */
	return 0;
}

static void aalo_destroy(struct sched *s)
{
	struct aalo *a = s->priv;
	for (int j = 0; a->jobs && j < s->c->w->njobs; j++)
		ready_free(&a->jobs[j]);
	free(a->jobs);
	free(a->served);
	free(a->cur);
	free(a->requeues);
	free(a->idle_at);
	free(a->nrun);
	free(a->order);
}

static const char *const interq_names[] = {"weighted", "strict", NULL};
static const struct sched_opt aalo_opt_table[] = {
	SCHED_INT_OPT(struct aalo_opts, queues, 10, 1, 64, "D-CLAS queues (K)"),
	SCHED_NUM_OPT(struct aalo_opts, q1, 10e6, 0, INFINITY, SCHED_OPT_ABOVE_MIN,
		      "bytes of attained service that end the first queue"),
	SCHED_NUM_OPT(struct aalo_opts, mult, 10, 1, INFINITY, SCHED_OPT_ABOVE_MIN,
		      "each queue's upper threshold over the one before (E)"),
	SCHED_CHOICE_OPT(struct aalo_opts, interq, INTERQ_WEIGHTED, interq_names,
			 "across queues: weighted sharing (queue q weighs K - q) or strict priority"),
	SCHED_INT_OPT(struct aalo_opts, window, 4096, 1, 1 << 30, "pending tasks of a stage a free server looks at"),
	{0},
};

const struct sched_ops sched_aalo = {
	.name = "aalo",
	.help = "Aalo: jobs as coflows in D-CLAS queues by bytes served, FIFO within a queue (DSP's baseline)",
	.priv_size = sizeof(struct aalo),
	.opts = aalo_opt_table,
	.opts_size = sizeof(struct aalo_opts),
	.init = aalo_init,
	.destroy = aalo_destroy,
	.offer = aalo_offer,
	.task_finished = aalo_finished,
};
