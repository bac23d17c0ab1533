/* Integration test of `run.sh --slurm` (root): a one-node Slurm from Debian's slurm-wlm and
 * munge, started here with its own configuration, munge key and socket in a scratch
 * directory (slurmctld and slurmd on 127.0.0.1, on ports of their own), takes the Chapter 4
 * simulator study (two short runs) as a job array and its report as a job after them.
 * Every process the test starts carries EMU_ITSLURM=<scratch dir> in its environment
 * (sbatch hands it to the jobs), so the teardown ends all of them, daemons, job steps and
 * runs, even after a failure.  Skipped, saying why, where Slurm or munge cannot start. */
#include "../unit/tree_fixture.h"
#include "run_fixture.h"
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define MARK "EMU_ITSLURM"

static char root[64], repo[512], emu[600];

/* The output of a shell command (printf format), up to 64 KB, in a buffer the next call reuses. */
static const char *out_of(const char *fmt, ...)
{
	static char buf[65536];
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t n = fread(buf, 1, sizeof buf - 1, p);
	buf[n] = '\0';
	pclose(p);
	return buf;
}

static int count(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static bool exists(const char *rel)
{
	char path[700];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	return access(path, F_OK) == 0;
}

/* Signal every process but this one whose environment holds MARK=root. */
static int signal_marked(int sig)
{
	char want[128];
	int n = snprintf(want, sizeof want, MARK "=%s", root), hit = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		pid_t pid = atoi(e->d_name);
		if (pid <= 0 || pid == getpid())
			continue;
		char path[300], env[65536];
		snprintf(path, sizeof path, "/proc/%d/environ", pid);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, env, sizeof env - 1);
		close(fd);
		for (ssize_t i = 0; i < len; i += (ssize_t)strlen(env + i) + 1)
			if (!strncmp(env + i, want, (size_t)n) && env[i + n] == '\0') {
				kill(pid, sig);
				hit++;
				break;
			}
	}
	if (d)
		closedir(d);
	return hit;
}

/* A daemon in the foreground, its output in root/log/<name>.log. */
static void start(const char *name, const char *const *argv)
{
	char log[128];
	snprintf(log, sizeof log, "%s/log/%s.log", root, name);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		setsid();
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
}

/* Every process of the test's Slurm ended, the scratch directory removed; once (the
 * teardown, or a skip: Criterion runs no .fini after one). */
static void clean(void)
{
	if (geteuid() != 0 || !root[0])
		return;
	/* The daemons first (a clean stop), then whatever is left: job steps, runs. */
	signal_marked(SIGTERM);
	for (int i = 0; i < 30 && signal_marked(0); i++)
		usleep(100000);
	for (int i = 0; i < 20 && signal_marked(SIGKILL); i++)
		usleep(100000);
	while (waitpid(-1, NULL, WNOHANG) > 0) {
	}
	int left = signal_marked(0);
	unsetenv(MARK);
	unsetenv("SLURM_CONF");
	tf_teardown(root);
	root[0] = '\0';
	cr_expect_eq(left, 0, "processes of the test's Slurm left running");
}

