/* Unit tests of NAS (ch. 3) and SW-delay on hand-made clusters: the
 * predictor (Eq. 3.1), TrafficThreshold (Eq. 3.3), proportional reducer
 * placement (Eq. 3.4), the adaptive map completion threshold (Eq. 3.5),
 * CR-RTS under congestion, and ShuffleWatcher's rack packing, reducer
 * placement and shuffle delay. */
#include "emu/sched/nas.h"
#include "sched_fixture.h"
#include <criterion/criterion.h>
#include <stdlib.h>

#define MB (1024.0 * 1024)

static struct cluster c;
static struct sched s;
static struct workload *w;
static uint64_t map_in[8];     /* per job: input of each map */
static double out_ratio[8];    /* per job: actual output/input of its maps */

/* Job i: maps x map_in bytes, its maps' output ratio, and what a predictor
 * knows: recurring jobs their shuffle size (pred x input), ad-hoc none. */
static void job(int i, int maps, int reduces, double in_mb, double ratio, bool recurring)
{
	struct job *j = &w->jobs[i];
	j->submit_s = i;
	j->nmaps = maps;
	j->nreduces = reduces;
	map_in[i] = (uint64_t)(in_mb * MB);
	out_ratio[i] = ratio;
	j->input_bytes = maps * map_in[i];
	j->shuffle_bytes = j->pred_shuffle_bytes = (uint64_t)(ratio * j->input_bytes);
	j->recurring = recurring;
}

/* Lay the tasks out and start the cluster and the policy (nothing arrived). */
static void boot(const char *policy, int racks, int per_rack, int containers)
{
	fx_workload_layout(w);
	for (int i = 0; i < w->ntasks; i++) {
		struct task *t = &w->tasks[i];
		struct job *j = &w->jobs[t->job];
		if (t->kind == TASK_MAP) {
			t->input_bytes = map_in[t->job];
			t->output_bytes = (uint64_t)(out_ratio[t->job] * t->input_bytes);
		} else {
			t->input_bytes = j->shuffle_bytes / j->nreduces;
		}
	}
	/* elephant = 1.125 GB: data scale 1, so light < 1 MiB and heavy > 100 MiB;
	 * D^m = D^r = node + rack wait = 6 s. */
	fx_sched_start(&s, &c, w, policy, racks, per_rack, containers, 0.0, 1125000000);
}

static void stop(void)
{
	fx_sched_stop(&s, &c, w);
}

static void arrive_all(void)
{
	for (int i = 0; i < w->njobs; i++) {
		cluster_job_arrive(&c, &w->jobs[i]);
		if (s.ops->job_arrived)
			s.ops->job_arrived(&s, &w->jobs[i]);
	}
}

static void finish(struct task *t)
{
	cluster_finish_task(&c, t);
	s.ops->task_finished(&s, t);
}

/* Run task t on server sv to completion (not through an offer). */
static void run(struct task *t, int sv)
{
	cluster_start_task(&c, t, sv);
	finish(t);
}

/* Offer server sv once; start what comes back. */
static struct task *offer(int sv)
{
	struct task *t = s.ops->offer(&s, sv);
	if (t) {
		cr_assert_eq(t->state, TASK_PENDING);
		cluster_start_task(&c, t, sv);
	}
	return t;
}

static void replicas(struct job *j, int a, int b, int cc)
{
	for (int i = 0; i < j->nmaps; i++) {
		struct task *t = job_map(w->tasks, j, i);
		t->replicas[0] = a, t->replicas[1] = b, t->replicas[2] = cc;
	}
}

static int reduces_on_rack(const struct job *j, int rack)
{
	int n = 0;
	for (int i = 0; i < j->nreduces; i++) {
		const struct task *t = job_reduce(w->tasks, j, i);
		n += t->state != TASK_PENDING && cluster_rack_of(&c, t->server) == rack;
	}
	return n;
}

Test(nas, registry_has_nas_its_ablations_and_swdelay)
{
	const char *names[] = {"nas", "nas-mts", "nas-nott", "nas-noadapt", "sw-delay"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		const struct sched_ops *o = sched_find(names[i]);
		cr_assert_not_null(o, "%s not registered", names[i]);
		cr_assert_str_eq(o->name, names[i]);
	}
}

