/* dsp_h1.c — DSP's plan at scale: H1, the notes' list scheduling (§2.5),
 * HEFT-like with DSP's dependency rank as the key.  The seed solves its ILP
 * with CPLEX and says nothing of sizes; a period's batch at its scale (10^4
 * tasks) is far beyond an exact solve, and H1 follows the two reasons the
 * seed gives for the ILP's gain: independent tasks on different machines,
 * tasks with more dependents first. */
#include "emu/sched/dsp.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int dsp_plan_alloc(struct dsp_plan *pl, int n)
{
	memset(pl, 0, sizeof *pl);
	pl->machine = malloc((n ? n : 1) * sizeof *pl->machine);
	pl->start = malloc((n ? n : 1) * sizeof *pl->start);
	pl->end = malloc((n ? n : 1) * sizeof *pl->end);
	if (pl->machine && pl->start && pl->end)
		return 0;
	dsp_plan_free(pl);
	return -1;
}

void dsp_plan_free(struct dsp_plan *pl)
{
	free(pl->machine);
	free(pl->start);
	free(pl->end);
	memset(pl, 0, sizeof *pl);
}

double dsp_plan_late(const struct dsp_inst *in, const struct dsp_plan *pl)
{
	double *last = calloc(in->njobs ? in->njobs : 1, sizeof *last), late = 0;
	if (!last || !in->dl) {
		free(last);
		return 0;
	}
	for (int v = 0; v < in->n; v++)
		last[in->job[v]] = fmax(last[in->job[v]], pl->end[v]);
	for (int i = 0; i < in->njobs; i++)
		if (isfinite(in->dl[i]) && last[i] > in->dl[i])
			late += last[i] - in->dl[i];
	free(last);
	return late;
}

struct h1 {
	const struct dsp_inst *in;
	int *pfirst, *par, *cfirst, *chi;   /* CSR: parents and children */
	double *pbar, *rank, *bot, *dl, *est, *slack;
	int *heap, nheap;
};

/* Whether ready task a goes before b. */
static bool before(const struct h1 *h, int a, int b)
{
	bool ua = h->slack[a] < 0, ub = h->slack[b] < 0;
	if (ua != ub)
		return ua;
	if (ua && h->slack[a] != h->slack[b])
		return h->slack[a] < h->slack[b];
	if (h->rank[a] != h->rank[b])
		return h->rank[a] > h->rank[b];
	if (h->bot[a] != h->bot[b])
		return h->bot[a] > h->bot[b];
	if (h->dl[a] != h->dl[b])
		return h->dl[a] < h->dl[b];
	return a < b;
}

static void push(struct h1 *h, int v)
{
	int i = h->nheap++;
	h->heap[i] = v;
	while (i && before(h, v, h->heap[(i - 1) / 2])) {
		h->heap[i] = h->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->heap[i] = v;
}

static int pop(struct h1 *h)
{
	int top = h->heap[0], v = h->heap[--h->nheap], i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= h->nheap)
			break;
		if (c + 1 < h->nheap && before(h, h->heap[c + 1], h->heap[c]))
			c++;
		if (!before(h, h->heap[c], v))
			break;
		h->heap[i] = h->heap[c];
		i = c;
	}
	if (h->nheap)
		h->heap[i] = v;
	return top;
}

/* CSR of the edges by their end `side` (0: by u, listing w; 1: by w, listing u). */
static int csr(const struct dsp_inst *in, int side, int **first, int **list)
{
	*first = calloc(in->n + 1, sizeof **first);
	*list = malloc((in->nedges ? in->nedges : 1) * sizeof **list);
	if (!*first || !*list)
		return -1;
	for (int e = 0; e < in->nedges; e++)
		(*first)[in->edge[e][side] + 1]++;
	for (int v = 0; v < in->n; v++)
		(*first)[v + 1] += (*first)[v];
	int *at = malloc((in->n ? in->n : 1) * sizeof *at);
	if (!at)
		return -1;
	memcpy(at, *first, in->n * sizeof *at);
	for (int e = 0; e < in->nedges; e++)
		(*list)[at[in->edge[e][side]]++] = in->edge[e][!side];
	free(at);
	return 0;
}

