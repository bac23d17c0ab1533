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
 * The generator, 24,442 jobs, seeds 1..3 (trace in brackets): input = 0
 * 1.7-1.9% [1.7], < 1 MB 40.3% [40.4], < 1 GB 72.1-72.6% [72.7], < 100 GB
 * 94.0-94.1% [94.2]; shuffle = 0 33.4-34.3% [34.1]; output = 0 4.3-4.6%
 * [4.7]; map-only 1.5-1.6% [1.6]; shuffle/input p10 5e-5 [4e-5], p50
 * 0.44-0.48 [0.43], p90 2.5 [2.4]; 1 reduce 83.6-84.7% [84.9], mean reduces
 * 5.6-5.7 [5.2], mean maps 340-367 [331].
 *
 * The model is a mixture over size classes: P(input = 0), then log10(input)
 * from the trace's quantile function; then, per input class, P(shuffle = 0)
 * and log10(shuffle / input) (or, for jobs without a shuffle, log10(output /
 * input)); then, per shuffle class, P(output = 0) and log10(output /
 * shuffle).  Quantile functions are piecewise linear in log10 space between
 * 27 measured quantiles (0, 1, 2, 5, 10, 15, ..., 95, 98, 99, 99.5, 99.9 and
 * 100%), which keeps both the bulk and the heavy tail.
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

enum { STREAM_SIZES = 1, STREAM_RECURRING = 2, STREAM_ARRIVALS = 3, STREAM_ERRORS = 4 };

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

/* Shuffle and output relative to the input depend strongly on the job's
 * size (tiny jobs write far more than they read, huge ones far less), so the
 * ratios are drawn per size class: the shuffle per input class, the output
 * of a job with a shuffle per shuffle class (the ratio's tail sits on tiny
 * shuffles).  With two classes instead the mean reduce count came out 50%
 * high; with these, within ~10% (sampling noise of a heavy tail). */
struct input_class {
	uint64_t below;                 /* input < below (bytes) */
	int p_no_shuffle;               /* P(shuffle = 0), 1e-4 */
	int p_no_output_map_only;       /* P(output = 0 | shuffle = 0) */
	struct knot shuffle_per_input[NKNOTS];   /* log10(shuffle / input) */
	struct knot output_per_input[NKNOTS];    /* log10(output / input), shuffle = 0 */
};

struct shuffle_class {
	uint64_t below;                 /* shuffle < below (bytes) */
	int p_no_output;                /* P(output = 0) */
	struct knot output_per_shuffle[NKNOTS];  /* log10(output / shuffle) */
};

