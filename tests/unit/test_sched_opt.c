/* Scheduler options: the shared parser over the policies' tables (every type,
 * unknown options and bad values rejected with the option and what it
 * accepts named), the dump summary.json records parsing back to the same,
 * aliases as presets, and `emu run --sched-opt` / `--scheduler NAME --help`
 * on the simulator (no root). */
#include "emu/sched/jobpacker.h"
#include "emu/sched/nas.h"
#include "tree_fixture.h"
#include <jansson.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define N_SCHED 10
static const char *const every[N_SCHED] = {"fifo", "fair", "delay", "jobpacker", "corral",
					   "nas", "nas-mts", "nas-nott", "nas-noadapt", "sw-delay"};

/* The options of scheduler `name` after `set` (n of them) into buf; the
 * parser's status, its message in err. */
static int parse(const char *name, const char *const *set, int n, void *buf, size_t size, char err[512])
{
	const struct sched_ops *ops = sched_find(name);
	cr_assert_not_null(ops, "%s", name);
	const struct sched_ops *p = ops->alias_of ? ops->alias_of : ops;
	cr_assert_leq(p->opts_size, size);
	memset(buf, 0, size);
	err[0] = '\0';
	return sched_opts_parse(ops, buf, set, n, err, 512);
}

/* The one setting kv of `name` is refused, and the message holds each of the
 * NULL-terminated words. */
static void refused(const char *name, const char *kv, ...)
{
	char err[512];
	union { struct nas_opts n; struct jp_opts j; } buf;
	cr_assert_eq(parse(name, &kv, 1, &buf, sizeof buf, err), -1, "%s %s accepted", name, kv);
	va_list ap;
	va_start(ap, kv);
	for (const char *w; (w = va_arg(ap, const char *));)
		cr_expect(strstr(err, w), "%s %s: '%s' lacks '%s'", name, kv, err, w);
	va_end(ap);
}

Test(sched_opt, defaults_are_the_documented_ones)
{
	char err[512];
	struct nas_opts n;
	cr_assert_eq(parse("nas", NULL, 0, &n, sizeof n, err), 0, "%s", err);
	cr_assert_float_eq(n.congestion, NAS_CONGESTION, 0);
	cr_assert_float_eq(n.t_min, NAS_T_MIN, 0);
	cr_assert_float_eq(n.t_max, NAS_T_MAX, 0);
	cr_assert(isnan(n.light_bytes) && isnan(n.heavy_bytes) && isnan(n.traffic_threshold), "auto");
	cr_assert(n.early_reduces && n.tt && n.adaptive && n.ca_rts && n.cr_rts);
	struct jp_opts j;
	cr_assert_eq(parse("jobpacker", NULL, 0, &j, sizeof j, err), 0, "%s", err);
	cr_assert_eq(j.subbatches, 5);
	cr_assert_eq(j.orders, 120);
	cr_assert_float_eq(j.eps_jobs, JP_EPS_JOBS, 0);
	cr_assert_float_eq(j.piece_margin, 1.25, 0);
	cr_assert_float_eq(j.sh.early_reduce_cap, 0.5, 0);
	cr_assert(isnan(j.rho) && isnan(j.sh.bw_ocs) && isnan(j.sh.bw_ratio));
	cr_assert_eq(j.sh.scenario, JP_SCEN_AUTO);
	cr_assert_eq(j.lrf, 0);
	cr_assert_eq(j.seq, 0);
	cr_assert(j.ports && j.postpone && j.sparsity && !j.adhoc_agg);
	cr_assert_str_eq(j.sh.plan_log, "");
}

