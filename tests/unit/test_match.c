/*
 * Unit tests of the maximum-weight matching solvers (emu/match.h) and
 * the OCS modes built on them (emu/ocs_match.h).  The oracle is
 * exhaustive search on small graphs; larger directed instances check the
 * assignment solver against the blossom solver.
 */
#include "emu/match.h"
#include "emu/ocs_match.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NMAX 14

/* Deterministic PRNG (xorshift64*) so failures are reproducible. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static int64_t rng_below(uint64_t *s, int64_t n)
{
	return (int64_t)(rng_next(s) % (uint64_t)n);
}

/* ---- exhaustive oracle -------------------------------------------- */

struct best {
	int64_t w;      /* best weight */
	int kept;       /* most preferred edges among best-weight matchings */
};

/* Best (weight, kept) over matchings of the vertices not in mask. */
static struct best brute(int n, const int64_t *w, const int *prev, int mask)
{
	int i = 0;
	while (i < n && (mask >> i & 1))
		i++;
	if (i >= n)
		return (struct best){ 0, 0 };
	struct best b = brute(n, w, prev, mask | 1 << i);  /* i unmatched */
	for (int j = i + 1; j < n; j++) {
		int64_t x = w[i * n + j];
		if ((mask >> j & 1) || x <= 0)
			continue;
		struct best c = brute(n, w, prev, mask | 1 << i | 1 << j);
		c.w += x;
		c.kept += prev && prev[i] == j;
		if (c.w > b.w || (c.w == b.w && c.kept > b.kept))
			b = c;
	}
	return b;
}

/* Assert mate is a valid matching of positive edges; return its weight. */
static int64_t check_matching(int n, const int64_t *w, const int *mate)
{
	int64_t sum = 0;
	for (int i = 0; i < n; i++) {
		int j = mate[i];
		if (j < 0) {
			cr_assert_eq(j, -1);
			continue;
		}
		cr_assert(j < n && j != i, "mate[%d] = %d", i, j);
		cr_assert_eq(mate[j], i, "asymmetric mate %d-%d", i, j);
		cr_assert_gt(w[i * n + j], 0, "zero edge %d-%d matched", i, j);
		if (i < j)
			sum += w[i * n + j];
	}
	return sum;
}

static int kept(int n, const int *mate, const int *prev)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += mate[i] > i && prev[i] == mate[i];
	return k;
}

/* Random symmetric matrix in one of several shapes. */
static void random_graph(uint64_t *s, int n, int shape, int64_t *w)
{
	memset(w, 0, sizeof(*w) * n * n);
	int split = n ? (int)rng_below(s, n + 1) : 0;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			int64_t x = 0;
			switch (shape) {
			case 0: /* tiny range: many zeros and ties */
				x = rng_below(s, 3);
				break;
			case 1: /* all equal */
				x = 7;
				break;
			case 2: /* general */
				x = rng_below(s, 100);
				break;
			case 3: /* huge, near 1e15 */
				x = rng_below(s, 3) ? 1000000000000000LL +
						      rng_below(s, 5) : 0;
				break;
			case 4: /* sparse */
				x = rng_below(s, 4) ? 0 : 1 + rng_below(s, 20);
				break;
			case 5: /* two components */
				x = (i < split) == (j < split) ?
					1 + rng_below(s, 50) : 0;
				break;
			}
			w[i * n + j] = w[j * n + i] = x;
		}
}

static void random_prev(uint64_t *s, int n, const int64_t *w, int *prev)
{
	for (int i = 0; i < n; i++)
		prev[i] = -1;
	for (int i = 0; i < n; i++) {
		int j = (int)rng_below(s, n);
		if (j != i && prev[i] < 0 && prev[j] < 0 && (w[i * n + j] ||
							   rng_below(s, 4) == 0)) {
			prev[i] = j;
			prev[j] = i;
		}
	}
}

Test(match, random_small_vs_exhaustive)
{
	uint64_t s = 42;
	int64_t w[NMAX * NMAX];
	int mate[NMAX];
	for (int it = 0; it < 20000; it++) {
		int n = (int)rng_below(&s, 11), shape = it % 6;
		random_graph(&s, n, shape, w);
		int64_t total = -1;
		cr_assert_eq(match_max_weight_dense(n, w, NULL, mate, &total), 0);
		struct best b = brute(n, w, NULL, 0);
		cr_assert_eq(check_matching(n, w, mate), total);
		cr_assert_eq(total, b.w, "it %d n %d shape %d: %lld != %lld",
			     it, n, shape, (long long)total, (long long)b.w);
	}
}

