/* emu run --compare on the simulator backend (no root, a second): the table
 * says what the compared runs' results say, the compared runs replay the
 * same jobs, comparing changes no run's results, and a bad entry stops
 * everything before any run. */
#include "tree_fixture.h"
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64], repo[512], emu[600];

static void setup(void)
{
	tf_setup(root, sizeof root, "/tmp/emu-compare-XXXXXX", repo, sizeof repo, emu, sizeof emu);
}

static void teardown(void)
{
	tf_teardown(root);
}

TestSuite(compare, .init = setup, .fini = teardown);

/* JobPacker on the tiny fabric with jobs whose shuffles are circuit-sized,
 * so that the rows differ in their OCS columns too. */
#define TINY_JOBS "--topology %s/topologies/tiny.conf --scheduler jobpacker --slowstart 0.7 --jobs 6 --seed 4 " \
		  "--min-shuffle 1GB --max-maps 6 --elephant 2MB --ocs-reconfig early"

/* emu run --backend sim `args` with results in root/res; output in root/<log>.
 * Returns the exit status. */
static int emu_run(const char *args, const char *log)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run --backend sim --results '%s/res' %s > '%s/%s' 2>&1", repo, emu,
		 root, args, root, log);
	int rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* tiny without its OCS, its EPS as fast as the circuits were (an F-EPS). */
static void write_tiny_eps(char *path, size_t size)
{
	snprintf(path, size, "%s/tiny-eps.conf", root);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("name = \"tiny-eps\";\nracks = 3;\nservers_per_rack = 2;\nserver = { rate = \"100Mbit\"; };\n"
	      "eps = { uplink_rate = \"200Mbit\"; };\nocs = { enabled = false; };\n", f);
	fclose(f);
}

static json_t *summary_of(const char *dir)
{
	char path[600];
	json_error_t je;
	snprintf(path, sizeof path, "%s/summary.json", dir);
	json_t *s = json_load_file(path, 0, &je);
	cr_assert_not_null(s, "%s: %s", path, je.text);
	return s;
}

/* A number at "a" or "a.b" in a summary. */
static double jnum(json_t *s, const char *key)
{
	char a[64];
	const char *dot = strchr(key, '.');
	json_t *v = s;
	if (dot) {
		snprintf(a, sizeof a, "%.*s", (int)(dot - key), key);
		v = json_object_get(v, a);
		key = dot + 1;
	}
	v = json_object_get(v, key);
	cr_assert(json_is_number(v), "no number %s", key);
	return json_number_value(v);
}

/* The jobs of a run's jobs.csv, without what the run made of them: per job
 * its name, submission, tasks and bytes; also their count and shuffle. */
static char *jobs_of(const char *dir, int *njobs, unsigned long long *shuffle)
{
	char path[600];
	snprintf(path, sizeof path, "%s/jobs.csv", dir);
	struct csv *c = csv_read(path);
	char *sig = calloc(1, 1 << 16);
	*njobs = c->nrow;
	*shuffle = 0;
	for (int i = 0; i < c->nrow; i++) {
		*shuffle += strtoull(csv_get(c, i, "shuffle_bytes"), NULL, 10);
		size_t at = strlen(sig);
		snprintf(sig + at, (1 << 16) - at, "%s %s %s %s %s %s %s\n", csv_get(c, i, "name"), csv_get(c, i, "submit_s"),
			 csv_get(c, i, "maps"), csv_get(c, i, "reduces"), csv_get(c, i, "input_bytes"),
			 csv_get(c, i, "shuffle_bytes"), csv_get(c, i, "output_bytes"));
	}
	csv_free(c);
	return sig;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s missing", path);
	char *b = calloc(1, 1 << 22);
	size_t n = fread(b, 1, (1 << 22) - 1, f);
	b[n] = '\0';
	fclose(f);
	return b;
}

/* Every number of compare.csv is the one in its run's summary.json, the
 * ratios are to this run's scheduler, and the runs are where they are said
 * to be. */