Test(nas, predictor_before_and_after_maps_finish)
{
	w = fx_workload_new(2);
	job(0, 4, 1, 25, 0.5, true);    /* recurring: 100 MB in, 50 MB shuffle known */
	job(1, 4, 1, 10, 0.25, false);  /* ad-hoc: nothing known */
	boot("nas", 1, 4, 2);
	arrive_all();
	struct nas_track *k = nas_track_of(&s);
	struct job *a = &w->jobs[0], *b = &w->jobs[1];
	/* Before any map finished: the known size, or ratio 1 for an unpredicted job. */
	cr_assert_float_eq(nas_pred_shuffle(k, a), 50 * MB, 1);
	cr_assert_float_eq(nas_ratio(k, b), 1.0, 1e-12);
	cr_assert_float_eq(nas_pred_shuffle(k, b), 40 * MB, 1);
	/* Two of A's maps finish with ratios 1.0 and 0.5: the job's ratio is their mean. */
	job_map(w->tasks, a, 0)->output_bytes = (uint64_t)(25 * MB);
	job_map(w->tasks, a, 1)->output_bytes = (uint64_t)(12.5 * MB);
	run(job_map(w->tasks, a, 0), 0);
	run(job_map(w->tasks, a, 1), 1);
	cr_assert_float_eq(nas_ratio(k, a), 0.75, 1e-9);
	cr_assert_float_eq(nas_pred_shuffle(k, a), 75 * MB, 1);
	/* One of B's maps (ratio 0.25): B is predicted from then on. */
	run(job_map(w->tasks, b, 0), 2);
	cr_assert_float_eq(nas_pred_shuffle(k, b), 10 * MB, 1);
	stop();
}

Test(nas, predictor_forgets_a_lost_map_output)
{
	w = fx_workload_new(1);
	job(0, 2, 1, 10, 0.5, true);
	boot("nas", 1, 2, 1);
	arrive_all();
	struct job *a = &w->jobs[0];
	struct task *m = job_map(w->tasks, a, 0);
	m->output_bytes = (uint64_t)(20 * MB);   /* ratio 2 */
	run(m, 0);
	cr_assert_float_eq(nas_ratio(nas_track_of(&s), a), 2.0, 1e-9);
	/* Its output is lost and it is re-queued (no hook): the next tick rebuilds. */
	cluster_requeue_task(&c, m);
	s.ops->tick(&s);
	cr_assert_float_eq(nas_ratio(nas_track_of(&s), a), 0.5, 1e-9, "back to the known ratio");
	cr_assert_eq(nas_reduce_target(nas_track_of(&s), &c, a, 0), 1, "no output known: no preference");
	stop();
}

Test(nas, traffic_threshold_is_eq_3_3)
{
	w = fx_workload_new(2);
	job(0, 4, 1, 10, 2.0, true);    /* S = 80 MB, K = 4 */
	job(1, 6, 1, 10, 2.0 / 6, true); /* S = 20 MB, K = 6 */
	boot("nas", 2, 2, 3);
	arrive_all();
	/* m * sum S / sum K = 3 * 100 MB / 10 */
	cr_assert_float_eq(nas_traffic_threshold(&s, 0), 30 * MB, 16);
	stop();
}

/* Servers 0 and 1 (rack 0) both hold every block of job J (10 MB output per
 * map); job L (no shuffle) runs on rack 1.  TrafficThreshold = 2 x 40/8 MB =
 * 10 MB: one running J map fills a server. */
static void threshold_fixture(const char *policy)
{
	w = fx_workload_new(2);
	job(0, 4, 0, 10, 1.0, true);
	job(1, 4, 0, 10, 0.0, true);
	boot(policy, 2, 2, 2);
	replicas(&w->jobs[0], 0, 1, -1);
	arrive_all();
	for (int i = 0; i < 4; i++)
		cluster_start_task(&c, job_map(w->tasks, &w->jobs[1], i), 2 + i / 2);
	c.now = 1;
}

