/* Crash safety (root): SIGINT stops a run cleanly with partial results;
 * kill -9 of the controller, of one agent or of every agent at random
 * moments, repeated, leaves nothing behind after `emu cleanup`, and every
 * result file that exists is whole. */
#include "emu/cluster.h"
#include "run_fixture.h"
#include <criterion/logging.h>
#include <jansson.h>
#include <signal.h>
#include <sys/stat.h>

#define P "itcr"
#define RESULTS "/tmp/emu-itcr-results"

static const char *topo_text =
	"racks = 3; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; containers = 2; };\n"
	"eps = { uplink_rate = \"50Mbit\"; };\n"
	"ocs = { rate = \"200Mbit\"; };\n";

/* ~6 s of work: enough to be caught at any stage. */
static const char *workload_text =
	"{\"scaled\": true, \"jobs\": [\n"
	" {\"name\": \"a\", \"submit\": 0, \"input\": 12000000, \"shuffle\": 24000000, \"output\": 1000,"
	"  \"maps\": 12, \"reduces\": 6, \"map_duration\": 1.0, \"reduce_duration\": 0.5},\n"
	" {\"name\": \"b\", \"submit\": 1, \"input\": 6000000, \"shuffle\": 6000000, \"output\": 1000,"
	"  \"maps\": 6, \"reduces\": 3, \"map_duration\": 0.8, \"reduce_duration\": 0.5}]}\n";

static char topo_path[64], wl_path[64];

static void setup(void)
{
	fx_need_root();
	rx_kill_strays(P);
	fabric_down(P, NULL);
	strcpy(topo_path, "/tmp/emu-itcr-topo-XXXXXX");
	strcpy(wl_path, "/tmp/emu-itcr-wl-XXXXXX");
	rx_write_file(topo_path, topo_text);
	rx_write_file(wl_path, workload_text);
}

static void teardown(void)
{
	rx_teardown(P, (const char *[]){topo_path, wl_path, NULL}, RESULTS);
}

TestSuite(crash, .init = setup, .fini = teardown, .timeout = 300);

static pid_t start_run(const char *name)
{
	char emu[600];
	rx_emu_path(emu, sizeof emu);
	const char *argv[] = {emu, "run", "--topology", topo_path, "--workload", wl_path, "--prefix", P, "--results",
			      RESULTS, "--experiment", "cr", "--run", name, "--elephant", "100KB", "--ocs-interval",
			      "0.5", "--timeout", "60", "--quiet", NULL};
	return rx_spawn(argv, "/tmp/emu-itcr-log");
}

static void cleanup_cmd(void)
{
	char emu[600];
	rx_emu_path(emu, sizeof emu);
	const char *argv[] = {emu, "cleanup", "--prefix", P, NULL};
	cr_assert_eq(rx_wait_exit(rx_spawn(argv, NULL)), 0);
}

/* Nothing of the prefix remains: namespaces (and their /run/netns mounts),
 * processes, state, temporary files; every result file parses. */
static void assert_nothing_left(const char *when)
{
	cr_assert_eq(fx_ip_netns_count(P), 0, "%s: namespaces left", when);
	cr_assert_eq(fx_ns_count(P), 0, "%s: /run/netns entries left", when);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "grep -q ' /run/netns/%s-' /proc/self/mountinfo", P);
	cr_assert_neq(system(cmd), 0, "%s: netns mounts left", when);
	cr_assert_eq(rx_find_process(P, "emu-agent", "--server"), -1, "%s: an agent survived", when);
	cr_assert_eq(rx_find_process(P, "emu", " run "), -1, "%s: a controller survived", when);
	struct stat st;
	cr_assert_neq(stat("/run/emu/" P, &st), 0, "%s: state left", when);
	snprintf(cmd, sizeof cmd, "test -z \"$(find %s -name '*.tmp' 2>/dev/null)\"", RESULTS);
	cr_assert_eq(system(cmd), 0, "%s: temporary files left", when);
	/* Every summary that exists is complete JSON. */
	snprintf(cmd, sizeof cmd,
		 "for f in $(find %s -name summary.json 2>/dev/null); do python3 -c \"import json,sys; json.load(open('$f'))\" || exit 1; done",
		 RESULTS);
	cr_assert_eq(system(cmd), 0, "%s: a summary.json does not parse", when);
}

