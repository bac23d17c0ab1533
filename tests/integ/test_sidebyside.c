/* Side by side (root): two fabrics up at once under different prefixes, each
 * with circuits lit, never see each other.
 *
 * The prefixes are chosen so that one is a prefix of the other: "itha" and
 * "ithab".  Namespace names are PREFIX-HOST, so "itha" must match "itha-*"
 * and never "ithab-*" — every test here would notice if it did.
 *   - each fabric lists exactly its own namespaces, reaches its own servers,
 *     and reports its own topology;
 *   - circuits set on one leave the other's crossbar and routes as they were;
 *     traffic in one leaves the other's counters exactly where they were;
 *   - fabric_down of A removes A's namespaces only: B's namespaces, state,
 *     processes, reachability and a lit circuit that still steers marked
 *     traffic all survive (and `netctl --prefix itha down` likewise);
 *   - a prefix of both ("ith") names no fabric and removes nothing.
 * Traffic only between addresses inside these namespaces. */
#include "fabric_fixture.h"
#include "traffic.h"
#include <criterion/logging.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define A "itha"
#define B "ithab"

/* A: 3 racks x 2.  B: 4 racks x 1, other rates, so a mix-up shows. */
static const char *topo_a =
	"name = \"itha\"; racks = 3; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"20Mbit\"; };\n"
	"ocs = { rate = \"60Mbit\"; };\n";
static const char *topo_b =
	"name = \"ithab\"; racks = 4; servers_per_rack = 1;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"20Mbit\"; };\n"
	"ocs = { rate = \"60Mbit\"; };\n";
#define NS_A (3 * 2 + 3 + 2)
#define NS_B (4 * 1 + 4 + 2)

static void down_all(void)
{
	fabric_down(A, NULL);
	fabric_down(B, NULL);
}

static void setup(void)
{
	fx_need_root();
	down_all();
	tr_set_congestion("cubic");
}
static void teardown(void)
{
	if (geteuid() == 0)
		down_all();
}

TestSuite(sidebyside, .init = setup, .fini = teardown, .timeout = 60);

static struct fabric *open_fabric(const char *prefix)
{
	char err[FABRIC_ERR_LEN];
	struct fabric *f = fabric_open(prefix, err);
	cr_assert_not_null(f, "%s: %s", prefix, err);
	return f;
}

static void set_circuits(const char *prefix, const char *spec)
{
	struct fabric *f = open_fabric(prefix);
	struct circuit_cfg c;
	char err[FABRIC_ERR_LEN];
	cr_assert_eq(circuits_parse(spec, &f->topo, &c, err), 0, "%s: %s", prefix, err);
	cr_assert_eq(fabric_circuits_apply(f, &c, err), 0, "%s: %s", prefix, err);
	fabric_close(f);
}

/* The lit circuits as the ToRs' routes show them, in canonical text. */
static void lit_text(const char *prefix, char *buf, size_t len)
{
	struct fabric *f = open_fabric(prefix);
	struct circuit_cfg lit;
	cr_assert_eq(fabric_circuits_lit(f, &lit), 0);
	circuits_format(&lit, buf, len);
	fabric_close(f);
}

/* The crossbar as the fabric's state records it. */
static void crossbar_text(const char *prefix, char *buf, size_t len)
{
	struct fabric *f = open_fabric(prefix);
	circuits_format(&f->circuits, buf, len);
	fabric_close(f);
}

struct link_snapshot { int n; struct link_stats *ls; };

static void snapshot(const char *prefix, struct link_snapshot *s)
{
	struct fabric *f = open_fabric(prefix);
	cr_assert_eq(fabric_stats(f, &s->ls, &s->n), 0);
	fabric_close(f);
}

/* Every link's packet and byte counters, both ways, exactly as before. */
static void expect_untouched(const char *prefix, const struct link_snapshot *before)
{
	struct link_snapshot now;
	snapshot(prefix, &now);
	cr_assert_eq(now.n, before->n);
	for (int i = 0; i < now.n; i++) {
		const struct link_stats *x = &before->ls[i], *y = &now.ls[i];
		cr_expect(x->tx_packets == y->tx_packets && x->rx_packets == y->rx_packets &&
			  x->tx_bytes == y->tx_bytes && x->rx_bytes == y->rx_bytes && x->drops == y->drops,
			  "%s: link %d (class %d, rack %d) moved: tx %llu -> %llu packets, rx %llu -> %llu", prefix, i,
			  x->cls, x->rack, (unsigned long long)x->tx_packets, (unsigned long long)y->tx_packets,
			  (unsigned long long)x->rx_packets, (unsigned long long)y->rx_packets);
	}
	free(now.ls);
}

static uint64_t tor_tx(const char *prefix, int rack, const char *ifname)
{
	char name[64];
	uint64_t tx = 0;
	snprintf(name, sizeof name, "%s-tor%d", prefix, rack);
	cr_assert_eq(tr_link_counters(name, ifname, &tx, NULL, NULL, NULL), 0, "%s", tr_errmsg());
	return tx;
}

