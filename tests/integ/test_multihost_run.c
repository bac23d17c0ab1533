/* Integration tests (root): `emu run --hosts` on emulated hosts, against
 * the same run on one host; a host's pieces killed mid-run. */
#include "run_fixture.h"
#include "traffic.h"
#include <criterion/logging.h>
#include <signal.h>
#include <sys/stat.h>

#define P "itmhr"
#define RESULTS "/tmp/emu-itmhr-results"

/* test_run.c's fabric: 3 racks of 2 servers. */
static const char *topo_text =
	"name = \"itmhr\"; racks = 3; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; containers = 2; };\n"
	"eps = { uplink_rate = \"50Mbit\"; };\n"
	"ocs = { rate = \"200Mbit\"; };\n";

static const char *workload_text =
	"{\"scaled\": true, \"jobs\": [\n"
	" {\"name\": \"a\", \"submit\": 0, \"input\": 4000000, \"shuffle\": 6000000, \"output\": 1000,"
	"  \"maps\": 4, \"reduces\": 2, \"map_duration\": 0.3, \"reduce_duration\": 0.3},\n"
	" {\"name\": \"b\", \"submit\": 0, \"input\": 2000000, \"shuffle\": 3000000, \"output\": 1000,"
	"  \"maps\": 4, \"reduces\": 2, \"map_duration\": 0.3, \"reduce_duration\": 0.3},\n"
	" {\"name\": \"c\", \"submit\": 0.5, \"input\": 8000000, \"shuffle\": 8000000, \"output\": 1000,"
	"  \"maps\": 4, \"reduces\": 2, \"map_duration\": 0.3, \"reduce_duration\": 0.3}\n"
	"]}\n";
#define TOTAL_SHUFFLE (6000000ULL + 3000000ULL + 8000000ULL)

/* Racks 0 and 2 on a, rack 1 on b; then one rack per host. */
static const char *two = "a emulated lan0 10.80.0.1 auto mtu=1550\nb emulated lan0 10.80.0.2 auto mtu=1550\n";
static const char *three =
	"a emulated lan0 10.80.0.1 auto\nb emulated lan0 10.80.0.2 auto\nc emulated lan0 10.80.0.3 auto\n";

static char topo_path[] = "/tmp/emu-itmhr-topo-XXXXXX";
static char wl_path[] = "/tmp/emu-itmhr-wl-XXXXXX";
static char two_path[] = "/tmp/emu-itmhr-two-XXXXXX";
static char three_path[] = "/tmp/emu-itmhr-three-XXXXXX";

static void setup(void)
{
	fx_need_root();
	fabric_down(P, NULL);
	rx_write_file(topo_path, topo_text);
	rx_write_file(wl_path, workload_text);
	rx_write_file(two_path, two);
	rx_write_file(three_path, three);
}

static void teardown(void)
{
	rx_teardown(P, (const char *[]){topo_path, wl_path, two_path, three_path, NULL}, RESULTS);
}

TestSuite(multihostrun, .init = setup, .fini = teardown, .timeout = 240);

