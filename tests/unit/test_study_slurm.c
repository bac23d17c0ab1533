/* The studies' --slurm (experiments/slurm.sh, parallel.sh) without a cluster: what the
 * submitting call hands to sbatch (a stand-in on PATH that records its arguments), what a
 * task and the report's job make, and the refusal of emulated runs.  The one-node Slurm
 * itself is tests/integ/test_slurm.c's. */
#include "tree_fixture.h"
#include <stdarg.h>
#include <sys/wait.h>

static char root[64], repo[512], emu[600];

static void setup(void)
{
	tf_setup(root, sizeof root, "/tmp/emu-study-slurm-XXXXXX", repo, sizeof repo, emu, sizeof emu);
}

static void teardown(void)
{
	tf_teardown(root);
}

TestSuite(study_slurm, .init = setup, .fini = teardown);

/* The text of root/name (up to 64 KB), in a buffer the next call reuses. */
static const char *text(const char *name)
{
	static char buf[65536];
	char path[600];
	snprintf(path, sizeof path, "%s/%s", root, name);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s missing", path);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static bool exists(const char *name)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", root, name);
	return access(path, F_OK) == 0;
}

/* experiments/jobpacker/run.sh on the simulator, batch runs of JobPacker then Corral, seed 4,
 * 2 jobs each, results in root/res, with `env` and `args` besides; output in root/<log>.
 * PATH starts with root/bin (the sbatch stand-in). */
static int study(const char *env, const char *args, const char *log)
{
	return tf_sh("cd '%s' && PATH='%s/bin':\"$PATH\" RES='%s/res' EMU='%s' SYSTEMS='JobPacker Corral' ONLY='^batch-' %s "
		  "sh experiments/jobpacker/run.sh --backend sim --scale geni --no-sens --reps 1 --seeds 4 --jobs 2 %s "
		  "> '%s/%s' 2>&1",
		  repo, root, root, emu, env, args, root, log);
}

/* An sbatch that records each call's arguments, a line each, in root/sbatch.log, and
 * answers job ids 41, 42, ... */
static void fake_sbatch(void)
{
	cr_assert_eq(tf_sh("mkdir -p '%s/bin' && printf '%%s\\n' '#!/bin/sh' 'echo \"$*\" >> %s/sbatch.log' "
			"'echo $((40 + $(wc -l < %s/sbatch.log)))' > '%s/bin/sbatch' && chmod +x '%s/bin/sbatch'",
			root, root, root, root, root),
		     0);
}

Test(study_slurm, the_runs_go_as_one_array_and_the_report_after_it)
{
	fake_sbatch();
	cr_assert_eq(study("", "--slurm='--partition=short --time=30' -j 1", "a.log"), 0, "%s", text("a.log"));
	const char *s = text("sbatch.log");
	char arr[4096];
	snprintf(arr, sizeof arr, "%s", s);
	char *rep = strchr(arr, '\n');
	cr_assert_not_null(rep, "two sbatch calls: %s", s);
	*rep++ = '\0';
	/* The array: one task per run, at most -j at once, the arguments of --slurm. */
	cr_assert(strstr(arr, "--array=1-2%1 "), "%s", arr);
	cr_assert(strstr(arr, " --partition=short --time=30 "), "%s", arr);
	cr_assert(strstr(arr, "/task-%a.log "), "%s", arr);
	/* The report: after every task has succeeded, cancelled if one fails. */
	cr_assert(strstr(rep, "--dependency=afterok:41 --kill-on-invalid-dep=yes "), "%s", rep);
	cr_assert(strstr(rep, " --partition=short --time=30 "), "%s", rep);
	cr_assert_eq(tf_sh("test $(wc -l < '%s/sbatch.log') -eq 2", root), 0);
	cr_assert(strstr(text("a.log"), "slurm: 2 runs as job array 41, the report as job 42 after them"), "%s",
		  text("a.log"));
	/* Nothing run: the jobs will. */
	cr_assert_not(exists("res/jobpacker-sim-geni"));
	cr_assert_not(exists("res/out-sim-geni/REPORT.md"));
	/* The jobs' script: this run.sh with the same arguments, from the same directory. */
	cr_assert_eq(tf_sh("grep -q \"^STUDY_ROLE=task exec sh '%s/experiments/jobpacker/run.sh' '--backend' 'sim' .* "
			"'--slurm=--partition=short --time=30' '-j' '1'$\" '%s'/res/slurm/jobpacker-*/task.sh",
			repo, root),
		     0, "%s", text("a.log"));
	cr_assert_eq(tf_sh("grep -q '^STUDY_ROLE=report ' '%s'/res/slurm/jobpacker-*/report.sh", root), 0);
}

