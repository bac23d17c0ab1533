/* Whole runs on the flow-level simulator backend: no root, seconds.  Every
 * scheduler runs here in CI; the emulator's integration tests check the same
 * code against real packets. */
#include "emu/run.h"
#include "emu/sched.h"
#include "../ocs_log_fixture.h"
#include "simrun_fixture.h"
#include "tree_fixture.h"
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static char root[64], repo[512];
static void setup(void) { tf_setup(root, sizeof root, "/tmp/emu-simrun-XXXXXX", repo, sizeof repo, NULL, 0); }
static void teardown(void) { tf_teardown(root); }
TestSuite(simrun, .init = setup, .fini = teardown);

static void load_topo(struct topo *t, const char *file)
{
	char err[TOPO_ERR_LEN];
	cr_assert_eq(topo_load(t, file, 0, err), 0, "%s", err);
}

/* A synthetic workload; min_shuffle (unscaled bytes) and max_maps as emu
 * run's --min-shuffle and --max-maps (0: off). */
static void synth_fit(struct workload *w, int njobs, unsigned long seed, double data_scale, double time_scale,
		      uint64_t min_shuffle, int max_maps)
{
	struct synth_params sp;
	struct workload_params wp;
	char err[512];
	synth_params_default(&sp);
	workload_params_default(&wp);
	sp.njobs = njobs;
	sp.seed = seed;
	wp.data_scale = data_scale;
	wp.time_scale = time_scale;
	wp.min_shuffle = min_shuffle;
	wp.max_maps = max_maps;
	cr_assert_eq(workload_synthetic(w, &sp, &wp, err), 0, "%s", err);
}

static void synth_scaled(struct workload *w, int njobs, unsigned long seed, double data_scale, double time_scale)
{
	synth_fit(w, njobs, seed, data_scale, time_scale, 0, 0);
}

/* The GENI emulation's scales. */
static void synth(struct workload *w, int njobs, unsigned long seed)
{
	synth_scaled(w, njobs, seed, 0.01, 0.1);
}

/* Run on the simulator; returns the parsed summary.json. */
static json_t *sim_run(const struct topo *t, struct workload *w, const char *sched, const char *name,
		       void (*tweak)(struct run_params *))
{
	struct run_params p;
	sr_params(&p, root, sched, name);
	p.seed = 4;
	p.elephant_bytes = (uint64_t)(1.125e9 * 0.01);
	if (tweak)
		tweak(&p);
	return sr_run(t, w, &p);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *b = malloc(n + 1);
	cr_assert_eq(fread(b, 1, n, f), (size_t)n);
	b[n] = 0;
	fclose(f);
	return b;
}

/* A result file that cannot be written (a full disk; here a file size
 * limit) fails the run and leaves no summary.json, which is what marks a
 * run's results complete for the experiment scripts. */
Test(simrun, unwritable_results_fail_without_a_summary)
{
	struct topo t;
	struct workload w;
	load_topo(&t, "topologies/geni-10rack.conf");
	synth(&w, 30, 4);
	struct run_params p;
	char err[512], path[300];
	run_params_default(&p);
	p.backend = "sim";
	p.scheduler = "fair";
	p.results_root = root;
	p.run_name = "full";
	p.quiet = true;
	signal(SIGXFSZ, SIG_IGN);   /* writes past the limit fail with EFBIG instead */
	struct rlimit lim;
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &lim), 0);
	lim.rlim_cur = 64 * 1024;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	cr_assert_neq(run_experiment(&t, &w, &p, err), 0, "the run must fail");
	snprintf(path, sizeof path, "%s/default/fair/full/summary.json", root);
	cr_assert_neq(access(path, F_OK), 0, "no summary.json for incomplete results");
	workload_free(&w);
}

Test(simrun, same_seed_same_results_byte_for_byte)
{
	struct topo t;
	load_topo(&t, "topologies/geni-10rack.conf");
	static const char *const files[] = {"flows.csv", "jobs.csv", "tasks.csv", "ocs.csv", "links.csv"};
	char *first[5];
	for (int k = 0; k < 2; k++) {
		struct workload w;
		synth(&w, 20, 4);
		char name[16];
		snprintf(name, sizeof name, "det%d", k);
		json_t *s = sim_run(&t, &w, "jobpacker", name, NULL);
		cr_assert_eq(sr_num(s, "jobs_finished"), 20);
		json_decref(s);
		workload_free(&w);
		for (int i = 0; i < 5; i++) {
			char path[300];
			snprintf(path, sizeof path, "%s/default/jobpacker/%s/%s", root, name, files[i]);
			char *text = slurp(path);
			cr_assert_gt(strlen(text), 40, "%s is empty", path);
			if (!k)
				first[i] = text;
			else {
				cr_assert_str_eq(text, first[i], "%s differs between two runs of one seed", files[i]);
				free(text);
				free(first[i]);
			}
		}
	}
}

