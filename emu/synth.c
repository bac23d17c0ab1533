/* synth.c — synthetic SWIM-like workloads and arrival processes.
 *
 * Sizes follow the Facebook 2010 SWIM trace (FB-2010_samples_24_times_1hr_0.tsv:
 * 24,442 jobs over 24 h), which the project does not need at run time: the
 * distributions below were measured once and are hard-coded.  What the trace
 * says, and what the generator reproduces (1000+ jobs come within a few
 * percent of each number):
 *
 *   input  = 0 B: 1.7%   < 1 MB: 40.4%   < 1 GB: 72.7%   < 100 GB: 94.2%
 *            < 1 TB: 98.9%   median 10 MB, p90 31 GB, p99 1.1 TB, max 12 TB
 *   shuffle = 0: 34.1% of jobs (36.0% of jobs with input < 1 GB, 25.0% above);
 *            shuffle / input (when both > 0): p10 4e-5, p25 0.027, p50 0.43,
 *            p75 1.36, p90 2.44; smaller for large jobs (median 0.07 above 1 GB)
 *   output = 0: 4.7%;  shuffle = output = 0 (map-only jobs): 1.6%
 *   with the default task knobs: 85% of jobs have 1 reduce, the mean is 5.2;
 *   the median job has 1 map, the mean 331.
 *
 * The model is a mixture over size classes: P(input = 0), then log10(input)
 * from the trace's quantile function; then, per class (input below or above
 * 1 GB), P(shuffle = 0), log10(shuffle / input), and the output relative to
 * the shuffle (or, for map-only-shuffle jobs, to the input), each from its
 * quantile function.  Quantile functions are piecewise linear in log10 space
 * between 27 measured quantiles (0, 1, 2, 5, 10, 15, ..., 95, 98, 99, 99.5,
 * 99.9 and 100%), which keeps both the bulk and the heavy tail.
 *
 * Reproducibility: a splitmix64 generator per purpose (sizes, recurring
 * flags, arrivals: changing the arrival mode does not change the sizes), and
 * sizes computed in integer arithmetic only (fixed-point 10^x), so a seed
 * gives byte-identical jobs on every machine and compiler.  Poisson gaps use
 * libm's log() and are rounded to the microsecond. */
#include "emu/workload.h"
#include "emu/workload_spec.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ PRNG */

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)            /* splitmix64 */
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

enum { STREAM_SIZES = 1, STREAM_RECURRING = 2, STREAM_ARRIVALS = 3 };

static struct rng rng_stream(unsigned long seed, uint64_t stream)
{
	struct rng r = {(uint64_t)seed ^ (stream * 0xd1b54a32d192ed03ULL)};
	r.s = rng_next(&r);             /* decorrelate neighbouring seeds */
	return r;
}

static double rng_u01(struct rng *r)                /* [0, 1) */
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* True with probability p / 10000 (integer arithmetic). */
static bool rng_chance(struct rng *r, int p)
{
	return (int)(((rng_next(r) >> 32) * 10000) >> 32) < p;
}

/* ---------------------------------------------- size distributions (FB-2010) */

/* A quantile: at cumulative probability pos / 10000, log10 of the value is
 * val / 1000 (milli-decades). */
struct knot {
	int pos, val;
};
#define NKNOTS 27

/* log10(input bytes) of jobs with input > 0 (n = 24024). */
static const struct knot in_log[NKNOTS] = {
	{0, 0}, {100, 0}, {200, 0}, {500, 2480}, {1000, 2780}, {1500, 3246}, {2000, 4018},
	{2500, 4397}, {3000, 4995}, {3500, 5553}, {4000, 6064}, {4500, 6627}, {5000, 7087},
	{5500, 7425}, {6000, 7871}, {6500, 8257}, {7000, 8814}, {7500, 9290}, {8000, 9516},
	{8500, 9810}, {9000, 10509}, {9500, 11130}, {9800, 11650}, {9900, 12051}, {9950, 12381},
	{9990, 12611}, {10000, 13069},
};

