/* FAWKES (seed 003): the weighting policies on hand-made observations
 * (Eqs. 4-6), the discrimination (Eq. 3), the targets (water-filling over
 * the minimum shares, whole servers), the reference runtime; the logical
 * clusters' bookkeeping (one owner per server, typed slots, TR reads
 * remotely, TC stores, decommission waits and re-replicates, kill
 * requeues); and runs through the runtime on the simulator. */
#include "emu/gen.h"
#include "emu/mrcluster.h"
#include "emu/run.h"
#include "emu/sched/fawkes.h"
#include "simrun_fixture.h"
#include "tree_fixture.h"
#include "workload_fixture.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char root[64], repo[512];
static void setup(void) { tf_setup(root, sizeof root, "/tmp/emu-fawkes-XXXXXX", repo, sizeof repo, NULL, 0); }
static void teardown(void) { tf_teardown(root); }
TestSuite(fawkes, .init = setup, .fini = teardown);

/* ---- weights ------------------------------------------------------------- */

/* Three clusters: c-3 idle, c-2 the most loaded by tasks. */
static const struct fawkes_obs obs[3] = {
	{.active = true, .jobs_waiting = 2, .bytes_waiting = 3e9, .tasks_waiting = 40, .proc_usage = 0.5,
	 .disk_usage = 0.1, .slowdown = 2, .jobs_done = 2, .tasks_done = 40},
	{.active = true, .jobs_waiting = 6, .bytes_waiting = 1e9, .tasks_waiting = 120, .proc_usage = 0.25,
	 .disk_usage = 0.3, .slowdown = 4, .jobs_done = 0, .tasks_done = 60},
	{.active = true, .proc_usage = 0.25, .slowdown = 2, .jobs_done = 3, .tasks_done = 10},
};

static void weights_are(enum fawkes_policy p, const struct fawkes_obs *o, double w0, double w1, double w2)
{
	double w[3];
	fawkes_raw_weights(p, o, 3, 0.5, 2, w);
	cr_assert_gt(fawkes_normalize(w, 3), 0, "policy %d: all zero", p);
	cr_assert_float_eq(w[0], w0, 1e-9, "policy %d: c-1 %g", p, w[0]);
	cr_assert_float_eq(w[1], w1, 1e-9, "policy %d: c-2 %g", p, w[1]);
	cr_assert_float_eq(w[2], w2, 1e-9, "policy %d: c-3 %g", p, w[2]);
}

Test(fawkes, demand_weights)
{
	weights_are(FW_JD, obs, 0.25, 0.75, 0);        /* 2, 6, 0 jobs */
	weights_are(FW_DD, obs, 0.75, 0.25, 0);        /* 3, 1, 0 GB */
	weights_are(FW_TD, obs, 0.25, 0.75, 0);        /* 40, 120, 0 tasks */
}

Test(fawkes, usage_weights)
{
	weights_are(FW_PU, obs, 0.5, 0.25, 0.25);
	weights_are(FW_DU, obs, 0.25, 0.75, 0);
	/* Eq. 5, psi 0.5, each usage normalised first: 0.5 (0.5, 0.25, 0.25) + 0.5 (0.25, 0.75, 0). */
	weights_are(FW_RU, obs, 0.375, 0.5, 0.125);
}

Test(fawkes, performance_weights)
{
	weights_are(FW_JS, obs, 0.25, 0.5, 0.25);      /* slowdowns 2, 4, 2 */
	/* JT: q = 2/2 -> 2^-1; 0/6 -> 1; nothing waiting -> 0. */
	weights_are(FW_JT, obs, 1.0 / 3, 2.0 / 3, 0);
	/* TT: 40/40 -> 0.5; 60/120 -> 2^-0.5; nothing waiting -> 0. */
	double s = 0.5 + pow(2, -0.5);
	weights_are(FW_TT, obs, 0.5 / s, pow(2, -0.5) / s, 0);
	cr_assert_float_eq(fawkes_throughput_weight(10, 5, 2), 0.25, 1e-12);
	cr_assert_float_eq(fawkes_throughput_weight(0, 5, 2), 1, 1e-12, "nothing done: the whole share");
	cr_assert_float_eq(fawkes_throughput_weight(5, 0, 2), 0, 1e-12, "nothing waiting: none");
}

