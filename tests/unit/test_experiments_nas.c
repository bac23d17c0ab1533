/* The reports of the Chapter 3 study (experiments/nas/report.py) and of the
 * emulator-against-simulator study (experiments/crossval/report.py), run over
 * the small fixed results trees in tests/data/ (tests/data/make_report_fixtures.sh
 * made them).  What is checked is the data the reports are made of, against the
 * runs' own summary.json: every run listed with its numbers, bytes accounted
 * for, ratios of the right means over the right seeds, a value that cannot be
 * computed written "–".  Python and the fixture only: well under a second each. */
#include "tree_fixture.h"
#include <ctype.h>
#include <glob.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[64], repo[512];

static void setup(void)
{
	tf_setup(root, sizeof root, "/tmp/emu-reports-XXXXXX", repo, sizeof repo, NULL, 0);
}

static void teardown(void)
{
	tf_teardown(root);
}

TestSuite(nas_report, .init = setup, .fini = teardown);
TestSuite(crossval_report, .init = setup, .fini = teardown);

/* python3 experiments/<study>/report.py tests/data/<study> root/out [extra]; 0 on success. */
static void report(const char *study, const char *extra)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "cd '%s' && python3 experiments/%s/report.py tests/data/%s '%s/out' %s > '%s/log' 2>&1",
		 repo, study, study, root, extra, root);
	int rc = system(cmd);
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "report.py of %s failed (see %s/log)", study, root);
}

/* ------------------------------------------------------------------ CSV */

/* root/out/NAME, a report's CSV: plain cells, no quotes, no CR. */
static struct csv *csv_load(const char *name)
{
	char path[600];
	snprintf(path, sizeof path, "%s/out/%s", root, name);
	struct csv *c = csv_read(path);
	cr_assert(!c->quoted && !c->cr, "%s: quoted cells or CR", name);
	return c;
}

/* equal within a relative tolerance (the CSVs carry 6 or 10 significant digits); NAN equals NAN */
static void near(double got, double want, double rel, const char *what)
{
	if (isnan(want)) {
		cr_assert(isnan(got), "%s: %.10g where – is due", what, got);
		return;
	}
	cr_assert(fabs(got - want) <= rel * fmax(fabs(want), 1e-12) + 1e-12, "%s: %.10g, want %.10g", what, got, want);
}

/* ------------------------------------------------------------------ the runs */

/* A number in a summary by a dotted path; NAN when missing. */
static double sval(json_t *s, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", path);
	json_t *v = s;
	for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
		v = json_object_get(v, k);
	return v && json_is_number(v) ? json_number_value(v) : NAN;
}

struct run {
	char path[160];   /* as report.py names it: <exp dir>/<scheduler dir>/<run> */
	char exp[32], be[8], sched[32], tag[32];
	int seed;
	bool partial;
	json_t *s;
};

static struct run runs[128];
static int nruns;

/* Every summary.json of tests/data/<study>, matching `pattern` (below it). */
static void load_runs(const char *study, const char *pattern)
{
	char pat[700];
	snprintf(pat, sizeof pat, "%s/tests/data/%s/%s", repo, study, pattern);
	glob_t g;
	cr_assert_eq(glob(pat, 0, NULL, &g), 0, "no runs under %s", pat);
	nruns = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		cr_assert_lt(nruns, 128);
		struct run *r = &runs[nruns++];
		memset(r, 0, sizeof *r);
		json_error_t je;
		r->s = json_load_file(g.gl_pathv[i], 0, &je);
		cr_assert_not_null(r->s, "%s: %s", g.gl_pathv[i], je.text);
		r->partial = json_is_true(json_object_get(r->s, "partial"));
		/* .../<exp>/<sched>/<name>/summary.json */
		char *p = g.gl_pathv[i] + strlen(pat) - strlen(pattern);
		*strrchr(p, '/') = '\0';
		snprintf(r->path, sizeof r->path, "%s", p);
		char name[64];
		if (!strcmp(study, "nas")) {
			cr_assert_eq(sscanf(p, "nas-%31[^/]/%31[^/]/%63s", r->exp, r->sched, name), 3, "%s", p);
		} else {
			snprintf(r->exp, sizeof r->exp, "crossval");
			cr_assert_eq(sscanf(p, "%31[^/]/%63s", r->sched, name), 2, "%s", p);
		}
		snprintf(r->be, sizeof r->be, "%.3s", name);
		if (!strcmp(study, "nas")) {   /* <be>-s<seed>[-<tag>] */
			cr_assert(!strncmp(name + 3, "-s", 2), "%s", p);
			r->seed = atoi(name + 5);
			char *t = strchr(name + 5, '-');
			snprintf(r->tag, sizeof r->tag, "%s", t ? t + 1 : "");
		} else {   /* <be>-<system>-s<seed>, the system in tag */
			char *s = NULL;
			for (char *q = strstr(name, "-s"); q; q = strstr(q + 1, "-s"))
				s = q;
			cr_assert(s && s > name + 4, "%s", p);
			r->seed = atoi(s + 2);
			snprintf(r->tag, sizeof r->tag, "%.*s", (int)(s - (name + 4)), name + 4);
		}
		/* variants run as a scheduler plus knobs */
		if (!strcmp(r->sched, "nas") && !strcmp(r->tag, "mtsca"))
			snprintf(r->sched, sizeof r->sched, "nas-mtsca"), r->tag[0] = '\0';
		if (!strcmp(r->sched, "nas-nott") && !strcmp(r->tag, "woboth"))
			snprintf(r->sched, sizeof r->sched, "nas-woboth"), r->tag[0] = '\0';
	}
	globfree(&g);
}