/* A run stopped by its timeout records every transfer it handed out, once:
 * the finished ones as they ended, then those still queued at a reduce
 * (moved -1) or moving, not done and in id order (the simulator keeps
 * their records with its queues, the run's store would list them so). */
Test(simrun, a_stopped_run_records_its_unfinished_transfers_once_in_id_order)
{
	struct topo t;
	load_topo(&t, "topologies/geni-10rack.conf");
	struct workload w;
	synth_scaled(&w, 60, 4, 0.1, 0.1);   /* fetches long enough to queue */
	struct run_params p;
	sr_params(&p, root, "fair", "stopped");
	p.seed = 4;
	p.copiers = 1;
	p.timeout_s = 10;
	char err[512], path[300], line[512];
	cr_assert_eq(run_experiment(&t, &w, &p, err), 1, "partial: %s", err);
	workload_free(&w);
	snprintf(path, sizeof path, "%s/default/fair/stopped/flows.csv", root);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_not_null(fgets(line, sizeof line, f));
	enum { MAX = 100000 };
	static bool seen[MAX];
	memset(seen, 0, sizeof seen);
	int rows = 0, last = -1, queued = 0, moving = 0;
	bool unfinished = false;
	while (fgets(line, sizeof line, f)) {
		int id, done;
		double start, moved, end;
		cr_assert_eq(sscanf(line, "%d,%*[^,],%*d,%*d,%*d,%*d,%*d,%*d,%*u,%lf,%lf,%lf,%*d,%d", &id, &start, &moved,
				    &end, &done), 5, "%s", line);
		cr_assert(id >= 0 && id < MAX && !seen[id], "transfer %d twice", id);
		seen[id] = true;
		rows++;
		if (done) {
			cr_assert_not(unfinished, "a finished transfer after the unfinished ones: %s", line);
			continue;
		}
		unfinished = true;
		cr_assert_gt(id, last, "unfinished out of id order: %s", line);
		last = id;
		cr_assert_eq(end, -1);
		if (moved < 0)
			queued++;
		else {
			moving++;
			cr_assert_geq(moved, start);
		}
	}
	fclose(f);
	for (int i = 0; i < rows; i++)
		cr_assert(seen[i], "transfer %d missing of %d", i, rows);
	cr_assert_gt(queued, 10, "queued at reduces: %d", queued);
	cr_assert_gt(moving, 1, "moving: %d", moving);
}

static void no_flows(struct run_params *p) { p->no_flows = true; }

/* --no-flows: no flows.csv, and nothing else moves (tasks.csv and the
 * summary's transfer totals come from the same records). */