Test(fawkes, baselines_and_inactive_clusters)
{
	weights_are(FW_EQ, obs, 1.0 / 3, 1.0 / 3, 1.0 / 3);
	struct fawkes_obs o[3];
	memcpy(o, obs, sizeof o);
	o[1].active = false;   /* removed: no weight whatever it shows */
	weights_are(FW_EQ, o, 0.5, 0, 0.5);
	weights_are(FW_TD, o, 1, 0, 0);
	double w[3] = {0, 0, 0};
	cr_assert_eq(fawkes_normalize(w, 3), 0, "all idle: nothing to normalise");
}

/* ---- discrimination and targets ------------------------------------------- */

Test(fawkes, discrimination)
{
	/* (10/48 - 0.1) 120 = 13, (28/48 - 0.8) 120 = -26, 13: Var = (169 + 676 + 169) / 3. */
	int size[3] = {10, 28, 10};
	double w[3] = {0.1, 0.8, 0.1};
	cr_assert_float_eq(fawkes_discrimination(size, w, 3, 48, 120), 338, 1e-9);
	double fair[3] = {10.0 / 48, 28.0 / 48, 10.0 / 48};
	cr_assert_float_eq(fawkes_discrimination(size, fair, 3, 48, 120), 0, 1e-9);
}

static void targets_are(const double *w, const int *lo, int total, int x0, int x1, int x2)
{
	int x[3];
	fawkes_targets(w, lo, 3, total, x);
	cr_assert(x[0] == x0 && x[1] == x1 && x[2] == x2, "got %d %d %d, want %d %d %d", x[0], x[1], x[2], x0, x1, x2);
}

Test(fawkes, targets)
{
	int ten[3] = {10, 10, 10};
	/* §7.3: the loaded cluster takes all it can, 48 - 2 x 10. */
	targets_are((double[]){0.1, 0.8, 0.1}, ten, 48, 10, 28, 10);
	/* EQ: 16 each; 50 servers: the extra 2 by largest remainder, ties to the lower index. */
	targets_are((double[]){1, 1, 1}, ten, 48, 16, 16, 16);
	targets_are((double[]){1, 1, 1}, ten, 50, 17, 17, 16);
	/* c-3's 9.6 is below its floor: pinned at 10, the other 38 by 5:3 (23.75, 14.25). */
	targets_are((double[]){0.5, 0.3, 0.2}, ten, 48, 24, 14, 10);
	/* §7.1 point B: c-1 runs, c-2 loads (weight 0), c-3 not deployed: 50, 10, 0. */
	targets_are((double[]){1, 0, 0}, (int[]){10, 10, 0}, 60, 50, 10, 0);
	/* Nothing weighs: every cluster at its floor. */
	targets_are((double[]){0, 0, 0}, ten, 48, 10, 10, 10);
}

Test(fawkes, reference_runtime)
{
	struct workload *w = fx_workload_new(1);
	w->jobs[0].nmaps = 130;
	w->jobs[0].nreduces = 20;
	fx_workload_layout(w);
	for (int i = 0; i < w->ntasks; i++)
		w->tasks[i].work_s = w->tasks[i].kind == TASK_MAP ? 10 : 30;
	/* 10 servers: 60 map slots, 3 waves of 10 s; 20 reduce slots, 1 wave of 30 s. */
	cr_assert_float_eq(fawkes_ref_runtime(&w->jobs[0], w->tasks, 10, 6, 2), 60, 1e-9);
	cr_assert_float_eq(fawkes_ref_runtime(&w->jobs[0], w->tasks, 1, 6, 2), 22 * 10 + 10 * 30, 1e-9);
	fx_workload_free(w);
}

/* ---- logical clusters ------------------------------------------------------ */

/* Two racks of 6 servers with 8 slots; jobs 0 (cluster 1) and 1 (cluster 2)
 * of 20 maps (5 s) and 2 reduces; 2 logical clusters of 3 core servers:
 * servers 0-2 and 3-5, 6-11 free. */
static void mrc_setup(struct mrc *m, struct cluster *c, struct sched *s, struct workload **wp)
{
	struct workload *w = fx_workload_new(2);
	for (int j = 0; j < 2; j++) {
		w->jobs[j].nmaps = 20;
		w->jobs[j].nreduces = 2;
		w->jobs[j].cluster = j + 1;
	}
	fx_workload_layout(w);
	for (int i = 0; i < w->ntasks; i++) {
		w->tasks[i].work_s = 5;
		w->tasks[i].output_bytes = 1000000;
	}
	cr_assert_eq(cluster_init(c, 2, 6, 8, w, 1), 0);
	memset(s, 0, sizeof *s);
	s->c = c;
	s->rng.s = 1;
	cr_assert_eq(mrc_init(m, c, 2, 3, 6, 2), 0);
	struct rng r = {7};
	for (int j = 0; j < 2; j++) {
		for (int i = 0; i < 20; i++)
			mrc_place_input(m, &r, &w->jobs[j], job_map(w->tasks, &w->jobs[j], i)->replicas);
		cluster_job_arrive(c, &w->jobs[j]);
	}
	*wp = w;
}

