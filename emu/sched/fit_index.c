/* fit_index.c — the first entry that fits (fit_index.h). */
#include "emu/sched/fit_index.h"
#include <stdint.h>
#include <stdlib.h>

static void pull(struct fit_index *f, int x)
{
	int a = 2 * x, b = 2 * x + 1;
	f->live[x] = f->live[a] + f->live[b];
	for (int k = 0; k < RES_KINDS; k++)
		f->min[x].v[k] = f->min[a].v[k] < f->min[b].v[k] ? f->min[a].v[k] : f->min[b].v[k];
}

int fit_index_build(struct fit_index *f, int n, const struct res *ask)
{
	return fit_index_build_some(f, n, ask, NULL);
}

int fit_index_build_some(struct fit_index *f, int n, const struct res *ask, const bool *on)
{
	int size = 1;
	while (size < n)
		size *= 2;
	if (size != f->size || !f->min) {
		fit_index_free(f);
		f->min = malloc(2 * (size_t)size * sizeof *f->min);
		f->live = malloc(2 * (size_t)size * sizeof *f->live);
		if (!f->min || !f->live) {
			fit_index_free(f);
			return -1;
		}
		f->size = size;
	}
	f->n = n;
	for (int i = 0; i < size; i++) {
		bool in = i < n && (!on || on[i]);
		f->live[size + i] = in;
		for (int k = 0; k < RES_KINDS; k++)
			f->min[size + i].v[k] = in ? ask[i].v[k] : INT64_MAX;
	}
	for (int x = size - 1; x >= 1; x--)
		pull(f, x);
	return 0;
}

void fit_index_free(struct fit_index *f)
{
	free(f->min);
	free(f->live);
	f->min = NULL;
	f->live = NULL;
	f->n = f->size = 0;
}

void fit_index_remove(struct fit_index *f, int i)
{
	int x = f->size + i;
	if (!f->live[x])
		return;
	f->live[x] = 0;
	for (int k = 0; k < RES_KINDS; k++)
		f->min[x].v[k] = INT64_MAX;
	for (x /= 2; x >= 1; x /= 2)
		pull(f, x);
}

void fit_index_put(struct fit_index *f, int i, const struct res *ask)
{
	int x = f->size + i;
	f->live[x] = 1;
	f->min[x] = *ask;
	for (x /= 2; x >= 1; x /= 2)
		pull(f, x);
}

/* Node x covers entries [lo, lo + len). */
static int first(struct fit_index *f, int x, int lo, int len, int from, const struct res *avail, fit_check_fn *check,
		 void *ctx)
{
	if (lo + len <= from || !f->live[x] || !res_fits(&f->min[x], avail))
		return -1;
	if (x >= f->size)
		return check(ctx, lo) ? lo : -1;
	int r = first(f, 2 * x, lo, len / 2, from, avail, check, ctx);
	return r >= 0 ? r : first(f, 2 * x + 1, lo + len / 2, len / 2, from, avail, check, ctx);
}

int fit_index_first(struct fit_index *f, int from, const struct res *avail, fit_check_fn *check, void *ctx)
{
	return f->n ? first(f, 1, 0, f->size, from, avail, check, ctx) : -1;
}

static int next(const struct fit_index *f, int x, int lo, int len, int from)
{
	if (lo + len <= from || !f->live[x])
		return -1;
	if (x >= f->size)
		return lo;
	int r = next(f, 2 * x, lo, len / 2, from);
	return r >= 0 ? r : next(f, 2 * x + 1, lo + len / 2, len / 2, from);
}

int fit_index_next(const struct fit_index *f, int from)
{
	return f->n ? next(f, 1, 0, f->size, from) : -1;
}

static int count(const struct fit_index *f, int x, int lo, int len, int from, int to)
{
	if (lo >= to || lo + len <= from || !f->live[x])
		return 0;
	if (from <= lo && lo + len <= to)
		return f->live[x];
	return count(f, 2 * x, lo, len / 2, from, to) + count(f, 2 * x + 1, lo + len / 2, len / 2, from, to);
}

int fit_index_count(const struct fit_index *f, int lo, int hi)
{
	return f->n ? count(f, 1, 0, f->size, lo, hi) : 0;
}
