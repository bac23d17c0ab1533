/* workload_write.c — a workload written as a native JSON file, in emulated
 * units, so that reading it back makes the same tasks (workload_native.c). */
#include "emu/workload.h"
#include "emu/workload_spec.h"
#include "emu/stages.h"
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	return inputs ? a->input_bytes == b->input_bytes : a->work_s == b->work_s;
}

static void put_value(FILE *f, const struct task *t, bool inputs)
{
	if (inputs)
		fprintf(f, "%llu", (unsigned long long)t->input_bytes);
	else
		put_real(f, t->work_s);
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
		if (maps[i].input_bytes != workload_share(j->input_bytes, j->nmaps, i))
			return true;
	return false;
}

/* A task's ask in the file's units; with base, only what differs from it
 * (a stage's over its job's), else cpu and mem_gb always, disk when asked. */
static void put_ask(struct out *o, const struct res *a, const struct res *base)
{
	static const char *const key[RES_KINDS] = {[RES_CORES] = "cpu", [RES_MEM] = "mem_gb", [RES_DISK] = "disk_mbps"};
	static const double unit[RES_KINDS] = {[RES_CORES] = 1e3, [RES_MEM] = 1e9, [RES_DISK] = 1e6};
	for (int k = 0; k < RES_KINDS; k++)
		if (base ? a->v[k] != base->v[k] : k != RES_DISK || a->v[k]) {
			put_key(o, key[k]);
			put_real(o->f, (double)a->v[k] / unit[k]);
		}
}

/* Everything as it will run (emulated units): counts, per-task durations
 * and inputs, so a re-read makes the same tasks whatever the params. */
static void put_mapreduce(struct out *o, const struct workload *w, const struct job *j)
{
	FILE *f = o->f;
	const struct task *maps = &w->tasks[j->first_task], *reds = maps + j->nmaps;
	fprintf(f, ", \"shuffle\": %llu, \"output\": %llu, \"maps\": %d, \"reduces\": %d",
		(unsigned long long)j->shuffle_bytes, (unsigned long long)j->output_bytes, j->nmaps, j->nreduces);
	put_key(o, "map_duration");
	put_task_values(f, maps, j->nmaps, false);
	if (uneven_inputs(maps, j)) {
		put_key(o, "map_input");
		put_task_values(f, maps, j->nmaps, true);
	}
	if (j->nreduces) {
		put_key(o, "reduce_duration");
		put_task_values(f, reds, j->nreduces, false);
	}
}

/* "task_parents" of a stage whose tasks list theirs: per task, by stage. */
static void put_task_parents(FILE *f, const struct workload *w, const struct job *j, int k)
{
	const struct stage *st = &j->stages[k];
	bool listed = false;
	for (int p = 0; p < st->nparents; p++)
		listed |= st->parent[p].kind == EDGE_TASKS;
	if (!listed)
		return;
	fputs(", \"task_parents\": [", f);
	for (int i = 0; i < st->ntasks; i++) {
		const struct task *t = stage_task(w->tasks, j, k, i);
		fputs(i ? ", {" : "{", f);
		for (int ps = 0, named = 0; ps < k; ps++) {   /* in (stage, index) order, as read */
			int n = 0;
			for (int d = 0; d < t->ntdeps; d++) {
				const struct task *par = &w->tasks[j->first_task + w->tdeps[t->tdep_first + d].task];
				if (par->stage != ps)
					continue;
				if (!n++) {
					fputs(named++ ? ", " : "", f);
					put_string(f, j->stages[ps].name);
					fputs(": [", f);
				}
				fprintf(f, "%s%d", n > 1 ? ", " : "", par->sindex);
			}
			if (n)
				fputc(']', f);
		}
		fputc('}', f);
	}
	fputc(']', f);
}

static void put_stages(struct out *o, const struct workload *w, const struct job *j)
{
	FILE *f = o->f;
	put_key(o, "stages");
	for (int k = 0; k < j->nstages; k++) {
		const struct stage *st = &j->stages[k];
		const struct task *t = stage_task(w->tasks, j, k, 0);
		uint64_t out = 0;
		for (int i = 0; i < st->ntasks; i++)
			out += t[i].output_bytes;
		struct out s = {f, true};
		fputs(k ? ", {" : "[{", f);
		put_key(&s, "name");
		put_string(f, st->name);
		fprintf(f, ", \"tasks\": %d, \"output\": %llu", st->ntasks, (unsigned long long)out);
		put_key(&s, "work");
		put_task_values(f, t, st->ntasks, false);
		put_ask(&s, &st->ask, NULL);
		if (st->nparents) {
			fputs(", \"parents\": {", f);
			for (int p = 0; p < st->nparents; p++) {
				fputs(p ? ", " : "", f);
				put_string(f, j->stages[st->parent[p].stage].name);
				fprintf(f, ": \"%s\"", edge_kind_name(st->parent[p].kind));
			}
			fputc('}', f);
		}
		put_task_parents(f, w, j, k);
		fputc('}', f);
	}
	fputc(']', f);
}

static int put_job(FILE *f, const struct workload *w, const struct job *j)
{
	struct out o = {f, true};
	fputc('{', f);
	put_key(&o, "name");
	if (put_string(f, j->name))
		return -1;
	put_key(&o, "submit");
	put_real(f, j->submit_s);
	fprintf(f, ", \"input\": %llu", (unsigned long long)(j->input_bytes - j->lineage_bytes));
	if (j->lineage_bytes)
		fputs(", \"lineage\": true", f);
	bool mr = stages_is_mapreduce(j);
	if (mr)
		put_mapreduce(&o, w, j);
	else
		put_stages(&o, w, j);
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
	if (j->cluster > 0) {
		put_key(&o, "cluster");
		fprintf(f, "%d", j->cluster);
	}
	const struct res *ra = &j->stages[j->nstages - 1].ask;   /* the reduces', or the maps' when none */
	if (mr)
		put_ask(&o, &j->stages[0].ask, NULL);
	if (mr && memcmp(&j->stages[0].ask, ra, sizeof *ra)) {
		struct out r = {f, true};
		put_key(&o, "reduce_resources");
		fputc('{', f);
		put_ask(&r, ra, &j->stages[0].ask);
		fputc('}', f);
	}
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
		if (w->jobs[i].input_bytes > WORKLOAD_MAX_BYTES || w->jobs[i].shuffle_bytes > WORKLOAD_MAX_BYTES ||
		    w->jobs[i].output_bytes > WORKLOAD_MAX_BYTES) {
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