Test(crash, sigint_stops_cleanly_with_partial_results)
{
	pid_t pid = start_run("sigint");
	for (int i = 0; i < 100 && rx_find_process(P, "emu-agent", "--server") < 0; i++)
		rx_sleep(0.1);
	rx_sleep(1.5);
	kill(pid, SIGINT);
	int rc = rx_wait_exit(pid);
	cr_assert_eq(rc, 1, "an interrupted run exits 1 (got %d)", rc);
	json_error_t e;
	json_t *s = json_load_file(RESULTS "/cr/fair/sigint/summary.json", 0, &e);
	cr_assert_not_null(s, "%s", e.text);
	cr_assert(json_is_true(json_object_get(s, "partial")));
	cr_assert_str_eq(json_string_value(json_object_get(s, "stop_reason")), "interrupted");
	json_decref(s);
	/* It cleaned up by itself: no emu cleanup needed. */
	assert_nothing_left("after SIGINT");
}

/* `emu cleanup` during a run: once it returns, the agents it killed are out
 * of /proc (reaped, not zombies that ps and pgrep still list). */
Test(crash, cleanup_returns_once_the_processes_it_killed_are_gone)
{
	pid_t pid = start_run("cleanup"), agents[16];
	int n = 0;
	for (int i = 0; i < 100 && (n = rx_find_processes(P, "emu-agent", "--server", agents, 16)) < 6; i++)
		rx_sleep(0.05);
	cr_assert_eq(n, 6, "expected the run's 6 agents, found %d", n);
	cleanup_cmd();
	for (int i = 0; i < n; i++) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d", (int)agents[i]);
		cr_expect_neq(access(path, F_OK), 0, "agent %d still in /proc after emu cleanup returned", (int)agents[i]);
	}
	rx_wait_exit(pid);
	cleanup_cmd();
	assert_nothing_left("after emu cleanup during a run");
}

Test(crash, kill_9_anything_at_random_moments)
{
	/* Deterministic "random" schedule so a failure can be reproduced. */
	struct rng r = {20261122};
	int iterations = getenv("EMU_CRASH_LOOPS") ? atoi(getenv("EMU_CRASH_LOOPS")) : 6;
	for (int it = 0; it < iterations; it++) {
		int victim = it % 3;   /* 0 controller, 1 one agent, 2 every agent */
		double at = 0.3 + (double)(rng_next(&r) % 3000) / 1000.0;
		char name[32];
		snprintf(name, sizeof name, "loop%d", it);
		pid_t pid = start_run(name);
		for (int i = 0; i < 100 && rx_find_process(P, "emu-agent", "--server") < 0; i++)
			rx_sleep(0.05);
		rx_sleep(at);
		if (victim == 0) {
			kill(pid, SIGKILL);
		} else {
			pid_t a;
			int killed = 0;
			while ((a = rx_find_process(P, "emu-agent", "--server")) > 0 && (victim == 2 || !killed)) {
				kill(a, SIGKILL);
				killed++;
				rx_sleep(0.01);
			}
		}
		int rc = rx_wait_exit(pid);
		cr_log_info("iteration %d: killed %s at %.2f s, run exited %d", it,
			    victim == 0 ? "the controller" : victim == 1 ? "one agent" : "every agent", at, rc);
		/* A run that lost one agent still completes (or, if the kill came
		 * after the end, it already had). */
		if (victim == 1)
			cr_assert_eq(rc, 0, "iteration %d: a run that lost one agent exited %d", it, rc);
		cleanup_cmd();
		char when[64];
		snprintf(when, sizeof when, "iteration %d", it);
		assert_nothing_left(when);
	}
}
