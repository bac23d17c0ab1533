/* DSP's study report (experiments/dsp/report.py) over runs made here: two
 * small simulated runs on the seed's 50 servers.  What is checked is the
 * data the report is made of: the cores' bound against the workload each run
 * saved (and no makespan under it), and --keep, which adds an earlier
 * report's ended runs that the results root does not have. */
#include "tree_fixture.h"
#include <jansson.h>

static char root[64], repo[512], emu[600];

static void setup(void)
{
	tf_setup(root, sizeof root, "/tmp/emu-dsp-report-XXXXXX", repo, sizeof repo, emu, sizeof emu);
}

static void teardown(void)
{
	tf_teardown(root);
}

TestSuite(dsp_report, .init = setup, .fini = teardown);

/* One run as experiments/dsp/run.sh makes it, at a twentieth of the tasks. */
static void run(const char *sched, int seed)
{
	cr_assert_eq(tf_sh("mkdir -p '%s/res/dsp-50/%s' && '%s' run --backend sim --no-flows --quiet --experiment dsp-50 --run sim-j4-s%d --results '%s/res' "
			   "--scheduler %s --seed %d --save-workload '%s/res/dsp-50/%s/sim-j4-s%d-workload.json' "
			   "--topology '%s/topologies/dsp-50.conf' --generator dsp-dag:scale=0.05 --jobs 4 > '%s/run.log' 2>&1",
			   root, sched, emu, seed, root, sched, seed, root, sched, seed, repo, root),
		     0, "emu run %s failed (see %s/run.log)", sched, root);
}

/* report.py root/res root/OUT dsp [extra]: its exit status. */
static int report(const char *out, const char *extra)
{
	return tf_sh("cd '%s' && python3 experiments/dsp/report.py '%s/res' '%s/%s' dsp %s > '%s/%s.log' 2>&1", repo, root,
		     root, out, extra, root, out);
}

/* The workload's core-seconds (every task's work times the cores it asks)
 * over dsp-50's 200 cores (50 servers of 4). */
static double cores_bound(const char *sched, int seed)
{
	char path[700];
	snprintf(path, sizeof path, "%s/res/dsp-50/%s/sim-j4-s%d-workload.json", root, sched, seed);
	json_error_t err;
	json_t *w = json_load_file(path, 0, &err);
	cr_assert_not_null(w, "%s: %s", path, err.text);
	double work = 0;
	size_t i, k, m;
	json_t *job, *st, *v;
	json_array_foreach(json_object_get(w, "jobs"), i, job) json_array_foreach(json_object_get(job, "stages"), k, st)
	{
		json_t *x = json_object_get(st, "work"), *cpu = json_object_get(st, "cpu");
		double sum = 0;
		if (json_is_array(x))
			json_array_foreach(x, m, v) sum += json_is_array(v) ? json_number_value(json_array_get(v, 0)) *
										  json_number_value(json_array_get(v, 1))
									: json_number_value(v);
		else
			sum = json_number_value(x) * json_integer_value(json_object_get(st, "tasks"));
		work += sum * (cpu ? json_number_value(cpu) : 1);
	}
	json_decref(w);
	cr_assert_gt(work, 0);
	return work / 200;
}

Test(dsp_report, the_cores_bound_is_the_workloads_and_no_run_beats_it)
{
	const char *scheds[] = {"aalo", "tetris-simdep"};
	for (int i = 0; i < 2; i++)
		run(scheds[i], 1);
	cr_assert_eq(report("out", ""), 0, "report.py failed (see %s/out.log)", root);
	char path[600];
	snprintf(path, sizeof path, "%s/out/runs.csv", root);
	struct csv *c = csv_read(path);
	cr_assert_eq(c->nrow, 2);
	for (int i = 0; i < 2; i++) {
		int r = csv_find(c, "scheduler", scheds[i], "seed", "1");
		cr_assert_geq(r, 0, "no row for %s", scheds[i]);
		double want = cores_bound(scheds[i], 1), got = csv_num(c, r, "cores_bound");
		cr_assert(fabs(got - want) <= 1e-6 * want, "%s: cores' bound %.6f, the workload's %.6f", scheds[i], got, want);
		cr_assert_geq(csv_num(c, r, "makespan"), got * (1 - 1e-9), "%s ends before the cores allow", scheds[i]);
	}
	csv_free(c);
}

Test(dsp_report, keep_adds_the_ended_runs_the_root_lacks)
{
	run("aalo", 1);
	cr_assert_eq(report("out", ""), 0, "report.py failed (see %s/out.log)", root);
	/* An earlier runs.csv: this run with another makespan (the root's wins),
	 * an ended run of seed 2 (kept) and a stopped one of seed 3 (not). */
	cr_assert_eq(tf_sh("cd '%s' && python3 -c \"import csv\n"
			   "rows = list(csv.DictReader(open('out/runs.csv')))\n"
			   "r = rows[0]\n"
			   "w = csv.DictWriter(open('keep.csv', 'w', newline=''), fieldnames=list(r))\n"
			   "w.writeheader()\n"
			   "w.writerow(dict(r, makespan='1'))\n"
			   "w.writerow(dict(r, seed='2', makespan='12345.5'))\n"
			   "w.writerow(dict(r, seed='3', partial='True'))\n\"",
			   root),
		     0);
	char keep[100];
	snprintf(keep, sizeof keep, "--keep '%s/keep.csv'", root);
	cr_assert_eq(report("out2", keep), 0, "report.py --keep failed (see %s/out2.log)", root);
	char path[600];
	snprintf(path, sizeof path, "%s/out/runs.csv", root);
	struct csv *before = csv_read(path);
	snprintf(path, sizeof path, "%s/out2/runs.csv", root);
	struct csv *c = csv_read(path);
	cr_assert_eq(c->nrow, 2, "seeds 1 and 2");
	int r1 = csv_find(c, "seed", "1", NULL, NULL), r2 = csv_find(c, "seed", "2", NULL, NULL);
	cr_assert(r1 >= 0 && r2 >= 0);
	cr_assert_str_eq(csv_get(c, r1, "makespan"), csv_get(before, 0, "makespan"), "the root's run, not the kept row");
	cr_assert_eq(csv_num(c, r2, "makespan"), 12345.5);
	cr_assert_str_eq(csv_get(c, r2, "cores_bound"), csv_get(before, 0, "cores_bound"));
	csv_free(c);
	csv_free(before);

	/* A row that is not one: exit status 2, the file and line named. */
	cr_assert_eq(tf_sh("cd '%s' && printf 'servers,jobs,seed\\n50,x,1\\n' > bad.csv", root), 0);
	snprintf(keep, sizeof keep, "--keep '%s/bad.csv'", root);
	cr_assert_eq(report("out3", keep), 2);
	cr_assert_eq(tf_sh("grep -q 'bad.csv:2:' '%s/out3.log'", root), 0, "the error names bad.csv:2");
}