/* Task K makes the K-th run of the study and no report; the report's job makes no run. */
Test(study_slurm, a_task_makes_its_run_and_the_report_job_the_report)
{
	cr_assert_eq(study("STUDY_ROLE=task SLURM_ARRAY_TASK_ID=2", "--slurm", "t.log"), 0, "%s", text("t.log"));
	cr_assert(exists("res/jobpacker-sim-geni/corral/batch-Corral-s4/summary.json"), "%s", text("t.log"));
	cr_assert_not(exists("res/jobpacker-sim-geni/jobpacker/batch-JobPacker-s4"));
	cr_assert_not(exists("res/out-sim-geni/REPORT.md"));
	cr_assert_eq(study("STUDY_ROLE=task SLURM_ARRAY_TASK_ID=1", "--slurm", "t1.log"), 0, "%s", text("t1.log"));
	cr_assert(exists("res/jobpacker-sim-geni/jobpacker/batch-JobPacker-s4/summary.json"));
	cr_assert_eq(tf_sh("mv '%s/res/jobpacker-sim-geni/corral' '%s/corral.kept'", root, root), 0);
	cr_assert_eq(study("STUDY_ROLE=report", "--slurm", "r.log"), 0, "%s", text("r.log"));
	cr_assert_not(exists("res/jobpacker-sim-geni/corral"), "the report's job made a run");
	cr_assert(exists("res/out-sim-geni/REPORT.md"), "%s", text("r.log"));
	struct csv *b = csv_read(strcat(strcpy((char[600]){0}, root), "/res/out-sim-geni/batch.csv"));
	cr_assert_eq(b->nrow, 1, "the runs there were: JobPacker's");
	csv_free(b);
}

/* A run that fails fails its task (so the report's afterok never holds). */
Test(study_slurm, a_failed_run_fails_its_task)
{
	cr_assert_eq(tf_sh("printf '#!/bin/sh\\nexit 3\\n' > '%s/false-emu' && chmod +x '%s/false-emu'", root, root), 0);
	char env[700];
	snprintf(env, sizeof env, "STUDY_ROLE=task SLURM_ARRAY_TASK_ID=1 EMU='%s/false-emu'", root);
	cr_assert_neq(study(env, "--slurm", "f.log"), 0, "%s", text("f.log"));
	cr_assert(strstr(text("f.log"), "batch-JobPacker-s4: FAILED (exit 3"), "%s", text("f.log"));
}

/* An emulated run needs root and a whole machine: --slurm refuses it, exit 2. */
Test(study_slurm, emulated_runs_are_refused)
{
	cr_assert_eq(tf_sh("cd '%s' && EMU='%s' sh experiments/jobpacker/run.sh --slurm > '%s/e.log' 2>&1", repo, emu, root), 2);
	cr_assert(strstr(text("e.log"), "--slurm runs simulator runs only"), "%s", text("e.log"));
	cr_assert_eq(tf_sh("cd '%s' && EMU='%s' sh experiments/cobra/run.sh --slurm > '%s/c.log' 2>&1", repo, emu, root), 2);
	cr_assert(strstr(text("c.log"), "--slurm runs simulator runs only"), "%s", text("c.log"));
	cr_assert_eq(tf_sh("cd '%s' && EMU='%s' sh experiments/crossval/run.sh --slurm > '%s/x.log' 2>&1", repo, emu, root), 2);
	cr_assert(strstr(text("x.log"), "(--sim-only)"), "%s", text("x.log"));
}