Test(simrun, no_flows_leaves_out_flows_csv_and_nothing_else)
{
	struct topo t;
	load_topo(&t, "topologies/geni-10rack.conf");
	json_t *s[2];
	char *tasks[2];
	for (int k = 0; k < 2; k++) {
		struct workload w;
		synth(&w, 20, 4);
		const char *name = k ? "without" : "with";
		s[k] = sim_run(&t, &w, "fair", name, k ? no_flows : NULL);
		workload_free(&w);
		char path[300];
		snprintf(path, sizeof path, "%s/default/fair/%s/tasks.csv", root, name);
		tasks[k] = slurp(path);
		snprintf(path, sizeof path, "%s/default/fair/%s/flows.csv", root, name);
		cr_assert_eq(access(path, F_OK) == 0, !k, "%s: flows.csv %s", name, k ? "written" : "missing");
	}
	cr_assert_str_eq(tasks[0], tasks[1]);
	static const char *const keys[] = {"agent_bytes.shuffle_network", "agent_bytes.shuffle_cross_rack", "agent_bytes.input_network",
					   "fetch_time.eps.wait_mean_s", "jobs_finished", "makespan_s"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		cr_assert_eq(sr_num(s[0], keys[i]), sr_num(s[1], keys[i]), "%s", keys[i]);
	cr_assert_gt(sr_num(s[0], "agent_bytes.shuffle_network"), 0);
	for (int k = 0; k < 2; k++) {
		json_decref(s[k]);
		free(tasks[k]);
	}
}

static void slow_ocs(struct run_params *p)
{
	p->ocs.delta_s = 0.05;
	p->ocs.guard_s = 0.002;
}

/* The dark time of every reconfiguration is guard + δ of virtual time, and
 * no circuit-eligible transfer finishes over a circuit that is dark. */
Test(simrun, ocs_dark_time_in_virtual_time)
{
	struct topo t;
	load_topo(&t, "topologies/geni-10rack.conf");
	struct workload w;
	synth(&w, 20, 4);
	json_t *s = sim_run(&t, &w, "jobpacker", "dark", slow_ocs);
	cr_assert_gt(sr_num(s, "ocs.reconfigurations"), 0);
	json_decref(s);
	workload_free(&w);
	char path[300];
	snprintf(path, sizeof path, "%s/default/jobpacker/dark/ocs.csv", root);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	char line[4096];
	int rows = 0;
	cr_assert_not_null(fgets(line, sizeof line, f));   /* header */
	while (fgets(line, sizeof line, f)) {
		double ts, ta, td, tsw, tl, drain, dark;
		int changed;
		cr_assert_eq(sscanf(line, "%lf,%lf,%lf,%lf,%lf,%d,%lf,%lf", &ts, &ta, &td, &tsw, &tl, &changed, &drain, &dark),
			     8, "%s", line);
		cr_assert_float_eq(tl - ta, 0.052, 1e-9, "announce to lit: %s", line);
		cr_assert_float_eq(td - ta, 0.002, 1e-9);
		/* on the controller's 1 s grid */
		cr_assert_float_eq(ta - floor(ta + 1e-9), 0, 1e-6, "%s", line);
		rows++;
	}
	fclose(f);
	cr_assert_gt(rows, 0);
}

/* Every scheduler finishes a small batch on the simulator. */
Test(simrun, every_scheduler_finishes_a_batch)
{
	static const char *const names[] = {"fifo", "fair", "delay", "jobpacker", "corral",
					    "nas", "nas-mts", "nas-nott", "nas-noadapt", "sw-delay"};
	struct topo t;
	load_topo(&t, "topologies/geni-10rack.conf");
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		cr_assert_not_null(sched_find(names[i]), "%s is not registered", names[i]);
		struct workload w;
		synth(&w, 15, 5);
		json_t *s = sim_run(&t, &w, names[i], "batch", NULL);
		cr_assert_eq(sr_num(s, "jobs_finished"), 15, "%s", names[i]);
		cr_assert_gt(sr_num(s, "makespan_s"), 1, "%s", names[i]);
		cr_assert_gt(sr_num(s, "cross_rack_bytes"), 0, "%s", names[i]);
		json_decref(s);
		workload_free(&w);
	}
}

/* Chapter 5's mixed cluster: every scheduler finishes on it; a task computes
 * for its work over the speed of the class it ran on, decided where it
 * started; and tasks asking for 6 cores run one at a time on a scale-out
 * server (8 cores) and four at a time on a scale-up one (24), never more. */
Test(simrun, a_mixed_cluster_packs_by_resources_and_computes_at_each_class_speed)
{
	static const char *const names[] = {"fifo", "fair", "delay", "jobpacker", "corral", "nas", "sw-delay"};
	struct topo t;
	load_topo(&t, "topologies/hybrid-ch5.conf");
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct workload w;
		synth(&w, 15, 5);
		for (int j = 0; j < w.njobs; j++)
			for (int st = 0; st < w.jobs[j].nstages; st++)
				w.jobs[j].stages[st].ask = res_of(6, 2, 0);
		json_t *s = sim_run(&t, &w, names[i], "mixed", NULL);
		cr_assert_eq(sr_num(s, "jobs_finished"), 15, "%s", names[i]);
		json_decref(s);
		int on_fast = 0, most[64] = {0};
		for (int k = 0; k < w.ntasks; k++) {
			const struct task *x = &w.tasks[k];
			int rack = topo_rack_of(&t, x->server);
			const struct topo_class *c = topo_server_class(&t, rack, x->server - t.rack[rack].first);
			cr_assert(x->duration_s == x->work_s / c->speed, "%s: task %d: %.17g s for %.17g s of work at speed %g",
				  names[i], k, x->duration_s, x->work_s, c->speed);
			on_fast += c->speed == 2;
			/* How many ran at once on its server when it started. */
			int n = 0;
			for (int m = 0; m < w.ntasks; m++)
				n += w.tasks[m].server == x->server && w.tasks[m].t_start <= x->t_start &&
				     w.tasks[m].t_end > x->t_start;
			if (n > most[x->server])
				most[x->server] = n;
		}
		cr_assert_gt(on_fast, 0, "%s: nothing ran on the scale-up servers", names[i]);
		for (int sv = 0; sv < t.nservers; sv++)
			cr_assert_leq(most[sv], sv < 40 ? 1 : 4, "%s: server %d ran %d tasks at once", names[i], sv, most[sv]);
		cr_assert_eq(most[40] + most[41] > 2, true, "%s: the scale-up servers never ran more than one", names[i]);
		workload_free(&w);
	}
}

