/* Benchmark: how fast and how punctual OCS reconfigurations are (root).
 *
 *   build/bench/ocs_timing
 *
 * 1. Control-plane apply time (netlink work of one reconfiguration in which
 *    every rack's circuit changes) for R = 10, 20, 100 racks.
 *    Target: <= 1 ms at R = 20.
 * 2. Punctuality of delta: (light - switch) - delta over many
 *    reconfigurations, with and without SCHED_FIFO, on an idle machine and
 *    with both cores loaded by busy loops.
 * 3. The dark gap seen by packets: with TCP flows crossing a circuit that
 *    alternates between two peers, the time between the last frame to the
 *    old peer and the first to the new one (libpcap timestamps), minus delta. */
#include "emu/ocs_ctl.h"
#include "netctl/capture.h"
#include "netctl/ns.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PFX "bocs"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double q)
{
	qsort(v, n, sizeof *v, cmp);
	int i = (int)(q * (n - 1) + 0.5);
	return v[i];
}

static struct fabric *up(int racks, int servers)
{
	char text[512], err[FABRIC_ERR_LEN];
	struct topo t;
	snprintf(text, sizeof text,
		 "racks = %d; servers_per_rack = %d; server = { rate = \"100Mbit\"; };"
		 "eps = { uplink_rate = \"20Mbit\"; }; ocs = { rate = \"60Mbit\"; };", racks, servers);
	fabric_down(PFX, NULL);
	if (topo_load_string(&t, text, "bench", 0, err) || fabric_up(&t, PFX, NULL, err)) {
		fprintf(stderr, "ocs_timing: %s\n", err);
		exit(1);
	}
	struct fabric *f = fabric_open(PFX, err);
	if (!f) {
		fprintf(stderr, "ocs_timing: %s\n", err);
		exit(1);
	}
	return f;
}

/* Circuit i -> (i + shift) mod R for every rack: all outputs change between shifts. */
static void shifted(struct fabric *f, int shift, struct circuit_cfg *c)
{
	circuits_clear(c, &f->topo);
	for (int r = 0; r < f->topo.racks; r++)
		c->out[0][r] = (int16_t)((r + shift) % f->topo.racks);
}

static void apply_time(void)
{
	static const int sizes[] = {10, 20, 100};
	printf("1) control-plane time of a reconfiguration that changes every circuit\n");
	printf("   %6s %10s %10s %10s\n", "racks", "p50 ms", "p90 ms", "max ms");
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		struct fabric *f = up(sizes[s], 1);
		struct ocs_ctl c;
		struct ocs_params p;
		char err[FABRIC_ERR_LEN];
		ocs_params_default(&p);
		p.delta_s = 0;
		p.guard_s = 0;
		ocs_ctl_init(&c, f, &p, NULL, NULL, err);
		double ms[60];
		int n = 0;
		for (int i = 0; i < 61; i++) {
			struct circuit_cfg next;
			struct ocs_event ev;
			shifted(f, 1 + i % (sizes[s] - 1), &next);
			if (ocs_reconfigure(&c, &next, &ev, err)) {
				fprintf(stderr, "%s\n", err);
				exit(1);
			}
			if (i)   /* the first opens the sockets */
				ms[n++] = ev.apply_ms;
		}
		printf("   %6d %10.3f %10.3f %10.3f\n", sizes[s], pct(ms, n, 0.5), pct(ms, n, 0.9), pct(ms, n, 1.0));
		ocs_ctl_free(&c);
		fabric_close(f);
		fabric_down(PFX, NULL);
	}
}

static pid_t hogs[2];

static void load_start(void)
{
	for (int i = 0; i < 2; i++) {
		hogs[i] = fork();
		if (hogs[i] == 0) {
			alarm(120);   /* bounded even if we die */
			for (volatile unsigned long x = 0;; x++)
				;
		}
	}
}

static void load_stop(void)
{
	for (int i = 0; i < 2; i++) {
		kill(hogs[i], SIGKILL);
		waitpid(hogs[i], NULL, 0);
	}
}

static void punctuality(void)
{
	struct fabric *f = up(4, 1);
	printf("\n2) delta = 10 ms: overshoot (light - switch - delta), 40 reconfigurations each\n");
	printf("   %-22s %10s %10s %10s\n", "condition", "p50 ms", "p99 ms", "max ms");
	for (int loaded = 0; loaded < 2; loaded++)
		for (int rt = 0; rt < 2; rt++) {
			struct ocs_ctl c;
			struct ocs_params p;
			char err[FABRIC_ERR_LEN];
			ocs_params_default(&p);
			ocs_ctl_init(&c, f, &p, NULL, NULL, err);
			if (loaded)
				load_start();
			struct sched_param sp = {.sched_priority = rt ? 50 : 0};
			int ok = sched_setscheduler(0, rt ? SCHED_FIFO : SCHED_OTHER, &sp) == 0;
			double over[40];
			for (int i = 0; i < 40; i++) {
				struct circuit_cfg next;
				struct ocs_event ev;
				shifted(f, 1 + i % 3, &next);
				ocs_reconfigure(&c, &next, &ev, err);
				over[i] = (ev.t_lit - ev.t_switch - p.delta_s) * 1e3;
			}
			sp.sched_priority = 0;
			sched_setscheduler(0, SCHED_OTHER, &sp);
			if (loaded)
				load_stop();
			char cond[64];
			snprintf(cond, sizeof cond, "%s, %s%s", loaded ? "loaded" : "idle", rt ? "SCHED_FIFO" : "normal",
				 rt && !ok ? " (refused)" : "");
			printf("   %-22s %10.3f %10.3f %10.3f\n", cond, pct(over, 40, 0.5), pct(over, 40, 0.99),
			       pct(over, 40, 1.0));
			ocs_ctl_free(&c);
		}
	fabric_close(f);
	fabric_down(PFX, NULL);
}

