/* key_sort.c — a stable LSD radix sort of ids by their keys' bits (key_sort.h). */
#include "emu/sched/key_sort.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The key's bits in an order that unsigned comparison keeps. */
static uint64_t bits(double x, bool desc)
{
	uint64_t u;
	if (x == 0)
		x = 0;   /* -0 as 0 */
	memcpy(&u, &x, sizeof u);
	u = u >> 63 ? ~u : u | (uint64_t)1 << 63;
	return desc ? ~u : u;
}

int key_sort(int *ids, int n, const double *key, bool desc)
{
	enum { B = 11, R = 1 << B, PASSES = (64 + B - 1) / B };
	if (n < 2)
		return 0;
	uint64_t *k = malloc(2 * (size_t)n * sizeof *k);
	int *id2 = malloc((size_t)n * sizeof *id2);
	size_t *cnt = calloc((size_t)PASSES * R, sizeof *cnt);
	if (!k || !id2 || !cnt) {
		free(k);
		free(id2);
		free(cnt);
		return -1;
	}
	/* Every pass's counts in one read of the keys; the passes move keys and
	 * ids between two buffers (no copy back but at the end). */
	uint64_t *k2 = k + n;
	for (int i = 0; i < n; i++) {
		k[i] = bits(key[ids[i]], desc);
		for (int p = 0; p < PASSES; p++)
			cnt[p * R + ((k[i] >> (p * B)) & (R - 1))]++;
	}
	int *from = ids, *to = id2;
	for (int p = 0; p < PASSES; p++) {
		int shift = p * B;
		size_t *c = cnt + p * R;
		if (c[(k[0] >> shift) & (R - 1)] == (size_t)n)
			continue;   /* one digit for all: the order stands */
		size_t sum = 0;
		for (int d = 0; d < R; d++) {
			size_t x = c[d];
			c[d] = sum;
			sum += x;
		}
		for (int i = 0; i < n; i++) {
			size_t at = c[(k[i] >> shift) & (R - 1)]++;
			k2[at] = k[i];
			to[at] = from[i];
		}
		uint64_t *kt = k;
		k = k2;
		k2 = kt;
		int *it = from;
		from = to;
		to = it;
	}
	if (from != ids)
		memcpy(ids, from, (size_t)n * sizeof *ids);
	free(k < k2 ? k : k2);
	free(id2);
	free(cnt);
	return 0;
}

/* a before b in key_resort's order: by key, then by id. */
static bool first(const double *key, bool desc, int a, int b)
{
	double x = key[a], y = key[b];
	return x != y ? (desc ? x > y : x < y) : a < b;
}

static int order_room(struct key_order *o, int n, int maxid)
{
	if (maxid > o->maxid) {
		unsigned *m = calloc((size_t)maxid, sizeof *m);
		if (!m)
			return -1;
		free(o->mark);
		o->mark = m;
		o->maxid = maxid;
		o->gen = 0;
		o->nprev = 0;   /* its marks are gone */
	}
	if (n >= o->cap) {   /* at least one: prev is then never NULL */
		int *p = realloc(o->prev, (size_t)(n + 1) * sizeof *p), *f;
		if (p)
			o->prev = p;
		if (!p || !(f = realloc(o->fresh, (size_t)(n + 1) * sizeof *f)))
			return -1;
		o->fresh = f;
		o->cap = n + 1;
	}
	if (o->gen >= UINT32_MAX - 2) {   /* marks wrap: start again */
		memset(o->mark, 0, (size_t)o->maxid * sizeof *o->mark);
		o->gen = 0;
	}
	return 0;
}

int key_resort(struct key_order *o, int *ids, int n, const double *key, bool desc, int maxid)
{
	if (order_room(o, n, maxid))
		return -1;
	unsigned now = o->gen += 2;
	for (int i = 0; i < n; i++)
		o->mark[ids[i]] = now;
	/* The last result's ids still here and still in its order, kept in
	 * place in prev; one whose key moved out of it is sorted with the new. */
	int kept = 0, nf = 0;
	for (int i = 0; i < o->nprev; i++) {
		int id = o->prev[i];
		if (o->mark[id] != now)
			continue;
		if (kept && !first(key, desc, o->prev[kept - 1], id))
			continue;   /* left marked: fresh */
		o->mark[id] = now + 1;
		o->prev[kept++] = id;
	}
	for (int i = 0; i < n; i++)
		if (o->mark[ids[i]] == now)
			o->fresh[nf++] = ids[i];
	if (key_sort(o->fresh, nf, key, desc)) {
		o->nprev = 0;
		return -1;
	}
	int a = 0, b = 0, k = 0;
	while (a < kept && b < nf)
		ids[k++] = first(key, desc, o->fresh[b], o->prev[a]) ? o->fresh[b++] : o->prev[a++];
	while (a < kept)
		ids[k++] = o->prev[a++];
	while (b < nf)
		ids[k++] = o->fresh[b++];
	memcpy(o->prev, ids, (size_t)n * sizeof *ids);
	o->nprev = n;
	return 0;
}

void key_order_free(struct key_order *o)
{
	free(o->prev);
	free(o->fresh);
	free(o->mark);
	memset(o, 0, sizeof *o);
}
