/* gen_dawn_ml.c — Dawn's ML workload (seed 000, Table I): chains of
 * MapReduce jobs from HiBench's K-means, Bayes and PageRank, each job
 * reading its parent's output (lineage).
 *
 * From the paper: the benchmarks and their input sizes, B1..B9 (Table I),
 * "on average 11 jobs" per benchmark, exponential inter-arrival times of
 * benchmarks.  Everything else is assumed, after the notes
 * (shared/notes/000_dawn.md §4.1):
 *   - Table I's GB are GiB: with 128 MiB blocks that gives the notes' map
 *     counts (K-means 148/300/600, Bayes 279/423/560, PageRank 260/413/519).
 *   - Chain i is benchmark order[i mod 9], order a seeded permutation of
 *     B1..B9 drawn anew every nine chains (the notes: uniform over the 9);
 *     chains arrive Poisson, mean gap `gap` (300 s; the paper gives none),
 *     and every job of a chain is submitted with it (its deps hold it).
 *   - K-means (Mahout, 10 iterations + clustering = 11 jobs): iteration i
 *     reads the samples (the base input, re-read every iteration) and
 *     iteration i-1's centroids (1 MiB); its combiner shuffles 1 MiB per
 *     map; clustering is map-only and writes the samples' size.
 *   - Bayes (seq2sparse + trainnb, 11 jobs): a chain where each job reads
 *     the previous one's output; tf-idf also reads the document
 *     frequencies and trainnb's weights the tf-idf vectors (two parents).
 *     Shuffle and output are fixed ratios of a job's input (table below).
 *   - PageRank (Pegasus, init + 4 iterations of two jobs + min-max +
 *     histogram = 11 jobs): the rank vector is a tenth of the edges; every
 *     iteration's first job joins the edges (base input, re-read) with the
 *     previous rank vector.
 *   - Reduces by emu's rule (bytes per reduce); work derived from bytes. */
#include "emu/gen_int.h"
#include <stdlib.h>

enum { K_GAP, K_BENCH, K_ITERS, K_PR_ITERS };
enum { ST_ORDER = 1, ST_ARRIVALS };

static const struct bench {
	const char *label, *kind;
	double gib;
} table1[9] = {
	{"B1", "kmeans", 18.5}, {"B2", "kmeans", 37.5}, {"B3", "kmeans", 75},
	{"B4", "bayes", 34.8}, {"B5", "bayes", 52.8}, {"B6", "bayes", 69.9},
	{"B7", "pagerank", 32.4}, {"B8", "pagerank", 51.6}, {"B9", "pagerank", 64.8},
};

/* A chain being written: its jobs' indexes and outputs, to name parents. */
struct chain {
	struct specs *a;
	const struct workload_params *p;
	char prefix[16];
	double submit;
	int first;              /* its first job in a->v */
	uint64_t out[128];      /* unscaled output of its k-th job (keys cap a chain at 103) */
};

/* Job k of the chain: reads its parents' outputs (chain-relative indexes,
 * the first its parent) and base bytes; shuffle and output as given.
 * map_only: one stage writing `output`, no reduce.  -1 out of memory. */
static int ml_job(struct chain *c, const char *name, const int *parents, int np, uint64_t base, uint64_t shuffle,
		  uint64_t output, bool map_only)
{
	int k = c->a->n - c->first;
	struct job_spec *s = gen_job(c->a, "%s.%s", c->prefix, name);
	if (!s)
		return -1;
	s->submit = c->submit;
	s->input = base;
	uint64_t in = base;
	for (int i = 0; i < np; i++) {
		gen_dep(s, c->first + parents[i]);
		in += c->out[parents[i]];
	}
	if (map_only) {
		gen_stage(s, "map", gen_blocks(in, c->p), output);
	} else {
		s->shuffle = shuffle;
		s->output = output;
	}
	c->out[k] = output;
	return 0;
}

/* A job reading the previous one's output, shuffle and output as ratios of what it reads. */
static int ml_next(struct chain *c, const char *name, double sh, double out)
{
	int k = c->a->n - c->first, prev = k - 1;
	uint64_t in = c->out[prev];
	return ml_job(c, name, &prev, 1, 0, (uint64_t)(sh * (double)in), (uint64_t)(out * (double)in), false);
}

