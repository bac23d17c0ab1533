/* The Chapter 4 study (experiments/jobpacker): its reports and its script.
 *
 * The reports (report.py, and report_sim.py behind `report.py --sim`) run over
 * the small fixed results trees in tests/data/jobpacker/ (its make.sh made them
 * with run.sh on the simulator).  What is checked is the data the reports are
 * made of: every table is also a CSV, and its numbers must be the runs' own
 * (summary.json, read with jansson; jobs.csv, tasks.csv, flows.csv and the
 * plans), means and quotients of the right runs, bytes accounted for, and a
 * value that cannot be computed written "–", never "nan".
 *
 * run.sh (the simulator backend: no root) is checked with --list and with tiny
 * runs of two or three jobs: a finished run is reused only when made with the
 * same arguments, the options reach every run, and a study's runs and reports go
 * where the user expects them. */
#include "tree_fixture.h"
#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64], repo[512], emu[600];

static void setup(void)
{
	tf_setup(root, sizeof root, "/tmp/emu-experiments-XXXXXX", repo, sizeof repo, emu, sizeof emu);
}

static void teardown(void)
{
	tf_teardown(root);
}

TestSuite(experiments, .init = setup, .fini = teardown);

static bool close_to(double a, double b)
{
	return fabs(a - b) <= 1e-6 * fmax(1, fabs(b));
}

#define assert_close(a, b, ...) cr_assert(close_to((a), (b)), __VA_ARGS__)

/* ------------------------------------------------------------------ files */

/* The text of root/name (up to 1 MB), in a buffer the next call reuses. */
static const char *file_text(const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, name);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s missing", path);
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static bool file_has(const char *name, const char *text)
{
	return strstr(file_text(name), text) != NULL;
}

static bool exists(const char *name)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", root, name);
	return access(path, F_OK) == 0;
}

/* How many lines of root/name contain `text`. */
static int lines_with(const char *name, const char *text)
{
	int n = 0;
	char *copy = strdup(file_text(name)), *save;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		n += strstr(l, text) != NULL;
	free(copy);
	return n;
}

/* ------------------------------------------------------------------ CSV */