/* What the runtime does with an offer: start it if it may. */
static struct task *offer_start(struct mrc *m, struct sched *s, int server)
{
	struct task *t = mrc_offer(m, s, server);
	if (t && cluster_task_startable(s->c, t) && cluster_task_fits(s->c, t, server))
		cluster_start_task(s->c, t, server);
	else
		t = NULL;
	return t;
}

Test(fawkes, one_owner_data_on_core_and_typed_slots)
{
	struct mrc m;
	struct cluster c;
	struct sched s;
	struct workload *w;
	mrc_setup(&m, &c, &s, &w);
	cr_assert(m.size[0] == 3 && m.size[1] == 3 && mrc_count(&m, 0, MRC_CORE) == 3);
	/* Blocks on 3 different core servers of the job's own cluster. */
	for (int j = 0; j < 2; j++)
		for (int i = 0; i < 20; i++) {
			const int *r = job_map(w->tasks, &w->jobs[j], i)->replicas;
			for (int q = 0; q < 3; q++)
				cr_assert(r[q] >= 3 * j && r[q] < 3 * j + 3, "job %d block %d on server %d", j, i, r[q]);
			cr_assert(r[0] != r[1] && r[1] != r[2] && r[0] != r[2]);
		}
	/* A free server takes nothing; it joins one cluster only. */
	cr_assert_null(mrc_offer(&m, &s, 6));
	mrc_grow(&m, 6, 1, MRC_TR);
	mrc_grow(&m, 6, 0, MRC_TC);
	cr_assert(m.node[6].owner == 1 && m.node[6].role == MRC_TR && m.size[0] == 3 && m.size[1] == 4);
	/* Its 8 slots take 6 maps only (reduces wait for every map: slowstart 1), all of cluster 2's job. */
	int n = 0;
	struct task *t;
	while ((t = offer_start(&m, &s, 6))) {
		cr_assert_eq(t->job, 1);
		cr_assert_eq(t->kind, TASK_MAP);
		cr_assert_neq(cluster_locality(&c, t, 6), LOCAL_NODE, "a TR server holds no input: it reads remotely");
		n++;
	}
	cr_assert_eq(n, 6);
	cr_assert_eq(c.servers[6].free, 2);
	/* A core server of cluster 1 runs cluster 1's job, node-local. */
	t = offer_start(&m, &s, 0);
	cr_assert(t && t->job == 0 && t->data_local == false && cluster_locality(&c, t, 0) == LOCAL_NODE);
	mrc_free(&m);
	cluster_free(&c);
	fx_workload_free(w);
}

Test(fawkes, kill_requeues_and_frees_at_once)
{
	struct mrc m;
	struct cluster c;
	struct sched s;
	struct workload *w;
	mrc_setup(&m, &c, &s, &w);
	mrc_grow(&m, 7, 0, MRC_TR);
	for (int i = 0; i < 3; i++)
		cr_assert_not_null(offer_start(&m, &s, 7));
	mrc_leave(&m, 7, MRC_KILL);
	cr_assert(m.node[7].owner == -1 && m.size[0] == 3, "free at once");
	struct preemption out[8];
	cr_assert_eq(mrc_victims(&m, out, 8), 3);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(out[i].op, PREEMPT_KILL);
		cr_assert_eq(out[i].t->server, 7);
		cluster_requeue_task(&c, out[i].t);   /* what the runtime does with a kill */
		cr_assert_eq(out[i].t->state, TASK_PENDING);
	}
	cr_assert_eq(mrc_victims(&m, out, 8), 0, "each kill owed once");
	cr_assert_eq(m.kills, 3);
	/* Free for another cluster now. */
	mrc_grow(&m, 7, 1, MRC_TC);
	cr_assert_eq(m.node[7].owner, 1);
	cr_assert_eq(offer_start(&m, &s, 7)->job, 1);
	mrc_free(&m);
	cluster_free(&c);
	fx_workload_free(w);
}