Test(sched_opt, every_type_parses)
{
	char err[512];
	struct jp_opts j;
	const char *set[] = {"subbatches=3", "rho=0.5", "bw_ocs=auto", "lrf=literal", "seq=time", "ports=off",
			     "adhoc_agg=yes", "plan_log=-", "scenario=online", "subbatches=7"};
	cr_assert_eq(parse("jobpacker", set, 10, &j, sizeof j, err), 0, "%s", err);
	cr_assert_eq(j.subbatches, 7, "the last setting wins");
	cr_assert_float_eq(j.rho, 0.5, 0);
	cr_assert(isnan(j.sh.bw_ocs));
	cr_assert_str_eq(jp_lrf_names[j.lrf], "literal");
	cr_assert_eq(j.seq, 1);
	cr_assert_eq(j.sh.scenario, JP_SCEN_ONLINE);
	cr_assert(!j.ports && j.adhoc_agg);
	cr_assert_str_eq(j.sh.plan_log, "-");
	static const char *const on[] = {"on", "true", "yes", "1", "ON"}, *const off[] = {"off", "false", "no", "0"};
	struct nas_opts n;
	for (size_t i = 0; i < sizeof on / sizeof *on; i++) {
		char kv[32];
		const char *p = kv;
		snprintf(kv, sizeof kv, "tt=%s", on[i]);
		cr_assert_eq(parse("nas-nott", &p, 1, &n, sizeof n, err), 0, "%s", err);
		cr_assert(n.tt, "%s", kv);
		if (i < sizeof off / sizeof *off) {
			snprintf(kv, sizeof kv, "tt=%s", off[i]);
			cr_assert_eq(parse("nas", &p, 1, &n, sizeof n, err), 0, "%s", err);
			cr_assert_not(n.tt, "%s", kv);
		}
	}
}

Test(sched_opt, unknown_options_are_named)
{
	refused("nas", "congestoin=0.9", "nas", "'congestoin'", "congestion", "t_min", "cr_rts", NULL);
	refused("nas-mts", "subbatches=1", "nas", "'subbatches'", NULL);
	refused("corral", "eps_jobs=3", "corral", "'eps_jobs'", "bw_ocs", NULL);
	refused("fifo", "x=1", "fifo", "no options", NULL);
	refused("fair", "x=1", "fair has no option 'x'", "preempt, preempt_timeout", NULL);
	refused("sw-delay", "t_min=0.3", "sw-delay", "'t_min'", "congestion", NULL);
	refused("nas", "t_min", "'t_min'", "KEY=VALUE", NULL);
	refused("nas", "=1", "KEY=VALUE", NULL);
}

Test(sched_opt, bad_values_name_what_is_accepted)
{
	refused("nas", "t_min=2", "t_min", "'2'", "[0, 1]", NULL);
	refused("nas", "t_min=", "t_min", "[0, 1]", NULL);
	refused("nas", "t_max=0.1x", "t_max", "[0, 1]", NULL);
	refused("nas", "congestion=0", "congestion", "> 0", NULL);
	refused("nas", "congestion=auto", "congestion", "> 0", NULL);
	refused("nas", "congestion=nan", "congestion", NULL);
	refused("nas", "congestion=inf", "congestion", NULL);
	refused("nas", "light_bytes=-1", "light_bytes", ">= 0, or auto", NULL);
	refused("nas", "tt=maybe", "tt", "on or off", NULL);
	refused("jobpacker", "subbatches=0", "subbatches", "integer >= 1", NULL);
	refused("jobpacker", "subbatches=2.5", "subbatches", "integer", NULL);
	refused("jobpacker", "orders=99999999999", "orders", "integer >= 1", NULL);
	refused("jobpacker", "lrf=fig4.6", "lrf", "one of auto, periodic, fig46, literal", NULL);
	refused("jobpacker", "early_reduce_cap=1.5", "early_reduce_cap", "[0, 1]", NULL);
	refused("jobpacker", "bw_ratio=0", "bw_ratio", "> 0, or auto", NULL);
	refused("corral", "scenario=both", "scenario", "one of auto, batch, online", NULL);
	/* What no option says alone. */
	refused("nas", "t_min=0.6", "t_min", "t_max", NULL);
}

Test(sched_opt, aliases_preset_options_the_run_may_override)
{
	char err[512];
	struct nas_opts n;
	cr_assert_eq(parse("nas-mts", NULL, 0, &n, sizeof n, err), 0, "%s", err);
	cr_assert(n.tt && !n.adaptive && !n.ca_rts && !n.cr_rts);
	cr_assert_eq(parse("nas-nott", NULL, 0, &n, sizeof n, err), 0, "%s", err);
	cr_assert(!n.tt && n.adaptive && n.ca_rts && n.cr_rts);
	cr_assert_eq(parse("nas-noadapt", NULL, 0, &n, sizeof n, err), 0, "%s", err);
	cr_assert(n.tt && !n.adaptive && n.ca_rts && n.cr_rts);
	const char *set[] = {"cr_rts=on"};
	cr_assert_eq(parse("nas-mts", set, 1, &n, sizeof n, err), 0, "%s", err);
	cr_assert(n.cr_rts && !n.ca_rts);
	cr_assert_eq(sched_find("nas-mts")->alias_of, sched_find("nas"));
}

