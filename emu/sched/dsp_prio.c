/* dsp_prio.c — DSP's dependency-aware priority (seed §IV-A, Eqs. 12-13),
 * its task-level deadlines (§IV-B) and the PP test (notes §4.2). */
#include "emu/sched/dsp.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Stage depths: 1 for the first, 1 + the deepest parent for the others. */
static int depths(const struct job *j, int *d)
{
	int L = 0;
	for (int s = 0; s < j->nstages; s++) {
		d[s] = 1;
		for (int p = 0; p < j->stages[s].nparents; p++)
			d[s] = d[s] > d[j->stages[s].parent[p].stage] + 1 ? d[s] : d[j->stages[s].parent[p].stage] + 1;
		L = d[s] > L ? d[s] : L;
	}
	return L;
}

void dsp_level_deadlines(const struct cluster *c, const struct job *j, double out[JOB_MAX_STAGES])
{
	int d[JOB_MAX_STAGES], L = depths(j, d);
	double longest[JOB_MAX_STAGES + 2] = {0};
	for (int s = 0; s < j->nstages; s++)
		for (int i = 0; i < j->stages[s].ntasks; i++)
			longest[d[s]] = fmax(longest[d[s]], stage_task(c->w->tasks, j, s, i)->work_s);
	for (int s = 0; s < j->nstages; s++) {
		double dl = j->deadline_s > 0 ? j->submit_s + j->deadline_s : INFINITY;
		for (int l = d[s] + 1; l <= L; l++)
			dl -= longest[l];
		out[s] = dl;
	}
}

int dsp_children(const struct workload *w, int **cfirst, int **child)
{
	int *first = calloc((size_t)w->ntasks + 1, sizeof *first), *at = NULL, *list = NULL;
	if (!first)
		return -1;
	/* two passes: count, then fill (listed parents, then one-to-one) */
	for (int pass = 0; pass < 2; pass++) {
		for (int jj = 0; jj < w->njobs; jj++) {
			const struct job *j = &w->jobs[jj];
			for (int s = 0; s < j->nstages; s++)
				for (int i = 0; i < j->stages[s].ntasks; i++) {
					const struct task *t = stage_task(w->tasks, j, s, i);
					for (int q = 0; q < t->ntdeps; q++) {
						int par = j->first_task + w->tdeps[t->tdep_first + q].task;
						if (pass)
							list[at[par]++] = t->id;
						else
							first[par + 1]++;
					}
					for (int p = 0; p < j->stages[s].nparents; p++)
						if (j->stages[s].parent[p].kind == EDGE_ONE_TO_ONE) {
							int par = stage_task(w->tasks, j, j->stages[s].parent[p].stage, i)->id;
							if (pass)
								list[at[par]++] = t->id;
							else
								first[par + 1]++;
						}
				}
		}
		if (pass)
			break;
		for (int v = 0; v < w->ntasks; v++)
			first[v + 1] += first[v];
		list = malloc(((size_t)first[w->ntasks] + 1) * sizeof *list);
		at = malloc(((size_t)w->ntasks + 1) * sizeof *at);
		if (!list || !at) {
			free(first);
			free(list);
			free(at);
			return -1;
		}
		memcpy(at, first, (size_t)w->ntasks * sizeof *at);
	}
	free(at);
	*cfirst = first;
	*child = list;
	return 0;
}

void dsp_prio_job(const struct cluster *c, const struct job *j, const int *cfirst, const int *child,
		  const double *leaf, double gamma, double *P)
{
	double stage_sum[JOB_MAX_STAGES] = {0};   /* the live tasks' P of a stage */
	for (int s = j->nstages - 1; s >= 0; s--) {
		/* what every task of s gets from the stages reading it whole */
		double whole = 0;
		bool readers = false;
		for (int r = s + 1; r < j->nstages; r++) {
			const struct stage_edge *e = stages_edge(j, r, s);
			if (e && (e->kind == EDGE_SHUFFLE || e->kind == EDGE_BROADCAST) &&
			    j->stages[r].done < j->stages[r].ntasks) {
				whole += (1 + gamma) * stage_sum[r];
				readers = true;
			}
		}
		for (int i = 0; i < j->stages[s].ntasks; i++) {
			const struct task *t = stage_task(c->w->tasks, j, s, i);
			if (t->state == TASK_DONE) {
				P[t->id] = 0;
				continue;
			}
			double p = whole;
			bool live = readers;
			for (int q = cfirst[t->id]; q < cfirst[t->id + 1]; q++)
				if (c->w->tasks[child[q]].state != TASK_DONE) {
					p += (1 + gamma) * P[child[q]];
					live = true;
				}
			P[t->id] = live ? p : leaf[t->id];
			stage_sum[s] += P[t->id];
		}
	}
}

/* Whether stage `anc` is stage s or one it reads, directly or not. */
static bool stage_reads(const struct job *j, int s, int anc)
{
	if (s == anc)
		return true;
	for (int p = 0; p < j->stages[s].nparents; p++)
		if (stage_reads(j, j->stages[s].parent[p].stage, anc))
			return true;
	return false;
}

bool dsp_depends(const struct cluster *c, const struct task *a, const struct task *b)
{
	if (a->job != b->job || a == b)
		return false;
	const struct job *j = &c->w->jobs[a->job];
	const struct stage *s = &j->stages[a->stage];
	for (int p = 0; p < s->nparents; p++) {
		int ps = s->parent[p].stage;
		switch (s->parent[p].kind) {
		case EDGE_SHUFFLE:
		case EDGE_BROADCAST:
			if (stage_reads(j, ps, b->stage))
				return true;
			break;
		case EDGE_ONE_TO_ONE: {
			const struct task *u = stage_task(c->w->tasks, j, ps, a->sindex);
			if (u == b || dsp_depends(c, u, b))
				return true;
			break;
		}
		case EDGE_TASKS:
			break;
		}
	}
	for (int q = 0; q < a->ntdeps; q++) {
		const struct task *u = &c->w->tasks[j->first_task + c->w->tdeps[a->tdep_first + q].task];
		if (u == b || dsp_depends(c, u, b))
			return true;
	}
	return false;
}

bool dsp_pp_ok(double pa, double pb, double pbar, double rho, bool pp)
{
	if (!(pa > pb))
		return false;
	return !pp || pbar <= 0 || (pa - pb) / pbar > rho;
}
