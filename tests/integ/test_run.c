/* Integration tests of `emu run` (root): small workloads through namespaces,
 * agents and the OCS, checked through the result files. */
#include "run_fixture.h"
#include <criterion/logging.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define P "itrun"
#define RESULTS "/tmp/emu-itrun-results"

static const char *topo_text =
	"name = \"itrun\"; racks = 3; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; containers = 2; };\n"
	"eps = { uplink_rate = \"50Mbit\"; };\n"
	"ocs = { rate = \"200Mbit\"; };\n";

/* Four jobs in emulated units: 4 maps and 2 reduces each, a few MB each. */
static const char *workload_text =
	"{\"scaled\": true, \"jobs\": [\n"
	" {\"name\": \"a\", \"submit\": 0, \"input\": 4000000, \"shuffle\": 6000000, \"output\": 1000,"
	"  \"maps\": 4, \"reduces\": 2, \"map_duration\": 0.3, \"reduce_duration\": 0.3},\n"
	" {\"name\": \"b\", \"submit\": 0, \"input\": 2000000, \"shuffle\": 3000000, \"output\": 1000,"
	"  \"maps\": 4, \"reduces\": 2, \"map_duration\": 0.3, \"reduce_duration\": 0.3},\n"
	" {\"name\": \"c\", \"submit\": 0.5, \"input\": 8000000, \"shuffle\": 8000000, \"output\": 1000,"
	"  \"maps\": 4, \"reduces\": 2, \"map_duration\": 0.3, \"reduce_duration\": 0.3},\n"
	" {\"name\": \"d\", \"submit\": 1, \"input\": 1000000, \"shuffle\": 0, \"output\": 0,"
	"  \"maps\": 2, \"reduces\": 0, \"map_duration\": 0.3}\n"
	"]}\n";
#define TOTAL_SHUFFLE (6000000ULL + 3000000ULL + 8000000ULL)

static char topo_path[] = "/tmp/emu-itrun-topo-XXXXXX";
static char wl_path[] = "/tmp/emu-itrun-wl-XXXXXX";

static void setup(void)
{
	fx_need_root();
	fabric_down(P, NULL);
	strcpy(topo_path, "/tmp/emu-itrun-topo-XXXXXX");
	strcpy(wl_path, "/tmp/emu-itrun-wl-XXXXXX");
	rx_write_file(topo_path, topo_text);
	rx_write_file(wl_path, workload_text);
}

static void teardown(void)
{
	rx_teardown(P, (const char *[]){topo_path, wl_path, NULL}, RESULTS);
}

TestSuite(run, .init = setup, .fini = teardown, .timeout = 240);

/* This test's workload instead of the suite's: a fresh file of `text`. */
static void use_workload(const char *text)
{
	unlink(wl_path);
	strcpy(wl_path, "/tmp/emu-itrun-wl-XXXXXX");
	rx_write_file(wl_path, text);
}

/* Start `emu run` with extra arguments; stdout/stderr to a log file. */
static pid_t start_run(const char *run_name, const char *const *extra, const char *log)
{
	char emu[600];
	rx_emu_path(emu, sizeof emu);
	const char *argv[48] = {emu, "run", "--topology", topo_path, "--workload", wl_path, "--prefix", P,
				"--results", RESULTS, "--experiment", "it", "--run", run_name, "--timeout", "180"};
	int n = 16;
	for (int i = 0; extra && extra[i]; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	return rx_spawn(argv, log);
}

static json_t *summary(const char *sched, const char *run_name)
{
	char path[512];
	snprintf(path, sizeof path, RESULTS "/it/%s/%s/summary.json", sched, run_name);
	return rx_summary(path);
}

static void show_log(const char *log)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "tail -20 %s >&2", log);
	if (system(cmd)) { /* diagnostics only */ }
}

