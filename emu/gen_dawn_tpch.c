/* gen_dawn_tpch.c — Dawn's queries workload (seed 000 §IV): the 22 TPC-H
 * queries at scale factor 50, on Hive-on-MapReduce (dawn-tpch: a tree of
 * MapReduce jobs per query, each reading its children's output) and on
 * Tez (dawn-tez: the same query as one job of stages).
 *
 * From the paper: 22 queries, 50 GB, "on average 6 jobs" per query on
 * MapReduce, one multi-stage Tez job per query, arrivals uniform over 25
 * minutes.  Assumed, after the notes (shared/notes/000_dawn.md §4.2):
 *   - Table sizes at SF 50 from dbgen's ratios, in 10^9 bytes: lineitem 37,
 *     orders 8.3, partsupp 5.8, part 1.2, customer 1.2, supplier 0.07,
 *     nation 2224 B and region 389 B (not scaled); all but nation and
 *     region scale with sf / 50.
 *   - Each query's tables are TPC-H's (lineitem three times in Q21).
 *     Supplier, nation and region are small: Hive map-joins them, so they
 *     are base input of the query's first join (or its scan), not scans.
 *   - The MapReduce tree: a scan job per large table (filters to a
 *     fraction s ~ U[0.05, 0.5] of it, shuffled and written), left-deep
 *     join jobs (each reads the previous join and the next scan, shuffles
 *     all it reads, writes u ~ U[0.1, 0.5] of it), a group-by (shuffles a
 *     tenth, writes g ~ U[0.001, 0.05]), for the queries with a scalar
 *     subquery (Q2, Q11, Q15, Q17, Q20, Q22) a job computing it (1 KiB), and
 *     an ORDER BY job of one reduce: 2b + 1 (+ 1) jobs for b large tables,
 *     132 jobs, a mean of 6.0 per query.
 *   - Tez: the one root stage scans every table of the query (emu's stages
 *     have one root), joins follow over shuffles with the same outputs,
 *     then the group-by; a scalar subquery is a one-task stage broadcast to
 *     a filter stage reading the group-by one-to-one; a one-task sort ends
 *     it.  Later stages have emu's reduce count for the bytes they read.
 *   - --jobs N > 22 repeats the 22 (the notes: back-to-back batches), each
 *     round in a seeded order; queries arrive at sorted uniform times in
 *     [0, window], every job of a query at the query's time. */
#include "emu/gen_int.h"
#include <stdlib.h>
#include <string.h>

enum { K_WINDOW, K_SF };
enum { ST_ORDER = 1, ST_ARRIVALS, ST_PLAN };

#define MAX_BIG 4

/* Large tables: l lineitem, o orders, s partsupp, p part, c customer;
 * small ones: S supplier, N nation, R region. */
static const struct query {
	const char *big, *small;
	bool scalar_sub;
} queries[22] = {
	{"l", "", 0},     {"ps", "SNR", 1}, {"col", "", 0},   {"ol", "", 0},     {"col", "SNR", 0},
	{"l", "", 0},     {"loc", "SN", 0}, {"ploc", "SNR", 0}, {"pslo", "SN", 0}, {"col", "N", 0},
	{"s", "SN", 1},   {"ol", "", 0},    {"co", "", 0},    {"lp", "", 0},     {"l", "S", 1},
	{"sp", "S", 0},   {"lp", "", 1},    {"col", "", 0},   {"lp", "", 0},     {"spl", "SN", 1},
	{"loll", "SN", 0}, {"co", "", 1},
};

static uint64_t table_bytes(char t, double sf)
{
	double gb = t == 'l' ? 37 : t == 'o' ? 8.3 : t == 's' ? 5.8 : t == 'p' || t == 'c' ? 1.2 : 0.07;
	return t == 'N' ? 2224 : t == 'R' ? 389 : (uint64_t)(gb * 1e9 * sf / 50);
}

/* One query's sizes, drawn once for both variants. */
struct plan {
	char name[16];
	int q, b;                   /* TPC-H query index, large tables */
	double submit;
	uint64_t table[MAX_BIG], scan[MAX_BIG], small;   /* read, kept after filtering, map-joined */
	uint64_t join_in[MAX_BIG], join[MAX_BIG];        /* join k (1..b-1) reads and writes */
	uint64_t agg_in, agg;
};

static void draw_plan(struct rng *r, int q, double sf, struct plan *pl)
{
	const struct query *qy = &queries[q];
	pl->q = q;
	pl->b = (int)strlen(qy->big);
	pl->small = 0;
	for (const char *t = qy->small; *t; t++)
		pl->small += table_bytes(*t, sf);
	for (int i = 0; i < pl->b; i++) {
		pl->table[i] = table_bytes(qy->big[i], sf);
		pl->scan[i] = (uint64_t)(gen_uniform(r, 0.05, 0.5) * (double)pl->table[i]);
	}
	uint64_t last = pl->scan[0];
	for (int k = 1; k < pl->b; k++) {
		pl->join_in[k] = last + pl->scan[k] + (k == 1 ? pl->small : 0);
		pl->join[k] = last = (uint64_t)(gen_uniform(r, 0.1, 0.5) * (double)pl->join_in[k]);
	}
	pl->agg_in = last;
	pl->agg = (uint64_t)(gen_uniform(r, 0.001, 0.05) * (double)pl->agg_in);
}

