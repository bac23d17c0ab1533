/* workload.c — the task derivation shared by every source of jobs (see
 * workload.h, workload_spec.h), and workload_read, which tells the two file
 * formats apart: workload_swim.c reads SWIM traces, workload_native.c native
 * JSON files, workload_write.c writes the latter; synth.c generates jobs.
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
#include "emu/stages.h"
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int workload_fail(char *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, WORKLOAD_ERRLEN, fmt, ap);
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

int workload_params_check(const struct workload_params *p, char err[512])
{
	if (!p->block_size || !p->bytes_per_reduce)
		return workload_fail(err, "block_size and bytes_per_reduce must be positive");
	if (p->max_reduces < 1)
		return workload_fail(err, "max_reduces must be at least 1");
	if (!positive(p->map_rate) || !positive(p->reduce_rate))
		return workload_fail(err, "map_rate and reduce_rate must be positive");
	if (!nonneg(p->map_overhead_s) || !nonneg(p->reduce_overhead_s) || !nonneg(p->time_floor_s))
		return workload_fail(err, "task overheads and time_floor_s must be non-negative");
	if (!positive(p->data_scale) || !positive(p->time_scale))
		return workload_fail(err, "data_scale and time_scale must be positive");
	if (!positive(p->task_cpu) || !nonneg(p->task_mem_gb))
		return workload_fail(err, "task_cpu must be positive and task_mem_gb non-negative");
	if (p->max_maps < 0)
		return workload_fail(err, "max_maps must be non-negative");
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
	for (int k = 0; k < RES_KINDS; k++)
		s->ask[k] = s->stage_ask[TASK_MAP][k] = s->stage_ask[TASK_REDUCE][k] = -1;
}

void job_specs_free(struct job_spec *specs, int n)
{
	for (int i = 0; specs && i < n; i++) {
		free(specs[i].map_durations);
		free(specs[i].reduce_durations);
		free(specs[i].map_inputs);
		for (int k = 0; k < specs[i].nstages; k++) {
			free(specs[i].stages[k].works);
			free(specs[i].stages[k].tp_first);
			free(specs[i].stages[k].tp);
		}
		free(specs[i].stages);
	}
	free(specs);
}

/* Task i's share of total over n tasks: equal parts, the remainder on the
 * last, so the shares sum to the total exactly. */
uint64_t workload_share(uint64_t total, int n, int i)
{
	return total / (uint64_t)n + (i == n - 1 ? total % (uint64_t)n : 0);
}

static uint64_t scale_bytes(uint64_t v, double s)
{
	if (s == 1)
		return v;       /* exact even beyond 2^53 */
	double x = floor((double)v * s + 0.5);
	return x >= (double)WORKLOAD_MAX_BYTES ? WORKLOAD_MAX_BYTES : (uint64_t)x;
}

/* Rounded down: a sum of these never exceeds the scaled (rounded) sum. */
static uint64_t scale_bytes_down(uint64_t v, double s)
{
	if (s == 1)
		return v;
	double x = floor((double)v * s);
	return x >= (double)WORKLOAD_MAX_BYTES ? WORKLOAD_MAX_BYTES : (uint64_t)x;
}

static double scale_time(double d, double ts, double floor_s)
{
	return fmax(d * ts, floor_s);
}