Test(nas, node_over_traffic_threshold_gets_no_map)
{
	threshold_fixture("nas");
	cr_assert_float_eq(nas_traffic_threshold(&s, 0), 10 * MB, 16);
	struct task *t = offer(0);
	cr_assert_not_null(t, "an empty server has room for one 10 MB output");
	cr_assert_eq(t->job, 0);
	cr_assert_null(offer(0), "server 0 is at its TrafficThreshold");
	t = offer(1);
	cr_assert_not_null(t, "server 1 is under it");
	cr_assert_eq(t->job, 0);
	/* Server 1's local, qualified launch stopped the job's clock; it starts
	 * again now, and after D^m (6 s) the job may exceed the threshold
	 * (Algorithm 2, lines 7-16). */
	c.now = 2;
	cr_assert_null(offer(0));
	c.now = 7.9;
	cr_assert_null(offer(0));
	c.now = 8;
	cr_assert_not_null(offer(0));
	stop();
}

Test(nas, nott_ablation_ignores_the_threshold)
{
	threshold_fixture("nas-nott");
	cr_assert_not_null(offer(0));
	cr_assert_not_null(offer(0), "without TrafficThreshold the second map fits");
	stop();
}

/* Job J's four maps finished 3 on rack 0, 1 on rack 1 (12 MB each): its 8
 * reduces belong 6 on rack 0 and 2 on rack 1.  Job K (no shuffle, blocks
 * on both servers) takes what J does not want.  One server per rack. */
static void placement_fixture(const char *policy)
{
	w = fx_workload_new(2);
	job(0, 4, 8, 10, 1.2, true);
	job(1, 40, 0, 1, 0.0, true);
	boot(policy, 2, 1, 16);
	replicas(&w->jobs[1], 0, 1, -1);
	arrive_all();
	for (int i = 0; i < 4; i++)
		run(job_map(w->tasks, &w->jobs[0], i), i < 3 ? 0 : 1);
	c.now = 1;
	for (int round = 0; round < 16; round++) {
		offer(0);
		offer(1);
	}
}

Test(nas, reducers_follow_the_map_output_3_to_1)
{
	placement_fixture("nas");
	struct job *j = &w->jobs[0];
	cr_assert_eq(nas_reduce_target(nas_track_of(&s), &c, j, 0), 6);
	cr_assert_eq(nas_reduce_target(nas_track_of(&s), &c, j, 1), 2);
	cr_assert_eq(reduces_on_rack(j, 0), 6);
	cr_assert_eq(reduces_on_rack(j, 1), 2);
	stop();
}

Test(nas, mts_ablation_places_reducers_like_fair)
{
	placement_fixture("nas-mts");
	/* Fair takes whichever offer comes when it is the job's turn: all 8 on
	 * server 0 here, not 6 and 2. */
	cr_assert_eq(reduces_on_rack(&w->jobs[0], 0), 8);
	cr_assert_eq(reduces_on_rack(&w->jobs[0], 1), 0);
	stop();
}

Test(nas, adaptive_threshold_within_bounds_and_smaller_for_bigger_shuffles)
{
	w = fx_workload_new(4);
	job(0, 4, 1, 10, 0.0, true);    /* S = 0 */
	job(1, 4, 1, 10, 1.25, true);   /* S = 50 MB */
	job(2, 4, 1, 10, 2.5, true);    /* S = 100 MB */
	job(3, 4, 1, 10, 0.625, true);  /* S = 25 MB */
	boot("nas", 1, 4, 1);
	arrive_all();
	double t[4];
	for (int i = 0; i < 4; i++) {
		t[i] = nas_threshold(&s, &w->jobs[i]);
		cr_assert(t[i] >= 0.2 - 1e-12 && t[i] <= 0.5 + 1e-12, "job %d: %g", i, t[i]);
	}
	cr_assert_float_eq(t[0], 0.5, 1e-6, "smallest shuffle: T_max");
	cr_assert_float_eq(t[2], 0.2, 1e-6, "largest shuffle: T_min");
	cr_assert_float_eq(t[1], 0.35, 1e-6, "linear in between (Eq. 3.5)");
	cr_assert_float_eq(t[3], 0.425, 1e-6);
	/* Job 3's maps turn out heavier (ratio 5 -> S = 200 MB, the new S_max):
	 * its threshold drops to T_min, job 2's rises. */
	struct task *m = job_map(w->tasks, &w->jobs[3], 0);
	m->output_bytes = (uint64_t)(50 * MB);
	run(m, 0);
	cr_assert_float_eq(nas_threshold(&s, &w->jobs[3]), 0.2, 1e-6);
	cr_assert_float_eq(nas_threshold(&s, &w->jobs[2]), 0.35, 1e-6);
	stop();
}

