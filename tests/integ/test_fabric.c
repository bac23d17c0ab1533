/* Integration tests of the fabric (root): real namespaces, real packets.
 *
 * Rates are checked against TCP goodput: rate x 1448/1514 (MSS over
 * Ethernet frame with timestamps).  Tolerances are a few percent, wide
 * enough for a loaded 2-core machine, narrow enough to catch wrong shaping. */
#include "fabric_fixture.h"
#include "traffic.h"
#include <criterion/logging.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define P "itest"

/* 3 racks x 2 servers; the uplink is the bottleneck for cross-rack traffic
 * and the circuit's rate lies between the uplink's and the server's. */
static const char *topo3 =
	"name = \"itest\"; racks = 3; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"20Mbit\"; };\n"
	"ocs = { rate = \"60Mbit\"; };\n";

static void setup(void)
{
	fx_need_root();
	fabric_down(P, NULL);
	tr_set_congestion("cubic");   /* what the topology pins */
}
static void teardown(void) { if (geteuid() == 0) fabric_down(P, NULL); }

TestSuite(fabric, .init = setup, .fini = teardown, .timeout = 120);

static void ns(char *buf, int rack, int server)
{
	sprintf(buf, P "-r%dh%d", rack, server);
}

static void ip(char *buf, int rack, int server)
{
	sprintf(buf, "198.18.%d.%d", rack, server + 1);
}

static uint64_t tor_tx(int rack, const char *ifname)
{
	char name[32];
	uint64_t tx = 0;
	sprintf(name, P "-tor%d", rack);
	cr_assert_eq(tr_link_counters(name, ifname, &tx, NULL, NULL, NULL), 0, "%s", tr_errmsg());
	return tx;
}

static uint64_t base_h1, base_o0, base_up0;
static void baseline_h1(void) { base_h1 = tor_tx(0, "h1"); }
static void baseline_tor0(void) { base_o0 = tor_tx(0, "o0"); base_up0 = tor_tx(0, "up"); }

/* Run flows; if every flow is not within [lo, hi] x its expected rate, run
 * them once more.  A 2-core machine that is still tearing down earlier
 * tests' namespaces in the kernel can steal 10% for a few seconds: one
 * retry absorbs that, while wrong shaping fails both times. */
static void run_flows_within(struct tr_flow *f, int n, double warm, double secs, const double *expect, double lo,
			     double hi, void (*before)(void))
{
	for (int attempt = 0; attempt < 2; attempt++) {
		before();   /* counters are compared with the attempt that counts */
		cr_assert_eq(tr_run_flows(f, n, warm, secs), 0, "%s", tr_errmsg());
		bool ok = true;
		for (int i = 0; i < n; i++)
			ok &= f[i].goodput_bps > lo * expect[i] && f[i].goodput_bps < hi * expect[i];
		if (ok)
			return;
		cr_log_info("attempt %d outside the expected rates; measuring again", attempt + 1);
		struct timespec ts = {2, 0};
		nanosleep(&ts, NULL);
	}
}

Test(fabric, every_server_reaches_every_other)
{
	struct topo t;
	fx_up(P, topo3, &t);
	cr_assert_eq(fx_ns_count(P), 3 * 2 + 3 + 2);
	for (int a = 0; a < 6; a++)
		for (int b = 0; b < 6; b++) {
			char sn[32], dn[32], da[32];
			if (a == b)
				continue;
			ns(sn, a / 2, a % 2);
			ns(dn, b / 2, b % 2);
			ip(da, b / 2, b % 2);
			cr_assert_eq(tr_tcp_reach(sn, dn, da, 2000), 0, "%s -> %s: %s", sn, dn, tr_errmsg());
		}
}

Test(fabric, intra_rack_flow_gets_server_rate)
{
	struct topo t;
	fx_up(P, topo3, &t);
	struct tr_flow f = {.src_ns = P "-r0h0", .dst_ns = P "-r0h1", .dst_addr = "198.18.0.2"};
	double want = tr_expected_goodput(100e6);
	run_flows_within(&f, 1, 1.0, 3.0, &want, 0.85, 1.04, baseline_h1);
	uint64_t wire = tor_tx(0, "h1") - base_h1;
	cr_log_info("intra-rack goodput %.2f Mbit/s (expected %.2f)", f.goodput_bps / 1e6, want / 1e6);
	cr_assert(f.goodput_bps > 0.85 * want && f.goodput_bps < 1.04 * want,
		  "goodput %.2f Mbit/s, expected %.2f -15%%..+4%%", f.goodput_bps / 1e6, want / 1e6);
	/* The link carried the payload plus headers (~4.6%), no more than ~10%. */
	cr_assert(wire >= f.total_bytes && wire < f.total_bytes * 1.10,
		  "ToR counted %llu bytes for %llu of payload", (unsigned long long)wire,
		  (unsigned long long)f.total_bytes);
}

