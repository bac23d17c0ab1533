/* gen_fawkes.c — FAWKES's macro workloads (seed 003 Table 2): three
 * logical clusters' job streams, each job's "cluster" 1..3.
 *
 * From the paper: WC and ST jobs of 1 GB (small), 50 GB (medium) and
 * 100 GB (large) input; 128 MB blocks (8, 400, 800 maps); WKLD-A 50 small
 * WC per cluster, the clusters arriving 100 s apart; WKLD-B (WC) and
 * WKLD-C (ST) 90 small / 5 medium / 5 large, batch; WKLD-D 165 small WC/ST
 * (average arrivals) / 188 of all sizes (bursty, bursts of large jobs) /
 * 555 small (average); WKLD-E 359 of all sizes (average) / BTWorld's 26
 * jobs with 13 input sizes (sequential: a job after the jobs it reads) /
 * 559 small (average).  Assumed (docs/reproduction.md, FAWKES):
 *   - WC: a map computes 40 s, shuffles 1% of its input, writes 5.5 MB per
 *     200 GB; ST: a map takes 15 s, shuffle and output equal the input
 *     (Hadoop's Sort is disk-bound, WC compute-bound, and a small WC and a
 *     small ST take about as long: the seed).  Reduces: 1 (small WC), 2
 *     (small ST), 18 for medium and large (0.9 x the 20 reduce slots of a
 *     10-node minimum share), their duration from bytes.
 *   - "average": Poisson over `span` seconds; "bursty": the small jobs
 *     Poisson, the medium and large in `bursts` bursts of a minute spread
 *     over the span; the MM mixes are mostly small jobs ("small jobs
 *     prevail"), with the medium and large ones set toward the task
 *     loads' highest / lowest ratios of 3 (D) and 8 (E): D's c-2 182 small,
 *     4 medium, 2 large (ratio 3.4); E's c-1 340 small, 12 medium, 7 large
 *     (ratio 5.8).
 *   - BTWorld: job 0 scans the whole trace, the 13 queries' first jobs
 *     read it, 12 of them have a second job reading the first (26 jobs);
 *     13 sizes log-spaced from 1 to 32 GB, each used twice; selectivity
 *     0.01 (aggregations), 1 for every third job (AH's distinct pairs). */
#include "emu/gen_int.h"
#include <math.h>
#include <stdlib.h>

enum { K_WKLD, K_SPAN, K_BURSTS };
enum { ST_ARRIVALS = 1, ST_MIX };
enum app { WC, ST };
enum size { SMALL, MEDIUM, LARGE };

static const double gib[] = {1, 50, 100};
static const char *const size_name[] = {"s", "m", "l"};

static int mr_job(struct specs *a, int cluster, enum app app, enum size sz, double submit, int n)
{
	struct job_spec *s = gen_job(a, "c%d-%s-%s-%03d", cluster, app == WC ? "wc" : "st", size_name[sz], n);
	if (!s)
		return -1;
	s->cluster = cluster;
	s->submit = submit;
	s->input = (uint64_t)(gib[sz] * GiB);
	s->shuffle = app == WC ? s->input / 100 : s->input;
	s->output = app == WC ? (uint64_t)(5.5e6 * gib[sz] / 200) : s->input;
	s->nreduces = sz != SMALL ? 18 : app == WC ? 1 : 2;
	s->map_duration = app == WC ? 40 : 15;
	return 0;
}

/* n jobs of cluster c at times t (NULL: all at `at`), `small` of them small
 * and the rest medium and large as given, shuffled; apps WC/ST alternate
 * unless only is >= 0. */
struct mix { int small, medium, large; int only; };

static int stream(struct specs *a, struct rng *r, int c, const struct mix *m, const double *t, double at)
{
	int n = m->small + m->medium + m->large, *order = malloc((size_t)(n ? n : 1) * sizeof *order);
	if (!order)
		return -1;
	gen_permute(r, order, n);
	for (int i = 0; i < n; i++) {
		int k = order[i];
		enum size sz = k < m->small ? SMALL : k < m->small + m->medium ? MEDIUM : LARGE;
		enum app app = m->only >= 0 ? (enum app)m->only : gen_u01(r) < 0.5 ? WC : ST;
		if (mr_job(a, c, app, sz, t ? t[i] : at, i)) {
			free(order);
			return -1;
		}
	}
	free(order);
	return 0;
}