Test(match, tie_break_keeps_previous_random)
{
	uint64_t s = 7;
	int64_t w[NMAX * NMAX];
	int mate[NMAX], prev[NMAX];
	for (int it = 0; it < 10000; it++) {
		int n = 2 + (int)rng_below(&s, 9), shape = it % 3;
		random_graph(&s, n, shape, w);
		random_prev(&s, n, w, prev);
		int64_t total;
		cr_assert_eq(match_max_weight_dense(n, w, prev, mate, &total), 0);
		struct best b = brute(n, w, prev, 0);
		cr_assert_eq(check_matching(n, w, mate), total);
		cr_assert_eq(total, b.w, "it %d", it);
		cr_assert_eq(kept(n, mate, prev), b.kept, "it %d: kept %d of %d",
			     it, kept(n, mate, prev), b.kept);
	}
}

Test(match, tie_break_square)
{
	/* 4-cycle 0-1-2-3-0 with equal weights: two perfect matchings. */
	int64_t w[16] = { 0 };
	int e[4][2] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 0 } };
	for (int k = 0; k < 4; k++)
		w[e[k][0] * 4 + e[k][1]] = w[e[k][1] * 4 + e[k][0]] = 5;
	int a[4] = { 1, 0, 3, 2 }, b[4] = { 3, 2, 1, 0 }, mate[4];
	int64_t total;
	cr_assert_eq(match_max_weight_dense(4, w, a, mate, &total), 0);
	cr_assert_eq(total, 10);
	cr_assert_arr_eq(mate, a, sizeof(a));
	cr_assert_eq(match_max_weight_dense(4, w, b, mate, &total), 0);
	cr_assert_arr_eq(mate, b, sizeof(b));
	/* A previous matching that is worse is not kept. */
	w[0 * 4 + 1] = w[1 * 4 + 0] = 6;
	w[2 * 4 + 3] = w[3 * 4 + 2] = 6;
	cr_assert_eq(match_max_weight_dense(4, w, b, mate, &total), 0);
	cr_assert_eq(total, 12);
	cr_assert_arr_eq(mate, a, sizeof(a));
}

/* Edge lists of hand-made cases, 1-based vertices, expected mates. */
struct hcase {
	const char *name;
	int n;
	int ne;
	int e[13][3];
	int mate[13];   /* 1-based, 0 = unmatched, index 0 unused */
};