/* A bulk TCP sender from one namespace to another, marked for circuits. */
struct sender { int fd; atomic_int *stop; };

static void *send_loop(void *arg)
{
	struct sender *s = arg;
	static char buf[65536];
	while (!atomic_load(s->stop))
		if (send(s->fd, buf, sizeof buf, 0) < 0 && errno != EAGAIN && errno != EINTR)
			break;
	return NULL;
}

static void *drain_loop(void *arg)
{
	struct sender *s = arg;
	static char buf[65536];
	while (!atomic_load(s->stop)) {
		ssize_t r = recv(s->fd, buf, sizeof buf, 0);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			break;
	}
	return NULL;
}

static int sock_in(int ns_fd, int root_fd)
{
	ns_enter(ns_fd);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	ns_enter(root_fd);
	return s;
}

static void packet_gap(void)
{
	struct fabric *f = up(3, 2);
	char err[FABRIC_ERR_LEN];
	struct ocs_ctl c;
	struct ocs_params p;
	ocs_params_default(&p);
	ocs_ctl_init(&c, f, &p, NULL, NULL, err);
	struct circuit_cfg to1, to2;
	circuits_parse("0>1", &f->topo, &to1, err);
	circuits_parse("0>2", &f->topo, &to2, err);
	ocs_reconfigure(&c, &to1, NULL, err);

	/* Two marked flows from rack 0, to racks 1 and 2. */
	atomic_int stop = 0;
	pthread_t th[4];
	struct sender sd[4];
	struct timeval tv = {0, 200000};
	for (int k = 0; k < 2; k++) {
		struct host_id src = {HOST_SERVER, 0, k}, dst = {HOST_SERVER, 1 + k, 0};
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(5001)};
		char ip[32];
		snprintf(ip, sizeof ip, "198.18.%d.1", 1 + k);
		inet_pton(AF_INET, ip, &a.sin_addr);
		int l = sock_in(fabric_ns_fd(f, &dst), f->root_fd), one = 1, tos = CIRCUIT_TOS;
		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1)) {
			perror("listen");
			exit(1);
		}
		int cs = sock_in(fabric_ns_fd(f, &src), f->root_fd);
		setsockopt(cs, IPPROTO_IP, IP_TOS, &tos, sizeof tos);
		setsockopt(cs, IPPROTO_TCP, TCP_CONGESTION, "cubic", 5);
		setsockopt(cs, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
		if (connect(cs, (struct sockaddr *)&a, sizeof a)) {
			perror("connect");
			exit(1);
		}
		int as = accept(l, NULL, NULL);
		close(l);
		setsockopt(as, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		sd[2 * k] = (struct sender){cs, &stop};
		sd[2 * k + 1] = (struct sender){as, &stop};
		pthread_create(&th[2 * k], NULL, send_loop, &sd[2 * k]);
		pthread_create(&th[2 * k + 1], NULL, drain_loop, &sd[2 * k + 1]);
	}
	int rt = ocs_realtime() == 0;
	struct host_id oh = {HOST_OCS, 0, 0};
	uint8_t mac[3][6];
	for (int r = 0; r < 3; r++)
		plan_mac(MAC_TOR_OPT, r, 0, 0, mac[r]);
	double gaps[30], darks[30];
	int n = 0;
	for (int i = 0; i < 30; i++) {
		struct timespec ts = {0, 300 * 1000000L};
		nanosleep(&ts, NULL);
		struct capture *cap = capture_start(fabric_ns_fd(f, &oh), f->root_fd, "r0p0", 1, err);
		nanosleep(&ts, NULL);
		int from = i % 2 ? 2 : 1, to = i % 2 ? 1 : 2;
		struct ocs_event ev;
		ocs_reconfigure(&c, i % 2 ? &to1 : &to2, &ev, err);
		nanosleep(&ts, NULL);
		struct cap_pkt *pk;
		size_t np;
		capture_stop(cap, &pk, &np);
		double last = 0, first = 0;
		for (size_t k = 0; k < np; k++) {
			if (!memcmp(pk[k].dst, mac[from], 6) && pk[k].ts < ev.t_switch && pk[k].ts > last)
				last = pk[k].ts;
			if (!memcmp(pk[k].dst, mac[to], 6) && pk[k].ts > ev.t_dark && !first)
				first = pk[k].ts;
		}
		free(pk);
		if (last && first) {
			gaps[n] = (first - last) * 1e3;
			darks[n++] = ev.dark_s * 1e3;
		}
	}
	atomic_store(&stop, 1);
	for (int k = 0; k < 4; k++) {
		pthread_join(th[k], NULL);
		close(sd[k].fd);
	}
	struct sched_param sp = {0};
	sched_setscheduler(0, SCHED_OTHER, &sp);
	printf("\n3) packet-level gap of a moving circuit (delta 10 ms, %s), %d moves\n",
	       rt ? "SCHED_FIFO" : "normal priority", n);
	if (n) {
		double g50 = pct(gaps, n, 0.5), g99 = pct(gaps, n, 0.99), gmin = pct(gaps, n, 0);
		printf("   gap - delta: min %.2f ms, p50 %.2f ms, p99 %.2f ms; logged dark p50 %.2f ms\n",
		       gmin - 10, g50 - 10, g99 - 10, pct(darks, n, 0.5));
	}
	ocs_ctl_free(&c);
	fabric_close(f);
	fabric_down(PFX, NULL);
}

int main(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "ocs_timing: needs root (it builds namespaces)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	apply_time();
	punctuality();
	packet_gap();
	return 0;
}