static struct job_spec *mr_job(struct specs *a, const struct plan *pl, const char *what, int k, uint64_t base,
			       uint64_t shuffle, uint64_t output)
{
	struct job_spec *s = k ? gen_job(a, "%s.%s%d", pl->name, what, k) : gen_job(a, "%s.%s", pl->name, what);
	if (s) {
		s->submit = pl->submit;
		s->input = base;
		s->shuffle = shuffle;
		s->output = output;
	}
	return s;
}

/* The MapReduce tree: scans, left-deep joins, group-by, subquery, order by. */
static int emit_mr(struct specs *a, const struct plan *pl)
{
	int scan0 = a->n, prev = scan0;
	struct job_spec *s;
	for (int i = 0; i < pl->b; i++)
		if (!mr_job(a, pl, "scan", i + 1, pl->table[i] + (pl->b == 1 ? pl->small : 0), pl->scan[i], pl->scan[i]))
			return -1;
	for (int k = 1; k < pl->b; k++) {
		if (!(s = mr_job(a, pl, "join", k, k == 1 ? pl->small : 0, pl->join_in[k], pl->join[k])))
			return -1;
		gen_dep(s, prev);
		gen_dep(s, scan0 + k);
		prev = a->n - 1;
	}
	if (!(s = mr_job(a, pl, "groupby", 0, 0, pl->agg_in / 10, pl->agg)))
		return -1;
	gen_dep(s, prev);
	int agg = a->n - 1;
	if (queries[pl->q].scalar_sub) {
		if (!(s = mr_job(a, pl, "subquery", 0, 0, 1024, 1024)))
			return -1;
		gen_dep(s, agg);
	}
	if (!(s = mr_job(a, pl, "orderby", 0, 0, pl->agg, pl->agg)))
		return -1;
	s->nreduces = 1;
	gen_dep(s, agg);
	if (queries[pl->q].scalar_sub)
		gen_dep(s, agg + 1);
	return 0;
}

/* The Tez DAG: one job, the same sizes. */
static int emit_tez(struct specs *a, const struct plan *pl, const struct workload_params *p)
{
	struct job_spec *s = gen_job(a, "%s", pl->name);
	if (!s)
		return -1;
	s->submit = pl->submit;
	uint64_t scanned = 0;
	for (int i = 0; i < pl->b; i++) {
		s->input += pl->table[i];
		scanned += pl->scan[i];
	}
	s->input += pl->small;
	gen_stage(s, "scan", gen_blocks(s->input, p), scanned + pl->small);
	int last = 0;           /* the stage the next one reads */
	char name[16];
	for (int k = 1; k < pl->b; k++, last++) {
		snprintf(name, sizeof name, "join%d", k);
		gen_edge(gen_stage(s, name, gen_reduces(pl->join_in[k], p), pl->join[k]), last, EDGE_SHUFFLE);
	}
	struct stage_spec *agg = gen_stage(s, "groupby", gen_reduces(pl->agg_in, p), pl->agg);
	gen_edge(agg, last++, EDGE_SHUFFLE);
	if (queries[pl->q].scalar_sub) {
		gen_edge(gen_stage(s, "subquery", 1, 1024), last, EDGE_SHUFFLE);
		struct stage_spec *f = gen_stage(s, "filter", agg->tasks, pl->agg);
		gen_edge(f, last, EDGE_ONE_TO_ONE);
		gen_edge(f, last + 1, EDGE_BROADCAST);
		last += 2;
	}
	gen_edge(gen_stage(s, "orderby", 1, pl->agg), last, EDGE_SHUFFLE);
	return 0;
}

static int tpch(struct workload *w, const struct gen_ctx *g, bool tez, char *err)
{
	struct specs a = {0};
	struct rng ro = gen_rng(g->seed, ST_ORDER), ra = gen_rng(g->seed, ST_ARRIVALS), rp = gen_rng(g->seed, ST_PLAN);
	int order[22];
	double *t = malloc((size_t)g->njobs * sizeof *t);
	if (!t)
		return gen_oom(&a, g, err);
	gen_uniform_times(&ra, t, g->njobs, g->key[K_WINDOW]);
	for (int i = 0; i < g->njobs; i++) {
		if (i % 22 == 0)
			gen_permute(&ro, order, 22);
		struct plan pl = {.submit = t[i]};
		draw_plan(&rp, order[i % 22], g->key[K_SF], &pl);
		if (i < 22)
			snprintf(pl.name, sizeof pl.name, "Q%d", pl.q + 1);
		else
			snprintf(pl.name, sizeof pl.name, "Q%d#%d", pl.q + 1, i / 22 + 1);
		if (tez ? emit_tez(&a, &pl, g->p) : emit_mr(&a, &pl)) {
			free(t);
			return gen_oom(&a, g, err);
		}
	}
	free(t);
	return gen_build(w, &a, g, err);
}

int gen_dawn_tpch(struct workload *w, const struct gen_ctx *g, char *err)
{
	return tpch(w, g, false, err);
}

int gen_dawn_tez(struct workload *w, const struct gen_ctx *g, char *err)
{
	return tpch(w, g, true, err);
}
