/* workload.c — jobs from SWIM traces and native JSON files; the task
 * derivation shared by every source of jobs (see workload.h, workload_spec.h).
 *
 * SWIM format (https://github.com/SWIMProjectUCB/SWIM): one job per line, six
 * tab-separated columns
 *     job id   submit time (s)   gap from previous job (s)   map input bytes   shuffle bytes   reduce output bytes
 * e.g. "job0\t9\t9\t1762\t0\t14347".  Blank lines are skipped; anything else
 * that is not six well-formed columns is an error naming file and line.
 * Submit times must not decrease (SWIM writes them in order).  Arrivals are
 * submit times relative to the first job read, times time_scale.  The gap
 * column is checked to be a number and otherwise ignored.
 *
 * Native format: a JSON object (the first non-blank character of the file
 * is '{', which is how workload_read tells the formats apart):
 *
 *   {"comment": "anything",                 optional, ignored
 *    "scaled": false,                       optional: true = values are already in
 *                                           emulated units (data_scale/time_scale are
 *                                           not applied again; the floor still is)
 *    "jobs": [
 *      {"name": "sort1",                    optional, default "job<index>"; unique, <= 31 chars
 *       "submit": 0,                        seconds (number or "90s", "2min"), default 0
 *       "input": "10GB",                    required; bytes: a number or a size string
 *       "shuffle": "10GB", "output": "1GB", default 0
 *       "maps": 80, "reduces": 20,          optional: override the derived counts
 *       "map_duration": 12.5,               optional: seconds per map (unscaled), or a list
 *                                           of one value per map (needs "maps")
 *       "reduce_duration": 30,              likewise for reduces (a list needs "reduces")
 *       "map_input": [..],                  optional: bytes per map (needs "maps", sums to input);
 *                                           default: blocks of block_size (derived count) or
 *                                           an even split (given count)
 *                                           (in these lists, [value, count] stands for count
 *                                           equal values: [[4.68, 29], 4.15] is 30 maps)
 *       "recurring": true,                  default false
 *       "predicted": {"submit": 0, "shuffle": "9.5GB"},   what a predictor knows;
 *                                           each defaults to the actual value
 *       "deps": ["other-job"],              names of earlier jobs (at most 8)
 *       "deadline": 600,                    seconds after submission, 0 = none
 *       "cpu": 1, "mem_gb": 2,              per task; default task_cpu / task_mem_gb
 *       "comment": "anything"}              ignored
 *    ]}
 *
 * Jobs need not be in submit order; workload_read's max_jobs keeps the first
 * N jobs of the list.
 *
 * Unknown keys are errors (a typo must not silently change an experiment),
 * and every error names the file and the line of the offending key.  Times
 * in the file are unscaled unless "scaled" is true; sizes likewise.
 *
 * Task derivation (workload_build; workload.h has the formulas): counts from
 * unscaled bytes; map i reads block i (the last map the remainder); an input
 * of 0 bytes still gets one map, of 0 bytes, lasting map_overhead_s (a job
 * that reads nothing still runs its code).  Bytes are then multiplied by
 * data_scale (job totals rounded to the byte; each map's input rounded
 * down, the last map taking what is left, so equal blocks stay equal and the
 * inputs sum to the job's input), shuffle and output are split
 * evenly over maps and reduces with the remainder on the last task, so every
 * per-task sum equals its job total exactly.  Durations are computed from
 * unscaled bytes, then multiplied by time_scale and floored at time_floor_s. */
#include "emu/workload.h"
#include "emu/workload_spec.h"
#include "netctl/units.h"
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERRLEN 512
/* Sizes beyond this are refused as input (units_parse_size's own limit)
 * and scaled sizes saturate at it, so sums of a few never overflow. */
#define MAX_BYTES 1000000000000000000ULL

