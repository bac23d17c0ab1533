/* Preemption on the simulator: a policy (Fair, plus a preempt hook of the
 * test's own) kills or suspends one running task at a chosen time; the
 * task restarts from zero, or resumes where it was after the recovery
 * delay, and every shuffle byte is accounted once. */
#include "emu/run.h"
#include "emu/sched.h"
#include "../preempt_fixture.h"
#include "simrun_fixture.h"
#include "tree_fixture.h"
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char root[64], repo[512];
static void setup(void) { tf_setup(root, sizeof root, "/tmp/emu-preempt-XXXXXX", repo, sizeof repo, NULL, 0); }
static void teardown(void) { tf_teardown(root); }
TestSuite(preempt, .init = setup, .fini = teardown);

static json_t *run(struct workload *w, const char *name)
{
	struct topo t;
	char err[512];
	cr_assert_eq(topo_load(&t, "topologies/tiny.conf", 0, err), 0, "%s", err);
	/* Two jobs whose shuffles take a second or two on tiny's 0.1 Gb/s. */
	static const char jobs[] =
		"{\"scaled\": true, \"jobs\": [\n"
		" {\"name\": \"big\", \"input\": 16000000, \"maps\": 8, \"reduces\": 2, \"shuffle\": 30000000,"
		"  \"output\": 1000, \"map_duration\": 0.6, \"reduce_duration\": 0.5},\n"
		" {\"name\": \"small\", \"submit\": 0.3, \"input\": 4000000, \"maps\": 2, \"reduces\": 1,"
		"  \"shuffle\": 2000000, \"output\": 1000, \"map_duration\": 0.4, \"reduce_duration\": 0.3}\n"
		"]}\n";
	sr_workload(root, w, jobs);
	struct run_params p;
	sr_params(&p, root, "fair", name);
	p.sched_ops = px_policy();
	p.recovery_s = 0.7;
	return sr_run(&t, w, &p);
}

/* Every byte the reduces read, fetched once: what was fetched, less what
 * attempts that were killed had fetched. */
static void bytes_add_up(json_t *s, const struct workload *w)
{
	uint64_t want_bytes = 0;
	for (int i = 0; i < w->ntasks; i++)
		want_bytes += w->tasks[i].kind == TASK_REDUCE ? w->tasks[i].input_bytes : 0;
	double got = sr_num(s, "agent_bytes.shuffle_network") + sr_num(s, "agent_bytes.shuffle_local") -
		     sr_num(s, "agent_bytes.shuffle_discarded");
	cr_assert_eq((uint64_t)got, want_bytes, "fetched %.0f, the reduces read %llu", got, (unsigned long long)want_bytes);
}

/* The resume row of preemptions.csv: its time. */
static double resumed_at(const char *name, int task)
{
	char path[300], line[256];
	snprintf(path, sizeof path, "%s/default/fair/%s/preemptions.csv", root, name);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	double at = -1, t;
	int id;
	char op[16];
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%lf,%d,%*d,%*[^,],%*d,%*d,%15s", &t, &id, op) == 3 && id == task && !strcmp(op, "resume"))
			at = t;
	fclose(f);
	return at;
}

Test(preempt, a_killed_map_restarts_from_zero)
{
	struct workload w;
	px_nwants = 1;
	px_wants[0] = (struct px_want){.job = -1, .victim = -1, .op = PREEMPT_KILL, .kind = TASK_MAP, .at = 0.1};
	json_t *s = run(&w, "kill-map");
	cr_assert_eq(sr_num(s, "jobs_finished"), 2);
	cr_assert_eq(sr_num(s, "preemptions.kills"), 1);
	const struct task *t = &w.tasks[px_wants[0].victim];
	cr_assert_eq(t->kills, 1);
	cr_assert_eq(t->attempts, 2);
	cr_assert_geq(t->t_start, px_wants[0].when, "its last attempt started after the kill");
	cr_assert_geq(t->t_end - t->t_start, t->duration_s - 1e-9, "and computed all of its work again");
	bytes_add_up(s, &w);
	json_decref(s);
	workload_free(&w);
}

Test(preempt, a_killed_reduce_fetches_again_and_no_byte_counts_twice)
{
	struct workload w;
	px_nwants = 1;
	px_wants[0] = (struct px_want){.job = -1, .victim = -1, .op = PREEMPT_KILL, .kind = TASK_REDUCE, .maps_done = 1, .at = 0};
	json_t *s = run(&w, "kill-reduce");
	cr_assert_eq(sr_num(s, "jobs_finished"), 2);
	cr_assert_eq(w.tasks[px_wants[0].victim].kills, 1);
	cr_assert_gt(sr_num(s, "agent_bytes.shuffle_discarded"), 0, "it had fetched something");
	bytes_add_up(s, &w);
	json_decref(s);
	workload_free(&w);
}