static void load_workload(struct workload *w, const char *file)
{
	struct workload_params wp;
	char err[512];
	workload_params_default(&wp);
	cr_assert_eq(workload_read(w, file, &wp, 0, err), 0, "%s", err);
}

/* Every byte the reduces read was fetched, once (over the network or locally). */
static void every_byte_read_once(json_t *s, const struct workload *w, const char *sched)
{
	uint64_t want = 0;
	for (int i = 0; i < w->ntasks; i++)
		want += w->tasks[i].kind == TASK_REDUCE ? w->tasks[i].input_bytes : 0;
	double fetched = sr_num(s, "agent_bytes.shuffle_network") +
			 sr_num(s, "agent_bytes.shuffle_local");
	cr_assert_eq((uint64_t)fetched, want, "%s: %.0f bytes fetched, tasks read %llu", sched, fetched,
		     (unsigned long long)want);
}

/* Jobs as DAGs of stages (workloads/dag.json: shuffle, one-to-one and
 * broadcast edges, and a job that depends on two others): every scheduler
 * runs them; a task ends after every task of each parent stage it reads
 * (it reads them all), a one-to-one task starts after its own parent task;
 * every byte a task reads was fetched, once; the dependent job arrives as
 * its parents finish, though its submit time passed long before. */
Test(simrun, stages_run_in_dag_order_and_every_byte_is_read_once)
{
	static const char *const names[] = {"fifo", "fair", "delay", "jobpacker", "corral", "nas", "sw-delay"};
	struct topo t;
	load_topo(&t, "topologies/geni-10rack.conf");
	for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
		struct workload w;
		load_workload(&w, "workloads/dag.json");
		json_t *s = sim_run(&t, &w, names[n], "dag", NULL);
		cr_assert_eq(sr_num(s, "jobs_finished"), 3, "%s", names[n]);
		double dep_end = 0;
		for (int i = 0; i < w.ntasks; i++) {
			const struct task *x = &w.tasks[i];
			const struct job *j = &w.jobs[x->job];
			const struct stage *st = &j->stages[x->stage];
			if (x->job < 2)
				dep_end = fmax(dep_end, x->t_end);
			for (int p = 0; p < st->nparents; p++) {
				const struct stage *ps = &j->stages[st->parent[p].stage];
				for (int k = 0; k < ps->ntasks; k++) {
					const struct task *y = stage_task(w.tasks, j, st->parent[p].stage, k);
					if (st->parent[p].kind != EDGE_ONE_TO_ONE)
						cr_assert_geq(x->t_end, y->t_end, "%s: %s task %d ended before parent %d", names[n],
							      st->name, x->id, y->id);
					else if (k == x->sindex)
						cr_assert_geq(x->t_start, y->t_end, "%s: %s task %d started before its parent",
							      names[n], st->name, x->id);
				}
			}
		}
		every_byte_read_once(s, &w, names[n]);
		const struct job *rep = &w.jobs[2];
		cr_assert_lt(rep->t_start - dep_end, 0.5, "%s: the dependent job started %.2f s after its parents",
			     names[n], rep->t_start - dep_end);
		cr_assert_geq(rep->t_start, dep_end);
		json_decref(s);
		workload_free(&w);
	}
}

static void three_copies(struct run_params *p) { p->output_replicas = 3; }

/* Lineage (workloads/chain.json): a job's maps read its dependencies'
 * output where it was written (a last-stage task's server, or with 3
 * copies also two servers of another rack), then its base input, placed as
 * new data; delay scheduling then runs most of them near their block. */