Test(nas, noadapt_ablation_has_a_fixed_threshold)
{
	w = fx_workload_new(2);
	job(0, 4, 1, 10, 0.0, true);
	job(1, 4, 1, 10, 2.5, true);
	boot("nas-noadapt", 1, 4, 1);
	arrive_all();
	cr_assert_float_eq(nas_threshold(&s, &w->jobs[0]), 0.2, 1e-12);
	cr_assert_float_eq(nas_threshold(&s, &w->jobs[1]), 0.2, 1e-12);
	stop();
}

/* A light job (threshold 0.5) and a heavy one (0.2), 4 maps each, all
 * launched: reduces come at each job's own threshold, whatever slowstart. */
Test(nas, reduces_wait_for_the_jobs_own_threshold)
{
	w = fx_workload_new(2);
	job(0, 4, 2, 10, 0.01, true);   /* 0.4 MB: light, T_max */
	job(1, 4, 2, 10, 5.0, true);    /* 200 MB: heavy, T_min */
	boot("nas", 1, 8, 2);
	arrive_all();
	struct job *l = &w->jobs[0], *h = &w->jobs[1];
	for (int i = 0; i < 4; i++) {
		cluster_start_task(&c, job_map(w->tasks, l, i), i);
		cluster_start_task(&c, job_map(w->tasks, h, i), 4 + i);
	}
	finish(job_map(w->tasks, l, 0));   /* 25%: below 0.5 */
	finish(job_map(w->tasks, h, 0));   /* 25%: above 0.2 */
	struct task *t = offer(0);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, h->id, "the heavy job's reduce starts at 25%%");
	t = offer(0);
	cr_assert(t == NULL || t->job != l->id, "the light job's reduce must wait for 50%%");
	finish(job_map(w->tasks, l, 1));   /* 50% */
	t = offer(1);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, l->id);
	stop();
}

/* Heavy job H and light job L, every map done on rack 0 (two reduces each). */
static void congestion_fixture(const char *policy)
{
	w = fx_workload_new(2);
	job(0, 4, 2, 100, 1.0, true);    /* 400 MB: heavy */
	job(1, 4, 2, 0.5, 0.25, true);   /* 0.5 MB: light */
	boot(policy, 2, 2, 4);
	arrive_all();
	for (int j = 0; j < 2; j++)
		for (int i = 0; i < 4; i++)
			run(job_map(w->tasks, &w->jobs[j], i), i % 2);
	c.now = 1;
}

Test(nas, congested_rack_gets_light_reduces_only)
{
	congestion_fixture("nas");
	struct job *h = &w->jobs[0], *l = &w->jobs[1];
	c.rack_util_in[0] = 0.9;   /* CongestionThreshold 0.8 reached */
	struct task *a = offer(0), *b = offer(0);
	cr_assert_not_null(a);
	cr_assert_not_null(b);
	cr_assert_eq(a->job, l->id, "the heavy job is first in fair order but delayed");
	cr_assert_eq(b->job, l->id);
	cr_assert_null(offer(0), "only the heavy job's reduces are left: delayed");
	cr_assert_eq(h->reduces_running, 0);
	/* Not congested any more: the heavy job's reduces go. */
	c.rack_util_in[0] = 0.5;
	struct task *t = offer(0);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, h->id);
	stop();
}

Test(nas, uncongested_rack_gets_both)
{
	congestion_fixture("nas");
	struct task *a = offer(0), *b = offer(0);
	cr_assert_not_null(a);
	cr_assert_not_null(b);
	cr_assert_neq(a->job, b->job, "fair order alternates heavy and light");
	stop();
}

Test(nas, congestion_delays_heavy_reduces_at_most_d_r)
{
	congestion_fixture("nas");
	c.rack_util_out[0] = 0.85;
	offer(0);
	offer(0);   /* the light job's two reduces */
	cr_assert_null(offer(0));
	c.now = 8;   /* waited more than D^r = 6 s */
	struct task *t = offer(0);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, 0);
	stop();
}