/* By input size. */
static const struct input_class input_classes[] = {
	/* 1 B - 10 KB: 4790 jobs, 3472 with a shuffle, 1275 map-only with output */
	{10000ULL, 2752, 326,
	 {{0, -2673}, {100, -2144}, {200, -1535}, {500, -1264}, {1000, -1264}, {1500, -1138},
	 {2000, -1055}, {2500, -856}, {3000, -653}, {3500, -546}, {4000, -407}, {4500, -273},
	 {5000, -190}, {5500, -171}, {6000, -89}, {6500, 37}, {7000, 116}, {7500, 286},
	 {8000, 1462}, {8500, 1690}, {9000, 1690}, {9500, 1690}, {9800, 1690}, {9900, 1690},
	 {9950, 1995}, {9990, 2373}, {10000, 2961}},
	 {{0, -2397}, {100, -1208}, {200, -932}, {500, -646}, {1000, -376}, {1500, -251},
	 {2000, -129}, {2500, -16}, {3000, 50}, {3500, 102}, {4000, 103}, {4500, 103},
	 {5000, 159}, {5500, 290}, {6000, 449}, {6500, 659}, {7000, 920}, {7500, 1196},
	 {8000, 2599}, {8500, 3962}, {9000, 4880}, {9500, 5506}, {9800, 5848}, {9900, 6754},
	 {9950, 7108}, {9990, 8136}, {10000, 8460}}},
	/* 10 KB - 10 MB: 6981 jobs, 4067 with a shuffle, 2795 map-only with output */
	{10000000ULL, 4174, 408,
	 {{0, -5718}, {100, -5108}, {200, -5108}, {500, -5058}, {1000, -4963}, {1500, -3642},
	 {2000, -2893}, {2500, -1889}, {3000, -1188}, {3500, -575}, {4000, -276}, {4500, -260},
	 {5000, -243}, {5500, -147}, {6000, -79}, {6500, 43}, {7000, 122}, {7500, 181},
	 {8000, 238}, {8500, 309}, {9000, 373}, {9500, 426}, {9800, 641}, {9900, 752},
	 {9950, 929}, {9990, 1260}, {10000, 1568}},
	 {{0, -4598}, {100, -2884}, {200, -2358}, {500, -1558}, {1000, -1397}, {1500, -1333},
	 {2000, -1270}, {2500, -1210}, {3000, -1056}, {3500, -783}, {4000, -482}, {4500, -232},
	 {5000, -116}, {5500, -54}, {6000, -7}, {6500, 0}, {7000, 49}, {7500, 125}, {8000, 263},
	 {8500, 1043}, {9000, 1109}, {9500, 1264}, {9800, 3413}, {9900, 5018}, {9950, 5609},
	 {9990, 6281}, {10000, 7045}}},
	/* 10 MB - 1 GB: 5581 jobs, 3564 with a shuffle, 1993 map-only with output */
	{1000000000ULL, 3614, 119,
	 {{0, -7283}, {100, -6939}, {200, -6700}, {500, -6064}, {1000, -4836}, {1500, -3280},
	 {2000, -1814}, {2500, -1398}, {3000, -995}, {3500, -773}, {4000, -381}, {4500, -225},
	 {5000, -147}, {5500, -73}, {6000, 61}, {6500, 131}, {7000, 182}, {7500, 211},
	 {8000, 312}, {8500, 314}, {9000, 328}, {9500, 367}, {9800, 486}, {9900, 612},
	 {9950, 772}, {9990, 1104}, {10000, 1276}},
	 {{0, -6182}, {100, -5318}, {200, -5165}, {500, -4590}, {1000, -3340}, {1500, -1434},
	 {2000, -1379}, {2500, -1347}, {3000, -1234}, {3500, -755}, {4000, -153}, {4500, -32},
	 {5000, -7}, {5500, -3}, {6000, 0}, {6500, 1}, {7000, 1}, {7500, 2}, {8000, 5},
	 {8500, 52}, {9000, 170}, {9500, 376}, {9800, 616}, {9900, 735}, {9950, 936},
	 {9990, 1166}, {10000, 1239}}},
	/* 1 GB - 100 GB: 5247 jobs, 4082 with a shuffle, 1120 map-only with output */
	{100000000000ULL, 2220, 386,
	 {{0, -7144}, {100, -6907}, {200, -6867}, {500, -6616}, {1000, -5947}, {1500, -4658},
	 {2000, -3668}, {2500, -3048}, {3000, -2609}, {3500, -2068}, {4000, -1727},
	 {4500, -1273}, {5000, -1169}, {5500, -1097}, {6000, -985}, {6500, -655}, {7000, -499},
	 {7500, -362}, {8000, -127}, {8500, -3}, {9000, 193}, {9500, 419}, {9800, 584},
	 {9900, 673}, {9950, 773}, {9990, 989}, {10000, 1042}},
	 {{0, -7438}, {100, -6259}, {200, -6172}, {500, -5016}, {1000, -4322}, {1500, -3850},
	 {2000, -3577}, {2500, -3215}, {3000, -2014}, {3500, -1452}, {4000, -874}, {4500, -306},
	 {5000, -110}, {5500, 0}, {6000, 1}, {6500, 2}, {7000, 3}, {7500, 4}, {8000, 34},
	 {8500, 147}, {9000, 270}, {9500, 373}, {9800, 406}, {9900, 416}, {9950, 439},
	 {9990, 946}, {10000, 1858}}},
	/* >= 100 GB: 1425 jobs, 924 with a shuffle, 471 map-only with output */
	{UINT64_MAX, 3516, 599,
	 {{0, -6864}, {100, -6667}, {200, -6628}, {500, -4496}, {1000, -4149}, {1500, -3609},
	 {2000, -2947}, {2500, -2446}, {3000, -2061}, {3500, -1679}, {4000, -1234},
	 {4500, -1087}, {5000, -992}, {5500, -841}, {6000, -697}, {6500, -498}, {7000, -287},
	 {7500, -248}, {8000, -85}, {8500, 120}, {9000, 321}, {9500, 498}, {9800, 623},
	 {9900, 737}, {9950, 785}, {9990, 856}, {10000, 963}},
	 {{0, -8379}, {100, -7624}, {200, -7108}, {500, -6053}, {1000, -5941}, {1500, -5681},
	 {2000, -5484}, {2500, -5297}, {3000, -5029}, {3500, -4919}, {4000, -4647},
	 {4500, -4388}, {5000, -4121}, {5500, -3918}, {6000, -3610}, {6500, -2263},
	 {7000, -2160}, {7500, -967}, {8000, -83}, {8500, 3}, {9000, 64}, {9500, 209},
	 {9800, 296}, {9900, 379}, {9950, 396}, {9990, 418}, {10000, 418}}},
};
/* By shuffle size. */
static const struct shuffle_class shuffle_classes[] = {
	/* 1 B - 1 KB: 3951 jobs */
	{1000ULL, 1888,
	 {{0, -1407}, {100, -1068}, {200, -780}, {500, -512}, {1000, -313}, {1500, -199},
	 {2000, -103}, {2500, -41}, {3000, 74}, {3500, 210}, {4000, 396}, {4500, 576},
	 {5000, 761}, {5500, 791}, {6000, 816}, {6500, 819}, {7000, 828}, {7500, 869},
	 {8000, 939}, {8500, 1681}, {9000, 5820}, {9500, 6409}, {9800, 6981}, {9900, 7074},
	 {9950, 7160}, {9990, 7655}, {10000, 7725}}},
	/* 1 KB - 1 MB: 4484 jobs */
	{1000000ULL, 2,
	 {{0, -3860}, {100, -3250}, {200, -3040}, {500, -2489}, {1000, -1818}, {1500, -1532},
	 {2000, -1368}, {2500, -1111}, {3000, -988}, {3500, -862}, {4000, -735}, {4500, -604},
	 {5000, -489}, {5500, -409}, {6000, -355}, {6500, -242}, {7000, -152}, {7500, 177},
	 {8000, 846}, {8500, 871}, {9000, 972}, {9500, 5266}, {9800, 6703}, {9900, 6851},
	 {9950, 6958}, {9990, 7576}, {10000, 7767}}},
	/* 1 MB - 1 GB: 5380 jobs */
	{1000000000ULL, 2,
	 {{0, -7472}, {100, -6005}, {200, -5757}, {500, -5121}, {1000, -4653}, {1500, -4211},
	 {2000, -3884}, {2500, -3691}, {3000, -3368}, {3500, -3076}, {4000, -2728},
	 {4500, -2277}, {5000, -1960}, {5500, -1752}, {6000, -1287}, {6500, -872}, {7000, -558},
	 {7500, -380}, {8000, -318}, {8500, -261}, {9000, -218}, {9500, -11}, {9800, 457},
	 {9900, 511}, {9950, 565}, {9990, 1197}, {10000, 1706}}},
	/* >= 1 GB: 2294 jobs */
	{UINT64_MAX, 0,
	 {{0, -8515}, {100, -6880}, {200, -6693}, {500, -6093}, {1000, -5456}, {1500, -4485},
	 {2000, -3557}, {2500, -3109}, {3000, -2770}, {3500, -2312}, {4000, -1924},
	 {4500, -1723}, {5000, -1349}, {5500, -1014}, {6000, -756}, {6500, -593}, {7000, -460},
	 {7500, -353}, {8000, -282}, {8500, -226}, {9000, -153}, {9500, 285}, {9800, 396},
	 {9900, 437}, {9950, 465}, {9990, 764}, {10000, 3118}}},
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

static const struct input_class *input_class(uint64_t input)
{
	size_t i = 0;
	while (input >= input_classes[i].below)
		i++;
	return &input_classes[i];
}

static const struct shuffle_class *shuffle_class(uint64_t shuffle)
{
	size_t i = 0;
	while (shuffle >= shuffle_classes[i].below)
		i++;
	return &shuffle_classes[i];
}

/* At least a byte where the trace says "some": a tiny job times a tiny
 * ratio must not turn into an empty shuffle or output. */
static uint64_t some_bytes(int64_t log_micro)
{
	uint64_t v = pow10_micro(log_micro);
	return v ? v : 1;
}

static void sample_sizes(struct rng *r, struct job_spec *s)
{
	if (rng_chance(r, P_ZERO_INPUT)) {
		s->input = s->shuffle = 0;
		s->output = rng_chance(r, P_ZERO_INPUT_OUTPUT) ? pow10_micro(sample_knots(r, zero_in_out)) : 0;
		return;
	}
	int64_t lin = sample_knots(r, in_log);
	s->input = some_bytes(lin);
	const struct input_class *ic = input_class(s->input);
	if (rng_chance(r, ic->p_no_shuffle)) {
		s->shuffle = 0;
		s->output = rng_chance(r, ic->p_no_output_map_only)
				    ? 0 : some_bytes(lin + sample_knots(r, ic->output_per_input));
		return;
	}
	int64_t lsh = lin + sample_knots(r, ic->shuffle_per_input);
	s->shuffle = some_bytes(lsh);
	const struct shuffle_class *sc = shuffle_class(s->shuffle);
	s->output = rng_chance(r, sc->p_no_output) ? 0 : some_bytes(lsh + sample_knots(r, sc->output_per_shuffle));
}

/* -------------------------------------------------------------- generator */

/* Draws per chosen job before giving up: 9% of the trace's jobs shuffle
 * more than 1.125 GB, 0.1% more than 10 TB. */
#define SYNTH_MAX_DRAWS 1000000L

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
	else if (!nonneg(s->window_s))
		why = "window_s must be non-negative";
	else if (s->arrivals == ARRIVE_POISSON && !positive(s->mean_gap_s))
		why = "mean_gap_s must be positive";
	else if (!(s->recurring_fraction >= 0 && s->recurring_fraction <= 1))
		why = "recurring_fraction must be in [0, 1]";
	if (why && err)
		snprintf(err, 512, "synthetic workload: %s", why);
	return why ? -1 : 0;
}