/* A server that sends faster than it receives (GENI's task caps, the
 * topology's tx_rate): one sender feeds two receivers at their full rate,
 * while two senders into one receiver still share its rate. */
Test(fabric, a_server_sends_at_its_tx_rate_and_receives_at_its_rate)
{
	static const char *fast_tx =
		"name = \"itest\"; racks = 2; servers_per_rack = 3;\n"
		"server = { rate = \"50Mbit\"; tx_rate = \"200Mbit\"; };\n"
		"eps = { uplink_rate = \"20Mbit\"; };\n";
	struct topo t;
	fx_up(P, fast_tx, &t);
	double want = tr_expected_goodput(50e6);
	struct tr_flow out[2] = {
		{.src_ns = P "-r0h0", .dst_ns = P "-r0h1", .dst_addr = "198.18.0.2"},
		{.src_ns = P "-r0h0", .dst_ns = P "-r0h2", .dst_addr = "198.18.0.3"},
	};
	double full[2] = {want, want};
	run_flows_within(out, 2, 1.0, 3.0, full, 0.85, 1.04, baseline_h1);
	double sent = out[0].goodput_bps + out[1].goodput_bps;
	cr_log_info("one sender, two receivers: %.2f + %.2f Mbit/s (each expected %.2f)", out[0].goodput_bps / 1e6,
		    out[1].goodput_bps / 1e6, want / 1e6);
	/* Sending at the 50 Mbit/s it receives at, the two would share 50. */
	cr_assert(sent > 1.7 * want, "the sender carried %.2f Mbit/s, not twice the %.2f a receiver takes",
		  sent / 1e6, want / 1e6);
	struct tr_flow in[2] = {
		{.src_ns = P "-r0h1", .dst_ns = P "-r0h0", .dst_addr = "198.18.0.1"},
		{.src_ns = P "-r0h2", .dst_ns = P "-r0h0", .dst_addr = "198.18.0.1"},
	};
	double half[2] = {want / 2, want / 2};
	run_flows_within(in, 2, 1.0, 3.0, half, 0.10, 1.90, baseline_h1);
	double got = in[0].goodput_bps + in[1].goodput_bps;
	cr_log_info("two senders, one receiver: %.2f Mbit/s (expected %.2f)", got / 1e6, want / 1e6);
	cr_assert(got > 0.85 * want && got < 1.04 * want, "the receiver took %.2f Mbit/s, expected %.2f", got / 1e6,
		  want / 1e6);
}

Test(fabric, cross_rack_flows_share_the_eps_uplink)
{
	struct topo t;
	fx_up(P, topo3, &t);
	struct tr_flow f[2] = {
		{.src_ns = P "-r0h0", .dst_ns = P "-r1h0", .dst_addr = "198.18.1.1"},
		{.src_ns = P "-r0h1", .dst_ns = P "-r2h0", .dst_addr = "198.18.2.1"},
	};
	double want = tr_expected_goodput(20e6), half[2] = {want / 2, want / 2};
	/* TCP is not fair over four seconds on a shallow FIFO: a flow in RTO
	 * backoff can sit out most of a measurement.  Only starvation (under
	 * 5% of the uplink) in two measurements in a row is an error. */
	run_flows_within(f, 2, 1.5, 4.0, half, 0.10, 1.90, baseline_tor0);
	double sum = f[0].goodput_bps + f[1].goodput_bps;
	cr_log_info("uplink share: %.2f + %.2f = %.2f Mbit/s (expected %.2f)", f[0].goodput_bps / 1e6,
		    f[1].goodput_bps / 1e6, sum / 1e6, want / 1e6);
	cr_assert(sum > 0.88 * want && sum < 1.05 * want, "sum %.2f Mbit/s, expected %.2f", sum / 1e6, want / 1e6);
	for (int i = 0; i < 2; i++)
		cr_assert(f[i].goodput_bps > 0.05 * want, "flow %d starved: %.2f Mbit/s", i, f[i].goodput_bps / 1e6);
	cr_assert(tor_tx(0, "up") - base_up0 >= f[0].total_bytes + f[1].total_bytes);
}

