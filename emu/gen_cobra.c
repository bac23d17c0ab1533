/* gen_cobra.c — COBRA's trace-driven workload (seed 001 §VII-A/B): jobs
 * of stages, all tasks of a stage alike, with the task counts, durations
 * and requests of Google's cluster trace.
 *
 * From the paper: jobs are DAGs of stages of identical tasks; task
 * durations, resource requirements and arrivals from the Google trace.
 * The trace is not used (no download) and has no DAGs; assumed, after the
 * notes (shared/notes/001_cobra.md §4.2):
 *   - Tasks of the first stage: lognormal, median `median_tasks` (20),
 *     sigma 1.8, within [1, 5000]: many small jobs, a few of over 2000
 *     tasks.  Stages: 1 to 4, uniform; each later stage has r x the tasks
 *     of the one before, r ~ U[0.1, 1], at least 1.
 *   - Edges: stage k reads stage k-1 over a shuffle (one-to-one, with as
 *     many tasks, with probability 0.2) and, with probability 0.25, an
 *     earlier stage as well (a join): broadcast when that stage wrote
 *     under 64 MB, else a shuffle.
 *   - A stage's work per task: lognormal, median `median` (40 s), sigma
 *     `sigma` (1.2), within [1 s, 1 h]: seconds to tens of minutes.
 *   - CPU and memory per stage as DSP's draws (gen_dsp.c), relative to
 *     COBRA's simulated machines (8 cores, 16 GB): 0.04..2 cores, 16 MB..2 GB.
 *   - Bytes: a first-stage task reads U[16, 128] MiB (inputs placed by the
 *     run, as the notes say); a stage writes r ~ lognormal(0.3, sigma 1)
 *     within [0.01, 2] of what it reads.
 *   - Arrivals: Poisson, mean gap `gap` (60 s, the deployment's mean). */
#include "emu/gen_int.h"
#include <math.h>
#include <stdlib.h>

enum { K_GAP, K_MEDIAN_TASKS, K_MEDIAN, K_SIGMA };
enum { ST_SIZES = 1, ST_ARRIVALS };

#define MAX_STAGES 4

static int cobra_job(struct specs *a, const struct gen_ctx *g, int id, double submit, struct rng *r)
{
	struct job_spec *s = gen_job(a, "cobra%d", id);
	if (!s)
		return -1;
	s->submit = submit;
	int nst = gen_int(r, 1, MAX_STAGES), tasks = (int)gen_lognormal(r, g->key[K_MEDIAN_TASKS], 1.8, 1, 5000);
	uint64_t reads = 0;
	for (int k = 0; k < nst; k++) {
		char name[8];
		snprintf(name, sizeof name, "s%d", k);
		bool one = k > 0 && gen_u01(r) < 0.2;
		if (k)
			tasks = one ? tasks : (int)fmax(1, round(tasks * gen_uniform(r, 0.1, 1)));
		else
			reads = s->input = (uint64_t)(tasks * gen_uniform(r, 16, 128) * MiB);
		struct stage_spec *st = gen_stage(s, name, tasks, 0);
		if (k) {
			gen_edge(st, k - 1, one ? EDGE_ONE_TO_ONE : EDGE_SHUFFLE);
			reads = s->stages[k - 1].output;
			if (k > 1 && gen_u01(r) < 0.25) {
				int j = gen_int(r, 0, k - 2);
				gen_edge(st, j, s->stages[j].output < 64000000 ? EDGE_BROADCAST : EDGE_SHUFFLE);
				reads += s->stages[j].output;
			}
		}
		st->output = (uint64_t)(gen_lognormal(r, 0.3, 1, 0.01, 2) * (double)reads);
		st->work = gen_lognormal(r, g->key[K_MEDIAN], g->key[K_SIGMA], 1, 3600);
		gen_google_ask(r, st, 8, 16);
	}
	return 0;
}

int gen_cobra(struct workload *w, const struct gen_ctx *g, char *err)
{
	struct specs a = {0};
	struct rng rs = gen_rng(g->seed, ST_SIZES), ra = gen_rng(g->seed, ST_ARRIVALS);
	double *t = malloc((size_t)g->njobs * sizeof *t);
	if (!t)
		return gen_oom(&a, g, err);
	gen_poisson_times(&ra, t, g->njobs, g->key[K_GAP]);
	for (int i = 0; i < g->njobs; i++)
		if (cobra_job(&a, g, i, t[i], &rs)) {
			free(t);
			return gen_oom(&a, g, err);
		}
	free(t);
	return gen_build(w, &a, g, err);
}
