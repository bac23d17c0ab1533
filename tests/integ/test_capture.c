/* Integration tests of packet capture (root): `netctl capture` on a fabric
 * of its own, and `emu run --capture`, checked by reading the files back
 * with tcpdump.  Traffic: pings and a TCP exchange between the fabric's
 * servers only.  Each test has its own prefix and directory, so criterion
 * may run them side by side. */
#include "run_fixture.h"
#include "traffic.h"
#include <criterion/logging.h>
#include <stdint.h>
#include <sys/stat.h>

/* This test's prefix (itcapN) and directory (/tmp/emu-itcapN), set by begin(). */
static char P[16], WORK[64], RESULTS[80];

/* The shape of topologies/tiny.conf. */
static const char *topo_text =
	"name = \"itcap\"; racks = 3; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"50Mbit\"; };\n"
	"ocs = { ports_per_rack = 1; rate = \"200Mbit\"; };\n";

/* Two small jobs: shuffle crosses racks, so r0h0 talks TCP. */
static const char *workload_text =
	"{\"scaled\": true, \"jobs\": [\n"
	" {\"name\": \"a\", \"submit\": 0, \"input\": 2000000, \"shuffle\": 3000000, \"output\": 1000,"
	"  \"maps\": 6, \"reduces\": 3, \"map_duration\": 0.2, \"reduce_duration\": 0.2},\n"
	" {\"name\": \"b\", \"submit\": 0, \"input\": 1000000, \"shuffle\": 2000000, \"output\": 1000,"
	"  \"maps\": 6, \"reduces\": 3, \"map_duration\": 0.2, \"reduce_duration\": 0.2}\n"
	"]}\n";

static void begin(int n)
{
	char cmd[200];
	snprintf(P, sizeof P, "itcap%d", n);
	snprintf(WORK, sizeof WORK, "/tmp/emu-itcap%d", n);
	snprintf(RESULTS, sizeof RESULTS, "%s/results", WORK);
	fabric_down(P, NULL);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", WORK, WORK);
	cr_assert_eq(system(cmd), 0);
}

/* Also ends a capture left running: it sees its namespace go, and stops;
 * and an `emu run` of the prefix. */
static void teardown(void)
{
	if (geteuid() == 0 && P[0])
		rx_teardown(P, (const char *[]){NULL}, WORK);
}

TestSuite(capture, .init = fx_need_root, .fini = teardown, .timeout = 120);

static void up(int n)
{
	struct topo t;
	begin(n);
	fx_up(P, topo_text, &t);
}

/* WORK/name, for a path used at once (a few calls later it is reused) */
static const char *in_dir(const char *name)
{
	static char paths[4][128];
	static int k;
	char *p = paths[k++ % 4];
	snprintf(p, 128, "%s/%s", WORK, name);
	return p;
}

/* `netctl --prefix P capture ARGS...`, output to log. */
static pid_t start_capture(const char *const *args, const char *log)
{
	char netctl[600];
	const char *argv[32] = {netctl, "--prefix", P, "capture"};
	int n = 4;
	fx_netctl_path(netctl, sizeof netctl);
	for (int i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return rx_spawn(argv, log);
}

static int run_capture(const char *const *args)
{
	return rx_wait_exit(start_capture(args, in_dir("log")));
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The exit status of pid, which must end within `limit` seconds (killed
 * and failed otherwise); *took says how long it took. */
static int exit_within(pid_t pid, double limit, double *took)
{
	double t0 = now_s();
	int st;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now_s() - t0 > limit) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			cr_assert_fail("still running after %.1f s", limit);
		}
		rx_sleep(0.01);
	}
	if (took)
		*took = now_s() - t0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The capture is live once its file has its header (written and flushed
 * after the socket and the filter are in place). */
static void wait_live(const char *path)
{
	struct stat st;
	for (int i = 0; i < 500; i++) {
		if (!stat(path, &st) && st.st_size >= 24)
			return;
		rx_sleep(0.01);
	}
	cr_assert_fail("%s never got its pcap header", path);
}

/* `ping -c COUNT` from server r0h0 to r1h0 (198.18.1.1), 0.2 s apart. */
static void ping_r1h0(int count)
{
	char netctl[600], c[16];
	fx_netctl_path(netctl, sizeof netctl);
	snprintf(c, sizeof c, "%d", count);
	const char *argv[] = {netctl, "--prefix", P, "exec", "r0h0", "--", "ping", "-n", "-q", "-c", c, "-i", "0.2",
			      "198.18.1.1", NULL};
	cr_assert_eq(rx_wait_exit(rx_spawn(argv, NULL)), 0, "ping r0h0 -> r1h0 failed");
}