Test(preempt, a_suspended_map_ends_after_its_work_its_pause_and_the_recovery_delay)
{
	struct workload w;
	px_nwants = 1;
	px_wants[0] = (struct px_want){.job = -1, .victim = -1, .op = PREEMPT_SUSPEND, .kind = TASK_MAP, .at = 0.1};
	json_t *s = run(&w, "suspend-map");
	cr_assert_eq(sr_num(s, "jobs_finished"), 2);
	cr_assert_eq(sr_num(s, "preemptions.suspends"), 1);
	const struct task *t = &w.tasks[px_wants[0].victim];
	cr_assert(t->suspends == 1 && t->attempts == 1 && t->kills == 0);
	double back = resumed_at("suspend-map", t->id);
	cr_assert_geq(back, px_wants[0].when);
	/* A map reading local input computes from its start (node-local). */
	if (t->data_local)
		cr_assert_float_eq(t->t_end, t->t_start + t->duration_s + (back - px_wants[0].when) + 0.7, 1e-3,   /* the csv's ms */
				   "start %.3f, work %.3f, paused %.3f..%.3f, end %.3f", t->t_start, t->duration_s,
				   px_wants[0].when, back, t->t_end);
	else
		cr_assert_geq(t->t_end, t->t_start + t->duration_s + (back - px_wants[0].when) + 0.7 - 1e-6);
	bytes_add_up(s, &w);
	json_decref(s);
	workload_free(&w);
}

Test(preempt, a_reduce_suspended_while_fetching_resumes_its_transfers)
{
	struct workload w;
	px_nwants = 1;
	px_wants[0] = (struct px_want){.job = -1, .victim = -1, .op = PREEMPT_SUSPEND, .kind = TASK_REDUCE, .maps_done = 0.5, .at = 0};
	json_t *s = run(&w, "suspend-reduce");
	cr_assert_eq(sr_num(s, "jobs_finished"), 2);
	const struct task *t = &w.tasks[px_wants[0].victim];
	cr_assert(t->suspends == 1 && t->attempts == 1);
	cr_assert_eq(sr_num(s, "agent_bytes.shuffle_discarded"), 0, "a suspension keeps what it fetched");
	cr_assert_geq(t->t_end, resumed_at("suspend-reduce", t->id) + 0.7 - 1e-6);
	bytes_add_up(s, &w);
	json_decref(s);
	workload_free(&w);
}

/* Fair's own preemption (workloads/preempt.json): short jobs arriving while
 * a long one holds every container wait for it without preemption; with it
 * they take containers back after the timeout; suspending costs the long
 * job less than killing (it keeps its progress). */
Test(preempt, fair_share_preemption_serves_the_short_jobs_sooner)
{
	static const char *const modes[] = {"preempt=off", "preempt=kill", "preempt=suspend"};
	double queries[3], batch[3];
	long count[3];
	struct topo t;
	char err[512];
	cr_assert_eq(topo_load(&t, "topologies/geni-10rack.conf", 0, err), 0, "%s", err);
	for (int m = 0; m < 3; m++) {
		struct workload w;
		struct workload_params wp;
		workload_params_default(&wp);
		cr_assert_eq(workload_read(&w, "workloads/preempt.json", &wp, 0, err), 0, "%s", err);
		const char *opts[] = {modes[m], "preempt_timeout=2"};
		struct run_params p;
		sr_params(&p, root, "fair", modes[m]);
		p.sched_opts = opts;
		p.nsched_opts = 2;
		json_decref(sr_run(&t, &w, &p));
		batch[m] = w.jobs[0].t_end - w.jobs[0].submit_s;
		queries[m] = fmax(w.jobs[1].t_end - w.jobs[1].submit_s, w.jobs[2].t_end - w.jobs[2].submit_s);
		count[m] = 0;
		for (int i = 0; i < w.ntasks; i++)
			count[m] += w.tasks[i].kills + w.tasks[i].suspends;
		workload_free(&w);
	}
	cr_assert_eq(count[0], 0);
	for (int m = 1; m < 3; m++) {
		cr_assert_gt(count[m], 0, "%s", modes[m]);
		cr_assert_lt(queries[m] * 2, queries[0], "%s: the queries took %.2f s, %.2f s without", modes[m], queries[m],
			     queries[0]);
	}
	cr_assert_lt(batch[2], batch[1], "suspended, the batch job took %.2f s; killed, %.2f s", batch[2], batch[1]);
}