Test(simrun, a_child_job_reads_its_parents_output_where_it_was_written)
{
	struct topo t;
	load_topo(&t, "topologies/geni-10rack.conf");
	for (int copies = 1; copies <= 3; copies += 2) {
		struct workload w;
		load_workload(&w, "workloads/chain.json");
		json_t *s = sim_run(&t, &w, "delay", copies == 1 ? "one" : "three", copies == 1 ? NULL : three_copies);
		cr_assert_eq(sr_num(s, "jobs_finished"), 4);
		json_decref(s);
		const struct job *score = &w.jobs[3];
		cr_assert_eq(score->lineage_bytes, w.jobs[2].output_bytes + w.jobs[0].output_bytes);
		cr_assert_eq(score->input_bytes, score->lineage_bytes + (uint64_t)(500e6 * w.params.data_scale),
			     "its base input after the lineage");
		int lineage_maps = 0, local = 0;
		uint64_t at = 0;
		for (int m = 0; m < score->nmaps; m++) {
			const struct task *x = job_map(w.tasks, score, m);
			uint64_t mid = at + x->input_bytes / 2;
			at += x->input_bytes;
			if (mid >= score->lineage_bytes)
				continue;
			lineage_maps++;
			local += x->data_local || x->rack_local;
			/* The block's first copy is where a last-stage (reduce) task
			 * of iter2 or parse ran; the others in another rack, or none. */
			bool wrote = false;
			for (int k = 0; k < w.ntasks && !wrote; k++)
				wrote = (w.tasks[k].job == 2 || w.tasks[k].job == 0) && w.tasks[k].kind == TASK_REDUCE &&
					w.tasks[k].server == x->replicas[0];
			cr_assert(wrote, "map %d's block is on server %d, where no parent wrote", m, x->replicas[0]);
			if (copies == 1) {
				cr_assert(x->replicas[1] == -1 && x->replicas[2] == -1);
			} else {
				cr_assert(x->replicas[1] >= 0 && x->replicas[2] >= 0 && x->replicas[1] != x->replicas[2]);
				cr_assert_neq(topo_rack_of(&t, x->replicas[1]), topo_rack_of(&t, x->replicas[0]),
					      "the copies are in another rack");
			}
		}
		cr_assert_gt(lineage_maps, 3);
		cr_assert_geq(local * 2, lineage_maps, "%d of %d lineage maps node- or rack-local", local, lineage_maps);
		workload_free(&w);
	}
}

/* A one-to-one edge keeps data on its server: the policies that take a
 * job's next task for a server (sched_job_task) run a one-to-one child
 * where its parent ran, its input being there. */
Test(simrun, a_one_to_one_child_runs_where_its_parent_ran)
{
	static const char *const names[] = {"fifo", "fair"};
	struct topo t;
	load_topo(&t, "topologies/geni-10rack.conf");
	for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
		struct workload w;
		load_workload(&w, "workloads/dag.json");
		json_decref(sim_run(&t, &w, names[n], "o2o", NULL));
		const struct job *etl = &w.jobs[0];
		int same = 0;
		for (int i = 0; i < etl->stages[2].ntasks; i++)
			same += stage_task(w.tasks, etl, 2, i)->server == stage_task(w.tasks, etl, 1, i)->server;
		cr_assert_eq(same, etl->stages[2].ntasks, "%s: %d of %d one-to-one tasks ran where their parent did",
			     names[n], same, etl->stages[2].ntasks);
		workload_free(&w);
	}
}

/* Task-level DAGs (workloads/taskdag.json): a task starts only after the
 * parent tasks it lists have ended, and reads exactly its share of each. */
Test(simrun, a_task_starts_after_the_parent_tasks_it_lists)
{
	static const char *const names[] = {"fifo", "fair", "delay", "nas"};
	struct topo t;
	load_topo(&t, "topologies/geni-10rack.conf");
	for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
		struct workload w;
		load_workload(&w, "workloads/taskdag.json");
		json_t *s = sim_run(&t, &w, names[n], "taskdag", NULL);
		cr_assert_eq(sr_num(s, "jobs_finished"), 2, "%s", names[n]);
		int listed = 0;
		for (int i = 0; i < w.ntasks; i++) {
			const struct task *x = &w.tasks[i];
			for (int d = 0; d < x->ntdeps; d++, listed++) {
				const struct task *par = &w.tasks[w.jobs[x->job].first_task + w.tdeps[x->tdep_first + d].task];
				cr_assert_geq(x->t_start, par->t_end, "%s: task %d started before its parent %d ended", names[n],
					      x->id, par->id);
			}
		}
		cr_assert_eq(listed, 18);
		every_byte_read_once(s, &w, names[n]);
		json_decref(s);
		workload_free(&w);
	}
}