/* Skip, saying why, after cleaning up. */
static void skip(const char *fmt, ...)
{
	char why[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	clean();
	cr_skip_test("%s", why);
}

static bool have(const char *prog)
{
	return tf_sh("command -v %s > /dev/null 2>&1", prog) == 0;
}

/* Skip (saying why) unless the one-node Slurm came up: munged, slurmctld and slurmd. */
static void slurm_up(void)
{
	const char *progs[] = {"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo", NULL};
	for (const char **p = progs; *p; p++)
		if (!have(*p))
			skip("%s not installed: no one-node Slurm here (scripts/deps.sh installs slurm-wlm and munge)", *p);
	char path[700];
	cr_assert_eq(tf_sh("mkdir -p '%s/log' '%s/state' '%s/spool' '%s/munge' && chmod 700 '%s/munge' && "
			"head -c 1024 /dev/urandom > '%s/munge/key' && chmod 600 '%s/munge/key'",
			root, root, root, root, root, root, root),
		     0);
	char key[600], sock[600], pid[600], seed[600];
	snprintf(key, sizeof key, "--key-file=%s/munge/key", root);
	snprintf(sock, sizeof sock, "--socket=%s/munge/socket", root);
	snprintf(pid, sizeof pid, "--pid-file=%s/munge/pid", root);
	snprintf(seed, sizeof seed, "--seed-file=%s/munge/seed", root);
	start("munged", (const char *[]){"munged", "-F", "-f", key, sock, pid, seed, NULL});
	/* Ports of this test's own, away from Slurm's 6817/6818. */
	int port = 20000 + (int)(getpid() % 10000) * 2;
	snprintf(path, sizeof path, "%s/slurm.conf", root);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f,
		"ClusterName=emuit\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=%d\nSlurmdPort=%d\n"
		"SlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\nCredType=cred/munge\n"
		"AuthInfo=socket=%s/munge/socket\nStateSaveLocation=%s/state\nSlurmdSpoolDir=%s/spool\n"
		"SlurmctldPidFile=%s/slurmctld.pid\nSlurmdPidFile=%s/slurmd.pid\n"
		"ProctrackType=proctrack/pgid\nTaskPlugin=task/none\nSelectType=select/cons_tres\n"
		"SelectTypeParameters=CR_Core\nJobAcctGatherType=jobacct_gather/none\n"
		"AccountingStorageType=accounting_storage/none\nMpiDefault=none\nReturnToService=2\n"
		"SchedulerParameters=sched_interval=1\nMinJobAge=600\n"
		"NodeName=emuit NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN\n"
		"PartitionName=emuit Nodes=emuit Default=YES MaxTime=INFINITE State=UP\n",
		port, port + 1, root, root, root, root, root);
	fclose(f);
	setenv("SLURM_CONF", path, 1);
	snprintf(sock, sizeof sock, "%s/munge/socket", root);
	for (int i = 0; i < 50 && access(sock, F_OK); i++)
		usleep(100000);
	if (access(sock, F_OK))
		skip("munged did not start: %s", out_of("tail -n 3 '%s/log/munged.log'", root));
	start("slurmctld", (const char *[]){"slurmctld", "-D", "-i", "-f", path, NULL});
	start("slurmd", (const char *[]){"slurmd", "-D", "-N", "emuit", "-f", path, NULL});
	for (int i = 0; i < 150; i++) {
		if (strstr(out_of("sinfo -h -o %%t 2>/dev/null"), "idle"))
			return;
		usleep(100000);
	}
	char ctld[512];
	snprintf(ctld, sizeof ctld, "%s", out_of("tail -n 2 '%s/log/slurmctld.log'", root));
	skip("Slurm did not start (no idle node in 15 s): slurmctld: %s slurmd: %s", ctld,
	     out_of("tail -n 2 '%s/log/slurmd.log'", root));
}

static void setup(void)
{
	fx_need_root();
	tf_setup(root, sizeof root, "/tmp/emu-itslurm-XXXXXX", repo, sizeof repo, emu, sizeof emu);
	setenv(MARK, root, 1);
}

static void teardown(void)
{
	clean();
}

TestSuite(slurm, .init = setup, .fini = teardown, .timeout = 120);

/* The study: batch runs of JobPacker and Corral, seed 4, 2 jobs each, on the simulator;
 * EMU_BIN the emu it runs, DIR its results root under root.  Returns run.sh's exit status
 * (the submission's: run.sh returns once the jobs are queued). */
static int submit(const char *emu_bin, const char *dir)
{
	return tf_sh("cd '%s' && RES='%s/%s' EMU='%s' SYSTEMS='JobPacker Corral' ONLY='^batch-' "
		  "sh experiments/jobpacker/run.sh --backend sim --scale geni --no-sens --reps 1 --seeds 4 --jobs 2 "
		  "--slurm='--time=5 --job-name=emuit' > '%s/%s.log' 2>&1",
		  repo, root, dir, emu_bin, root, dir);
}

/* The job ids the submission recorded: <dir>/slurm/jobpacker-*\/jobs. */
static void job_ids(const char *dir, long *array, int *tasks, long *report)
{
	const char *t = out_of("cat '%s/%s'/slurm/jobpacker-*/jobs", root, dir);
	cr_assert_eq(sscanf(t, "array %ld %d\nreport %ld", array, tasks, report), 3, "jobs file: %s", t);
}