static const struct hcase hcases[] = {
	{ "single edge", 3, 1, { { 1, 2, 1 } }, { 0, 2, 1 } },
	{ "triangle+pendant (S-blossom)", 5, 4,
	  { { 1, 2, 8 }, { 1, 3, 9 }, { 2, 3, 10 }, { 3, 4, 7 } },
	  { 0, 2, 1, 4, 3 } },
	{ "S-blossom, augment through it", 7, 6,
	  { { 1, 2, 8 }, { 1, 3, 9 }, { 2, 3, 10 }, { 3, 4, 7 }, { 1, 6, 5 },
	    { 4, 5, 6 } },
	  { 0, 6, 3, 2, 5, 4, 1 } },
	{ "T-blossom", 7, 6,
	  { { 1, 2, 9 }, { 1, 3, 8 }, { 2, 3, 10 }, { 1, 4, 5 }, { 4, 5, 4 },
	    { 1, 6, 3 } },
	  { 0, 6, 3, 2, 5, 4, 1 } },
	{ "nested S-blossom", 7, 7,
	  { { 1, 2, 9 }, { 1, 3, 9 }, { 2, 3, 10 }, { 2, 4, 8 }, { 3, 5, 8 },
	    { 4, 5, 10 }, { 5, 6, 6 } },
	  { 0, 3, 4, 1, 2, 6, 5 } },
	{ "nested S-blossom, relabel", 9, 9,
	  { { 1, 2, 10 }, { 1, 7, 10 }, { 2, 3, 12 }, { 3, 4, 20 }, { 3, 5, 20 },
	    { 4, 5, 25 }, { 5, 6, 10 }, { 6, 7, 10 }, { 7, 8, 8 } },
	  { 0, 2, 1, 4, 3, 6, 5, 8, 7 } },
	{ "nested S-blossom, expand", 9, 10,
	  { { 1, 2, 8 }, { 1, 3, 8 }, { 2, 3, 10 }, { 2, 4, 12 }, { 3, 5, 12 },
	    { 4, 5, 14 }, { 4, 6, 12 }, { 5, 7, 12 }, { 6, 7, 14 },
	    { 7, 8, 12 } },
	  { 0, 2, 1, 5, 6, 3, 4, 8, 7 } },
	{ "S-blossom to T, expand", 9, 8,
	  { { 1, 2, 23 }, { 1, 5, 22 }, { 1, 6, 15 }, { 2, 3, 25 }, { 3, 4, 22 },
	    { 4, 5, 25 }, { 4, 8, 14 }, { 5, 7, 13 } },
	  { 0, 6, 3, 2, 8, 7, 1, 5, 4 } },
	{ "nested S-blossom to T, expand", 9, 9,
	  { { 1, 2, 19 }, { 1, 3, 20 }, { 1, 8, 8 }, { 2, 3, 25 }, { 2, 4, 18 },
	    { 3, 5, 18 }, { 4, 5, 13 }, { 4, 7, 7 }, { 5, 6, 7 } },
	  { 0, 8, 3, 2, 7, 6, 5, 4, 1 } },
	{ "nasty T-blossom expand", 11, 10,
	  { { 1, 2, 45 }, { 1, 5, 45 }, { 2, 3, 50 }, { 3, 4, 45 }, { 4, 5, 50 },
	    { 1, 6, 30 }, { 3, 9, 35 }, { 4, 8, 35 }, { 5, 7, 26 },
	    { 9, 10, 5 } },
	  { 0, 6, 3, 2, 8, 7, 1, 5, 4, 10, 9 } },
	{ "nasty T-blossom expand 2", 11, 10,
	  { { 1, 2, 45 }, { 1, 5, 45 }, { 2, 3, 50 }, { 3, 4, 45 }, { 4, 5, 50 },
	    { 1, 6, 30 }, { 3, 9, 35 }, { 4, 8, 26 }, { 5, 7, 40 },
	    { 9, 10, 5 } },
	  { 0, 6, 3, 2, 8, 7, 1, 5, 4, 10, 9 } },
	{ "T-blossom expand, least slack", 11, 10,
	  { { 1, 2, 45 }, { 1, 5, 45 }, { 2, 3, 50 }, { 3, 4, 45 }, { 4, 5, 50 },
	    { 1, 6, 30 }, { 3, 9, 35 }, { 4, 8, 28 }, { 5, 7, 26 },
	    { 9, 10, 5 } },
	  { 0, 6, 3, 2, 8, 7, 1, 5, 4, 10, 9 } },
	{ "nested T-blossom, nasty expand", 13, 13,
	  { { 1, 2, 45 }, { 1, 7, 45 }, { 2, 3, 50 }, { 3, 4, 45 }, { 4, 5, 95 },
	    { 4, 6, 94 }, { 5, 6, 94 }, { 6, 7, 50 }, { 1, 8, 30 },
	    { 3, 11, 35 }, { 5, 9, 36 }, { 7, 10, 26 }, { 11, 12, 5 } },
	  { 0, 8, 3, 2, 6, 9, 4, 10, 1, 5, 7, 12, 11 } },
	{ "nested blossom, relabel and expand", 11, 11,
	  { { 1, 2, 40 }, { 1, 3, 40 }, { 2, 3, 60 }, { 2, 4, 55 }, { 3, 5, 55 },
	    { 4, 5, 50 }, { 1, 8, 15 }, { 5, 7, 30 }, { 7, 6, 10 },
	    { 8, 10, 10 }, { 4, 9, 30 } },
	  { 0, 2, 1, 5, 9, 3, 7, 6, 10, 4, 8 } },
};