static int fail(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(char *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, ERRLEN, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---------------------------------------------------------------- params */

void workload_params_default(struct workload_params *p)
{
	*p = (struct workload_params){
		.block_size = 128ULL << 20,
		.bytes_per_reduce = 1ULL << 30,
		.max_reduces = 100,
		.map_rate = 50e6,
		.reduce_rate = 50e6,
		.map_overhead_s = 2,
		.reduce_overhead_s = 2,
		.data_scale = 1,
		.time_scale = 1,
		.time_floor_s = 0.2,
		.task_cpu = 1,
		.task_mem_gb = 1,
	};
}

static bool positive(double v) { return isfinite(v) && v > 0; }
static bool nonneg(double v) { return isfinite(v) && v >= 0; }

int workload_params_check(const struct workload_params *p, char err[512])
{
	if (!p->block_size || !p->bytes_per_reduce)
		return fail(err, "block_size and bytes_per_reduce must be positive");
	if (p->max_reduces < 1)
		return fail(err, "max_reduces must be at least 1");
	if (!positive(p->map_rate) || !positive(p->reduce_rate))
		return fail(err, "map_rate and reduce_rate must be positive");
	if (!nonneg(p->map_overhead_s) || !nonneg(p->reduce_overhead_s) || !nonneg(p->time_floor_s))
		return fail(err, "task overheads and time_floor_s must be non-negative");
	if (!positive(p->data_scale) || !positive(p->time_scale))
		return fail(err, "data_scale and time_scale must be positive");
	if (!positive(p->task_cpu) || !nonneg(p->task_mem_gb))
		return fail(err, "task_cpu must be positive and task_mem_gb non-negative");
	if (p->max_maps < 0)
		return fail(err, "max_maps must be non-negative");
	return 0;
}

bool job_spec_chosen(const struct job_spec *s, const struct workload_params *p)
{
	return s->shuffle >= p->min_shuffle;
}

/* x · num / den without overflow (bytes up to petabytes times a cap of
 * terabytes), in integers so a seed gives the same jobs everywhere. */
static uint64_t mul_div(uint64_t x, uint64_t num, uint64_t den)
{
	return (uint64_t)((unsigned __int128)x * num / den);
}

void job_spec_fit(struct job_spec *s, const struct workload_params *p)
{
	uint64_t cap = (uint64_t)p->max_maps * p->block_size;
	if (p->max_maps <= 0 || s->nmaps >= 0 || s->map_inputs || s->input <= cap)
		return;
	s->shuffle = mul_div(s->shuffle, cap, s->input);
	s->output = mul_div(s->output, cap, s->input);
	if (s->has_pred_shuffle)
		s->pred_shuffle = mul_div(s->pred_shuffle, cap, s->input);
	s->input = cap;
}

/* ------------------------------------------------------------ derivation */

void job_spec_init(struct job_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->nmaps = s->nreduces = -1;
	s->map_duration = s->reduce_duration = -1;
	s->cpu = s->mem_gb = -1;
}

void job_specs_free(struct job_spec *specs, int n)
{
	for (int i = 0; specs && i < n; i++) {
		free(specs[i].map_durations);
		free(specs[i].reduce_durations);
		free(specs[i].map_inputs);
	}
	free(specs);
}

/* Task i's share of total over n tasks: equal parts, the remainder on the
 * last, so the shares sum to the total exactly. */
static uint64_t share(uint64_t total, int n, int i)
{
	return total / (uint64_t)n + (i == n - 1 ? total % (uint64_t)n : 0);
}

static uint64_t scale_bytes(uint64_t v, double s)
{
	if (s == 1)
		return v;       /* exact even beyond 2^53 */
	double x = floor((double)v * s + 0.5);
	return x >= (double)MAX_BYTES ? MAX_BYTES : (uint64_t)x;
}

/* Rounded down: a sum of these never exceeds the scaled (rounded) sum. */
static uint64_t scale_bytes_down(uint64_t v, double s)
{
	if (s == 1)
		return v;
	double x = floor((double)v * s);
	return x >= (double)MAX_BYTES ? MAX_BYTES : (uint64_t)x;
}

static double scale_time(double d, double ts, double floor_s)
{
	return fmax(d * ts, floor_s);
}

static int job_fail(char *err, const char *source, const struct job_spec *s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int job_fail(char *err, const char *source, const struct job_spec *s, const char *fmt, ...)
{
	char msg[ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (s->line > 0)
		return fail(err, "%s:%d: job '%s': %s", source, s->line, s->name, msg);
	return fail(err, "%s: job '%s': %s", source, s->name, msg);
}

/* maps = max(1, ceil(input / block)); reduces by SWIM's rule
 * round((shuffle + output) / bytes_per_reduce), at least 1 when there is
 * anything to reduce, none for a map-only job, at most max_reduces. */
static int derive_counts(const struct job_spec *s, const struct workload_params *p, const char *source,
			 int *nmaps, int *nreduces, char *err)
{
	uint64_t m = s->nmaps >= 0 ? (uint64_t)s->nmaps : s->input ? (s->input - 1) / p->block_size + 1 : 1;
	if (m < 1 || m > WORKLOAD_MAX_TASKS_PER_JOB)
		return job_fail(err, source, s, "%llu maps (must be 1..%d)", (unsigned long long)m,
				WORKLOAD_MAX_TASKS_PER_JOB);
	uint64_t total = s->shuffle + s->output, r;
	if (s->nreduces >= 0) {
		r = (uint64_t)s->nreduces;
		if (r == 0 && total)
			return job_fail(err, source, s, "0 reduces, but shuffle or output bytes to reduce");
	} else if (!total) {
		r = 0;
	} else {
		uint64_t rem = total % p->bytes_per_reduce;
		r = total / p->bytes_per_reduce + (rem >= p->bytes_per_reduce - rem);   /* half up */
		if (r < 1)
			r = 1;
		if (r > (uint64_t)p->max_reduces)
			r = (uint64_t)p->max_reduces;
	}
	if (r > WORKLOAD_MAX_TASKS_PER_JOB)
		return job_fail(err, source, s, "%llu reduces (at most %d)", (unsigned long long)r,
				WORKLOAD_MAX_TASKS_PER_JOB);
	*nmaps = (int)m;
	*nreduces = (int)r;
	return 0;
}

/* Unscaled input of map i: an explicit list, blocks of block_size when the
 * count was derived from the block size, an even split when it was given. */
static uint64_t map_input(const struct job_spec *s, const struct workload_params *p, int nmaps, int i)
{
	if (s->map_inputs)
		return s->map_inputs[i];
	if (s->nmaps < 0) {
		uint64_t left = s->input - (uint64_t)i * p->block_size;
		return left < p->block_size ? left : p->block_size;
	}
	return share(s->input, nmaps, i);
}

static void task_init(struct task *t, int id, int job, enum task_kind kind, int index)
{
	memset(t, 0, sizeof(*t));
	t->id = id;
	t->job = job;
	t->kind = kind;
	t->index = index;
	t->replicas[0] = t->replicas[1] = t->replicas[2] = -1;   /* placed by the runtime */
	t->state = TASK_PENDING;
	t->server = -1;
}

static void fill_maps(struct task *tasks, const struct job *j, const struct job_spec *s,
		      const struct workload_params *p, double ds, double ts)
{
	/* Maps' inputs scaled down to the byte, the last map taking the rest
	 * (under a byte per map more than its share): equal blocks stay
	 * equal, and the inputs sum to the job's scaled input exactly. */
	uint64_t given = 0;
	for (int i = 0; i < j->nmaps; i++) {
		struct task *t = job_map(tasks, j, i);
		uint64_t in = map_input(s, p, j->nmaps, i);
		double d = s->map_durations ? s->map_durations[i]
			 : s->map_duration >= 0 ? s->map_duration
			 : p->map_overhead_s + (double)in / p->map_rate;
		task_init(t, j->first_task + i, j->id, TASK_MAP, i);
		t->input_bytes = i < j->nmaps - 1 ? scale_bytes_down(in, ds) : j->input_bytes - given;
		t->output_bytes = share(j->shuffle_bytes, j->nmaps, i);
		t->duration_s = scale_time(d, ts, p->time_floor_s);
		given += t->input_bytes;
	}
}

static void fill_reduces(struct task *tasks, const struct job *j, const struct job_spec *s,
			 const struct workload_params *p, double ts)
{
	for (int i = 0; i < j->nreduces; i++) {
		struct task *t = job_reduce(tasks, j, i);
		uint64_t bytes = share(s->shuffle, j->nreduces, i) + share(s->output, j->nreduces, i);
		double d = s->reduce_durations ? s->reduce_durations[i]
			 : s->reduce_duration >= 0 ? s->reduce_duration
			 : p->reduce_overhead_s + (double)bytes / p->reduce_rate;
		task_init(t, j->first_task + j->nmaps + i, j->id, TASK_REDUCE, i);
		t->input_bytes = share(j->shuffle_bytes, j->nreduces, i);
		t->output_bytes = share(j->output_bytes, j->nreduces, i);
		t->duration_s = scale_time(d, ts, p->time_floor_s);
	}
}

static void fill_job(struct job *j, int id, const struct job_spec *s, const struct workload_params *p,
		     double ds, double ts)
{
	memset(j, 0, sizeof(*j));
	j->id = id;
	snprintf(j->name, sizeof(j->name), "%s", s->name);
	j->submit_s = s->submit * ts;
	j->pred_submit_s = s->has_pred_submit ? s->pred_submit * ts : j->submit_s;
	j->input_bytes = scale_bytes(s->input, ds);
	j->shuffle_bytes = scale_bytes(s->shuffle, ds);
	j->output_bytes = scale_bytes(s->output, ds);
	j->pred_shuffle_bytes = s->has_pred_shuffle ? scale_bytes(s->pred_shuffle, ds) : j->shuffle_bytes;
	j->recurring = s->recurring;
	j->ndeps = s->ndeps;
	memcpy(j->deps, s->deps, sizeof(j->deps));
	j->deadline_s = s->deadline * ts;
	j->cpu = s->cpu >= 0 ? s->cpu : p->task_cpu;
	j->mem_gb = s->mem_gb >= 0 ? s->mem_gb : p->task_mem_gb;
}

int workload_build(struct workload *w, const struct job_spec *specs, int n, const struct workload_params *p,
		   bool prescaled, const char *source, char err[512])
{
	memset(w, 0, sizeof(*w));
	if (workload_params_check(p, err))
		return -1;
	double ds = prescaled ? 1 : p->data_scale, ts = prescaled ? 1 : p->time_scale;
	int *nm = calloc((size_t)n + 1, sizeof(int)), *nr = calloc((size_t)n + 1, sizeof(int));
	if (!nm || !nr)
		goto oom;
	long long ntasks = 0;
	for (int i = 0; i < n; i++) {
		const struct job_spec *s = &specs[i];
		if (derive_counts(s, p, source, &nm[i], &nr[i], err))
			goto fail;
		for (int d = 0; d < s->ndeps; d++)
			if (s->deps[d] < 0 || s->deps[d] >= i) {
				job_fail(err, source, s, "dependency on a job that is not an earlier one");
				goto fail;
			}
		ntasks += nm[i] + nr[i];
		if (ntasks > INT_MAX / 2) {
			job_fail(err, source, s, "the workload has more than %d tasks", INT_MAX / 2);
			goto fail;
		}
	}
	w->jobs = calloc((size_t)n + 1, sizeof(*w->jobs));
	w->tasks = calloc((size_t)ntasks + 1, sizeof(*w->tasks));
	if (!w->jobs || !w->tasks)
		goto oom;
	int first = 0;
	for (int i = 0; i < n; i++) {
		struct job *j = &w->jobs[i];
		fill_job(j, i, &specs[i], p, ds, ts);
		j->nmaps = nm[i];
		j->nreduces = nr[i];
		j->first_task = first;
		fill_maps(w->tasks, j, &specs[i], p, ds, ts);
		fill_reduces(w->tasks, j, &specs[i], p, ts);
		first += nm[i] + nr[i];
	}
	w->njobs = n;
	w->ntasks = (int)ntasks;
	w->params = *p;
	snprintf(w->source, sizeof(w->source), "%s", source);
	free(nm);
	free(nr);
	return 0;
oom:
	fail(err, "%s: out of memory", source);
fail:
	free(nm);
	free(nr);
	workload_free(w);
	return -1;
}

void workload_free(struct workload *w)
{
	if (!w)
		return;
	free(w->jobs);
	free(w->tasks);
	memset(w, 0, sizeof(*w));
}

/* A growable array of specs, shared by both readers. */
struct specs {
	struct job_spec *v;
	int n, cap;
};

static struct job_spec *specs_add(struct specs *a)
{
	if (a->n == a->cap) {
		int cap = a->cap ? 2 * a->cap : 64;
		struct job_spec *v = realloc(a->v, (size_t)cap * sizeof(*v));
		if (!v)
			return NULL;
		a->v = v;
		a->cap = cap;
	}
	struct job_spec *s = &a->v[a->n++];
	job_spec_init(s);
	return s;
}

/* A job name is written into JSON and CSV files: valid UTF-8 (jansson
 * refuses anything else, so the workload could not be written natively)
 * and no control characters. */
static bool job_name_ok(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	json_t *j = json_string(name);
	json_decref(j);
	return j != NULL;
}

/* ------------------------------------------------------------------ SWIM */

/* A whole field as a non-negative number: 0, or -1 not a number, -2 negative. */
static int parse_number(const char *f, double *v)
{
	char *end;
	if (!*f || isspace((unsigned char)*f))
		return -1;
	errno = 0;
	double x = strtod(f, &end);
	if (*end || errno || !isfinite(x))
		return -1;
	if (x < 0)
		return -2;
	*v = x;
	return 0;
}

/* Byte counts: digits are read exactly (beyond 2^53 too); other numeric
 * forms ("1.5e9") are rounded.  -3 = larger than MAX_BYTES. */
static int parse_bytes(const char *f, uint64_t *v)
{
	if (*f && strspn(f, "0123456789") == strlen(f)) {
		errno = 0;
		unsigned long long x = strtoull(f, NULL, 10);
		if (errno || x > MAX_BYTES)
			return -3;
		*v = x;
		return 0;
	}
	double x;
	int rc = parse_number(f, &x);
	if (rc)
		return rc;
	if (x > (double)MAX_BYTES)
		return -3;
	*v = (uint64_t)llround(x);
	return 0;
}

static const char *const swim_columns[6] = {
	"job id", "submit time", "gap", "input bytes", "shuffle bytes", "output bytes"};

static int swim_field_error(char *err, const char *path, int line, int col, const char *f, int rc)
{
	const char *why = rc == -2 ? "is negative" : rc == -3 ? "is too large (over 1e18)" : "is not a number";
	return fail(err, "%s:%d: column %d (%s): '%.40s' %s", path, line, col + 1, swim_columns[col], f, why);
}

/* Split a line into exactly 6 tab-separated fields (in place). */
static int swim_split(char *line, char *f[6])
{
	int n = 0;
	for (char *p = line;; n++) {
		char *tab = strchr(p, '\t');
		if (n < 6)
			f[n] = p;
		if (!tab)
			return n + 1;
		*tab = 0;
		p = tab + 1;
	}
}

static int swim_line(char *line, const char *path, int lineno, struct job_spec *s, char *err)
{
	char *f[6];
	int n = swim_split(line, f);
	if (n != 6)
		return fail(err, "%s:%d: expected 6 tab-separated columns (job id, submit time, gap, "
			    "input, shuffle, output bytes), found %d", path, lineno, n);
	size_t len = strlen(f[0]);
	if (!len || len >= sizeof(s->name))
		return fail(err, "%s:%d: column 1 (job id): must be 1..%zu characters", path, lineno,
			    sizeof(s->name) - 1);
	if (!job_name_ok(f[0]))
		return fail(err, "%s:%d: column 1 (job id): not valid UTF-8 or has control characters", path, lineno);
	memcpy(s->name, f[0], len + 1);
	s->line = lineno;
	double gap;
	int rc;
	if ((rc = parse_number(f[1], &s->submit)))
		return swim_field_error(err, path, lineno, 1, f[1], rc);
	if ((rc = parse_number(f[2], &gap)))
		return swim_field_error(err, path, lineno, 2, f[2], rc);
	uint64_t *bytes[3] = {&s->input, &s->shuffle, &s->output};
	for (int c = 3; c < 6; c++)
		if ((rc = parse_bytes(f[c], bytes[c - 3])))
			return swim_field_error(err, path, lineno, c, f[c], rc);
	return 0;
}

static bool blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

static int spec_cmp_name(const void *a, const void *b)
{
	const struct job_spec *x = *(const struct job_spec *const *)a, *y = *(const struct job_spec *const *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->line - y->line;
}

/* Job ids are unique (a native file requires it, and the workload must be
 * writable as one): sorted, in O(n log n) for traces of 10^5 jobs. */
static int swim_unique(const struct specs *a, const char *path, char *err)
{
	const struct job_spec **v = malloc((size_t)a->n * sizeof(*v));
	if (!v)
		return fail(err, "%s: out of memory", path);
	for (int i = 0; i < a->n; i++)
		v[i] = &a->v[i];
	qsort(v, (size_t)a->n, sizeof(*v), spec_cmp_name);
	int rc = 0;
	for (int i = 1; i < a->n && !rc; i++)
		if (!strcmp(v[i]->name, v[i - 1]->name))
			rc = fail(err, "%s:%d: column 1 (job id): '%s' is already the id of the job on line %d", path,
				  v[i]->line, v[i]->name, v[i - 1]->line);
	free(v);
	return rc;
}

static int swim_parse(FILE *in, const char *path, const struct workload_params *p, int max_jobs, struct specs *a,
		      char *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, rc = 0;
	while ((max_jobs <= 0 || a->n < max_jobs) && (len = getline(&line, &cap, in)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (strlen(line) != (size_t)len) {
			rc = fail(err, "%s:%d: NUL byte in line", path, lineno);
			break;
		}
		if (blank(line))
			continue;
		struct job_spec *s = specs_add(a);
		if (!s) {
			rc = fail(err, "%s: out of memory", path);
			break;
		}
		if ((rc = swim_line(line, path, lineno, s, err)))
			break;
		if (a->n > 1 && s->submit < a->v[a->n - 2].submit) {
			rc = fail(err, "%s:%d: submit time %g is before the previous job's %g "
				  "(SWIM jobs are in submit order)", path, lineno, s->submit, a->v[a->n - 2].submit);
			break;
		}
		if (!job_spec_chosen(s, p)) {
			a->n--;   /* not chosen: the next job of the trace counts instead */
			continue;
		}
		job_spec_fit(s, p);
	}
	if (!rc && ferror(in))
		rc = fail(err, "%s: %s", path, strerror(errno));
	if (!rc && a->n == 0)
		rc = p->min_shuffle ? fail(err, "%s: no job with a shuffle of at least %llu bytes", path,
					   (unsigned long long)p->min_shuffle)
				    : fail(err, "%s: no jobs", path);
	if (!rc)
		rc = swim_unique(a, path, err);
	free(line);
	return rc;
}

int workload_read_swim(struct workload *w, const char *path, const struct workload_params *p, int max_jobs,
		       char err[512])
{
	memset(w, 0, sizeof(*w));
	FILE *in = fopen(path, "r");
	if (!in)
		return fail(err, "%s: %s", path, strerror(errno));
	struct specs a = {0};
	int rc = swim_parse(in, path, p, max_jobs, &a, err);
	fclose(in);
	if (!rc) {
		double t0 = a.v[0].submit;      /* arrivals relative to the first job read */
		for (int i = 0; i < a.n; i++)
			a.v[i].submit -= t0;
		rc = workload_build(w, a.v, a.n, p, false, path, err);
	}
	job_specs_free(a.v, a.n);
	return rc;
}

/* ---------------------------------------------------------------- native */

/* jansson keeps no positions in its tree, so errors are located by walking
 * the (already validated) text again: a cursor that skips JSON values and
 * counts lines.  Only used to place messages and to index the jobs. */
struct jcur {
	const char *p, *end;
	int line;
};

static void jc_ws(struct jcur *c)
{
	for (; c->p < c->end && isspace((unsigned char)*c->p); c->p++)
		if (*c->p == '\n')
			c->line++;
}

static void jc_string(struct jcur *c)
{
	for (c->p++; c->p < c->end && *c->p != '"'; c->p++)
		if (*c->p == '\\')
			c->p++;
	if (c->p < c->end)
		c->p++;
}

static void jc_value(struct jcur *c);

/* Skip an object or array; c->p is at '{' or '['. */
static void jc_container(struct jcur *c)
{
	bool object = *c->p == '{';
	char close = object ? '}' : ']';
	c->p++;
	for (;;) {
		jc_ws(c);
		if (c->p >= c->end)
			return;
		if (*c->p == close) {
			c->p++;
			return;
		}
		if (*c->p == ',') {
			c->p++;
			continue;
		}
		const char *at = c->p;
		if (object) {
			jc_string(c);
			jc_ws(c);
			if (c->p < c->end && *c->p == ':')
				c->p++;
		}
		jc_value(c);
		if (c->p == at)
			c->p++;   /* a byte no value starts with: never loop on it */
	}
}

static void jc_value(struct jcur *c)
{
	jc_ws(c);
	if (c->p >= c->end)
		return;
	if (*c->p == '"')
		jc_string(c);
	else if (*c->p == '{' || *c->p == '[')
		jc_container(c);
	else
		while (c->p < c->end && *c->p && !strchr(",]} \t\r\n", *c->p))
			c->p++;
}

/* With c at an object, move to the value of member key; *line = the key's
 * line.  0 found, -1 not (c is then unspecified). */
static int jc_member(struct jcur *c, const char *key, int *line)
{
	jc_ws(c);
	if (c->p >= c->end || *c->p != '{')
		return -1;
	c->p++;
	for (;;) {
		jc_ws(c);
		if (c->p >= c->end || *c->p == '}')
			return -1;
		if (*c->p == ',') {
			c->p++;
			continue;
		}
		const char *k = c->p + 1;
		int kline = c->line;
		jc_string(c);
		size_t klen = (size_t)(c->p - 1 - k);
		jc_ws(c);
		if (c->p < c->end && *c->p == ':')
			c->p++;
		jc_ws(c);
		if (klen == strlen(key) && !memcmp(k, key, klen)) {
			*line = kline;
			return 0;
		}
		jc_value(c);
	}
}

/* With c at an array, move to element i; *line = its line. */
static int jc_element(struct jcur *c, int i, int *line)
{
	jc_ws(c);
	if (c->p >= c->end || *c->p != '[')
		return -1;
	c->p++;
	for (int k = 0;; k++) {
		jc_ws(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			jc_ws(c);
		}
		if (c->p >= c->end || *c->p == ']')
			return -1;
		if (k == i) {
			*line = c->line;
			return 0;
		}
		jc_value(c);
	}
}

struct native {
	const char *path;
	const char *text;
	size_t len;
	struct jcur *jobs_at;       /* where each job object starts */
	int njobs_at;
	const struct workload_params *params;
	struct specs specs;
	int *names;                 /* open-addressing index of job names: spec index + 1 */
	size_t names_cap;
	char *err;
};

/* Line of job j's member key (and of its element idx, or its member sub),
 * as precise as the text allows; j < 0 = the top-level object. */
static int native_line(const struct native *nf, int j, const char *key, const char *sub, int idx)
{
	struct jcur c = {nf->text, nf->text + nf->len, 1};
	if (j >= 0 && j < nf->njobs_at)
		c = nf->jobs_at[j];
	int line = c.line;
	if (key && !jc_member(&c, key, &line)) {
		if (sub)
			jc_member(&c, sub, &line);
		else if (idx >= 0)
			jc_element(&c, idx, &line);
	}
	return line;
}

static int nfail(struct native *nf, int j, const char *key, const char *sub, int idx, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static int nfail(struct native *nf, int j, const char *key, const char *sub, int idx, const char *fmt, ...)
{
	char msg[ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	int line = native_line(nf, j, key, sub, idx);
	if (j >= 0)
		return fail(nf->err, "%s:%d: job '%s': %s", nf->path, line, nf->specs.v[j].name, msg);
	return fail(nf->err, "%s:%d: %s", nf->path, line, msg);
}

/* Record where each element of the top-level "jobs" array starts. */
static int native_index_jobs(struct native *nf, int n)
{
	struct jcur c = {nf->text, nf->text + nf->len, 1};
	int line;
	nf->jobs_at = calloc((size_t)n + 1, sizeof(*nf->jobs_at));
	if (!nf->jobs_at)
		return -1;
	if (jc_member(&c, "jobs", &line))
		return 0;
	jc_ws(&c);
	if (c.p >= c.end || *c.p != '[')
		return 0;
	c.p++;
	for (int k = 0; k < n; k++) {
		jc_ws(&c);
		if (c.p < c.end && *c.p == ',') {
			c.p++;
			jc_ws(&c);
		}
		if (c.p >= c.end || *c.p == ']')
			break;
		nf->jobs_at[k] = c;
		nf->njobs_at = k + 1;
		jc_value(&c);
	}
	return 0;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;            /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Index of the job called name among those indexed so far, or -1. */
static int names_find(const struct native *nf, const char *name)
{
	size_t mask = nf->names_cap - 1;
	for (size_t i = name_hash(name) & mask; nf->names[i]; i = (i + 1) & mask)
		if (!strcmp(nf->specs.v[nf->names[i] - 1].name, name))
			return nf->names[i] - 1;
	return -1;
}

static void names_add(struct native *nf, int job)
{
	size_t mask = nf->names_cap - 1, i = name_hash(nf->specs.v[job].name) & mask;
	while (nf->names[i])
		i = (i + 1) & mask;
	nf->names[i] = job + 1;
}

/* Value parsers: 0, or -1 after reporting the problem at job j's key. */
static int get_size(struct native *nf, int j, const char *key, const char *sub, int idx, json_t *v, uint64_t *out)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0 && (uint64_t)json_integer_value(v) <= MAX_BYTES) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) <= (double)MAX_BYTES) {
		*out = (uint64_t)llround(json_real_value(v));
		return 0;
	}
	if (json_is_string(v) && !units_parse_size(json_string_value(v), out) && *out <= MAX_BYTES)
		return 0;
	return nfail(nf, j, key, sub, idx, "'%s' must be a size: bytes (a number up to 1e18) or a string "
		     "like \"10GB\" or \"64KiB\"", sub ? sub : key);
}

static int get_seconds(struct native *nf, int j, const char *key, const char *sub, int idx, json_t *v,
		       double *out)
{
	if (json_is_number(v) && nonneg(json_number_value(v))) {
		*out = json_number_value(v);
		return 0;
	}
	if (json_is_string(v) && !units_parse_time(json_string_value(v), out))
		return 0;
	return nfail(nf, j, key, sub, idx, "'%s' must be a non-negative time in seconds (a number, or a "
		     "string like \"90s\" or \"2min\")", sub ? sub : key);
}

static int get_count(struct native *nf, int j, const char *key, json_t *v, int min, int *out)
{
	if (json_is_integer(v) && json_integer_value(v) >= min &&
	    json_integer_value(v) <= WORKLOAD_MAX_TASKS_PER_JOB) {
		*out = (int)json_integer_value(v);
		return 0;
	}
	return nfail(nf, j, key, NULL, -1, "'%s' must be an integer in %d..%d", key, min,
		     WORKLOAD_MAX_TASKS_PER_JOB);
}

static int get_positive(struct native *nf, int j, const char *key, json_t *v, bool zero_ok, double *out)
{
	if (json_is_number(v) && (zero_ok ? nonneg(json_number_value(v)) : positive(json_number_value(v)))) {
		*out = json_number_value(v);
		return 0;
	}
	return nfail(nf, j, key, NULL, -1, "'%s' must be a %s number", key, zero_ok ? "non-negative" : "positive");
}

/* One element of a per-task list, parsed into out (a double or a uint64_t). */
typedef int (*elem_fn)(struct native *nf, int j, const char *key, int idx, json_t *v, void *out);

static int seconds_elem(struct native *nf, int j, const char *key, int idx, json_t *v, void *out)
{
	return get_seconds(nf, j, key, NULL, idx, v, out);
}

static int size_elem(struct native *nf, int j, const char *key, int idx, json_t *v, void *out)
{
	return get_size(nf, j, key, NULL, idx, v, out);
}

/* A run [value, count] of a per-task list: its count, or 0 if v is not one. */
static json_int_t run_count(json_t *v)
{
	if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_integer(json_array_get(v, 1)))
		return 0;
	json_int_t n = json_integer_value(json_array_get(v, 1));
	return n >= 1 && n <= WORKLOAD_MAX_TASKS_PER_JOB ? n : 0;
}

/* A per-task list: each element is one task's value, or a run [value, count]
 * of count tasks (how the writer keeps 10,000 equal maps on one line).
 * Expanded into a fresh array *out of *n elements of elem_size bytes. */
static int get_task_list(struct native *nf, int j, const char *key, json_t *v, size_t elem_size, elem_fn one,
			 void **out, size_t *n)
{
	if (!json_is_array(v))
		return nfail(nf, j, key, NULL, -1, "'%s' must be a list (values, or [value, count] runs)", key);
	size_t total = 0;
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *e = json_array_get(v, i);
		if (json_is_array(e) && !run_count(e))
			return nfail(nf, j, key, NULL, (int)i, "a run in '%s' must be [value, count] with a count "
				     "of 1..%d", key, WORKLOAD_MAX_TASKS_PER_JOB);
		total += json_is_array(e) ? (size_t)run_count(e) : 1;
		if (total > WORKLOAD_MAX_TASKS_PER_JOB)
			return nfail(nf, j, key, NULL, (int)i, "'%s' lists more than %d tasks", key,
				     WORKLOAD_MAX_TASKS_PER_JOB);
	}
	char *a = calloc(total + 1, elem_size);
	if (!(*out = a))
		return nfail(nf, j, key, NULL, -1, "out of memory");
	*n = total;
	for (size_t i = 0, k = 0; i < json_array_size(v); i++) {
		json_t *e = json_array_get(v, i);
		size_t count = json_is_array(e) ? (size_t)run_count(e) : 1;
		if (one(nf, j, key, (int)i, json_is_array(e) ? json_array_get(e, 0) : e, a + k * elem_size))
			return -1;
		for (size_t c = 1; c < count; c++)
			memcpy(a + (k + c) * elem_size, a + k * elem_size, elem_size);
		k += count;
	}
	return 0;
}

/* "map_duration" / "reduce_duration": one number for every task, or a list. */
static int get_durations(struct native *nf, int j, const char *key, json_t *v, double *one, double **list,
			 size_t *nlist)
{
	if (!json_is_array(v))
		return get_seconds(nf, j, key, NULL, -1, v, one);
	return get_task_list(nf, j, key, v, sizeof(double), seconds_elem, (void **)list, nlist);
}

/* Per-job scratch for the checks that need the whole object. */
struct jobx {
	size_t n_map_durations, n_reduce_durations, n_map_inputs;
};

/* The name is read before the other fields (job_name), so that messages
 * about them can name the job. */
static int field_name(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s, struct jobx *x)
{
	(void)nf, (void)j, (void)k, (void)v, (void)s, (void)x;
	return 0;
}

static int field_submit(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s, struct jobx *x)
{
	(void)x;
	return get_seconds(nf, j, k, NULL, -1, v, &s->submit);
}

static int field_bytes(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s, struct jobx *x)
{
	(void)x;
	uint64_t *out = !strcmp(k, "input") ? &s->input : !strcmp(k, "shuffle") ? &s->shuffle : &s->output;
	return get_size(nf, j, k, NULL, -1, v, out);
}

static int field_counts(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s, struct jobx *x)
{
	(void)x;
	bool maps = !strcmp(k, "maps");
	return get_count(nf, j, k, v, maps ? 1 : 0, maps ? &s->nmaps : &s->nreduces);
}

static int field_durations(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s,
			   struct jobx *x)
{
	if (!strcmp(k, "map_duration"))
		return get_durations(nf, j, k, v, &s->map_duration, &s->map_durations, &x->n_map_durations);
	return get_durations(nf, j, k, v, &s->reduce_duration, &s->reduce_durations, &x->n_reduce_durations);
}

static int field_map_input(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s,
			   struct jobx *x)
{
	return get_task_list(nf, j, k, v, sizeof(uint64_t), size_elem, (void **)&s->map_inputs, &x->n_map_inputs);
}

static int field_recurring(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s,
			   struct jobx *x)
{
	(void)x;
	if (!json_is_boolean(v))
		return nfail(nf, j, k, NULL, -1, "'recurring' must be true or false");
	s->recurring = json_is_true(v);
	return 0;
}

static int field_predicted(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s,
			   struct jobx *x)
{
	(void)x;
	if (!json_is_object(v))
		return nfail(nf, j, k, NULL, -1, "'predicted' must be an object with \"submit\" and/or \"shuffle\"");
	const char *sub;
	json_t *e;
	json_object_foreach(v, sub, e) {
		if (!strcmp(sub, "submit")) {
			if (get_seconds(nf, j, k, sub, -1, e, &s->pred_submit))
				return -1;
			s->has_pred_submit = true;
		} else if (!strcmp(sub, "shuffle")) {
			if (get_size(nf, j, k, sub, -1, e, &s->pred_shuffle))
				return -1;
			s->has_pred_shuffle = true;
		} else {
			return nfail(nf, j, k, sub, -1, "unknown key '%s' in 'predicted' (expected one of: submit, shuffle)",
				     sub);
		}
	}
	return 0;
}

static int field_deps(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s, struct jobx *x)
{
	(void)x;
	if (!json_is_array(v))
		return nfail(nf, j, k, NULL, -1, "'deps' must be a list of names of earlier jobs");
	if (json_array_size(v) > JOB_MAX_DEPS)
		return nfail(nf, j, k, NULL, -1, "at most %d dependencies", JOB_MAX_DEPS);
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *e = json_array_get(v, i);
		int dep = json_is_string(e) ? names_find(nf, json_string_value(e)) : -1;
		if (dep < 0)
			return nfail(nf, j, k, NULL, (int)i, "dependency %s%s%s is not the name of an earlier job",
				     json_is_string(e) ? "'" : "#", json_is_string(e) ? json_string_value(e) : "",
				     json_is_string(e) ? "'" : "");
		for (int d = 0; d < s->ndeps; d++)
			if (s->deps[d] == dep)
				return nfail(nf, j, k, NULL, (int)i, "dependency '%s' listed twice",
					     json_string_value(e));
		s->deps[s->ndeps++] = dep;
	}
	return 0;
}

static int field_deadline(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s,
			  struct jobx *x)
{
	(void)x;
	return get_seconds(nf, j, k, NULL, -1, v, &s->deadline);
}

static int field_resources(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s,
			   struct jobx *x)
{
	(void)x;
	if (!strcmp(k, "cpu"))
		return get_positive(nf, j, k, v, false, &s->cpu);
	return get_positive(nf, j, k, v, true, &s->mem_gb);
}

static int field_comment(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s,
			 struct jobx *x)
{
	(void)s, (void)x;
	return json_is_string(v) ? 0 : nfail(nf, j, k, NULL, -1, "'comment' must be a string");
}

typedef int (*field_fn)(struct native *, int, const char *, json_t *, struct job_spec *, struct jobx *);
static const struct field {
	const char *key;
	field_fn fn;
} job_fields[] = {
	{"name", field_name}, {"submit", field_submit}, {"input", field_bytes}, {"shuffle", field_bytes},
	{"output", field_bytes}, {"maps", field_counts}, {"reduces", field_counts},
	{"map_duration", field_durations}, {"reduce_duration", field_durations}, {"map_input", field_map_input},
	{"recurring", field_recurring}, {"predicted", field_predicted}, {"deps", field_deps},
	{"deadline", field_deadline}, {"cpu", field_resources}, {"mem_gb", field_resources},
	{"comment", field_comment},
};
#define NFIELDS (sizeof(job_fields) / sizeof(job_fields[0]))

static int unknown_key(struct native *nf, int j, const char *key, const struct field *f, size_t n)
{
	char list[ERRLEN] = "";
	size_t len = 0;
	for (size_t i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", f[i].key);
	return nfail(nf, j, key, NULL, -1, "unknown key '%s' (expected one of: %s)", key, list);
}

static int job_name(struct native *nf, int j, json_t *o, struct job_spec *s)
{
	json_t *v = json_object_get(o, "name");
	snprintf(s->name, sizeof(s->name), "job%d", j);
	if (v) {
		if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) >= sizeof(s->name) ||
		    strlen(json_string_value(v)) != json_string_length(v) || !job_name_ok(json_string_value(v)))
			return nfail(nf, j, "name", NULL, -1,
				     "'name' must be a string of 1..%zu characters, none a control character",
				     sizeof(s->name) - 1);
		snprintf(s->name, sizeof(s->name), "%s", json_string_value(v));
	}
	/* Default names too: {"name": "job1"} then an unnamed second job would
	 * give two jobs one name (and deps and the written file an ambiguity). */
	if (names_find(nf, s->name) >= 0)
		return nfail(nf, j, v ? "name" : NULL, NULL, -1, "another job is already called '%s'%s", s->name,
			     v ? "" : " (this job's default name: give it a 'name')");
	return 0;
}

/* The checks that involve several keys of one job. */
static int job_check(struct native *nf, int j, json_t *o, const struct job_spec *s, const struct jobx *x)
{
	if (!json_object_get(o, "input"))
		return nfail(nf, j, NULL, NULL, -1, "missing 'input' (bytes the maps read)");
	if (s->map_durations && (s->nmaps < 0 || x->n_map_durations != (size_t)s->nmaps))
		return nfail(nf, j, "map_duration", NULL, -1, "a list of map durations needs 'maps' and one "
			     "value per map (%zu values)", x->n_map_durations);
	if (s->reduce_durations && (s->nreduces < 0 || x->n_reduce_durations != (size_t)s->nreduces))
		return nfail(nf, j, "reduce_duration", NULL, -1, "a list of reduce durations needs 'reduces' "
			     "and one value per reduce (%zu values)", x->n_reduce_durations);
	if (s->map_inputs) {
		if (s->nmaps < 0 || x->n_map_inputs != (size_t)s->nmaps)
			return nfail(nf, j, "map_input", NULL, -1, "'map_input' needs 'maps' and one size per map "
				     "(%zu values)", x->n_map_inputs);
		uint64_t sum = 0;
		for (size_t i = 0; i < x->n_map_inputs; i++)
			sum += s->map_inputs[i];
		if (sum != s->input)
			return nfail(nf, j, "map_input", NULL, -1, "'map_input' sums to %llu bytes, not the "
				     "input's %llu", (unsigned long long)sum, (unsigned long long)s->input);
	}
	if (s->nreduces == 0 && (s->shuffle || s->output))
		return nfail(nf, j, "reduces", NULL, -1, "0 reduces, but shuffle or output bytes to reduce");
	return 0;
}

static int native_job(struct native *nf, int j, json_t *o)
{
	struct job_spec *s = specs_add(&nf->specs);
	if (!s)
		return fail(nf->err, "%s: out of memory", nf->path);
	s->line = native_line(nf, j, NULL, NULL, -1);
	if (!json_is_object(o)) {
		snprintf(s->name, sizeof(s->name), "job%d", j);
		return nfail(nf, j, NULL, NULL, -1, "a job must be a JSON object");
	}
	if (job_name(nf, j, o, s))
		return -1;
	struct jobx x = {0};
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v) {
		const struct field *f = NULL;
		for (size_t i = 0; i < NFIELDS && !f; i++)
			if (!strcmp(job_fields[i].key, key))
				f = &job_fields[i];
		if (!f)
			return unknown_key(nf, j, key, job_fields, NFIELDS);
		if (f->fn(nf, j, key, v, s, &x))
			return -1;
	}
	if (job_check(nf, j, o, s, &x))
		return -1;
	names_add(nf, j);
	return 0;
}