static struct csv *csv_out(const char *fmt, ...)
{
	char name[256], path[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	snprintf(path, sizeof path, "%s/%s", root, name);
	return csv_read(path);
}

static int csv_must_row(const struct csv *c, const char *col, const char *value)
{
	int r = csv_find(c, col, value, NULL, NULL);
	cr_assert_geq(r, 0, "no row with %s = %s", col, value);
	return r;
}

/* ------------------------------------------------------------------ the fixed trees */

static const char *const SYSTEMS[] = {"JobPacker", "F-Hybrid", "Corral", "F-EPS"};
static const int SEEDS[] = {4, 5}; /* the fixtures' seeds */

static const char *sched_of(const char *sys)
{
	return !strcmp(sys, "JobPacker") ? "jobpacker" : !strcmp(sys, "Corral") ? "corral" : "fair";
}

/* A GENI-scale tree: the repository's fixture (NULL) or a copy under root. */
static const char *tree_dir(const char *copy)
{
	static char path[600];
	if (copy)
		snprintf(path, sizeof path, "%s/%s", root, copy);
	else
		snprintf(path, sizeof path, "%s/tests/data/jobpacker/geni", repo);
	return path;
}

/* Copy the fixture `which` (geni, paper) to root/<to>. */
static void copy_fixture(const char *which, const char *to)
{
	cr_assert_eq(tf_sh("cp -r '%s/tests/data/jobpacker/%s' '%s/%s'", repo, which, root, to), 0);
}

/* report.py over a GENI tree (NULL: the fixture; else root/<copy>) into root/<out>, with
 * `extra` arguments; fails the test unless it exits 0. */
static void report(const char *copy, const char *out, const char *extra)
{
	char tree[600];
	snprintf(tree, sizeof tree, "%s", tree_dir(copy));
	cr_assert_eq(tf_sh("python3 '%s/experiments/jobpacker/report.py' '%s/jobpacker-sim-geni' '%s/%s' --plans '%s/plans' "
			"%s > '%s/%s.log' 2>&1",
			repo, tree, root, out, tree, extra, root, out),
		     0, "report.py failed (see %s/%s.log)", root, out);
}

/* A run's directory in a GENI tree, or in the paper fixture (exp "jobpacker-sim"). */
static const char *run_dir(const char *tree, const char *exp, const char *sc, const char *sys, int seed)
{
	static char path[700];
	snprintf(path, sizeof path, "%s/%s/%s/%s-%s-s%d", tree, exp, sched_of(sys), sc, sys, seed);
	return path;
}

static const char *geni_run(const char *copy, const char *sc, const char *sys, int seed)
{
	return run_dir(tree_dir(copy), "jobpacker-sim-geni", sc, sys, seed);
}

static json_t *summary_of(const char *dir)
{
	char path[800];
	json_error_t err;
	snprintf(path, sizeof path, "%s/summary.json", dir);
	json_t *j = json_load_file(path, 0, &err);
	cr_assert_not_null(j, "%s: %s", path, err.text);
	return j;
}

/* A number of a run's summary.json: "key" or "key.sub" (one level down). */
static double summary_num(const char *dir, const char *key)
{
	json_t *j = summary_of(dir), *v = j;
	char k[128];
	snprintf(k, sizeof k, "%s", key);
	for (char *save, *p = strtok_r(k, ".", &save); p; p = strtok_r(NULL, ".", &save))
		v = json_object_get(v, p);
	cr_assert(json_is_number(v), "%s/summary.json: no number %s", dir, key);
	double x = json_number_value(v);
	json_decref(j);
	return x;
}

static struct csv *run_file(const char *dir, const char *file)
{
	char path[800];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	return csv_read(path);
}

/* ------------------------------------------------------------------ statistics */

/* The median of v[0..n) as statistics.median (the mean of the middle two of an even
 * count); sorts v. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	cr_assert_gt(n, 0, "a median of nothing");
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* What a job's span is: its JCT, its wait from arrival to its first container, its run
 * from there to its end. */
enum span { SPAN_JCT, SPAN_WAIT, SPAN_RUN };

/* Append to v the spans of the finished jobs of class rec (1 recurring, 0 ad hoc, -1 all) in
 * the run at dir; returns the new count.  rec_share (if not NULL): the share of the
 * workload's shuffle bytes its recurring jobs hold. */
static int spans(const char *dir, int rec, enum span what, double *v, int n, double *rec_share)
{
	struct csv *j = run_file(dir, "jobs.csv");
	double all = 0, recurring = 0;
	for (int r = 0; r < j->nrow; r++) {
		double shuffle = csv_num(j, r, "shuffle_bytes");
		int is_rec = atoi(csv_get(j, r, "recurring"));
		all += shuffle;
		recurring += is_rec ? shuffle : 0;
		if (atoi(csv_get(j, r, "finished")) != 1 || (rec >= 0 && is_rec != rec))
			continue;
		double submit = csv_num(j, r, "submit_s"), start = csv_num(j, r, "start_s"), end = csv_num(j, r, "end_s");
		v[n++] = what == SPAN_WAIT ? start - submit : what == SPAN_RUN ? end - start : csv_num(j, r, "jct_s");
	}
	csv_free(j);
	if (rec_share)
		*rec_share = all > 0 ? recurring / all : NAN;
	return n;
}

/* The median JCT of class rec pooled over the runs of a scenario and system for the seeds
 * `seeds` (nseeds of them) in a GENI tree. */
static double pooled_median(const char *copy, const char *sc, const char *sys, int rec, const int *seeds, int nseeds)
{
	static double v[8192];
	int n = 0;
	for (int s = 0; s < nseeds; s++)
		n = spans(geni_run(copy, sc, sys, seeds[s]), rec, SPAN_JCT, v, n, NULL);
	return median(v, n);
}

static double mean_summary(const char *copy, const char *sc, const char *sys, const char *key)
{
	double sum = 0;
	for (int s = 0; s < 2; s++)
		sum += summary_num(geni_run(copy, sc, sys, SEEDS[s]), key);
	return sum / 2;
}

/* ================================================================== the GENI report */

Test(experiments, report_batch_numbers_are_the_runs_means_and_their_quotients)
{
	report(NULL, "out", "");
	struct csv *b = csv_out("out/batch.csv");
	cr_assert_eq(b->nrow, 4);
	double fh = mean_summary(NULL, "batch", "F-Hybrid", "makespan_s");
	for (int i = 0; i < 4; i++) {
		int r = csv_must_row(b, "system", SYSTEMS[i]);
		double mk = mean_summary(NULL, "batch", SYSTEMS[i], "makespan_s");
		assert_close(csv_num(b, r, "makespan_s"), mk, "%s: makespan", SYSTEMS[i]);
		assert_close(csv_num(b, r, "makespan_norm"), mk / fh, "%s: ÷ F-Hybrid", SYSTEMS[i]);
		assert_close(csv_num(b, r, "ocs_share"), mean_summary(NULL, "batch", SYSTEMS[i], "ocs_share"), "%s", SYSTEMS[i]);
		cr_assert_eq(csv_num(b, r, "reps"), 2);
		/* ÷ compute bound: the makespan over every task's compute spread over the servers used. */
		double q = 0;
		for (int s = 0; s < 2; s++) {
			const char *dir = geni_run(NULL, "batch", SYSTEMS[i], SEEDS[s]);
			struct csv *t = run_file(dir, "tasks.csv.gz");
			double work = 0;
			bool used[4096] = {false};
			int servers = 0;
			for (int k = 0; k < t->nrow; k++) {
				work += csv_num(t, k, "duration_s");
				int sv = atoi(csv_get(t, k, "server"));
				if (sv >= 0 && sv < 4096 && !used[sv]) {
					used[sv] = true;
					servers++;
				}
			}
			csv_free(t);
			q += summary_num(dir, "makespan_s") / (work / servers) / 2;
		}
		assert_close(csv_num(b, r, "compute_bound_ratio"), q, "%s: ÷ compute bound", SYSTEMS[i]);
	}
	csv_free(b);
	/* Online: the median of the seeds' jobs pooled, ÷ F-Hybrid's. */
	struct csv *o = csv_out("out/online.csv");
	double fho = pooled_median(NULL, "online", "F-Hybrid", -1, SEEDS, 2);
	for (int i = 0; i < 4; i++) {
		int r = csv_must_row(o, "system", SYSTEMS[i]);
		double md = pooled_median(NULL, "online", SYSTEMS[i], -1, SEEDS, 2);
		assert_close(csv_num(o, r, "median_jct_s"), md, "%s: online median", SYSTEMS[i]);
		assert_close(csv_num(o, r, "median_norm"), md / fho, "%s: online ÷ F-Hybrid", SYSTEMS[i]);
	}
	csv_free(o);
	/* Mixed: each class's pooled median, ÷ F-Hybrid's. */
	struct csv *m = csv_out("out/mixed.csv");
	for (int i = 0; i < 4; i++) {
		int r = csv_must_row(m, "system", SYSTEMS[i]);
		double rec = pooled_median(NULL, "mixed", SYSTEMS[i], 1, SEEDS, 2);
		double adhoc = pooled_median(NULL, "mixed", SYSTEMS[i], 0, SEEDS, 2);
		assert_close(csv_num(m, r, "median_recurring_s"), rec, "%s", SYSTEMS[i]);
		assert_close(csv_num(m, r, "norm_recurring"), rec / pooled_median(NULL, "mixed", "F-Hybrid", 1, SEEDS, 2), "%s",
			     SYSTEMS[i]);
		assert_close(csv_num(m, r, "norm_adhoc"), adhoc / pooled_median(NULL, "mixed", "F-Hybrid", 0, SEEDS, 2), "%s",
			     SYSTEMS[i]);
	}
	csv_free(m);
}

/* The direction table: a claim's number is the quotient of the systems' means over every
 * seed; it holds or not by the paper's direction; per seed and over resamples of the seeds
 * it holds as often as the seeds alone do; the tally counts the table's rows. */
Test(experiments, report_claims_follow_the_seeds_and_their_resamples)
{
	report(NULL, "out", "");
	struct csv *c = csv_out("out/claims.csv");
	cr_assert_eq(c->nrow, 13, "13 claims, not %d", c->nrow);
	double jp = mean_summary(NULL, "batch", "JobPacker", "makespan_s");
	const char *vs[] = {"F-Hybrid", "Corral", "F-EPS"}, *id[] = {"batch_fhybrid", "batch_corral", "batch_feps"};
	for (int k = 0; k < 3; k++) {
		int r = csv_must_row(c, "id", id[k]);
		double q = jp / mean_summary(NULL, "batch", vs[k], "makespan_s");
		assert_close(csv_num(c, r, "ours"), q, "%s", id[k]);
		cr_assert_eq(csv_num(c, r, "holds"), k < 2 ? q < 1 : fabs(q - 1) <= 0.05, "%s", id[k]);
	}
	int r = csv_must_row(c, "id", "online_feps");
	double q = pooled_median(NULL, "online", "JobPacker", -1, SEEDS, 2) /
		   pooled_median(NULL, "online", "F-EPS", -1, SEEDS, 2);
	assert_close(csv_num(c, r, "ours"), q, "online ÷ F-EPS");
	cr_assert_eq(csv_num(c, r, "holds"), fabs(q - 1) <= 0.1);
	/* Two seeds: a resample is seed 4 twice, seed 5 twice or one of each.  JobPacker's batch
	 * OCS share is the mean over the resample, so its 5th-95th percentile is exactly [the
	 * lower seed's share, the higher's], and it holds (> 0.5) per seed as the seeds' do. */
	double sh[2];
	for (int s = 0; s < 2; s++)
		sh[s] = summary_num(geni_run(NULL, "batch", "JobPacker", SEEDS[s]), "ocs_share");
	cr_assert(fabs(sh[0] - sh[1]) > 0.01, "the seeds must differ for the test to mean anything");
	r = csv_must_row(c, "id", "batch_ocs");
	assert_close(csv_num(c, r, "resampled_lo"), fmin(sh[0], sh[1]), "5th percentile");
	assert_close(csv_num(c, r, "resampled_hi"), fmax(sh[0], sh[1]), "95th percentile");
	cr_assert_eq(csv_num(c, r, "seeds_holding"), (sh[0] > 0.5) + (sh[1] > 0.5));
	/* How often each claim holds over the resamples: always when both seeds alone agree
	 * with the paper, never when neither does, sometimes when one does; settled when 95% or
	 * more of the resamples agree. */
	int yes = 0, no = 0, open = 0, hold = 0;
	for (r = 0; r < c->nrow; r++) {
		double agree = csv_num(c, r, "seeds_holding"), f = csv_num(c, r, "resampled_holds");
		const char *what = csv_get(c, r, "id");
		cr_assert_eq(csv_num(c, r, "seeds"), 2, "%s", what);
		if (agree == 2)
			cr_assert_eq(f, 1, "%s: both seeds agree, yet %g", what, f);
		else if (agree == 0)
			cr_assert_eq(f, 0, "%s: neither seed agrees, yet %g", what, f);
		else
			cr_assert(f > 0 && f < 1, "%s: one seed agrees, yet %g", what, f);
		const char *st = csv_get(c, r, "settled");
		cr_assert_str_eq(st, f >= 0.95 ? "yes" : f <= 0.05 ? "no" : "not settled", "%s", what);
		yes += f >= 0.95;
		no += f <= 0.05;
		open += f > 0.05 && f < 0.95;
		hold += csv_num(c, r, "holds") == 1;
	}
	csv_free(c);
	struct csv *t = csv_out("out/tally.csv");
	cr_assert_eq(t->nrow, 1, "no twin: one study");
	cr_assert_eq(csv_num(t, 0, "claims"), 13);
	cr_assert_eq(csv_num(t, 0, "hold"), hold);
	cr_assert(csv_num(t, 0, "settled_hold") == yes && csv_num(t, 0, "settled_miss") == no &&
		  csv_num(t, 0, "not_settled") == open);
	csv_free(t);
}

Test(experiments, report_pairs_twin_runs_of_the_same_setup_only)
{
	/* A study beside itself: every pair agrees exactly, and the twin's claims are ours. */
	char twin[700];
	snprintf(twin, sizeof twin, "--twin '%s/jobpacker-sim-geni'", tree_dir(NULL));
	report(NULL, "self", twin);
	struct csv *t = csv_out("self/twin.csv");
	cr_assert_eq(t->nrow, 3, "batch, online, mixed");
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 4; i++) {
			char col[64];
			snprintf(col, sizeof col, "%s_mean", SYSTEMS[i]);
			cr_assert_eq(csv_num(t, r, col), 1, "%s %s", csv_get(t, r, "scenario"), col);
			snprintf(col, sizeof col, "%s_pairs", SYSTEMS[i]);
			cr_assert_eq(csv_num(t, r, col), 2);
		}
	csv_free(t);
	t = csv_out("self/twin_summary.csv");
	cr_assert(csv_num(t, 0, "pairs") == 24 && csv_num(t, 0, "max_deviation") == 0);
	csv_free(t);
	struct csv *c = csv_out("self/claims.csv");
	for (int r = 0; r < c->nrow; r++) {
		cr_assert_eq(csv_num(c, r, "twin_same"), csv_num(c, r, "ours"), "%s", csv_get(c, r, "id"));
		cr_assert_eq(csv_num(c, r, "twin_all"), csv_num(c, r, "ours"), "%s", csv_get(c, r, "id"));
	}
	csv_free(c);
	/* A twin whose runs have other jobs per run: no twin at all. */
	copy_fixture("geni", "other");
	cr_assert_eq(tf_sh("sed -i 's/\"jobs\": 8,/\"jobs\": 9,/' '%s'/other/jobpacker-sim-geni/*/*/summary.json", root), 0);
	snprintf(twin, sizeof twin, "--twin '%s/other/jobpacker-sim-geni'", root);
	report(NULL, "mixed", twin);
	cr_assert_not(exists("mixed/twin.csv"));
	c = csv_out("mixed/claims.csv");
	cr_assert_lt(csv_col(c, "twin_same"), 0, "twin columns for a twin of another setup");
	csv_free(c);
	t = csv_out("mixed/tally.csv");
	cr_assert_eq(t->nrow, 1);
	csv_free(t);
}

