/* gen.c — the generators by name: their keys, defaults and ranges, and
 * parsing "NAME[:KEY=VALUE,...]" (gen.h). */
#include "emu/gen_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gen_key {
	const char *name;
	double dflt, lo, hi;
	const char *help;
};

struct gen_def {
	const char *name, *help, *jobs;     /* what it makes, what --jobs counts */
	int njobs;                          /* --jobs by default */
	int (*make)(struct workload *w, const struct gen_ctx *g, char *err);
	struct gen_key keys[GEN_MAX_KEYS];  /* in the order of gen_ctx.key; the make function's enum */
};

/* The Dawn TPC-H keys, shared by both variants. */
#define TPCH_KEYS                                                                                     \
	{{"window", 1500, 0, 1e7, "queries arrive uniformly in [0, S] (25 min)"},                     \
	 {"sf", 50, 0.01, 1e4, "TPC-H scale factor"}}

static const struct gen_def gens[] = {
	{"synthetic", "SWIM-like MapReduce jobs (Facebook 2010); --arrivals, --recurring", "jobs", 20, NULL, {{0}}},
	{"dawn-ml", "Dawn's ML chains (Table I): K-means, Bayes, PageRank, B1..B9, ~11 jobs each with lineage",
	 "chains (B1..B9 in a seeded order, repeated)", 9, gen_dawn_ml,
	 {{"gap", 300, 0, 1e7, "mean gap between chains, Poisson (0: all at 0)"},
	  {"bench", 0, 0, 9, "only benchmark Bn (0: all nine)"},
	  {"iters", 10, 1, 100, "K-means iterations (then a clustering job)"},
	  {"pr_iters", 4, 1, 50, "PageRank iterations (two jobs each)"}}},
	{"dawn-tpch", "Dawn's TPC-H queries on Hive-on-MapReduce: trees of MapReduce jobs with lineage",
	 "queries (Q1..Q22, repeated)", 22, gen_dawn_tpch, TPCH_KEYS},
	{"dawn-tez", "the same TPC-H queries on Tez: one multi-stage job per query", "queries (Q1..Q22, repeated)", 22,
	 gen_dawn_tez, TPCH_KEYS},
	{"dsp-dag", "DSP's task-level DAGs (<= 5 levels, <= 15 children per task), Google-2011-like tasks",
	 "jobs (small, medium, large in equal numbers)", 150, gen_dsp_dag,
	 {{"scale", 1, 0.001, 1, "tasks per job x F (large 2000, medium 1000, small 100-500)"},
	  {"levels", 5, 1, 5, "most levels of a DAG"},
	  {"children", 15, 1, 15, "most children of a task"},
	  {"median", 60, 0.1, 1e5, "median task duration, s (lognormal)"},
	  {"sigma", 1.5, 0, 5, "sigma of log duration"},
	  {"rate_min", 2, 0, 1000, "jobs a minute: an integer drawn in [rate_min, rate_max] each minute"},
	  {"rate_max", 5, 0, 1000, "(rate_max below 1: all at 0)"}}},
	{"cobra", "COBRA's multi-stage jobs, Google-trace-like (identical tasks per stage)", "jobs", 100, gen_cobra,
	 {{"gap", 60, 0, 1e7, "mean gap between jobs, Poisson (0: all at 0)"},
	  {"median_tasks", 20, 1, 1e5, "median tasks of a job's first stage (lognormal, sigma 1.8)"},
	  {"median", 40, 0.1, 1e5, "median task duration, s (lognormal)"},
	  {"sigma", 1.2, 0, 5, "sigma of log duration"}}},
	{"fawkes", "FAWKES's WKLD-A..E: WC/ST (1, 50, 100 GB) and BTWorld jobs for 3 logical clusters",
	 "percent of the paper's job counts", 100, gen_fawkes,
	 {{"wkld", 4, 1, 5, "the workload: 1..5 = WKLD-A..E"},
	  {"span", 3600, 1, 1e7, "D, E: seconds over which 'average' and 'bursty' jobs arrive"},
	  {"bursts", 3, 1, 100, "D: bursts of c-2's medium and large jobs"}}},
};
#define NGENS (int)(sizeof gens / sizeof *gens)

