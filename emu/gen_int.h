/* gen_int.h — private to the generators (gen*.c): their entry points, the
 * seeded draws and the spec-building helpers they share. */
#ifndef EMU_GEN_INT_H
#define EMU_GEN_INT_H
#include "emu/cluster.h"         /* struct rng, rng_next */
#include "emu/gen.h"
#include "emu/workload_spec.h"

#define GEN_MAX_KEYS 8
#define GiB (1ULL << 30)
#define MiB (1ULL << 20)

struct gen_ctx {
	const char *name;
	int njobs;                          /* --jobs, or the generator's default */
	unsigned long seed;
	const struct workload_params *p;
	double key[GEN_MAX_KEYS];           /* its keys' values, in its table's order (gen.c) */
};

int gen_dawn_ml(struct workload *w, const struct gen_ctx *g, char *err);
int gen_dawn_tpch(struct workload *w, const struct gen_ctx *g, char *err);
int gen_dawn_tez(struct workload *w, const struct gen_ctx *g, char *err);
int gen_dsp_dag(struct workload *w, const struct gen_ctx *g, char *err);
int gen_cobra(struct workload *w, const struct gen_ctx *g, char *err);
int gen_fawkes(struct workload *w, const struct gen_ctx *g, char *err);

/* A splitmix64 stream per purpose, as synth.c's: one knob does not move
 * another's draws. */
struct rng gen_rng(unsigned long seed, uint64_t stream);
double gen_u01(struct rng *r);                               /* [0, 1) */
double gen_uniform(struct rng *r, double lo, double hi);
int gen_int(struct rng *r, int lo, int hi);                  /* lo..hi */
/* exp(N(ln median, sigma)) clipped to [lo, hi] (Box-Muller). */
double gen_lognormal(struct rng *r, double median, double sigma, double lo, double hi);
/* A stage's CPU and memory as the Google 2011 trace's requests, normalised
 * to a machine of cores and mem_gb (gen_dsp.c gives the fits). */
void gen_google_ask(struct rng *r, struct stage_spec *g, double cores, double mem_gb);
void gen_permute(struct rng *r, int *v, int n);              /* a uniform permutation of 0..n-1 */
/* Submit times: Poisson with mean gap (the first at 0), or sorted uniform in [0, window]; 0 = all at 0. */
void gen_poisson_times(struct rng *r, double *t, int n, double gap);
void gen_uniform_times(struct rng *r, double *t, int n, double window);

/* Task counts as workload_build derives them: blocks of input, reduces by
 * bytes per reduce (1..max_reduces). */
int gen_blocks(uint64_t bytes, const struct workload_params *p);
int gen_reduces(uint64_t bytes, const struct workload_params *p);

/* A new job at the end of a (name printf-style, room for JOB_MAX_STAGES
 * stages), or NULL out of memory.  The pointer lasts until the next add. */
struct job_spec *gen_job(struct specs *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A stage appended to s (work derived, asks the job's); parents follow. */
struct stage_spec *gen_stage(struct job_spec *s, const char *name, int tasks, uint64_t output);
void gen_edge(struct stage_spec *g, int parent, enum edge_kind kind);
/* s reads job dep's output (lineage). */
void gen_dep(struct job_spec *s, int dep);

/* workload_build of a's jobs (freed), source "NAME:seed=S,...". */
int gen_build(struct workload *w, struct specs *a, const struct gen_ctx *g, char *err);
int gen_oom(struct specs *a, const struct gen_ctx *g, char *err);
#endif