/* The pcap file header's fields (little-endian: written on this machine). */
struct pcap_head { uint32_t magic, snaplen, linktype; };

static struct pcap_head head_of(const char *path)
{
	uint8_t h[24];
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s missing", path);
	cr_assert_eq(fread(h, 1, 24, f), 24, "%s: no pcap header", path);
	fclose(f);
	struct pcap_head r;
	memcpy(&r.magic, h, 4);
	memcpy(&r.snaplen, h + 16, 4);
	memcpy(&r.linktype, h + 20, 4);
	return r;
}

/* One packet as `tcpdump -n` prints it: addresses, ports (-1 for ICMP),
 * what it is ("ICMP" or "Flags" for TCP) and, for ICMP, its kind. */
struct pkt {
	char src[20], dst[20];
	int sport, dport;
	char what[16], kind[32];
};

/* "198.18.0.1.7000" -> address and port; "198.18.0.1" -> port -1. */
static void split_addr(const char *s, char *addr, int *port)
{
	int dots = 0;
	const char *last = NULL;
	for (const char *p = s; *p; p++)
		if (*p == '.') {
			dots++;
			last = p;
		}
	if (dots == 4) {
		snprintf(addr, 20, "%.*s", (int)(last - s), s);
		*port = atoi(last + 1);
	} else {
		snprintf(addr, 20, "%s", s);
		*port = -1;
	}
}

/* Read a pcap file with tcpdump; returns the number of packets (at most
 * max stored in out).  tcpdump failing to read it fails the test. */
static int read_pcap(const char *path, struct pkt *out, int max)
{
	char cmd[600], line[1024];
	snprintf(cmd, sizeof cmd, "tcpdump -r '%s' -n 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	int n = 0;
	while (fgets(line, sizeof line, p)) {
		char src[64] = "", dst[64] = "", what[16] = "", kind[32] = "";
		/* 12:00:00.000000 IP 198.18.0.1 > 198.18.1.1: ICMP echo request, ... */
		if (sscanf(line, "%*s IP %63s > %63[^:]: %15s %31[^,]", src, dst, what, kind) < 3)
			continue;
		if (n < max) {
			struct pkt *k = &out[n];
			split_addr(src, k->src, &k->sport);
			split_addr(dst, k->dst, &k->dport);
			snprintf(k->what, sizeof k->what, "%s", what);
			snprintf(k->kind, sizeof k->kind, "%s", kind);
		}
		n++;
	}
	cr_assert_eq(pclose(p), 0, "tcpdump could not read %s", path);
	return n;
}

/* Packets of pkts[0..n) from src to dst of the given ICMP kind. */
static int count_icmp(const struct pkt *k, int n, const char *src, const char *dst, const char *kind)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		c += !strcmp(k[i].what, "ICMP") && !strcmp(k[i].src, src) && !strcmp(k[i].dst, dst) &&
		     !strcmp(k[i].kind, kind);
	return c;
}

Test(capture, count_and_filter_exact)
{
	up(1);
	char file[128];
	snprintf(file, sizeof file, "%s/count.pcap", WORK);
	pid_t cap = start_capture((const char *[]){"r0h0", "-w", file, "--count", "6", "icmp", NULL}, in_dir("log"));
	wait_live(file);
	/* TCP from the same server, which the filter must leave out */
	char a[32], b[32];
	snprintf(a, sizeof a, "%s-r0h0", P);
	snprintf(b, sizeof b, "%s-r1h0", P);
	cr_assert_eq(tr_tcp_reach(a, b, "198.18.1.1", 3000), 0, "%s", tr_errmsg());
	ping_r1h0(4);   /* 8 ICMP packets on r0h0's eth0; the capture keeps the first 6 */
	cr_assert_eq(exit_within(cap, 5, NULL), 0, "netctl capture failed");

	struct pkt k[16];
	int n = read_pcap(file, k, 16);
	cr_assert_eq(n, 6, "%d packets in the file, --count 6", n);
	cr_assert_eq(count_icmp(k, n, "198.18.0.1", "198.18.1.1", "echo request"), 3);
	cr_assert_eq(count_icmp(k, n, "198.18.1.1", "198.18.0.1", "echo reply"), 3);
	struct pcap_head h = head_of(file);
	cr_assert_eq(h.magic, 0xa1b2c3d4, "a classic pcap file (microseconds)");
	cr_assert_eq(h.linktype, 1, "Ethernet on a server's eth0");
	cr_assert_eq(h.snaplen, 262144, "whole packets by default");
}

