/* DSP's (seed 004) remaining baselines: Aalo's D-CLAS queues, Amoeba's
 * suspend and resume with progress kept, Natjam's victim, and each of them
 * through the generator's DAGs on the simulator. */
#include "emu/gen.h"
#include "emu/run.h"
#include "emu/sched.h"
#include "emu/sched/aalo.h"
#include "simrun_fixture.h"
#include "tree_fixture.h"
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char root[64], repo[512];
static void setup(void) { tf_setup(root, sizeof root, "/tmp/emu-dspb-XXXXXX", repo, sizeof repo, NULL, 0); }
static void teardown(void) { tf_teardown(root); }
TestSuite(dsp_baselines, .init = setup, .fini = teardown, .timeout = 120);

static void load_topo(struct topo *t, const char *text)
{
	char path[300], err[512];
	sr_write(root, "t.conf", text, path, sizeof path);
	cr_assert_eq(topo_load(t, path, 0, err), 0, "%s", err);
}

/* `servers` servers of `slots` slots. */
static void slot_servers(struct topo *t, int servers, int slots)
{
	char text[400];
	snprintf(text, sizeof text,
		 "name = \"one\"; racks = 1; servers_per_rack = %d;\n"
		 "server = { rate = \"1Gbit\"; containers = %d; };\n"
		 "eps = { uplink_rate = \"1Gbit\"; };\nocs = { enabled = false; };\n",
		 servers, slots);
	load_topo(t, text);
}

/* On the simulator; a suspended task resumes after 0.5 s. */
static json_t *run(struct topo *t, struct workload *w, const char *sched, const char **opts, int nopts,
		   const char *name)
{
	struct run_params p;
	sr_params(&p, root, sched, name);
	p.sched_opts = opts;
	p.nsched_opts = nopts;
	p.recovery_s = 0.5;
	return sr_run(t, w, &p);
}

/* ---- Aalo ------------------------------------------------------------------ */

