/* workload_native.c — jobs from a native JSON workload file.
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
 *       "map_duration": 12.5,               optional: work per map, in seconds on the reference
 *                                           server (speed 1; unscaled), or a list of one
 *                                           value per map (needs "maps"); a task's duration
 *                                           is its work over its server's speed
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
 *       "lineage": true,                    its input is its deps' output (where their last
 *                                           stage wrote it), then "input" as a base input
 *                                           (default 0); default false: "input" is new data
 *       "deadline": 600,                    seconds after submission, 0 = none
 *       "cluster": 2,                       the logical cluster (queue) it is submitted to,
 *                                           1..; default 0: none (multi-cluster policies,
 *                                           e.g. fawkes, put it in the first)
 *       "cpu": 1, "mem_gb": 2,              what each task asks of a server with resources:
 *       "disk_mbps": 0,                     cores, GB, MB/s; default task_cpu, task_mem_gb, 0
 *                                           (a server with slots gives every task one slot)
 *       "map_resources": {"cpu": 2},        the same keys for one stage's tasks, over the
 *       "reduce_resources": {"mem_gb": 4},  job's
 *       "comment": "anything"}              ignored
 *      {"name": "q1", "input": "8GB",       a job as a DAG of stages (instead of shuffle,
 *       "stages": [                         output, maps, reduces and their keys):
 *         {"name": "scan", "tasks": 64,     the first stage reads the input (even split);
 *          "work": 4, "output": "2GB"},     work: seconds per task on the reference server
 *                                           (or a list; default from bytes as a map's or a
 *                                           reduce's); output: bytes the stage writes
 *         {"name": "agg", "tasks": 8, "cpu": 2, "output": "100MB",
 *          "parents": {"scan": "shuffle"}}, every later stage reads earlier ones: "shuffle",
 *                                           "one-to-one" (as many tasks) or "broadcast"; a
 *                                           list of names means shuffles; cpu, mem_gb,
 *                                           disk_mbps: its tasks' ask (default the job's)
 *       ]}
 *    ]}
 *
 * Jobs need not be in submit order; workload_read's max_jobs keeps the first
 * N jobs of the list.
 *
 * Unknown keys are errors (a typo must not silently change an experiment),
 * and every error names the file and the line of the offending key.  Times
 * in the file are unscaled unless "scaled" is true; sizes likewise. */
#include "emu/workload.h"
#include "emu/workload_spec.h"
#include "emu/stages.h"
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
	char msg[WORKLOAD_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	int line = native_line(nf, j, key, sub, idx);
	if (j >= 0)
		return workload_fail(nf->err, "%s:%d: job '%s': %s", nf->path, line, nf->specs.v[j].name, msg);
	return workload_fail(nf->err, "%s:%d: %s", nf->path, line, msg);
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

/* A size: bytes (a number) or a string like "10GB"; false if it is none. */
static bool size_value(json_t *v, uint64_t *out)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0 && (uint64_t)json_integer_value(v) <= WORKLOAD_MAX_BYTES) {
		*out = (uint64_t)json_integer_value(v);
		return true;
	}
	if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) <= (double)WORKLOAD_MAX_BYTES) {
		*out = (uint64_t)llround(json_real_value(v));
		return true;
	}
	return json_is_string(v) && !units_parse_size(json_string_value(v), out) && *out <= WORKLOAD_MAX_BYTES;
}
#define SIZE_WANTED "a size: bytes (a number up to 1e18) or a string like \"10GB\" or \"64KiB\""