Test(nas, congested_rack_launches_no_heavy_maps)
{
	w = fx_workload_new(2);
	job(0, 4, 1, 100, 1.0, true);   /* heavy */
	job(1, 4, 1, 0.5, 0.25, true);  /* light */
	boot("nas", 2, 2, 4);
	replicas(&w->jobs[0], 0, 1, -1);
	replicas(&w->jobs[1], 0, 1, -1);
	arrive_all();
	c.rack_util_out[0] = 0.95;
	struct task *t = offer(0);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, 1, "CR-RTS: no shuffle-heavy map in a congested rack");
	c.rack_util_out[0] = 0;
	t = offer(1);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, 0);
	stop();
}

/* A congested rack holds a heavy job's maps back at most D^m (6 s here):
 * the job is skipped like any MTS skip, and "a user cannot be skipped more
 * than 5 seconds to launch tasks" (§3.3.1). */
Test(nas, congestion_holds_heavy_maps_at_most_d_m)
{
	w = fx_workload_new(1);
	job(0, 4, 1, 100, 1.0, true);   /* heavy, blocks on rack 0 only */
	boot("nas", 2, 2, 4);
	replicas(&w->jobs[0], 0, 1, -1);
	arrive_all();
	c.now = 1;
	c.rack_util_out[0] = 0.95;
	cr_assert_null(offer(0), "held back while the rack is congested");
	c.now = 6.9;
	cr_assert_null(offer(0));
	c.now = 7;   /* skipped for D^m */
	struct task *t = offer(0);
	cr_assert_not_null(t, "D^m reached: MTS launches");
	cr_assert_eq(t->job, 0);
	cr_assert_eq(cluster_locality(&c, t, 0), LOCAL_NODE, "least MapCost: its data-local map");
	/* The local launch reset its clock: held back again. */
	c.now = 8;
	cr_assert_null(offer(0));
	stop();
}

/* Eq. 3.4 in whole reduces: the racks' targets add up to the job's reduces. */
Test(nas, reduce_targets_add_up_to_the_reduces)
{
	w = fx_workload_new(2);
	job(0, 4, 1, 10, 1.0, true);   /* one reduce, output 3:1 */
	job(1, 3, 2, 10, 1.0, true);   /* two reduces, output 1:1:1 */
	boot("nas", 3, 1, 8);
	arrive_all();
	for (int i = 0; i < 4; i++)
		run(job_map(w->tasks, &w->jobs[0], i), i < 3 ? 0 : 1);
	for (int i = 0; i < 3; i++)
		run(job_map(w->tasks, &w->jobs[1], i), i);
	const struct nas_track *k = nas_track_of(&s);
	cr_assert_eq(nas_reduce_target(k, &c, &w->jobs[0], 0), 1, "the rack with most of its output");
	cr_assert_eq(nas_reduce_target(k, &c, &w->jobs[0], 1), 0, "a quarter of one reduce is none");
	cr_assert_eq(nas_reduce_target(k, &c, &w->jobs[0], 2), 0);
	int sum = 0;
	for (int r = 0; r < 3; r++)
		sum += nas_reduce_target(k, &c, &w->jobs[1], r);
	cr_assert_eq(sum, 2, "thirds of two reduces: 1 + 1 + 0, not 1 + 1 + 1");
	stop();
}

/* One reduce, output 3:1 on racks 0 and 1; job K (maps only, blocks on
 * both servers) takes the containers the reduce does not want. */
Test(nas, one_reduce_waits_for_the_rack_with_its_output)
{
	w = fx_workload_new(2);
	job(0, 4, 1, 10, 1.0, true);
	job(1, 40, 0, 1, 0.0, true);
	boot("nas", 2, 1, 4);
	replicas(&w->jobs[1], 0, 1, -1);
	arrive_all();
	for (int i = 0; i < 4; i++)
		run(job_map(w->tasks, &w->jobs[0], i), i < 3 ? 0 : 1);
	c.now = 1;
	struct task *t = offer(1);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, 1, "rack 1 has a quarter of the output: not the reduce's rack");
	t = offer(0);
	cr_assert_not_null(t);
	cr_assert_eq(t->kind, TASK_REDUCE);
	stop();
}

/* A heavy job (threshold T_min = 0.2) with 10 maps, its blocks on server 0,
 * and a light one (threshold T_max) to set S_min, its blocks on server 1;
 * 2 servers x 4 containers, one rack. */
