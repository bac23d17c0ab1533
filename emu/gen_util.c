/* gen_util.c — seeded draws and spec building shared by the generators. */
#include "emu/gen_int.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rng gen_rng(unsigned long seed, uint64_t stream)
{
	struct rng r = {(uint64_t)seed ^ (stream * 0xd1b54a32d192ed03ULL)};
	rng_next(&r);           /* decorrelate neighbouring seeds */
	return r;
}

double gen_u01(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

double gen_uniform(struct rng *r, double lo, double hi)
{
	return lo + (hi - lo) * gen_u01(r);
}

int gen_int(struct rng *r, int lo, int hi)
{
	return lo + rng_below(r, hi - lo + 1);
}

double gen_lognormal(struct rng *r, double median, double sigma, double lo, double hi)
{
	double u = 1 - gen_u01(r), v = gen_u01(r);
	double z = sqrt(-2 * log(u)) * cos(2 * M_PI * v);
	return fmin(hi, fmax(lo, median * exp(sigma * z)));
}

void gen_google_ask(struct rng *r, struct stage_spec *g, double cores, double mem_gb)
{
	g->ask[RES_CORES] = cores * gen_lognormal(r, 0.03, 0.8, 0.005, 0.25);
	g->ask[RES_MEM] = mem_gb * gen_lognormal(r, 0.015, 0.9, 0.001, 0.125);
}

void gen_permute(struct rng *r, int *v, int n)
{
	for (int i = 0; i < n; i++)
		v[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int k = rng_below(r, i + 1), x = v[i];
		v[i] = v[k];
		v[k] = x;
	}
}

void gen_poisson_times(struct rng *r, double *t, int n, double gap)
{
	for (int i = 0; i < n; i++)
		t[i] = i && gap > 0 ? t[i - 1] - gap * log(1 - gen_u01(r)) : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void gen_uniform_times(struct rng *r, double *t, int n, double window)
{
	for (int i = 0; i < n; i++)
		t[i] = gen_u01(r) * window;
	qsort(t, (size_t)n, sizeof *t, cmp_double);
}

int gen_blocks(uint64_t bytes, const struct workload_params *p)
{
	return bytes ? (int)((bytes - 1) / p->block_size + 1) : 1;
}

int gen_reduces(uint64_t bytes, const struct workload_params *p)
{
	uint64_t r = (bytes + p->bytes_per_reduce / 2) / p->bytes_per_reduce;
	return r < 1 ? 1 : r > (uint64_t)p->max_reduces ? p->max_reduces : (int)r;
}

struct job_spec *gen_job(struct specs *a, const char *fmt, ...)
{
	struct stage_spec *stages = calloc(JOB_MAX_STAGES, sizeof *stages);
	struct job_spec *s = stages ? specs_add(a) : NULL;
	if (!s) {
		free(stages);
		return NULL;
	}
	s->stages = stages;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->name, sizeof s->name, fmt, ap);
	va_end(ap);
	return s;
}

struct stage_spec *gen_stage(struct job_spec *s, const char *name, int tasks, uint64_t output)
{
	struct stage_spec *g = &s->stages[s->nstages++];
	snprintf(g->name, sizeof g->name, "%s", name);
	g->tasks = tasks;
	g->output = output;
	g->work = -1;
	for (int k = 0; k < RES_KINDS; k++)
		g->ask[k] = -1;
	return g;
}

void gen_edge(struct stage_spec *g, int parent, enum edge_kind kind)
{
	g->parent[g->nparents++] = (struct stage_edge){parent, kind};
}

void gen_dep(struct job_spec *s, int dep)
{
	s->deps[s->ndeps++] = dep;
	s->lineage = true;
}

int gen_build(struct workload *w, struct specs *a, const struct gen_ctx *g, char *err)
{
	char source[256];
	snprintf(source, sizeof source, "%s:seed=%lu,njobs=%d", g->name, g->seed, g->njobs);
	int rc = workload_build(w, a->v, a->n, g->p, false, source, err);
	job_specs_free(a->v, a->n);
	return rc;
}

int gen_oom(struct specs *a, const struct gen_ctx *g, char *err)
{
	job_specs_free(a->v, a->n);
	return workload_fail(err, "%s: out of memory", g->name);
}