/* Edit the summary of run <sc>-<sys>-s<seed> in the tree root/<copy> with a Python statement
 * on `s` (the summary, as a dict). */
static void edit_summary(const char *copy, const char *sc, const char *sys, int seed, const char *py)
{
	cr_assert_eq(tf_sh("python3 -c 'import json,sys; p=sys.argv[1]+\"/summary.json\"; s=json.load(open(p)); %s; "
			"json.dump(s, open(p, \"w\"), indent=2)' '%s'",
			py, geni_run(copy, sc, sys, seed)),
		     0);
}

Test(experiments, report_gives_each_runs_cpu_saturated_seconds_late_maps_and_syns)
{
	/* A simulated study has no CPU to saturate, no late maps, no SYNs: no such columns. */
	report(NULL, "sim", "");
	struct csv *f = csv_out("sim/fidelity.csv");
	cr_assert_eq(f->nrow, 27, "every run: %d", f->nrow);
	cr_assert(csv_col(f, "cpu_saturated") < 0 && csv_col(f, "maps_late_s") < 0 && csv_col(f, "syn_retransmits") < 0);
	cr_assert_str_eq(csv_get(f, 0, "verdict"), "simulated");
	csv_free(f);
	/* One run as if the emulator's monitor had found 3 of its 10 seconds saturated, its
	 * node-local maps 50 ms late and its servers had sent 7 SYNs again. */
	copy_fixture("geni", "t");
	edit_summary("t", "batch", "JobPacker", 4, "s[\"fidelity\"][\"samples\"]=10; s[\"fidelity\"][\"cpu_saturated_samples\"]=3");
	report("t", "hot", "");
	f = csv_out("hot/fidelity.csv");
	cr_assert(csv_col(f, "maps_late_s") < 0 && csv_col(f, "syn_retransmits") < 0);
	for (int r = 0; r < f->nrow; r++)
		cr_assert_eq(csv_num(f, r, "cpu_saturated"), !strcmp(csv_get(f, r, "run"), "batch-JobPacker-s4") ? 0.3 : 0,
			     "%s", csv_get(f, r, "run"));
	csv_free(f);
	/* The mean over each system's runs: JobPacker's eight runs, one of them 30%. */
	f = csv_out("hot/fidelity_systems.csv");
	int r = csv_must_row(f, "system", "JobPacker");
	cr_assert_eq(csv_num(f, r, "runs"), 8);
	assert_close(csv_num(f, r, "cpu_saturated"), 0.3 / 8, "JobPacker's mean");
	cr_assert_eq(csv_num(f, csv_must_row(f, "system", "Corral"), "cpu_saturated"), 0);
	csv_free(f);
	edit_summary("t", "batch", "JobPacker", 4,
		     "s[\"fidelity\"][\"task_lateness\"]={\"tasks\": 9, \"mean_s\": 0.05, \"p90_s\": 0.1, \"max_s\": 0.2, "
		     "\"share_of_compute\": 0.106}; s[\"emu\"]={\"tcp\": {\"syn_retransmits\": 7, \"timeouts\": 1, "
		     "\"delayed_acks\": 2}}");
	report("t", "late", "");
	f = csv_out("late/fidelity.csv");
	for (r = 0; r < f->nrow; r++) {
		bool it = !strcmp(csv_get(f, r, "run"), "batch-JobPacker-s4");
		double late = csv_num(f, r, "maps_late_s"), share = csv_num(f, r, "maps_late_share"),
		       syn = csv_num(f, r, "syn_retransmits");
		if (it)
			cr_assert(late == 0.05 && share == 0.106 && syn == 7, "%g %g %g", late, share, syn);
		else
			cr_assert(isnan(late) && isnan(share) && isnan(syn), "%s: %g %g %g", csv_get(f, r, "run"), late, share,
				  syn);
	}
	csv_free(f);
	f = csv_out("late/fidelity_systems.csv");
	assert_close(csv_num(f, csv_must_row(f, "system", "JobPacker"), "maps_late_s"), 0.05, "the runs that have one");
	cr_assert(isnan(csv_num(f, csv_must_row(f, "system", "Corral"), "maps_late_s")));
	csv_free(f);
}

/* The setup table gives the parameters as the runs recorded them. */
Test(experiments, report_records_the_setup_the_runs_recorded)
{
	copy_fixture("geni", "t");
	report("t", "a", "");
	struct csv *s = csv_out("a/setup.csv");
	cr_assert_str_eq(csv_get(s, csv_must_row(s, "parameter", "OCS mode"), "value"), "hold");
	cr_assert_str_eq(csv_get(s, csv_must_row(s, "parameter", "copiers per reduce"), "value"), "5");
	cr_assert_str_eq(csv_get(s, csv_must_row(s, "parameter", "seeds"), "value"), "4 5");
	cr_assert_str_eq(csv_get(s, csv_must_row(s, "parameter", "most maps per job (0: as drawn)"), "value"), "40");
	cr_assert_str_eq(csv_get(s, csv_must_row(s, "parameter", "OCS delta (s)"), "value"), "0.01 / 0.02");
	csv_free(s);
	cr_assert_eq(tf_sh("sed -i -e 's/\"ocs_mode\": \"hold\"/\"ocs_mode\": \"fallback\"/' -e 's/\"copiers\": 5,/\"copiers\": 8,/' "
			"'%s'/t/jobpacker-sim-geni/*/*/summary.json",
			root),
		     0);
	report("t", "b", "");
	s = csv_out("b/setup.csv");
	cr_assert_str_eq(csv_get(s, csv_must_row(s, "parameter", "OCS mode"), "value"), "fallback");
	cr_assert_str_eq(csv_get(s, csv_must_row(s, "parameter", "copiers per reduce"), "value"), "8");
	csv_free(s);
}

/* The fixture has the load sweep's rate 2 for JobPacker and F-EPS, seed 4. */
Test(experiments, report_gives_the_online_median_against_the_arrival_rate)
{
	report(NULL, "out", "");
	struct csv *l = csv_out("out/load.csv");
	cr_assert_eq(l->nrow, 2, "rates 2 and 1");
	int r2 = csv_must_row(l, "rate", "2"), r1 = csv_must_row(l, "rate", "1");
	const int s4[] = {4};
	double jp = pooled_median(NULL, "load2", "JobPacker", -1, s4, 1), fe = pooled_median(NULL, "load2", "F-EPS", -1, s4, 1);
	cr_assert_str_eq(csv_get(l, r2, "backend"), "sim");
	cr_assert_eq(csv_num(l, r2, "runs"), 1);
	assert_close(csv_num(l, r2, "median_jct_JobPacker"), jp, "JobPacker at 2x");
	assert_close(csv_num(l, r2, "jp_over_feps"), jp / fe, "÷ F-EPS at 2x");
	cr_assert(isnan(csv_num(l, r2, "jp_over_fhybrid")) && isnan(csv_num(l, r2, "feps_over_fhybrid")),
		  "no F-Hybrid runs at 2x");
	/* F-EPS busy: the share of the containers' time its tasks held them. */
	const char *dir = geni_run(NULL, "load2", "F-EPS", 4);
	struct csv *t = run_file(dir, "tasks.csv.gz");
	double busy = 0;
	bool used[4096] = {false};
	int servers = 0;
	for (int k = 0; k < t->nrow; k++) {
		const char *a = csv_get(t, k, "start_s"), *b = csv_get(t, k, "end_s");
		if (*a && *b)
			busy += atof(b) - atof(a);
		int sv = atoi(csv_get(t, k, "server"));
		if (sv >= 0 && sv < 4096 && !used[sv]) {
			used[sv] = true;
			servers++;
		}
	}
	csv_free(t);
	assert_close(csv_num(l, r2, "feps_busy_share"), busy / (servers * summary_num(dir, "makespan_s")), "F-EPS busy");
	/* Rate 1 is the online scenario, all its seeds. */
	cr_assert_eq(csv_num(l, r1, "runs"), 2);
	assert_close(csv_num(l, r1, "median_jct_JobPacker"), pooled_median(NULL, "online", "JobPacker", -1, SEEDS, 2), "x1");
	assert_close(csv_num(l, r1, "feps_over_fhybrid"),
		     pooled_median(NULL, "online", "F-EPS", -1, SEEDS, 2) / pooled_median(NULL, "online", "F-Hybrid", -1, SEEDS, 2),
		     "x1: F-EPS ÷ F-Hybrid");
	csv_free(l);
}

