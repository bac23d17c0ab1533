/* A minimal controller for the agents' integration tests (root): the test
 * listens on a Unix socket, spawns real agents in the servers' namespaces of
 * a 2 racks x 2 servers fabric, and speaks the control protocol to them.
 * Global server id = rack * 2 + index.  Each test file includes this once,
 * so the controller state C is its own. */
#ifndef TESTS_AGENT_FIXTURE_H
#define TESTS_AGENT_FIXTURE_H
#include "emu/agent_spawn.h"
#include "emu/proto.h"
#include "fabric_fixture.h"
#include "traffic.h"
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#define PORT 7000
#define NSRV 4

struct ag {
	pid_t pid;
	int fd;
	char buf[1 << 16];
	size_t len;
	uint64_t demand[2];     /* last reported pending bytes per dst rack */
	uint64_t queued[2];     /* last reported held-back bytes per src rack */
	int ndemand;            /* demand messages seen */
};

static struct {
	const char *prefix;
	const char *const *args;   /* the agents' options after --control PATH MODE */
	int lfd;
	char path[108];
	struct ag a[NSRV];
	struct topo t;
} C;

static inline double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The fabric `topo` under `prefix`, and the control socket; `args` (NULL-
 * terminated) are given to every agent. */
static inline void ctl_up(const char *prefix, const char *topo, const char *const *args)
{
	fx_need_root();
	memset(&C, 0, sizeof C);
	for (int i = 0; i < NSRV; i++)
		C.a[i].fd = -1;
	C.lfd = -1;
	C.prefix = prefix;
	C.args = args;
	fx_up(prefix, topo, &C.t);
	snprintf(C.path, sizeof C.path, "/tmp/%s-ctl-%d.sock", prefix, (int)getpid());
	unlink(C.path);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, C.path);
	C.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(C.lfd, 0);
	cr_assert_eq(bind(C.lfd, (struct sockaddr *)&sa, sizeof sa), 0, "bind %s: %s", C.path, strerror(errno));
	cr_assert_eq(listen(C.lfd, 16), 0);
}

/* The agents, the socket, and the fabric (its namespaces and whatever the
 * tests made in them). */
static inline void ctl_down(void)
{
	if (geteuid() != 0 || !C.prefix)
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
	fabric_down(C.prefix, NULL);
}

static inline void agent_path(char *buf, size_t len)
{
	fx_bin_path("emu-agent", buf, len);
}

static inline void ip_of(int id, char *buf) { sprintf(buf, "198.18.%d.%d", id / 2, id % 2 + 1); }

static inline struct sockaddr_in data_addr(int id)
{
	char ip[32];
	ip_of(id, ip);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(PORT)};
	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

/* Agent `id` in its namespace, reporting to the controller at ctl_path. */
static inline pid_t spawn_to(int id, const char *ctl_path, const char *mode)
{
	char path[512], ns[48], server[32], rack[16], sid[16], ip[32], port[16];
	agent_path(path, sizeof path);
	cr_assert_eq(access(path, X_OK), 0, "%s: %s (build it: make SAN=1 build-san/bin/emu-agent)", path,
		     strerror(errno));
	snprintf(ns, sizeof ns, "%s-r%dh%d", C.prefix, id / 2, id % 2);
	sprintf(server, "r%dh%d", id / 2, id % 2);
	sprintf(rack, "%d", id / 2);
	sprintf(sid, "%d", id);
	sprintf(port, "%d", PORT);
	ip_of(id, ip);
	int nsfd = tr_ns_open(ns);
	cr_assert_geq(nsfd, 0, "open %s: %s", ns, strerror(errno));
	char *argv[32] = {path, "--server", server, "--id", sid, "--rack", rack, "--addr", ip, "--data-port", port,
			  "--control", (char *)ctl_path, (char *)mode};
	int n = 14;
	for (const char *const *a = C.args; a && *a && n < 31; a++)
		argv[n++] = (char *)*a;
	argv[n] = NULL;
	pid_t pid = agent_spawn(path, nsfd, argv);
	close(nsfd);
	cr_assert_gt(pid, 0, "agent_spawn: %s", strerror(errno));
	return pid;
}

/* Read one line from agent a within timeout; 1 = got one, 0 = timeout,
 * -1 = EOF. */
static inline int read_line(struct ag *a, char *line, size_t cap, double timeout)
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
static inline int next_msg(int id, struct msg *m, double timeout)
{
	struct ag *a = &C.a[id];
	double end = now() + timeout;
	char line[8192], err[128];
	for (;;) {
		double left = end - now();
		int r = read_line(a, line, sizeof line, left > 0 ? left : 0);
		if (r <= 0)
			return 0;
		cr_assert_eq(proto_decode(line, strlen(line), m, err), 0, "agent %d sent a bad line (%s): %s", id, err,
			     line);
		if (m->op != OP_DEMAND)
			return 1;
		memset(a->demand, 0, sizeof a->demand);   /* each message is the whole vector */
		memset(a->queued, 0, sizeof a->queued);
		for (int i = 0; i < m->npending; i++)
			if (m->pending[i].rack < 2)
				a->demand[m->pending[i].rack] = m->pending[i].bytes;
		for (int i = 0; i < m->nqueued; i++)
			if (m->queued[i].rack < 2)
				a->queued[m->queued[i].rack] = m->queued[i].bytes;
		a->ndemand++;
		proto_free(m);
	}
}

static inline void send_msg(int id, const struct msg *m)
{
	char buf[65536];
	int n = proto_encode(m, buf, sizeof buf);
	cr_assert_gt(n, 0);
	cr_assert_eq(write(C.a[id].fd, buf, (size_t)n), n);
}

/* Spawn the agents in `ids` and collect their hellos. */
static inline void start_agents(const int *ids, int n, const char *mode)
{
	for (int i = 0; i < n; i++)
		C.a[ids[i]].pid = spawn_to(ids[i], C.path, mode);
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
		cr_assert_eq(m.op, OP_HELLO, "first message is not hello: %s", line);
		int rack, idx;
		cr_assert_eq(sscanf(m.server, "r%dh%d", &rack, &idx), 2, "hello from '%s'", m.server);
		int id = rack * 2 + idx;
		cr_assert(id >= 0 && id < NSRV && C.a[id].pid > 0 && C.a[id].fd < 0, "unexpected hello from %s",
			  m.server);
		cr_assert_eq(m.pid, C.a[id].pid, "hello pid %d, spawned %d", m.pid, C.a[id].pid);
		cr_assert_eq(m.data_port, PORT);
		C.a[id].fd = fd;
		memcpy(C.a[id].buf, tmp.buf, tmp.len);
		C.a[id].len = tmp.len;
	}
}
#endif