Test(run, every_scheduler_completes_and_bytes_add_up)
{
	static const char *const scheds[] = {"fifo", "fair", "delay"};
	for (size_t i = 0; i < sizeof scheds / sizeof scheds[0]; i++) {
		const char *extra[] = {"--scheduler", scheds[i], "--quiet", NULL};
		char log[] = "/tmp/emu-itrun-log";
		int rc = rx_wait_exit(start_run(scheds[i], extra, log));
		if (rc)
			show_log(log);
		cr_assert_eq(rc, 0, "%s: emu run exited %d", scheds[i], rc);
		json_t *s = summary(scheds[i], scheds[i]);
		cr_assert_eq(rx_num(s, "jobs_finished"), 4, "%s", scheds[i]);
		cr_assert(json_is_false(json_object_get(s, "partial")));
		/* Every shuffle byte was fetched: over the network or locally. */
		double moved = rx_num(s, "agent_bytes.shuffle_network") + rx_num(s, "agent_bytes.shuffle_local");
		cr_assert_eq((unsigned long long)moved, TOTAL_SHUFFLE, "%s: shuffle bytes %.0f != %llu", scheds[i], moved,
			     TOTAL_SHUFFLE);
		/* The fabric carried the agents' cross-rack bytes plus headers and
		 * the reverse direction's ACKs: at least as much, at most ~15% more. */
		double ratio = rx_num(s, "measured_over_reported_cross_rack");
		cr_log_info("%s: makespan %.2f s, cross-rack %.0f B, measured/reported %.3f", scheds[i],
			    rx_num(s, "makespan_s"), rx_num(s, "cross_rack_bytes"), ratio);
		cr_assert(ratio >= 1.0 && ratio < 1.15, "%s: measured/reported cross-rack bytes %.3f", scheds[i], ratio);
		/* Headers and ACKs explain the difference; what is left
		 * (retransmissions, handshakes) is small. */
		double resid = rx_num(s, "cross_rack_accounting.residual_share");
		cr_log_info("%s: unexplained after headers and ACKs: %.2f%%", scheds[i], resid * 100);
		cr_assert(resid > -0.04 && resid < 0.06, "%s: %.2f%% of cross-rack bytes unexplained", scheds[i],
			  resid * 100);
		json_decref(s);
	}
	cr_assert_eq(fx_ip_netns_count(P), 0, "the fabric must be gone after the run");
}

/* Chapter 5's mixed cluster, emulated: every job finishes, and a task
 * computes for its work over its class's speed, on the agent too (a map
 * that read its input locally ends no sooner than that). */
Test(run, the_mixed_cluster_runs_and_a_fast_class_computes_faster)
{
	use_workload("{\"scaled\": true, \"jobs\": [\n"
		     " {\"name\": \"a\", \"input\": 8000000, \"shuffle\": 4000000, \"output\": 1000, \"maps\": 200,"
		     "  \"reduces\": 8, \"map_duration\": 0.4, \"reduce_duration\": 0.2, \"cpu\": 2},\n"
		     " {\"name\": \"b\", \"submit\": 0.2, \"input\": 4000000, \"shuffle\": 1000000, \"output\": 1000,"
		     "  \"maps\": 100, \"reduces\": 4, \"map_duration\": 0.4, \"reduce_duration\": 0.2}\n"
		     "]}\n");
	char emu[600], log[] = "/tmp/emu-itrun-log";
	rx_emu_path(emu, sizeof emu);
	const char *argv[] = {emu, "run", "--topology", "topologies/hybrid-ch5.conf", "--rate-scale", "0.1",
			      "--workload", wl_path, "--prefix", P, "--results", RESULTS, "--experiment", "it",
			      "--run", "mixed", "--timeout", "120", "--quiet", NULL};
	int rc = rx_wait_exit(rx_spawn(argv, log));
	if (rc)
		show_log(log);
	cr_assert_eq(rc, 0, "emu run exited %d", rc);
	json_t *s = summary("fair", "mixed");
	cr_assert_eq(rx_num(s, "jobs_finished"), 2);
	json_decref(s);
	/* tasks.csv: task,job,kind,index,server,rack,attempts,start_s,end_s,duration_s,data_local,... */
	FILE *f = fopen(RESULTS "/it/fair/mixed/tasks.csv", "r");
	cr_assert_not_null(f);
	char line[512];
	int n = 0, fast = 0;
	cr_assert_not_null(fgets(line, sizeof line, f));
	while (fgets(line, sizeof line, f)) {
		int task, job, idx, server, rack, attempts, local;
		char kind[16];
		double start, end, dur;
		cr_assert_eq(sscanf(line, "%d,%d,%15[a-z],%d,%d,%d,%d,%lf,%lf,%lf,%d", &task, &job, kind, &idx, &server,
				    &rack, &attempts, &start, &end, &dur, &local), 11, "%s", line);
		double work = strcmp(kind, "map") ? 0.2 : 0.4, speed = rack == 4 ? 2 : 1;
		cr_assert_float_eq(dur, work / speed, 1e-9, "task %d on rack %d: %g s", task, rack, dur);
		if (local)
			cr_assert_geq(end - start, dur - 1e-3, "task %d ended %g s after it started", task, end - start);
		fast += rack == 4;
		n++;
	}
	fclose(f);
	cr_assert_eq(n, 312);
	cr_assert_gt(fast, 0, "nothing ran on the scale-up rack");
}