/* The dump as settings: "KEY=VALUE" per member, into out (room for 32). */
static int settings_of(json_t *dump, char out[32][300], const char *set[32])
{
	int n = 0;
	const char *k;
	json_t *v;
	json_object_foreach(dump, k, v)
	{
		cr_assert_lt(n, 32);
		if (json_is_string(v))
			snprintf(out[n], 300, "%s=%s", k, json_string_value(v));
		else if (json_is_boolean(v))
			snprintf(out[n], 300, "%s=%s", k, json_is_true(v) ? "true" : "false");
		else if (json_is_integer(v))
			snprintf(out[n], 300, "%s=%lld", k, (long long)json_integer_value(v));
		else
			snprintf(out[n], 300, "%s=%.17g", k, json_real_value(v));
		set[n] = out[n];
		n++;
	}
	return n;
}

Test(sched_opt, the_dump_parses_back_to_the_same)
{
	static const char *const changed[N_SCHED][3] = {
		[3] = {"rho=1.5", "lrf=fig46", "plan_log=/tmp/x.plan"},
		[4] = {"bw_ratio=4", "scenario=batch"},
		[5] = {"t_min=0.1", "traffic_threshold=12345.678", "cr_rts=off"},
		[6] = {"congestion=0.333333333333"},
		[9] = {"congestion=1e9"},
	};
	for (int i = 0; i < N_SCHED; i++) {
		const struct sched_ops *ops = sched_find(every[i]);
		char err[512], text[32][300];
		const char *set[32];
		int n = 0;
		while (n < 3 && changed[i][n])
			n++;
		union { struct nas_opts n; struct jp_opts j; } a, b;
		cr_assert_eq(parse(every[i], changed[i], n, &a, sizeof a, err), 0, "%s: %s", every[i], err);
		json_t *d1 = sched_opts_json(ops, &a);
		cr_assert(json_is_object(d1));
		const struct sched_ops *p = ops->alias_of ? ops->alias_of : ops;
		int nopt = 0;
		while (p->opts && p->opts[nopt].name)
			nopt++;
		cr_assert_eq((int)json_object_size(d1), nopt, "%s: every option, defaults included", every[i]);
		int m = settings_of(d1, text, set);
		cr_assert_eq(parse(every[i], set, m, &b, sizeof b, err), 0, "%s: %s", every[i], err);
		json_t *d2 = sched_opts_json(ops, &b);
		cr_assert(json_equal(d1, d2), "%s: %s then %s", every[i], json_dumps(d1, 0), json_dumps(d2, 0));
		if (i == 5) {
			cr_assert_float_eq(b.n.traffic_threshold, 12345.678, 0);
			cr_assert_float_eq(b.n.t_min, 0.1, 0);
			cr_assert(isnan(b.n.light_bytes) && !b.n.cr_rts);
		}
		if (i == 3)
			cr_assert(b.j.lrf == a.j.lrf && b.j.rho == 1.5 && !strcmp(b.j.sh.plan_log, "/tmp/x.plan"));
		json_decref(d1);
		json_decref(d2);
	}
}

/* -------------------------------------------------------- emu run */

static char root[64], repo[512], emu[600];

static void setup(void)
{
	tf_setup(root, sizeof root, "/tmp/emu-schedopt-XXXXXX", repo, sizeof repo, emu, sizeof emu);
}

static void teardown(void)
{
	tf_teardown(root);
}

TestSuite(sched_opt_run, .init = setup, .fini = teardown);

/* The regression test's online case: 10 jobs, half of them ad hoc. */
#define JOBS "--topology tests/data/regress/topo.conf --slowstart 0.2 --jobs 10 --min-shuffle 200MB --max-maps 24 " \
	     "--arrivals uniform:300 --recurring 0.5"