Test(match, hand_made_blossoms)
{
	for (size_t c = 0; c < sizeof(hcases) / sizeof(hcases[0]); c++) {
		const struct hcase *h = &hcases[c];
		int n = h->n;
		struct match_edge e[13];
		int64_t w[NMAX * NMAX] = { 0 };
		for (int k = 0; k < h->ne; k++) {
			e[k] = (struct match_edge){ h->e[k][0], h->e[k][1],
						    h->e[k][2] };
			w[e[k].u * n + e[k].v] = w[e[k].v * n + e[k].u] = e[k].w;
		}
		int mate[NMAX];
		int64_t total;
		cr_assert_eq(match_max_weight(n, e, (size_t)h->ne, NULL, mate,
					      &total), 0, "%s", h->name);
		cr_assert_eq(check_matching(n, w, mate), total, "%s", h->name);
		cr_assert_eq(total, brute(n, w, NULL, 0).w, "%s", h->name);
		for (int v = 1; v < n; v++)
			cr_assert_eq(mate[v], h->mate[v] ? h->mate[v] : -1,
				     "%s: mate[%d] = %d", h->name, v, mate[v]);
		cr_assert_eq(mate[0], -1);
	}
}

Test(match, odd_cycles)
{
	/* Odd cycles C3..C13 with unit weights: floor(n/2) edges. */
	for (int n = 3; n <= 13; n += 2) {
		int64_t w[NMAX * NMAX] = { 0 };
		for (int i = 0; i < n; i++) {
			int j = (i + 1) % n;
			w[i * n + j] = w[j * n + i] = 1;
		}
		int mate[NMAX];
		int64_t total;
		cr_assert_eq(match_max_weight_dense(n, w, NULL, mate, &total), 0);
		cr_assert_eq(total, n / 2);
		cr_assert_eq(check_matching(n, w, mate), total);
	}
	/* Two triangles joined by a heavy path (blossom inside a blossom
	 * after relabelling): exhaustive check. */
	int n = 8;
	int64_t w[64] = { 0 };
	int e[][3] = { { 0, 1, 6 }, { 1, 2, 6 }, { 2, 0, 6 }, { 2, 3, 5 },
		       { 3, 4, 5 }, { 4, 5, 6 }, { 5, 6, 6 }, { 6, 4, 6 },
		       { 6, 7, 1 } };
	for (size_t k = 0; k < sizeof(e) / sizeof(e[0]); k++)
		w[e[k][0] * n + e[k][1]] = w[e[k][1] * n + e[k][0]] = e[k][2];
	int mate[8];
	int64_t total;
	cr_assert_eq(match_max_weight_dense(n, w, NULL, mate, &total), 0);
	cr_assert_eq(total, brute(n, w, NULL, 0).w);
	cr_assert_eq(total, 18);
}