/* The job model's examples in workloads/ on the emulator, as a user runs
 * them: stages, lineage, task-level dependencies, and Fair's preemption
 * (suspensions on the way, nothing fetched in vain). */
Test(run, the_job_model_examples_run_on_the_emulator)
{
	static const struct { const char *file; int jobs; const char *opt; } ex[] = {
		{"workloads/dag.json", 3, NULL}, {"workloads/chain.json", 4, NULL},
		{"workloads/taskdag.json", 2, NULL}, {"workloads/preempt.json", 3, "preempt=suspend"},
	};
	char emu[600];
	rx_emu_path(emu, sizeof emu);
	for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
		char run[32], log[] = "/tmp/emu-itrun-log";
		snprintf(run, sizeof run, "ex%zu", i);
		const char *argv[32] = {emu, "run", "--workload", ex[i].file, "--prefix", P, "--results", RESULTS,
					"--experiment", "it", "--run", run, "--timeout", "120", "--quiet",
					"--sched-opt", "preempt_timeout=2"};
		int n = 17;
		if (ex[i].opt) {
			argv[n++] = "--sched-opt";
			argv[n++] = ex[i].opt;
		}
		argv[n] = NULL;
		int rc = rx_wait_exit(rx_spawn(argv, log));
		if (rc)
			show_log(log);
		cr_assert_eq(rc, 0, "%s: emu run exited %d", ex[i].file, rc);
		json_t *s = summary("fair", run);
		cr_assert_eq(rx_num(s, "jobs_finished"), ex[i].jobs, "%s", ex[i].file);
		cr_assert_eq(rx_num(s, "agent_bytes.shuffle_discarded"), 0, "%s", ex[i].file);
		if (ex[i].opt)
			cr_assert_gt(rx_num(s, "preemptions.suspends"), 0, "%s", ex[i].file);
		json_decref(s);
	}
	cr_assert_eq(fx_ip_netns_count(P), 0, "the fabric must be gone after the runs");
}

static const char *slow_workload =
	"{\"scaled\": true, \"jobs\": [\n"
	" {\"name\": \"long\", \"submit\": 0, \"input\": 12000000, \"shuffle\": 24000000, \"output\": 1000,"
	"  \"maps\": 12, \"reduces\": 6, \"map_duration\": 1.0, \"reduce_duration\": 0.5}]}\n";