Test(fabric, queueing_delay_stays_within_the_queue_limit)
{
	struct topo t;
	fx_up(P, topo3, &t);
	/* Saturate rack 0's uplink and probe the RTT across it. */
	struct tr_flow load[2] = {
		{.src_ns = P "-r0h0", .dst_ns = P "-r1h0", .dst_addr = "198.18.1.1"},
		{.src_ns = P "-r0h0", .dst_ns = P "-r2h0", .dst_addr = "198.18.2.1"},
	};
	struct tr_rtt r;
	cr_assert_eq(tr_rtt_stats(P "-r0h1", P "-r1h1", "198.18.1.2", 0, load, 2, 3.0, &r), 0, "%s", tr_errmsg());
	/* The uplink's bfifo holds queue_bytes: its drain time bounds the
	 * queueing delay; allow 3 ms for scheduling on a busy machine. */
	double limit_ms = (double)t.uplink.queue_bytes * 8 / (double)t.uplink.rate * 1e3;
	cr_log_info("RTT under load: median %.2f ms, p95 %.2f ms, max %.2f ms (queue limit %.2f ms)", r.median_ms,
		    r.p95_ms, r.max_ms, limit_ms);
	cr_assert(r.n >= 50, "only %d RTT samples", r.n);
	cr_assert(r.p95_ms < limit_ms + 3.0, "p95 RTT %.2f ms exceeds the %.2f ms queue limit", r.p95_ms, limit_ms);
	cr_assert(load[0].goodput_bps + load[1].goodput_bps > 0.9 * tr_expected_goodput(20e6), "uplink not loaded");
}

static struct fabric *open_fabric(void)
{
	char err[FABRIC_ERR_LEN];
	struct fabric *f = fabric_open(P, err);
	cr_assert_not_null(f, "%s", err);
	return f;
}

static void set_circuits(struct fabric *f, const char *spec)
{
	struct circuit_cfg c;
	char err[FABRIC_ERR_LEN];
	cr_assert_eq(circuits_parse(spec, &f->topo, &c, err), 0, "%s", err);
	cr_assert_eq(fabric_circuits_apply(f, &c, err), 0, "%s", err);
}

Test(fabric, marked_traffic_takes_the_circuit_unmarked_the_eps)
{
	struct topo t;
	fx_up(P, topo3, &t);
	struct fabric *fab = open_fabric();
	set_circuits(fab, "0>1");
	struct tr_flow f[2] = {
		{.src_ns = P "-r0h0", .dst_ns = P "-r1h0", .dst_addr = "198.18.1.1", .tos = CIRCUIT_TOS},
		{.src_ns = P "-r0h1", .dst_ns = P "-r1h1", .dst_addr = "198.18.1.2", .tos = 0},
	};
	double expect[2] = {tr_expected_goodput(60e6), tr_expected_goodput(20e6)};
	run_flows_within(f, 2, 1.0, 3.0, expect, 0.85, 1.05, baseline_tor0);
	uint64_t opt = tor_tx(0, "o0") - base_o0, up = tor_tx(0, "up") - base_up0;
	cr_log_info("circuit flow %.2f Mbit/s, EPS flow %.2f Mbit/s; tor0 o0 +%llu B, up +%llu B",
		    f[0].goodput_bps / 1e6, f[1].goodput_bps / 1e6, (unsigned long long)opt, (unsigned long long)up);
	double ocs = tr_expected_goodput(60e6), eps = tr_expected_goodput(20e6);
	cr_assert(f[0].goodput_bps > 0.85 * ocs && f[0].goodput_bps < 1.05 * ocs,
		  "circuit flow %.2f Mbit/s, expected the OCS rate %.2f", f[0].goodput_bps / 1e6, ocs / 1e6);
	cr_assert(f[1].goodput_bps > 0.85 * eps && f[1].goodput_bps < 1.05 * eps,
		  "EPS flow %.2f Mbit/s, expected the uplink rate %.2f", f[1].goodput_bps / 1e6, eps / 1e6);
	/* Counters: the marked bytes crossed the optical port, and only the
	 * unmarked ones the uplink. */
	cr_assert(opt >= f[0].total_bytes, "optical port carried %llu < %llu", (unsigned long long)opt,
		  (unsigned long long)f[0].total_bytes);
	cr_assert(up >= f[1].total_bytes && up < f[1].total_bytes * 1.10 + 200000,
		  "uplink carried %llu for %llu of EPS payload", (unsigned long long)up,
		  (unsigned long long)f[1].total_bytes);
	/* The destination rack received on its optical port. */
	uint64_t rx = 0;
	cr_assert_eq(tr_link_counters(P "-tor1", "o0", NULL, &rx, NULL, NULL), 0);
	cr_assert(rx >= f[0].total_bytes);
	fabric_close(fab);
}