static int job_fail(char *err, const char *source, const struct job_spec *s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int job_fail(char *err, const char *source, const struct job_spec *s, const char *fmt, ...)
{
	char msg[WORKLOAD_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (s->line > 0)
		return workload_fail(err, "%s:%d: job '%s': %s", source, s->line, s->name, msg);
	return workload_fail(err, "%s: job '%s': %s", source, s->name, msg);
}

/* maps = max(1, ceil(input / block)); reduces by SWIM's rule
 * round((shuffle + output) / bytes_per_reduce), at least 1 when there is
 * anything to reduce, none for a map-only job, at most max_reduces. */
static int derive_counts(const struct job_spec *s, const struct workload_params *p, const char *source,
			 int *nmaps, int *nreduces, char *err)
{
	if (s->nstages) {
		long long rest = 0;
		for (int k = 1; k < s->nstages; k++)
			rest += s->stages[k].tasks;
		if (rest > WORKLOAD_MAX_TASKS_PER_JOB)
			return job_fail(err, source, s, "%lld tasks after the first stage (at most %d)", rest,
					WORKLOAD_MAX_TASKS_PER_JOB);
		*nmaps = s->stages[0].tasks;
		*nreduces = (int)rest;
		return 0;
	}
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
	return workload_share(s->input, nmaps, i);
}

static void task_init(struct task *t, int id, int job, enum task_kind kind, int index)
{
	memset(t, 0, sizeof(*t));
	t->id = id;
	t->job = job;
	t->kind = kind;
	t->index = index;
	t->replicas[0] = t->replicas[1] = t->replicas[2] = -1;   /* placed by the runtime */
	t->out_replicas[0] = t->out_replicas[1] = t->out_replicas[2] = -1;
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
		t->output_bytes = workload_share(j->shuffle_bytes, j->nmaps, i);
		t->work_s = scale_time(d, ts, p->time_floor_s);
		given += t->input_bytes;
	}
}

static void fill_reduces(struct task *tasks, const struct job *j, const struct job_spec *s,
			 const struct workload_params *p, double ts)
{
	for (int i = 0; i < j->nreduces; i++) {
		struct task *t = job_reduce(tasks, j, i);
		uint64_t bytes = workload_share(s->shuffle, j->nreduces, i) + workload_share(s->output, j->nreduces, i);
		double d = s->reduce_durations ? s->reduce_durations[i]
			 : s->reduce_duration >= 0 ? s->reduce_duration
			 : p->reduce_overhead_s + (double)bytes / p->reduce_rate;
		task_init(t, j->first_task + j->nmaps + i, j->id, TASK_REDUCE, i);
		t->input_bytes = workload_share(j->shuffle_bytes, j->nreduces, i);
		t->output_bytes = workload_share(j->output_bytes, j->nreduces, i);
		t->work_s = scale_time(d, ts, p->time_floor_s);
	}
}

static void fill_job(struct job *j, int id, const struct job_spec *s, double ds, double ts)
{
	memset(j, 0, sizeof(*j));
	j->id = id;
	snprintf(j->name, sizeof(j->name), "%s", s->name);
	j->line = s->line;
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
	j->cluster = s->cluster;
}

/* A stage's ask: its own, else the job's, else the defaults. */
static struct res stage_ask(const double *own, const struct job_spec *s, const struct workload_params *p)
{
	const double dflt[RES_KINDS] = {[RES_CORES] = p->task_cpu, [RES_MEM] = p->task_mem_gb, [RES_DISK] = 0};
	double a[RES_KINDS];
	for (int k = 0; k < RES_KINDS; k++)
		a[k] = own[k] >= 0 ? own[k] : s->ask[k] >= 0 ? s->ask[k] : dflt[k];
	return res_of(a[RES_CORES], a[RES_MEM], a[RES_DISK]);
}

static void fill_mapreduce(struct task *tasks, struct job *j, const struct job_spec *s,
			   const struct workload_params *p, double ds, double ts)
{
	fill_maps(tasks, j, s, p, ds, ts);
	fill_reduces(tasks, j, s, p, ts);
	stages_mapreduce(j);
	j->stages[0].ask = stage_ask(s->stage_ask[TASK_MAP], s, p);
	j->stages[1].ask = stage_ask(s->stage_ask[TASK_REDUCE], s, p);
}

/* What task i of stage st reads of its parents' outputs (scaled). */
static uint64_t stage_input(const struct job *j, const uint64_t *out, int st, int i)
{
	const struct stage *s = &j->stages[st];
	uint64_t in = 0;
	for (int k = 0; k < s->nparents; k++) {
		int ps = s->parent[k].stage, pn = j->stages[ps].ntasks;
		switch (s->parent[k].kind) {
		case EDGE_SHUFFLE: in += workload_share(out[ps], s->ntasks, i); break;
		case EDGE_ONE_TO_ONE: in += workload_share(out[ps], pn, i); break;
		case EDGE_BROADCAST: in += out[ps]; break;
		case EDGE_TASKS: break;   /* per listed task, once every child is known (fill_staged) */
		}
	}
	return in;
}

/* A job given by its stages: stage 0 reads the input (even split), every
 * task writes its share of its stage's output; work as given, else the
 * maps' and reduces' rules on the bytes a task reads and writes. */
static void fill_staged(struct workload *w, struct job *j, const struct job_spec *s,
			const struct workload_params *p, double ds, double ts)
{
	struct task *tasks = w->tasks;
	uint64_t out[JOB_MAX_STAGES];
	j->nstages = s->nstages;
	for (int k = 0; k < s->nstages; k++) {
		const struct stage_spec *g = &s->stages[k];
		struct stage *st = &j->stages[k];
		snprintf(st->name, sizeof st->name, "%s", g->name);
		st->ntasks = g->tasks;
		st->nparents = g->nparents;
		memcpy(st->parent, g->parent, sizeof st->parent);
		st->ask = stage_ask(g->ask, s, p);
		out[k] = scale_bytes(g->output, ds);
	}
	stages_layout(j);
	j->shuffle_bytes = j->output_bytes = 0;
	for (int k = 0; k < s->nstages; k++)
		*(j->stages[k].has_children ? &j->shuffle_bytes : &j->output_bytes) += out[k];
	j->pred_shuffle_bytes = s->has_pred_shuffle ? scale_bytes(s->pred_shuffle, ds) : j->shuffle_bytes;
	uint64_t given = 0;
	for (int k = 0; k < s->nstages; k++) {
		const struct stage_spec *g = &s->stages[k];
		for (int i = 0; i < g->tasks; i++) {
			struct task *t = stage_task(tasks, j, k, i);
			task_init(t, j->first_task + j->stages[k].first + i, j->id, k ? TASK_REDUCE : TASK_MAP, 0);
			if (k == 0) {
				t->input_bytes = i < g->tasks - 1 ? workload_share(j->input_bytes, g->tasks, i)
								  : j->input_bytes - given;
				given += t->input_bytes;
			} else {
				t->input_bytes = stage_input(j, out, k, i);
			}
			t->output_bytes = workload_share(out[k], g->tasks, i);
			/* Listed parents: this task is the next child of each. */
			t->tdep_first = w->ntdeps;
			for (int q = g->tp_first ? g->tp_first[i] : 0; g->tp_first && q < g->tp_first[i + 1]; q++) {
				int parent = j->stages[g->tp[q].stage].first + g->tp[q].index;
				w->tdeps[w->ntdeps++] = (struct task_dep){parent, tasks[j->first_task + parent].nchildren++};
				t->ntdeps++;
			}
		}
	}
	for (int k = 0; k < s->nstages; k++) {
		const struct stage_spec *g = &s->stages[k];
		for (int i = 0; i < g->tasks; i++) {
			struct task *t = stage_task(tasks, j, k, i);
			for (int d = 0; d < t->ntdeps; d++) {
				const struct task_dep *td = &w->tdeps[t->tdep_first + d];
				const struct task *par = &tasks[j->first_task + td->task];
				t->input_bytes += workload_share(par->output_bytes, par->nchildren, td->rank);
			}
			double in = (double)t->input_bytes / ds, wrote = (double)t->output_bytes / ds;   /* unscaled */
			double d = g->works ? g->works[i] : g->work >= 0 ? g->work
				 : k == 0 ? p->map_overhead_s + in / p->map_rate
				 : p->reduce_overhead_s + (in + wrote) / p->reduce_rate;
			t->work_s = scale_time(d, ts, p->time_floor_s);
		}
	}
}

/* What a job writes: its output, or its last stages' outputs (unscaled). */
static uint64_t spec_output(const struct job_spec *s)
{
	if (!s->nstages)
		return s->output;
	bool read[JOB_MAX_STAGES] = {false};
	uint64_t out = 0;
	for (int k = 0; k < s->nstages; k++)
		for (int q = 0; q < s->stages[k].nparents; q++)
			read[s->stages[k].parent[q].stage] = true;
	for (int k = 0; k < s->nstages; k++)
		out += read[k] ? 0 : s->stages[k].output;
	return out;
}

/* A job that reads its dependencies' output: that, then its base input. */
static struct job_spec with_lineage(const struct job_spec *specs, int i)
{
	struct job_spec s = specs[i];   /* shares the owned lists: read only */
	for (int d = 0; s.lineage && d < s.ndeps; d++)
		s.input += spec_output(&specs[s.deps[d]]);
	return s;
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
		for (int d = 0; d < s->ndeps; d++)
			if (s->deps[d] < 0 || s->deps[d] >= i) {
				job_fail(err, source, s, "dependency on a job that is not an earlier one");
				goto fail;
			}
		struct job_spec eff = with_lineage(specs, i);
		if (derive_counts(&eff, p, source, &nm[i], &nr[i], err))
			goto fail;
		uint64_t sum = 0;
		for (int m = 0; eff.map_inputs && m < nm[i]; m++)
			sum += eff.map_inputs[m];
		if (eff.map_inputs && sum != eff.input) {
			job_fail(err, source, s, "'map_input' sums to %llu bytes, not the input's %llu (its deps' "
				 "output and its own)", (unsigned long long)sum, (unsigned long long)eff.input);
			goto fail;
		}
		ntasks += nm[i] + nr[i];
		if (ntasks > INT_MAX / 2) {
			job_fail(err, source, s, "the workload has more than %d tasks", INT_MAX / 2);
			goto fail;
		}
	}
	long long ntdeps = 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < specs[i].nstages; k++)
			ntdeps += specs[i].stages[k].tp_first ? specs[i].stages[k].tp_first[specs[i].stages[k].tasks] : 0;
	if (ntdeps > INT_MAX / 2) {
		workload_fail(err, "%s: more than %d listed task dependencies", source, INT_MAX / 2);
		goto fail;
	}
	w->jobs = calloc((size_t)n + 1, sizeof(*w->jobs));
	w->tasks = calloc((size_t)ntasks + 1, sizeof(*w->tasks));
	w->tdeps = calloc((size_t)ntdeps + 1, sizeof(*w->tdeps));
	if (!w->jobs || !w->tasks || !w->tdeps)
		goto oom;
	int first = 0;
	for (int i = 0; i < n; i++) {
		struct job *j = &w->jobs[i];
		struct job_spec eff = with_lineage(specs, i);
		fill_job(j, i, &eff, ds, ts);
		for (int d = 0; eff.lineage && d < eff.ndeps; d++)
			j->lineage_bytes += w->jobs[eff.deps[d]].output_bytes;
		if (eff.lineage)   /* exactly its parents' scaled output, then its own */
			j->input_bytes = j->lineage_bytes + scale_bytes(specs[i].input, ds);
		j->nmaps = nm[i];
		j->nreduces = nr[i];
		j->first_task = first;
		if (eff.nstages)
			fill_staged(w, j, &eff, p, ds, ts);
		else
			fill_mapreduce(w->tasks, j, &eff, p, ds, ts);
		stages_number_tasks(w->tasks, j);
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
	workload_fail(err, "%s: out of memory", source);
fail:
	free(nm);
	free(nr);
	workload_free(w);
	return -1;
}