/* Wait (at most 60 s) until the cluster holds no pending or running job. */
static void wait_idle(void)
{
	for (int i = 0; i < 600; i++) {
		if (!*out_of("squeue -h -o %%i 2>/dev/null"))
			return;
		usleep(100000);
	}
	cr_assert_fail("jobs still queued after 60 s: %s", out_of("squeue 2>&1"));
}

Test(slurm, a_study_runs_as_a_job_array_and_its_report_after_it)
{
	slurm_up();
	cr_assert_eq(submit(emu, "res"), 0, "%s", out_of("cat '%s/res.log'", root));
	long array, report;
	int tasks;
	job_ids("res", &array, &tasks, &report);
	cr_assert_eq(tasks, 2, "one task per run");
	wait_idle();
	/* Slurm's own account: two tasks of the array, each done; the report's job after them. */
	const char *a = out_of("scontrol -o show job %ld", array);
	cr_assert_eq(count(a, "ArrayTaskId="), 2, "%s", a);
	cr_assert_eq(count(a, "JobState=COMPLETED"), 2, "%s", a);
	cr_assert_eq(count(a, "TimeLimit=00:05:00"), 2, "--slurm's sbatch arguments: %s", a);
	cr_assert_eq(count(a, "JobName=emuit"), 2, "%s", a);
	const char *r = out_of("scontrol -o show job %ld", report);
	cr_assert(strstr(r, "JobState=COMPLETED"), "%s", r);
	/* The runs in the results root, a log per task, and the report of both runs. */
	char path[600];
	const char *runs[] = {"jobpacker/batch-JobPacker-s4", "corral/batch-Corral-s4"};
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/res/jobpacker-sim-geni/%s/summary.json", root, runs[i]);
		json_t *s = rx_summary(path);
		cr_assert_eq(rx_num(s, "jobs"), 2, "%s", path);
		json_decref(s);
	}
	cr_assert_eq(atoi(out_of("ls '%s'/res/slurm/jobpacker-*/task-*.log | wc -l", root)), 2);
	cr_assert(exists("res/out-sim-geni/REPORT.md"), "%s", out_of("cat '%s'/res/slurm/*/report.log", root));
	snprintf(path, sizeof path, "%s/res/out-sim-geni/batch.csv", root);
	struct csv *b = csv_read(path);
	cr_assert_eq(b->nrow, 2, "the report's batch table: a row per system");
	cr_assert_geq(csv_find(b, "system", "JobPacker", NULL, NULL), 0);
	cr_assert_geq(csv_find(b, "system", "Corral", NULL, NULL), 0);
	csv_free(b);
}

/* A run that fails fails its task, and the report's job (afterok) is cancelled: no report. */
Test(slurm, a_failed_run_cancels_the_report)
{
	slurm_up();
	char fake[600];
	snprintf(fake, sizeof fake, "%s/emu-fails-corral", root);
	FILE *f = fopen(fake, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\ncase \"$*\" in *Corral*) exit 3 ;; esac\nexec '%s' \"$@\"\n", emu);
	fclose(f);
	chmod(fake, 0755);
	cr_assert_eq(submit(fake, "res"), 0, "%s", out_of("cat '%s/res.log'", root));
	long array, report;
	int tasks;
	job_ids("res", &array, &tasks, &report);
	cr_assert_eq(tasks, 2);
	wait_idle();
	const char *a = out_of("scontrol -o show job %ld", array);
	cr_assert_eq(count(a, "JobState=COMPLETED"), 1, "%s", a);
	cr_assert_eq(count(a, "JobState=FAILED"), 1, "%s", a);
	const char *r = out_of("scontrol -o show job %ld", report);
	cr_assert(strstr(r, "JobState=CANCELLED") && strstr(r, "DependencyNeverSatisfied"), "%s", r);
	cr_assert(!exists("res/out-sim-geni/REPORT.md"));
	cr_assert(exists("res/jobpacker-sim-geni/jobpacker/batch-JobPacker-s4/summary.json"));
}