static void free_runs(void)
{
	for (int i = 0; i < nruns; i++)
		json_decref(runs[i].s);
	nruns = 0;
}

static struct run *find_run(const char *exp, const char *be, const char *sched, const char *tag, int seed)
{
	for (int i = 0; i < nruns; i++) {
		struct run *r = &runs[i];
		if (!r->partial && r->seed == seed && !strcmp(r->exp, exp) && !strcmp(r->be, be) &&
		    !strcmp(r->sched, sched) && !strcmp(r->tag, tag))
			return r;
	}
	return NULL;
}

static const char *MAIN[] = {"fair", "delay", "sw-delay", "nas"};

/* The seeds (ascending) that every main scheduler ran completely in exp on be. */
static int common_seeds(const char *exp, const char *be, int *seeds)
{
	int n = 0;
	for (int seed = 0; seed < 1000; seed++) {
		bool all = true;
		for (int k = 0; k < 4 && all; k++)
			all = find_run(exp, be, MAIN[k], "", seed) != NULL;
		if (all)
			seeds[n++] = seed;
	}
	return n;
}

/* The mean over seeds of a summary number (divided by the run's data scale when fullscale). */
static double mean_of(const char *exp, const char *be, const char *sched, const char *tag, const int *seeds, int n,
		      const char *key, bool fullscale)
{
	double sum = 0;
	int k = 0;
	for (int i = 0; i < n; i++) {
		struct run *r = find_run(exp, be, sched, tag, seeds[i]);
		if (!r)
			continue;
		double v = sval(r->s, key);
		if (fullscale)
			v /= sval(r->s, "parameters.data_scale");
		sum += v;
		k++;
	}
	return k ? sum / k : NAN;
}

static double ratio(double a, double b)
{
	return isfinite(a) && isfinite(b) && b != 0 ? a / b : NAN;
}

/* x at the given decimals, as the report shows it and decides on it */
static double at(double x, int decimals)
{
	double k = pow(10, decimals);
	return round(x * k) / k;
}

/* ------------------------------------------------------------------ nas_report */