/* log10(output bytes) of jobs that read nothing but write (n = 291). */
static const struct knot zero_in_out[NKNOTS] = {
	{0, 2134}, {100, 2281}, {200, 2281}, {500, 2281}, {1000, 4512}, {1500, 4512},
	{2000, 4512}, {2500, 4512}, {3000, 4512}, {3500, 4512}, {4000, 4512}, {4500, 4512},
	{5000, 4512}, {5500, 4512}, {6000, 4512}, {6500, 4512}, {7000, 4512}, {7500, 4512},
	{8000, 4512}, {8500, 4512}, {9000, 4512}, {9500, 4512}, {9800, 10565}, {9900, 11836},
	{9950, 11903}, {9990, 12476}, {10000, 12700},
};

struct size_class {
	int p_no_shuffle;               /* P(shuffle = 0), 1e-4 */
	int p_no_output;                /* P(output = 0 | shuffle > 0) */
	int p_no_output_map_only;       /* P(output = 0 | shuffle = 0) */
	struct knot shuffle_per_input[NKNOTS];   /* log10(shuffle / input) */
	struct knot output_per_shuffle[NKNOTS];  /* log10(output / shuffle) */
	struct knot output_per_input[NKNOTS];    /* log10(output / input), shuffle = 0 */
};

/* 1 B <= input < 1 GB: n = 17352 (11103 with a shuffle). */
static const struct size_class small_jobs = {
	3601, 674, 298,
	{{0, -7283}, {100, -6609}, {200, -5717}, {500, -5058}, {1000, -3642}, {1500, -2056},
	 {2000, -1329}, {2500, -1138}, {3000, -857}, {3500, -603}, {4000, -341}, {4500, -260},
	 {5000, -193}, {5500, -130}, {6000, -28}, {6500, 74}, {7000, 148}, {7500, 203},
	 {8000, 303}, {8500, 338}, {9000, 425}, {9500, 1690}, {9800, 1690}, {9900, 1690},
	 {9950, 1690}, {9990, 2067}, {10000, 2961}},
	{{0, -6670}, {100, -5411}, {200, -5060}, {500, -4441}, {1000, -3771}, {1500, -3012},
	 {2000, -2209}, {2500, -1605}, {3000, -1170}, {3500, -814}, {4000, -561}, {4500, -404},
	 {5000, -308}, {5500, -221}, {6000, -127}, {6500, 46}, {7000, 411}, {7500, 761},
	 {8000, 819}, {8500, 866}, {9000, 961}, {9500, 5819}, {9800, 6561}, {9900, 6928},
	 {9950, 7049}, {9990, 7573}, {10000, 7767}},
	{{0, -6182}, {100, -4993}, {200, -4348}, {500, -2128}, {1000, -1398}, {1500, -1346},
	 {2000, -1260}, {2500, -1057}, {3000, -631}, {3500, -299}, {4000, -136}, {4500, -41},
	 {5000, -6}, {5500, 0}, {6000, 2}, {6500, 32}, {7000, 103}, {7500, 147}, {8000, 309},
	 {8500, 734}, {9000, 1116}, {9500, 3110}, {9800, 5245}, {9900, 5637}, {9950, 5937},
	 {9990, 7119}, {10000, 8460}},
};

/* input >= 1 GB: n = 6672 (5006 with a shuffle). */
static const struct size_class large_jobs = {
	2497, 0, 450,
	{{0, -7144}, {100, -6901}, {200, -6833}, {500, -6616}, {1000, -5577}, {1500, -4299},
	 {2000, -3569}, {2500, -2870}, {3000, -2459}, {3500, -1987}, {4000, -1658},
	 {4500, -1241}, {5000, -1141}, {5500, -1068}, {6000, -875}, {6500, -620}, {7000, -471},
	 {7500, -275}, {8000, -119}, {8500, 19}, {9000, 227}, {9500, 433}, {9800, 594},
	 {9900, 681}, {9950, 778}, {9990, 979}, {10000, 1042}},
	{{0, -8515}, {100, -6655}, {200, -6307}, {500, -5604}, {1000, -4383}, {1500, -3534},
	 {2000, -3107}, {2500, -2735}, {3000, -2329}, {3500, -1957}, {4000, -1752},
	 {4500, -1504}, {5000, -1162}, {5500, -948}, {6000, -811}, {6500, -645}, {7000, -476},
	 {7500, -377}, {8000, -324}, {8500, -273}, {9000, -227}, {9500, -67}, {9800, 388},
	 {9900, 438}, {9950, 477}, {9990, 569}, {10000, 3118}},
	{{0, -8379}, {100, -6938}, {200, -6233}, {500, -5970}, {1000, -5354}, {1500, -4815},
	 {2000, -4372}, {2500, -3990}, {3000, -3647}, {3500, -3330}, {4000, -2253},
	 {4500, -1469}, {5000, -918}, {5500, -275}, {6000, -62}, {6500, 1}, {7000, 2}, {7500, 3},
	 {8000, 11}, {8500, 87}, {9000, 216}, {9500, 360}, {9800, 397}, {9900, 414}, {9950, 425},
	 {9990, 810}, {10000, 1858}},
};