Test(fawkes, tc_stores_and_decommission_waits_then_rereplicates)
{
	struct mrc m;
	struct cluster c;
	struct sched s;
	struct workload *w;
	mrc_setup(&m, &c, &s, &w);
	mrc_grow(&m, 8, 0, MRC_TC);
	mrc_grow(&m, 9, 0, MRC_TR);
	/* Run job 0's maps on the TC and TR servers and the core, then its reduces (last stage: HDFS output). */
	for (int guard = 0; guard < 100 && w->jobs[0].maps_done < 20; guard++) {
		for (int sv = 0; sv < 12; sv++)
			while (offer_start(&m, &s, sv))
				;
		for (int i = 0; i < w->ntasks; i++)
			if (w->tasks[i].state == TASK_RUNNING && w->tasks[i].kind == TASK_MAP) {
				cluster_finish_task(&c, &w->tasks[i]);
				mrc_task_done(&m, &w->tasks[i]);
			}
	}
	cr_assert_eq(m.node[8].stored, 0, "map output is scratch, not stored");
	struct task *r8 = job_reduce(w->tasks, &w->jobs[0], 0), *r9 = job_reduce(w->tasks, &w->jobs[0], 1);
	cluster_start_task(&c, r8, 8);
	cluster_start_task(&c, r9, 9);
	m.node[8].run[m.node[8].nrun++] = r8->id;
	m.node[9].run[m.node[9].nrun++] = r9->id;
	/* Decommission of the TC server while its reduce runs: no new task, not free. */
	mrc_leave(&m, 8, MRC_DECOMMISSION);
	cr_assert(m.node[8].leaving && m.node[8].owner == 0 && m.size[0] == 4);
	cr_assert_null(mrc_offer(&m, &s, 8));
	c.now = 10;
	mrc_tick(&m);
	cr_assert(m.node[8].owner == 0 && !m.node[8].emptied && !c.ncopies, "waits for its task");
	cluster_finish_task(&c, r8);
	mrc_task_done(&m, r8);
	cluster_finish_task(&c, r9);
	mrc_task_done(&m, r9);
	cr_assert_eq(m.node[8].stored, 1000000, "TC stores its output");
	cr_assert_eq(m.node[9].stored, 0, "TR stores nothing");
	uint64_t core = 0;
	for (int sv = 0; sv < 3; sv++)
		core += m.node[sv].stored;
	cr_assert_eq(core, 1000000, "TR's output went to a core server");
	/* Empty: its 1 MB is a copy onto a core server (the backend moves it), then free. */
	c.now = 20;
	mrc_tick(&m);
	cr_assert_eq(c.ncopies, 1);
	cr_assert(c.copies[0].src == 8 && c.copies[0].dst < 3 && c.copies[0].bytes == 1000000);
	cr_assert_eq(m.rereplicated, 1000000);
	mrc_tick(&m);
	cr_assert_eq(m.node[8].owner, 0, "not free while its copy moves");
	c.copies[0].done = true;
	mrc_tick(&m);
	cr_assert(m.node[8].owner == -1 && m.node[8].role == MRC_FREE && !m.node[8].leaving);
	cr_assert_eq(m.stored[0], 2000000, "the cluster keeps both outputs");
	mrc_free(&m);
	cluster_free(&c);
	fx_workload_free(w);
}

/* ---- through the runtime ---------------------------------------------------- */

static struct fawkes_stats last;
static void (*real_destroy)(struct sched *);
static int seen_over[3];   /* most servers a cluster held, seen at a tick */
static void (*real_tick)(struct sched *);

static void tick_watch(struct sched *s)
{
	real_tick(s);
	for (int i = 0; i < 3; i++) {
		int n = fawkes_size(s, i, MRC_CORE) + fawkes_size(s, i, MRC_TR) + fawkes_size(s, i, MRC_TC);
		seen_over[i] = n > seen_over[i] ? n : seen_over[i];
	}
	/* Every server is held by one cluster at most. */
	int held = 0;
	for (int i = 0; i < 3; i++)
		for (int r = MRC_CORE; r <= MRC_TC; r++)
			held += fawkes_size(s, i, r);
	cr_assert_leq(held, s->c->nservers);
	/* Targets never promise more than there is. */
	int want = 0;
	for (int i = 0; i < 3; i++)
		want += fawkes_target(s, i);
	cr_assert_leq(want, s->c->nservers);
}

static void capture(struct sched *s)
{
	last = fawkes_stats(s);
	real_destroy(s);
}

