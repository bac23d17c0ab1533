/* Integration tests of stalled data connections (root): real agents in the
 * servers' namespaces, the test as a minimal controller on a Unix socket,
 * real transfers over the emulated network, and stalls made on purpose:
 *
 *   - a black hole (an nftables drop rule in the sending server's own
 *     namespace, made by this test, gone with the fabric) for longer than
 *     the stall timeout: the fetcher resumes on a new connection and the
 *     transfer completes, byte-exact;
 *   - a sender that never sends (SIGSTOP; the kernel still accepts the
 *     connections): the fetch fails after its bounded retries and the
 *     reduce reports the failure, within the bound;
 *   - a fetcher that stops reading (SIGSTOP): the sender aborts the
 *     connection (its pending demand drops), and once the fetcher runs
 *     again it asks for the rest and completes.
 *
 * Agents run with --stall-timeout 1 so the whole suite takes ~15 s.
 * Fabric: 2 racks x 2 servers, 100 Mbit servers, 50 Mbit uplinks.
 * Global server id = rack * 2 + index. */
#include "emu/agent_spawn.h"
#include "emu/proto.h"
#include "fabric_fixture.h"
#include "traffic.h"
#include <arpa/inet.h>
#include <criterion/logging.h>
#include <errno.h>
#include <nftables/libnftables.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#define P       "istl"
#define PORT    7000
#define NSRV    4
#define MB      1000000ULL
#define TIMEOUT "1"     /* --stall-timeout */
#define RETRIES "2"     /* --stall-retries */

static const char *topo =
	"name = \"istl\"; racks = 2; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"50Mbit\"; };\n"
	"ocs = { rate = \"200Mbit\"; };\n";

struct ag {
	pid_t pid;
	int fd;
	char buf[1 << 16];
	size_t len;
	uint64_t demand[2];
	int ndemand;
};

static struct {
	int lfd;
	char path[108];
	struct ag a[NSRV];
	struct topo t;
} C;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void setup(void)
{
	fx_need_root();
	memset(&C, 0, sizeof C);
	for (int i = 0; i < NSRV; i++)
		C.a[i].fd = -1;
	C.lfd = -1;
	fx_up(P, topo, &C.t);
	snprintf(C.path, sizeof C.path, "/tmp/" P "-ctl-%d.sock", (int)getpid());
	unlink(C.path);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, C.path);
	C.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(C.lfd, 0);
	cr_assert_eq(bind(C.lfd, (struct sockaddr *)&sa, sizeof sa), 0, "bind %s: %s", C.path, strerror(errno));
	cr_assert_eq(listen(C.lfd, 16), 0);
}

static void teardown(void)
{
	if (geteuid() != 0)
		return;
	for (int i = 0; i < NSRV; i++)
		if (C.a[i].pid > 0) {
			kill(C.a[i].pid, SIGKILL);
			waitpid(C.a[i].pid, NULL, 0);
		}
	if (C.lfd >= 0)
		close(C.lfd);
	if (C.path[0])
		unlink(C.path);
	fabric_down(P, NULL);   /* the namespaces, and the nftables rules in them */
}

TestSuite(stall, .init = setup, .fini = teardown, .timeout = 60);

static void ip_of(int id, char *buf) { sprintf(buf, "198.18.%d.%d", id / 2, id % 2 + 1); }

static struct sockaddr_in data_addr(int id)
{
	char ip[32];
	ip_of(id, ip);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(PORT)};
	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