#define P_ZERO_INPUT 171        /* P(input = 0), 1e-4 */
#define P_ZERO_INPUT_OUTPUT 6962 /* P(output > 0 | input = 0) */
#define MAX_LOG_MICRO 14000000  /* sizes capped at 1e14 B (the trace's largest output: 8.5e13) */

/* A draw from a quantile function, in micro-decades (log10 * 1e6). */
static int64_t sample_knots(struct rng *r, const struct knot *k)
{
	uint64_t u = (rng_next(r) >> 32) * 10000;  /* uniform in [0, 10000 * 2^32) */
	int i = 0;
	while (i + 2 < NKNOTS && u >= (uint64_t)k[i + 1].pos << 32)
		i++;
	uint64_t lo = (uint64_t)k[i].pos << 32, span = (uint64_t)(k[i + 1].pos - k[i].pos) << 32;
	__int128 dv = (__int128)(k[i + 1].val - k[i].val) * 1000;
	return (int64_t)k[i].val * 1000 + (int64_t)(dv * (__int128)(u - lo) / (__int128)span);
}

/* round(10^(l / 1e6)) in integer arithmetic: 10^f = e^(f ln 10) by a Taylor
 * series on a 64th of the argument, squared six times, in Q59 fixed point.
 * Accurate to ~1e-13, and identical everywhere (no libm, no FMA). */
static uint64_t pow10_micro(int64_t l)
{
	const uint64_t one = 1ULL << 59;
	const uint64_t ln10 = 1327349934949995907ULL;         /* ln(10) * 2^59 */
	if (l > MAX_LOG_MICRO)
		l = MAX_LOG_MICRO;
	if (l < -2000000)
		return 0;
	int64_t d = (l >= 0 ? l : l - 999999) / 1000000, f = l - d * 1000000;   /* f in [0, 1e6) */
	uint64_t x = (uint64_t)((unsigned __int128)f * ln10 / 1000000) >> 6;
	uint64_t term = one, m = one;
	for (int k = 1; k <= 8; k++) {
		term = (uint64_t)(((unsigned __int128)term * x >> 59) / (unsigned)k);
		m += term;
	}
	for (int k = 0; k < 6; k++)
		m = (uint64_t)((unsigned __int128)m * m >> 59);       /* m stays below 10 * 2^59 */
	unsigned __int128 v = m;
	for (; d > 0; d--)
		v *= 10;
	for (; d < 0; d++)
		v /= 10;
	return (uint64_t)((v + (one >> 1)) >> 59);
}

static void sample_sizes(struct rng *r, struct job_spec *s)
{
	if (rng_chance(r, P_ZERO_INPUT)) {
		s->input = s->shuffle = 0;
		s->output = rng_chance(r, P_ZERO_INPUT_OUTPUT) ? pow10_micro(sample_knots(r, zero_in_out)) : 0;
		return;
	}
	int64_t lin = sample_knots(r, in_log);
	s->input = pow10_micro(lin);
	const struct size_class *c = s->input < 1000000000ULL ? &small_jobs : &large_jobs;
	if (rng_chance(r, c->p_no_shuffle)) {
		s->shuffle = 0;
		s->output = rng_chance(r, c->p_no_output_map_only)
				    ? 0 : pow10_micro(lin + sample_knots(r, c->output_per_input));
	} else {
		int64_t lsh = lin + sample_knots(r, c->shuffle_per_input);
		s->shuffle = pow10_micro(lsh);
		s->output = rng_chance(r, c->p_no_output) ? 0 : pow10_micro(lsh + sample_knots(r, c->output_per_shuffle));
	}
}

/* -------------------------------------------------------------- generator */