/* emu run `args` (on the simulator unless they say otherwise) with results in
 * root/res, output in root/<log>; the exit status. */
static int emu_run(const char *args, const char *log)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run --quiet --results '%s/res' --experiment x %s > '%s/%s' 2>&1", repo,
		 emu, root, args, root, log);
	int rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static bool log_has(const char *log, const char *text)
{
	char path[300];
	snprintf(path, sizeof path, "%s/%s", root, log);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strstr(buf, text) != NULL;
}

static json_t *summary(const char *sched, const char *run)
{
	char path[600];
	json_error_t je;
	snprintf(path, sizeof path, "%s/res/x/%s/%s/summary.json", root, sched, run);
	json_t *s = json_load_file(path, 0, &je);
	cr_assert_not_null(s, "%s: %s", path, je.text);
	return s;
}

Test(sched_opt_run, options_are_recorded_in_the_summary)
{
	cr_assert_eq(emu_run("--backend sim --scheduler nas --run a --sched-opt t_min=0.3 --sched-opt tt=off " JOBS,
			     "a.log"), 0);
	json_t *s = summary("nas", "a"), *o = json_object_get(s, "scheduler_options");
	cr_assert_str_eq(json_string_value(json_object_get(s, "scheduler")), "nas");
	cr_assert_str_eq(json_string_value(json_object_get(s, "scheduler_policy")), "nas");
	cr_assert_float_eq(json_real_value(json_object_get(o, "t_min")), 0.3, 0);
	cr_assert(json_is_false(json_object_get(o, "tt")));
	cr_assert_float_eq(json_real_value(json_object_get(o, "congestion")), NAS_CONGESTION, 0, "defaults too");
	cr_assert_str_eq(json_string_value(json_object_get(o, "light_bytes")), "auto");
	cr_assert_eq(json_object_size(o), 11);
	json_decref(s);
	cr_assert_eq(emu_run("--backend sim --scheduler fifo --run f " JOBS, "f.log"), 0);
	s = summary("fifo", "f");
	cr_assert(json_is_object(json_object_get(s, "scheduler_options")));
	cr_assert_eq(json_object_size(json_object_get(s, "scheduler_options")), 0, "a policy without options");
	json_decref(s);
}

Test(sched_opt_run, a_bad_option_stops_before_any_run)
{
	static const char *const bad[][2] = {
		{"--scheduler nas --sched-opt congestoin=0.9", "'congestoin'"},
		{"--scheduler nas --sched-opt t_min=2", "[0, 1]"},
		{"--sched-opt t_min=0.3", "fair has no option 't_min'"},   /* the default scheduler */
		{"--scheduler corral --sched-opt subbatches=2", "'subbatches'"},
		{"--sched-opt tt=maybe --scheduler nas-mts", "on or off"},
		{"--scheduler nas --sched-opt tt", "KEY=VALUE"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char args[512];
		snprintf(args, sizeof args, "--backend emu --run b %s " JOBS, bad[i][0]);
		cr_assert_eq(emu_run(args, "b.log"), 2, "%s", bad[i][0]);
		cr_expect(log_has("b.log", bad[i][1]), "%s: no %s", bad[i][0], bad[i][1]);
		char res[300];
		struct stat st;
		snprintf(res, sizeof res, "%s/res", root);
		cr_assert_neq(stat(res, &st), 0, "%s: results were made", bad[i][0]);
	}
	/* With --compare too. */
	cr_assert_eq(emu_run("--backend sim --scheduler nas --run c --sched-opt t_min=0.5x --compare fair " JOBS, "c.log"),
		     2);
}

Test(sched_opt_run, help_of_a_scheduler_lists_its_options)
{
	cr_assert_eq(emu_run("--scheduler nas --help", "h.log"), 0);
	cr_assert(log_has("h.log", "congestion=0.8"));
	cr_assert(log_has("h.log", "t_min=0.2"));
	cr_assert(log_has("h.log", "traffic_threshold=auto"));
	cr_assert(log_has("h.log", "cr_rts=on"));
	cr_assert_not(log_has("h.log", "--topology"), "the scheduler's help, not emu run's");
	cr_assert_eq(emu_run("--help --scheduler nas-mts", "m.log"), 0);
	cr_assert(log_has("m.log", "an alias of nas"));
	cr_assert(log_has("m.log", "adaptive=off"));
	cr_assert_eq(emu_run("--scheduler jobpacker --help", "j.log"), 0);
	cr_assert(log_has("j.log", "lrf=auto"));
	cr_assert(log_has("j.log", "subbatches=5"));
	cr_assert_eq(emu_run("--scheduler fifo --help", "o.log"), 0);
	cr_assert(log_has("o.log", "no options"));
	cr_assert_eq(emu_run("--help", "u.log"), 0);
	cr_assert(log_has("u.log", "--sched-opt"));
	for (int i = 0; i < N_SCHED; i++)
		cr_assert(log_has("u.log", every[i]), "emu run --help lacks %s", every[i]);
}

/* The same file in two runs' directories, byte for byte. */
static bool same_file(const char *a, const char *b, const char *file)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cmp -s '%s/res/x/%s/%s' '%s/res/x/%s/%s'", root, a, file, root, b, file);
	return system(cmd) == 0;
}