Test(run, a_killed_agent_does_not_stop_the_jobs)
{
	use_workload(slow_workload);
	const char *extra[] = {"--scheduler", "fair", "--quiet", NULL};
	char log[] = "/tmp/emu-itrun-log-kill";
	pid_t pid = start_run("killed", extra, log);
	pid_t victim = -1;
	for (int i = 0; i < 100 && victim < 0; i++, rx_sleep(0.1))
		victim = rx_find_process(P, "emu-agent", "r1h1");
	cr_assert(victim > 0, "agent of r1h1 not found");
	rx_sleep(2.0);
	kill(victim, SIGKILL);
	int rc = rx_wait_exit(pid);
	if (rc)
		show_log(log);
	cr_assert_eq(rc, 0);
	json_t *s = summary("fair", "killed");
	cr_assert_eq(rx_num(s, "jobs_finished"), 1);
	cr_log_info("re-runs after the kill: %.0f", rx_num(s, "task_reruns"));
	cr_assert_geq(rx_num(s, "task_reruns"), 1, "the dead server's tasks must have run again");
	json_decref(s);
}

/* A thread's nice value, field 19 of /proc/PID/task/TID/stat (after the
 * command's closing parenthesis, field 3 is the 1st). */
static int nice_of(pid_t pid, pid_t tid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	cr_assert_not_null(p);
	for (int field = 2; field < 19 && p; field++)
		p = strchr(p + 1, ' ');
	cr_assert_not_null(p);
	return atoi(p + 1);
}

/* The controller's thread runs ahead of its agents (backend_emu.c,
 * controller_ahead_of_agents), and the agents keep the default. */
Test(run, the_controller_runs_ahead_of_its_agents)
{
	use_workload(slow_workload);
	const char *extra[] = {"--quiet", NULL};
	char log[] = "/tmp/emu-itrun-log-nice";
	pid_t pid = start_run("nice", extra, log);
	pid_t agent = -1;
	for (int i = 0; i < 200 && (agent = rx_find_process(P, "emu-agent", "r0h0")) < 0; i++)
		rx_sleep(0.1);
	cr_assert_gt(agent, 0, "no agent started");
	int controller = 0;
	for (int i = 0; i < 50 && (controller = nice_of(pid, pid)) == 0; i++)
		rx_sleep(0.1);   /* set once every agent has said hello */
	int agent_nice = nice_of(agent, agent);
	int rc = rx_wait_exit(pid);
	if (rc)
		show_log(log);
	cr_assert_eq(rc, 0);
	cr_assert_eq(controller, -10, "the controller's nice value is %d", controller);
	cr_assert_eq(agent_nice, 0, "an agent's nice value is %d", agent_nice);
	json_t *s = summary("fair", "nice");
	cr_assert_eq(rx_num(s, "emu.controller_nice"), -10);
	json_decref(s);
}

/* The summary's TCP timer events (emu.tcp) are the servers' namespaces' own
 * counters over the run: with the fabric kept, `ip netns exec` reads them
 * from outside (routers and switches have no TCP sockets to add any). */
static long long netns_tcpext(const char *name)
{
	char cmd[600], line[64];
	snprintf(cmd, sizeof cmd, "for ns in $(ip netns list | awk '/^" P "-/ {print $1}'); do "
		 "ip netns exec $ns cat /proc/net/netstat; done | awk '/^TcpExt:/ { if (!h) { for (i = 2; i <= NF; i++) "
		 "if ($i == \"%s\") c = i; h = 1 } else { s += $c; h = 0 } } END { print s + 0 }'", name);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_not_null(fgets(line, sizeof line, p));
	cr_assert_eq(pclose(p), 0);
	return atoll(line);
}