/* A task that asks more than any server has is refused before the run. */
Test(simrun, a_task_no_server_can_hold_is_refused)
{
	struct topo t;
	struct workload w;
	char err[512];
	load_topo(&t, "topologies/hybrid-ch5.conf");
	synth(&w, 3, 5);
	cr_assert_eq(cluster_check_asks(&t, &w, err), 0, "%s", err);
	w.jobs[1].stages[1].ask = res_of(24, 64, 0);
	cr_assert_eq(cluster_check_asks(&t, &w, err), 0, "a scale-up server holds it: %s", err);
	w.jobs[1].stages[1].ask = res_of(24, 65, 0);
	cr_assert_neq(cluster_check_asks(&t, &w, err), 0);
	cr_assert(strstr(err, "job 'job1', stage 'reduce': a task asks for 24 core(s), 65 GB"), "%s", err);
	load_topo(&t, "topologies/geni-10rack.conf");
	cr_assert_eq(cluster_check_asks(&t, &w, err), 0, "slots take any task: %s", err);
	workload_free(&w);
}

/* The direction of Chapter 4 on the simulator: JobPacker aggregates
 * shuffles into circuit-sized transfers, Fair does not. */
Test(simrun, jobpacker_uses_the_ocs_fair_does_not)
{
	struct topo t;
	load_topo(&t, "topologies/geni-10rack.conf");
	double share[2];
	static const char *const names[] = {"fair", "jobpacker"};
	for (int k = 0; k < 2; k++) {
		struct workload w;
		synth(&w, 20, 4);
		json_t *s = sim_run(&t, &w, names[k], "share", NULL);
		share[k] = sr_num(s, "ocs_share");
		json_decref(s);
		workload_free(&w);
	}
	cr_assert_lt(share[0], 0.05, "fair put %.2f on circuits", share[0]);
	cr_assert_gt(share[1], 0.2, "jobpacker put only %.2f on circuits", share[1]);
}

static void early_ocs(struct run_params *p)
{
	p->ocs.early = true;
}

/* Early reconfiguration: configurations give way between ticks once their
 * circuits are served, never before 9δ of light, and the period restarts
 * from there; the OCS then carries the same shuffle in less circuit time. */
Test(simrun, ocs_early_reconfiguration)
{
	struct topo t;
	load_topo(&t, "topologies/geni-10rack.conf");
	double makespan[2];
	for (int k = 0; k < 2; k++) {
		struct workload w;
		synth(&w, 20, 4);
		json_t *s = sim_run(&t, &w, "jobpacker", k ? "early" : "periodic", k ? early_ocs : NULL);
		makespan[k] = sr_num(s, "makespan_s");
		cr_assert_str_eq(json_string_value(json_object_get(json_object_get(s, "parameters"), "ocs_reconfig")),
				 k ? "early" : "periodic");
		json_decref(s);
		workload_free(&w);
	}
	char path[300];
	snprintf(path, sizeof path, "%s/default/jobpacker/early/ocs.csv", root);
	struct ocs_log_gaps g = ocs_log_gaps(path, 1 - 1e-6);
	cr_assert_gt(g.rows, 2);
	cr_assert_geq(g.min_after_lit, 9 * 0.010 - 1e-9, "gave way %.3f s after light", g.min_after_lit);
	cr_assert_gt(g.sooner_than, 0, "no configuration gave way early");
	cr_assert_lt(makespan[1], makespan[0], "early %.1f s, periodic %.1f s", makespan[1], makespan[0]);
}

static int copiers_run;
static bool hold_run;
static void paper_copiers(struct run_params *p)
{
	p->copiers = copiers_run;
	p->hold = hold_run;
	p->elephant_bytes = 1125000000ULL;
}

/* --copiers bounds a reduce's moving fetches (Hadoop's parallelcopies), in
 * hold mode its circuit transfers too once their circuit is lit (all of a
 * reduce's senders at once would be an incast on real TCP); one whose
 * circuit is dark waits unstarted and holds no copier.  On the paper's
 * fabric a reduce's 10 Gb/s port is wider than what any one fetch gets, so
 * in either mode one copier leaves it idle and twenty keep it busy.  (With
 * every circuit transfer started at once, hold mode was not 1.2x slower
 * with one copier.)  The setting is recorded in the summary. */
Test(simrun, copiers_bound_every_moving_fetch_circuit_transfers_too)
{
	struct topo t;
	load_topo(&t, "topologies/paper-20x30.conf");
	static const int copiers[] = {1, 20};
	double makespan[2][2];
	for (int h = 0; h < 2; h++)
		for (int k = 0; k < 2; k++) {
			struct workload w;
			char name[32];
			synth_scaled(&w, 20, 4, 1, 0.25);   /* the paper-scale study's scales */
			snprintf(name, sizeof name, "copiers%d-%s", copiers[k], h ? "hold" : "fallback");
			copiers_run = copiers[k];
			hold_run = h;
			json_t *s = sim_run(&t, &w, "jobpacker", name, paper_copiers);
			cr_assert_eq(json_integer_value(json_object_get(json_object_get(s, "parameters"), "copiers")),
				     copiers[k]);
			makespan[h][k] = sr_num(s, "makespan_s");
			json_decref(s);
			workload_free(&w);
		}
	cr_assert_gt(makespan[0][0], 1.2 * makespan[0][1], "fallback: makespan %.1f s with one copier, %.1f s with 20",
		     makespan[0][0], makespan[0][1]);
	cr_assert_gt(makespan[1][0], 1.2 * makespan[1][1], "hold: makespan %.1f s with one copier, %.1f s with 20",
		     makespan[1][0], makespan[1][1]);
}