Test(sched_opt_run, aliases_run_as_the_options_spelled_out)
{
	static const char *const alias[][2] = {
		{"nas-mts", "--sched-opt adaptive=off --sched-opt ca_rts=off --sched-opt cr_rts=off"},
		{"nas-nott", "--sched-opt tt=off"},
		{"nas-noadapt", "--sched-opt adaptive=off"},
	};
	for (size_t i = 0; i < sizeof alias / sizeof *alias; i++) {
		char args[1024];
		snprintf(args, sizeof args, "--backend sim --scheduler %s --run a " JOBS, alias[i][0]);
		cr_assert_eq(emu_run(args, "a.log"), 0, "%s", alias[i][0]);
		snprintf(args, sizeof args, "--backend sim --scheduler nas --run %s %s " JOBS, alias[i][0], alias[i][1]);
		cr_assert_eq(emu_run(args, "b.log"), 0, "%s", alias[i][1]);
		char a[64], b[64];
		snprintf(a, sizeof a, "%s/a", alias[i][0]);
		snprintf(b, sizeof b, "nas/%s", alias[i][0]);
		cr_assert(same_file(a, b, "jobs.csv"), "%s: jobs.csv differs", alias[i][0]);
		cr_assert(same_file(a, b, "tasks.csv"), "%s: tasks.csv differs", alias[i][0]);
		json_t *sa = summary(alias[i][0], "a"), *sb = summary("nas", alias[i][0]);
		cr_assert_str_eq(json_string_value(json_object_get(sa, "scheduler")), alias[i][0], "the name used");
		cr_assert_str_eq(json_string_value(json_object_get(sa, "scheduler_policy")), "nas");
		cr_assert(json_equal(json_object_get(sa, "scheduler_options"), json_object_get(sb, "scheduler_options")));
		json_decref(sa);
		json_decref(sb);
	}
	/* And they differ from NAS itself on these jobs. */
	cr_assert_eq(emu_run("--backend sim --scheduler nas --run n " JOBS, "n.log"), 0);
	cr_assert_not(same_file("nas-mts/a", "nas/n", "tasks.csv"));
}

Test(sched_opt_run, compare_gives_the_run_its_options_and_the_others_their_defaults)
{
	cr_assert_eq(emu_run("--backend sim --scheduler nas --run r --sched-opt t_min=0.3 --compare nas-mts,fair,"
			     "nas@tests/data/regress/topo.conf " JOBS,
			     "c.log"),
		     0);
	json_t *s = summary("nas-mts", "r-sim");
	json_t *o = json_object_get(s, "scheduler_options");
	cr_assert_float_eq(json_real_value(json_object_get(o, "t_min")), NAS_T_MIN, 0, "a compared scheduler: its defaults");
	cr_assert(json_is_false(json_object_get(o, "adaptive")), "its alias's preset");
	json_decref(s);
	s = summary("fair", "r-sim");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(s, "scheduler_options"), "preempt")), "off",
			 "fair: its defaults");
	json_decref(s);
	s = summary("nas", "r-sim-regress");
	o = json_object_get(s, "scheduler_options");
	cr_assert_float_eq(json_real_value(json_object_get(o, "t_min")), 0.3, 0, "the run's scheduler: the run's options");
	json_decref(s);
}
