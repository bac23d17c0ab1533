/* Dawn (seed 000): Eqs. 1-5 and Algorithm 1 on the notes' worked vectors
 * (shared/notes/000_dawn.md §1.10), the same choices made by the scheduler
 * on a hand-made cluster, its options, the Fig. 1 case study and a chain on
 * the simulator against Fair. */
#include "emu/run.h"
#include "emu/sched/dawn.h"
#include "sched_fixture.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the equations ------------------------------------------------------- */

Test(dawn, eq1_rack_with_most_input)
{
	double in[3] = {5, 2, 1}, cost = -1;
	cr_assert_eq(dawn_max_rack(3, in, &cost), 0);
	cr_assert_float_eq(cost, 3, 1e-12);
	double tie[3] = {1, 4, 4};
	cr_assert_eq(dawn_max_rack(3, tie, &cost), 1, "ties: the lowest id");
	cr_assert_float_eq(cost, 5, 1e-12);
}

/* Inter_x = (6, 3, 1); child y with another parent z, Out_z = (0, 4, 0);
 * child w with x alone; |Out_x| = 2.  Eq. 2: max_r = 0 at 4; Eq. 4 per rack
 * (2, 0, 2), so dep_r = 1 and Eq. 5 gives 7. */
Test(dawn, eqs_2_to_5_worked_case)
{
	double inter[3] = {6, 3, 1}, cmin, dep[3];
	int rmax = dawn_max_rack(3, inter, &cmin);
	cr_assert_eq(rmax, 0);
	cr_assert_float_eq(cmin, 4, 1e-12);
	double prev_y[3] = {0, 4, 0}, prev_w[3] = {0, 0, 0};
	const double *prev[2] = {prev_y, prev_w};
	int rdep = dawn_dep_rack(3, inter, rmax, NULL, 2, 2, prev, dep);
	cr_assert_eq(rdep, 1);
	cr_assert_float_eq(dep[0], 2, 1e-12);
	cr_assert_float_eq(dep[1], 0, 1e-12);
	cr_assert_float_eq(dep[2], 2, 1e-12);
	cr_assert_float_eq(inter[0] + inter[2], 7, 1e-12, "Eq. 5");
	/* Output already written counts where it is: with 3 of x's output in rack 2, rack 2 wins. */
	double here[3] = {0, 0, 3};
	cr_assert_eq(dawn_dep_rack(3, inter, rmax, here, 2, 2, prev, dep), 2);
}

Test(dawn, linear_chain_ties_go_to_max_r)
{
	double inter[4] = {1, 2, 9, 3}, zero[4] = {0};
	const double *prev[1] = {zero};
	cr_assert_eq(dawn_dep_rack(4, inter, 2, NULL, 5, 1, prev, NULL), 2);
	/* Sink job: no child, max_r. */
	cr_assert_eq(dawn_dep_rack(4, inter, 2, NULL, 5, 0, NULL, NULL), 2);
}

/* ---- Algorithm 1 --------------------------------------------------------- */

/* A: map stage preferring rack 1 at 3; B: the reduce job above, (0, 4) and
 * (1, 7); C: map stage preferring rack 0 at 4; a heartbeat from rack 0. */
static const struct dawn_cand abc[3] = {
	{1, {{1, 3}}, 0, 0},
	{2, {{0, 4}, {1, 7}}, 1, 1},
	{1, {{0, 4}}, 2, 2},
};

Test(dawn, algorithm1_saturated_least_traffic)
{
	int set[3];
	bool relaxed;
	int n = dawn_select(abc, 3, 0, true, 0.01, true, set, &relaxed);
	cr_assert_eq(n, 2);
	cr_assert_eq(set[0], 1, "B first: A (3) is for rack 1");
	cr_assert_eq(set[1], 2, "C: the same traffic, prefers rack 0");
	cr_assert_not(relaxed);
}

Test(dawn, algorithm1_unsaturated_most_traffic)
{
	int set[3];
	bool relaxed;
	int n = dawn_select(abc, 3, 0, false, 0.01, true, set, &relaxed);
	cr_assert_eq(n, 1);
	cr_assert_eq(set[0], 2, "B selects rack 1 at 7, so C");
	cr_assert_not(relaxed);
}