Test(dsp_baselines, dclas_queues_by_attained_bytes_and_exponential_thresholds)
{
	/* The notes' defaults: K = 10, q1 = 10 MB, E = 10. */
	struct { double bytes; int q; } cases[] = {
		{0, 0}, {9.99e6, 0}, {10e6, 1}, {99.9e6, 1}, {100e6, 2}, {1e9, 3}, {5e12, 6}, {1e16, 9}, {1e20, 9}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_assert_eq(aalo_queue(cases[i].bytes, 10, 10e6, 10), cases[i].q, "%g bytes", cases[i].bytes);
	cr_assert_eq(aalo_queue(30e6, 3, 1e6, 2), 2, "the last queue takes the rest");
	cr_assert_eq(aalo_queue(3e6, 3, 1e6, 2), 2);
	cr_assert_eq(aalo_queue(1.5e6, 3, 1e6, 2), 1);
}

/* One slot.  Job A (4 tasks of 1 s, 200 MB output each) arrives first, B
 * (one task) at 0.5 s.  FIFO would run A's four first; once A's first task
 * has served 200 MB, A is in queue 2 and B, in queue 0, goes next. */
Test(dsp_baselines, aalo_demotes_a_served_job_below_a_new_one)
{
	static const char jobs[] =
		"{\"scaled\": true, \"jobs\": [\n"
		" {\"name\": \"a\", \"input\": \"1MB\", \"stages\": [{\"name\": \"l1\", \"tasks\": 4, \"work\": 1, \"output\": \"800MB\"}]},\n"
		" {\"name\": \"b\", \"submit\": 0.5, \"input\": \"1MB\", \"stages\": [{\"name\": \"l1\", \"tasks\": 1, \"work\": 1, \"output\": \"1MB\"}]}\n"
		"]}\n";
	const char *modes[] = {"interq=weighted", "interq=strict"};
	for (int m = 0; m < 2; m++) {
		struct topo t;
		slot_servers(&t, 1, 1);
		struct workload w;
		sr_workload(root, &w, jobs);
		cr_assert_eq(aalo_queue((double)w.tasks[0].output_bytes, 10, 10e6, 10), 2, "A's first task alone demotes it");
		char name[16];
		snprintf(name, sizeof name, "aalo%d", m);
		json_t *s = run(&t, &w, "aalo", &modes[m], 1, name);
		cr_assert_eq(sr_num(s, "jobs_finished"), 2);
		const struct task *a0 = &w.tasks[0], *b = &w.tasks[4];
		cr_assert_geq(b->t_start, a0->t_end - 1e-6);
		for (int i = 1; i < 4; i++)
			cr_assert_geq(w.tasks[i].t_start, b->t_end - 1e-6, "%s: A's task %d after B", modes[m], i);
		cr_assert_eq(sr_num(s, "preemptions.suspends") + sr_num(s, "preemptions.kills"), 0, "Aalo never preempts");
		json_decref(s);
		workload_free(&w);
	}
}

/* Two slots.  l1: a 5 s and a 1 s task; l2's task 0 reads l1's 5 s task,
 * its task 1 the 1 s one, one-to-one's order crossed by listed parents.
 * The slot freed at 1 s runs l2's task 1, ready though task 0 is not; task
 * 0 starts when its parent ends (the ready index's order and its updates). */
Test(dsp_baselines, aalo_runs_the_first_ready_task_of_a_stage_not_the_first_pending)
{
	static const char jobs[] =
		"{\"scaled\": true, \"jobs\": [{\"name\": \"a\", \"input\": \"1MB\", \"stages\": [\n"
		" {\"name\": \"l1\", \"tasks\": 2, \"work\": [5, 1], \"output\": \"1MB\"},\n"
		" {\"name\": \"l2\", \"tasks\": 2, \"work\": 1, \"output\": \"1MB\", \"parents\": {\"l1\": \"tasks\"},\n"
		"  \"task_parents\": [{\"l1\": [0]}, {\"l1\": [1]}]}]}]}\n";
	struct topo t;
	slot_servers(&t, 1, 2);
	struct workload w;
	sr_workload(root, &w, jobs);
	json_t *s = run(&t, &w, "aalo", NULL, 0, "aalo_ready");
	cr_assert_eq(sr_num(s, "jobs_finished"), 1);
	const struct task *slow = &w.tasks[0], *fast = &w.tasks[1], *c0 = &w.tasks[2], *c1 = &w.tasks[3];
	cr_assert_lt(c1->t_start, slow->t_end - 1, "task 1 of l2 at %.2f s, before l1's 5 s task ends (%.2f)",
		     c1->t_start, slow->t_end);
	cr_assert_geq(c1->t_start, fast->t_end - 1e-6);
	cr_assert_geq(c0->t_start, slow->t_end - 1e-6);
	cr_assert_lt(c0->t_start, slow->t_end + 1, "task 0 of l2 soon after its parent");
	json_decref(s);
	workload_free(&w);
}

/* ---- Amoeba ---------------------------------------------------------------- */

/* One slot: a 100 s task holds it; a 1 s task arrives at 5 s.  Amoeba
 * suspends the long one (the longest remaining), runs the short one, and
 * resumes the long one where it stopped: it ends about 1 s + the recovery
 * delay late, not 100 s. */
Test(dsp_baselines, amoeba_suspends_the_longer_task_and_resumes_it_with_its_progress)
{
	static const char jobs[] =
		"{\"scaled\": true, \"jobs\": [\n"
		" {\"name\": \"long\", \"input\": \"1MB\", \"stages\": [{\"name\": \"l1\", \"tasks\": 1, \"work\": 100, \"output\": \"1MB\"}]},\n"
		" {\"name\": \"short\", \"submit\": 5, \"input\": \"1MB\", \"stages\": [{\"name\": \"l1\", \"tasks\": 1, \"work\": 1, \"output\": \"1MB\"}]}\n"
		"]}\n";
	struct topo t;
	slot_servers(&t, 1, 1);
	struct workload w;
	sr_workload(root, &w, jobs);
	json_t *s = run(&t, &w, "amoeba", NULL, 0, "amoeba");
	const struct task *lng = &w.tasks[0], *sh = &w.tasks[1];
	cr_assert_eq(sr_num(s, "jobs_finished"), 2);
	cr_assert_eq(sr_num(s, "preemptions.suspends"), 1);
	cr_assert_eq(sr_num(s, "preemptions.kills"), 0);
	cr_assert(lng->suspends == 1 && lng->kills == 0 && lng->attempts == 1 && sh->suspends == 0);
	cr_assert_lt(sh->t_end, 7.5, "the short task ran within an epoch of its arrival");
	cr_assert_gt(lng->t_end, sh->t_end);
	cr_assert_geq(lng->t_end, 100 + 1 + 0.5 - 1e-6, "it lost the short task's time and the recovery delay");
	cr_assert_lt(lng->t_end, 100 + 1 + 0.5 + 1.5, "and no more: its first 5 s were kept");
	json_decref(s);
	workload_free(&w);
}

/* One slot, window 1: the child (1 s) comes before its parent (5 s) in the
 * shortest-remaining order, and the deadlock breaker had killed it, so it
 * waits for the parent before it starts again.  The window holds the tasks
 * that may start now: the parent runs, then the child (a window of the
 * first waiting tasks alone held the child only, and the run stalled). */
Test(dsp_baselines, amoeba_looks_past_a_killed_task_that_waits_for_its_parents)
{
	static const char jobs[] =
		"{\"scaled\": true, \"jobs\": [{\"name\": \"a\", \"input\": \"1MB\", \"stages\": [\n"
		" {\"name\": \"l1\", \"tasks\": 1, \"work\": 5, \"output\": \"1MB\"},\n"
		" {\"name\": \"l2\", \"tasks\": 1, \"work\": 1, \"output\": \"1MB\", \"parents\": {\"l1\": \"tasks\"},\n"
		"  \"task_parents\": [{\"l1\": [0]}]}]}]}\n";
	const char *opts[] = {"window=1"};
	struct topo t;
	slot_servers(&t, 1, 1);
	struct workload w;
	sr_workload(root, &w, jobs);
	w.tasks[1].kills = 1;   /* as the breaker leaves it */
	json_t *s = run(&t, &w, "amoeba", opts, 1, "amoeba_window");
	cr_assert_eq(sr_num(s, "jobs_finished"), 1, "the parent started though the child heads the order");
	cr_assert_eq(sr_num(s, "disorders.starts"), 0);
	cr_assert_geq(w.tasks[1].t_start, w.tasks[0].t_end - 1e-6);
	cr_assert_lt(w.tasks[1].t_end, 10);
	json_decref(s);
	workload_free(&w);
}

/* ---- Natjam ---------------------------------------------------------------- */

/* One server of 4 cores, full with three research tasks: r1 (1 core, 100 s),
 * r2 (2 cores, 100 s), r3 (1 core, 50 s).  A production job (the one with a
 * deadline: classes=deadline) of a 1-core task arrives at 5 s; any victim
 * makes room.  The notes' rule takes the one using the most resources (r2),
 * Natjam's SRT the one of the shortest remaining time (r3). */
Test(dsp_baselines, natjam_suspends_the_victim_its_rule_names_for_a_production_task)
{
	static const char topo[] = "name = \"v\";\n"
				   "classes = { m = { rate = \"1Gbit\"; cores = 4; mem_gb = 16; }; };\n"
				   "racks = ( { repeat = 1; servers = { m = 1; }; } );\n"
				   "eps = { uplink_rate = \"1Gbit\"; };\nocs = { enabled = false; };\n";
	static const char jobs[] =
		"{\"scaled\": true, \"jobs\": [\n"
		" {\"name\": \"r1\", \"input\": \"1MB\", \"stages\": [{\"name\": \"l1\", \"tasks\": 1, \"work\": 100, \"cpu\": 1, \"mem_gb\": 1, \"output\": \"1MB\"}]},\n"
		" {\"name\": \"r2\", \"input\": \"1MB\", \"stages\": [{\"name\": \"l1\", \"tasks\": 1, \"work\": 100, \"cpu\": 2, \"mem_gb\": 4, \"output\": \"1MB\"}]},\n"
		" {\"name\": \"r3\", \"input\": \"1MB\", \"stages\": [{\"name\": \"l1\", \"tasks\": 1, \"work\": 50, \"cpu\": 1, \"mem_gb\": 1, \"output\": \"1MB\"}]},\n"
		" {\"name\": \"p\", \"submit\": 5, \"deadline\": 30, \"input\": \"1MB\", \"stages\": [{\"name\": \"l1\", \"tasks\": 1, \"work\": 1, \"cpu\": 1, \"mem_gb\": 1, \"output\": \"1MB\"}]}\n"
		"]}\n";
	struct { const char *victim; int who; } cases[] = {{"victim=notes", 1}, {"victim=srt", 2}};
	for (int i = 0; i < 2; i++) {
		struct topo t;
		load_topo(&t, topo);
		struct workload w;
		sr_workload(root, &w, jobs);
		const char *opts[] = {"classes=deadline", cases[i].victim};
		char name[16];
		snprintf(name, sizeof name, "natjam%d", i);
		json_t *s = run(&t, &w, "natjam", opts, 2, name);
		cr_assert_eq(sr_num(s, "jobs_finished"), 4);
		cr_assert_eq(sr_num(s, "preemptions.suspends"), 1, "%s", cases[i].victim);
		cr_assert_eq(sr_num(s, "preemptions.kills"), 0);
		for (int k = 0; k < 4; k++)
			cr_assert_eq(w.tasks[k].suspends, k == cases[i].who, "%s: task %d", cases[i].victim, k);
		cr_assert_lt(w.tasks[3].t_end, 7.5, "the production task ran within an epoch of its arrival");
		double work = cases[i].who == 2 ? 50 : 100;
		cr_assert_lt(w.tasks[cases[i].who].t_end, work + 1 + 0.5 + 1.5, "the victim resumed with its progress");
		json_decref(s);
		workload_free(&w);
	}
}

/* ---- every baseline on the generator's DAGs ------------------------------ */

/* dsp-dag, small, on 2 servers of 4 slots: every job finishes under each;
 * Aalo starts every task after its parents (checked task by task), Amoeba
 * and Natjam, which ignore dependencies, do not; Amoeba preempts (Natjam's
 * research tasks happen not to hold what its production tasks wait for);
 * only the core's deadlock breaker kills.  Amoeba ran into a deadlock the
 * breaker did not see here before a resumed waiting task was watched again. */
Test(dsp_baselines, each_baseline_finishes_the_generated_dags)
{
	const char *scheds[] = {"aalo", "amoeba", "natjam"};
	struct topo t;
	slot_servers(&t, 2, 4);
	for (int i = 0; i < 3; i++) {
		struct workload w;
		char name[16];
		sr_generate(&w, "dsp-dag:scale=0.03", 3, 6, 0.1);
		snprintf(name, sizeof name, "gen%d", i);
		json_t *s = run(&t, &w, scheds[i], NULL, 0, name);
		cr_assert_eq(sr_num(s, "jobs_finished"), 6, "%s", scheds[i]);
		double starts = sr_num(s, "disorders.starts");
		if (i == 0) {
			cr_assert_eq(starts, 0);
			sr_assert_in_order(&w, "aalo");
		} else {
			cr_assert_gt(starts, 0, "%s", scheds[i]);
			if (i == 1)
				cr_assert_gt(sr_num(s, "preemptions.suspends"), 0, "amoeba");
			cr_assert_eq(sr_num(s, "preemptions.kills"), sr_num(s, "disorders.deadlock_breaks"),
				     "%s: only the core's breaker kills", scheds[i]);
		}
		json_decref(s);
		workload_free(&w);
	}
}

/* Amoeba's and SRPT's offers through the fit index choose what their scans
 * choose: the same tasks start on the same servers at the same times, on
 * servers of cores and memory (the index is off with slots), with
 * preemptions, disorders and breaker kills; and with Amoeba's window small
 * enough to turn fits away (its count of what may start). */
Test(dsp_baselines, the_fit_index_chooses_as_the_scan)
{
	struct topo t;
	load_topo(&t, "name = \"res\"; classes = { m = { rate = \"1Gbit\"; cores = 4; mem_gb = 16; }; };\n"
		      "racks = ( { repeat = 1; servers = { m = 3; }; } );\n"
		      "eps = { uplink_rate = \"10Gbit\"; };\nocs = { enabled = false; };\n");
	const char *scheds[] = {"amoeba", "amoeba", "amoeba", "srpt"};
	const char *extra[][2] = {{"index=on", "index=on"}, {"window=3", "index=on"}, {"window=3", "dep=respect"},
				  {"index=on", "index=on"}};
	for (int i = 0; i < 4; i++) {
		struct workload w[2];
		double preempts[2];
		for (int k = 0; k < 2; k++) {
			const char *opts[] = {k ? "index=off" : "index=on", extra[i][0], extra[i][1]};
			char name[32];
			sr_generate(&w[k], "dsp-dag:scale=0.03", 5, 8, 0.1);
			snprintf(name, sizeof name, "%s-%d-%d", scheds[i], i, k);
			json_t *s = run(&t, &w[k], scheds[i], opts, 3, name);
			cr_assert_eq(sr_num(s, "jobs_finished"), 8, "%s", name);
			preempts[k] = sr_num(s, "preemptions.suspends") + sr_num(s, "preemptions.kills");
			if (strcmp(extra[i][1], "dep=respect"))
				cr_assert_gt(sr_num(s, "disorders.starts"), 0, "%s", name);
			json_decref(s);
		}
		if (strcmp(extra[i][1], "dep=respect"))
			cr_assert_gt(preempts[0], 0, "%s preempts", scheds[i]);
		cr_assert_eq(preempts[0], preempts[1], "%s", scheds[i]);
		cr_assert_eq(w[0].ntasks, w[1].ntasks);
		for (int k = 0; k < w[0].ntasks; k++) {
			const struct task *a = &w[0].tasks[k], *b = &w[1].tasks[k];
			cr_assert(a->server == b->server && a->t_start == b->t_start && a->t_end == b->t_end,
				  "%s task %d: server %d at %.3f-%.3f vs %d at %.3f-%.3f", scheds[i], k, a->server,
				  a->t_start, a->t_end, b->server, b->t_start, b->t_end);
		}
		workload_free(&w[0]);
		workload_free(&w[1]);
	}
}