Test(run, the_summary_counts_the_servers_tcp_timer_events)
{
	use_workload(slow_workload);   /* 24 MB through 50 Mb/s uplinks: queues overflow */
	const char *extra[] = {"--scheduler", "fair", "--keep", "--quiet", NULL};
	char log[] = "/tmp/emu-itrun-log-tcp";
	int rc = rx_wait_exit(start_run("tcp", extra, log));
	if (rc)
		show_log(log);
	cr_assert_eq(rc, 0);
	json_t *s = summary("fair", "tcp");
	long long acks = netns_tcpext("DelayedACKs"), rto = netns_tcpext("TCPTimeouts"),
		  syn = netns_tcpext("TCPSynRetrans");
	cr_log_info("namespaces: %lld delayed ACKs, %lld timeouts, %lld SYNs again", acks, rto, syn);
	cr_assert_gt(acks + rto + syn, 0, "no TCP timer event in the whole run: nothing to compare");
	cr_assert_eq((long long)rx_num(s, "emu.tcp.delayed_acks"), acks);
	cr_assert_eq((long long)rx_num(s, "emu.tcp.timeouts"), rto);
	cr_assert_eq((long long)rx_num(s, "emu.tcp.syn_retransmits"), syn);
	json_decref(s);
}

Test(run, kill_9_of_the_controller_then_cleanup_leaves_nothing)
{
	use_workload(slow_workload);
	const char *extra[] = {"--quiet", NULL};
	pid_t pid = start_run("crash", extra, "/tmp/emu-itrun-log-crash");
	for (int i = 0; i < 100 && rx_find_process(P, "emu-agent", "r0h0") < 0; i++)
		rx_sleep(0.1);
	rx_sleep(1.0);
	kill(pid, SIGKILL);
	rx_wait_exit(pid);
	char emu[600];
	rx_emu_path(emu, sizeof emu);
	pid_t c = fork();
	if (c == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		execl(emu, emu, "cleanup", "--prefix", P, (char *)NULL);
		_exit(127);
	}
	cr_assert_eq(rx_wait_exit(c), 0);
	cr_assert_eq(fx_ip_netns_count(P), 0);
	rx_sleep(0.3);
	cr_assert_eq(rx_find_process(P, "emu-agent", "--server"), -1, "an agent survived its controller");
	/* No half-written results: only whole files, or none. */
	char cmd[300];
	snprintf(cmd, sizeof cmd, "test -z \"$(find %s -name '*.json' -size 0)\"", RESULTS);
	cr_assert_eq(system(cmd), 0);
}

Test(run, bad_workload_exits_2_and_leaves_nothing)
{
	use_workload("{\"jobs\": [\n {\"name\": \"x\", \"input\": \"10GB\", \"shufle\": 5}\n]}\n");
	char log[] = "/tmp/emu-itrun-log-bad";
	int rc = rx_wait_exit(start_run("bad", NULL, log));
	cr_assert_eq(rc, 2);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "grep -q '%s:2:' %s", wl_path, log);
	cr_assert_eq(system(cmd), 0, "the error must name the file and line");
	cr_assert_eq(fx_ip_netns_count(P), 0);
	struct stat st;
	cr_assert_neq(stat(RESULTS "/it", &st), 0, "no results directory for a run that never started");
}

Test(run, hold_mode_sends_elephants_over_circuits)
{
	use_workload(slow_workload);
	const char *extra[] = {"--elephant", "100KB", "--ocs-interval", "0.5", "--slowstart", "1", "--quiet", NULL};
	char log[] = "/tmp/emu-itrun-log-ocs";
	int rc = rx_wait_exit(start_run("ocs", extra, log));
	if (rc)
		show_log(log);
	cr_assert_eq(rc, 0);
	json_t *s = summary("fair", "ocs");
	double ocs = rx_num(s, "ocs_bytes"), eps = rx_num(s, "eps_bytes"), reconf = rx_num(s, "ocs.reconfigurations");
	cr_log_info("OCS %.0f B, EPS %.0f B, %.0f reconfigurations, leakage %.0f B", ocs, eps, reconf,
		    rx_num(s, "marked_eps_bytes"));
	cr_assert_geq(reconf, 1);
	cr_assert(ocs > 0.5 * (ocs + eps), "only %.0f of %.0f cross-rack bytes on circuits", ocs, ocs + eps);
	json_decref(s);
	struct stat st;
	cr_assert_eq(stat(RESULTS "/it/fair/ocs/ocs.csv", &st), 0);
	cr_assert_eq(stat(RESULTS "/it/fair/ocs/links.csv", &st), 0);
}