Test(dawn, algorithm1_nobody_for_the_rack)
{
	int set[3];
	bool relaxed;
	/* Unsaturated, rack 1: B (7 at rack 1) first. */
	cr_assert_eq(dawn_select(abc, 3, 1, false, 0.01, false, set, &relaxed), 1);
	cr_assert_eq(set[0], 1);
	/* Rack 2: nobody, relaxed or not. */
	cr_assert_eq(dawn_select(abc, 3, 2, false, 0.01, true, set, &relaxed), 0);
	/* Unsaturated, rack 0 without C: B's max_r is 0 but it selects rack 1; strict leaves the rack,
	 * relaxed gives it B. */
	cr_assert_eq(dawn_select(abc, 2, 0, false, 0.01, false, set, &relaxed), 0);
	cr_assert_eq(dawn_select(abc, 2, 0, false, 0.01, true, set, &relaxed), 1);
	cr_assert_eq(set[0], 1);
	cr_assert(relaxed);
}

/* ---- the scheduler on a hand-made cluster ---------------------------------- */

/* 3 racks of 2 servers, 2 slots each; two jobs of 4 maps of 100 bytes
 * (replicas: one server each), 1 reduce.  Job 0's blocks: 3 in rack 0, 1 in
 * rack 1 (Eq. 1: rack 0 at 100); job 1's: 2 in rack 0, 1 in rack 1, 1 in
 * rack 2 (rack 0 at 200). */
static void two_jobs(struct sched *s, struct cluster *c, struct workload **wp, const char *const *opts, int nopts)
{
	struct workload *w = fx_workload_new(2);
	for (int j = 0; j < 2; j++) {
		w->jobs[j].nmaps = 4;
		w->jobs[j].nreduces = 1;
		w->jobs[j].submit_s = j;
	}
	fx_workload_layout(w);
	static const int where[2][4] = {{0, 1, 0, 2}, {0, 2, 4, 1}};
	for (int j = 0; j < 2; j++)
		for (int i = 0; i < 4; i++) {
			struct task *t = job_map(w->tasks, &w->jobs[j], i);
			t->input_bytes = 100;
			t->output_bytes = 50;
			t->replicas[0] = where[j][i];
		}
	fx_sched_opts_clear();
	for (int i = 0; i < nopts; i++)
		fx_sched_opt(opts[i]);
	fx_sched_start(s, c, w, "dawn", 3, 2, 2, 1.0, 1000);
	for (int j = 0; j < 2; j++)
		cluster_job_arrive(c, &w->jobs[j]);
	*wp = w;
}

Test(dawn, scheduler_saturated_takes_the_job_of_least_traffic)
{
	struct sched s;
	struct cluster c;
	struct workload *w;
	two_jobs(&s, &c, &w, NULL, 0);
	c.rack_util_out[2] = c.rack_util_in[2] = 0.9;   /* max over racks 0.9 >= 0.8 */
	struct task *t = s.ops->offer(&s, 1);           /* server 1, rack 0 */
	cr_assert_not_null(t);
	cr_assert_eq(t->job, 0, "job 0 causes 100 bytes in rack 0, job 1 200");
	cr_assert_eq(t->replicas[0], 1, "node-local first");
	fx_sched_stop(&s, &c, w);
}

Test(dawn, scheduler_unsaturated_takes_the_job_of_most_traffic)
{
	struct sched s;
	struct cluster c;
	struct workload *w;
	two_jobs(&s, &c, &w, NULL, 0);
	struct task *t = s.ops->offer(&s, 0);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, 1, "spare bandwidth: the job with the most aggregation traffic");
	fx_sched_stop(&s, &c, w);
}

Test(dawn, scheduler_per_rack_saturation)
{
	struct sched s;
	struct cluster c;
	struct workload *w;
	const char *o[] = {"aggregate=rack"};
	two_jobs(&s, &c, &w, o, 1);
	c.rack_util_out[2] = c.rack_util_in[2] = 0.9;   /* rack 2 only: rack 0 is not saturated */
	struct task *t = s.ops->offer(&s, 0);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, 1);
	fx_sched_stop(&s, &c, w);
}

Test(dawn, scheduler_strict_leaves_a_rack_nobody_prefers)
{
	struct sched s;
	struct cluster c;
	struct workload *w;
	const char *o[] = {"fallback=strict"};
	two_jobs(&s, &c, &w, o, 1);
	cr_assert_null(s.ops->offer(&s, 4), "rack 2: both jobs prefer rack 0");
	fx_sched_stop(&s, &c, w);
	two_jobs(&s, &c, &w, NULL, 0);
	cr_assert_not_null(s.ops->offer(&s, 4), "relaxed, then Fair with delay scheduling");
	fx_sched_stop(&s, &c, w);
}

/* ---- options ------------------------------------------------------------- */