void gen_list(FILE *f)
{
	for (int i = 0; i < NGENS; i++) {
		const struct gen_def *d = &gens[i];
		fprintf(f, "  %-10s %s\n  %-10s --jobs N: %s (default %d)\n", d->name, d->help, "", d->jobs, d->njobs);
		for (int k = 0; k < GEN_MAX_KEYS && d->keys[k].name; k++)
			fprintf(f, "  %-10s   %s=%g: %s\n", "", d->keys[k].name, d->keys[k].dflt, d->keys[k].help);
	}
}

static const struct gen_def *gen_find(const char *name, size_t len)
{
	for (int i = 0; i < NGENS; i++)
		if (strlen(gens[i].name) == len && !strncmp(gens[i].name, name, len))
			return &gens[i];
	return NULL;
}

/* KEY=VALUE,... into g->key; -1 with err. */
static int parse_keys(const struct gen_def *d, const char *list, struct gen_ctx *g, char *err)
{
	bool seen[GEN_MAX_KEYS] = {false};
	char buf[512];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '='), *end;
		if (eq)
			*eq = 0;
		int k = 0;
		while (k < GEN_MAX_KEYS && d->keys[k].name && strcmp(d->keys[k].name, kv))
			k++;
		if (k == GEN_MAX_KEYS || !d->keys[k].name) {
			char names[256] = "";
			for (int i = 0; i < GEN_MAX_KEYS && d->keys[i].name; i++)
				snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
					 d->keys[i].name);
			return workload_fail(err, "generator %s: unknown key '%s' (%s%s)", d->name, kv,
					     *names ? "its keys: " : "it takes none", names);
		}
		if (!eq)
			return workload_fail(err, "generator %s: key '%s' wants a value (%s=N)", d->name, kv, kv);
		double v = strtod(eq + 1, &end);
		if (!eq[1] || *end || !(v >= d->keys[k].lo && v <= d->keys[k].hi))
			return workload_fail(err, "generator %s: %s='%s': expected a number in [%g, %g]", d->name, kv,
					     eq + 1, d->keys[k].lo, d->keys[k].hi);
		if (seen[k])
			return workload_fail(err, "generator %s: key '%s' given twice", d->name, kv);
		seen[k] = true;
		g->key[k] = v;
	}
	return 0;
}

int gen_workload(struct workload *w, const char *spec, const struct gen_opts *o, const struct workload_params *p,
		 char err[512])
{
	memset(w, 0, sizeof *w);
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	const struct gen_def *d = gen_find(spec, len);
	if (!d) {
		char names[256] = "";
		for (int i = 0; i < NGENS; i++)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", gens[i].name);
		return workload_fail(err, "unknown generator '%.*s' (known: %s)", (int)len, spec, names);
	}
	struct gen_ctx g = {d->name, o->njobs_given ? o->sp->njobs : d->njobs, o->sp->seed, p, {0}};
	for (int k = 0; k < GEN_MAX_KEYS; k++)
		g.key[k] = d->keys[k].dflt;
	if (colon && parse_keys(d, colon + 1, &g, err))
		return -1;
	if (!d->make) {   /* synthetic: today's generator, with its arrivals */
		struct synth_params sp = *o->sp;
		sp.njobs = g.njobs;
		if (sp.arrivals == ARRIVE_TRACE)   /* a generated workload has no trace times */
			sp.arrivals = ARRIVE_BATCH;
		return workload_synthetic(w, &sp, p, err);
	}
	if (o->arrivals_given)
		return workload_fail(err, "generator %s times its own arrivals (its keys); --arrivals is for the "
				     "synthetic generator and workload files", d->name);
	if (p->min_shuffle || p->max_maps)
		return workload_fail(err, "generator %s: --min-shuffle and --max-maps are for the synthetic "
				     "generator and SWIM traces", d->name);
	if (d->make(w, &g, err))
		return -1;
	if (o->recurring_given)
		workload_set_recurring(w, o->sp);
	return 0;
}
