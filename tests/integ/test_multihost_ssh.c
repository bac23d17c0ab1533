/* Integration test (root): `emu run --hosts` over "real" hosts, reached by
 * a stand-in ssh.  A site of two emulated machines (a LAN and the
 * namespaces itsite-m-a and -b, netctl/lan.h) stands for two computers; the
 * hosts file names them as real (root@node-a, root@node-b), and an `ssh` on
 * PATH runs the command it is given inside the machine the name maps to.
 * The controller runs on the first machine, as it would on real hosts.  So
 * the fabric's parts and host b's agents take the real hosts' path: the
 * launcher over ssh, the secret on the starter's standard input. */
#include "netctl/lan.h"
#include "run_fixture.h"
#include <criterion/logging.h>
#include <sched.h>
#include <sys/stat.h>

#define P "itssh"
#define SITE "itsite"
#define RESULTS "/tmp/emu-itssh-results"

static const char *topo_text =
	"name = \"itssh\"; racks = 3; servers_per_rack = 2;\n"
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

/* The machines, and the same two as real hosts. */
static const char *site = "a emulated lan0 10.83.0.1 auto mtu=1550\nb emulated lan0 10.83.0.2 auto mtu=1550\n";
static const char *real = "a root@node-a lan0 10.83.0.1 auto mtu=1550\nb root@node-b lan0 10.83.0.2 auto mtu=1550\n";

static char topo_path[] = "/tmp/emu-itssh-topo-XXXXXX";
static char wl_path[] = "/tmp/emu-itssh-wl-XXXXXX";
static char real_path[] = "/tmp/emu-itssh-hosts-XXXXXX";
static char ssh_dir[] = "/tmp/emu-itssh-bin-XXXXXX";

static void setup(void)
{
	fx_need_root();
	fabric_down(P, NULL);
	fabric_down(SITE, NULL);
	rx_write_file(topo_path, topo_text);
	rx_write_file(wl_path, workload_text);
	rx_write_file(real_path, real);
	struct hosts hs;
	char err[FABRIC_ERR_LEN], emu[600], path[700], script[2000];
	cr_assert_eq(hosts_load_string(&hs, site, "site", err), 0, "%s", err);
	cr_assert_eq(lan_up(SITE, &hs, err), 0, "%s", err);
	/* The stand-in: `ssh -o BatchMode=yes -T -- root@node-X CMD ARGS...`
	 * runs CMD from the build's bin/ inside itsite-m-X (the network
	 * namespace alone: the machine's /run/netns stays the one the
	 * controller sees), and logs what it was asked. */
	rx_emu_path(emu, sizeof emu);
	*strrchr(emu, '/') = 0;
	cr_assert_not_null(mkdtemp(ssh_dir));
	snprintf(script, sizeof script,
		 "#!/bin/sh\n"
		 "while [ $# -gt 0 ]; do case \"$1\" in -o) shift 2;; -T) shift;; --) shift; break;; *) break;; esac; done\n"
		 "case \"$1\" in root@node-a) m=a;; root@node-b) m=b;; *) echo \"ssh: $1: no such host\" >&2; exit 255;; esac\n"
		 "shift\n"
		 "echo \"node-$m $*\" >> %s/log\n"
		 "PATH=%s:$PATH exec nsenter --net=/run/netns/" SITE "-m-$m -- \"$@\"\n",
		 ssh_dir, emu);
	snprintf(path, sizeof path, "%s/ssh", ssh_dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(script, f);
	fclose(f);
	chmod(path, 0700);
}

static void teardown(void)
{
	rx_teardown(P, (const char *[]){topo_path, wl_path, real_path, NULL}, RESULTS);
	fabric_down(SITE, NULL);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", ssh_dir);
	if (system(cmd)) { /* best effort */ }
}

TestSuite(multihostssh, .init = setup, .fini = teardown, .timeout = 180);

/* emu run, inside machine a's namespace when over the hosts, with the
 * stand-in ssh first on PATH. */
static int run(const char *name, bool hosts, const char *log)
{
	char emu[600], path[4096];
	rx_emu_path(emu, sizeof emu);
	const char *argv[] = {emu, "run", "--topology", topo_path, "--workload", wl_path, "--prefix", P,
			      "--results", RESULTS, "--experiment", "it", "--run", name, "--timeout", "120", "--quiet",
			      "--elephant", "100KB", "--ocs-interval", "0.5", "--slowstart", "1",
			      hosts ? "--hosts" : NULL, real_path, NULL};
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644), ns = open("/run/netns/" SITE "-m-a", O_RDONLY);
		if (fd < 0 || ns < 0 || (hosts && setns(ns, CLONE_NEWNET)))
			_exit(126);
		snprintf(path, sizeof path, "%s:%s", ssh_dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
		setenv("PATH", path, 1);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(emu, (char *const *)argv);
		_exit(127);
	}
	int rc = rx_wait_exit(pid);
	if (rc) {
		char cmd[600];
		snprintf(cmd, sizeof cmd, "tail -20 %s >&2", log);
		if (system(cmd)) { /* diagnostics only */ }
	}
	return rc;
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

/* The most bytes any link of `rack` sent, over links.csv's samples. */
static double rack_tx_max(const char *path, int rack)
{
	char line[512], link[64], cls[32];
	double t, most = 0;
	int rk, server, port;
	unsigned long long tx;
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%lf,%63[^,],%31[^,],%d,%d,%d,%llu", &t, link, cls, &rk, &server, &port, &tx) == 7 &&
		    rk == rack && tx > most)
			most = (double)tx;
	fclose(f);
	return most;
}