static void early_fixture(void)
{
	w = fx_workload_new(2);
	job(0, 10, 4, 20, 1.0, true);   /* 200 MB: heavy */
	job(1, 2, 1, 0.1, 0.1, true);   /* light */
	boot("nas", 1, 2, 4);
	replicas(&w->jobs[0], 0, -1, -1);
	replicas(&w->jobs[1], 1, -1, -1);
	arrive_all();
	c.now = 1;
}

Test(nas, reduces_start_at_the_threshold_while_maps_are_pending)
{
	early_fixture();
	struct job *h = &w->jobs[0];
	cr_assert_float_eq(nas_threshold(&s, h), 0.2, 1e-9);
	struct task *m[3];
	for (int i = 0; i < 3; i++) {   /* TrafficThreshold: 4 x 200 MB / 12 maps, three 20 MB outputs */
		m[i] = offer(0);
		cr_assert_not_null(m[i]);
		cr_assert_eq(m[i]->kind, TASK_MAP, "below its threshold: maps only");
		cr_assert_eq(m[i]->job, h->id);
	}
	cr_assert_null(offer(0), "server 0 is at its TrafficThreshold, the light job's blocks elsewhere");
	finish(m[0]);
	finish(m[1]);   /* 2 of 10 done: threshold reached, 7 maps pending */
	struct task *t = offer(0);
	cr_assert_not_null(t);
	cr_assert_eq(t->kind, TASK_REDUCE, "its reduce comes before its remaining maps");
	cr_assert_eq(t->job, h->id);
	cr_assert_gt(cluster_pending_maps(&c, h), 0);
	stop();
}

Test(nas, early_reduces_hold_at_most_half_of_the_jobs_containers)
{
	early_fixture();
	struct job *h = &w->jobs[0];
	for (int i = 0; i < 2; i++)
		run(job_map(w->tasks, h, i), 0);
	/* 2 done; nothing running: one reduce (0 < 0.5 x 1), then a map
	 * (1 reduce, 0 maps), then a reduce again (1 < 0.5 x 3) and so on. */
	struct task *t[4];
	for (int i = 0; i < 4; i++) {
		t[i] = offer(0);
		cr_assert_not_null(t[i]);
	}
	cr_assert_eq(t[0]->kind, TASK_REDUCE);
	cr_assert_eq(t[1]->kind, TASK_MAP);
	cr_assert_eq(t[2]->kind, TASK_REDUCE);
	cr_assert_eq(t[3]->kind, TASK_MAP);
	cr_assert_leq(h->reduces_running, h->maps_running);
	stop();
}

Test(nas, early_reduces_can_be_turned_off)
{
	early_fixture();
	/* Start the policy again with the option. */
	sched_destroy(&s);
	const char *opts[] = {"early_reduces=off"};
	struct sched_params p = {.elephant_bytes = 1125000000, .node_wait_s = 3, .rack_wait_s = 3, .seed = 1,
				 .opts = opts, .nopts = 1};
	cr_assert_eq(sched_init(&s, sched_find("nas"), &c, &p), 0);
	for (int i = 0; i < 2; i++)
		run(job_map(w->tasks, &w->jobs[0], i), 0);
	for (int i = 0; i < 8; i++) {
		struct task *t = offer(i / 4);
		if (t)
			cr_assert_eq(t->kind, TASK_MAP, "offer %d: no reduce while maps are pending", i);
	}
	stop();
}

Test(nas, early_reduces_hold_at_most_half_of_the_cluster)
{
	/* 8 jobs of 4 maps (all alike: threshold 0.35), 2 maps of each done,
	 * one server of 8 containers: at most 4 early reduces in all. */
	w = fx_workload_new(8);
	for (int i = 0; i < 8; i++)
		job(i, 4, 2, 100, 1.0, true);
	boot("nas", 1, 1, 8);
	for (int i = 0; i < 8; i++)
		replicas(&w->jobs[i], 0, -1, -1);
	arrive_all();
	for (int i = 0; i < 8; i++)
		for (int m = 0; m < 2; m++)
			run(job_map(w->tasks, &w->jobs[i], m), 0);
	c.now = 1;
	int reds = 0;
	for (int i = 0; i < 8; i++) {
		struct task *t = offer(0);
		cr_assert_not_null(t);
		reds += t->kind == TASK_REDUCE;
	}
	cr_assert_eq(reds, 4);
	stop();
}