/* The fidelity check end to end: with every CPU kept busy by spinning
 * processes, the monitor sees the CPUs saturated in most of its samples and
 * the summary says the run is the machine's.  (The verdict rules themselves
 * are unit-tested in tests/unit/test_fidelity.c.) */
Test(run, a_saturated_cpu_makes_the_run_machine_limited)
{
	static const char *long_maps =
		"{\"scaled\": true, \"jobs\": [\n"
		" {\"name\": \"spin\", \"submit\": 0, \"input\": 2000000, \"shuffle\": 2000000, \"output\": 1000,"
		"  \"maps\": 4, \"reduces\": 2, \"map_duration\": 3.0, \"reduce_duration\": 2.0}]}\n";
	use_workload(long_maps);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t hogs[64];
	int nhogs = 0;
	for (long i = 0; i < ncpu && nhogs < 64; i++) {
		pid_t pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			/* Bounded: dies with the test, and by itself after 60 s. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			alarm(60);
			for (volatile unsigned long spin = 0;; spin++)
				;
		}
		hogs[nhogs++] = pid;
	}
	const char *extra[] = {"--scheduler", "fair", "--monitor", "0.5", "--quiet", NULL};
	char log[] = "/tmp/emu-itrun-log-hot";
	int rc = rx_wait_exit(start_run("hot", extra, log));
	for (int i = 0; i < nhogs; i++) {
		kill(hogs[i], SIGKILL);
		waitpid(hogs[i], NULL, 0);
	}
	if (rc)
		show_log(log);
	cr_assert_eq(rc, 0);
	json_t *s = summary("fair", "hot");
	json_t *f = json_object_get(s, "fidelity");
	cr_log_info("fidelity: %s (%s), CPU saturated in %.0f of %.0f samples",
		    json_string_value(json_object_get(f, "verdict")), json_string_value(json_object_get(f, "detail")),
		    rx_num(s, "fidelity.cpu_saturated_samples"), rx_num(s, "fidelity.samples"));
	cr_assert_geq(rx_num(s, "fidelity.samples"), 5);
	cr_assert_str_eq(json_string_value(json_object_get(f, "verdict")), "machine-limited");
	cr_assert(strstr(json_string_value(json_object_get(f, "detail")), "CPU was saturated"), "%s",
		  json_string_value(json_object_get(f, "detail")));
	json_decref(s);
}

/* The largest rate any server port carried in one links.csv sample, Mbit/s
 * in the run's own seconds. */
static double max_server_mbps(const char *path)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	char line[512];
	double max = 0;
	while (fgets(line, sizeof line, f)) {
		double t, tx, rx;
		char link[64], cls[16];
		/* t_s,link,class,rack,server,port,tx_bytes,rx_bytes,tx_mbps,rx_mbps,... */
		if (sscanf(line, "%lf,%63[^,],%15[^,],%*d,%*d,%*d,%*u,%*u,%lf,%lf", &t, link, cls, &tx, &rx) == 5 &&
		    !strcmp(cls, "server"))
			max = fmax(max, fmax(tx, rx));
	}
	fclose(f);
	return max;
}

/* A server's route as `ip route` shows it, read while the run is up (the
 * fabric goes with the run); "" if it never came up within ~10 s. */
static void server_route_while_up(char *out, size_t len)
{
	out[0] = 0;
	for (int i = 0; i < 200 && !out[0]; i++) {
		FILE *p = popen("ip -n " P "-r0h0 route show 2>/dev/null", "r");
		if (p) {
			if (!fgets(out, (int)len, p))
				out[0] = 0;
			pclose(p);
		}
		if (!out[0])
			usleep(50000);
	}
}

/* Slow motion: the same job at --slowdown 3 takes about as long in the run's
 * own seconds and three times as long on the wall clock, its links carry
 * no more than their rates in run seconds (the fabric ran at a third of
 * them), its reconfigurations stay δ long in run seconds, and TCP's minimum
 * RTO on the servers is three times the kernel's 200 ms. */
Test(run, slowdown_runs_in_slow_motion_and_reports_the_runs_own_seconds)
{
	use_workload(slow_workload);
	double makespan[2], wall[2];
	static const char *const runs[] = {"x1", "x3"};
	for (int i = 0; i < 2; i++) {
		const char *extra[] = {"--elephant", "100KB", "--ocs-interval", "0.5", "--slowstart", "1", "--quiet",
				       "--monitor", "0.5", "--slowdown", i ? "3" : "1", NULL};
		char log[] = "/tmp/emu-itrun-log-slow", route[512];
		pid_t pid = start_run(runs[i], extra, log);
		server_route_while_up(route, sizeof route);
		int rc = rx_wait_exit(pid);
		if (rc)
			show_log(log);
		cr_assert_eq(rc, 0, "%s: emu run exited %d", runs[i], rc);
		json_t *s = summary("fair", runs[i]);
		makespan[i] = rx_num(s, "makespan_s");
		wall[i] = rx_num(s, "wall_s");
		cr_assert_float_eq(rx_num(s, "parameters.slowdown"), i ? 3.0 : 1.0, 1e-9);
		/* Node-local maps end no sooner than their compute allows, in run
		 * seconds too: a task timer not stretched by K would end them early. */
		cr_assert_gt(rx_num(s, "fidelity.task_lateness.tasks"), 0);
		double late = rx_num(s, "fidelity.task_lateness.mean_s");
		cr_log_info("%s: node-local maps %.1f ms late", runs[i], late * 1e3);
		cr_assert(late > -0.002 && late < 0.3, "%s: maps %.3f s past their compute", runs[i], late);
		json_decref(s);
		cr_assert(i ? strstr(route, "rto_min lock 600ms") != NULL : route[0] && !strstr(route, "rto_min"),
			  "%s: server route \"%s\"", runs[i], route);
	}
	cr_log_info("makespan %.2f / %.2f s (run seconds), wall %.1f / %.1f s", makespan[0], makespan[1], wall[0],
		    wall[1]);
	cr_assert(makespan[1] > 0.7 * makespan[0] && makespan[1] < 1.4 * makespan[0],
		  "slow motion changed the run's own times: %.2f against %.2f s", makespan[1], makespan[0]);
	/* Setup costs the same; the run itself takes 3x, so about 2 makespans more. */
	cr_assert_geq(wall[1] - wall[0], 1.3 * makespan[0], "wall %.1f against %.1f s", wall[1], wall[0]);
	double mbps = max_server_mbps(RESULTS "/it/fair/x3/links.csv");
	cr_log_info("busiest server port sample: %.1f Mbit/s in run seconds (its rate: 100)", mbps);
	cr_assert(mbps > 30 && mbps < 115, "a server port carried %.1f Mbit/s per run second", mbps);
	/* ocs.csv's dark_s is in run seconds too: about δ (10 ms), not 3δ. */
	FILE *f = fopen(RESULTS "/it/fair/x3/ocs.csv", "r");
	cr_assert_not_null(f);
	char line[1024];
	int n = 0;
	double dark_max = 0, dark_min = 1e9;
	while (fgets(line, sizeof line, f)) {
		double t_s, dark;
		/* t_s,t_announce,t_dark,t_switch,t_lit,changed,drain_s,dark_s,... */
		if (sscanf(line, "%lf,%*f,%*f,%*f,%*f,%*d,%*f,%lf", &t_s, &dark) == 2) {
			n++;
			dark_min = fmin(dark_min, dark);
			dark_max = fmax(dark_max, dark);
		}
	}
	fclose(f);
	cr_assert_geq(n, 1);
	cr_assert(dark_min > 0.008 && dark_min < 0.02, "dark %.4f-%.4f s in run seconds over %d reconfigurations",
		  dark_min, dark_max, n);
}