static pid_t spawn(int id, const char *mode)
{
	char path[512], self[512], ns[48], server[32], rack[16], sid[16], ip[32], port[16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = 0;
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	snprintf(path, sizeof path, "%s/bin/emu-agent", self);
	cr_assert_eq(access(path, X_OK), 0, "%s: %s (build it: make SAN=1 build-san/bin/emu-agent)", path,
		     strerror(errno));
	sprintf(ns, P "-r%dh%d", id / 2, id % 2);
	sprintf(server, "r%dh%d", id / 2, id % 2);
	sprintf(rack, "%d", id / 2);
	sprintf(sid, "%d", id);
	sprintf(port, "%d", PORT);
	ip_of(id, ip);
	int nsfd = tr_ns_open(ns);
	cr_assert_geq(nsfd, 0, "open %s: %s", ns, strerror(errno));
	char *argv[] = {path, "--server", server, "--id", sid, "--rack", rack, "--addr", ip, "--data-port", port,
			"--control", C.path, (char *)mode, "--stall-timeout", TIMEOUT, "--stall-retries", RETRIES,
			NULL};
	pid_t pid = agent_spawn(path, nsfd, argv);
	close(nsfd);
	cr_assert_gt(pid, 0, "agent_spawn: %s", strerror(errno));
	return pid;
}

static int read_line(struct ag *a, char *line, size_t cap, double timeout)
{
	double end = now() + timeout;
	for (;;) {
		char *nl = memchr(a->buf, '\n', a->len);
		if (nl) {
			size_t n = (size_t)(nl - a->buf) + 1;
			cr_assert_lt(n, cap);
			memcpy(line, a->buf, n);
			line[n] = 0;
			memmove(a->buf, a->buf + n, a->len - n);
			a->len -= n;
			return 1;
		}
		double left = end - now();
		if (left <= 0)
			return 0;
		struct pollfd pfd = {.fd = a->fd, .events = POLLIN};
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		ssize_t r = read(a->fd, a->buf + a->len, sizeof a->buf - a->len);
		if (r <= 0)
			return -1;
		a->len += (size_t)r;
	}
}

/* Next message other than demand (demand is recorded); 0 on timeout/EOF. */
static int next_msg(int id, struct msg *m, double timeout)
{
	struct ag *a = &C.a[id];
	double end = now() + timeout;
	char line[8192], err[128];
	for (;;) {
		double left = end - now();
		int r = read_line(a, line, sizeof line, left > 0 ? left : 0);
		if (r <= 0)
			return 0;
		cr_assert_eq(proto_decode(line, strlen(line), m, err), 0, "agent %d: bad line (%s): %s", id, err, line);
		if (m->op != OP_DEMAND)
			return 1;
		for (int i = 0; i < m->npending; i++)
			if (m->pending[i].rack < 2)
				a->demand[m->pending[i].rack] = m->pending[i].bytes;
		a->ndemand++;
		proto_free(m);
	}
}

static void send_msg(int id, const struct msg *m)
{
	char buf[65536];
	int n = proto_encode(m, buf, sizeof buf);
	cr_assert_gt(n, 0);
	cr_assert_eq(write(C.a[id].fd, buf, (size_t)n), n);
}

static void start_agents(const int *ids, int n, const char *mode)
{
	for (int i = 0; i < n; i++)
		C.a[ids[i]].pid = spawn(ids[i], mode);
	for (int i = 0; i < n; i++) {
		struct pollfd pfd = {.fd = C.lfd, .events = POLLIN};
		cr_assert_eq(poll(&pfd, 1, 5000), 1, "only %d of %d agents connected", i, n);
		int fd = accept4(C.lfd, NULL, NULL, SOCK_CLOEXEC);
		cr_assert_geq(fd, 0);
		struct ag tmp = {.fd = fd};
		char line[1024], err[128];
		cr_assert_eq(read_line(&tmp, line, sizeof line, 5.0), 1, "no hello");
		struct msg m;
		cr_assert_eq(proto_decode(line, strlen(line), &m, err), 0, "%s: %s", err, line);
		cr_assert_eq(m.op, OP_HELLO);
		int rack, idx;
		cr_assert_eq(sscanf(m.server, "r%dh%d", &rack, &idx), 2);
		int id = rack * 2 + idx;
		cr_assert(id >= 0 && id < NSRV && C.a[id].pid > 0 && C.a[id].fd < 0, "unexpected hello from %s",
			  m.server);
		C.a[id].fd = fd;
		memcpy(C.a[id].buf, tmp.buf, tmp.len);
		C.a[id].len = tmp.len;
	}
}

/* One reduce on `dst` fetching `bytes` from `src` (the final fetch). */
static void reduce_from(int dst, int task, int src, uint64_t bytes, bool circuit)
{
	struct msg r = {.op = OP_REDUCE, .task = task, .job = 0, .duration = 0.05, .copiers = 5};
	send_msg(dst, &r);
	struct xfer x = {.id = 100 + task, .src = src, .addr = data_addr(src), .bytes = bytes, .circuit = circuit,
			 .src_rack = src / 2, .dst_rack = dst / 2};
	struct msg f = {.op = OP_FETCH, .task = task, .final = true, .xfers = &x, .nxfers = 1};
	send_msg(dst, &f);
}

static int nft_fn(void *arg)
{
	struct nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);
	if (!nft)
		return -1;
	nft_ctx_buffer_error(nft);
	int rc = nft_run_cmd_from_buffer(nft, arg);
	if (rc)
		cr_log_error("nft: %s", nft_ctx_get_error_buffer(nft));
	nft_ctx_free(nft);
	return rc;
}

/* Drop (or stop dropping) everything server `id` sends from its data port:
 * an nftables table of this test's own in that server's namespace. */
static void black_hole(int id, bool on)
{
	char ns[48];
	sprintf(ns, P "-r%dh%d", id / 2, id % 2);
	char *rules = on ? "table inet " P "_stall {\n"
			   "  chain out { type filter hook output priority 0; tcp sport 7000 drop; }\n"
			   "}\n"
			 : "delete table inet " P "_stall\n";
	cr_assert_eq(tr_in_ns(ns, nft_fn, rules), 0, "nftables in %s failed", ns);
}

/* ------------------------------------------------------------------ */