/* Every server of the fabric reaches every other (racks x spr servers). */
static void expect_all_pairs_reach(const char *prefix, int racks, int spr)
{
	int n = racks * spr;
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			if (a == b)
				continue;
			char sn[64], dn[64], da[32];
			snprintf(sn, sizeof sn, "%s-r%dh%d", prefix, a / spr, a % spr);
			snprintf(dn, sizeof dn, "%s-r%dh%d", prefix, b / spr, b % spr);
			snprintf(da, sizeof da, "198.18.%d.%d", b / spr, b % spr + 1);
			cr_expect_eq(tr_tcp_reach(sn, dn, da, 2000), 0, "%s -> %s: %s", sn, dn, tr_errmsg());
		}
}

/* A circuit-marked flow from rack 0 to rack 1 of the fabric (server 0 of
 * each) goes over rack 0's optical port at the OCS rate, not its uplink. */
static void expect_circuit_steers(const char *prefix)
{
	char src[64], dst[64];
	snprintf(src, sizeof src, "%s-r0h0", prefix);
	snprintf(dst, sizeof dst, "%s-r1h0", prefix);
	uint64_t o0 = tor_tx(prefix, 0, "o0"), up0 = tor_tx(prefix, 0, "up");
	struct tr_flow f = {.src_ns = src, .dst_ns = dst, .dst_addr = "198.18.1.1", .tos = CIRCUIT_TOS};
	cr_assert_eq(tr_run_flows(&f, 1, 0.5, 1.5), 0, "%s", tr_errmsg());
	uint64_t opt = tor_tx(prefix, 0, "o0") - o0, up = tor_tx(prefix, 0, "up") - up0;
	cr_log_info("%s: circuit flow %.1f Mbit/s, o0 +%llu B, up +%llu B", prefix, f.goodput_bps / 1e6,
		    (unsigned long long)opt, (unsigned long long)up);
	cr_expect_geq(opt, f.total_bytes, "%s: the optical port carried %llu of %llu bytes", prefix,
		      (unsigned long long)opt, (unsigned long long)f.total_bytes);
	cr_expect_lt(up, f.total_bytes / 10 + 100000, "%s: %llu bytes took the EPS", prefix, (unsigned long long)up);
	/* above the EPS rate (20 Mbit/s): it is the circuit's 60 */
	cr_expect_gt(f.goodput_bps, 1.5 * tr_expected_goodput(20e6), "%s: %.1f Mbit/s is not a circuit's rate",
		     prefix, f.goodput_bps / 1e6);
}

static void up_both(void)
{
	struct topo ta, tb;
	fx_up(A, topo_a, &ta);
	fx_up(B, topo_b, &tb);
	set_circuits(A, "0>1,1>2,2>0");
	set_circuits(B, "0>1,1>0,2>3");
}

/* ------------------------------------------------------------------ tests */

Test(sidebyside, both_up_each_sees_only_itself)
{
	up_both();
	cr_assert_eq(fx_ns_count(A), NS_A, "%s lists %d namespaces", A, fx_ns_count(A));
	cr_assert_eq(fx_ns_count(B), NS_B, "%s lists %d namespaces", B, fx_ns_count(B));
	cr_assert_eq(fx_ip_netns_count(A), NS_A);
	cr_assert_eq(fx_ip_netns_count(B), NS_B);
	cr_assert_eq(fx_ns_count("ith"), 0, "a prefix of both names no fabric");
	struct fabric *fa = open_fabric(A), *fb = open_fabric(B);
	cr_expect_str_eq(fa->topo.name, "itha");
	cr_expect_str_eq(fb->topo.name, "ithab");
	cr_expect_eq(fa->topo.racks, 3);
	cr_expect_eq(fb->topo.racks, 4);
	fabric_close(fa);
	fabric_close(fb);
	expect_all_pairs_reach(A, 3, 2);
	expect_all_pairs_reach(B, 4, 1);
	/* the same address in both fabrics answers inside each one only: the
	 * server 198.18.1.1 of A is reached from A, B's from B */
	cr_expect_eq(tr_tcp_reach(A "-r0h0", A "-r1h0", "198.18.1.1", 2000), 0, "%s", tr_errmsg());
	cr_expect_eq(tr_tcp_reach(B "-r0h0", B "-r1h0", "198.18.1.1", 2000), 0, "%s", tr_errmsg());
	/* and no link crosses between them: a server of A cannot reach B's
	 * server network's address that A does not have (rack 3 exists in B only) */
	cr_expect_neq(tr_tcp_reach(A "-r0h0", B "-r3h0", "198.18.3.1", 500), 0, "A reached a server of B");
}