Test(experiments, report_shows_how_each_seed_split_the_mixed_shuffle)
{
	report(NULL, "out", "");
	struct csv *m = csv_out("out/mixed_seeds.csv");
	cr_assert_eq(m->nrow, 2);
	for (int s = 0; s < 2; s++) {
		char seed[8];
		snprintf(seed, sizeof seed, "%d", SEEDS[s]);
		int r = csv_must_row(m, "seed", seed);
		static double v[4096];
		double share;
		spans(geni_run(NULL, "mixed", "F-Hybrid", SEEDS[s]), -1, SPAN_JCT, v, 0, &share);
		cr_assert(share > 0 && share < 1, "seed %d should split its shuffle between the halves (%g)", SEEDS[s], share);
		assert_close(csv_num(m, r, "recurring_shuffle_share"), share, "seed %d", SEEDS[s]);
		for (int rec = 1; rec >= 0; rec--) {
			double q = pooled_median(NULL, "mixed", "JobPacker", rec, &SEEDS[s], 1) /
				   pooled_median(NULL, "mixed", "F-Hybrid", rec, &SEEDS[s], 1);
			assert_close(csv_num(m, r, rec ? "jp_over_fhybrid_recurring" : "jp_over_fhybrid_adhoc"), q, "seed %d", SEEDS[s]);
		}
	}
	csv_free(m);
}

/* The latest planned end in a plan (option plan_log, the list's `end` column), and per
 * job id whether it is planned shuffle-heavy (1), not (0) or not planned (-1). */
static double read_plan(int seed, int heavy[256])
{
	char path[700], line[512];
	snprintf(path, sizeof path, "%s/plans/batch-JobPacker-s%d.plan", tree_dir(NULL), seed);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s missing", path);
	for (int j = 0; j < 256; j++)
		heavy[j] = -1;
	double last = -1, start, end;
	int pos, id, sub, sh, rm, rr;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%d job%d %d %d %d %d %lf %lf", &pos, &id, &sub, &sh, &rm, &rr, &start, &end) == 8) {
			last = fmax(last, end);
			cr_assert(id >= 0 && id < 256);
			heavy[id] = sh;
		}
	fclose(f);
	return last;
}

/* Per finished job of the runs of a scenario and system (seeds 4 and 5), as the report's
 * phases split it: [0] wait, [1] map phase (first container to last map end), [2] shuffle
 * (last map end to the start of the last reduce's compute), [3] reduce (that to the job's
 * end), [4] run; medians into med[5], the wait's 90th percentile into *p90. */
static int phase_medians(const char *sc, const char *sys, double med[5], double *p90)
{
	enum { MAXJ = 256, MAXV = 1024 };
	static double v[5][MAXV];
	int n = 0;
	for (int s = 0; s < 2; s++) {
		const char *dir = geni_run(NULL, sc, sys, SEEDS[s]);
		double last_map[MAXJ], last_red[MAXJ];
		for (int j = 0; j < MAXJ; j++)
			last_map[j] = last_red[j] = -1;
		struct csv *t = run_file(dir, "tasks.csv.gz");
		for (int k = 0; k < t->nrow; k++) {
			int j = atoi(csv_get(t, k, "job"));
			cr_assert(j >= 0 && j < MAXJ);
			if (!*csv_get(t, k, "end_s"))
				continue; /* never ended */
			double end = csv_num(t, k, "end_s");
			if (!strcmp(csv_get(t, k, "kind"), "map"))
				last_map[j] = fmax(last_map[j], end);
			else
				last_red[j] = fmax(last_red[j], end - csv_num(t, k, "duration_s"));
		}
		csv_free(t);
		struct csv *jobs = run_file(dir, "jobs.csv");
		for (int r = 0; r < jobs->nrow; r++) {
			int j = atoi(csv_get(jobs, r, "job"));
			if (atoi(csv_get(jobs, r, "finished")) != 1 || last_map[j] < 0)
				continue;
			double start = csv_num(jobs, r, "start_s"), end = csv_num(jobs, r, "end_s"), me = last_map[j];
			double rs = last_red[j] >= 0 ? last_red[j] : me;
			cr_assert_lt(n, MAXV);
			v[0][n] = start - csv_num(jobs, r, "submit_s");
			v[1][n] = me - start;
			v[2][n] = fmax(0, rs - me);
			v[3][n] = end - fmax(rs, me);
			v[4][n++] = end - start;
		}
		csv_free(jobs);
	}
	cr_assert_gt(n, 0);
	for (int c = 0; c < 5; c++)
		med[c] = median(v[c], n);   /* sorts: v[0] is sorted after */
	*p90 = v[0][(int)(0.9 * (n - 1))];
	return n;
}

Test(experiments, report_puts_jobpackers_plan_beside_its_run_and_splits_the_online_time)
{
	report(NULL, "out", "");
	struct csv *p = csv_out("out/plan.csv");
	cr_assert_eq(p->nrow, 3, "two seeds and all");
	double tp = 0, tr = 0, tf = 0;
	int heavy[256];
	for (int s = 0; s < 2; s++) {
		char seed[8];
		snprintf(seed, sizeof seed, "%d", SEEDS[s]);
		int r = csv_must_row(p, "seed", seed);
		double plan = read_plan(SEEDS[s], heavy);
		double run = summary_num(geni_run(NULL, "batch", "JobPacker", SEEDS[s]), "makespan_s");
		double feps = summary_num(geni_run(NULL, "batch", "F-EPS", SEEDS[s]), "makespan_s");
		cr_assert(plan > 0 && run > 0 && feps > 0, "plan %g, run %g, F-EPS %g", plan, run, feps);
		assert_close(csv_num(p, r, "plan_s"), plan, "seed %d: plan", SEEDS[s]);
		assert_close(csv_num(p, r, "run_s"), run, "seed %d: run", SEEDS[s]);
		assert_close(csv_num(p, r, "run_over_plan"), run / plan, "seed %d", SEEDS[s]);
		assert_close(csv_num(p, r, "plan_over_feps"), plan / feps, "seed %d", SEEDS[s]);
		assert_close(csv_num(p, r, "run_over_feps"), run / feps, "seed %d", SEEDS[s]);
		tp += plan;
		tr += run;
		tf += feps;
	}
	int all = csv_must_row(p, "seed", "all");
	assert_close(csv_num(p, all, "run_over_plan"), tr / tp, "all: run ÷ plan");
	assert_close(csv_num(p, all, "plan_over_feps"), tp / tf, "all: plan ÷ F-EPS");
	csv_free(p);
	/* Where the online time goes, from jobs.csv and tasks.csv. */
	struct csv *ph = csv_out("out/phases.csv");
	cr_assert_eq(ph->nrow, 4);
	const char *cols[] = {"wait_s", "maps_s", "shuffle_s", "reduce_s", "run_s"};
	for (int i = 0; i < 4; i++) {
		double med[5], p90;
		int n = phase_medians("online", SYSTEMS[i], med, &p90);
		int r = csv_must_row(ph, "system", SYSTEMS[i]);
		cr_assert_eq(csv_num(ph, r, "jobs"), n, "%s", SYSTEMS[i]);
		for (int c = 0; c < 5; c++)
			assert_close(csv_num(ph, r, cols[c]), med[c], "%s: %s", SYSTEMS[i], cols[c]);
		assert_close(csv_num(ph, r, "wait_p90_s"), p90, "%s: the wait's 90th percentile", SYSTEMS[i]);
	}
	csv_free(ph);
}

/* JobPacker's cross-rack shuffle bytes by the class its plan gives their job: all of them
 * accounted for (flows.csv against the summary), in the class the plan says; and where each
 * system's jobs ran. */