/* Exactly round(fraction x njobs) jobs, a uniformly random set of them
 * (selection sampling, Knuth's Algorithm S), as the dissertation "randomly
 * selected half of the jobs as ad-hoc jobs" (§4.3.4); a coin per job left
 * 13 to 17 of 30 recurring at 0.5. */
void workload_set_recurring(struct workload *w, const struct synth_params *s)
{
	struct rng rec = rng_stream(s->seed, STREAM_RECURRING);
	int want = (int)lround(s->recurring_fraction * w->njobs);
	for (int i = 0; i < w->njobs; i++) {
		w->jobs[i].recurring = rng_u01(&rec) * (w->njobs - i) < want;
		want -= w->jobs[i].recurring;
	}
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
	struct rng sizes = rng_stream(s->seed, STREAM_SIZES);
	for (int i = 0; i < s->njobs; i++) {
		job_spec_init(&specs[i]);
		snprintf(specs[i].name, sizeof(specs[i].name), "job%d", i);
		/* Draw until a job is chosen (p->min_shuffle; one draw without it,
		 * so the jobs of a seed do not change), then fit it (p->max_maps). */
		long draws = 0;
		do
			sample_sizes(&sizes, &specs[i]);
		while (!job_spec_chosen(&specs[i], p) && ++draws < SYNTH_MAX_DRAWS);
		if (draws == SYNTH_MAX_DRAWS) {
			if (err)
				snprintf(err, 512, "synthetic workload: no job with a shuffle of at least %llu bytes "
					 "in %ld draws", (unsigned long long)p->min_shuffle, (long)SYNTH_MAX_DRAWS);
			job_specs_free(specs, s->njobs);
			return -1;
		}
		job_spec_fit(&specs[i], p);
	}
	char source[256];
	snprintf(source, sizeof(source), "synthetic:seed=%lu,njobs=%d", s->seed, s->njobs);
	int rc = workload_build(w, specs, s->njobs, p, false, source, err);
	job_specs_free(specs, s->njobs);
	if (!rc) {
		workload_set_recurring(w, s);
		workload_set_arrivals(w, s);
	}
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
		/* Keep a prediction's error (an exact one stays exact), but
		 * nothing is predicted before the run starts. */
		j->pred_submit_s = j->pred_submit_s == j->submit_s ? submit
				 : fmax(0, j->pred_submit_s + (submit - j->submit_s));
		j->submit_s = submit;
	}
	free(t);
}

void workload_prediction_errors(struct workload *w, const struct prediction_errors *e, unsigned long seed)
{
	struct rng r = rng_stream(seed, STREAM_ERRORS);
	double ts = w->params.time_scale > 0 ? w->params.time_scale : 1;
	for (int i = 0; i < w->njobs; i++) {
		struct job *j = &w->jobs[i];
		/* Draw all three numbers for every job: one knob does not move
		 * another's draws. */
		double u = rng_u01(&r), sign = rng_u01(&r) < 0.5 ? -1 : 1, hit = rng_u01(&r), d = rng_u01(&r);
		if (e->shuffle > 0)
			j->pred_shuffle_bytes = (uint64_t)llround(fmax(0, (double)j->shuffle_bytes * (1 + sign * u * e->shuffle)));
		if (e->arrival_fraction > 0 && hit < e->arrival_fraction)
			j->pred_submit_s = fmax(0, j->submit_s + (2 * d - 1) * e->arrival_s * ts);
	}
}