Test(capture, switch_default_is_every_interface)
{
	up(2);
	char file[128];
	snprintf(file, sizeof file, "%s/eps.pcap", WORK);
	pid_t cap = start_capture((const char *[]){"eps", "-w", file, "--count", "2", "--snaplen", "96", "icmp", NULL},
				  in_dir("log"));
	wait_live(file);
	ping_r1h0(1);   /* the request enters the core from ToR 0 and leaves it to ToR 1 */
	cr_assert_eq(exit_within(cap, 5, NULL), 0, "netctl capture failed");
	struct pkt k[8];
	int n = read_pcap(file, k, 8);
	cr_assert_eq(n, 2);
	cr_assert_eq(count_icmp(k, n, "198.18.0.1", "198.18.1.1", "echo request"), 2, "seen arriving and leaving");
	struct pcap_head h = head_of(file);
	cr_assert_eq(h.linktype, 113, "libpcap's any device: Linux cooked capture");
	cr_assert_eq(h.snaplen, 96);
}

Test(capture, seconds_bound_the_capture)
{
	up(3);
	char file[128];
	snprintf(file, sizeof file, "%s/seconds.pcap", WORK);
	double t0 = now_s();
	pid_t cap = start_capture((const char *[]){"r1h0", "-w", file, "--seconds", "1.5", "icmp", NULL}, in_dir("log"));
	wait_live(file);
	ping_r1h0(2);
	cr_assert_eq(exit_within(cap, 5, NULL), 0);
	/* from before its start: the bound plus its own setup and close */
	double took = now_s() - t0;
	cr_log_info("--seconds 1.5: ended %.2f s after it was started", took);
	cr_assert(took >= 1.5 && took < 2.5, "--seconds 1.5 ran %.2f s", took);
	struct pkt k[8];
	int n = read_pcap(file, k, 8);
	cr_assert_eq(n, 4, "two pings seen at r1h0: %d packets", n);
	cr_assert_eq(count_icmp(k, n, "198.18.0.1", "198.18.1.1", "echo request"), 2);
	cr_assert_eq(count_icmp(k, n, "198.18.1.1", "198.18.0.1", "echo reply"), 2);
}

Test(capture, signals_end_it_with_the_file_whole)
{
	up(4);
	static const int sigs[] = {SIGINT, SIGTERM};
	for (int i = 0; i < 2; i++) {
		char file[96];
		snprintf(file, sizeof file, "%s/sig%d.pcap", WORK, i);
		pid_t cap = start_capture((const char *[]){"r0h0", "-w", file, "icmp", NULL}, in_dir("log"));
		wait_live(file);
		ping_r1h0(3);
		kill(cap, sigs[i]);
		cr_assert_eq(exit_within(cap, 2, NULL), 0, "signal %d: not a clean end", sigs[i]);
		struct pkt k[16];
		int n = read_pcap(file, k, 16);
		cr_assert_eq(n, 6, "signal %d: %d packets of 3 pings", sigs[i], n);
		cr_assert_eq(count_icmp(k, n, "198.18.0.1", "198.18.1.1", "echo request"), 3);
	}
}