static bool file_has(const char *path, const char *needle)
{
	char line[1024];
	bool yes = false;
	FILE *f = fopen(path, "r");
	while (f && !yes && fgets(line, sizeof line, f))
		yes = strstr(line, needle) != NULL;
	if (f)
		fclose(f);
	return yes;
}

Test(multihostssh, a_run_over_two_real_hosts_has_the_jobs_and_bytes_of_one_host)
{
	const char *name[2] = {"one", "ssh"};
	char log[] = "/tmp/emu-itssh-log", ssh_log[600];
	double jobs[2], tasks[2], shuffle[2], reconf[2], ocs[2], cross[2], rack1[2];
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(run(name[i], i == 1, log), 0, "%s: emu run failed (see %s)", name[i], log);
		cr_assert_eq(fx_ip_netns_count(P), 0, "%s: the fabric must be gone after the run", name[i]);
		char path[512];
		snprintf(path, sizeof path, RESULTS "/it/fair/%s/summary.json", name[i]);
		json_t *s = rx_summary(path);
		cr_assert(json_is_false(json_object_get(s, "partial")), "%s", name[i]);
		jobs[i] = rx_num(s, "jobs_finished");
		shuffle[i] = rx_num(s, "agent_bytes.shuffle_network") + rx_num(s, "agent_bytes.shuffle_local");
		reconf[i] = rx_num(s, "ocs.reconfigurations");
		ocs[i] = rx_num(s, "ocs_bytes");
		cross[i] = rx_num(s, "cross_rack_bytes");
		json_decref(s);
		/* Host b's rack's links' counters (read there by its host-ctl). */
		snprintf(path, sizeof path, RESULTS "/it/fair/%s/links.csv", name[i]);
		rack1[i] = rack_tx_max(path, 1);
		snprintf(path, sizeof path, RESULTS "/it/fair/%s/tasks.csv", name[i]);
		tasks[i] = lines(path) - 1;
		cr_log_info("%s: %.0f jobs, %.0f tasks, shuffle %.0f B, %.0f reconfigurations, cross-rack %.0f B, on "
			    "circuits %.0f B, rack 1's busiest link sent %.0f B", name[i], jobs[i], tasks[i], shuffle[i], reconf[i],
			    cross[i], ocs[i], rack1[i]);
	}
	cr_assert_eq(jobs[1], 3);
	cr_assert_eq(jobs[1], jobs[0]);
	cr_assert_eq(tasks[1], 18, "every task once, none again");
	cr_assert_eq(tasks[1], tasks[0]);
	cr_assert_eq((unsigned long long)shuffle[1], TOTAL_SHUFFLE);
	cr_assert_eq((unsigned long long)shuffle[0], TOTAL_SHUFFLE);
	cr_assert_geq(reconf[1], 1, "the crossbar's two slices were reconfigured");
	/* The circuits carried bytes across the hosts: host b's slice and ToRs
	 * were switched and routed by its host-ctl in step with host a's. */
	cr_assert(ocs[1] > 0.3 * cross[1], "only %.0f of %.0f cross-rack bytes on circuits", ocs[1], cross[1]);
	cr_assert_gt(rack1[1], 1e6, "host b's rack's counters were not read");
	/* Both parts and host b's agents went over ssh; host a's agents did
	 * not (the controller's own), and nothing was left running. */
	snprintf(ssh_log, sizeof ssh_log, "%s/log", ssh_dir);
	cr_assert(file_has(ssh_log, "node-a netctl --prefix " P " host-up --host a"), "no host-up over ssh on a");
	cr_assert(file_has(ssh_log, "node-b netctl --prefix " P " host-up --host b"), "no host-up over ssh on b");
	cr_assert(file_has(ssh_log, "node-b emu-agent --spawn --prefix " P " --host b"), "b's agents not over ssh");
	cr_assert(!file_has(ssh_log, "node-a emu-agent"), "a's agents are the controller's own");
	cr_assert(file_has(ssh_log, "node-b netctl --prefix " P " host-ctl --host b"), "no host-ctl over ssh on b");
	cr_assert(!file_has(ssh_log, "node-a netctl --prefix " P " host-ctl"), "a's racks are the controller's own");
	cr_assert(file_has(ssh_log, "node-b netctl --prefix " P " host-down --host b"), "no host-down over ssh on b");
	cr_assert_eq(rx_find_process(P, "emu-agent", ""), -1, "an agent or starter outlived the run");
	unlink(log);
}