Test(experiments, report_accounts_for_jobpackers_cross_rack_bytes_and_where_jobs_ran)
{
	report(NULL, "out", "");
	struct csv *c = csv_out("out/classes.csv");
	cr_assert_eq(c->nrow, 3);
	double tot_all = 0, heavy_all = 0;
	for (int s = 0; s < 2; s++) {
		int heavy[256];
		read_plan(SEEDS[s], heavy);
		const char *dir = geni_run(NULL, "batch", "JobPacker", SEEDS[s]);
		struct csv *f = run_file(dir, "flows.csv.gz");
		double by[3] = {0, 0, 0}, eligible[2] = {0, 0};   /* heavy, other, not planned */
		for (int k = 0; k < f->nrow; k++) {
			if (strcmp(csv_get(f, k, "kind"), "shuffle") || !strcmp(csv_get(f, k, "src_rack"), csv_get(f, k, "dst_rack")))
				continue;
			int j = atoi(csv_get(f, k, "job")), cls = j >= 0 && j < 256 && heavy[j] >= 0 ? !heavy[j] : 2;
			double n = csv_num(f, k, "bytes");
			by[cls] += n;
			if (cls < 2 && atoi(csv_get(f, k, "circuit_eligible")))
				eligible[cls] += n;
		}
		csv_free(f);
		double tot = by[0] + by[1] + by[2];
		/* Bytes conserved: the flows' cross-rack shuffle bytes are the summary's. */
		assert_close(tot, summary_num(dir, "agent_bytes.shuffle_cross_rack"), "seed %d", SEEDS[s]);
		assert_close(eligible[0] + eligible[1], summary_num(dir, "agent_bytes.circuit_eligible_cross_rack"), "seed %d",
			     SEEDS[s]);
		char seed[8];
		snprintf(seed, sizeof seed, "%d", SEEDS[s]);
		int r = csv_must_row(c, "seed", seed);
		assert_close(csv_num(c, r, "cross_rack_shuffle_bytes"), tot, "seed %d", SEEDS[s]);
		assert_close(csv_num(c, r, "heavy_share"), by[0] / tot, "seed %d", SEEDS[s]);
		assert_close(csv_num(c, r, "other_share"), by[1] / tot, "seed %d", SEEDS[s]);
		cr_assert_eq(csv_num(c, r, "unplanned_share"), 0, "every job of a batch is planned");
		assert_close(csv_num(c, r, "heavy_share") + csv_num(c, r, "other_share") + csv_num(c, r, "unplanned_share"), 1,
			     "seed %d: the shares add up", SEEDS[s]);
		assert_close(csv_num(c, r, "heavy_eligible"), eligible[0] / by[0], "seed %d", SEEDS[s]);
		cr_assert(by[0] > 0 && by[1] > 0, "both classes must cross racks for the test to mean anything");
		tot_all += tot;
		heavy_all += by[0];
	}
	int r = csv_must_row(c, "seed", "all");
	assert_close(csv_num(c, r, "cross_rack_shuffle_bytes"), tot_all, "all");
	assert_close(csv_num(c, r, "heavy_share"), heavy_all / tot_all, "all");
	csv_free(c);
	/* Where the jobs ran: Corral's jobs in one rack (tasks.csv), its shuffle bytes across racks
	 * (flows.csv, the summary's); F-Hybrid's runs in the fixture keep no flows. */
	struct csv *p = csv_out("out/placement.csv");
	int jobs = 0, one = 0;
	double shuffle = 0, cross = 0;
	for (int s = 0; s < 2; s++) {
		const char *dir = geni_run(NULL, "batch", "Corral", SEEDS[s]);
		unsigned racks[256] = {0};
		struct csv *t = run_file(dir, "tasks.csv.gz");
		for (int k = 0; k < t->nrow; k++) {
			int j = atoi(csv_get(t, k, "job")), rack = atoi(csv_get(t, k, "rack"));
			cr_assert(j >= 0 && j < 256 && rack < 32);
			if (rack >= 0)
				racks[j] |= 1u << rack;
		}
		csv_free(t);
		for (int j = 0; j < 256; j++)
			if (racks[j]) {
				jobs++;
				one += !(racks[j] & (racks[j] - 1));
			}
		shuffle += summary_num(dir, "agent_bytes.shuffle_network");
		cross += summary_num(dir, "agent_bytes.shuffle_cross_rack");
	}
	cr_assert(one > 0 && one < jobs, "%d of %d jobs in one rack: no test", one, jobs);
	r = csv_must_row(p, "system", "Corral");
	cr_assert(csv_num(p, r, "jobs") == jobs && csv_num(p, r, "one_rack_jobs") == one);
	assert_close(csv_num(p, r, "one_rack_share"), (double)one / jobs, "Corral");
	assert_close(csv_num(p, r, "shuffle_bytes"), shuffle, "Corral's shuffle bytes over the network");
	assert_close(csv_num(p, r, "cross_rack_share"), cross / shuffle, "Corral");
	r = csv_must_row(p, "system", "F-Hybrid");
	cr_assert(isnan(csv_num(p, r, "cross_rack_share")) && csv_num(p, r, "jobs") == 16);
	csv_free(p);
}

Test(experiments, report_fetch_times_are_the_summaries_weighted_means)
{
	report(NULL, "out", "");
	struct csv *f = csv_out("out/fetch.csv");
	const char *cls[] = {"in_rack", "eps", "circuit_eligible"};
	for (int i = 0; i < 4; i++) {
		int r = csv_must_row(f, "system", SYSTEMS[i]);
		for (int k = 0; k < 3; k++) {
			double n = 0, wait = 0, move = 0;
			char key[96];
			for (int s = 0; s < 2; s++) {
				const char *dir = geni_run(NULL, "batch", SYSTEMS[i], SEEDS[s]);
				snprintf(key, sizeof key, "fetch_time.%s", cls[k]);
				json_t *j = summary_of(dir), *o = json_object_get(json_object_get(j, "fetch_time"), cls[k]);
				cr_assert_not_null(o, "%s: no %s", dir, key);
				double m = json_number_value(json_object_get(o, "fetches"));
				n += m;
				wait += m * json_number_value(json_object_get(o, "wait_mean_s"));
				move += m * json_number_value(json_object_get(o, "move_mean_s"));
				json_decref(j);
			}
			snprintf(key, sizeof key, "%s_fetches", cls[k]);
			cr_assert_eq(csv_num(f, r, key), n, "%s %s", SYSTEMS[i], key);
			snprintf(key, sizeof key, "%s_wait_s", cls[k]);
			if (n)
				assert_close(csv_num(f, r, key), wait / n, "%s %s", SYSTEMS[i], key);
			else
				cr_assert(isnan(csv_num(f, r, key)), "%s %s: no fetches, yet a mean", SYSTEMS[i], key);
			snprintf(key, sizeof key, "%s_move_s", cls[k]);
			if (n)
				assert_close(csv_num(f, r, key), move / n, "%s %s", SYSTEMS[i], key);
		}
	}
	csv_free(f);
}

/* The sensitivity table's default point is the batch runs of the seeds the sweep ran, not of
 * every seed: two seeds in the scenarios, one (4) in the sweep. */
Test(experiments, sensitivity_compares_its_default_point_over_the_sweeps_seeds)
{
	report(NULL, "out", "");
	double s4 = summary_num(geni_run(NULL, "batch", "JobPacker", 4), "makespan_s");
	double s5 = summary_num(geni_run(NULL, "batch", "JobPacker", 5), "makespan_s");
	cr_assert(fabs(s4 - s5) > 0.1, "the seeds' makespans must differ for the test to tell them apart");
	struct csv *s = csv_out("out/sensitivity.csv");
	cr_assert_eq(s->nrow, 3, "delta 0.01 and 0.02, interval 1");
	for (int r = 0; r < s->nrow; r++) {
		cr_assert_str_eq(csv_get(s, r, "seeds"), "4");
		if (!strcmp(csv_get(s, r, "value"), "0.02"))
			assert_close(csv_num(s, r, "makespan_s"), summary_num(geni_run(NULL, "sens-delta0.02", "JobPacker", 4), "makespan_s"),
				     "delta 0.02");
		else
			assert_close(csv_num(s, r, "makespan_s"), s4, "%s %s: seed 4's batch run", csv_get(s, r, "param"),
				     csv_get(s, r, "value"));
	}
	csv_free(s);
}

/* A run that stopped early is left out with the other systems' runs of its scenario and
 * seed; the report names it. */
Test(experiments, report_leaves_out_a_partial_run_with_its_scenario_and_seed)
{
	copy_fixture("geni", "t");
	edit_summary("t", "online", "Corral", 5, "s[\"partial\"]=True; s[\"stop_reason\"]=\"wall\"");
	report("t", "a", "");
	struct csv *l = csv_out("a/left_out.csv");
	cr_assert_eq(l->nrow, 1);
	cr_assert_str_eq(csv_get(l, 0, "run"), "online-Corral-s5");
	cr_assert_str_eq(csv_get(l, 0, "stop_reason"), "wall");
	csv_free(l);
	struct csv *o = csv_out("a/online.csv");
	const int s4[] = {4};
	for (int i = 0; i < 4; i++) {
		int r = csv_must_row(o, "system", SYSTEMS[i]);
		cr_assert_eq(csv_num(o, r, "reps"), 1, "%s: seed 5 left out", SYSTEMS[i]);
		assert_close(csv_num(o, r, "median_jct_s"), pooled_median("t", "online", SYSTEMS[i], -1, s4, 1), "%s", SYSTEMS[i]);
	}
	csv_free(o);
	struct csv *b = csv_out("a/batch.csv");
	cr_assert_eq(csv_num(b, 0, "reps"), 2, "the batch keeps both seeds");
	csv_free(b);
}

/* Whether root/name holds "nan" as a word, any case. */
static bool has_nan(const char *name)
{
	const char *t = file_text(name);
	for (const char *p = t; (p = strcasestr(p, "nan")); p += 3)
		if ((p == t || !isalpha((unsigned char)p[-1])) && !isalpha((unsigned char)p[3]))
			return true;
	return false;
}

/* The cell of column `head` in the row of the Markdown table (the one whose header line
 * starts with `table`) that starts with "| first |". */
static const char *md_cell(const char *name, const char *table, const char *first, const char *head)
{
	static char cell[256];
	char *copy = strdup(file_text(name)), *save;
	int col = -1;
	bool in = false;
	cell[0] = '\0';
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, table, strlen(table))) {
			in = true;
			int k = 0;
			for (char *p = l + 1, *s2, *c = strtok_r(p, "|", &s2); c; c = strtok_r(NULL, "|", &s2), k++) {
				while (*c == ' ')
					c++;
				if (!strncmp(c, head, strlen(head)) && (c[strlen(head)] == ' ' || !c[strlen(head)]) && col < 0)
					col = k;
			}
			continue;
		}
		if (!in || l[0] != '|')
			continue;
		char want[128];
		snprintf(want, sizeof want, "| %s |", first);
		if (strncmp(l, want, strlen(want)))
			continue;
		int k = 0;
		for (char *s2, *c = strtok_r(l + 1, "|", &s2); c; c = strtok_r(NULL, "|", &s2), k++)
			if (k == col) {
				while (*c == ' ')
					c++;
				snprintf(cell, sizeof cell, "%s", c);
				cell[strcspn(cell, " ")] = '\0';
			}
		break;
	}
	free(copy);
	cr_assert_geq(col, 0, "%s: no column %s in %s", name, head, table);
	return cell;
}