Test(fabric, marked_traffic_without_a_circuit_falls_back_to_the_eps)
{
	struct topo t;
	fx_up(P, topo3, &t);
	struct fabric *fab = open_fabric();
	set_circuits(fab, "0>2");   /* a circuit, but to another rack */
	uint64_t opt0 = tor_tx(0, "o0");
	struct tr_flow f = {.src_ns = P "-r0h0", .dst_ns = P "-r1h0", .dst_addr = "198.18.1.1", .tos = CIRCUIT_TOS};
	cr_assert_eq(tr_run_flows(&f, 1, 1.0, 2.5), 0, "%s", tr_errmsg());
	double eps = tr_expected_goodput(20e6);
	cr_log_info("marked flow without circuit: %.2f Mbit/s", f.goodput_bps / 1e6);
	cr_assert(f.goodput_bps > 0.88 * eps && f.goodput_bps < 1.05 * eps, "%.2f Mbit/s", f.goodput_bps / 1e6);
	cr_assert_lt(tor_tx(0, "o0") - opt0, 10000, "marked traffic leaked onto the wrong circuit");
	/* The leak counter saw the marked bytes cross rack 0's uplink. */
	struct link_stats *ls;
	int n;
	cr_assert_eq(fabric_stats(fab, &ls, &n), 0);
	uint64_t marked = 0;
	for (int i = 0; i < n; i++)
		if (ls[i].cls == LINK_UPLINK && ls[i].rack == 0)
			marked = ls[i].marked_tx_bytes;
	free(ls);
	cr_assert(marked >= f.total_bytes, "leak counter %llu < %llu marked bytes sent over the EPS",
		  (unsigned long long)marked, (unsigned long long)f.total_bytes);
	/* Clearing the circuits leaves the crossbar without redirects. */
	set_circuits(fab, "none");
	struct circuit_cfg lit;
	cr_assert_eq(fabric_circuits_lit(fab, &lit), 0);
	for (int r = 0; r < 3; r++)
		cr_assert_eq(lit.out[0][r], -1);
	fabric_close(fab);
}

/* Racks of different sizes mixing two classes: each server's link is
 * shaped at its class's rate, the addresses follow the racks' sizes, every
 * server reaches every other, and down leaves nothing. */
Test(fabric, a_mixed_fabric_shapes_each_class_at_its_rate)
{
	static const char *mixed =
		"name = \"itest\";\n"
		"classes = { slow = { rate = \"20Mbit\"; containers = 2; };\n"
		"            fast = { rate = \"60Mbit\"; cores = 8; mem_gb = 16; speed = 2; }; };\n"
		"racks = ( { servers = { slow = 2; fast = 1; }; }, { servers = { fast = 1; }; } );\n"
		"eps = { uplink_rate = \"100Mbit\"; };\n";
	static const int where[4][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}};
	struct topo t;
	fx_up(P, mixed, &t);
	cr_assert_eq(fx_ip_netns_count(P), 4 + 2 + 1);
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++) {
			char sn[32], dn[32], da[32];
			if (a == b)
				continue;
			ns(sn, where[a][0], where[a][1]);
			ns(dn, where[b][0], where[b][1]);
			ip(da, where[b][0], where[b][1]);
			cr_assert_eq(tr_tcp_reach(sn, dn, da, 2000), 0, "%s -> %s: %s", sn, dn, tr_errmsg());
		}
	/* Into a slow server: its 20 Mb/s; between fast ones across racks: 60. */
	struct tr_flow f[2] = {
		{.src_ns = P "-r0h2", .dst_ns = P "-r0h0", .dst_addr = "198.18.0.1"},
		{.src_ns = P "-r1h0", .dst_ns = P "-r0h2", .dst_addr = "198.18.0.3"},
	};
	for (int i = 0; i < 2; i++) {
		double want = tr_expected_goodput(i ? 60e6 : 20e6);
		run_flows_within(&f[i], 1, 1.0, 3.0, &want, 0.85, 1.04, baseline_h1);
		cr_log_info("class %s: %.2f Mbit/s (expected %.2f)", i ? "fast" : "slow", f[i].goodput_bps / 1e6,
			    want / 1e6);
		cr_assert(f[i].goodput_bps > 0.85 * want && f[i].goodput_bps < 1.04 * want,
			  "flow %d: %.2f Mbit/s, expected %.2f", i, f[i].goodput_bps / 1e6, want / 1e6);
	}
	cr_assert_eq(fabric_down(P, NULL), 7);
	cr_assert_eq(fx_ip_netns_count(P), 0);
}