Test(sidebyside, circuits_and_counters_are_per_fabric)
{
	up_both();
	char a0[256], b0[256], now[256];
	lit_text(A, a0, sizeof a0);
	lit_text(B, b0, sizeof b0);
	cr_assert_str_eq(a0, "0>1,1>2,2>0");
	cr_assert_str_eq(b0, "0>1,1>0,2>3");

	/* Reconfiguring A leaves B's crossbar, routes and counters alone. */
	struct link_snapshot sb;
	snapshot(B, &sb);
	set_circuits(A, "0>2,2>1");
	lit_text(A, now, sizeof now);
	cr_expect_str_eq(now, "0>2,2>1");
	lit_text(B, now, sizeof now);
	cr_expect_str_eq(now, b0, "B's lit circuits changed with A's");
	crossbar_text(B, now, sizeof now);
	cr_expect_str_eq(now, b0, "B's crossbar changed with A's");
	/* traffic in A: B's counters do not move (no packet at all) */
	expect_all_pairs_reach(A, 3, 2);
	set_circuits(A, "0>1");
	expect_circuit_steers(A);
	expect_untouched(B, &sb);
	free(sb.ls);

	/* And the other way round. */
	struct link_snapshot sa;
	lit_text(A, a0, sizeof a0);
	snapshot(A, &sa);
	set_circuits(B, "none");
	set_circuits(B, "0>1,1>0,3>2");
	expect_circuit_steers(B);
	lit_text(A, now, sizeof now);
	cr_expect_str_eq(now, a0, "A's lit circuits changed with B's");
	crossbar_text(A, now, sizeof now);
	cr_expect_str_eq(now, a0, "A's crossbar changed with B's");
	expect_untouched(A, &sa);
	free(sa.ls);
}

static pid_t spawn_sleep_in(const char *ns)
{
	pid_t pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		dup2(devnull, 2);
		execlp("ip", "ip", "netns", "exec", ns, "sleep", "30", (char *)NULL);
		_exit(127);
	}
	return pid;
}

Test(sidebyside, down_a_leaves_b_working)
{
	up_both();
	/* a process in each fabric */
	pid_t pa = spawn_sleep_in(A "-r1h0"), pb = spawn_sleep_in(B "-r1h0");
	struct timespec ts = {0, 300 * 1000000L};
	nanosleep(&ts, NULL);
	char b0[256], now[256];
	lit_text(B, b0, sizeof b0);
	int killed = 0;
	cr_assert_eq(fabric_down(A, &killed), NS_A, "down " A " removed another number of namespaces");
	cr_expect_eq(killed, 1, "down " A " killed %d processes", killed);
	int st;
	cr_assert_eq(waitpid(pa, &st, 0), pa);
	cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* B: namespaces, state, its process, circuits, reachability, steering */
	cr_assert_eq(fx_ip_netns_count(A), 0);
	cr_assert_eq(fx_ip_netns_count(B), NS_B, "down " A " touched " B);
	struct stat sst;
	cr_expect_eq(stat(FABRIC_STATE_DIR "/" B, &sst), 0, "B's state directory is gone");
	cr_expect_neq(stat(FABRIC_STATE_DIR "/" A, &sst), 0, "A's state directory is left");
	cr_expect_eq(waitpid(pb, &st, WNOHANG), 0, "the process inside " B " died with " A);
	lit_text(B, now, sizeof now);
	cr_expect_str_eq(now, b0);
	crossbar_text(B, now, sizeof now);
	cr_expect_str_eq(now, b0);
	expect_all_pairs_reach(B, 4, 1);
	expect_circuit_steers(B);
	/* B can still be reconfigured and taken down on its own */
	set_circuits(B, "1>0,0>1");
	lit_text(B, now, sizeof now);
	cr_expect_str_eq(now, "0>1,1>0");
	cr_expect_eq(fabric_down(B, NULL), NS_B);
	cr_assert_eq(waitpid(pb, &st, 0), pb);
	cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

Test(sidebyside, netctl_down_of_a_prefix_of_another_name_leaves_it)
{
	up_both();
	char netctl[600];
	fx_netctl_path(netctl, sizeof netctl);
	/* "ith" is a prefix of both names but the prefix of neither fabric */
	cr_expect_eq(fabric_down("ith", NULL), 0);
	cr_assert_eq(fx_ip_netns_count(A), NS_A);
	cr_assert_eq(fx_ip_netns_count(B), NS_B);
	pid_t pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		dup2(devnull, 2);
		execl(netctl, netctl, "--prefix", A, "down", (char *)NULL);
		_exit(127);
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "netctl down: status 0x%x", st);
	cr_expect_eq(fx_ip_netns_count(A), 0);
	cr_assert_eq(fx_ip_netns_count(B), NS_B, "netctl --prefix " A " down touched " B);
	expect_all_pairs_reach(B, 4, 1);
	/* and A comes back up beside B */
	struct topo ta;
	fx_up(A, topo_a, &ta);
	cr_expect_eq(fx_ip_netns_count(A), NS_A);
	cr_expect_eq(fx_ip_netns_count(B), NS_B);
}