Test(nas_report, every_run_is_listed_with_its_summary_numbers, .timeout = 60)
{
	report("nas", "nas --no-plots");
	load_runs("nas", "nas-*/*/*/summary.json");
	struct csv *c = csv_load("runs.csv");
	cr_assert_eq(c->nrow, nruns, "runs.csv lists %d runs, the fixture has %d", c->nrow, nruns);
	int partial = 0;
	for (int i = 0; i < nruns; i++) {
		struct run *r = &runs[i];
		int row = csv_find(c, "run", r->path, NULL, NULL);
		cr_assert_geq(row, 0, "%s not in runs.csv", r->path);
		cr_assert_str_eq(csv_get(c, row, "partial"), r->partial ? "yes" : "no", "%s", r->path);
		partial += r->partial;
		cr_assert_str_eq(csv_get(c, row, "scheduler"), r->sched, "%s", r->path);
		cr_assert_str_eq(csv_get(c, row, "backend"), r->be, "%s", r->path);
		cr_assert_eq((int)csv_num(c, row, "seed"), r->seed, "%s", r->path);
		cr_assert_str_eq(csv_get(c, row, "fidelity"),
				 json_string_value(json_object_get(json_object_get(r->s, "fidelity"), "verdict")));
		near(csv_num(c, row, "makespan_s"), sval(r->s, "makespan_s"), 1e-8, r->path);
		near(csv_num(c, row, "throughput_jobs_s"), sval(r->s, "throughput_jobs_per_s"), 1e-8, r->path);
		near(csv_num(c, row, "jct_mean_s"), sval(r->s, "jct_mean_s"), 1e-8, r->path);
		near(csv_num(c, row, "congestion_rack_samples"), sval(r->s, "congestion.rack_samples"), 1e-8, r->path);
		int light = (int)csv_num(c, row, "jobs_light"), medium = (int)csv_num(c, row, "jobs_medium"),
		    heavy = (int)csv_num(c, row, "jobs_heavy");
		cr_assert_eq(light + medium + heavy, (int)sval(r->s, "jobs_finished"), "%s: classes miss jobs", r->path);
	}
	cr_assert_eq(partial, 1, "the fixture's one partial run");
	csv_free(c);
	free_runs();
}

Test(nas_report, cross_rack_bytes_are_accounted_for, .timeout = 60)
{
	report("nas", "nas --no-plots");
	load_runs("nas", "nas-*/*/*/summary.json");
	struct csv *c = csv_load("runs.csv");
	for (int i = 0; i < nruns; i++) {
		struct run *r = &runs[i];
		int row = csv_find(c, "run", r->path, NULL, NULL);
		double ds = sval(r->s, "parameters.data_scale");
		near(csv_num(c, row, "data_scale"), ds, 1e-8, r->path);
		near(csv_num(c, row, "cross_rack_bytes"), sval(r->s, "cross_rack_bytes"), 1e-8, r->path);
		near(csv_num(c, row, "cross_rack_bytes_fullscale") * ds, sval(r->s, "cross_rack_bytes"), 1e-8, r->path);
		/* the split into shuffle and map input is the whole payload that crossed racks */
		double xs = csv_num(c, row, "shuffle_cross_rack_fullscale"), xi = csv_num(c, row, "input_cross_rack_fullscale");
		near((xs + xi) * ds, sval(r->s, "cross_rack_accounting.payload"), 1e-8, r->path);
		near(xs * ds, sval(r->s, "agent_bytes.shuffle_cross_rack"), 1e-8, r->path);
		/* the whole shuffle: over the network (cross-rack included) and on the server */
		double shuffle = sval(r->s, "agent_bytes.shuffle_network") + sval(r->s, "agent_bytes.shuffle_local");
		near(csv_num(c, row, "shuffle_bytes_fullscale") * ds, shuffle, 1e-8, r->path);
		cr_assert_leq(xs, csv_num(c, row, "shuffle_bytes_fullscale") * (1 + 1e-9), "%s", r->path);
		near(csv_num(c, row, "shuffle_kept_in_rack"), shuffle > 0 ? 1 - xs * ds / shuffle : NAN, 1e-8, r->path);
	}
	csv_free(c);
	free_runs();
}

