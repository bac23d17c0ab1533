/* gen.h — workload generators by name (emu run --generator NAME[:KEY=VALUE,...]).
 *
 * "synthetic" is the SWIM-like default (synth.c); the others model the
 * workloads of the seed papers: Dawn's ML chains and TPC-H query trees
 * (gen_dawn_ml.c, gen_dawn_tpch.c), DSP's task-level DAGs (gen_dsp.c) and
 * COBRA's multi-stage jobs (gen_cobra.c).  Every one fills job specs and
 * derives tasks with workload_build, seeded and deterministic. */
#ifndef EMU_GEN_H
#define EMU_GEN_H
#include "emu/workload.h"
#include <stdbool.h>
#include <stdio.h>

/* What emu run was told besides the generator's own keys. */
struct gen_opts {
	const struct synth_params *sp;   /* seed, njobs; arrivals and recurring for synthetic */
	bool njobs_given;                /* else the generator's default count */
	bool arrivals_given;             /* --arrivals: synthetic only (the others time their own) */
	bool recurring_given;            /* --recurring: applied to any generator's jobs */
};

/* Build the workload that spec names ("dawn-ml", "dsp-dag:scale=0.1", ...).
 * -1 with a message in err for an unknown name or key, a bad value, or an
 * option that does not go with the generator. */
int gen_workload(struct workload *w, const char *spec, const struct gen_opts *o, const struct workload_params *p,
		 char err[512]);

/* The generators, their --jobs meaning and their keys, for --help. */
void gen_list(FILE *f);
#endif