/* --------------------------------------------------------- sw-delay */

/* Job J: 4 maps done, 3 of them on rack 0 (server 0), 1 on rack 1 (server
 * 2); 4 reduces: 3 belong on rack 0, 1 on rack 1.  Job K: maps only, its
 * blocks on rack 0 (servers 0 and 1), which is its map rack. */
static void sw_fixture(void)
{
	w = fx_workload_new(2);
	job(0, 4, 4, 10, 1.0, true);
	job(1, 8, 0, 0.5, 0.0, true);
	boot("sw-delay", 2, 2, 8);
	replicas(&w->jobs[0], 0, 2, -1);
	replicas(&w->jobs[1], 0, 1, -1);
	arrive_all();
	for (int i = 0; i < 4; i++)
		run(job_map(w->tasks, &w->jobs[0], i), i < 3 ? 0 : 2);
	c.now = 1;
}

Test(swdelay, reducers_go_where_the_map_output_is)
{
	sw_fixture();
	struct job *j = &w->jobs[0];
	struct task *t = offer(2);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, j->id);
	cr_assert_eq(t->kind, TASK_REDUCE);
	t = offer(3);
	cr_assert_null(t, "rack 1 holds a quarter of the output: one reduce (K's rack is 0)");
	/* Rack 0's offers go to J's reduces and K's maps, by fair order. */
	for (int i = 0; i < 10; i++)
		cr_assert_not_null(offer(i % 2));
	cr_assert_eq(reduces_on_rack(j, 0), 3);
	cr_assert_eq(reduces_on_rack(j, 1), 1);
	stop();
}

Test(swdelay, no_reduce_while_the_rack_is_congested)
{
	sw_fixture();
	struct job *j = &w->jobs[0];
	c.rack_util_in[0] = 0.8;
	struct task *t = offer(0);
	cr_assert_not_null(t, "the container goes to a map instead");
	cr_assert_eq(t->job, 1);
	cr_assert_eq(t->kind, TASK_MAP);
	cr_assert_eq(j->reduces_running, 0);
	c.rack_util_in[0] = 0.79;
	t = offer(0);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, j->id);
	cr_assert_eq(t->kind, TASK_REDUCE);
	stop();
}

Test(swdelay, light_jobs_are_delayed_too_unlike_nas)
{
	w = fx_workload_new(1);
	job(0, 2, 2, 0.1, 0.1, true);   /* 20 KB of shuffle */
	boot("sw-delay", 1, 2, 2);
	arrive_all();
	run(job_map(w->tasks, &w->jobs[0], 0), 0);
	run(job_map(w->tasks, &w->jobs[0], 1), 1);
	c.rack_util_out[0] = 0.9;
	cr_assert_null(offer(0));
	c.now = 100;
	cr_assert_null(offer(0), "no time limit: reduces wait for the congestion to end");
	stop();
}

Test(swdelay, maps_are_packed_on_the_racks_with_their_blocks)
{
	/* 3 racks x 2 servers x 2 containers: a rack takes the job's 4 maps.
	 * Every block has two replicas on rack 2, maps 0-1 a third on server 2
	 * (rack 1): rack 2 is the job's rack. */
	w = fx_workload_new(1);
	job(0, 4, 0, 10, 1.0, true);
	boot("sw-delay", 3, 2, 2);
	replicas(&w->jobs[0], 4, 5, -1);
	job_map(w->tasks, &w->jobs[0], 0)->replicas[2] = 2;
	job_map(w->tasks, &w->jobs[0], 1)->replicas[2] = 2;
	arrive_all();
	c.now = 10;
	cr_assert_null(offer(2), "node-local, but off the job's rack: Delay waits");
	struct task *t = offer(4);
	cr_assert_not_null(t);
	cr_assert_eq(cluster_rack_of(&c, t->server), 2);
	c.now = 11;   /* the node-local launch stopped the clock: it starts again */
	cr_assert_null(offer(2));
	c.now = 11 + 6;   /* node + rack wait */
	cr_assert_not_null(offer(2), "after both waits anything goes");
	stop();
}