/* A study without F-Hybrid, without JobPacker's plans: what cannot be computed is "–" in
 * the report and NaN in its CSVs, never "nan".  The same of the paper-scale report. */
Test(experiments, report_writes_a_dash_where_a_value_cannot_be_computed)
{
	copy_fixture("geni", "t");
	cr_assert_eq(tf_sh("rm -rf '%s'/t/jobpacker-sim-geni/fair/*-F-Hybrid-* '%s/t/plans'", root, root), 0);
	report("t", "a", "");
	cr_assert_not(has_nan("a/REPORT.md"), "'nan' in the report");
	cr_assert_str_eq(md_cell("a/REPORT.md", "| system | makespan (s) |", "JobPacker", "÷ F-Hybrid"), DASH);
	struct csv *b = csv_out("a/batch.csv");
	cr_assert_eq(b->nrow, 3);
	for (int r = 0; r < b->nrow; r++)
		cr_assert(isnan(csv_num(b, r, "makespan_norm")), "%s ÷ F-Hybrid without F-Hybrid", csv_get(b, r, "system"));
	csv_free(b);
	struct csv *c = csv_out("a/claims.csv");
	cr_assert_lt(csv_find(c, "id", "batch_fhybrid", NULL, NULL), 0, "a claim on F-Hybrid without its runs");
	cr_assert_geq(csv_find(c, "id", "batch_corral", NULL, NULL), 0);
	csv_free(c);
	cr_assert_not(exists("a/plan.csv"), "a plan table without plans");
	/* The paper-scale report, F-Hybrid's runs removed too. */
	copy_fixture("paper", "p");
	cr_assert_eq(tf_sh("rm -rf '%s'/p/jobpacker-sim/fair/*-F-Hybrid-*", root), 0);
	cr_assert_eq(tf_sh("python3 '%s/experiments/jobpacker/report.py' --sim '%s/p/jobpacker-sim' '%s/po' > '%s/po.log' 2>&1",
			repo, root, root, root),
		     0, "report.py --sim failed (see %s/po.log)", root);
	cr_assert_not(has_nan("po/REPORT.md"), "'nan' in the paper-scale report");
	cr_assert_str_eq(md_cell("po/REPORT.md", "| system | makespan (s) |", "JobPacker", "÷ F-Hybrid"), DASH);
}

/* ================================================================== the paper-scale report */

static const char *paper_run(const char *sc, const char *sys, int seed)
{
	static char tree[600];
	snprintf(tree, sizeof tree, "%s/tests/data/jobpacker/paper", repo);
	return run_dir(tree, "jobpacker-sim", sc, sys, seed);
}

/* The mean JCT of a run's finished jobs of class rec. */
static double mean_jct(const char *dir, int rec)
{
	static double v[4096];
	int n = spans(dir, rec, SPAN_JCT, v, 0, NULL);
	cr_assert_gt(n, 0);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += v[i];
	return sum / n;
}

/* Fig. 4.18: JobPacker's mixed runs with and without its ad-hoc jobs on a few racks, seed
 * by seed; and the paper-scale ratios, per seed, then averaged. */
Test(experiments, report_sim_compares_fig_4_18s_trial_seed_by_seed)
{
	cr_assert_eq(tf_sh("python3 '%s/experiments/jobpacker/report.py' --sim '%s/tests/data/jobpacker/paper/jobpacker-sim' "
			"'%s/out' > '%s/out.log' 2>&1",
			repo, repo, root, root),
		     0, "report.py --sim failed (see %s/out.log)", root);
	struct csv *a = csv_out("out/adhocagg.csv");
	int r = csv_must_row(a, "jobs", "ad hoc");
	double without = 0, with = 0, ratio = 0;
	for (int s = 0; s < 2; s++) {
		double wo = mean_jct(paper_run("mixed", "JobPacker", SEEDS[s]), 0);
		double wi = mean_jct(paper_run("adhocagg", "JobPacker", SEEDS[s]), 0);
		without += wo / 2;
		with += wi / 2;
		ratio += wi / wo / 2;
	}
	cr_assert(fabs(with - without) > 1e-3, "the trial changed nothing (%.3f s both)", with);
	assert_close(csv_num(a, r, "mean_without_s"), without, "without");
	assert_close(csv_num(a, r, "mean_with_s"), with, "with");
	assert_close(csv_num(a, r, "mean_ratio"), ratio, "with ÷ without, per seed");
	csv_free(a);
	/* Batch makespan ÷ F-Hybrid: per seed, then averaged, with the seeds' range. */
	double q[2];
	for (int s = 0; s < 2; s++) {
		/* one at a time: paper_run's buffer is reused */
		double jp = summary_num(paper_run("batch", "JobPacker", SEEDS[s]), "makespan_s");
		q[s] = jp / summary_num(paper_run("batch", "F-Hybrid", SEEDS[s]), "makespan_s");
	}
	struct csv *p = csv_out("out/paper.csv");
	r = csv_must_row(p, "id", "batch_jobpacker_fhybrid");
	assert_close(csv_num(p, r, "ours"), (q[0] + q[1]) / 2, "JobPacker ÷ F-Hybrid");
	assert_close(csv_num(p, r, "lo"), fmin(q[0], q[1]), "lowest seed");
	assert_close(csv_num(p, r, "hi"), fmax(q[0], q[1]), "highest seed");
	cr_assert_eq(csv_num(p, r, "holds"), (q[0] + q[1]) / 2 < 1);
	r = csv_must_row(p, "id", "batch_corral_fhybrid");
	cr_assert(isnan(csv_num(p, r, "holds")), "the paper gives Corral no direction of its own");
	csv_free(p);
	struct csv *b = csv_out("out/batch.csv");
	assert_close(csv_num(b, csv_must_row(b, "system", "JobPacker"), "makespan_norm"), (q[0] + q[1]) / 2, "batch.csv");
	csv_free(b);
}

/* ================================================================== run.sh */

/* experiments/jobpacker/run.sh `args`, its results in root/<res>, its report in root/<out>
 * (NULL: where run.sh puts it for that RES), with the environment `env` besides; its output
 * in root/<log>.  Returns the exit status. */
static int run_sh(const char *res, const char *out, const char *env, const char *args, const char *log)
{
	char out_sim[600] = "";
	if (out)
		snprintf(out_sim, sizeof out_sim, "OUT_SIM='%s/%s' ", root, out);
	return tf_sh("cd '%s' && RES='%s/%s' %sEMU='%s' %s experiments/jobpacker/run.sh %s > '%s/%s' 2>&1", repo, root, res,
		  out_sim, emu, env, args, root, log);
}

/* run.sh on the simulator at GENI scale, batch only, JobPacker and Corral, one repetition per
 * seed, with `extra` options; results in root/<res>, the report in root/out-<res>. */
static int study_args(const char *res, const char *jobs, const char *seeds, const char *extra, const char *log)
{
	char out[64], args[1024];
	int reps = 1;
	for (const char *c = seeds; *c; c++)
		reps += *c == ' ';
	snprintf(out, sizeof out, "out-%s", res);
	snprintf(args, sizeof args, "--backend sim --scale geni --no-sens --reps %d --seeds '%s' --jobs %s %s", reps, seeds,
		 jobs, extra);
	return run_sh(res, out, "SYSTEMS='JobPacker Corral' ONLY='^batch-'", args, log);
}

/* A run's directory under the results root root/<res> at GENI scale on the simulator. */
static const char *res_run(const char *res, const char *sys, int seed)
{
	static char path[600];
	snprintf(path, sizeof path, "%s/%s/jobpacker-sim-geni/%s/batch-%s-s%d", root, res, sched_of(sys), sys, seed);
	return path;
}

Test(experiments, run_sh_reuses_a_run_only_when_made_with_the_same_arguments)
{
	cr_assert_eq(study_args("res", "3", "4", "", "a.log"), 0, "see %s/a.log", root);
	cr_assert_eq(summary_num(res_run("res", "JobPacker", 4), "jobs"), 3);
	/* Another --jobs: the 3-job runs are made again, not kept. */
	cr_assert_eq(study_args("res", "2", "4", "", "b.log"), 0);
	cr_assert_not(file_has("b.log", "done already"));
	cr_assert_eq(summary_num(res_run("res", "JobPacker", 4), "jobs"), 2);
	cr_assert_eq(summary_num(res_run("res", "Corral", 4), "jobs"), 2);
	/* The same arguments: kept. */
	cr_assert_eq(study_args("res", "2", "4", "", "c.log"), 0);
	cr_assert_eq(lines_with("c.log", ": done already"), 2);
	/* The report of the runs kept. */
	struct csv *b = csv_out("out-res/batch.csv");
	cr_assert_eq(b->nrow, 2);
	assert_close(csv_num(b, csv_must_row(b, "system", "Corral"), "makespan_s"),
		     summary_num(res_run("res", "Corral", 4), "makespan_s"), "the report of the runs kept");
	csv_free(b);
	cr_assert(exists("out-res/REPORT.md"));
}

