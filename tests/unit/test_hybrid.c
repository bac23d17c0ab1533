/* Chapter 5's hybrid cluster: the crosspoint compute model, the SVM job
 * classifier, h-fs's job placement and stealing, and its data placement. */
#include "emu/classify.h"
#include "emu/compute_model.h"
#include "sched_fixture.h"
#include <math.h>
#include <stdio.h>
#include <unistd.h>

/* ---- the compute model -------------------------------------------------- */

static double solo_time(const char *topo_file, uint64_t input, uint64_t shuffle, int nmaps)
{
	struct topo t;
	char err[TOPO_ERR_LEN];
	cr_assert_eq(topo_load(&t, topo_file, 0, err), 0, "%s", err);
	struct workload *w = fx_workload_new(1);
	w->params.data_scale = 1;
	w->jobs[0] = (struct job){.nmaps = nmaps, .input_bytes = input, .shuffle_bytes = shuffle};
	fx_workload_layout(w);
	for (int i = 0; i < nmaps; i++)
		w->tasks[i].work_s = 10;
	struct cluster c;
	cr_assert_eq(cluster_init_topo(&c, &t, w, 1), 0);
	/* Every map alike: waves of the platform's containers, each as long as
	 * one map on its servers. */
	double waves = ceil((double)nmaps / c.containers);
	double d = cluster_task_duration(&c, &w->tasks[0], 0);
	cluster_free(&c);
	fx_workload_free(w);
	return waves * d;
}

/* Fig. 5.1: one scale-up server against five scale-out ones of the same cost;
 * below its crosspoint a job is faster on the scale-up server, above slower. */
Test(hybrid, a_job_below_the_crosspoint_runs_faster_on_scale_up_above_slower)
{
	const char *up = "experiments/hybrid/solo-up.conf", *out = "experiments/hybrid/solo-out.conf";
	double small_up = solo_time(up, 8000000000ULL, 0, 64), small_out = solo_time(out, 8000000000ULL, 0, 64);
	double large_up = solo_time(up, 64000000000ULL, 0, 512), large_out = solo_time(out, 64000000000ULL, 0, 512);
	cr_assert_float_eq(small_up, 3 * 10 / 2.0, 1e-9, "8 GB: 3 waves of 24 at speed 2, %g s", small_up);
	cr_assert_float_eq(small_out, 2 * 10, 1e-9, "8 GB: 2 waves of 40 at speed 1, %g s", small_out);
	cr_assert_float_eq(large_up, 22 * 10, 1e-9, "64 GB: 22 waves of 24 at speed 1, %g s", large_up);
	cr_assert_float_eq(large_out, 13 * 10, 1e-9, "64 GB: 13 waves of 40, %g s", large_out);
	/* The crosspoint grows with the shuffle: 40 GB is above it without
	 * shuffle and below it with 40 GB of shuffle. */
	cr_assert_float_eq(compute_crosspoint_bytes(40e9, 0), 32e9, 1);
	cr_assert_float_eq(compute_crosspoint_bytes(40e9, 40e9), 64e9, 1);
	struct job j = {.input_bytes = 40000000000ULL};
	cr_assert_eq(compute_speed(TOPO_MODEL_CROSSPOINT, 2, &j, 1), 1);
	j.shuffle_bytes = 40000000000ULL;
	cr_assert_eq(compute_speed(TOPO_MODEL_CROSSPOINT, 2, &j, 1), 2);
	cr_assert_eq(compute_speed(TOPO_MODEL_SPEED, 2, &j, 1), 2, "the speed model ignores the job");
	cr_assert_eq(compute_speed(TOPO_MODEL_CROSSPOINT, 2, &j, 0.001), 1, "sizes are compared unscaled");
}

/* ---- the classifier ----------------------------------------------------- */

/* Scale-up: fewer than 100 maps, or fewer than 400 with a shuffle of at
 * least 10 GB (a shuffle favours the scale-up side). */
static bool truth(double maps, double shuffle)
{
	return maps < 100 || (maps < 400 && shuffle >= 1e10);
}

static struct labelled_job point(double maps, double reduces, double shuffle)
{
	return (struct labelled_job){{maps, reduces, shuffle}, truth(maps, shuffle)};
}