int workload_copy(struct workload *copy, const struct workload *w)
{
	*copy = *w;
	copy->jobs = malloc((w->njobs ? w->njobs : 1) * sizeof *w->jobs);
	copy->tasks = malloc((w->ntasks ? w->ntasks : 1) * sizeof *w->tasks);
	copy->tdeps = malloc((w->ntdeps ? w->ntdeps : 1) * sizeof *w->tdeps);
	if (!copy->jobs || !copy->tasks || !copy->tdeps) {
		workload_free(copy);
		return -1;
	}
	memcpy(copy->jobs, w->jobs, w->njobs * sizeof *w->jobs);
	memcpy(copy->tasks, w->tasks, w->ntasks * sizeof *w->tasks);
	memcpy(copy->tdeps, w->tdeps, w->ntdeps * sizeof *w->tdeps);
	return 0;
}

void workload_free(struct workload *w)
{
	if (!w)
		return;
	free(w->jobs);
	free(w->tasks);
	free(w->tdeps);
	memset(w, 0, sizeof(*w));
}
struct job_spec *specs_add(struct specs *a)
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
bool job_name_ok(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	json_t *j = json_string(name);
	json_decref(j);
	return j != NULL;
}

int workload_read(struct workload *w, const char *path, const struct workload_params *p, int max_jobs,
		  char err[512])
{
	memset(w, 0, sizeof(*w));
	FILE *in = fopen(path, "r");
	if (!in)
		return workload_fail(err, "%s: %s", path, strerror(errno));
	int c;
	while ((c = fgetc(in)) != EOF && isspace(c))
		;
	fclose(in);
	if (c == '{')
		return workload_read_native_n(w, path, p, max_jobs, err);
	return workload_read_swim(w, path, p, max_jobs, err);
}