/* --rate-scale scales the rates and, with them, GENI's data scale (0.01), so the times stay;
 * the runs made without it are made again. */
Test(experiments, run_sh_rate_scale_scales_rates_and_bytes_together)
{
	cr_assert_eq(run_sh("res", NULL, "", "--list --backend sim --scale geni --rate-scale 0.5", "l.log"), 0);
	int runs = lines_with("l.log", ": emu run ");
	cr_assert_gt(runs, 0);
	cr_assert_eq(lines_with("l.log", " --rate-scale 0.5 --data-scale 0.005 "), runs);
	cr_assert_eq(study_args("res", "2", "4", "--rate-scale 0.5", "a.log"), 0, "see %s/a.log", root);
	cr_assert_eq(summary_num(res_run("res", "JobPacker", 4), "parameters.rate_scale"), 0.5);
	cr_assert_eq(summary_num(res_run("res", "JobPacker", 4), "parameters.data_scale"), 0.005);
	cr_assert_eq(study_args("res", "2", "4", "", "b.log"), 0);
	cr_assert_not(file_has("b.log", "done already"));
	cr_assert_eq(summary_num(res_run("res", "JobPacker", 4), "parameters.rate_scale"), 1.0);
	cr_assert_eq(summary_num(res_run("res", "JobPacker", 4), "parameters.data_scale"), 0.01);
	cr_assert_eq(study_args("res", "2", "4", "--rate-scale 2", "c.log"), 2);
	cr_assert(file_has("c.log", "--rate-scale needs a number in (0, 1], not '2'"));
}

/* Slow motion is the emulator's: the simulator's clock is virtual.  Both the script and emu
 * run say so and exit 2, as they do for a factor below 1. */
Test(experiments, slowdown_is_for_the_emulator_only)
{
	cr_assert_eq(run_sh("res", NULL, "", "--backend sim --scale geni --slowdown 2", "a.log"), 2);
	cr_assert(file_has("a.log", "--slowdown is for the emulator"));
	cr_assert_eq(run_sh("res", NULL, "", "--backend sim --scale geni --slowdown 0.5", "b.log"), 2);
	cr_assert(file_has("b.log", "--slowdown needs a number in [1, 100], not '0.5'"));
	cr_assert_eq(tf_sh("'%s' run --backend sim --slowdown 2 > '%s/c.log' 2>&1", emu, root), 2);
	cr_assert(file_has("c.log", "--slowdown is for the emulator"));
	cr_assert_eq(tf_sh("'%s' run --slowdown 0.5 > '%s/d.log' 2>&1", emu, root), 2);
}

/* --list shows every run's emu arguments and runs nothing, without root.  The emulated study
 * runs at --slowdown 1.5 unless told otherwise; real time passes no --slowdown at all (the
 * runs made before stay reusable), and the simulator none either. */
Test(experiments, the_emulated_study_runs_in_slow_motion_unless_told_otherwise)
{
	cr_assert_eq(run_sh("res", NULL, "", "--list", "a.log"), 0, "see %s/a.log", root);
	cr_assert_eq(lines_with("a.log", ": emu run --backend emu "), 72);
	cr_assert_eq(lines_with("a.log", " --slowdown 1.5 "), 72);
	cr_assert(file_has("a.log", "sens-delta0.02-JobPacker-s6: emu run "));
	cr_assert_eq(run_sh("res", NULL, "", "--list --no-sens --slowdown 1.0", "b.log"), 0);
	cr_assert_eq(lines_with("b.log", ": emu run --backend emu "), 60);
	cr_assert_eq(lines_with("b.log", "--slowdown"), 0);
	cr_assert_eq(run_sh("res", NULL, "", "--list --quick --slowdown 3", "c.log"), 0);
	cr_assert_eq(lines_with("c.log", " --slowdown 3 "), 12);
	cr_assert_eq(run_sh("res", NULL, "", "--list --backend sim --scale geni --no-sens", "d.log"), 0);
	cr_assert_gt(lines_with("d.log", ": emu run --backend sim "), 0);
	cr_assert_eq(lines_with("d.log", "--slowdown"), 0);
	cr_assert_not(exists("res"), "--list created %s/res", root);
}

/* A copy of the study's scripts (and of the topologies) in root/tree, so that a study without
 * RES writes under the copy: root/tree/results and root/tree/experiments/jobpacker. */
static void make_tree(void)
{
	cr_assert_eq(tf_sh("mkdir -p '%s/tree/experiments/jobpacker' && cd '%s/experiments' && cp ./*.sh "
			"'%s/tree/experiments/' && cp jobpacker/*.sh jobpacker/*.py jobpacker/*.gp '%s/tree/experiments/jobpacker/' "
			"&& cp -r '%s/topologies' '%s/tree/'",
			root, repo, root, root, repo, root),
		     0);
}

/* run.sh in root/tree without RES, with the environment `env` and `args`; its output in
 * root/<log>. */
static int tree_run(const char *env, const char *args, const char *log)
{
	return tf_sh("cd '%s/tree' && EMU='%s' %s experiments/jobpacker/run.sh %s > '%s/%s' 2>&1", root, emu, env, args, root, log);
}

/* The names in root/tree/experiments/jobpacker, one string. */
static const char *tree_scripts(void)
{
	static char names[4096];
	char path[600];
	snprintf(path, sizeof path, "%s/tree/experiments/jobpacker", root);
	names[0] = '\0';
	DIR *d = opendir(path);
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		if (strlen(names) + strlen(e->d_name) + 2 < sizeof names)
			strcat(strcat(names, e->d_name), " ");
	closedir(d);
	return names;
}

Test(experiments, quick_keeps_its_runs_and_report_apart)
{
	/* Without RES: --quick writes under results/jobpacker-quick/, neither into the full study's
	 * results nor beside the scripts. */
	make_tree();
	char before[4096];
	snprintf(before, sizeof before, "%s", tree_scripts());
	cr_assert_eq(tree_run("SYSTEMS=JobPacker ONLY='^batch-'", "--backend sim --scale geni --quick --jobs 2", "a.log"), 0,
		     "run.sh failed (see %s/a.log)", root);
	cr_assert(exists("tree/results/jobpacker-quick/out-sim-geni/REPORT.md"));
	cr_assert(exists("tree/results/jobpacker-quick/out-sim-geni/batch.csv"));
	cr_assert(exists("tree/results/jobpacker-quick/jobpacker-sim-geni/jobpacker/batch-JobPacker-s4/summary.json"));
	cr_assert_not(exists("tree/results/jobpacker-sim-geni"), "--quick ran into the full study's results");
	cr_assert_str_eq(tree_scripts(), before, "--quick wrote beside the scripts");
	/* Its default: 12 jobs, one seed. */
	cr_assert_eq(tree_run("", "--list --backend sim --scale geni --quick", "b.log"), 0);
	int runs = lines_with("b.log", ": emu run ");
	cr_assert_gt(runs, 0);
	cr_assert_eq(lines_with("b.log", " --jobs 12 "), runs);
	cr_assert_eq(lines_with("b.log", "-s4: emu run "), runs);
}

Test(experiments, run_sh_makes_a_run_again_when_its_topology_file_changed)
{
	/* A tree with its own copy of the topologies: editing one must not leave the runs made on
	 * the old fabric standing as results of the new. */
	make_tree();
	const char *env = "SYSTEMS=JobPacker ONLY='^batch-'", *args = "--backend sim --scale geni --quick --jobs 2";
	cr_assert_eq(tree_run(env, args, "a.log"), 0, "run.sh failed (see %s/a.log)", root);
	cr_assert_eq(tree_run(env, args, "b.log"), 0);
	cr_assert(file_has("b.log", "batch-JobPacker-s4: done already"));
	cr_assert_eq(tf_sh("sed -i 's/tx_rate = \"1Gbit\"/tx_rate = \"100Mbit\"/' '%s/tree/topologies/geni-10rack.conf' && "
			"grep -q 'tx_rate = \"100Mbit\"' '%s/tree/topologies/geni-10rack.conf'",
			root, root),
		     0);
	cr_assert_eq(tree_run(env, args, "c.log"), 0, "run.sh failed (see %s/c.log)", root);
	cr_assert_not(file_has("c.log", "done already"), "a run made on the old topology was reused");
}

/* A simulator study reports into the results root (RES, or results/ without it), never beside
 * the scripts; OUT_SIM names another directory. */