static int native_top(struct native *nf, json_t *root, json_t **jobs, bool *scaled)
{
	static const struct field top[] = {{"jobs", NULL}, {"scaled", NULL}, {"comment", NULL}};
	if (!json_is_object(root))
		return nfail(nf, -1, NULL, NULL, -1, "expected a JSON object with a \"jobs\" list");
	const char *key;
	json_t *v;
	json_object_foreach(root, key, v) {
		if (!strcmp(key, "jobs") && !json_is_array(v))
			return nfail(nf, -1, key, NULL, -1, "\"jobs\" must be a list of job objects");
		if (!strcmp(key, "scaled") && !json_is_boolean(v))
			return nfail(nf, -1, key, NULL, -1, "\"scaled\" must be true or false");
		if (!strcmp(key, "comment") && !json_is_string(v))
			return nfail(nf, -1, key, NULL, -1, "\"comment\" must be a string");
		if (strcmp(key, "jobs") && strcmp(key, "scaled") && strcmp(key, "comment"))
			return unknown_key(nf, -1, key, top, 3);
	}
	*jobs = json_object_get(root, "jobs");
	if (!*jobs)
		return nfail(nf, -1, NULL, NULL, -1, "missing \"jobs\" (a list of job objects)");
	*scaled = json_is_true(json_object_get(root, "scaled"));
	return 0;
}