Test(compare, the_table_is_what_each_runs_summary_says)
{
	char eps[600], args[1024], dir[600];
	write_tiny_eps(eps, sizeof eps);
	snprintf(args, sizeof args, TINY_JOBS " --run r --compare fair,fair@%s", repo, eps);
	cr_assert_eq(emu_run(args, "a.log"), 0);
	snprintf(dir, sizeof dir, "%s/res/default/jobpacker/r", root);
	char path[700];
	snprintf(path, sizeof path, "%s/compare.csv", dir);
	struct csv *c = csv_read(path);
	cr_assert_eq(c->nrow, 3, "the run, fair, fair on tiny-eps");
	static const char *const where[3][2] = {
		{"jobpacker", "r"}, {"fair", "r-sim"}, {"fair", "r-sim-tiny-eps"}};
	static const char *const topology[3] = {"tiny", "tiny", "tiny-eps"};
	double used_ocs = 0;
	for (int i = 0; i < c->nrow; i++) {
		char want[600];
		snprintf(want, sizeof want, "%s/res/default/%s/%s", root, where[i][0], where[i][1]);
		cr_assert_str_eq(csv_get(c, i, "results"), want);
		cr_assert_str_eq(csv_get(c, i, "scheduler"), where[i][0]);
		cr_assert_str_eq(csv_get(c, i, "topology"), topology[i]);
		cr_assert_str_eq(csv_get(c, i, "backend"), "sim");
		cr_assert_str_eq(csv_get(c, i, "role"), i ? "compared" : "run");
		json_t *s = summary_of(want);
		cr_assert_eq(csv_num(c, i, "jobs"), jnum(s, "jobs"));
		cr_assert_eq(csv_num(c, i, "jobs_finished"), jnum(s, "jobs_finished"));
		cr_assert_eq(csv_num(c, i, "partial"), json_is_true(json_object_get(s, "partial")));
		static const char *const secs[] = {"makespan_s", "jct_mean_s", "jct_median_s"};
		for (int k = 0; k < 3; k++)
			cr_assert_leq(fabs(csv_num(c, i, secs[k]) - jnum(s, secs[k])), 0.0005, "row %d %s", i, secs[k]);
		cr_assert_eq(csv_num(c, i, "cross_rack_bytes"), jnum(s, "cross_rack_bytes"));
		cr_assert_eq(csv_num(c, i, "ocs_bytes"), jnum(s, "ocs_bytes"));
		cr_assert_leq(fabs(csv_num(c, i, "ocs_share") - jnum(s, "ocs_share")), 5e-7);
		cr_assert_eq(csv_num(c, i, "ocs_reconfigurations"), jnum(s, "ocs.reconfigurations"));
		cr_assert_str_eq(csv_get(c, i, "fidelity"),
				 json_string_value(json_object_get(json_object_get(s, "fidelity"), "verdict")));
		/* Ratios to the first row: this run's scheduler on the simulator. */
		cr_assert_leq(fabs(csv_num(c, i, "makespan_ratio") - csv_num(c, i, "makespan_s") / csv_num(c, 0, "makespan_s")),
			      1e-3);
		used_ocs += csv_num(c, i, "ocs_reconfigurations");
		json_decref(s);
	}
	cr_assert_gt(used_ocs, 0, "some row must have used the circuits, or the OCS columns test nothing");
	cr_assert_eq(csv_num(c, 2, "ocs_bytes"), 0, "tiny-eps has no OCS");
	csv_free(c);
}

Test(compare, the_compared_runs_replay_the_same_jobs)
{
	char args[1024], dir[600];
	snprintf(args, sizeof args, TINY_JOBS " --run r --compare fair,delay", repo);
	cr_assert_eq(emu_run(args, "a.log"), 0);
	static const char *const runs[] = {"jobpacker/r", "fair/r-sim", "delay/r-sim"};
	int n0 = 0;
	unsigned long long sh0 = 0;
	char *sig0 = NULL;
	for (int i = 0; i < 3; i++) {
		int n;
		unsigned long long sh;
		snprintf(dir, sizeof dir, "%s/res/default/%s", root, runs[i]);
		char *sig = jobs_of(dir, &n, &sh);
		if (!i) {
			n0 = n, sh0 = sh, sig0 = sig;
			cr_assert_eq(n0, 6);
			cr_assert_gt(sh0, 0);
			continue;
		}
		cr_assert_eq(n, n0, "%s", runs[i]);
		cr_assert_eq(sh, sh0, "%s", runs[i]);
		cr_assert_str_eq(sig, sig0, "%s", runs[i]);
		free(sig);
	}
	free(sig0);
}