Test(fabric, down_leaves_nothing)
{
	struct topo t;
	fx_up(P, topo3, &t);
	cr_assert_eq(fx_ip_netns_count(P), 11);
	cr_assert_eq(fabric_down(P, NULL), 11);
	cr_assert_eq(fx_ip_netns_count(P), 0);
	struct stat st;
	cr_assert_neq(stat(FABRIC_STATE_DIR "/" P, &st), 0, "state directory left behind");
}

Test(fabric, up_refuses_a_prefix_in_use_and_keeps_it)
{
	struct topo t;
	char err[FABRIC_ERR_LEN];
	fx_up(P, topo3, &t);
	cr_assert_neq(fabric_up(&t, P, NULL, err), 0);
	cr_assert(strstr(err, "already up"), "%s", err);
	cr_assert_eq(fx_ns_count(P), 11, "a refused up must not touch the running fabric");
}

static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		dup2(devnull, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

Test(fabric, down_cleans_up_after_kill_9_during_up)
{
	char netctl[600], file[] = "/tmp/emu-itest-XXXXXX";
	fx_netctl_path(netctl, sizeof netctl);
	int fd = mkstemp(file);
	cr_assert(fd >= 0);
	const char *big = "racks = 10; servers_per_rack = 10; server = { rate = \"100Mbit\"; };"
			  "eps = { uplink_rate = \"100Mbit\"; }; ocs = { rate = \"1Gbit\"; };\n";
	cr_assert_eq(write(fd, big, strlen(big)), (ssize_t)strlen(big));
	close(fd);
	/* Kill at several points: early (namespaces), middle, late (config). */
	static const int delays_ms[] = {5, 30, 60, 90};
	for (size_t i = 0; i < sizeof delays_ms / sizeof delays_ms[0]; i++) {
		char *argv[] = {netctl, "--prefix", P, "up", file, "--quiet", NULL};
		pid_t pid = spawn(argv);
		struct timespec ts = {0, delays_ms[i] * 1000000L};
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		char *down[] = {netctl, "--prefix", P, "down", NULL};
		int st;
		pid = spawn(down);
		waitpid(pid, &st, 0);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		cr_assert_eq(fx_ip_netns_count(P), 0, "namespaces left after kill at %d ms", delays_ms[i]);
		struct stat sb;
		cr_assert_neq(stat(FABRIC_STATE_DIR "/" P, &sb), 0, "state left after kill at %d ms", delays_ms[i]);
	}
	unlink(file);
}

Test(fabric, down_kills_processes_inside)
{
	struct topo t;
	char netctl[600];
	fx_netctl_path(netctl, sizeof netctl);
	fx_up(P, topo3, &t);
	char *argv[] = {netctl, "--prefix", P, "exec", "r1h1", "--", "sleep", "60", NULL};
	pid_t pid = spawn(argv);
	struct timespec ts = {0, 300 * 1000000L};
	nanosleep(&ts, NULL);
	int killed = 0;
	cr_assert_eq(fabric_down(P, &killed), 11);
	cr_assert_geq(killed, 1);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	cr_assert_eq(fx_ip_netns_count(P), 0);
}

Test(fabric, bad_topology_exits_2_and_leaves_nothing)
{
	char netctl[600], file[] = "/tmp/emu-itest-XXXXXX";
	fx_netctl_path(netctl, sizeof netctl);
	int fd = mkstemp(file);
	const char *bad = "racks = 3;\nservers_per_rack = 2;\nserver = { rate = \"100Mbit\"; };\neps = { uplinkrate = \"1Gbit\"; };\n";
	cr_assert_eq(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
	close(fd);
	char *argv[] = {netctl, "--prefix", P, "up", file, NULL};
	int st;
	pid_t pid = spawn(argv);
	waitpid(pid, &st, 0);
	unlink(file);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "exit status %d", WEXITSTATUS(st));
	cr_assert_eq(fx_ip_netns_count(P), 0);
}

Test(fabric, servers_cannot_reach_outside_the_plan)
{
	struct topo t;
	fx_up(P, topo3, &t);
	/* No default route: an address outside the plan is unreachable at once. */
	int s = tr_socket_in(P "-r0h0", AF_INET, SOCK_STREAM, 0);
	cr_assert(s >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9)};
	inet_pton(AF_INET, "192.0.2.1", &a.sin_addr);
	cr_assert_eq(connect(s, (struct sockaddr *)&a, sizeof a), -1);
	cr_assert_eq(errno, ENETUNREACH, "connect: %s", strerror(errno));
	close(s);
}