/* Value parsers: 0, or -1 after reporting the problem at job j's key. */
static int get_size(struct native *nf, int j, const char *key, const char *sub, int idx, json_t *v, uint64_t *out)
{
	return size_value(v, out) ? 0 : nfail(nf, j, key, sub, idx, "'%s' must be " SIZE_WANTED, sub ? sub : key);
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
		return nfail(nf, j, k, NULL, -1, "'%s' must be true or false", k);
	*(!strcmp(k, "lineage") ? &s->lineage : &s->recurring) = json_is_true(v);
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

static int field_cluster(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s,
			 struct jobx *x)
{
	(void)x;
	return get_count(nf, j, k, v, 0, &s->cluster);
}

/* A task's ask: "cpu" (cores, > 0), "mem_gb", "disk_mbps" (>= 0). */
static const char *const ask_keys[RES_KINDS] = {[RES_CORES] = "cpu", [RES_MEM] = "mem_gb", [RES_DISK] = "disk_mbps"};

static int ask_kind(const char *k)
{
	for (int r = 0; r < RES_KINDS; r++)
		if (!strcmp(k, ask_keys[r]))
			return r;
	return -1;
}

/* An ask's value, or NULL and *out set; else what it must be. */
static const char *ask_value(const char *name, json_t *v, double *out)
{
	/* Every task asks for some CPU, counted in thousandths of a core. */
	bool cpu = !strcmp(name, "cpu");
	if (json_is_number(v) && nonneg(json_number_value(v)) && json_number_value(v) >= (cpu ? 0.001 : 0)) {
		*out = json_number_value(v);
		return NULL;
	}
	return cpu ? "a number of at least 0.001 (a thousandth of a core)" : "a non-negative number";
}

static int get_ask(struct native *nf, int j, const char *key, const char *sub, json_t *v, double *out)
{
	const char *name = sub ? sub : key, *want = ask_value(name, v, out);
	return want ? nfail(nf, j, key, sub, -1, "'%s' must be %s", name, want) : 0;
}

static int field_resources(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s,
			   struct jobx *x)
{
	(void)x;
	return get_ask(nf, j, k, NULL, v, &s->ask[ask_kind(k)]);
}

/* "map_resources" / "reduce_resources": {"cpu": .., "mem_gb": .., "disk_mbps": ..}
 * for that stage's tasks, over the job's. */
static int field_stage_resources(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s,
				 struct jobx *x)
{
	(void)x;
	double *ask = s->stage_ask[!strcmp(k, "map_resources") ? TASK_MAP : TASK_REDUCE];
	if (!json_is_object(v))
		return nfail(nf, j, k, NULL, -1, "'%s' must be an object with \"cpu\", \"mem_gb\" and/or "
			     "\"disk_mbps\"", k);
	const char *sub;
	json_t *e;
	json_object_foreach(v, sub, e) {
		int r = ask_kind(sub);
		if (r < 0)
			return nfail(nf, j, k, sub, -1, "unknown key '%s' in '%s' (expected one of: cpu, mem_gb, "
				     "disk_mbps)", sub, k);
		if (get_ask(nf, j, k, sub, e, &ask[r]))
			return -1;
	}
	return 0;
}

static int field_comment(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s,
			 struct jobx *x)
{
	(void)s, (void)x;
	return json_is_string(v) ? 0 : nfail(nf, j, k, NULL, -1, "'comment' must be a string");
}

/* ---- "stages": a job as a DAG of stages ---------------------------------- */

/* A problem in stage `idx` of job j (reported at the stage's line). */
#define sfail(nf, j, idx, g, fmt, ...) \
	nfail(nf, j, "stages", NULL, idx, "stage '%s': " fmt, (g)->name, ##__VA_ARGS__)

/* "parents": {"name": "shuffle" | "one-to-one" | "broadcast", ...}, or a
 * list of names (each read over a shuffle).  Parents come earlier in the
 * list, so a cycle cannot be written. */
static int stage_parents(struct native *nf, int j, int idx, json_t *v, struct job_spec *s, struct stage_spec *g)
{
	bool list = json_is_array(v);
	if (!list && !json_is_object(v))
		return sfail(nf, j, idx, g, "'parents' must be an object {\"stage\": \"shuffle\", ...} or a list of "
			     "stage names");
	size_t n = list ? json_array_size(v) : json_object_size(v);
	if (n < 1 || n > STAGE_MAX_PARENTS)
		return sfail(nf, j, idx, g, "'parents' must name 1 to %d stages", STAGE_MAX_PARENTS);
	void *it = list ? NULL : json_object_iter(v);
	for (size_t i = 0; i < n; i++) {
		json_t *e = list ? json_array_get(v, i) : json_object_iter_value(it);
		const char *name = list ? json_string_value(e) : json_object_iter_key(it);
		enum edge_kind kind = EDGE_SHUFFLE;
		if (!name)
			return sfail(nf, j, idx, g, "'parents' lists a stage by its name (a string)");
		if (!list && (!json_is_string(e) || edge_kind_parse(json_string_value(e), &kind)))
			return sfail(nf, j, idx, g, "parent '%s': the edge must be \"shuffle\", \"one-to-one\", "
				     "\"broadcast\" or \"tasks\"", name);
		int p = 0;
		while (p < idx && strcmp(s->stages[p].name, name))
			p++;
		if (p == idx)
			return sfail(nf, j, idx, g, "parent '%s' is not an earlier stage (list a stage after its "
				     "parents; a cycle cannot be written)", name);
		for (int q = 0; q < g->nparents; q++)
			if (g->parent[q].stage == p)
				return sfail(nf, j, idx, g, "parent '%s' listed twice", name);
		if (kind == EDGE_ONE_TO_ONE && s->stages[p].tasks != g->tasks)
			return sfail(nf, j, idx, g, "one-to-one from '%s' needs as many tasks (%d, not %d)", name,
				     s->stages[p].tasks, g->tasks);
		g->parent[g->nparents++] = (struct stage_edge){p, kind};
		it = list ? NULL : json_object_iter_next(v, it);
	}
	return 0;
}

static int by_stage_index(const void *a, const void *b)
{
	const struct stage_task_ref *x = a, *y = b;
	return x->stage != y->stage ? (x->stage > y->stage) - (x->stage < y->stage)
				    : (x->index > y->index) - (x->index < y->index);
}

/* "task_parents": one object per task, {"parent stage": [indexes], ...},
 * naming parents this stage reads over a "tasks" edge.  Each task's are kept
 * in (stage, index) order, whatever the object's order. */
static int stage_task_parents(struct native *nf, int j, int idx, json_t *v, struct job_spec *s,
			      struct stage_spec *g)
{
	if (!json_is_array(v) || json_array_size(v) != (size_t)g->tasks)
		return sfail(nf, j, idx, g, "'task_parents' must list one object per task (%d), e.g. "
			     "{\"parent\": [0, 3]}", g->tasks);
	size_t total = 0;
	for (size_t i = 0; i < json_array_size(v); i++) {
		const char *name;
		json_t *list, *e = json_array_get(v, i);
		if (!json_is_object(e))
			return sfail(nf, j, idx, g, "task %zu of 'task_parents' must be an object {\"parent\": [indexes]}", i);
		json_object_foreach(e, name, list)
			total += json_is_array(list) ? json_array_size(list) : 0;
	}
	if (total > (size_t)INT_MAX / 4 || !(g->tp_first = calloc((size_t)g->tasks + 1, sizeof *g->tp_first)) ||
	    !(g->tp = calloc(total + 1, sizeof *g->tp)))
		return sfail(nf, j, idx, g, "out of memory");
	int n = 0;
	for (int i = 0; i < g->tasks; i++) {
		const char *name;
		json_t *list;
		g->tp_first[i] = n;
		json_object_foreach(json_array_get(v, (size_t)i), name, list) {
			int p = 0;
			while (p < idx && strcmp(s->stages[p].name, name))
				p++;
			const struct stage_edge *edge = NULL;
			for (int q = 0; q < g->nparents; q++)
				if (g->parent[q].stage == p)
					edge = &g->parent[q];
			if (!edge || edge->kind != EDGE_TASKS)
				return sfail(nf, j, idx, g, "task %d lists parents in '%s', which is not a parent read "
					     "over a \"tasks\" edge", i, name);
			if (!json_is_array(list))
				return sfail(nf, j, idx, g, "task %d: the parents in '%s' must be a list of indexes", i, name);
			for (size_t k = 0; k < json_array_size(list); k++) {
				json_t *x = json_array_get(list, k);
				if (!json_is_integer(x) || json_integer_value(x) < 0 ||
				    json_integer_value(x) >= s->stages[p].tasks)
					return sfail(nf, j, idx, g, "task %d: parent index in '%s' must be an integer in 0..%d",
						     i, name, s->stages[p].tasks - 1);
				for (int q = g->tp_first[i]; q < n; q++)
					if (g->tp[q].stage == p && g->tp[q].index == (int)json_integer_value(x))
						return sfail(nf, j, idx, g, "task %d lists parent %s[%d] twice", i, name,
							     (int)json_integer_value(x));
				g->tp[n++] = (struct stage_task_ref){p, (int)json_integer_value(x)};
			}
		}
		qsort(g->tp + g->tp_first[i], (size_t)(n - g->tp_first[i]), sizeof *g->tp, by_stage_index);
	}
	g->tp_first[g->tasks] = n;
	return 0;
}

static int stage_work(struct native *nf, int j, int idx, json_t *v, struct stage_spec *g)
{
	if (json_is_array(v)) {
		size_t n = 0;
		if (get_task_list(nf, j, "stages", v, sizeof(double), seconds_elem, (void **)&g->works, &n))
			return -1;
		if (n != (size_t)g->tasks)
			return sfail(nf, j, idx, g, "'work' lists %zu values for %d tasks", n, g->tasks);
		return 0;
	}
	if (json_is_number(v) && nonneg(json_number_value(v))) {
		g->work = json_number_value(v);
		return 0;
	}
	return sfail(nf, j, idx, g, "'work' must be seconds on the reference server (a number, or a list of one "
		     "per task)");
}

static int stage_one(struct native *nf, int j, int idx, json_t *o, struct job_spec *s)
{
	static const char *const keys[] = {"name", "tasks", "work", "output", "cpu", "mem_gb", "disk_mbps",
					   "parents", "task_parents", "comment", NULL};
	struct stage_spec *g = &s->stages[idx];
	g->work = -1;
	for (int k = 0; k < RES_KINDS; k++)
		g->ask[k] = -1;
	g->line = native_line(nf, j, "stages", NULL, idx);
	snprintf(g->name, sizeof g->name, "stage%d", idx);
	if (!json_is_object(o))
		return sfail(nf, j, idx, g, "a stage must be an object {\"name\": .., \"tasks\": .., ...}");
	json_t *v = json_object_get(o, "name");
	if (v) {
		if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) >= sizeof g->name ||
		    strlen(json_string_value(v)) != json_string_length(v) || !job_name_ok(json_string_value(v)))
			return sfail(nf, j, idx, g, "'name' must be a string of 1..%zu characters", sizeof g->name - 1);
		snprintf(g->name, sizeof g->name, "%s", json_string_value(v));
	}
	for (int p = 0; p < idx; p++)
		if (!strcmp(s->stages[p].name, g->name))
			return sfail(nf, j, idx, g, "another stage of the job has this name");
	const char *key;
	json_object_foreach(o, key, v) {
		int i = 0;
		while (keys[i] && strcmp(keys[i], key))
			i++;
		if (!keys[i])
			return sfail(nf, j, idx, g, "unknown key '%s' (expected one of: name, tasks, work, output, cpu, "
				     "mem_gb, disk_mbps, parents, task_parents, comment)", key);
	}
	v = json_object_get(o, "tasks");
	if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > WORKLOAD_MAX_TASKS_PER_JOB)
		return sfail(nf, j, idx, g, "'tasks' (required) must be an integer in 1..%d", WORKLOAD_MAX_TASKS_PER_JOB);
	g->tasks = (int)json_integer_value(v);
	if ((v = json_object_get(o, "work")) && stage_work(nf, j, idx, v, g))
		return -1;
	if ((v = json_object_get(o, "output")) && !size_value(v, &g->output))
		return sfail(nf, j, idx, g, "'output' must be " SIZE_WANTED);
	for (int r = 0; r < RES_KINDS; r++) {
		const char *want;
		if ((v = json_object_get(o, ask_keys[r])) && (want = ask_value(ask_keys[r], v, &g->ask[r])))
			return sfail(nf, j, idx, g, "'%s' must be %s", ask_keys[r], want);
	}
	v = json_object_get(o, "parents");
	if (idx == 0 && v)
		return sfail(nf, j, idx, g, "the first stage reads the job's input: it has no parents");
	if (idx > 0 && !v)
		return sfail(nf, j, idx, g, "'parents' (required after the first stage) names the stages it reads");
	if (v && stage_parents(nf, j, idx, v, s, g))
		return -1;
	bool listed = false;
	for (int q = 0; q < g->nparents; q++)
		listed |= g->parent[q].kind == EDGE_TASKS;
	v = json_object_get(o, "task_parents");
	if (listed && !v)
		return sfail(nf, j, idx, g, "a \"tasks\" edge needs 'task_parents': which parent tasks each task reads");
	if (v && !listed)
		return sfail(nf, j, idx, g, "'task_parents' needs a parent read over a \"tasks\" edge");
	if (v && stage_task_parents(nf, j, idx, v, s, g))
		return -1;
	if ((v = json_object_get(o, "comment")) && !json_is_string(v))
		return sfail(nf, j, idx, g, "'comment' must be a string");
	return 0;
}