Test(match, larger_graphs_permutation_invariant)
{
	/* No exhaustive oracle beyond n ~ 14: check that relabelling the
	 * vertices of blossom-rich graphs (n up to 80) keeps the optimum. */
	uint64_t s = 31337;
	enum { N = 80 };
	int64_t *w = malloc(sizeof(*w) * N * N), *pw = malloc(sizeof(*pw) * N * N);
	int mate[N], pmate[N], perm[N];
	for (int it = 0; it < 60; it++) {
		int n = 20 + (int)rng_below(&s, N - 19);
		random_graph(&s, n, it % 6, w);
		for (int i = 0; i < n; i++)
			perm[i] = i;
		for (int i = n - 1; i > 0; i--) {
			int j = (int)rng_below(&s, i + 1), t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				pw[perm[i] * n + perm[j]] = w[i * n + j];
		int64_t t1, t2;
		cr_assert_eq(match_max_weight_dense(n, w, NULL, mate, &t1), 0);
		cr_assert_eq(match_max_weight_dense(n, pw, NULL, pmate, &t2), 0);
		cr_assert_eq(check_matching(n, w, mate), t1);
		cr_assert_eq(check_matching(n, pw, pmate), t2);
		cr_assert_eq(t1, t2, "it %d n %d", it, n);
		/* keeping the permuted optimum as prev reproduces it */
		int back[N];
		for (int i = 0; i < n; i++)
			back[i] = pmate[perm[i]] < 0 ? -1 : -2;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (pmate[perm[i]] == perm[j])
					back[i] = j;
		cr_assert_eq(match_max_weight_dense(n, w, back, mate, &t1), 0);
		cr_assert_eq(t1, t2);
		cr_assert_arr_eq(mate, back, sizeof(int) * n, "it %d", it);
	}
	free(w);
	free(pw);
}

Test(match, max_weight_not_max_cardinality)
{
	/* Path a-b-c-d, middle edge heavy: one edge beats two. */
	struct match_edge e[] = { { 0, 1, 3 }, { 1, 2, 10 }, { 2, 3, 3 } };
	int mate[4];
	int64_t total;
	cr_assert_eq(match_max_weight(4, e, 3, NULL, mate, &total), 0);
	cr_assert_eq(total, 10);
	cr_assert_eq(mate[0], -1);
	cr_assert_eq(mate[1], 2);
	cr_assert_eq(mate[3], -1);
}

Test(match, api_edges_and_errors)
{
	int mate[4];
	int64_t total;
	/* parallel edges keep the largest weight, zero edges are ignored */
	struct match_edge e[] = { { 0, 1, 3 }, { 1, 0, 9 }, { 2, 3, 0 } };
	cr_assert_eq(match_max_weight(4, e, 3, NULL, mate, &total), 0);
	cr_assert_eq(total, 9);
	cr_assert_eq(mate[2], -1);
	cr_assert_eq(mate[3], -1);
	struct match_edge loop[] = { { 1, 1, 3 } };
	cr_assert_eq(match_max_weight(4, loop, 1, NULL, mate, &total), -EINVAL);
	struct match_edge range[] = { { 0, 4, 3 } };
	cr_assert_eq(match_max_weight(4, range, 1, NULL, mate, &total), -EINVAL);
	struct match_edge neg[] = { { 0, 1, -3 } };
	cr_assert_eq(match_max_weight(4, neg, 1, NULL, mate, &total), -EINVAL);
	cr_assert_eq(match_max_weight(0, NULL, 0, NULL, mate, &total), 0);
	cr_assert_eq(total, 0);
	cr_assert_eq(match_max_weight(1, NULL, 0, NULL, mate, &total), 0);
	cr_assert_eq(mate[0], -1);
}

Test(match, overflow_guard)
{
	int64_t big = INT64_MAX / 4 - 1;
	int64_t w[16] = { 0 };
	w[0 * 4 + 1] = w[1 * 4 + 0] = big;
	w[2 * 4 + 3] = w[3 * 4 + 2] = 1;
	int mate[4], prev[4] = { 1, 0, -1, -1 };
	int64_t total;
	/* Without tie-breaking the bound is W <= INT64_MAX/4 - 1 ... */
	cr_assert_eq(match_max_weight_dense(4, w, NULL, mate, &total), 0);
	cr_assert_eq(total, big + 1);
	/* ... with it, W * (n/2 + 1) + 1 must fit as well. */
	cr_assert_eq(match_max_weight_dense(4, w, prev, mate, &total), -ERANGE);
	w[0 * 4 + 1] = w[1 * 4 + 0] = INT64_MAX / 4;
	cr_assert_eq(match_max_weight_dense(4, w, NULL, mate, &total), -ERANGE);
	/* 1e15 bytes with 1000 racks is inside the documented bound. */
	cr_assert_leq(1000000000000000LL, (INT64_MAX / 4 - 1) / match_tie_factor(2000));
}

/* ---- OCS modes ---------------------------------------------------- */

/* Best directed assignment by DP over receiver subsets (r <= 10). */
static int64_t brute_directed(int r, const int64_t *d)
{
	int64_t *f = calloc((size_t)1 << r, sizeof(*f));
	int64_t best = 0;
	/* f[mask]: best using senders 0..popcount-1 ... simpler: iterate
	 * senders in order, each either idle or takes a free receiver. */
	for (int mask = 0; mask < 1 << r; mask++)
		f[mask] = -1;
	f[0] = 0;
	int64_t *g = calloc((size_t)1 << r, sizeof(*g));
	for (int i = 0; i < r; i++) {
		for (int mask = 0; mask < 1 << r; mask++)
			g[mask] = f[mask];
		for (int mask = 0; mask < 1 << r; mask++) {
			if (f[mask] < 0)
				continue;
			for (int j = 0; j < r; j++) {
				int64_t x = d[i * r + j];
				if (j == i || x <= 0 || (mask >> j & 1))
					continue;
				if (f[mask] + x > g[mask | 1 << j])
					g[mask | 1 << j] = f[mask] + x;
			}
		}
		memcpy(f, g, sizeof(*f) << r);
	}
	for (int mask = 0; mask < 1 << r; mask++)
		if (f[mask] > best)
			best = f[mask];
	free(f);
	free(g);
	return best;
}

/* Assert out is a valid directed configuration; return served demand. */
static int64_t check_directed(int r, const int64_t *d, const int *out)
{
	int seen[64] = { 0 };
	int64_t sum = 0;
	for (int i = 0; i < r; i++) {
		int j = out[i];
		if (j < 0)
			continue;
		cr_assert(j < r && j != i, "out[%d] = %d", i, j);
		cr_assert_eq(seen[j]++, 0, "receiver %d used twice", j);
		cr_assert_gt(d[i * r + j], 0, "circuit %d>%d has no demand", i, j);
		sum += d[i * r + j];
	}
	return sum;
}

static void random_demand(uint64_t *s, int r, int shape, int64_t *d)
{
	for (int i = 0; i < r; i++)
		for (int j = 0; j < r; j++) {
			int64_t x;
			switch (shape) {
			case 0: x = rng_below(s, 3); break;
			case 1: x = rng_below(s, 1000); break;
			case 2: x = 1000000000000000LL - rng_below(s, 1000); break;
			default: x = rng_below(s, 5) ? 0 : 1 + rng_below(s, 100);
			}
			d[i * r + j] = i == j ? 0 : x;
		}
}

Test(ocs, directed_small_vs_exhaustive)
{
	uint64_t s = 99;
	int64_t d[100];
	int out[10], out2[10];
	for (int it = 0; it < 5000; it++) {
		int r = (int)rng_below(&s, 9), shape = it % 4;
		random_demand(&s, r, shape, d);
		int64_t t1, t2, best = brute_directed(r, d);
		cr_assert_eq(ocs_match_directed(r, d, NULL, out, &t1), 0);
		cr_assert_eq(ocs_match_directed_blossom(r, d, NULL, out2, &t2), 0);
		cr_assert_eq(check_directed(r, d, out), t1);
		cr_assert_eq(check_directed(r, d, out2), t2);
		cr_assert_eq(t1, best, "it %d r %d", it, r);
		cr_assert_eq(t2, best, "it %d r %d", it, r);
	}
}

Test(ocs, directed_assignment_equals_blossom)
{
	uint64_t s = 5;
	int64_t *d = malloc(60 * 60 * sizeof(*d));
	int out[60], out2[60], prev[60];
	for (int it = 0; it < 300; it++) {
		int r = 2 + (int)rng_below(&s, 59), shape = it % 4;
		random_demand(&s, r, shape, d);
		int64_t t1, t2;
		cr_assert_eq(ocs_match_directed(r, d, NULL, out, &t1), 0);
		cr_assert_eq(ocs_match_directed_blossom(r, d, NULL, out2, &t2), 0);
		cr_assert_eq(check_directed(r, d, out), t1);
		cr_assert_eq(check_directed(r, d, out2), t2);
		cr_assert_eq(t1, t2, "it %d r %d: %lld != %lld", it, r,
			     (long long)t1, (long long)t2);

		/* With a random previous configuration both keep the same
		 * (maximal) number of lit circuits. */
		for (int i = 0; i < r; i++)
			prev[i] = -1;
		for (int i = 0; i < r; i++) {
			int j = (int)rng_below(&s, r);
			int used = 0;
			for (int k = 0; k < i; k++)
				used |= prev[k] == j;
			if (!used && j != i)
				prev[i] = j;
		}
		cr_assert_eq(ocs_match_directed(r, d, prev, out, &t1), 0);
		cr_assert_eq(ocs_match_directed_blossom(r, d, prev, out2, &t2), 0);
		cr_assert_eq(t1, t2);
		int k1 = 0, k2 = 0;
		for (int i = 0; i < r; i++) {
			k1 += out[i] >= 0 && out[i] == prev[i];
			k2 += out2[i] >= 0 && out2[i] == prev[i];
		}
		cr_assert_eq(k1, k2, "it %d: kept %d vs %d", it, k1, k2);
	}
	free(d);
}

Test(ocs, directed_keeps_lit_circuits)
{
	/* Uniform demand: every permutation without fixed points is optimal,
	 * so the previous one must be kept exactly. */
	enum { R = 8 };
	int64_t d[R * R];
	for (int i = 0; i < R * R; i++)
		d[i] = i / R == i % R ? 0 : 100;
	int prev[R] = { 3, 5, 0, 7, 6, 1, 2, 4 }, out[R];
	int64_t t;
	cr_assert_eq(ocs_match_directed(R, d, prev, out, &t), 0);
	cr_assert_eq(t, 100 * R);
	cr_assert_arr_eq(out, prev, sizeof(prev));
	cr_assert_eq(ocs_match_directed_blossom(R, d, prev, out, &t), 0);
	cr_assert_arr_eq(out, prev, sizeof(prev));
	/* Strictly more demand elsewhere wins over keeping a circuit. */
	d[0 * R + 1] = 101;
	d[5 * R + 3] = 101;
	cr_assert_eq(ocs_match_directed(R, d, prev, out, &t), 0);
	cr_assert_eq(t, 100 * R + 2);
	cr_assert_eq(out[0], 1);
	cr_assert_eq(out[5], 3);
	/* Zero demand rows are dark. */
	int64_t z[9] = { 0, 5, 0, 0, 0, 0, 0, 0, 0 };
	cr_assert_eq(ocs_match_directed(3, z, NULL, out, &t), 0);
	cr_assert_eq(t, 5);
	cr_assert_eq(out[0], 1);
	cr_assert_eq(out[1], -1);
	cr_assert_eq(out[2], -1);
}

Test(ocs, bidir_small_vs_exhaustive)
{
	uint64_t s = 11;
	int64_t d[100], w[100];
	int mate[10];
	for (int it = 0; it < 3000; it++) {
		int r = (int)rng_below(&s, 10);
		random_demand(&s, r, it % 4, d);
		for (int i = 0; i < r; i++)
			for (int j = 0; j < r; j++)
				w[i * r + j] = i == j ? 0 : d[i * r + j] + d[j * r + i];
		int64_t t;
		cr_assert_eq(ocs_match_bidir(r, d, NULL, mate, &t), 0);
		cr_assert_eq(check_matching(r, w, mate), t);
		cr_assert_eq(t, brute(r, w, NULL, 0).w, "it %d", it);
	}
}

Test(ocs, kport_hand_made)
{
	/* 4 racks, 2 ports; directed demand. */
	enum { R = 4, K = 2 };
	int64_t d[R * R] = {
		0, 10, 8, 1,
		9, 0, 1, 1,
		7, 1, 0, 6,
		1, 5, 4, 0,
	};
	int out[K * R];
	int64_t t;
	cr_assert_eq(ocs_match_kport(OCS_DIRECTED_MODE, R, K, d, NULL, out, &t), 0);
	/* Round 1: 0>1 (10) 1>0 (9) 2>3 (6) 3>2 (4) = 29.
	 * Round 2 without those pairs: 0>2 (8) 2>0 (7) 1>3 (1) 3>1 (5) = 21. */
	int r1[R] = { 1, 0, 3, 2 }, r2[R] = { 2, 3, 0, 1 };
	cr_assert_arr_eq(out, r1, sizeof(r1));
	cr_assert_arr_eq(out + R, r2, sizeof(r2));
	cr_assert_eq(t, 50);

	/* Bidirectional: w(0,1)=19 w(0,2)=15 w(2,3)=10 w(1,3)=6 w(0,3)=2
	 * w(1,2)=2.  Round 1: {0,1},{2,3} = 29; round 2: {0,2},{1,3} = 21. */
	cr_assert_eq(ocs_match_kport(OCS_BIDIR, R, K, d, NULL, out, &t), 0);
	cr_assert_arr_eq(out, r1, sizeof(r1));
	int b2[R] = { 2, 3, 0, 1 };
	cr_assert_arr_eq(out + R, b2, sizeof(b2));
	cr_assert_eq(t, 50);

	/* k = 1 is the plain solver. */
	int one[R];
	int64_t t1;
	cr_assert_eq(ocs_match_kport(OCS_DIRECTED_MODE, R, 1, d, NULL, out, &t), 0);
	cr_assert_eq(ocs_match_directed(R, d, NULL, one, &t1), 0);
	cr_assert_eq(t, t1);
	cr_assert_arr_eq(out, one, sizeof(one));
}

Test(ocs, kport_random_rounds)
{
	uint64_t s = 1234;
	enum { RM = 12, K = 3 };
	int64_t d[RM * RM], rem[RM * RM];
	int out[K * RM], one[RM], prev[K * RM];
	for (int it = 0; it < 1000; it++) {
		int r = 2 + (int)rng_below(&s, RM - 1);
		enum ocs_match_mode mode = it % 2 ? OCS_BIDIR : OCS_DIRECTED_MODE;
		random_demand(&s, r, it % 4, d);
		int usep = it % 3 == 0;
		/* any values are accepted: they only mark preferred pairs */
		if (usep)
			for (int t = 0; t < K * r; t++)
				prev[t] = (int)rng_below(&s, r + 1) - 1;
		int64_t total;
		cr_assert_eq(ocs_match_kport(mode, r, K, d, usep ? prev : NULL,
					     out, &total), 0);
		/* Each round must be optimal on the remaining demand and use
		 * no pair twice. */
		memcpy(rem, d, sizeof(*d) * r * r);
		int64_t sum = 0;
		for (int t = 0; t < K; t++) {
			const int *o = out + t * r;
			int64_t opt;
			if (mode == OCS_DIRECTED_MODE) {
				cr_assert_eq(ocs_match_directed(r, rem, NULL, one, &opt), 0);
				sum += check_directed(r, rem, o);
			} else {
				int64_t w[RM * RM];
				for (int i = 0; i < r; i++)
					for (int j = 0; j < r; j++)
						w[i * r + j] = i == j ? 0 :
							rem[i * r + j] + rem[j * r + i];
				cr_assert_eq(ocs_match_bidir(r, rem, NULL, one, &opt), 0);
				cr_assert_eq(check_matching(r, w, o), opt);
				int64_t served = 0;
				for (int i = 0; i < r; i++)
					if (o[i] > i)
						served += w[i * r + o[i]];
				sum += served;
			}
			int64_t got = 0;
			for (int i = 0; i < r; i++) {
				int j = o[i];
				if (j < 0)
					continue;
				got += mode == OCS_DIRECTED_MODE ? rem[i * r + j] :
				       (i < j ? rem[i * r + j] + rem[j * r + i] : 0);
			}
			cr_assert_eq(got, opt, "it %d round %d", it, t);
			for (int i = 0; i < r; i++) {
				int j = o[i];
				if (j < 0)
					continue;
				rem[i * r + j] = 0;
				if (mode == OCS_BIDIR)
					rem[j * r + i] = 0;
			}
		}
		cr_assert_eq(total, sum, "it %d", it);
	}
}

Test(ocs, kport_keeps_lit_circuits)
{
	/* Uniform demand, 2 ports: the previous two rounds are kept (as a
	 * set of lit pairs; the port order may change). */
	enum { R = 6, K = 2 };
	int64_t d[R * R];
	for (int i = 0; i < R * R; i++)
		d[i] = i / R == i % R ? 0 : 3;
	int prev[K * R] = { 1, 2, 3, 4, 5, 0,
			    2, 3, 4, 5, 0, 1 };
	int out[K * R];
	int64_t t;
	cr_assert_eq(ocs_match_kport(OCS_DIRECTED_MODE, R, K, d, prev, out, &t), 0);
	cr_assert_eq(t, 3 * R * K);
	for (int i = 0; i < R; i++) {
		int a = out[i], b = out[R + i];
		cr_assert((a == prev[i] && b == prev[R + i]) ||
			  (a == prev[R + i] && b == prev[i]),
			  "rack %d: %d,%d", i, a, b);
	}
}

Test(ocs, errors)
{
	int64_t d[4] = { 0, -1, 2, 0 };
	int out[4];
	int64_t t;
	cr_assert_eq(ocs_match_directed(2, d, NULL, out, &t), -EINVAL);
	cr_assert_eq(ocs_match_directed_blossom(2, d, NULL, out, &t), -EINVAL);
	cr_assert_eq(ocs_match_bidir(2, d, NULL, out, &t), -EINVAL);
	cr_assert_eq(ocs_match_kport(OCS_DIRECTED_MODE, 2, 2, d, NULL, out, &t), -EINVAL);
	int64_t big[4] = { 0, INT64_MAX / 4, 1, 0 };
	int prev[2] = { 1, 0 };
	cr_assert_eq(ocs_match_directed(2, big, prev, out, &t), -ERANGE);
	cr_assert_eq(ocs_match_directed(0, NULL, NULL, NULL, &t), 0);
	cr_assert_eq(t, 0);
}