/* cloudlab_<be>.csv: each scheduler's mean ÷ Fair's mean over the seeds every main scheduler ran. */
static void check_normalised(const char *csvname, const char *exp, const char *be)
{
	struct csv *c = csv_load(csvname);
	int seeds[64], n = common_seeds(exp, be, seeds);
	cr_assert_gt(n, 0);
	const char *sched[] = {"fair", "delay", "sw-delay", "nas", "nas-mts", "nas-mtsca", "nas-nott", "nas-noadapt",
			       "nas-woboth"};
	const char *label[] = {"Fair", "Delay", "SW-delay", "NAS", "MTS only", "MTS+CA-RTS", "w/o TT", "w/o MCT",
			       "w/o both"};
	int rows = 0;
	for (int k = 0; k < 9; k++) {
		int row = csv_find(c, "scheduler", label[k], NULL, NULL);
		int ran = 0;
		for (int i = 0; i < n; i++)
			ran += find_run(exp, be, sched[k], "", seeds[i]) != NULL;
		cr_assert_eq(row >= 0, ran > 0, "%s: %s listed %s, ran on %d seeds", csvname, label[k],
			     row >= 0 ? "yes" : "no", ran);
		if (row < 0)
			continue;
		rows++;
		char what[128];
		snprintf(what, sizeof what, "%s %s", csvname, label[k]);
		cr_assert_eq((int)csv_num(c, row, "runs"), ran, "%s", what);
		struct {
			const char *col, *key;
			bool fullscale;
		} m[] = {{"thr_norm", "throughput_jobs_per_s", false},
			 {"jct_norm", "jct_mean_s", false},
			 {"xrack_norm", "cross_rack_bytes", true},
			 {"cong_norm", "congestion.rack_samples", false}};
		for (size_t j = 0; j < sizeof m / sizeof m[0]; j++) {
			double want = ratio(mean_of(exp, be, sched[k], "", seeds, n, m[j].key, m[j].fullscale),
					    mean_of(exp, be, "fair", "", seeds, n, m[j].key, m[j].fullscale));
			near(csv_num(c, row, m[j].col), want, 2e-5, what);
		}
		near(csv_num(c, row, "thr"), mean_of(exp, be, sched[k], "", seeds, n, "throughput_jobs_per_s", false), 2e-5,
		     what);
		/* the spread: the per-seed ratios' extremes */
		double lo = INFINITY, hi = -INFINITY;
		for (int i = 0; i < n; i++) {
			struct run *a = find_run(exp, be, sched[k], "", seeds[i]), *f = find_run(exp, be, "fair", "", seeds[i]);
			if (!a || !f)
				continue;
			double v = ratio(sval(a->s, "throughput_jobs_per_s"), sval(f->s, "throughput_jobs_per_s"));
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
		near(csv_num(c, row, "thr_norm_seed_min"), lo, 2e-5, what);
		near(csv_num(c, row, "thr_norm_seed_max"), hi, 2e-5, what);
	}
	cr_assert_eq(rows, c->nrow);
	csv_free(c);
}

Test(nas_report, normalised_means_are_ratios_of_means_over_common_seeds, .timeout = 60)
{
	report("nas", "nas --no-plots");
	load_runs("nas", "nas-*/*/*/summary.json");
	check_normalised("cloudlab_sim.csv", "cloudlab", "sim");
	check_normalised("cloudlab_emu.csv", "cloudlab", "emu");
	check_normalised("sim600.csv", "sim600", "sim");
	check_normalised("full_sim.csv", "full", "sim");
	free_runs();
}

Test(nas_report, validation_ratios_and_claims_come_from_the_same_means, .timeout = 60)
{
	report("nas", "nas --no-plots");
	load_runs("nas", "nas-*/*/*/summary.json");
	int se[64], ne = common_seeds("cloudlab", "emu", se), ss[64], ns = common_seeds("cloudlab", "sim", ss);
	int vs[64], nv = 0;
	for (int i = 0; i < ne; i++)
		for (int j = 0; j < ns; j++)
			if (se[i] == ss[j])
				vs[nv++] = se[i];
	cr_assert_gt(nv, 0);
	struct csv *v = csv_load("validation.csv"), *cl = csv_load("claims.csv");
	const char *base[] = {"fair", "delay", "sw-delay"}, *label[] = {"NAS/Fair", "NAS/Delay", "NAS/SW-delay"};
	const char *metric[] = {"thr", "jct"}, *key[] = {"throughput_jobs_per_s", "jct_mean_s"};
	const char *cmetric[] = {"throughput", "avg JCT"}, *clabel[] = {"Fair", "Delay", "SW-delay"};
	for (int m = 0; m < 2; m++)
		for (int b = 0; b < 3; b++) {
			int row = csv_find(v, "metric", metric[m], "pair", label[b]);
			cr_assert_geq(row, 0, "validation.csv: no %s %s", metric[m], label[b]);
			double sim = ratio(mean_of("cloudlab", "sim", "nas", "", vs, nv, key[m], false),
					   mean_of("cloudlab", "sim", base[b], "", vs, nv, key[m], false));
			double emu = ratio(mean_of("cloudlab", "emu", "nas", "", vs, nv, key[m], false),
					   mean_of("cloudlab", "emu", base[b], "", vs, nv, key[m], false));
			near(csv_num(v, row, "ours_sim"), sim, 2e-5, label[b]);
			near(csv_num(v, row, "ours_emu"), emu, 2e-5, label[b]);
			/* as Tables 6.1/6.2: the difference of the ratios at two decimals */
			double d = at(at(sim, 2) - at(emu, 2), 2);
			near(csv_num(v, row, "diff_ours"), d, 1e-9, label[b]);
			cr_assert_str_eq(csv_get(v, row, "holds"), fabs(d) <= 0.08 + 1e-9 ? "yes" : "no");
			/* the claim "NAS ÷ baseline" on the emulator: the same ratio over the emulator's seeds,
			 * holding where it is on the paper's side of 1 */
			int cr = -1;
			for (int r = 0; r < cl->nrow && cr < 0; r++)
				if (!strcmp(csv_get(cl, r, "setup"), "real") && !strcmp(csv_get(cl, r, "metric"), cmetric[m]) &&
				    !strcmp(csv_get(cl, r, "numerator"), "NAS") &&
				    !strcmp(csv_get(cl, r, "denominator"), clabel[b]))
					cr = r;
			cr_assert_geq(cr, 0, "claims.csv: no %s NAS ÷ %s", cmetric[m], clabel[b]);
			double ours = ratio(mean_of("cloudlab", "emu", "nas", "", se, ne, key[m], false),
					    mean_of("cloudlab", "emu", base[b], "", se, ne, key[m], false));
			near(csv_num(cl, cr, "ours"), ours, 2e-5, "claim");
			bool higher = m == 0;
			/* on the paper's side of 1 at the 3 decimals shown */
			cr_assert_str_eq(csv_get(cl, cr, "holds"), (higher ? at(ours, 3) > 1 : at(ours, 3) < 1) ? "yes" : "no");
			int k = 0;
			for (int i = 0; i < ne; i++) {
				double x = at(ratio(sval(find_run("cloudlab", "emu", "nas", "", se[i])->s, key[m]),
						    sval(find_run("cloudlab", "emu", base[b], "", se[i])->s, key[m])), 3);
				k += higher ? x > 1 : x < 1;
			}
			cr_assert_eq((int)csv_num(cl, cr, "seeds"), ne);
			cr_assert_eq((int)csv_num(cl, cr, "seeds_holding"), k, "%s NAS ÷ %s", cmetric[m], clabel[b]);
		}
	csv_free(v);
	csv_free(cl);
	free_runs();
}

Test(nas_report, a_ratio_over_zero_is_a_dash_and_nothing_is_nan, .timeout = 60)
{
	report("nas", "nas --no-plots");
	load_runs("nas", "nas-*/*/*/summary.json");
	/* Fig. 3.13's ratios divide by NAS's congestion samples on 600 servers */
	struct csv *c = csv_load("fig3.13.csv");
	int seeds[8], n = common_seeds("sim600", "sim", seeds);
	double nas = mean_of("sim600", "sim", "nas", "", seeds, n, "congestion.rack_samples", false);
	const char *sched[] = {"nas-nott", "nas-noadapt", "nas-woboth"}, *label[] = {"w/o TT", "w/o MCT", "w/o both"};
	for (int k = 0; k < 3; k++) {
		int row = csv_find(c, "variant", label[k], NULL, NULL);
		cr_assert_geq(row, 0);
		double want = ratio(mean_of("sim600", "sim", sched[k], "", seeds, n, "congestion.rack_samples", false), nas);
		near(csv_num(c, row, "ours"), want, 2e-5, label[k]);
		if (nas == 0)
			cr_assert_str_eq(csv_get(c, row, "ours"), DASH);
	}
	csv_free(c);
	/* no "nan" or "inf" anywhere: not in a CSV cell, not as a word of the report */
	const char *files[] = {"REPORT.md",	"runs.csv",   "claims.csv", "setup.csv",  "cloudlab_emu.csv",
			       "cloudlab_sim.csv", "full_sim.csv", "sim600.csv", "validation.csv", "tsweep.csv",
			       "fig3.3.csv",	"fig3.8.csv", "fig3.13.csv"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char path[600], word[64];
		snprintf(path, sizeof path, "%s/out/%s", root, files[i]);
		FILE *f = fopen(path, "r");
		cr_assert_not_null(f, "%s missing", path);
		int ch, len = 0;
		do {
			ch = fgetc(f);
			if (ch != EOF && (isalnum(ch) || ch == '.' || ch == '_') && len < 63) {
				word[len++] = (char)tolower(ch);
				continue;
			}
			word[len] = '\0';
			cr_assert(strcmp(word, "nan") && strcmp(word, "inf") && strcmp(word, "infinity"), "%s: '%s'",
				  files[i], word);
			len = 0;
		} while (ch != EOF);
		fclose(f);
	}
	free_runs();
}

Test(nas_report, the_threshold_sweep_is_normalised_to_its_own_point, .timeout = 60)
{
	report("nas", "nas --no-plots");
	load_runs("nas", "nas-*/*/*/summary.json");
	struct csv *c = csv_load("tsweep.csv");
	int seeds[64], n = 0;
	for (int s = 0; s < 1000; s++)
		if (find_run("tsweep", "sim", "nas", "tmin0.2-tmax0.5", s))
			seeds[n++] = s;
	cr_assert_gt(n, 0);
	double base = mean_of("tsweep", "sim", "nas", "tmin0.2-tmax0.5", seeds, n, "throughput_jobs_per_s", false);
	struct {
		const char *tag, *curve, *value;
	} p[] = {{"tmin0.2-tmax0.9", "tmin0.2", "0.9"}, {"tmin0.1-tmax0.5", "tmax0.5", "0.1"},
		 {"tmin0.2-tmax0.5", "tmin0.2", "0.5"}, {"tmin0.2-tmax0.5", "tmax0.5", "0.2"}};
	for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) {
		int row = csv_find(c, "curve", p[k].curve, "value", p[k].value);
		cr_assert_geq(row, 0, "tsweep.csv: no %s %s", p[k].curve, p[k].value);
		near(csv_num(c, row, "thr_norm"),
		     ratio(mean_of("tsweep", "sim", "nas", p[k].tag, seeds, n, "throughput_jobs_per_s", false), base), 2e-5,
		     p[k].tag);
		cr_assert_eq((int)csv_num(c, row, "seeds"), n);
	}
	cr_assert_eq(c->nrow, 4, "three points, (0.2, 0.5) on both curves");
	csv_free(c);
	free_runs();
}