Test(experiments, simulator_studies_report_into_the_results_root)
{
	cr_assert_eq(run_sh("res", NULL, "SYSTEMS=JobPacker ONLY='^batch-'",
			    "--backend sim --scale geni --no-sens --reps 1 --seeds 4 --jobs 2", "a.log"),
		     0, "run.sh failed (see %s/a.log)", root);
	cr_assert(exists("res/out-sim-geni/REPORT.md"));
	make_tree();
	char before[4096];
	snprintf(before, sizeof before, "%s", tree_scripts());
	cr_assert_eq(tree_run("SYSTEMS=JobPacker ONLY='^batch-'", "--backend sim --scale geni --no-sens --reps 1 --seeds 4 --jobs 2",
			      "b.log"),
		     0, "run.sh failed (see %s/b.log)", root);
	cr_assert(exists("tree/results/out-sim-geni/REPORT.md"));
	cr_assert(exists("tree/results/jobpacker-sim-geni/jobpacker/batch-JobPacker-s4/summary.json"));
	cr_assert_eq(tree_run("SYSTEMS=JobPacker ONLY='^batch-'", "--backend sim --no-sens --reps 1 --seeds 4 --jobs 2", "c.log"),
		     0, "run.sh failed (see %s/c.log)", root);
	cr_assert(exists("tree/results/out-sim/REPORT.md"));
	cr_assert(exists("tree/results/out-sim/batch.csv"));
	cr_assert(exists("tree/results/jobpacker-sim/plans/batch-JobPacker-s4.plan"));
	cr_assert_str_eq(tree_scripts(), before, "a simulator study wrote beside the scripts");
}

/* run.sh with the bad option `args` exits 2, naming it, and creates nothing. */
static void rejects(const char *args)
{
	cr_assert_eq(study_args("bad", "2", "4", args, "bad.log"), 2, "%s", args);
	cr_assert(file_has("bad.log", "run.sh: --"), "%s: no error naming the option", args);
	cr_assert(!exists("bad") && !exists("out-bad"), "%s: created files", args);
}

/* --ocs-mode and --copiers reach every run, and the default study does not reuse their
 * runs; bad values stop run.sh before it creates anything. */
Test(experiments, run_sh_passes_the_network_model_to_every_run)
{
	cr_assert_eq(run_sh("res", NULL, "", "--list --backend sim --scale geni --ocs-mode fallback --copiers 8", "l.log"), 0);
	int runs = lines_with("l.log", ": emu run ");
	cr_assert_gt(runs, 0);
	cr_assert_eq(lines_with("l.log", " --ocs-mode fallback --copiers 8 "), runs);
	cr_assert_eq(run_sh("res", NULL, "", "--list --backend sim --scale geni", "m.log"), 0);
	cr_assert_eq(lines_with("m.log", "--ocs-mode"), 0);
	cr_assert_eq(study_args("res", "2", "4", "--ocs-mode fallback --copiers 8", "a.log"), 0, "see %s/a.log", root);
	cr_assert(file_has("res/jobpacker-sim-geni/jobpacker/batch-JobPacker-s4/summary.json", "\"ocs_mode\": \"fallback\""));
	cr_assert_eq(summary_num(res_run("res", "Corral", 4), "parameters.copiers"), 8);
	cr_assert_eq(study_args("res", "2", "4", "", "b.log"), 0, "see %s/b.log", root);
	cr_assert_not(file_has("b.log", "done already"));
	cr_assert_eq(summary_num(res_run("res", "Corral", 4), "parameters.copiers"), 5);
	static const char *const bad[] = {"--ocs-mode spill", "--copiers 0", "--copiers 1025", "--copiers x"};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
		rejects(bad[k]);
}

/* The most maps of any job in a run's jobs.csv. */
static int widest_job(const char *dir)
{
	struct csv *j = run_file(dir, "jobs.csv");
	int most = -1;
	for (int r = 0; r < j->nrow; r++)
		most = (int)fmax(most, csv_num(j, r, "maps"));
	csv_free(j);
	return most;
}

Test(experiments, run_sh_fits_the_jobs_to_max_maps)
{
	cr_assert_eq(study_args("res", "3", "4", "--max-maps 5", "a.log"), 0, "see %s/a.log", root);
	cr_assert_eq(summary_num(res_run("res", "JobPacker", 4), "parameters.max_maps"), 5);
	cr_assert_eq(widest_job(res_run("res", "JobPacker", 4)), 5, "seed 4 draws jobs wider than 5 maps");
	cr_assert_eq(study_args("res", "3", "4", "--max-maps 4", "b.log"), 0, "see %s/b.log", root);
	cr_assert_not(file_has("b.log", "done already"), "a run made with another cap was reused");
	cr_assert_eq(summary_num(res_run("res", "Corral", 4), "parameters.max_maps"), 4);
	cr_assert_eq(widest_job(res_run("res", "JobPacker", 4)), 4);
	cr_assert_eq(run_sh("res", NULL, "", "--list --backend sim --scale geni", "l.log"), 0);
	cr_assert_eq(lines_with("l.log", " --max-maps 100 "), lines_with("l.log", ": emu run "), "the default: 100");
	static const char *const bad[] = {"--max-maps x", "--max-maps -3", "--max-maps 40 --scale paper"};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
		rejects(bad[k]);
}

/* Fig. 4.18: at paper scale JobPacker's mixed runs are made again with its ad-hoc jobs on a
 * few racks (--sched-opt adhoc_agg=on), every seed; not at GENI scale. */
Test(experiments, paper_study_runs_fig_4_18_with_the_adhoc_trial)
{
	cr_assert_eq(run_sh("res", NULL, "", "--list --backend sim --no-sens", "a.log"), 0, "see %s/a.log", root);
	cr_assert_eq(lines_with("a.log", "adhocagg-"), 3, "one a seed");
	cr_assert_eq(lines_with("a.log", "adhocagg-JobPacker-s4: emu run --backend sim --topology"), 1);
	cr_assert_eq(lines_with("a.log", " --sched-opt adhoc_agg=on"), 3);
	cr_assert_eq(lines_with("a.log", "--scheduler jobpacker --seed 6 --jobs 1000 --slowstart 0.7 --recurring 1 "), 4,
		     "JobPacker's batch, online, mixed and adhocagg runs of seed 6");
	char *t = strdup(file_text("a.log")), *l = strstr(t, "adhocagg-JobPacker-s4: ");
	cr_assert_not_null(l);
	l[strcspn(l, "\n")] = '\0';
	cr_assert(strstr(l, " --recurring 0.5") && strstr(l, " --arrivals uniform:"), "%s", l);
	free(t);
	cr_assert_eq(run_sh("res", NULL, "", "--list --backend sim --scale geni --no-sens", "b.log"), 0);
	cr_assert_eq(lines_with("b.log", "adhocagg-"), 0);
}

/* run.sh through a wrapper of emu that marks the first `flag` runs it makes machine-limited;
 * returns how many runs emu made.  The study: JobPacker's batch run of seed 4. */
static int study_flagged(int flag)
{
	char path[128];
	snprintf(path, sizeof path, "%s/emu-flagging", root);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\n"
		   "'%s' \"$@\" || exit $?\n"
		   "n=$(($(cat '%s/calls' 2>/dev/null || echo 0) + 1)); echo $n > '%s/calls'\n"
		   "[ $n -le %d ] || exit 0\n"
		   "while [ $# -gt 0 ]; do case $1 in --results) r=$2;; --experiment) e=$2;; --run) x=$2;;"
		   " --scheduler) s=$2;; esac; shift; done\n"
		   "sed -i -e 's/\"verdict\": *\"[a-z-]*\"/\"verdict\": \"machine-limited\"/'"
		   " -e 's/\"detail\": *\"[^\"]*\"/\"detail\": \"the CPU was saturated in 9 of 10 monitor samples\"/'"
		   " \"$r/$e/$s/$x/summary.json\"\n",
		emu, root, root, flag);
	fclose(f);
	cr_assert_eq(chmod(path, 0755), 0);
	char env[256];
	snprintf(env, sizeof env, "EMU='%s' SYSTEMS=JobPacker ONLY='^batch-'", path); /* the later EMU wins */
	cr_assert_eq(run_sh("res", NULL, env, "--backend sim --scale geni --no-sens --reps 1 --seeds 4 --jobs 2", "a.log"), 0,
		     "run.sh failed (see %s/a.log)", root);
	snprintf(path, sizeof path, "%s/calls", root);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	int calls = 0;
	cr_assert_eq(fscanf(f, "%d", &calls), 1);
	fclose(f);
	return calls;
}

static bool run_flagged(void)
{
	return file_has("res/jobpacker-sim-geni/jobpacker/batch-JobPacker-s4/summary.json", "\"verdict\": \"machine-limited\"");
}

Test(experiments, run_sh_makes_a_machine_limited_run_once_more)
{
	cr_assert_eq(study_flagged(1), 2, "the flagged run should have been made again, once");
	cr_assert(file_has("a.log", "made again: the first was machine-limited: the CPU was saturated in 9 of 10 "
				    "monitor samples)"));
	cr_assert(!run_flagged(), "the second run, not flagged, should be the one kept");
}

Test(experiments, run_sh_keeps_a_run_flagged_twice_and_stops_there)
{
	cr_assert_eq(study_flagged(5), 2, "one more attempt, not more");
	cr_assert(run_flagged(), "the second run, flagged too, is kept as it is");
}