/* The circuits of an ocs.csv as lit intervals: pair s>d lit from a row's
 * t_lit until the next row's t_dark (the last row's until the run ends). */
struct lit_span { int s, d; double from, to; };

static int lit_spans(const char *path, struct lit_span *out, int cap)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	static char line[1 << 16];
	int n = 0, row_first = 0;
	cr_assert_not_null(fgets(line, sizeof line, f));
	while (fgets(line, sizeof line, f)) {
		double ts, ta, td, tsw, tl;
		cr_assert_eq(sscanf(line, "%lf,%lf,%lf,%lf,%lf", &ts, &ta, &td, &tsw, &tl), 5, "%s", line);
		for (int i = row_first; i < n; i++)
			out[i].to = td;
		row_first = n;
		char *cfg = strrchr(line, ',') + 1;
		for (char *tok = strtok(cfg, " \n"); tok; tok = strtok(NULL, " \n")) {
			int s, d;
			if (sscanf(tok, "%d>%d", &s, &d) != 2)
				continue;   /* "none" */
			cr_assert_lt(n, cap);
			out[n++] = (struct lit_span){s, d, tl, INFINITY};
		}
	}
	fclose(f);
	return n;
}

static bool lit_now(const struct lit_span *l, int n, int s, int d, double t)
{
	for (int i = 0; i < n; i++)
		if (l[i].s == s && l[i].d == d && t >= l[i].from - 1e-3 && t <= l[i].to + 1e-3)
			return true;
	return false;
}

/* The shuffle transfers of a flows.csv. */
struct flow_row { int id, task, src, sr, dr, circuit; double start, moved, end; };

static int shuffle_flows(const char *path, struct flow_row *fl, int cap)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	char line[512], kind[16];
	int n = 0;
	cr_assert_not_null(fgets(line, sizeof line, f));
	while (fgets(line, sizeof line, f)) {
		struct flow_row r;
		cr_assert_eq(sscanf(line, "%d,%15[^,],%*d,%d,%d,%*d,%d,%d,%*u,%lf,%lf,%lf,%d", &r.id, kind, &r.task, &r.src,
				    &r.sr, &r.dr, &r.start, &r.moved, &r.end, &r.circuit), 10, "%s", line);
		if (strcmp(kind, "shuffle"))
			continue;
		cr_assert_lt(n, cap);
		cr_assert(r.start <= r.moved && r.moved <= r.end, "%s", line);
		fl[n++] = r;
	}
	fclose(f);
	return n;
}

static bool same_fetch(const struct flow_row *a, const struct flow_row *b)
{
	return a->task == b->task && a->src == b->src && a->moved == b->moved && a->end == b->end;
}

static void one_copier_hold(struct run_params *p)
{
	p->copiers = 1;
	p->hold = true;
	p->ocs.early = true;
}

/* In hold mode a circuit transfer whose circuit is dark holds no copier,
 * so the EPS fetches behind it go on (agents/tasks.c does the same on real
 * TCP: integration tests agent/a_held_circuit_transfer_waits_at_the_...
 * and agent/a_circuit_transfer_caught_by_the_dark_gives_up_its_copier).
 * A reduce takes its fetches oldest first, in the order of their ids in
 * flows.csv.  So with one copier per reduce, from flows.csv and ocs.csv:
 * every circuit transfer begins to move while its circuit is lit; a
 * reduce's EPS fetches move one at a time; and some EPS fetch behind one
 * of its reduce's circuit transfers is done before that transfer moves.
 * Were the dark transfer holding the copier, the EPS fetch could only
 * follow it; and the run does not finish (6 of its 12 jobs by the timeout,
 * tried): the OCS lights the pairs the reduces' queued transfers ask for
 * while their one copier waits on a dark one. */