static int field_stages(struct native *nf, int j, const char *k, json_t *v, struct job_spec *s, struct jobx *x)
{
	(void)x;
	size_t n = json_is_array(v) ? json_array_size(v) : 0;
	if (n < 1 || n > JOB_MAX_STAGES)
		return nfail(nf, j, k, NULL, -1, "'stages' must be a list of 1 to %d stages, parents first",
			     JOB_MAX_STAGES);
	if (!(s->stages = calloc(n, sizeof *s->stages)))
		return nfail(nf, j, k, NULL, -1, "out of memory");
	s->nstages = (int)n;
	for (size_t i = 0; i < n; i++)
		if (stage_one(nf, j, (int)i, json_array_get(v, i), s))
			return -1;
	return 0;
}

typedef int (*field_fn)(struct native *, int, const char *, json_t *, struct job_spec *, struct jobx *);
static const struct field {
	const char *key;
	field_fn fn;
} job_fields[] = {
	{"name", field_name}, {"submit", field_submit}, {"input", field_bytes}, {"shuffle", field_bytes},
	{"output", field_bytes}, {"maps", field_counts}, {"reduces", field_counts},
	{"map_duration", field_durations}, {"reduce_duration", field_durations}, {"map_input", field_map_input},
	{"recurring", field_recurring}, {"lineage", field_recurring}, {"predicted", field_predicted},
	{"deps", field_deps},
	{"deadline", field_deadline}, {"cluster", field_cluster}, {"cpu", field_resources}, {"mem_gb", field_resources},
	{"disk_mbps", field_resources}, {"map_resources", field_stage_resources},
	{"reduce_resources", field_stage_resources}, {"stages", field_stages}, {"comment", field_comment},
};
#define NFIELDS (sizeof(job_fields) / sizeof(job_fields[0]))