Test(hybrid, the_svm_learns_a_labelled_set_and_survives_a_model_file)
{
	struct labelled_job set[64];
	int n = 0;
	for (int m = 1; m <= 8; m++)
		for (int s = 0; s < 4; s++, n++) {
			double maps = pow(10, 0.5 * m), shuffle = s ? pow(10, 3 * s + 2) : 0;
			set[n] = point(maps, 1 + s * 10, shuffle);
		}
	struct classifier k;
	char err[512];
	cr_assert_eq(classify_train(&k, set, n, 4, err, sizeof err), 0, "%s", err);
	cr_assert_geq(k.cv_accuracy, 0.9, "cross-validated %.3f", k.cv_accuracy);
	/* Held out: none of these was in the set. */
	struct labelled_job held[] = {point(2, 1, 0), point(50, 5, 1e6), point(5000, 50, 0), point(20000, 100, 1e12),
				      point(250, 10, 5e10), point(250, 10, 0)};
	double dec[6];
	for (int i = 0; i < 6; i++)
		cr_assert_eq(classify_predict(&k, &held[i].x, &dec[i]), held[i].up, "held-out point %d (decision %g)", i,
			     dec[i]);
	cr_assert_gt(dec[0], 0, "positive on the scale-up side");
	char path[] = "/tmp/emu-test-svm-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(classify_save(&k, path, err, sizeof err), 0, "%s", err);
	struct classifier back;
	cr_assert_eq(classify_load(&back, path, err, sizeof err), 0, "%s", err);
	cr_assert_eq(back.gamma, k.gamma);
	for (int i = 0; i < 6; i++) {
		double d;
		cr_assert_eq(classify_predict(&back, &held[i].x, &d), held[i].up);
		cr_assert_float_eq(d, dec[i], 1e-6 * (1 + fabs(dec[i])), "decision %d: %g after the round trip, %g before",
				   i, d, dec[i]);
	}
	classify_free(&back);
	classify_free(&k);
	/* A file that is not a model, a labels file with a bad label. */
	FILE *f = fopen(path, "w");
	fputs("maps,reduces,shuffle_bytes,label\n3,1,0,up\n4,1,0,small\n", f);
	fclose(f);
	cr_assert_eq(classify_load(&back, path, err, sizeof err), -1);
	struct labelled_job *got;
	cr_assert_eq(classify_read_labels(path, &got, &n, err, sizeof err), -1);
	cr_assert(strstr(err, ":3: 'label' must be up or out"), "%s", err);
	unlink(path);
}

/* ---- h-fs --------------------------------------------------------------- */

/* topologies/hybrid-ch5-crosspoint.conf: servers 0-39 scale out, 40 and 41
 * scale up.  Jobs of the given unscaled inputs, two maps each, classified
 * by the crosspoint rule (no model). */
#define UP 40

static void start_jobs(struct sched *s, struct cluster *c, struct workload **w, const char *policy, int njobs,
		       const double *input, int nreduces, double slowstart)
{
	struct topo t;
	char err[TOPO_ERR_LEN];
	cr_assert_eq(topo_load(&t, "topologies/hybrid-ch5-crosspoint.conf", 0, err), 0, "%s", err);
	*w = fx_workload_new(njobs);
	(*w)->params.data_scale = 1;
	for (int i = 0; i < njobs; i++)
		(*w)->jobs[i] = (struct job){
			.id = i, .nmaps = 2, .nreduces = nreduces, .input_bytes = (uint64_t)input[i], .submit_s = i};
	fx_workload_layout(*w);
	cr_assert_eq(cluster_init_topo(c, &t, *w, slowstart), 0);
	struct sched_params p = {.node_wait_s = 3, .rack_wait_s = 3, .seed = 1, .opts = fx_opts, .nopts = fx_nopts};
	cr_assert_eq(sched_init(s, sched_find(policy), c, &p), 0);
	for (int i = 0; i < njobs; i++) {
		struct job *j = &(*w)->jobs[i];
		for (int m = 0; m < j->nmaps; m++)
			sched_place_input(s, j, job_map((*w)->tasks, j, m), job_map((*w)->tasks, j, m)->replicas);
		cluster_job_arrive(c, j);
		s->ops->job_arrived(s, j);
	}
}

static void start(struct sched *s, struct cluster *c, struct workload **w, const char *policy, int njobs,
		  const double *input)
{
	start_jobs(s, c, w, policy, njobs, input, 0, 1);
}

static int job_of(struct task *t) { return t ? t->job : -1; }

Test(hybrid, h_fs_runs_each_class_on_its_servers_and_leaves_scale_up_idle)
{
	struct sched s;
	struct cluster c;
	struct workload *w;
	fx_sched_opts_clear();
	const double input[] = {1e6, 100e9};   /* job 0 scale-up, job 1 scale-out */
	start(&s, &c, &w, "h-fs", 2, input);
	for (int round = 0; round < 2; round++) {
		struct task *t = s.ops->offer(&s, UP);
		cr_assert_eq(job_of(t), 0, "the scale-up server runs the scale-up job");
		cluster_start_task(&c, t, UP);
	}
	cr_assert_null(s.ops->offer(&s, UP), "no scale-up job left: the scale-up server stays idle");
	cr_assert_null(s.ops->offer(&s, UP + 1), "nor the other one");
	for (int sv = 0; sv < 2; sv++) {
		struct task *t = s.ops->offer(&s, sv);
		cr_assert_eq(job_of(t), 1, "server %d: scale-out servers run the scale-out job", sv);
		cluster_start_task(&c, t, sv);
	}
	cr_assert_null(s.ops->offer(&s, 2), "nothing to steal: the scale-up job has started");
	fx_sched_stop(&s, &c, w);
}