static int native_parse(struct native *nf, int max_jobs, bool *scaled)
{
	json_error_t je;
	json_t *root = json_loadb(nf->text, nf->len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return fail(nf->err, "%s:%d: %s", nf->path, je.line, je.text);
	json_t *jobs;
	int rc = native_top(nf, root, &jobs, scaled);
	if (!rc) {
		int n = (int)json_array_size(jobs);
		if (max_jobs > 0 && n > max_jobs)
			n = max_jobs;
		nf->names_cap = 16;
		while (nf->names_cap < 2 * (size_t)n)
			nf->names_cap *= 2;
		nf->names = calloc(nf->names_cap, sizeof(int));
		if (!nf->names || native_index_jobs(nf, n))
			rc = fail(nf->err, "%s: out of memory", nf->path);
		for (int j = 0; !rc && j < n; j++)
			rc = native_job(nf, j, json_array_get(jobs, j));
	}
	json_decref(root);
	return rc;
}

static char *read_all(const char *path, size_t *len, char *err)
{
	FILE *in = fopen(path, "rb");
	if (!in) {
		fail(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	char *buf = NULL;
	size_t cap = 0, n = 0, got;
	do {
		if (n + 65536 > cap) {
			char *b = realloc(buf, cap = 2 * cap + 65536);
			if (!b) {
				free(buf);
				fclose(in);
				fail(err, "%s: out of memory", path);
				return NULL;
			}
			buf = b;
		}
		got = fread(buf + n, 1, cap - n - 1, in);
		n += got;
	} while (got);
	if (ferror(in)) {
		fail(err, "%s: %s", path, strerror(errno));
		free(buf);
		buf = NULL;
	} else {
		buf[n] = 0;
		*len = n;
	}
	fclose(in);
	return buf;
}

static int read_native(struct workload *w, const char *path, const struct workload_params *p, int max_jobs,
		       char *err)
{
	memset(w, 0, sizeof(*w));
	if (p->min_shuffle || p->max_maps)
		return fail(err, "%s: a native workload lists its jobs as they are: min_shuffle and max_maps "
			    "choose and fit the jobs of a SWIM trace or of the generator", path);
	struct native nf = {.path = path, .params = p, .err = err};
	char *text = read_all(path, &nf.len, err);
	if (!text)
		return -1;
	nf.text = text;
	bool scaled = false;
	int rc = 0;
	/* jansson accepts a raw NUL after a number ("maps": 8\0,), which JSON
	 * does not allow and the line cursor below cannot step over. */
	const char *nul = memchr(text, 0, nf.len);
	if (nul) {
		int line = 1;
		for (const char *q = text; q < nul; q++)
			line += *q == '\n';
		rc = fail(err, "%s:%d: NUL byte in the file", path, line);
	}
	if (!rc)
		rc = native_parse(&nf, max_jobs, &scaled);
	if (!rc)
		rc = workload_build(w, nf.specs.v, nf.specs.n, p, scaled, path, err);
	job_specs_free(nf.specs.v, nf.specs.n);
	free(nf.names);
	free(nf.jobs_at);
	free(text);
	return rc;
}

int workload_read_native(struct workload *w, const char *path, const struct workload_params *p, char err[512])
{
	return read_native(w, path, p, 0, err);
}

int workload_read(struct workload *w, const char *path, const struct workload_params *p, int max_jobs,
		  char err[512])
{
	memset(w, 0, sizeof(*w));
	FILE *in = fopen(path, "r");
	if (!in)
		return fail(err, "%s: %s", path, strerror(errno));
	int c;
	while ((c = fgetc(in)) != EOF && isspace(c))
		;
	fclose(in);
	if (c == '{')
		return read_native(w, path, p, max_jobs, err);
	return workload_read_swim(w, path, p, max_jobs, err);
}

/* ---------------------------------------------------------------- writer */

/* The file is written by hand rather than dumped by jansson, to print
 * numbers in their shortest exact form (4.68435456, not
 * 4.6843545600000001) and per-task lists as runs. */
struct out {
	FILE *f;
	bool first;             /* no comma before the next key */
};

static void put_key(struct out *o, const char *key)
{
	fprintf(o->f, "%s\"%s\": ", o->first ? "" : ", ", key);
	o->first = false;
}

/* The shortest %g form that reads back as the same double. */
static void put_real(FILE *f, double v)
{
	char buf[40];
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

static int put_string(FILE *f, const char *s)
{
	json_t *j = json_string(s);
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	json_decref(j);
	if (!text)
		return -1;
	fputs(text, f);
	free(text);
	return 0;
}

/* One per-task value: an input size, or a duration. */
static bool same_value(const struct task *a, const struct task *b, bool inputs)
{
	return inputs ? a->input_bytes == b->input_bytes : a->duration_s == b->duration_s;
}

static void put_value(FILE *f, const struct task *t, bool inputs)
{
	if (inputs)
		fprintf(f, "%llu", (unsigned long long)t->input_bytes);
	else
		put_real(f, t->duration_s);
}

/* n tasks' values: a single value when all are equal (durations only),
 * else a list where equal neighbours become [value, count] runs. */
static void put_task_values(FILE *f, const struct task *t, int n, bool inputs)
{
	int runs = 0;
	for (int i = 0; i < n; i++)
		runs += i == 0 || !same_value(&t[i], &t[i - 1], inputs);
	if (runs == 1 && !inputs) {
		put_value(f, &t[0], inputs);
		return;
	}
	fputc('[', f);
	for (int i = 0; i < n;) {
		int k = i;
		while (k < n && same_value(&t[k], &t[i], inputs))
			k++;
		fputs(i ? ", " : "", f);
		if (k - i > 1)
			fputc('[', f);
		put_value(f, &t[i], inputs);
		if (k - i > 1)
			fprintf(f, ", %d]", k - i);
		i = k;
	}
	fputc(']', f);
}

/* Maps' inputs differ from the even split a reader would make? */
static bool uneven_inputs(const struct task *maps, const struct job *j)
{
	for (int i = 0; i < j->nmaps; i++)
		if (maps[i].input_bytes != share(j->input_bytes, j->nmaps, i))
			return true;
	return false;
}

/* Everything as it will run (emulated units): counts, per-task durations
 * and inputs, so a re-read makes the same tasks whatever the params. */
static int put_job(FILE *f, const struct workload *w, const struct job *j)
{
	const struct task *maps = &w->tasks[j->first_task], *reds = maps + j->nmaps;
	struct out o = {f, true};
	fputc('{', f);
	put_key(&o, "name");
	if (put_string(f, j->name))
		return -1;
	put_key(&o, "submit");
	put_real(f, j->submit_s);
	fprintf(f, ", \"input\": %llu, \"shuffle\": %llu, \"output\": %llu, \"maps\": %d, \"reduces\": %d",
		(unsigned long long)j->input_bytes, (unsigned long long)j->shuffle_bytes,
		(unsigned long long)j->output_bytes, j->nmaps, j->nreduces);
	put_key(&o, "map_duration");
	put_task_values(f, maps, j->nmaps, false);
	if (uneven_inputs(maps, j)) {
		put_key(&o, "map_input");
		put_task_values(f, maps, j->nmaps, true);
	}
	if (j->nreduces) {
		put_key(&o, "reduce_duration");
		put_task_values(f, reds, j->nreduces, false);
	}
	if (j->recurring)
		fputs(", \"recurring\": true", f);
	if (j->pred_submit_s != j->submit_s || j->pred_shuffle_bytes != j->shuffle_bytes) {
		struct out p = {f, true};
		put_key(&o, "predicted");
		fputc('{', f);
		if (j->pred_submit_s != j->submit_s) {
			put_key(&p, "submit");
			put_real(f, j->pred_submit_s);
		}
		if (j->pred_shuffle_bytes != j->shuffle_bytes) {
			put_key(&p, "shuffle");
			fprintf(f, "%llu", (unsigned long long)j->pred_shuffle_bytes);
		}
		fputc('}', f);
	}
	if (j->ndeps) {
		put_key(&o, "deps");
		for (int i = 0; i < j->ndeps; i++) {
			fputs(i ? ", " : "[", f);
			if (put_string(f, w->jobs[j->deps[i]].name))
				return -1;
		}
		fputc(']', f);
	}
	if (j->deadline_s > 0) {
		put_key(&o, "deadline");
		put_real(f, j->deadline_s);
	}
	put_key(&o, "cpu");
	put_real(f, j->cpu);
	put_key(&o, "mem_gb");
	put_real(f, j->mem_gb);
	fputc('}', f);
	return 0;
}

static int write_jobs(FILE *f, const struct workload *w)
{
	char comment[512];
	snprintf(comment, sizeof(comment), "written by emu from %s; values are in emulated units "
		 "(data_scale %g, time_scale %g applied)", w->source, w->params.data_scale, w->params.time_scale);
	fputs("{\"comment\": ", f);
	if (put_string(f, comment))
		return -1;
	fputs(",\n \"scaled\": true,\n \"jobs\": [\n", f);
	/* One job per line: readable, diffable, and error lines point at jobs. */
	for (int i = 0; i < w->njobs; i++) {
		fputs("  ", f);
		if (put_job(f, w, &w->jobs[i]))
			return -1;
		fputs(i + 1 < w->njobs ? ",\n" : "\n", f);
	}
	fputs("]}\n", f);
	return 0;
}

int workload_write_native(const struct workload *w, const char *path)
{
	for (int i = 0; i < w->njobs; i++)
		if (w->jobs[i].input_bytes > MAX_BYTES || w->jobs[i].shuffle_bytes > MAX_BYTES ||
		    w->jobs[i].output_bytes > MAX_BYTES) {
			errno = ERANGE;
			return -1;
		}
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int rc = write_jobs(f, w);
	if (rc && !errno)
		errno = ENOMEM;
	if (ferror(f))
		rc = -1;
	if (fclose(f))
		rc = -1;
	return rc;
}