static int unknown_key(struct native *nf, int j, const char *key, const struct field *f, size_t n)
{
	char list[WORKLOAD_ERRLEN] = "";
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
	if (s->lineage && !s->ndeps)
		return nfail(nf, j, "lineage", NULL, -1, "'lineage' reads the output of the job's 'deps': it has none");
	if (!json_object_get(o, "input") && !s->lineage)
		return nfail(nf, j, NULL, NULL, -1, "missing 'input' (bytes the maps read)");
	static const char *const by_stage[] = {"shuffle", "output", "maps", "reduces", "map_duration",
					       "reduce_duration", "map_input", "map_resources", "reduce_resources"};
	for (size_t i = 0; s->nstages && i < sizeof by_stage / sizeof *by_stage; i++)
		if (json_object_get(o, by_stage[i]))
			return nfail(nf, j, by_stage[i], NULL, -1, "'%s' does not go with 'stages' (the stages say "
				     "their tasks, work, outputs and resources)", by_stage[i]);
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
		if (sum != s->input && !s->lineage)   /* a lineage job's: workload_build checks it */
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
		return workload_fail(nf->err, "%s: out of memory", nf->path);
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
		return workload_fail(nf->err, "%s:%d: %s", nf->path, je.line, je.text);
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
			rc = workload_fail(nf->err, "%s: out of memory", nf->path);
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
		workload_fail(err, "%s: %s", path, strerror(errno));
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
				workload_fail(err, "%s: out of memory", path);
				return NULL;
			}
			buf = b;
		}
		got = fread(buf + n, 1, cap - n - 1, in);
		n += got;
	} while (got);
	if (ferror(in)) {
		workload_fail(err, "%s: %s", path, strerror(errno));
		free(buf);
		buf = NULL;
	} else {
		buf[n] = 0;
		*len = n;
	}
	fclose(in);
	return buf;
}

int workload_read_native_n(struct workload *w, const char *path, const struct workload_params *p, int max_jobs,
			   char err[512])
{
	memset(w, 0, sizeof(*w));
	if (p->min_shuffle || p->max_maps)
		return workload_fail(err, "%s: a native workload lists its jobs as they are: min_shuffle and max_maps "
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
		rc = workload_fail(err, "%s:%d: NUL byte in the file", path, line);
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
	return workload_read_native_n(w, path, p, 0, err);
}
