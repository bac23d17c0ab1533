/* Whole runs on the simulator backend for unit tests: the parameters, the
 * run and its summary.json, and the numbers read from that. */
#ifndef TESTS_SIMRUN_FIXTURE_H
#define TESTS_SIMRUN_FIXTURE_H
#include "emu/gen.h"
#include "emu/run.h"
#include "emu/workload.h"
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* run_params' defaults, then: the simulator, policy sched, results into
 * root/default/sched/name, quiet; the caller sets the rest. */
static inline void sr_params(struct run_params *p, const char *root, const char *sched, const char *name)
{
	run_params_default(p);
	p->backend = "sim";
	p->scheduler = sched;
	p->results_root = root;
	p->run_name = name;
	p->quiet = true;
}

/* Run p on t and w; it must set up and finish every job (not stop early);
 * returns its summary.json (json_decref it). */
static inline json_t *sr_run(const struct topo *t, struct workload *w, const struct run_params *p)
{
	char err[512], path[900];
	int rc = run_experiment(t, w, p, err);
	cr_assert_geq(rc, 0, "%s/%s: %s", p->scheduler, p->run_name, err);
	snprintf(path, sizeof path, "%s/%s/%s/%s/summary.json", p->results_root, p->experiment, p->scheduler,
		 p->run_name);
	json_error_t je;
	json_t *s = json_load_file(path, 0, &je);
	cr_assert_not_null(s, "%s: %s", path, je.text);
	const char *why = json_string_value(json_object_get(s, "stop_reason"));
	cr_assert_eq(rc, 0, "%s/%s: stopped early (%s)", p->scheduler, p->run_name, why ? why : "?");
	return s;
}

/* The value at path in o: keys and array indices joined by dots
 * ("ocs.circuits.0.src"); a failure if there is none. */
static inline json_t *sr_get(json_t *o, const char *path)
{
	char buf[128], *save;
	snprintf(buf, sizeof buf, "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = json_is_array(o) ? json_array_get(o, atoi(k)) : json_object_get(o, k);
	cr_assert_not_null(o, "no %s", path);
	return o;
}

/* The number at path in o (as sr_get); a failure if it is not a number. */
static inline double sr_num(json_t *o, const char *path)
{
	json_t *v = sr_get(o, path);
	cr_assert(json_is_number(v), "%s is not a number", path);
	return json_number_value(v);
}
/* text into the file root/name; its path in path. */
static inline void sr_write(const char *root, const char *name, const char *text, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", root, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* w from a native workload's JSON text (written to root/w.json). */
static inline void sr_workload(const char *root, struct workload *w, const char *json)
{
	char path[300], err[512];
	sr_write(root, "w.json", json, path, sizeof path);
	struct workload_params wp;
	workload_params_default(&wp);
	cr_assert_eq(workload_read(w, path, &wp, 0, err), 0, "%s", err);
}

/* w from a generator (emu/gen.h) with these jobs, seed and time scale. */
static inline void sr_generate(struct workload *w, const char *spec, unsigned long seed, int njobs, double time_scale)
{
	struct synth_params sp;
	struct workload_params wp;
	char err[512];
	synth_params_default(&sp);
	workload_params_default(&wp);
	wp.time_scale = time_scale;
	sp.seed = seed;
	sp.njobs = njobs;
	struct gen_opts o = {&sp, true, false, false};
	cr_assert_eq(gen_workload(w, spec, &o, &wp, err), 0, "%s", err);
}

/* Every task of the run w started once its parent tasks had ended. */
static inline void sr_assert_in_order(const struct workload *w, const char *who)
{
	for (int v = 0; v < w->ntasks; v++) {
		const struct task *x = &w->tasks[v];
		for (int q = 0; q < x->ntdeps; q++) {
			const struct task *par = &w->tasks[w->jobs[x->job].first_task + w->tdeps[x->tdep_first + q].task];
			cr_assert_geq(x->t_start, par->t_end - 1e-6, "%s: task %d before its parent %d", who, x->id,
				      par->id);
		}
	}
}

#endif
