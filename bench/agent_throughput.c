/* Benchmark: do the agents move data as fast as the kernel can? (root)
 *
 *   build/bench/agent_throughput [--agent PATH] [--rate 5Gbit] [--seconds 5] [--send sendfile|send]
 *
 * On a 2-rack fabric of one server each (server and uplink at --rate, no
 * OCS), in the same run:
 *   1. iperf3 from r0h0 to r1h0 for --seconds (the kernel's limit on this
 *      path, with iperf3's own CPU use);
 *   2. the agents: a reduce on r1h0 fetching one transfer of about
 *      rate x seconds bytes from the agent on r0h0; throughput from its
 *      flow_done, CPU seconds per Gbit of each agent from /proc/PID/stat.
 * Then the same at the emulated rate, 100 Mbit, where both should reach
 * ~95 Mbit/s (the TCP goodput of a 100 Mbit link). */
#include "emu/agent_spawn.h"
#include "emu/proto.h"
#include "netctl/fabric.h"
#include "netctl/ns.h"
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PFX  "abench"
#define PORT 7000

static const char *agent_bin;
static const char *send_mode = "sendfile";

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "agent_throughput: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	fabric_down(PFX, NULL);
	exit(1);
}

static void up(const char *rate)
{
	char text[512], err[FABRIC_ERR_LEN];
	struct topo t;
	snprintf(text, sizeof text,
		 "racks = 2; servers_per_rack = 1; server = { rate = \"%s\"; };"
		 "eps = { uplink_rate = \"%s\"; }; ocs = { enabled = false; };", rate, rate);
	fabric_down(PFX, NULL);
	if (topo_load_string(&t, text, "bench", 0, err) || fabric_up(&t, PFX, NULL, err))
		die("%s", err);
}

/* iperf3 r0h0 -> r1h0; returns receiver bits/s, *cpu_s = sender + receiver CPU seconds. */
static double iperf(double seconds, double *cpu_s)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "ip netns exec " PFX "-r1h0 iperf3 -s -1 -B 198.18.1.1 -p 5201 -D");
	if (system(cmd))
		die("%s failed", cmd);
	usleep(300000);
	snprintf(cmd, sizeof cmd,
		 "ip netns exec " PFX "-r0h0 timeout %d iperf3 -c 198.18.1.1 -p 5201 -t %g -C cubic -J 2>/dev/null",
		 (int)seconds + 15, seconds);
	FILE *p = popen(cmd, "r");
	if (!p)
		die("%s", "popen");
	json_error_t je;
	json_t *j = json_loadf(p, 0, &je);
	pclose(p);
	double bps = 0, hp = 0, rp = 0;
	if (!j || json_unpack(j, "{s:{s:{s:F}, s:{s:F, s:F}}}", "end", "sum_received", "bits_per_second", &bps,
			      "cpu_utilization_percent", "host_total", &hp, "remote_total", &rp))
		die("%s", "cannot read iperf3's JSON output");
	json_decref(j);
	*cpu_s = (hp + rp) / 100.0 * seconds;
	return bps;
}

struct ag {
	pid_t pid;
	int fd;
	char buf[65536];
	size_t len;
};