/* ------------------------------------------------------------------ crossval_report */

Test(crossval_report, every_run_is_listed_and_its_bytes_add_up, .timeout = 60)
{
	report("crossval", "");
	load_runs("crossval", "*/*/summary.json");
	struct csv *c = csv_load("runs.csv");
	cr_assert_eq(c->nrow, nruns, "runs.csv lists %d runs, the fixture has %d", c->nrow, nruns);
	int circuits = 0;
	for (int i = 0; i < nruns; i++) {
		struct run *r = &runs[i];
		int row = csv_find(c, "run", r->path, NULL, NULL);
		cr_assert_geq(row, 0, "%s not in runs.csv", r->path);
		cr_assert_str_eq(csv_get(c, row, "system"), r->tag);
		cr_assert_str_eq(csv_get(c, row, "backend"), r->be);
		cr_assert_eq((int)csv_num(c, row, "seed"), r->seed);
		cr_assert_str_eq(csv_get(c, row, "partial"), r->partial ? "yes" : "no");
		near(csv_num(c, row, "throughput_jobs_s"), sval(r->s, "throughput_jobs_per_s"), 1e-8, r->path);
		near(csv_num(c, row, "jct_mean_s"), sval(r->s, "jct_mean_s"), 1e-8, r->path);
		double x = csv_num(c, row, "cross_rack_bytes"), e = csv_num(c, row, "eps_bytes"),
		       o = csv_num(c, row, "ocs_bytes");
		near(x, sval(r->s, "cross_rack_bytes"), 1e-8, r->path);
		near(e + o, x, 1e-8, r->path);   /* every cross-rack byte went by the EPS or a circuit */
		near(e, sval(r->s, "eps_bytes"), 1e-8, r->path);
		near(o, sval(r->s, "ocs_bytes"), 1e-8, r->path);
		circuits += o > 0;
		near(csv_num(c, row, "ocs_share"), x > 0 ? o / x : 0, 1e-6, r->path);
	}
	cr_assert_gt(circuits, 0, "the fixture has runs with circuit bytes");
	csv_free(c);
	free_runs();
}