static int kmeans(struct chain *c, uint64_t samples, int iters)
{
	uint64_t centroids = MiB, partial = (uint64_t)gen_blocks(samples, c->p) * MiB;
	char name[24];
	for (int i = 0; i < iters; i++) {
		int prev = i - 1;
		snprintf(name, sizeof name, "iter%d", i + 1);
		if (ml_job(c, name, &prev, i > 0, samples, partial, centroids, false))
			return -1;
	}
	int last = iters - 1;
	return ml_job(c, "clustering", &last, 1, samples, 0, samples, true);
}

static int bayes(struct chain *c, uint64_t docs)
{
	/* seq2sparse's jobs, then trainnb's: shuffle and output per byte read. */
	static const struct {
		const char *name;
		double sh, out;
		int also;       /* a second parent, chain-relative, or -1 */
	} jobs[] = {
		{"colloc-ngrams", 2.0, 0.6, -1}, {"colloc-llr", 1.0, 0.5, -1}, {"tf-partial", 1.0, 0.8, -1},
		{"tf-merge", 1.0, 1.0, -1},      {"df-count", 0.1, 0.02, -1},  {"tfidf-partial", 1.0, 1.0, 4},
		{"tfidf-merge", 1.0, 1.0, -1},   {"nb-index", 0.01, 0.001, -1}, {"nb-weights", 0.2, 0.1, 7},
		{"nb-thetas", 0.1, 0.01, -1},
	};
	if (ml_job(c, "tokenize", NULL, 0, docs, 0, docs, true))
		return -1;
	for (size_t i = 0; i < sizeof jobs / sizeof *jobs; i++) {
		int k = (int)i + 1, parents[2] = {k - 1, jobs[i].also};
		uint64_t in = c->out[k - 1] + (jobs[i].also >= 0 ? c->out[jobs[i].also] : 0);
		if (ml_job(c, jobs[i].name, parents, jobs[i].also >= 0 ? 2 : 1, 0, (uint64_t)(jobs[i].sh * (double)in),
			   (uint64_t)(jobs[i].out * (double)in), false))
			return -1;
	}
	return 0;
}

static int pagerank(struct chain *c, uint64_t edges, int iters)
{
	uint64_t ranks = edges / 10;
	char name[24];
	if (ml_job(c, "init", NULL, 0, edges, ranks, ranks, false))
		return -1;
	for (int i = 0; i < iters; i++) {
		int prev = 2 * i;   /* init, or the previous iteration's second job */
		snprintf(name, sizeof name, "iter%d-join", i + 1);
		if (ml_job(c, name, &prev, 1, edges, edges + ranks, edges, false))
			return -1;
		snprintf(name, sizeof name, "iter%d-sum", i + 1);
		if (ml_next(c, name, 0.5, 0.1))
			return -1;
	}
	int last = 2 * iters, hist[2] = {last + 1, last};
	uint64_t tiny = 1024;
	if (ml_job(c, "minmax", &last, 1, 0, tiny * (uint64_t)gen_blocks(ranks, c->p), tiny, false))
		return -1;
	return ml_job(c, "histogram", hist, 2, 0, 10 * tiny * (uint64_t)gen_blocks(ranks, c->p), 10 * tiny, false);
}

int gen_dawn_ml(struct workload *w, const struct gen_ctx *g, char *err)
{
	struct specs a = {0};
	struct rng ro = gen_rng(g->seed, ST_ORDER), ra = gen_rng(g->seed, ST_ARRIVALS);
	int order[9], only = (int)g->key[K_BENCH];
	double *t = malloc((size_t)g->njobs * sizeof *t);
	if (!t)
		return gen_oom(&a, g, err);
	gen_poisson_times(&ra, t, g->njobs, g->key[K_GAP]);
	for (int i = 0; i < g->njobs; i++) {
		if (i % 9 == 0)
			gen_permute(&ro, order, 9);
		const struct bench *b = &table1[only ? only - 1 : order[i % 9]];
		struct chain c = {.a = &a, .p = g->p, .submit = t[i], .first = a.n};
		snprintf(c.prefix, sizeof c.prefix, "%s.c%d", b->label, i);
		uint64_t base = (uint64_t)(b->gib * (double)GiB);
		int rc = b->kind[0] == 'k' ? kmeans(&c, base, (int)g->key[K_ITERS])
		       : b->kind[0] == 'b' ? bayes(&c, base)
		       : pagerank(&c, base, (int)g->key[K_PR_ITERS]);
		if (rc) {
			free(t);
			return gen_oom(&a, g, err);
		}
	}
	free(t);
	return gen_build(w, &a, g, err);
}
