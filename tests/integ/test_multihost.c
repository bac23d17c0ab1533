/* Integration tests (root): one fabric over two and three emulated hosts
 * (namespaces PREFIX-m-NAME on a bridge in PREFIX-lan, VXLAN between them),
 * brought up and down by the netctl program as a user would, and checked on
 * real packets against the same fabric on one host. */
#include "emu/ocs_ctl.h"
#include "fabric_fixture.h"
#include "netctl/hostfab.h"
#include "traffic.h"
#include <criterion/logging.h>
#include <jansson.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define P "itmh"

/* The OCS test's fabric: uplinks 20 Mbit/s, circuits 60 Mbit/s, so where
 * the bytes went shows in the rates. */
static const char *topo4 =
	"racks = 4; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"20Mbit\"; };\n"
	"ocs = { rate = \"60Mbit\"; };\n";

/* Racks 0 and 2 on a (with the EPS core), 1 and 3 on b. */
static const char *two =
	"a emulated lan0 10.77.0.1/24 auto mtu=1550\n"
	"b emulated lan0 10.77.0.2/24 auto mtu=1550\n";

static char dir[] = "/tmp/emu-itmh-XXXXXX";

static void setup(void)
{
	fx_need_root();
	fabric_down(P, NULL);
	tr_set_congestion("cubic");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	if (geteuid() != 0)
		return;
	fabric_down(P, NULL);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		cr_log_warn("could not remove %s", dir);
}

TestSuite(multihost, .init = setup, .fini = teardown, .timeout = 180);

