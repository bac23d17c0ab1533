/* ready.c — a job's ready index (ready.h): what each task's own parents
 * leave missing and the heaps of the ready ones, built from the tasks'
 * states and updated as tasks end, so that an offer reads a stage's first
 * ready task without rescanning the tasks still waiting. */
#include "emu/sched/ready.h"
#include <stdlib.h>
#include <string.h>

void ready_free(struct ready *r)
{
	free(r->missing);
	free(r->kid_start);
	free(r->kids);
	free(r->heap);
	memset(r, 0, sizeof *r);
}

static bool before(const struct ready *r, const struct job *j, int st, int a, int b)
{
	return r->before ? r->before(r->ctx, j, st, a, b) : a < b;
}

static void push(struct ready *r, const struct job *j, int st, int v)
{
	int *h = r->heap + j->stages[st].first, i = r->hn[st]++;
	for (; i > 0 && before(r, j, st, v, h[(i - 1) / 2]); i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = v;
}

void ready_pop(struct ready *r, const struct job *j, int st)
{
	int *h = r->heap + j->stages[st].first, n = --r->hn[st], v = h[n], i = 0;
	for (;;) {
		int k = 2 * i + 1;
		if (k >= n)
			break;
		if (k + 1 < n && before(r, j, st, h[k + 1], h[k]))
			k++;
		if (!before(r, j, st, h[k], v))
			break;
		h[i] = h[k];
		i = k;
	}
	if (n)
		h[i] = v;
}

/* The counts and the children; with heaps, which stages have one. */
static int build_counts(struct ready *r, const struct workload *w, const struct job *j, bool heaps)
{
	struct task *tasks = w->tasks;
	const struct task_dep *td = w->tdeps;
	int n = j->nmaps + j->nreduces;
	r->missing = calloc(n ? n : 1, sizeof *r->missing);
	r->kid_start = calloc(n + 1, sizeof *r->kid_start);
	if (heaps)
		r->heap = malloc((n ? n : 1) * sizeof *r->heap);
	if (!r->missing || !r->kid_start || (heaps && !r->heap))
		return -1;
	for (int i = 0; i < n; i++) {
		const struct task *t = &tasks[j->first_task + i];
		for (int d = 0; d < t->ntdeps; d++)
			r->kid_start[td[t->tdep_first + d].task + 1]++;
	}
	for (int i = 0; i < n; i++)
		r->kid_start[i + 1] += r->kid_start[i];
	int *fill = calloc(n ? n : 1, sizeof *fill);
	if (!(r->kids = malloc((r->kid_start[n] ? r->kid_start[n] : 1) * sizeof *r->kids)) || !fill) {
		free(fill);
		return -1;
	}
	for (int st = 0; st < j->nstages; st++) {
		const struct stage *sg = &j->stages[st];
		for (int p = 0; heaps && p < sg->nparents; p++)
			r->per_task[st] |= sg->parent[p].kind == EDGE_ONE_TO_ONE || sg->parent[p].kind == EDGE_TASKS;
		for (int i = 0; i < sg->ntasks; i++) {
			const struct task *t = stage_task(tasks, j, st, i);
			int rel = t->id - j->first_task;
			for (int d = 0; d < t->ntdeps; d++) {
				int par = td[t->tdep_first + d].task;
				r->kids[r->kid_start[par] + fill[par]++] = rel;
				r->missing[rel] += tasks[j->first_task + par].state != TASK_DONE;
			}
			for (int p = 0; p < sg->nparents; p++)
				if (sg->parent[p].kind == EDGE_ONE_TO_ONE)
					r->missing[rel] += stage_task(tasks, j, sg->parent[p].stage, i)->state != TASK_DONE;
		}
	}
	free(fill);
	r->requeues = j->requeues;
	return 0;
}

int ready_build_counts(struct ready *r, const struct workload *w, const struct job *j, ready_fn *became,
		       void *ctx)
{
	ready_free(r);
	if (build_counts(r, w, j, false))
		return -1;
	r->became = became;
	r->became_ctx = ctx;
	r->built = true;
	return 0;
}

int ready_build(struct ready *r, const struct workload *w, const struct job *j, ready_before_fn *before,
		const void *ctx)
{
	struct task *tasks = w->tasks;
	ready_free(r);
	r->before = before;
	r->ctx = ctx;
	if (build_counts(r, w, j, true))
		return -1;
	/* Once every count is in: a policy's order may read them. */
	for (int st = 0; st < j->nstages; st++)
		for (int i = 0; r->per_task[st] && i < j->stages[st].ntasks; i++) {
			const struct task *t = stage_task(tasks, j, st, i);
			if (t->state == TASK_PENDING && !r->missing[t->id - j->first_task])
				push(r, j, st, i);
		}
	r->built = true;
	return 0;
}

/* One of task rel's parents is done: ready once none is missing. */
static void parent_done(struct ready *r, const struct workload *w, const struct job *j, int rel)
{
	const struct task *t = &w->tasks[j->first_task + rel];
	if (--r->missing[rel] || t->state != TASK_PENDING)
		return;
	if (r->became)
		r->became(r->became_ctx, j, rel);
	else
		push(r, j, t->stage, t->sindex);
}

void ready_task_done(struct ready *r, const struct workload *w, const struct job *j, const struct task *t)
{
	int rel = t->id - j->first_task;
	for (int i = r->kid_start[rel]; i < r->kid_start[rel + 1]; i++)
		parent_done(r, w, j, r->kids[i]);
	for (int st = t->stage + 1; st < j->nstages; st++)
		for (int p = 0; p < j->stages[st].nparents; p++)
			if (j->stages[st].parent[p].stage == t->stage && j->stages[st].parent[p].kind == EDGE_ONE_TO_ONE)
				parent_done(r, w, j, j->stages[st].first + t->sindex);
}