Test(capture, bad_input_exits_2_and_writes_nothing)
{
	up(5);
	char file[128];
	snprintf(file, sizeof file, "%s/bad.pcap", WORK);
	char nodir[128];
	snprintf(nodir, sizeof nodir, "%s/no/such/dir/x.pcap", WORK);
	const char *const *cases[] = {
		(const char *[]){"r0h0", "-w", file, "tcp", "port", NULL},           /* filter syntax */
		(const char *[]){"r0h0", "-w", file, "host", "no-such-host.invalid", NULL},
		(const char *[]){"r9h9", "-w", file, NULL},                          /* no such host */
		(const char *[]){"r0h0:eth9", "-w", file, NULL},                     /* no such interface */
		(const char *[]){"r0h0:", "-w", file, NULL},
		(const char *[]){"r0h0", NULL},                                      /* no -w */
		(const char *[]){"-w", file, NULL},                                  /* no host */
		(const char *[]){"r0h0", "-w", file, "--count", "0", NULL},
		(const char *[]){"r0h0", "-w", file, "--count", "ten", NULL},
		(const char *[]){"r0h0", "-w", file, "--seconds", "-1", NULL},
		(const char *[]){"r0h0", "-w", file, "--snaplen", "300000", NULL},
		(const char *[]){"r0h0", "-w", nodir, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cr_assert_eq(run_capture(cases[i]), 2, "case %zu (%s %s ...): not exit 2", i, cases[i][0], cases[i][1]);
		cr_assert_eq(access(file, F_OK), -1, "case %zu left %s behind", i, file);
	}
	/* no fabric under that prefix */
	char netctl[600];
	fx_netctl_path(netctl, sizeof netctl);
	const char *argv[] = {netctl, "--prefix", "itcapnone", "capture", "r0h0", "-w", file, NULL};
	cr_assert_eq(rx_wait_exit(rx_spawn(argv, NULL)), 2);
	cr_assert_eq(access(file, F_OK), -1);
}

/* ---- emu run --capture ---------------------------------------------------- */

/* topologies/tiny.conf of this source tree (the test binary is in build*). */
static void tiny_conf(char *buf, size_t len)
{
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = 0;
	for (int k = 0; k < 2; k++) {
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = 0;
	}
	snprintf(buf, len, "%s/topologies/tiny.conf", self);
}

/* `emu run` of the workload on tiny.conf; its log is shown if it fails unexpectedly. */
static int emu_run(const char *run_name, const char *const *extra, bool expect_ok)
{
	char emu[600], topo[600], wl[96], cmd[160];
	snprintf(wl, sizeof wl, "%s/wl-XXXXXX", WORK);
	rx_emu_path(emu, sizeof emu);
	tiny_conf(topo, sizeof topo);
	rx_write_file(wl, workload_text);
	const char *argv[40] = {emu, "run", "--topology", topo, "--workload", wl, "--prefix", P, "--results", RESULTS,
				"--experiment", "it", "--run", run_name, "--timeout", "60", "--quiet"};
	int n = 17;
	for (int i = 0; extra[i]; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	int rc = rx_wait_exit(rx_spawn(argv, in_dir("emu.log")));
	unlink(wl);
	snprintf(cmd, sizeof cmd, "tail -5 '%s' >&2", in_dir("emu.log"));
	if (rc && expect_ok && system(cmd)) { /* diagnostics only */ }
	return rc;
}

Test(capture, emu_run_writes_a_pcap_of_r0h0)
{
	begin(6);
	cr_assert_eq(emu_run("cap", (const char *[]){"--capture", "r0h0", "--capture-filter", "tcp", NULL}, true), 0);
	char file[128];
	snprintf(file, sizeof file, "%s/results/it/fair/cap/capture-r0h0-eth0.pcap", WORK);
	static struct pkt k[20000];
	int n = read_pcap(file, k, 20000);
	cr_assert(n > 0 && n <= 20000, "%d packets", n);
	int from = 0, to = 0;
	for (int i = 0; i < n; i++) {
		cr_assert_str_eq(k[i].what, "Flags", "packet %d is not TCP (the filter)", i);
		from += !strcmp(k[i].src, "198.18.0.1");
		to += !strcmp(k[i].dst, "198.18.0.1");
		cr_assert(!strcmp(k[i].src, "198.18.0.1") || !strcmp(k[i].dst, "198.18.0.1"),
			  "packet %d on r0h0's NIC neither from nor to r0h0: %s > %s", i, k[i].src, k[i].dst);
	}
	cr_log_info("capture-r0h0-eth0.pcap: %d TCP packets, %d from r0h0, %d to it", n, from, to);
	cr_assert(from > 0 && to > 0, "TCP both ways: %d from, %d to", from, to);
	cr_assert_eq(head_of(file).snaplen, 128, "headers only by default");

	/* the summary counts what the file holds; no temporary file is left */
	json_t *s = rx_summary(in_dir("results/it/fair/cap/summary.json"));
	json_t *c = json_array_get(json_object_get(json_object_get(s, "emu"), "captures"), 0);
	cr_assert_not_null(c);
	cr_assert_eq(json_integer_value(json_object_get(c, "packets")), n);
	cr_assert_str_eq(json_string_value(json_object_get(c, "file")), "capture-r0h0-eth0.pcap");
	json_decref(s);
	cr_assert_eq(access(in_dir("results/it/fair/cap/capture-r0h0-eth0.pcap.tmp"), F_OK), -1);
	cr_assert_eq(fx_ns_count(P), 0, "the run took its fabric down");
}

Test(capture, emu_run_bad_capture_exits_2)
{
	begin(7);
	const char *const *cases[] = {
		(const char *[]){"--backend", "sim", "--capture", "r0h0", NULL},
		(const char *[]){"--capture", "r9h9", NULL},
		(const char *[]){"--capture", "tor0:eth0", NULL},
		(const char *[]){"--capture", "r0h0", "--capture", "r0h0:eth0", NULL},
		(const char *[]){"--capture", "r0h0", "--capture-filter", "tcp port", NULL},
		(const char *[]){"--capture", "r0h0", "--capture-snaplen", "0", NULL},
		(const char *[]){"--capture-filter", "tcp", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cr_assert_eq(emu_run("bad", cases[i], false), 2, "case %zu (%s %s): not exit 2", i, cases[i][0], cases[i][1]);
		cr_assert_eq(access(in_dir("results/it"), F_OK), -1, "case %zu made a results directory", i);
		cr_assert_eq(fx_ns_count(P), 0, "case %zu left namespaces", i);
	}
}