Test(hybrid, an_idle_scale_out_server_steals_the_unstarted_job_nearest_the_hyperplane)
{
	struct sched s;
	struct cluster c;
	struct workload *w;
	const double input[] = {1e6, 20e9, 100e9};   /* two scale-up jobs, job 1 nearer the crosspoint */
	fx_sched_opts_clear();
	start(&s, &c, &w, "h-fs", 3, input);
	for (int m = 0; m < 2; m++) {
		struct task *t = s.ops->offer(&s, 0);
		cr_assert_eq(job_of(t), 2, "the scale-out job first");
		cluster_start_task(&c, t, 0);
	}
	struct task *t = s.ops->offer(&s, 1);
	cr_assert_eq(job_of(t), 1, "the scale-out queue is empty: job 1 is stolen");
	cluster_start_task(&c, t, 1);
	cr_assert_eq(job_of(s.ops->offer(&s, UP)), 0, "a stolen job never runs on the scale-up server");
	cr_assert_eq(job_of(s.ops->offer(&s, 2)), 1, "the stolen job stays in the scale-out queue");
	fx_sched_stop(&s, &c, w);

	fx_sched_opt("stealing=off");
	start(&s, &c, &w, "h-fs", 3, input);
	for (int m = 0; m < 2; m++)
		cluster_start_task(&c, s.ops->offer(&s, 0), 0);
	cr_assert_null(s.ops->offer(&s, 1), "without stealing a scale-out server waits");
	fx_sched_stop(&s, &c, w);
	fx_sched_opts_clear();
}

/* YARN's limit on early reduces counts the whole cluster; the scale-up
 * queue's own servers must keep room for maps, or reduces waiting for maps
 * that find no container there hold them all. */
Test(hybrid, early_reduces_hold_at_most_half_of_the_scale_up_servers)
{
	struct sched s;
	struct cluster c;
	struct workload *w;
	double input[40];
	for (int i = 0; i < 40; i++)
		input[i] = 1e6;   /* every job scale-up */
	fx_sched_opts_clear();
	start_jobs(&s, &c, &w, "h-fs", 40, input, 1, 0);
	int slots = c.servers[UP].containers + c.servers[UP + 1].containers, reduces = 0, started = 0;
	for (struct task *t; started < slots && (t = s.ops->offer(&s, UP + started % 2)); started++) {
		reduces += t->kind == TASK_REDUCE;
		cluster_start_task(&c, t, UP + started % 2);
	}
	cr_assert_eq(started, slots, "the scale-up servers fill up");
	cr_assert_gt(reduces, 0);
	cr_assert_leq(reduces, slots / 2, "%d early reduces on %d containers", reduces, slots);
	fx_sched_stop(&s, &c, w);
}

Test(hybrid, replicas_one_and_two_on_a_scale_out_rack_replica_three_on_scale_up)
{
	struct sched s;
	struct cluster c;
	struct workload *w;
	const double input[] = {1e6};
	fx_sched_opts_clear();
	start(&s, &c, &w, "h-fs", 1, input);
	for (int k = 0; k < 200; k++) {
		int r[3];
		sched_place_input(&s, &w->jobs[0], &w->tasks[0], r);
		cr_assert(r[0] >= 0 && r[0] < UP && r[1] >= 0 && r[1] < UP && r[0] != r[1] && r[0] / 10 == r[1] / 10,
			  "block %d: %d and %d, two servers of one scale-out rack", k, r[0], r[1]);
		cr_assert(r[2] == UP || r[2] == UP + 1, "block %d: replica 3 on %d, not a scale-up server", k, r[2]);
	}
	fx_sched_stop(&s, &c, w);
	fx_sched_opt("dps=off");
	start(&s, &c, &w, "h-fs", 1, input);
	int on_up = 0;
	for (int k = 0; k < 200; k++) {
		int r[3];
		sched_place_input(&s, &w->jobs[0], &w->tasks[0], r);
		on_up += r[2] >= UP;
	}
	cr_assert_lt(on_up, 200, "without data placement replica 3 goes where HDFS puts it");
	fx_sched_stop(&s, &c, w);
	fx_sched_opts_clear();
}