static pid_t start_run(const char *run_name, const char *hosts, const char *const *extra, const char *log)
{
	char emu[600];
	rx_emu_path(emu, sizeof emu);
	const char *argv[48] = {emu, "run", "--topology", topo_path, "--workload", wl_path, "--prefix", P,
				"--results", RESULTS, "--experiment", "it", "--run", run_name, "--timeout", "180",
				"--quiet"};
	int n = 17;
	if (hosts) {
		argv[n++] = "--hosts";
		argv[n++] = hosts;
	}
	for (int i = 0; extra && extra[i]; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	return rx_spawn(argv, log);
}

static int lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;
	cr_assert_not_null(f, "%s", path);
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static json_t *finished_run(const char *run_name, const char *hosts, const char *const *extra)
{
	char log[] = "/tmp/emu-itmhr-log", path[512];
	int rc = rx_wait_exit(start_run(run_name, hosts, extra, log));
	if (rc) {
		char cmd[600];
		snprintf(cmd, sizeof cmd, "tail -20 %s >&2", log);
		if (system(cmd)) { /* diagnostics only */ }
	}
	cr_assert_eq(rc, 0, "%s: emu run exited %d", run_name, rc);
	cr_assert_eq(fx_ip_netns_count(P), 0, "%s: the fabric must be gone after the run", run_name);
	snprintf(path, sizeof path, RESULTS "/it/fair/%s/summary.json", run_name);
	return rx_summary(path);
}

Test(multihostrun, a_split_run_has_the_jobs_and_bytes_of_one_host)
{
	/* Elephants over circuits, so the crossbar's slices carry them across hosts. */
	const char *extra[] = {"--elephant", "100KB", "--ocs-interval", "0.5", "--slowstart", "1", NULL};
	const char *name[3] = {"one", "two", "three"}, *hosts[3] = {NULL, two_path, three_path};
	double jobs[3], tasks[3], shuffle[3], ocs[3], cross[3], reconf[3];
	for (int i = 0; i < 3; i++) {
		json_t *s = finished_run(name[i], hosts[i], extra);
		jobs[i] = rx_num(s, "jobs_finished");
		char path[512];
		snprintf(path, sizeof path, RESULTS "/it/fair/%s/tasks.csv", name[i]);
		tasks[i] = lines(path) - 1;
		shuffle[i] = rx_num(s, "agent_bytes.shuffle_network") + rx_num(s, "agent_bytes.shuffle_local");
		ocs[i] = rx_num(s, "ocs_bytes");
		cross[i] = rx_num(s, "cross_rack_bytes");
		reconf[i] = rx_num(s, "ocs.reconfigurations");
		cr_assert(json_is_false(json_object_get(s, "partial")), "%s", name[i]);
		/* A split run says over which hosts. */
		json_t *hl = json_object_get(json_object_get(s, "parameters"), "hosts");
		cr_assert_eq(hl ? (int)json_array_size(hl) : 0, i ? i + 1 : 0, "%s: parameters.hosts", name[i]);
		if (hl)
			cr_assert_str_eq(json_string_value(json_array_get(hl, 1)), "b");
		json_decref(s);
		cr_log_info("%s host(s): %.0f jobs, %.0f tasks, shuffle %.0f B, cross-rack %.0f B, on circuits %.0f B, "
			    "%.0f reconfigurations", name[i], jobs[i], tasks[i], shuffle[i], cross[i], ocs[i], reconf[i]);
	}
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(jobs[i], 3, "%s", name[i]);
		cr_assert_eq(tasks[i], tasks[0], "%s", name[i]);
		cr_assert_eq(tasks[i], 18, "%s: every task once, none again", name[i]);
		cr_assert_eq((unsigned long long)shuffle[i], TOTAL_SHUFFLE, "%s: shuffle bytes %.0f", name[i], shuffle[i]);
		cr_assert_geq(reconf[i], 1, "%s", name[i]);
		/* Where the scheduler put tasks varies run to run, and with it what
		 * crosses racks; the circuits carry much of it either way. */
		cr_assert(ocs[i] > 0.3 * cross[i], "%s: only %.0f of %.0f cross-rack bytes on circuits", name[i], ocs[i],
			  cross[i]);
	}
	/* Each host's dark gap, one line per host and reconfiguration. */
	cr_assert_eq(lines(RESULTS "/it/fair/three/ocs_hosts.csv"), 1 + 3 * (int)reconf[2]);
	struct stat st;
	cr_assert_neq(stat(RESULTS "/it/fair/one/ocs_hosts.csv", &st), 0, "one host has no per-host log");
}

static const char *slow_workload =
	"{\"scaled\": true, \"jobs\": [\n"
	" {\"name\": \"long\", \"submit\": 0, \"input\": 12000000, \"shuffle\": 24000000, \"output\": 1000,"
	"  \"maps\": 12, \"reduces\": 6, \"map_duration\": 1.0, \"reduce_duration\": 0.5}]}\n";

/* Running: not gone, and not a zombie waiting for whoever inherited it. */
static bool alive(pid_t pid)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	bool yes = f && fgets(line, sizeof line, f) && strrchr(line, ')') && strrchr(line, ')')[2] != 'Z';
	if (f)
		fclose(f);
	return yes;
}