Test(crossval_report, ratios_are_to_f_hybrid_on_the_same_seed_and_backend, .timeout = 60)
{
	report("crossval", "");
	load_runs("crossval", "*/*/summary.json");
	struct csv *c = csv_load("runs.csv"), *a = csv_load("crossval.csv");
	const char *be[] = {"sim", "emu"}, *sys[] = {"F-Hybrid", "JobPacker", "Corral", "F-EPS"};
	for (int b = 0; b < 2; b++)
		for (int k = 0; k < 4; k++) {
			double thr = 0, jct = 0, lo = INFINITY, hi = -INFINITY;
			int n = 0;
			for (int i = 0; i < nruns; i++) {
				struct run *r = &runs[i];
				if (strcmp(r->be, be[b]) || strcmp(r->tag, sys[k]))
					continue;
				struct run *f = find_run("crossval", be[b], "fair", "F-Hybrid", r->seed);
				int row = csv_find(c, "run", r->path, NULL, NULL);
				if (r->partial || !f) {   /* no ratio without both runs complete */
					cr_assert_str_eq(csv_get(c, row, "throughput_ratio"), DASH, "%s", r->path);
					cr_assert_str_eq(csv_get(c, row, "jct_ratio"), DASH, "%s", r->path);
					continue;
				}
				double t = sval(r->s, "throughput_jobs_per_s") / sval(f->s, "throughput_jobs_per_s");
				double j = sval(r->s, "jct_mean_s") / sval(f->s, "jct_mean_s");
				near(csv_num(c, row, "throughput_ratio"), t, 1e-8, r->path);
				near(csv_num(c, row, "jct_ratio"), j, 1e-8, r->path);
				thr += t;
				jct += j;
				lo = fmin(lo, t);
				hi = fmax(hi, t);
				n++;
			}
			int row = csv_find(a, "backend", be[b], "system", sys[k]);
			cr_assert_eq(row >= 0, n > 0, "crossval.csv: %s %s", be[b], sys[k]);
			if (row < 0)
				continue;
			cr_assert_eq((int)csv_num(a, row, "runs"), n, "%s %s", be[b], sys[k]);
			near(csv_num(a, row, "throughput_ratio"), thr / n, 2e-5, sys[k]);
			near(csv_num(a, row, "jct_ratio"), jct / n, 2e-5, sys[k]);
			near(csv_num(a, row, "throughput_ratio_min"), lo, 2e-5, sys[k]);
			near(csv_num(a, row, "throughput_ratio_max"), hi, 2e-5, sys[k]);
		}
	csv_free(c);
	csv_free(a);
	free_runs();
}