static json_t *options(const char *const *set, int n, char err[512])
{
	const struct sched_ops *ops = sched_find("dawn");
	cr_assert_not_null(ops);
	void *buf = calloc(1, ops->opts_size);
	json_t *j = NULL;
	if (sched_opts_parse(ops, buf, set, n, err, 512) == 0)
		j = sched_opts_json(ops, buf);
	free(buf);
	return j;
}

Test(dawn, options_defaults_and_values)
{
	char err[512];
	json_t *j = options(NULL, 0, err);
	cr_assert_not_null(j, "%s", err);
	cr_assert_float_eq(json_number_value(json_object_get(j, "saturation")), 0.8, 1e-12);
	cr_assert_str_eq(json_string_value(json_object_get(j, "aggregate")), "max");
	cr_assert_str_eq(json_string_value(json_object_get(j, "fallback")), "relaxed");
	cr_assert_str_eq(json_string_value(json_object_get(j, "replicas")), "any");
	cr_assert_float_eq(json_number_value(json_object_get(j, "slowstart")), 1, 1e-12);
	cr_assert_float_eq(json_number_value(json_object_get(j, "tolerance")), 0.01, 1e-12);
	cr_assert(json_is_false(json_object_get(j, "base_input")));
	json_decref(j);
	const char *set[] = {"saturation=0.6", "aggregate=mean", "hysteresis=0.1", "ewma=0.5", "fallback=strict",
			     "base_input=on", "replicas=fraction", "max_wait=auto"};
	j = options(set, 8, err);
	cr_assert_not_null(j, "%s", err);
	cr_assert_float_eq(json_number_value(json_object_get(j, "saturation")), 0.6, 1e-12);
	cr_assert_str_eq(json_string_value(json_object_get(j, "aggregate")), "mean");
	cr_assert_str_eq(json_string_value(json_object_get(j, "fallback")), "strict");
	cr_assert(json_is_true(json_object_get(j, "base_input")));
	cr_assert_str_eq(json_string_value(json_object_get(j, "max_wait")), "auto");
	json_decref(j);
}

Test(dawn, options_refused)
{
	static const char *const bad[][2] = {
		{"saturation=0", "saturation"}, {"aggregate=median", "max, mean, rack"},
		{"ewma=0", "ewma"},             {"fallback=never", "strict"},
		{"tolerance=2", "tolerance"},   {"hysteresis=0.9", "below saturation"},
		{"nonsense=1", "nonsense"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char err[512] = "";
		const struct sched_ops *ops = sched_find("dawn");
		cr_assert_eq(sched_opts_check(ops, &bad[i][0], 1, err, sizeof err), -1, "%s accepted", bad[i][0]);
		cr_assert(strstr(err, bad[i][1]), "%s: '%s'", bad[i][0], err);
	}
}

/* ---- on the simulator ------------------------------------------------------ */

struct outcome { double xrack, jct; int children_local; };

/* Runs workload file `json` on a 4-rack topology (racks of `per_rack`
 * servers) under `policy`; what it moved across racks, its mean JCT, and how
 * many maps of the jobs with dependencies read their input on their server. */
static struct outcome simulate(const char *dir, const char *json, int per_rack, const char *policy)
{
	char err[512], topo[128], path[512];
	snprintf(topo, sizeof topo,
		 "name = \"fig1\"; racks = 4; servers_per_rack = %d; "
		 "server = { rate = \"1Gbit\"; containers = 2; }; eps = { uplink_rate = \"1Gbit\"; }; "
		 "ocs = { enabled = false; };",
		 per_rack);
	struct topo t;
	cr_assert_eq(topo_load_string(&t, topo, "fig1", 0, err), 0, "%s", err);
	struct workload_params wp;
	workload_params_default(&wp);
	wp.data_scale = 0.01;
	wp.time_scale = 0.1;
	struct workload w;
	cr_assert_eq(workload_read(&w, json, &wp, 0, err), 0, "%s", err);
	struct run_params p;
	run_params_default(&p);
	p.backend = "sim";
	p.results_root = dir;
	p.run_name = "r";
	p.scheduler = policy;
	p.quiet = true;
	p.seed = 3;
	p.elephant_bytes = (uint64_t)(1.125e9 * 0.01);
	cr_assert_eq(run_experiment(&t, &w, &p, err), 0, "%s: %s", policy, err);
	snprintf(path, sizeof path, "%s/default/%s/r/summary.json", dir, policy);
	json_error_t je;
	json_t *s = json_load_file(path, 0, &je);
	cr_assert_not_null(s, "%s: %s", path, je.text);
	struct outcome o = {json_number_value(json_object_get(s, "cross_rack_bytes")),
			    json_number_value(json_object_get(s, "jct_mean_s")), 0};
	cr_assert_eq(json_number_value(json_object_get(s, "jobs_finished")), w.njobs, "%s", policy);
	json_decref(s);
	/* tasks.csv: task,job,kind,index,server,rack,attempts,start_s,end_s,duration_s,data_local,... */
	snprintf(path, sizeof path, "%s/default/%s/r/tasks.csv", dir, policy);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	char line[512];
	cr_assert_not_null(fgets(line, sizeof line, f));
	while (fgets(line, sizeof line, f)) {
		int job, local;
		char kind[16];
		if (sscanf(line, "%*d,%d,%15[^,],%*d,%*d,%*d,%*d,%*f,%*f,%*f,%d", &job, kind, &local) != 3 ||
		    job < 0 || job >= w.njobs)
			continue;
		o.children_local += !strcmp(kind, "map") && w.jobs[job].ndeps > 0 && local;
	}
	fclose(f);
	workload_free(&w);
	return o;
}

/* Fig. 1: J1..J8 of 4 maps and 2 reduces; J(8+k) reads the outputs of
 * J(2k-1) and J(2k) (4 files, 4 maps); 4 worker nodes, each its own rack
 * so that cross-node is cross-rack. */
static void fig1_workload(const char *path)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "{\"jobs\": [\n");
	for (int i = 1; i <= 8; i++)
		fprintf(f, " {\"name\": \"J%d\", \"submit\": 0, \"input\": \"512MiB\", \"shuffle\": \"512MiB\", "
			   "\"output\": \"512MiB\", \"maps\": 4, \"reduces\": 2},\n", i);
	for (int k = 1; k <= 4; k++)
		fprintf(f, " {\"name\": \"J%d\", \"submit\": 0, \"deps\": [\"J%d\", \"J%d\"], \"lineage\": true, "
			   "\"shuffle\": \"256MiB\", \"output\": \"64MiB\", \"maps\": 4, \"reduces\": 2}%s\n",
			8 + k, 2 * k - 1, 2 * k, k < 4 ? "," : "");
	fprintf(f, "]}\n");
	fclose(f);
}

