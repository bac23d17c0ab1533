/* dawn_plan.c — Dawn's equations and Algorithm 1 on per-rack vectors
 * (dawn.h).  Bytes everywhere: Algorithm 1 compares the costs of jobs in
 * different stages, so Eq. 1's blocks are weighed by their sizes. */
#include "emu/sched/dawn.h"
#include <math.h>
#include <stdlib.h>

int dawn_max_rack(int racks, const double *v, double *cost)
{
	int best = 0;
	double sum = 0;
	for (int r = 0; r < racks; r++) {
		sum += v[r];
		if (v[r] > v[best])
			best = r;
	}
	if (cost)
		*cost = sum - v[best];
	return best;
}

/* Eq. 1 for a child whose input, per rack, is prev + x's output. */
static double child_cost(int racks, const double *prev, const double *out_here, double out_rest, int at)
{
	double sum = 0, top = 0;
	for (int k = 0; k < racks; k++) {
		double v = prev[k] + (out_here ? out_here[k] : 0) + (k == at ? out_rest : 0);
		sum += v;
		top = v > top ? v : top;
	}
	return sum - top;
}

int dawn_dep_rack(int racks, const double *inter, int rmax, const double *out_here, double out_rest, int nchild,
		  const double *const *prev, double *dep_cost)
{
	int best = -1;
	double best_cost = 0;
	for (int r = 0; r < racks; r++) {
		double cost = 0;
		for (int y = 0; y < nchild; y++)
			cost += child_cost(racks, prev[y], out_here, out_rest, r);
		if (dep_cost)
			dep_cost[r] = cost;
		/* Ties: max_r (then both candidates are one), else more intermediate data. */
		double eps = 1e-9 * (fabs(cost) + fabs(best_cost) + 1);
		if (best < 0 || cost < best_cost - eps ||
		    (fabs(cost - best_cost) <= eps && best != rmax && (r == rmax || inter[r] > inter[best]))) {
			best = r;
			best_cost = cost;
		}
	}
	return best;
}

struct entry { int i, rack; double cost, submit; int id; };

static int asc(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost < y->cost ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->id - y->id;
}

static int desc(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->id - y->id;
}

static bool prefers(const struct dawn_cand *c, int rack)
{
	for (int k = 0; k < c->n; k++)
		if (c->p[k].rack == rack)
			return true;
	return false;
}

static bool same_traffic(double a, double b, double tol)
{
	return a == b || fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

/* One pass of lines 3-25: e holds each candidate's selected (rack, cost). */
static int pass(const struct dawn_cand *c, struct entry *e, int m, int rack, bool sat, double tol, int *set)
{
	qsort(e, m, sizeof *e, sat ? asc : desc);
	int k = 0;
	while (k < m && e[k].rack != rack)   /* lines 8-10 / 16-18: pop until rack i */
		k++;
	if (k == m)
		return 0;
	int n = 0;
	set[n++] = e[k].i;
	for (int q = k + 1; q < m; q++)   /* lines 21-25, with the prose's "also contain rack i" */
		if (same_traffic(e[q].cost, e[k].cost, tol) && prefers(&c[e[q].i], rack))
			set[n++] = e[q].i;
	return n;
}

int dawn_select(const struct dawn_cand *c, int n, int rack, bool saturated, double tol, bool relaxed, int *set,
		bool *relaxed_used)
{
	struct entry *e = malloc((n ? n : 1) * sizeof *e);
	if (relaxed_used)
		*relaxed_used = false;
	if (!e)
		return 0;
	int m = 0;
	for (int i = 0; i < n; i++) {   /* lines 4-6 / 12-14 */
		if (!c[i].n)
			continue;
		int b = 0;
		for (int k = 1; k < c[i].n; k++)
			if (saturated ? c[i].p[k].cost < c[i].p[b].cost : c[i].p[k].cost > c[i].p[b].cost)
				b = k;
		e[m++] = (struct entry){i, c[i].p[b].rack, c[i].p[b].cost, c[i].submit, c[i].id};
	}
	int got = pass(c, e, m, rack, saturated, tol, set);
	if (!got && relaxed) {
		m = 0;
		for (int i = 0; i < n; i++)
			for (int k = 0; k < c[i].n; k++)
				if (c[i].p[k].rack == rack) {
					e[m++] = (struct entry){i, rack, c[i].p[k].cost, c[i].submit, c[i].id};
					break;
				}
		got = pass(c, e, m, rack, saturated, tol, set);
		if (relaxed_used)
			*relaxed_used = got > 0;
	}
	free(e);
	return got;
}