static void write_file(const char *name, const char *text, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* Run a program of ours; its exit status, stderr into `err`. */
static int run(const char *prog, const char *const args[], char *err, size_t errlen)
{
	char bin[600], errpath[600];
	const char *argv[16];
	int n = 0;
	fx_bin_path(prog, bin, sizeof bin);
	argv[n++] = bin;
	for (int i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	snprintf(errpath, sizeof errpath, "%s/stderr", dir);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	FILE *f = fopen(errpath, "r");
	size_t got = f ? fread(err, 1, errlen - 1, f) : 0;
	err[got] = 0;
	if (f)
		fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void up_split(const char *topo_text, const char *hosts_text, char *hosts_path, size_t len)
{
	char topo[300], err[4096];
	write_file("t.conf", topo_text, topo, sizeof topo);
	write_file("hosts", hosts_text, hosts_path, len);
	fx_settle();
	const char *args[] = {"--prefix", P, "up", topo, "--hosts", hosts_path, "--quiet", NULL};
	cr_assert_eq(run("netctl", args, err, sizeof err), 0, "netctl up --hosts: %s", err);
}

static void down_cli(void)
{
	char err[4096];
	const char *args[] = {"--prefix", P, "down", NULL};
	cr_assert_eq(run("netctl", args, err, sizeof err), 0, "netctl down: %s", err);
}

static int read_frag_creates(void *arg)
{
	/* /proc/thread-self/net follows the calling thread's namespace. */
	FILE *f = fopen("/proc/thread-self/net/snmp", "r");
	char head[1024], vals[1024];
	long *out = arg;
	*out = -1;
	while (f && fgets(head, sizeof head, f) && fgets(vals, sizeof vals, f)) {
		if (strncmp(head, "Ip:", 3))
			continue;
		char *hs, *vs, *h = strtok_r(head, " \n", &hs), *v = strtok_r(vals, " \n", &vs);
		for (; h && v; h = strtok_r(NULL, " \n", &hs), v = strtok_r(NULL, " \n", &vs))
			if (!strcmp(h, "FragCreates"))
				*out = atol(v);
	}
	if (f)
		fclose(f);
	return 0;
}

static long frag_creates(const char *ns)
{
	long n = -1;
	cr_assert_eq(tr_in_ns(ns, read_frag_creates, &n), 0, "%s", tr_errmsg());
	return n;
}

/* What one fabric does, split or not: a flow over the EPS between racks 1
 * and 0 (different hosts when split), its idle RTT, a reconfiguration to
 * the circuit 0-1, and a marked flow over it. */
struct measured {
	double eps_bps, circuit_bps, rtt_ms, dark_s, host_dark_s[HOSTS_MAX];
	int hosts;
	uint64_t circuit_opt_tx;   /* bytes tor1 sent on its optical port */
};

static void measure(struct measured *m)
{
	struct tr_flow eps = {P "-r1h0", P "-r0h0", "198.18.0.1", 0, 0, 0, 0, 0, 0};
	cr_assert_eq(tr_run_flows(&eps, 1, 0.5, 2.0), 0, "%s", tr_errmsg());
	m->eps_bps = eps.goodput_bps;
	struct tr_rtt rtt;
	cr_assert_eq(tr_rtt_stats(P "-r1h0", P "-r0h0", "198.18.0.1", 0, NULL, 0, 1.0, &rtt), 0, "%s", tr_errmsg());
	m->rtt_ms = rtt.median_ms;

	char err[FABRIC_ERR_LEN];
	struct fabric *f = fabric_open(P, err);
	cr_assert_not_null(f, "%s", err);
	struct ocs_params p;
	struct ocs_ctl c;
	ocs_params_default(&p);
	cr_assert_eq(ocs_ctl_init(&c, f, &p, NULL, NULL, err), 0, "%s", err);
	struct circuit_cfg next;
	cr_assert_eq(circuits_parse("0-1", &f->topo, &next, err), 0, "%s", err);
	struct ocs_event ev;
	cr_assert_eq(ocs_reconfigure(&c, &next, &ev, err), 0, "%s", err);
	m->dark_s = ev.dark_s;
	m->hosts = ev.hosts;
	memcpy(m->host_dark_s, ev.host_dark_s, sizeof m->host_dark_s);
	ocs_ctl_free(&c);
	fabric_close(f);

	uint64_t before, after;
	cr_assert_eq(tr_link_counters(P "-tor1", "o0", &before, NULL, NULL, NULL), 0);
	struct tr_flow opt = {P "-r1h0", P "-r0h0", "198.18.0.1", 0x08, 0, 0, 0, 0, 0};
	cr_assert_eq(tr_run_flows(&opt, 1, 0.5, 2.0), 0, "%s", tr_errmsg());
	cr_assert_eq(tr_link_counters(P "-tor1", "o0", &after, NULL, NULL, NULL), 0);
	m->circuit_bps = opt.goodput_bps;
	m->circuit_opt_tx = after - before;
	cr_assert_geq(m->circuit_opt_tx, opt.total_bytes, "the marked flow did not take the circuit");
}

Test(multihost, two_hosts_carry_traffic_as_one)
{
	char hosts[300];
	struct measured split, one;
	up_split(topo4, two, hosts, sizeof hosts);

	/* The layout the partition gives, as the namespaces show it. */
	char err[FABRIC_ERR_LEN];
	struct fabric *f = fabric_open(P, err);
	cr_assert_not_null(f, "%s", err);
	cr_assert_eq(fabric_hosts(f), 2);
	cr_assert_eq(fabric_host_of(f, 0), 0);
	cr_assert_eq(fabric_host_of(f, 1), 1);
	cr_assert_eq(f->layout->eps_host, 0);
	fabric_close(f);
	cr_assert_eq(access(NETNS_RUN_DIR "/" P "-ocs1", F_OK), 0, "host b's crossbar slice");
	cr_assert_eq(access(NETNS_RUN_DIR "/" P "-m-b", F_OK), 0);

	uint64_t lan0, lan1;
	cr_assert_eq(tr_link_counters(P "-m-b", "lan0", &lan0, NULL, NULL, NULL), 0);
	measure(&split);
	cr_assert_eq(tr_link_counters(P "-m-b", "lan0", &lan1, NULL, NULL, NULL), 0);
	/* Both flows left host b by its underlay, and nothing was fragmented. */
	cr_assert_gt(lan1 - lan0, split.circuit_opt_tx, "the circuit's bytes did not cross the LAN");
	cr_assert_eq(frag_creates(P "-m-a"), 0);
	cr_assert_eq(frag_creates(P "-m-b"), 0);
	down_cli();
	cr_assert_eq(fx_ns_count(P), 0, "netctl down left namespaces");
	cr_assert_neq(access(FABRIC_STATE_DIR "/" P, F_OK), 0, "netctl down left the state");

	struct topo t;
	fx_up(P, topo4, &t);
	measure(&one);
	fabric_down(P, NULL);

	cr_log_info("EPS flow %.1f / %.1f Mbit/s, circuit flow %.1f / %.1f Mbit/s, RTT %.3f / %.3f ms, dark %.1f "
		    "(a %.1f, b %.1f) / %.1f ms (split / one host)",
		    split.eps_bps / 1e6, one.eps_bps / 1e6, split.circuit_bps / 1e6, one.circuit_bps / 1e6,
		    split.rtt_ms, one.rtt_ms, split.dark_s * 1e3, split.host_dark_s[0] * 1e3,
		    split.host_dark_s[1] * 1e3, one.dark_s * 1e3);
	cr_assert_float_eq(split.eps_bps, tr_expected_goodput(20e6), 0.1 * 20e6, "EPS %.1f Mbit/s", split.eps_bps / 1e6);
	cr_assert_float_eq(split.eps_bps, one.eps_bps, 0.1 * one.eps_bps);
	cr_assert_float_eq(split.circuit_bps, tr_expected_goodput(60e6), 0.1 * 60e6, "circuit %.1f Mbit/s",
			   split.circuit_bps / 1e6);
	cr_assert_float_eq(split.circuit_bps, one.circuit_bps, 0.1 * one.circuit_bps);
	/* Queueing dominates neither: the tunnels add well under a millisecond. */
	cr_assert_lt(split.rtt_ms, one.rtt_ms + 1.0, "RTT %.3f ms split, %.3f ms on one host", split.rtt_ms, one.rtt_ms);
	/* The dark gap is δ plus the control plane's work, on each host. */
	cr_assert_eq(split.hosts, 2);
	cr_assert_eq(one.hosts, 1);
	for (int k = 0; k < 2; k++)
		cr_assert(split.host_dark_s[k] >= 0.010 && split.host_dark_s[k] < 0.040, "host %d dark %.1f ms", k,
			  split.host_dark_s[k] * 1e3);
	cr_assert_lt(split.dark_s, one.dark_s + 0.020);
}

static const char *topo6 =
	"racks = 6; servers_per_rack = 1;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"50Mbit\"; };\n"
	"ocs = { rate = \"50Mbit\"; };\n";

static const char *three =
	"a emulated lan0 10.78.0.1 auto\n"
	"b emulated lan0 10.78.0.2 auto\n"
	"c emulated lan0 10.78.0.3 auto\n";

Test(multihost, three_hosts_every_server_reaches_every_other_and_circuits_cross_hosts)
{
	char hosts[300], err[FABRIC_ERR_LEN];
	up_split(topo6, three, hosts, sizeof hosts);
	struct fabric *f = fabric_open(P, err);
	cr_assert_not_null(f, "%s", err);
	cr_assert_eq(fabric_hosts(f), 3);
	for (int k = 0; k < 3; k++)
		cr_assert_eq(f->layout->racks[k], 2);
	/* Underlays at 1500: every fabric interface at 1450. */
	cr_assert_eq(f->layout->mtu, 1450);
	/* netctl exec reaches each host's slice by its name; ocs3 is no slice of
	 * three hosts.  In ocs2: the receiving ends of host 2's racks' ports, none of host 0's. */
	char seen[4096], want[32], other[32];
	int r2 = -1, r0 = -1;
	for (int r = 0; r < 6; r++) {
		if (fabric_host_of(f, r) == 2)
			r2 = r;
		if (fabric_host_of(f, r) == 0)
			r0 = r;
	}
	const char *exec2[] = {"--prefix", P, "exec", "ocs2", "--", "sh", "-c", "ls /sys/class/net >&2", NULL};
	cr_assert_eq(run("netctl", exec2, seen, sizeof seen), 0, "netctl exec ocs2: %s", seen);
	snprintf(want, sizeof want, "i%dp0\n", r2);
	snprintf(other, sizeof other, "i%dp0\n", r0);
	cr_assert(strstr(seen, want) && !strstr(seen, other), "ocs2 holds %s but not %s:\n%s", want, other, seen);
	const char *exec3[] = {"--prefix", P, "exec", "ocs3", "--", "true", NULL};
	cr_assert_eq(run("netctl", exec3, seen, sizeof seen), 2, "%s", seen);
	cr_assert(strstr(seen, "no host 'ocs3'") && strstr(seen, "ocs, ocs1..ocs2"), "%s", seen);
	for (int a = 0; a < 6; a++)
		for (int b = 0; b < 6; b++) {
			if (a == b)
				continue;
			char src[32], dst[32], addr[32];
			snprintf(src, sizeof src, P "-r%dh0", a);
			snprintf(dst, sizeof dst, P "-r%dh0", b);
			snprintf(addr, sizeof addr, "198.18.%d.1", b);
			cr_assert_eq(tr_tcp_reach(src, dst, addr, 0), 0, "r%dh0 -> r%dh0: %s", a, b, tr_errmsg());
		}
	/* Circuits between each pair of hosts' racks, all at once. */
	int host_of[6];
	for (int r = 0; r < 6; r++)
		host_of[r] = fabric_host_of(f, r);
	struct circuit_cfg next;
	cr_assert_eq(circuits_parse("0-1,2-5,3-4", &f->topo, &next, err), 0, "%s", err);
	cr_assert_eq(fabric_circuits_apply(f, &next, err), 0, "%s", err);
	fabric_close(f);
	cr_assert_neq(host_of[0], host_of[1]);
	struct tr_flow fl[3] = {
		{P "-r0h0", P "-r1h0", "198.18.1.1", 0x08, 0, 0, 0, 0, 0},
		{P "-r5h0", P "-r2h0", "198.18.2.1", 0x08, 0, 0, 0, 0, 0},
		{P "-r3h0", P "-r4h0", "198.18.4.1", 0x08, 0, 0, 0, 0, 0},
	};
	uint64_t up0[3], up1[3], o0[3], o1[3];
	const char *tor[3] = {P "-tor0", P "-tor5", P "-tor3"};
	for (int i = 0; i < 3; i++)
		cr_assert_eq(tr_link_counters(tor[i], "o0", &o0[i], NULL, NULL, NULL) |
			     tr_link_counters(tor[i], "up", &up0[i], NULL, NULL, NULL), 0);
	cr_assert_eq(tr_run_flows(fl, 3, 0.3, 1.0), 0, "%s", tr_errmsg());
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(tr_link_counters(tor[i], "o0", &o1[i], NULL, NULL, NULL) |
			     tr_link_counters(tor[i], "up", &up1[i], NULL, NULL, NULL), 0);
		cr_assert_geq(o1[i] - o0[i], fl[i].total_bytes, "flow %d did not take its circuit", i);
		cr_assert_lt(up1[i] - up0[i], fl[i].total_bytes / 20, "flow %d leaked to the EPS", i);
		cr_assert_float_eq(fl[i].goodput_bps, 50e6 * 1398.0 / 1464.0, 0.1 * 50e6, "flow %d: %.1f Mbit/s", i,
				   fl[i].goodput_bps / 1e6);
	}
	cr_assert_eq(frag_creates(P "-m-a") + frag_creates(P "-m-b") + frag_creates(P "-m-c"), 0);

	/* emu cleanup --hosts removes everything, processes inside included. */
	pid_t sleeper = fork();
	if (sleeper == 0) {
		int fd = open(NETNS_RUN_DIR "/" P "-r3h0", O_RDONLY);
		if (fd < 0 || ns_enter(fd))
			_exit(1);
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	char out[4096];
	const char *args[] = {"cleanup", "--prefix", P, "--hosts", hosts, NULL};
	cr_assert_eq(run("emu", args, out, sizeof out), 0, "emu cleanup --hosts: %s", out);
	int st;
	cr_assert_eq(waitpid(sleeper, &st, 0), sleeper);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the process inside was not killed");
	cr_assert_eq(fx_ns_count(P), 0, "emu cleanup --hosts left namespaces");
	cr_assert_eq(fx_ip_netns_count(P), 0);
	cr_assert_neq(access(FABRIC_STATE_DIR "/" P, F_OK), 0, "emu cleanup --hosts left the state");
}

/* `ip -j` of a command in namespace ns, parsed. */
static json_t *ip_json(const char *ns, const char *args)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "ip -n %s -j %s 2>/dev/null", ns, args);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	json_error_t e;
	json_t *j = json_loadf(p, 0, &e);
	pclose(p);
	cr_assert_not_null(j, "%s: %s", cmd, e.text);
	return j;
}

struct ns_names { char name[64][NS_NAME_MAX]; int n; };
static void note_ns(const char *name, void *arg)
{
	struct ns_names *l = arg;
	if (l->n < 64)
		snprintf(l->name[l->n++], NS_NAME_MAX, "%s", name);
}

/* Network safety over hosts, from the kernel's side: every tunnel goes to
 * and from the hosts file's addresses on UDP 4789 and nowhere else, only
 * the machines hold an underlay, and no namespace has a default route. */
Test(multihost, tunnels_only_between_the_hosts_addresses)
{
	char hosts[300];
	up_split(topo4, two, hosts, sizeof hosts);
	struct ns_names l = {.n = 0};
	ns_list(P, note_ns, &l);
	cr_assert_eq(l.n, 18, "4 racks x 2 servers, 4 ToRs, eps, 2 slices, 2 machines, the LAN");
	int tunnels = 0;
	for (int i = 0; i < l.n; i++) {
		json_t *links = ip_json(l.name[i], "-d link show"), *link;
		size_t k;
		json_array_foreach(links, k, link) {
			const char *kind = json_string_value(json_object_get(json_object_get(link, "linkinfo"), "info_kind"));
			const char *ifname = json_string_value(json_object_get(link, "ifname"));
			bool machine = strstr(l.name[i], "-m-") != NULL, lan = !strcmp(l.name[i], P "-lan");
			if (!kind)
				continue;
			if (!strcmp(kind, "vxlan")) {
				json_t *d = json_object_get(json_object_get(link, "linkinfo"), "info_data");
				const char *remote = json_string_value(json_object_get(d, "remote"));
				const char *local = json_string_value(json_object_get(d, "local"));
				cr_assert(!machine && !lan, "%s: a tunnel in %s", ifname, l.name[i]);
				cr_assert(local && (!strcmp(local, "10.77.0.1") || !strcmp(local, "10.77.0.2")), "%s %s: local %s",
					  l.name[i], ifname, local ? local : "none");
				cr_assert(!remote || !strcmp(remote, "10.77.0.1") || !strcmp(remote, "10.77.0.2"),
					  "%s %s: remote %s", l.name[i], ifname, remote);
				cr_assert_eq(json_integer_value(json_object_get(d, "port")), 4789);
				cr_assert(json_is_false(json_object_get(d, "learning")), "%s %s learns", l.name[i], ifname);
				tunnels++;
			} else if (!strcmp(kind, "bridge")) {
				cr_assert(lan, "a bridge in %s", l.name[i]);
			} else {
				cr_assert_str_eq(kind, "veth", "%s %s", l.name[i], ifname);
			}
		}
		json_decref(links);
		json_t *routes = ip_json(l.name[i], "route show table all"), *route;
		json_array_foreach(routes, k, route) {
			const char *dst = json_string_value(json_object_get(route, "dst"));
			cr_assert(dst && strcmp(dst, "default"), "%s: a default route", l.name[i]);
		}
		json_decref(routes);
	}
	/* Rack 1's and rack 3's uplinks and the core's ends of them, and per
	 * host 2 remote ports to send to and 2 local ones to receive for. */
	cr_assert_eq(tunnels, 4 + 4 + 4);
	down_cli();
}

Test(multihost, bad_hosts_file_exits_2_with_file_and_line_and_leaves_nothing)
{
	char topo[300], hosts[300], err[4096];
	write_file("t.conf", topo4, topo, sizeof topo);
	write_file("hosts", "a emulated lan0 10.77.0.1 auto\nb emulated lan0 10.77.0.1 auto\n", hosts, sizeof hosts);
	const char *args[] = {"--prefix", P, "up", topo, "--hosts", hosts, NULL};
	cr_assert_eq(run("netctl", args, err, sizeof err), 2, "%s", err);
	cr_assert(strstr(err, "hosts:2: underlay address 10.77.0.1 is also host 'a's (line 1)"), "%s", err);
	/* Counts that cannot add up are bad input too. */
	write_file("hosts", "a emulated lan0 10.77.0.1 1\nb emulated lan0 10.77.0.2 1\n", hosts, sizeof hosts);
	cr_assert_eq(run("netctl", args, err, sizeof err), 2, "%s", err);
	cr_assert(strstr(err, "hosts:2: the hosts' rack counts add up to 2"), "%s", err);
	cr_assert_eq(fx_ip_netns_count(P), 0);
	cr_assert_neq(access(FABRIC_STATE_DIR "/" P, F_OK), 0);
}