static void scratch(char dir[64])
{
	strcpy(dir, "/tmp/emu-dawn-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void scratch_rm(const char *dir)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(dawn, fig1_case_study)
{
	char dir[64], json[128];
	scratch(dir);
	snprintf(json, sizeof json, "%s/fig1.json", dir);
	fig1_workload(json);
	struct outcome fair = simulate(dir, json, 1, "fair"), dawn = simulate(dir, json, 1, "dawn");
	cr_log_info("Fig. 1: cross-node %.0f (dawn) vs %.0f (fair) bytes, JCT %.2f vs %.2f s, children's node-local maps %d vs %d",
		    dawn.xrack, fair.xrack, dawn.jct, fair.jct, dawn.children_local, fair.children_local);
	cr_expect_lt(dawn.xrack, fair.xrack, "dependency-aware moves less across nodes");
	cr_expect_gt(dawn.children_local, fair.children_local, "children's maps run where their parents wrote");
	scratch_rm(dir);
}

/* A chain of 6 jobs, each reading its parent's output, on 4 racks of 2. */
Test(dawn, chain_less_cross_rack_than_fair)
{
	char dir[64], json[128];
	scratch(dir);
	snprintf(json, sizeof json, "%s/chain.json", dir);
	FILE *f = fopen(json, "w");
	cr_assert_not_null(f);
	fprintf(f, "{\"jobs\": [\n {\"name\": \"c0\", \"submit\": 0, \"input\": \"1GiB\", \"shuffle\": \"1GiB\", "
		   "\"output\": \"1GiB\", \"reduces\": 4}");
	for (int i = 1; i < 6; i++)
		fprintf(f, ",\n {\"name\": \"c%d\", \"submit\": 0, \"deps\": [\"c%d\"], \"lineage\": true, "
			   "\"shuffle\": \"1GiB\", \"output\": \"1GiB\", \"reduces\": 4}", i, i - 1);
	fprintf(f, "]}\n");
	fclose(f);
	struct outcome fair = simulate(dir, json, 2, "fair"), dawn = simulate(dir, json, 2, "dawn");
	cr_log_info("chain: cross-rack %.0f (dawn) vs %.0f (fair) bytes", dawn.xrack, fair.xrack);
	cr_expect_lt(dawn.xrack, fair.xrack);
	scratch_rm(dir);
}
