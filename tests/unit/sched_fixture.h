/* A scheduler policy on a hand-made cluster, for the policies' unit tests:
 * the cluster over workload w, the policy `policy` with 3 s delay-scheduling
 * waits, the given elephant threshold and the options fx_sched_opt set,
 * seed 1. */
#ifndef TESTS_SCHED_FIXTURE_H
#define TESTS_SCHED_FIXTURE_H
#include "emu/sched.h"
#include "workload_fixture.h"
#include <criterion/criterion.h>

/* Options ("KEY=VALUE") for the policies fx_sched_start starts next. */
#define FX_OPTS_MAX 8
static const char *fx_opts[FX_OPTS_MAX];
static int fx_nopts;

static inline void fx_sched_opt(const char *kv)
{
	cr_assert_lt(fx_nopts, FX_OPTS_MAX);
	fx_opts[fx_nopts++] = kv;
}

static inline void fx_sched_opts_clear(void)
{
	fx_nopts = 0;
}

static inline void fx_sched_start(struct sched *s, struct cluster *c, struct workload *w, const char *policy,
				  int racks, int per_rack, int containers, double slowstart, uint64_t elephant)
{
	cr_assert_eq(cluster_init(c, racks, per_rack, containers, w, slowstart), 0);
	struct sched_params p = {.elephant_bytes = elephant, .node_wait_s = 3, .rack_wait_s = 3, .seed = 1,
				 .opts = fx_opts, .nopts = fx_nopts};
	const struct sched_ops *ops = sched_find(policy);
	cr_assert_not_null(ops, "no scheduler %s", policy);
	cr_assert_eq(sched_init(s, ops, c, &p), 0);
}

static inline void fx_sched_stop(struct sched *s, struct cluster *c, struct workload *w)
{
	sched_destroy(s);
	cluster_free(c);
	fx_workload_free(w);
}
#endif