Test(simrun, a_circuit_transfer_in_the_dark_leaves_its_copier_free)
{
	struct topo t;
	struct workload w;
	load_topo(&t, "topologies/geni-10rack.conf");
	synth_fit(&w, 12, 4, 0.01, 0.1, 100000000, 100);   /* the GENI study's jobs (experiments/jobpacker/run.sh) */
	json_t *sum = sim_run(&t, &w, "jobpacker", "one-copier", one_copier_hold);
	workload_free(&w);
	char path[300];
	static struct lit_span lit[20000];
	snprintf(path, sizeof path, "%s/default/jobpacker/one-copier/ocs.csv", root);
	int nlit = lit_spans(path, lit, 20000);
	cr_assert_gt(nlit, 10);

	enum { CAP = 200000 };
	static struct flow_row fl[CAP];
	snprintf(path, sizeof path, "%s/default/jobpacker/one-copier/flows.csv", root);
	int n = shuffle_flows(path, fl, CAP);
	cr_assert_gt(n, 100);

	int circuit = 0, eps_past_dark = 0;
	double circuit_wait = 0;
	for (int i = 0; i < n; i++) {
		if (!fl[i].circuit) {   /* EPS fetches never pause: one copier, one at a time (a
					 * fetch moves its holder's queued transfers together) */
			for (int j = 0; j < n; j++)
				cr_assert(j == i || fl[j].task != fl[i].task || fl[j].circuit ||
					  same_fetch(&fl[j], &fl[i]) ||
					  fl[j].end <= fl[i].moved + 1e-3 || fl[j].moved >= fl[i].end - 1e-3,
					  "task %d moved two EPS fetches at once", fl[i].task);
			continue;
		}
		circuit++;
		circuit_wait += fl[i].moved - fl[i].start;
		cr_assert(lit_now(lit, nlit, fl[i].sr, fl[i].dr, fl[i].moved),
			  "circuit transfer %d>%d of task %d moved at %.3f s in the dark", fl[i].sr, fl[i].dr,
			  fl[i].task, fl[i].moved);
		for (int j = 0; j < n; j++)
			eps_past_dark += fl[j].task == fl[i].task && !fl[j].circuit && fl[j].id > fl[i].id &&
					 fl[j].end < fl[i].moved - 1e-3;
	}
	cr_assert_gt(circuit, 10);
	cr_assert_gt(eps_past_dark, 0, "no EPS fetch went past a circuit transfer waiting in the dark");
	/* The summary's fetch times are flows.csv's, per class. */
	json_t *fc = json_object_get(json_object_get(sum, "fetch_time"), "circuit_eligible");
	cr_assert_eq(json_integer_value(json_object_get(fc, "fetches")), circuit);
	cr_assert_float_eq(sr_num(fc, "wait_mean_s"), circuit_wait / circuit, 1e-3);
	cr_assert_gt(sr_num(fc, "wait_mean_s"), 0.05, "circuit transfers should wait for their circuits");
	json_decref(sum);
}

/* Hadoop's shuffle scheduler (emu/copiers.c): a reduce never has two
 * fetches from one host at once, and a fetch takes every output the host
 * has for it that can move, so some fetches carry more than one transfer
 * (F-EPS's reduces start while maps still finish: slowstart 0.7). */
static void geni_slowstart(struct run_params *p) { p->slowstart = 0.7; }

Test(simrun, a_reduce_fetches_from_a_host_once_at_a_time_taking_its_outputs_together)
{
	struct topo t;
	struct workload w;
	load_topo(&t, "topologies/geni-10rack-eps.conf");
	synth_fit(&w, 12, 4, 0.01, 0.1, 100000000, 100);
	json_decref(sim_run(&t, &w, "fair", "hosts", geni_slowstart));
	workload_free(&w);
	enum { CAP = 200000 };
	static struct flow_row fl[CAP];
	char path[300];
	snprintf(path, sizeof path, "%s/default/fair/hosts/flows.csv", root);
	int n = shuffle_flows(path, fl, CAP);
	cr_assert_gt(n, 100);
	int shared = 0;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			if (fl[j].task != fl[i].task || fl[j].src != fl[i].src)
				continue;
			if (same_fetch(&fl[i], &fl[j])) {
				shared++;
				continue;
			}
			cr_assert(fl[j].end <= fl[i].moved + 1e-9 || fl[j].moved >= fl[i].end - 1e-9,
				  "task %d fetched from server %d twice at once: %.3f-%.3f and %.3f-%.3f", fl[i].task,
				  fl[i].src, fl[i].moved, fl[i].end, fl[j].moved, fl[j].end);
		}
	cr_assert_gt(shared, 0, "no fetch took two of its holder's transfers");
}
