/* corral.c — Corral (Jalaparti et al., "Network-Aware Scheduling for
 * Data-Parallel Jobs: Plan When You Can", SIGCOMM'15) as the JobPacker
 * chapter's baseline, built from the dissertation's account of it
 * (§4.3.1.1) and Corral's design; details neither gives are our choices:
 *
 *  - offline, over the recurring jobs of the workload: each job j gets r_j
 *    racks — the same racks for its maps and its reduces — by Corral's
 *    latency response function L_j(r) = l_map(r) + D_s(r−1)/(r²·bw_e) +
 *    l_red(r) (OCS-unaware: the EPS uplink bandwidth; the text does not
 *    say, but Corral knows no OCS) and its heuristic: provisioning (every
 *    job starts on one rack; the job with the longest latency gets one
 *    more rack, the best allocation seen is kept) and prioritisation
 *    (batch: widest job first, ties longest latency first; online: by
 *    predicted arrival), each job on the r_j racks free first;
 *  - input blocks: replica 1 on the job's racks and their servers
 *    (round-robin), replicas 2 and 3 on one other rack;
 *  - online: a free container serves the first runnable job of its rack's
 *    sequence (any map of the job, node-local first, or a reduce); ad-hoc
 *    jobs under Fair on what is left; no shuffle postponement (the default
 *    shuffle_ready) and the default per-transfer circuit rule;
 *  - baseline slowstart (YARN's default 0.05: the text gives the baselines
 *    no value) from the runtime.
 *
 * The plan follower, rack-failure fallback and early-reduce guard are
 * JobPacker's (jobpacker_follow.c). */
#include "emu/sched/jobpacker.h"

static int corral_init(struct sched *s)
{
	struct jp_rt *rt = s->priv;
	const struct jp_shared_opts *o = s->opts;
	jp_conf_default(&rt->conf);
	jp_conf_fabric(&rt->conf, &s->p);
	jp_conf_shared(&rt->conf, o);
	rt->conf.eps_jobs = 1;   /* Corral's LRF: the job has its uplinks alone (our reading of Corral) */
	rt->strict = false;
	rt->sparsity = false;
	if (jp_rt_init(rt, s) || jp_plan_corral(&rt->plan, s->c, &rt->model, &rt->conf))
		return -1;
	jp_plan_dump(&rt->plan, s->c, "corral", o->plan_log);
	return 0;
}

static void corral_destroy(struct sched *s)
{
	jp_rt_free(s->priv);
}

static struct task *corral_offer(struct sched *s, int server)
{
	return jp_follow_offer(s, s->priv, server);
}

static void corral_arrived(struct sched *s, struct job *j)
{
	jp_follow_arrived(s->priv, s->c, j);
}

static void corral_place(struct sched *s, struct job *j, struct task *map, int replicas[3])
{
	jp_follow_place(s, s->priv, j, map, replicas);
}

static void corral_tick(struct sched *s)
{
	jp_follow_tick(s, s->priv);
}

/* JobPacker's options that Corral's planner and follower use. */
static const struct sched_opt corral_opt_table[] = {
	JP_SHARED_OPTS,
	{0},
};

const struct sched_ops sched_corral = {
	.name = "corral",
	.help = "Corral: each recurring job's maps and reduces on one planned rack set (SIGCOMM'15 baseline)",
	.priv_size = sizeof(struct jp_rt),
	.opts = corral_opt_table,
	.opts_size = sizeof(struct jp_shared_opts),
	.init = corral_init,
	.destroy = corral_destroy,
	.job_arrived = corral_arrived,
	.offer = corral_offer,
	.tick = corral_tick,
	.place_input = corral_place,
};