Test(stall, a_black_holed_fetch_resumes_on_a_new_connection_and_completes)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--hold");
	const uint64_t bytes = 8 * MB;   /* ~1.4 s over the 50 Mbit uplink */
	double t0 = now();
	reduce_from(2, 1, 0, bytes, false);
	usleep(300000);
	black_hole(0, true);
	double hole = 3.0;   /* 3 stall timeouts */
	usleep((useconds_t)(hole * 1e6));
	black_hole(0, false);
	struct msg m;
	/* SYNs of the resumed connection were lost too: its connect retries
	 * after 1, 2, 4 s; the rest of the 8 MB takes < 1.5 s after that */
	cr_assert_eq(next_msg(2, &m, 12), 1, "no flow_done 12 s after the black hole ended: the fetch hangs");
	cr_assert_eq(m.op, OP_FLOW_DONE, "op %d (error: %s)", (int)m.op, m.error);
	cr_assert_eq(m.bytes, bytes, "resumed fetch got %llu of %llu bytes", (unsigned long long)m.bytes,
		     (unsigned long long)bytes);
	cr_assert_eq(next_msg(2, &m, 5), 1);
	cr_assert_eq(m.op, OP_TASK_DONE);
	cr_assert(m.ok, "reduce failed: %s", m.error);
	cr_assert_eq(m.bytes, bytes, "bytes_in %llu", (unsigned long long)m.bytes);
	double took = now() - t0;
	cr_log_info("8 MB with a %.1f s black hole: %.2f s", hole, took);
	cr_assert_gt(took, 0.3 + hole, "the transfer did not wait for the black hole (%.2f s)", took);
}

Test(stall, a_fetch_from_a_sender_that_never_sends_fails_within_the_bound)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--hold");
	/* stopped: its kernel still accepts connections and their requests */
	cr_assert_eq(kill(C.a[0].pid, SIGSTOP), 0);
	double t0 = now();
	reduce_from(2, 2, 0, 2 * MB, false);
	/* 3 connections of 1 s each, 0.5 + 1 s of backoff between: ~4.5 s */
	struct msg m;
	int got = next_msg(2, &m, 15);
	double took = now() - t0;
	kill(C.a[0].pid, SIGCONT);
	cr_assert_eq(got, 1, "the reduce neither finished nor failed within 15 s: it hangs");
	cr_assert_eq(m.op, OP_TASK_DONE, "op %d", (int)m.op);
	cr_assert_not(m.ok, "a reduce whose sender never sent succeeded");
	cr_assert_eq(m.task, 2);
	cr_assert_eq(m.bytes, 0);
	cr_log_info("failed after %.2f s: %s", took, m.error);
	cr_assert(strstr(m.error, "xfer 102") && strstr(m.error, "no data for") && strstr(m.error, "2 retries"),
		  "the error should name the transfer, the stall and the retries: %s", m.error);
	cr_assert(took > 4.0 && took < 7.0, "failed after %.2f s, expected ~4.5 s (3 x 1 s + 0.5 s + 1 s)", took);
}

Test(stall, a_sender_aborts_when_its_fetcher_stops_reading_and_the_fetcher_resumes)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--fallback");   /* circuit-eligible, sent over the EPS: demand is reported */
	const uint64_t bytes = 24 * MB;        /* ~4 s over the 50 Mbit uplink */
	reduce_from(2, 3, 0, bytes, true);
	struct msg m;
	cr_assert_eq(next_msg(0, &m, 1.0), 0, "sender: unexpected op %d", (int)m.op);
	cr_assert_gt(C.a[0].demand[1], 0, "the sender reported no pending demand");
	cr_assert_eq(kill(C.a[2].pid, SIGSTOP), 0);
	double t0 = now();
	/* the fetcher's buffers fill, the window closes, nothing is acked for
	 * 1 s: the sender aborts and its pending demand drops to 0 */
	while (C.a[0].demand[1] > 0 && now() - t0 < 10)
		cr_assert_eq(next_msg(0, &m, 0.2), 0, "sender: unexpected op %d", (int)m.op);
	double took = now() - t0;
	cr_assert_eq(C.a[0].demand[1], 0, "the sender still holds %llu bytes 10 s after its fetcher stopped",
		     (unsigned long long)C.a[0].demand[1]);
	cr_log_info("sender gave up %.2f s after its fetcher stopped", took);
	cr_assert_lt(took, 6.0);
	cr_assert_eq(kill(C.a[2].pid, SIGCONT), 0);
	/* the fetcher reads what it has, finds the reset, asks for the rest */
	cr_assert_eq(next_msg(2, &m, 15), 1, "no flow_done 15 s after the fetcher resumed");
	cr_assert_eq(m.op, OP_FLOW_DONE, "op %d (error: %s)", (int)m.op, m.error);
	cr_assert_eq(m.bytes, bytes, "got %llu of %llu bytes", (unsigned long long)m.bytes,
		     (unsigned long long)bytes);
	cr_assert_eq(next_msg(2, &m, 5), 1);
	cr_assert_eq(m.op, OP_TASK_DONE);
	cr_assert(m.ok, "reduce failed: %s", m.error);
	/* and nothing stays pending at the sender */
	double t1 = now();
	while (C.a[0].demand[1] > 0 && now() - t1 < 2)
		next_msg(0, &m, 0.2);
	cr_assert_eq(C.a[0].demand[1], 0, "%llu bytes still pending at the sender",
		     (unsigned long long)C.a[0].demand[1]);
}