void synth_params_default(struct synth_params *s)
{
	*s = (struct synth_params){
		.njobs = 20,
		.seed = 1,
		.arrivals = ARRIVE_BATCH,
		.window_s = 60,
		.mean_gap_s = 5,
		.recurring_fraction = 1.0,
	};
}

static int synth_check(const struct synth_params *s, char *err)
{
	const char *why = NULL;
	if (s->njobs < 1 || s->njobs > 10000000)
		why = "njobs must be 1..10000000";
	else if (s->arrivals < ARRIVE_BATCH || s->arrivals > ARRIVE_TRACE)
		why = "unknown arrival mode";
	else if (!(s->window_s >= 0 && isfinite(s->window_s)))
		why = "window_s must be non-negative";
	else if (s->arrivals == ARRIVE_POISSON && !(s->mean_gap_s > 0 && isfinite(s->mean_gap_s)))
		why = "mean_gap_s must be positive";
	else if (!(s->recurring_fraction >= 0 && s->recurring_fraction <= 1))
		why = "recurring_fraction must be in [0, 1]";
	if (why && err)
		snprintf(err, 512, "synthetic workload: %s", why);
	return why ? -1 : 0;
}

int workload_synthetic(struct workload *w, const struct synth_params *s, const struct workload_params *p,
		       char err[512])
{
	memset(w, 0, sizeof(*w));
	if (synth_check(s, err))
		return -1;
	struct job_spec *specs = calloc((size_t)s->njobs, sizeof(*specs));
	if (!specs) {
		if (err)
			snprintf(err, 512, "synthetic workload: out of memory");
		return -1;
	}
	struct rng sizes = rng_stream(s->seed, STREAM_SIZES), rec = rng_stream(s->seed, STREAM_RECURRING);
	for (int i = 0; i < s->njobs; i++) {
		job_spec_init(&specs[i]);
		snprintf(specs[i].name, sizeof(specs[i].name), "job%d", i);
		sample_sizes(&sizes, &specs[i]);
		specs[i].recurring = rng_u01(&rec) < s->recurring_fraction;
	}
	char source[256];
	snprintf(source, sizeof(source), "synthetic:seed=%lu,njobs=%d", s->seed, s->njobs);
	int rc = workload_build(w, specs, s->njobs, p, false, source, err);
	job_specs_free(specs, s->njobs);
	if (!rc)
		workload_set_arrivals(w, s);
	return rc;
}

/* ---------------------------------------------------------------- arrivals */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Arrival times in unscaled seconds, non-decreasing in job order (so a job
 * never arrives before the jobs it may depend on). */
static void arrival_times(double *t, int n, const struct synth_params *s)
{
	struct rng r = rng_stream(s->seed, STREAM_ARRIVALS);
	switch (s->arrivals) {
	case ARRIVE_UNIFORM:
		for (int i = 0; i < n; i++)
			t[i] = rng_u01(&r) * s->window_s;
		qsort(t, (size_t)n, sizeof(*t), cmp_double);
		break;
	case ARRIVE_POISSON: {
		/* The first job at 0, then exponential gaps (kept in integer
		 * microseconds so sums do not depend on summation rounding). */
		long long us = 0;
		for (int i = 0; i < n; i++) {
			if (i)
				us += llround(-s->mean_gap_s * log(1 - rng_u01(&r)) * 1e6);
			t[i] = (double)us * 1e-6;
		}
		break;
	}
	default:
		for (int i = 0; i < n; i++)
			t[i] = 0;
		break;
	}
}

void workload_set_arrivals(struct workload *w, const struct synth_params *s)
{
	if (s->arrivals == ARRIVE_TRACE || w->njobs <= 0)
		return;
	double ts = w->params.time_scale > 0 ? w->params.time_scale : 1;
	double *t = malloc((size_t)w->njobs * sizeof(*t));
	if (!t)
		return;         /* keeps the current times: better than inventing some */
	arrival_times(t, w->njobs, s);
	for (int i = 0; i < w->njobs; i++) {
		struct job *j = &w->jobs[i];
		double submit = t[i] * ts;
		/* Keep a prediction's error; an exact one stays exact. */
		j->pred_submit_s = j->pred_submit_s == j->submit_s ? submit : j->pred_submit_s + (submit - j->submit_s);
		j->submit_s = submit;
	}
	free(t);
}