Test(crossval_report, the_backends_are_compared_on_the_values_shown, .timeout = 60)
{
	report("crossval", "");
	struct csv *a = csv_load("crossval.csv"), *c = csv_load("comparison.csv");
	const char *sys[] = {"JobPacker", "Corral", "F-EPS"}, *col[] = {"throughput_ratio", "jct_ratio", "ocs_share"},
		   *key[] = {"thr", "jct", "share"};
	int rows = 0;
	for (int k = 0; k < 3; k++)
		for (int m = 0; m < 3; m++) {
			int s = csv_find(a, "backend", "sim", "system", sys[k]), e = csv_find(a, "backend", "emu", "system", sys[k]);
			int row = csv_find(c, "system", sys[k], "measure", key[m]);
			cr_assert_geq(row, 0, "comparison.csv: no %s %s", sys[k], key[m]);
			rows++;
			cr_assert(s >= 0 && e >= 0, "the fixture has both backends of %s", sys[k]);
			double sv = csv_num(a, s, col[m]), ev = csv_num(a, e, col[m]);
			near(csv_num(c, row, "sim"), sv, 2e-5, sys[k]);
			near(csv_num(c, row, "emu"), ev, 2e-5, sys[k]);
			double d = at(at(sv, 3) - at(ev, 3), 3);   /* the difference of the values shown */
			near(csv_num(c, row, "diff"), d, 1e-9, sys[k]);
			cr_assert_str_eq(csv_get(c, row, "holds"), fabs(d) <= 0.05 + 1e-9 ? "yes" : "no", "%s %s", sys[k],
					 key[m]);
			cr_assert_eq((int)csv_num(c, row, "runs_sim"), (int)csv_num(a, s, "runs"));
		}
	cr_assert_eq(c->nrow, rows + 1, "and F-Hybrid's OCS share");
	csv_free(a);
	csv_free(c);
}