static double cpu_of(pid_t pid)
{
	char path[64], line[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f || !fgets(line, sizeof line, f))
		die("cannot read %s", path);
	fclose(f);
	char *s = strrchr(line, ')');
	unsigned long ut = 0, st = 0;
	/* after "pid (comm)": state is field 3, utime 14, stime 15 */
	if (!s || sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		die("cannot parse %s", path);
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static int read_msg(struct ag *a, struct msg *m, double timeout_s)
{
	char err[128];
	for (;;) {
		char *nl = memchr(a->buf, '\n', a->len);
		if (nl) {
			size_t n = (size_t)(nl - a->buf) + 1;
			int rc = proto_decode(a->buf, n, m, err);
			memmove(a->buf, a->buf + n, a->len - n);
			a->len -= n;
			if (rc)
				die("bad message from an agent: %s", err);
			return 0;
		}
		struct pollfd pfd = {.fd = a->fd, .events = POLLIN};
		if (poll(&pfd, 1, (int)(timeout_s * 1000)) != 1)
			return -1;
		ssize_t r = read(a->fd, a->buf + a->len, sizeof a->buf - a->len);
		if (r <= 0)
			return -1;
		a->len += (size_t)r;
	}
}

static void spawn(struct ag *a, int lfd, const char *ctl, int rack)
{
	char ns[64], server[16], rk[8], id[8], ip[32], port[8];
	snprintf(ns, sizeof ns, PFX "-r%dh0", rack);
	snprintf(server, sizeof server, "r%dh0", rack);
	snprintf(rk, sizeof rk, "%d", rack);
	snprintf(id, sizeof id, "%d", rack);
	snprintf(ip, sizeof ip, "198.18.%d.1", rack);
	snprintf(port, sizeof port, "%d", PORT);
	int nsfd = ns_open(ns);
	if (nsfd < 0)
		die("cannot open namespace %s", ns);
	char *argv[] = {(char *)agent_bin, "--server", server, "--id", id, "--rack", rk, "--addr", ip,
			"--data-port", port, "--control", (char *)ctl, "--cc", "cubic", "--send", (char *)send_mode, NULL};
	a->pid = agent_spawn(agent_bin, nsfd, argv);
	close(nsfd);
	struct pollfd pfd = {.fd = lfd, .events = POLLIN};
	if (a->pid < 0 || poll(&pfd, 1, 5000) != 1)
		die("agent on %s did not connect", server);
	a->fd = accept(lfd, NULL, NULL);
	a->len = 0;
	struct msg m;
	if (read_msg(a, &m, 5) || m.op != OP_HELLO)
		die("no hello from %s", server);
}

static void send_msg(struct ag *a, const struct msg *m)
{
	char buf[4096];
	int n = proto_encode(m, buf, sizeof buf);
	if (n < 0 || write(a->fd, buf, (size_t)n) != n)
		die("%s", "cannot send to an agent");
}

/* One transfer of `bytes` from the agent on r0h0 to the one on r1h0. */
static double agents(uint64_t bytes, double *cpu_tx, double *cpu_rx)
{
	char ctl[108];
	snprintf(ctl, sizeof ctl, "/tmp/" PFX "-ctl-%d.sock", (int)getpid());
	unlink(ctl);
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, ctl);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) || listen(lfd, 4))
		die("cannot listen on %s", ctl);
	static struct ag tx, rx;
	spawn(&tx, lfd, ctl, 0);
	spawn(&rx, lfd, ctl, 1);
	double c0tx = cpu_of(tx.pid), c0rx = cpu_of(rx.pid);
	struct msg r = {.op = OP_REDUCE, .task = 1, .copiers = 1};
	send_msg(&rx, &r);
	struct xfer x = {.id = 1, .src = 0, .bytes = bytes, .src_rack = 0, .dst_rack = 1,
			 .addr = {.sin_family = AF_INET, .sin_port = htons(PORT)}};
	inet_pton(AF_INET, "198.18.0.1", &x.addr.sin_addr);
	struct msg f = {.op = OP_FETCH, .task = 1, .final = true, .xfers = &x, .nxfers = 1};
	send_msg(&rx, &f);
	struct msg m;
	double bps = 0;
	for (;;) {
		if (read_msg(&rx, &m, 120))
			die("%s", "no answer from the receiving agent");
		if (m.op == OP_FLOW_DONE) {
			if (m.bytes != bytes)
				die("%s", "wrong byte count");
			bps = (double)m.bytes * 8 / (m.t_end - m.t_start);
		} else if (m.op == OP_TASK_DONE) {
			if (!m.ok)
				die("transfer failed: %s", m.error);
			break;
		}
	}
	*cpu_tx = cpu_of(tx.pid) - c0tx;
	*cpu_rx = cpu_of(rx.pid) - c0rx;
	close(tx.fd);
	close(rx.fd);
	waitpid(tx.pid, NULL, 0);
	waitpid(rx.pid, NULL, 0);
	close(lfd);
	unlink(ctl);
	return bps;
}

static void run(const char *rate_s, double rate, double seconds)
{
	up(rate_s);
	double icpu, acpu_tx, acpu_rx;
	double ibps = iperf(seconds, &icpu);
	uint64_t bytes = (uint64_t)(ibps / 8 * seconds);
	double abps = agents(bytes, &acpu_tx, &acpu_rx);
	double gbit = (double)bytes * 8 / 1e9, igbit = ibps * seconds / 1e9;
	printf("%-8s iperf3 %8.1f Mbit/s (%.3f CPU s/Gbit)   agents %8.1f Mbit/s (%.1f MB; CPU s/Gbit: "
	       "sender %.3f, receiver %.3f)   agents/iperf3 %.3f\n",
	       rate_s, ibps / 1e6, icpu / igbit, abps / 1e6, (double)bytes / 1e6, acpu_tx / gbit, acpu_rx / gbit,
	       abps / ibps);
	(void)rate;
	fflush(stdout);
	fabric_down(PFX, NULL);
}

int main(int argc, char **argv)
{
	static char path[600];
	const char *rate = "5Gbit";
	double seconds = 5;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--agent") && i + 1 < argc)
			agent_bin = argv[++i];
		else if (!strcmp(argv[i], "--rate") && i + 1 < argc)
			rate = argv[++i];
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--send") && i + 1 < argc)
			send_mode = argv[++i];
		else {
			fprintf(stderr, "usage: agent_throughput [--agent PATH] [--rate 5Gbit] [--seconds 5] [--send sendfile|send]\n");
			return 2;
		}
	}
	if (geteuid() != 0) {
		printf("agent_throughput: skipped (needs root: it builds network namespaces)\n");
		return 0;
	}
	if (!agent_bin) {   /* build/bench/agent_throughput -> build/bin/emu-agent */
		char self[512];
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		self[n > 0 ? n : 0] = 0;
		char *s = strrchr(self, '/');
		if (s)
			*s = 0;
		snprintf(path, sizeof path, "%s/../bin/emu-agent", self);
		agent_bin = path;
	}
	if (access(agent_bin, X_OK))
		die("no agent at %s (make first)", agent_bin);
	signal(SIGPIPE, SIG_IGN);
	printf("agent throughput vs iperf3, r0h0 -> r1h0 across the EPS, %g s each (send mode: %s)\n", seconds,
	       send_mode);
	run(rate, 0, seconds);
	run("100Mbit", 100e6, seconds < 4 ? seconds : 4);
	return 0;
}