/* Ranks, paths to a leaf and level deadlines (edges go forward in index order). */
static void prepare(struct h1 *h)
{
	const struct dsp_inst *in = h->in;
	int *lvl = (int *)h->heap;   /* scratch until the heap is used */
	for (int v = 0; v < in->n; v++) {
		double s = 0;
		for (int k = 0; k < in->m; k++)
			s += in->p[(size_t)v * in->m + k];
		h->pbar[v] = s / in->m;
		lvl[v] = 0;
		for (int q = h->pfirst[v]; q < h->pfirst[v + 1]; q++)
			lvl[v] = lvl[v] > lvl[h->par[q]] + 1 ? lvl[v] : lvl[h->par[q]] + 1;
	}
	for (int v = in->n - 1; v >= 0; v--) {
		double r = 0, b = 0;
		for (int q = h->cfirst[v]; q < h->cfirst[v + 1]; q++) {
			r += (1 + in->gamma) * h->rank[h->chi[q]];
			b = fmax(b, h->bot[h->chi[q]]);
		}
		h->rank[v] = h->cfirst[v] == h->cfirst[v + 1] ? 1 : r;
		h->bot[v] = h->pbar[v] + b;
	}
	/* the job's deadline less the longest task of every later level:
	 * per job and level the longest */
	int L = 0;
	for (int v = 0; v < in->n; v++)
		L = lvl[v] > L ? lvl[v] : L;
	size_t nl = (size_t)L + 2;
	double *longest = calloc((size_t)in->njobs * nl, sizeof *longest);
	for (int v = 0; longest && v < in->n; v++) {
		double *x = &longest[(size_t)in->job[v] * nl + lvl[v]];
		*x = fmax(*x, h->pbar[v]);
	}
	for (int v = 0; v < in->n; v++) {
		double dl = in->dl ? in->dl[in->job[v]] : INFINITY;
		for (int l = lvl[v] + 1; longest && isfinite(dl) && l <= L; l++)
			dl -= longest[(size_t)in->job[v] * nl + l];
		h->dl[v] = dl;
	}
	free(longest);
}

int dsp_h1(const struct dsp_inst *in, struct dsp_plan *out)
{
	struct h1 h = {.in = in};
	size_t n = in->n ? in->n : 1;
	double *avail = malloc((in->m ? in->m : 1) * sizeof *avail);
	int *left = malloc(n * sizeof *left);
	h.pbar = malloc(n * sizeof *h.pbar);
	h.rank = malloc(n * sizeof *h.rank);
	h.bot = malloc(n * sizeof *h.bot);
	h.dl = malloc(n * sizeof *h.dl);
	h.est = malloc(n * sizeof *h.est);
	h.slack = malloc(n * sizeof *h.slack);
	h.heap = malloc(n * sizeof *h.heap);
	int rc = -1;
	if (!avail || !left || !h.pbar || !h.rank || !h.bot || !h.dl || !h.est || !h.slack || !h.heap ||
	    csr(in, 1, &h.pfirst, &h.par) || csr(in, 0, &h.cfirst, &h.chi))
		goto out;
	prepare(&h);
	for (int k = 0; k < in->m; k++)
		avail[k] = in->rel_m ? in->rel_m[k] : 0;
	out->makespan = out->late = 0;
	for (int v = 0; v < in->n; v++) {
		left[v] = h.pfirst[v + 1] - h.pfirst[v];
		h.est[v] = 0;
		if (!left[v]) {
			h.slack[v] = h.dl[v] - h.pbar[v];
			push(&h, v);
		}
	}
	while (h.nheap) {
		int v = pop(&h), best = 0;
		double bs = 0, bf = INFINITY;
		for (int k = 0; k < in->m; k++) {
			double s = fmax(h.est[v], avail[k]), f = s + in->p[(size_t)v * in->m + k];
			if (f < bf - 1e-12 || (fabs(f - bf) <= 1e-12 && avail[k] < avail[best])) {
				best = k;
				bs = s;
				bf = f;
			}
		}
		out->machine[v] = best;
		out->start[v] = bs;
		out->end[v] = bf;
		avail[best] = bf;
		out->makespan = fmax(out->makespan, bf);
		for (int q = h.cfirst[v]; q < h.cfirst[v + 1]; q++) {
			int w = h.chi[q];
			h.est[w] = fmax(h.est[w], bf);
			if (!--left[w]) {
				h.slack[w] = h.dl[w] - h.est[w] - h.pbar[w];
				push(&h, w);
			}
		}
	}
	out->late = dsp_plan_late(in, out);
	rc = 0;
out:
	free(avail);
	free(left);
	free(h.pbar);
	free(h.rank);
	free(h.bot);
	free(h.dl);
	free(h.est);
	free(h.slack);
	free(h.heap);
	free(h.pfirst);
	free(h.par);
	free(h.cfirst);
	free(h.chi);
	return rc;
}