static const struct sched_ops *watched(void)
{
	static struct sched_ops ops;
	ops = *sched_find("fawkes");
	real_destroy = ops.destroy;
	real_tick = ops.tick;
	ops.destroy = capture;
	ops.tick = tick_watch;
	return &ops;
}

static const char fawkes48[] = "name = \"fawkes-48\";\nracks = 4;\nservers_per_rack = 12;\n"
			       "server = { rate = \"10Gbit\"; containers = 8; };\n"
			       "eps = { uplink_rate = \"120Gbit\"; };\nocs = { enabled = false; };\n";

/* WKLD-D at `pct` percent of its jobs, scaled, under fawkes with opts. */
static void run_d(struct workload *w, int pct, const char *const *opts, int nopts, const char *name)
{
	struct topo t;
	char err[512];
	cr_assert_eq(topo_load_string(&t, fawkes48, "f.conf", 0, err), 0, "%s", err);
	struct synth_params sp;
	struct workload_params wp;
	synth_params_default(&sp);
	workload_params_default(&wp);
	wp.data_scale = 0.01;
	wp.time_scale = 0.1;
	sp.njobs = pct;
	struct gen_opts go = {&sp, true, false, false};
	cr_assert_eq(gen_workload(w, "fawkes:wkld=4,span=3600", &go, &wp, err), 0, "%s", err);
	struct run_params p;
	sr_params(&p, root, "fawkes", name);
	p.sched_ops = watched();
	p.sched_opts = opts;
	p.nsched_opts = nopts;
	memset(seen_over, 0, sizeof seen_over);
	json_decref(sr_run(&t, w, &p));
}

Test(fawkes, none_keeps_every_cluster_on_its_core, .timeout = 120)
{
	static const char *const opts[] = {"policy=none", "period=12"};
	struct workload w;
	run_d(&w, 10, opts, 2, "none");
	cr_assert_eq(last.grows, 0);
	cr_assert_eq(last.reconfigs, 0);
	for (int i = 0; i < w.ntasks; i++) {
		const struct task *t = &w.tasks[i];
		int c = w.jobs[t->job].cluster;
		cr_assert(t->state == TASK_DONE && t->server / 10 == c - 1, "task %d of cluster %d ran on server %d", i, c,
			  t->server);
	}
	for (int i = 0; i < 3; i++)
		cr_assert_eq(seen_over[i], 10);
	workload_free(&w);
}

Test(fawkes, td_grows_the_loaded_cluster_and_finishes, .timeout = 120)
{
	static const char *const opts[] = {"policy=td", "period=12"};
	struct workload w;
	run_d(&w, 10, opts, 2, "td");
	for (int j = 0; j < w.njobs; j++)
		cr_assert_geq(w.jobs[j].t_end, 0, "job %d did not finish", j);
	cr_assert_gt(last.reconfigs, 0);
	cr_assert_gt(last.grows, 0);
	cr_assert_eq(last.kills, 0, "TC servers leave by decommission: nothing killed");
	cr_assert_gt(last.rereplicated, 0, "the outputs TC servers stored were re-replicated");
	int most = 0;
	for (int i = 0; i < 3; i++)
		most = seen_over[i] > most ? seen_over[i] : most;
	cr_assert_gt(most, 10, "some cluster grew beyond its core");
	workload_free(&w);
}

Test(fawkes, tr_growth_shrinks_by_kill_and_still_finishes, .timeout = 120)
{
	static const char *const opts[] = {"policy=eq", "grow=tr", "period=3"};
	struct workload w;
	run_d(&w, 10, opts, 3, "tr");
	for (int j = 0; j < w.njobs; j++)
		cr_assert_geq(w.jobs[j].t_end, 0, "job %d did not finish", j);
	cr_assert_gt(last.leaves, 0);
	cr_assert_eq(last.rereplicated, 0, "TR servers store nothing");
	workload_free(&w);
}

/* Cluster 1's long job alone grows it onto TR servers (cluster 3 has no
 * job: removed, its core goes back); cluster 2's job at 30 s takes half
 * back, by kill: tasks killed on the servers that leave run again, and
 * both jobs finish. */