/* Average arrivals: Poisson over the span. */
static int average(struct specs *a, struct rng *ra, struct rng *rm, int c, const struct mix *m, double span)
{
	int n = m->small + m->medium + m->large;
	double *t = malloc((size_t)(n ? n : 1) * sizeof *t);
	if (!t)
		return -1;
	gen_poisson_times(ra, t, n, n ? span / n : 0);
	int rc = stream(a, rm, c, m, t, 0);
	free(t);
	return rc;
}

/* Bursty: small jobs Poisson over the span, the others in bursts. */
static int bursty(struct specs *a, struct rng *ra, struct rng *rm, int c, int small, int medium, int large,
		  double span, int bursts)
{
	int big = medium + large;
	double *t = malloc((size_t)(small + 1) * sizeof *t);
	if (!t)
		return -1;
	gen_poisson_times(ra, t, small, small ? span / small : 0);
	for (int i = 0; i < small; i++)
		if (mr_job(a, c, gen_u01(rm) < 0.5 ? WC : ST, SMALL, t[i], i)) {
			free(t);
			return -1;
		}
	free(t);
	for (int i = 0; i < big; i++) {
		int b = i % bursts;
		double at = span * (b + 0.5) / bursts + gen_uniform(ra, 0, 60);
		if (mr_job(a, c, gen_u01(rm) < 0.5 ? WC : ST, i < medium ? MEDIUM : LARGE, at, small + i))
			return -1;
	}
	return 0;
}

/* BTWorld's workflow on cluster c: 26 jobs, each submitted when the jobs it reads are done. */
static int btworld(struct specs *a, int c)
{
	int base = a->n;
	for (int k = 0; k < 26; k++) {
		int size = k == 0 ? 12 : (k - 1) % 13;   /* job 0: the largest, the whole trace */
		struct job_spec *s = gen_job(a, "c%d-bt-%02d", c, k);
		if (!s)
			return -1;
		s->cluster = c;
		s->input = (uint64_t)(pow(32, size / 12.0) * GiB);
		double sel = k % 3 == 2 ? 1 : 0.01;
		s->shuffle = (uint64_t)(s->input * (sel < 1 ? 0.05 : 1));
		s->output = (uint64_t)(s->input * sel);
		s->nreduces = s->input >= 8 * GiB ? 8 : 2;
		s->map_duration = 30;
		if (k >= 1 && k <= 13)
			gen_dep(s, base);
		else if (k > 13)
			gen_dep(s, base + k - 13);
	}
	return 0;
}

int gen_fawkes(struct workload *w, const struct gen_ctx *g, char *err)
{
	struct specs a = {0};
	struct rng ra = gen_rng(g->seed, ST_ARRIVALS), rm = gen_rng(g->seed, ST_MIX);
	double span = g->key[K_SPAN];
	int bursts = (int)g->key[K_BURSTS], rc = 0;
	/* --jobs: percent of the paper's job counts (BTWorld's workflow stays whole). */
	double f = g->njobs / 100.0;
#define N(x) ((int)fmax(1, round((x) * f)))
	switch ((int)g->key[K_WKLD]) {
	case 1:
		for (int c = 1; c <= 3 && !rc; c++)
			rc = stream(&a, &rm, c, &(struct mix){N(50), 0, 0, WC}, NULL, 100.0 * (c - 1));
		break;
	case 2:
	case 3: {
		int app = g->key[K_WKLD] == 2 ? WC : ST;
		rc = stream(&a, &rm, 1, &(struct mix){N(90), 0, 0, app}, NULL, 0) ||
		     stream(&a, &rm, 2, &(struct mix){0, N(5), 0, app}, NULL, 0) ||
		     stream(&a, &rm, 3, &(struct mix){0, 0, N(5), app}, NULL, 0);
		break;
	}
	case 4:
		rc = average(&a, &ra, &rm, 1, &(struct mix){N(165), 0, 0, -1}, span) ||
		     bursty(&a, &ra, &rm, 2, N(182), N(4), N(2), span, bursts) ||
		     average(&a, &ra, &rm, 3, &(struct mix){N(555), 0, 0, -1}, span);
		break;
	default:
		rc = average(&a, &ra, &rm, 1, &(struct mix){N(340), N(12), N(7), -1}, span) || btworld(&a, 2) ||
		     average(&a, &ra, &rm, 3, &(struct mix){N(559), 0, 0, -1}, span);
		break;
	}
#undef N
	if (rc)
		return gen_oom(&a, g, err);
	return gen_build(w, &a, g, err);
}