Test(multihostrun, killing_a_hosts_pieces_fails_its_tasks_over)
{
	unlink(wl_path);
	strcpy(wl_path, "/tmp/emu-itmhr-wl-XXXXXX");
	rx_write_file(wl_path, slow_workload);
	char log[] = "/tmp/emu-itmhr-log-kill";
	/* Circuits too: the crossbar goes on reconfiguring without host b. */
	const char *extra[] = {"--elephant", "100KB", "--ocs-interval", "0.5", NULL};
	pid_t pid = start_run("killed", two_path, extra, log);
	/* Host b carries rack 1: both its servers' agents. */
	pid_t victim[2] = {-1, -1};
	for (int i = 0; i < 100 && (victim[0] < 0 || victim[1] < 0); i++, rx_sleep(0.1)) {
		victim[0] = rx_find_process(P, "emu-agent", "--server r1h0 ");
		victim[1] = rx_find_process(P, "emu-agent", "--server r1h1 ");
	}
	cr_assert(victim[0] > 0 && victim[1] > 0, "host b's agents not found");
	/* Everything the launcher started on host b: its starter (its agents die
	 * with it, a parent-death signal) and its two host-ctl (the controller's
	 * and the OCS thread's). */
	pid_t starter = rx_find_process(P, "emu-agent --spawn ", "--host b "), ctl[2];
	cr_assert_gt(starter, 0, "host b's starter not found");
	cr_assert_eq(rx_find_processes(P, "netctl", "host-ctl --host b ", ctl, 2), 2, "host b's host-ctl not found");
	rx_sleep(2.0);
	kill(starter, SIGKILL);
	kill(ctl[0], SIGKILL);
	kill(ctl[1], SIGKILL);
	for (int i = 0; i < 100 && (alive(victim[0]) || alive(victim[1])); i++)
		rx_sleep(0.01);
	cr_assert(!alive(victim[0]) && !alive(victim[1]), "host b's agents outlived their starter by 1 s");
	int rc = rx_wait_exit(pid);
	cr_assert_eq(rc, 0, "emu run exited %d", rc);
	char path[512];
	snprintf(path, sizeof path, RESULTS "/it/fair/killed/summary.json");
	json_t *s = rx_summary(path);
	cr_assert_eq(rx_num(s, "jobs_finished"), 1);
	cr_log_info("re-runs after host b's agents died: %.0f", rx_num(s, "task_reruns"));
	cr_assert_geq(rx_num(s, "task_reruns"), 1, "host b's tasks must have run again on host a");
	cr_log_info("reconfigurations: %.0f", rx_num(s, "ocs.reconfigurations"));
	json_decref(s);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "grep -q 'netctl: host b is lost' %s", log);
	cr_assert_eq(system(cmd), 0, "the lost host is not said in %s", log);
	cr_assert_eq(fx_ip_netns_count(P), 0);
}

/* The measure of done: the default experiment (`emu run` with no
 * topology or workload: the GENI-like fabric, 20 jobs) split over two
 * emulated hosts runs every job and task once and moves every shuffle byte,
 * as its simulated twin on one host does. */
Test(multihostrun, the_default_experiment_over_two_hosts_does_the_work_of_one_host, .timeout = 300)
{
	char emu[600], log[] = "/tmp/emu-itmhr-log";
	rx_emu_path(emu, sizeof emu);
	const char *split[] = {emu, "run", "--prefix", P, "--results", RESULTS, "--experiment", "def",
			       "--run", "two", "--hosts", two_path, "--timeout", "240", "--quiet", NULL};
	const char *twin[] = {emu, "run", "--backend", "sim", "--results", RESULTS, "--experiment", "def",
			      "--run", "sim", "--quiet", NULL};
	cr_assert_eq(rx_wait_exit(rx_spawn(split, log)), 0, "the split run failed (see %s)", log);
	cr_assert_eq(fx_ip_netns_count(P), 0, "the fabric must be gone after the run");
	cr_assert_eq(rx_wait_exit(rx_spawn(twin, log)), 0, "the simulated twin failed (see %s)", log);
	const char *name[2] = {"two", "sim"};
	double jobs[2], tasks[2], shuffle[2];
	for (int i = 0; i < 2; i++) {
		char path[512];
		snprintf(path, sizeof path, RESULTS "/def/fair/%s/summary.json", name[i]);
		json_t *s = rx_summary(path);
		cr_assert(json_is_false(json_object_get(s, "partial")), "%s", name[i]);
		jobs[i] = rx_num(s, "jobs_finished");
		shuffle[i] = rx_num(s, "agent_bytes.shuffle_network") + rx_num(s, "agent_bytes.shuffle_local");
		json_decref(s);
		snprintf(path, sizeof path, RESULTS "/def/fair/%s/tasks.csv", name[i]);
		tasks[i] = lines(path) - 1;
	}
	cr_log_info("default experiment: %.0f / %.0f jobs, %.0f / %.0f tasks, %.0f / %.0f shuffle bytes (two hosts / "
		    "simulated)", jobs[0], jobs[1], tasks[0], tasks[1], shuffle[0], shuffle[1]);
	cr_assert_gt(jobs[1], 1);
	cr_assert_eq(jobs[0], jobs[1]);
	cr_assert_eq(tasks[0], tasks[1]);
	cr_assert_eq((unsigned long long)shuffle[0], (unsigned long long)shuffle[1]);
}