/* The run and each compared run give what they give made alone: comparing
 * changes no run's results. */
Test(compare, comparing_changes_no_runs_results)
{
	char args[1024];
	snprintf(args, sizeof args, TINY_JOBS " --run r --compare fair", repo);
	cr_assert_eq(emu_run(args, "a.log"), 0);
	snprintf(args, sizeof args, TINY_JOBS " --run alone", repo);
	cr_assert_eq(emu_run(args, "b.log"), 0);
	snprintf(args, sizeof args, TINY_JOBS " --run alone --scheduler fair", repo);
	cr_assert_eq(emu_run(args, "c.log"), 0);
	static const char *const pairs[][2] = {{"jobpacker/r", "jobpacker/alone"}, {"fair/r-sim", "fair/alone"}};
	static const char *const files[] = {"jobs.csv", "tasks.csv", "flows.csv", "ocs.csv"};
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 4; k++) {
			char a[700], b[700];
			snprintf(a, sizeof a, "%s/res/default/%s/%s", root, pairs[i][0], files[k]);
			snprintf(b, sizeof b, "%s/res/default/%s/%s", root, pairs[i][1], files[k]);
			char *x = slurp(a), *y = slurp(b);
			cr_assert_str_eq(x, y, "%s differs from %s", a, b);
			free(x);
			free(y);
		}
}

/* On the simulator the run is its own twin: comparing with its own
 * scheduler adds no row and no run. */
Test(compare, a_simulated_run_is_not_made_twice)
{
	char args[1024], path[700];
	snprintf(args, sizeof args, TINY_JOBS " --run r --compare jobpacker,fair,fair", repo);
	cr_assert_eq(emu_run(args, "a.log"), 0);
	snprintf(path, sizeof path, "%s/res/default/jobpacker/r/compare.csv", root);
	struct csv *c = csv_read(path);
	cr_assert_eq(c->nrow, 2);
	cr_assert_str_eq(csv_get(c, 1, "scheduler"), "fair");
	snprintf(path, sizeof path, "%s/res/default/jobpacker/r-sim", root);
	cr_assert_neq(access(path, F_OK), 0, "%s: the run itself, made again", path);
	csv_free(c);
}

/* A bad entry exits 2 naming it, before any run: no results at all. */
Test(compare, a_bad_entry_stops_everything_before_any_run)
{
	static const char *const bad[][2] = {
		{"fair,no-such-scheduler", "'no-such-scheduler'"},
		{"fair@/nonexistent/topology.conf", "/nonexistent/topology.conf"},
		{",", "--compare"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char args[1024], path[600];
		snprintf(args, sizeof args, TINY_JOBS " --run r --compare '%s'", repo, bad[i][0]);
		cr_assert_eq(emu_run(args, "bad.log"), 2, "--compare %s", bad[i][0]);
		snprintf(path, sizeof path, "%s/bad.log", root);
		char *log = slurp(path);
		cr_assert(strstr(log, bad[i][1]), "--compare %s: the error must name %s:\n%s", bad[i][0], bad[i][1], log);
		free(log);
		snprintf(path, sizeof path, "%s/res", root);
		cr_assert_neq(access(path, F_OK), 0, "--compare %s left results behind", bad[i][0]);
	}
}

/* A compared run that cannot be made (here its results directory cannot
 * be) leaves its row out, the others stay, and the exit status says so. */
Test(compare, a_compared_run_that_fails_is_left_out_and_the_exit_says_so)
{
	char args[1024], path[700];
	snprintf(path, sizeof path, "%s/res", root);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/res/default", root);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/res/default/fair", root);
	FILE *f = fopen(path, "w");   /* a file where fair's runs would go */
	cr_assert_not_null(f);
	fclose(f);
	snprintf(args, sizeof args, TINY_JOBS " --run r --compare fair,delay", repo);
	cr_assert_eq(emu_run(args, "a.log"), 1);
	snprintf(path, sizeof path, "%s/res/default/jobpacker/r/compare.csv", root);
	struct csv *c = csv_read(path);
	cr_assert_eq(c->nrow, 2, "the run and delay");
	cr_assert_str_eq(csv_get(c, 0, "scheduler"), "jobpacker");
	cr_assert_str_eq(csv_get(c, 1, "scheduler"), "delay");
	csv_free(c);
}