Test(fawkes, shrink_by_kill_requeues_running_tasks, .timeout = 120)
{
	struct topo t;
	char err[512], path[300];
	cr_assert_eq(topo_load_string(&t, fawkes48, "f.conf", 0, err), 0, "%s", err);
	snprintf(path, sizeof path, "%s/kill.json", root);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"scaled\": true, \"jobs\": [\n"
	      " {\"name\": \"big1\", \"cluster\": 1, \"input\": \"1GB\", \"maps\": 600, \"reduces\": 1, \"map_duration\": 20},\n"
	      " {\"name\": \"big2\", \"cluster\": 2, \"submit\": 30, \"input\": \"1GB\", \"maps\": 600, \"reduces\": 1,"
	      " \"map_duration\": 20}]}\n", f);
	fclose(f);
	struct workload w;
	struct workload_params wp;
	workload_params_default(&wp);
	cr_assert_eq(workload_read(&w, path, &wp, 0, err), 0, "%s", err);
	static const char *const opts[] = {"policy=td", "grow=tr", "period=5", "tau=0", "clusters=3"};
	struct run_params p;
	sr_params(&p, root, "fawkes", "kill");
	p.sched_ops = watched();
	p.sched_opts = opts;
	p.nsched_opts = 5;
	memset(seen_over, 0, sizeof seen_over);
	json_decref(sr_run(&t, &w, &p));
	cr_assert_eq(seen_over[0], 38, "alone, cluster 1 takes all but cluster 2's core: %d", seen_over[0]);
	cr_assert_gt(last.kills, 0);
	int killed = 0, again = 0;
	for (int i = 0; i < w.ntasks; i++) {
		cr_assert_eq(w.tasks[i].state, TASK_DONE);
		killed += w.tasks[i].kills;
		again += w.tasks[i].attempts - 1;
	}
	cr_assert_eq(killed, last.kills, "every kill the policy asked for was made");
	cr_assert_eq(again, killed, "and each kill cost one more attempt");
	workload_free(&w);
}


/* Fig. 3a in miniature: one Sort-like job on 2 core servers grown by 2 TR
 * or 2 TC ones.  With disks, TR's outputs go to the core servers' disks
 * and cost time that TC's, written where they ran, do not; without disk
 * rates the two differ by the network's share of those writes only. */
static double sort_on(const char *topo_text, const char *grow, const char *name)
{
	struct topo t;
	char err[512], opt[32];
	cr_assert_eq(topo_load_string(&t, topo_text, "d.conf", 0, err), 0, "%s", err);
	struct workload w;
	sr_workload(root, &w,
		    "{\"jobs\": [{\"name\": \"st\", \"cluster\": 1, \"input\": \"96MB\", \"maps\": 24, \"reduces\": 4,"
		    " \"shuffle\": \"96MB\", \"output\": \"96MB\", \"map_duration\": 1, \"reduce_duration\": 1}]}\n");
	snprintf(opt, sizeof opt, "grow=%s", grow);
	/* One reduce a server: two of the four run on the grown ones. */
	const char *const opts[] = {"policy=eq", "clusters=1", "core=2",      opt,
				    "period=0.1", "sample=0.1", "tau=0", "reduce_slots=1"};
	struct run_params p;
	sr_params(&p, root, "fawkes", name);
	p.sched_opts = opts;
	p.nsched_opts = 8;
	json_t *s = sr_run(&t, &w, &p);
	double makespan = sr_num(s, "makespan_s");
	json_decref(s);
	workload_free(&w);
	return makespan;
}

Test(fawkes, tr_output_writes_cost_core_disk_time_that_tc_does_not, .timeout = 120)
{
	static const char disks[] = "racks = 1;\nservers_per_rack = 4;\n"
				    "server = { rate = \"10Gbit\"; containers = 8; disk_read_mbps = 20; "
				    "disk_write_mbps = 20; };\neps = { uplink_rate = \"10Gbit\"; };\n";
	static const char none[] = "racks = 1;\nservers_per_rack = 4;\nserver = { rate = \"10Gbit\"; containers = 8; };\n"
				   "eps = { uplink_rate = \"10Gbit\"; };\n";
	double tr = sort_on(disks, "tr", "disk-tr"), tc = sort_on(disks, "tc", "disk-tc");
	double tr0 = sort_on(none, "tr", "none-tr"), tc0 = sort_on(none, "tc", "none-tc");
	cr_assert_gt(tr, tc * 1.1, "TR %.2f s, TC %.2f s", tr, tc);
	cr_assert_gt(tc, tc0 + 1, "disks cost time: TC %.2f s against %.2f s without", tc, tc0);
	cr_assert_float_eq(tr0, tc0, 0.05 * tc0, "without disks TR %.2f s, TC %.2f s", tr0, tc0);
}
