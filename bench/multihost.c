/* Benchmark: one fabric on one host beside the same fabric over two and
 * three emulated hosts (root).
 *
 *   build/bench/multihost NETCTL [TOPOLOGY [RATE_SCALE [ROUNDS]]]
 *
 * Default: topologies/geni-10rack.conf at rate scale 0.1 (servers 10 Mbit/s,
 * uplinks 10 Mbit/s, circuits 100 Mbit/s).  For each layout: the time to
 * bring it up; the aggregate goodput of one flow per server to the server of
 * the same index in the next rack, unmarked (over the EPS core) and marked
 * with every rack's circuit lit to the next rack (over the OCS); and 20
 * reconfigurations that change every circuit (delta 10 ms): the dark gap,
 * each host's, and the control plane's work.  The layouts take turns for
 * ROUNDS rounds (default 3), so a change in the machine's load falls on
 * all of them; each figure is the median of its rounds.  On one machine the split
 * layouts cost the tunnels' encapsulation and the bridge; two real machines
 * add the LAN's latency to every crossing and its rate as a ceiling. */
#include "emu/ocs_ctl.h"
#include "netctl/hostfab.h"
#include "netctl/ns.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PFX "bmh"
#define MAXF 512

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double q)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, cmp);
	return v[(int)(q * (n - 1) + 0.5)];
}

static void die(const char *what, const char *err)
{
	fprintf(stderr, "multihost: %s: %s\n", what, err);
	fabric_down(PFX, NULL);
	exit(1);
}

struct flow { int snd, rcv; atomic_ullong bytes; };
static atomic_int stop;

static void *send_loop(void *arg)
{
	struct flow *f = arg;
	static char buf[65536];
	while (!atomic_load(&stop))
		if (send(f->snd, buf, sizeof buf, 0) < 0 && errno != EAGAIN && errno != EINTR)
			break;
	return NULL;
}

static void *recv_loop(void *arg)
{
	struct flow *f = arg;
	static _Thread_local char buf[65536];
	while (!atomic_load(&stop)) {
		ssize_t r = recv(f->rcv, buf, sizeof buf, 0);
		if (r > 0)
			atomic_fetch_add(&f->bytes, (unsigned long long)r);
		else if (r == 0 || (errno != EAGAIN && errno != EINTR))
			break;
	}
	return NULL;
}

static int sock_in(struct fabric *f, const struct host_id *h)
{
	if (ns_enter(fabric_ns_fd(f, h)))
		return -1;
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ns_enter(f->root_fd);
	return s;
}

/* Every server to the server of its index in the next rack (smaller racks
 * wrap), tos 0 or marked; the aggregate goodput in bits/s over `secs`. */
static double aggregate(struct fabric *f, int tos, double warm, double secs)
{
	const struct topo *t = &f->topo;
	static struct flow fl[MAXF];
	pthread_t th[2 * MAXF];
	struct timeval tv = {0, 200000};
	int n = 0;
	atomic_store(&stop, 0);
	for (int r = 0; r < t->racks; r++)
		for (int s = 0; s < topo_rack_size(t, r) && n < MAXF; s++, n++) {
			int dr = (r + 1) % t->racks, ds = s % topo_rack_size(t, dr);
			struct host_id src = {HOST_SERVER, r, s}, dst = {HOST_SERVER, dr, ds};
			struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)(6000 + n))};
			a.sin_addr = plan_server_ip(t, dr, ds);
			int l = sock_in(f, &dst), one = 1;
			setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
			if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1))
				die("listen", strerror(errno));
			int c = sock_in(f, &src);
			setsockopt(c, IPPROTO_IP, IP_TOS, &tos, sizeof tos);
			setsockopt(c, IPPROTO_TCP, TCP_CONGESTION, "cubic", 5);
			setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
			if (connect(c, (struct sockaddr *)&a, sizeof a))
				die("connect", strerror(errno));
			int acc = accept(l, NULL, NULL);
			close(l);
			setsockopt(acc, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
			fl[n].snd = c;
			fl[n].rcv = acc;
			atomic_store(&fl[n].bytes, 0);
		}
	for (int i = 0; i < n; i++) {
		pthread_create(&th[2 * i], NULL, send_loop, &fl[i]);
		pthread_create(&th[2 * i + 1], NULL, recv_loop, &fl[i]);
	}
	struct timespec w = {(time_t)warm, (long)((warm - (double)(time_t)warm) * 1e9)};
	nanosleep(&w, NULL);
	unsigned long long b0 = 0, b1 = 0;
	for (int i = 0; i < n; i++)
		b0 += atomic_load(&fl[i].bytes);
	double t0 = mono();
	struct timespec m = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
	nanosleep(&m, NULL);
	for (int i = 0; i < n; i++)
		b1 += atomic_load(&fl[i].bytes);
	double el = mono() - t0;
	atomic_store(&stop, 1);
	for (int i = 0; i < 2 * n; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < n; i++) {
		close(fl[i].snd);
		close(fl[i].rcv);
	}
	return (double)(b1 - b0) * 8 / el;
}

static void shifted(struct fabric *f, int shift, struct circuit_cfg *c)
{
	circuits_clear(c, &f->topo);
	for (int r = 0; r < f->topo.racks; r++)
		c->out[0][r] = (int16_t)((r + shift) % f->topo.racks);
}

struct result {
	int hosts;
	double up_s, eps_bps, ocs_bps, dark50, dark_max, host_dark50_max, apply50, down_s;
};

static void one_layout(const struct topo *t, const struct hosts *hs, const char *netctl, struct result *res)
{
	char err[FABRIC_ERR_LEN];
	fabric_down(PFX, NULL);
	sleep(1);   /* the kernel frees the last layout's namespaces */
	double t0 = mono();
	int rc = hs ? fabric_up_hosts(t, hs, PFX, netctl, NULL, err) : fabric_up(t, PFX, NULL, err);
	if (rc)
		die("up", err);
	res->up_s = mono() - t0;
	res->hosts = hs ? hs->n : 1;
	struct fabric *f = fabric_open(PFX, err);
	if (!f)
		die("open", err);
	res->eps_bps = aggregate(f, 0, 1.0, 3.0);

	struct ocs_ctl c;
	struct ocs_params p;
	ocs_params_default(&p);
	if (ocs_ctl_init(&c, f, &p, NULL, NULL, err))
		die("ocs", err);
	struct circuit_cfg next;
	shifted(f, 1, &next);
	if (ocs_reconfigure(&c, &next, NULL, err))
		die("circuits", err);
	res->ocs_bps = aggregate(f, CIRCUIT_TOS, 1.0, 3.0);

	double dark[20], apply[20], hdark[HOSTS_MAX][20];
	for (int i = 0; i < 20; i++) {
		struct ocs_event ev;
		shifted(f, 1 + (i + 1) % 2, &next);
		if (ocs_reconfigure(&c, &next, &ev, err))
			die("reconfigure", err);
		dark[i] = ev.dark_s * 1e3;
		apply[i] = ev.apply_ms;
		for (int k = 0; k < ev.hosts; k++)
			hdark[k][i] = ev.host_dark_s[k] * 1e3;
	}
	res->dark50 = pct(dark, 20, 0.5);
	res->dark_max = pct(dark, 20, 1.0);
	res->apply50 = pct(apply, 20, 0.5);
	res->host_dark50_max = 0;
	for (int k = 0; k < res->hosts; k++) {
		double h = pct(hdark[k], 20, 0.5);
		if (h > res->host_dark50_max)
			res->host_dark50_max = h;
	}
	ocs_ctl_free(&c);
	fabric_close(f);
	t0 = mono();
	if (hs)
		fabric_down_hosts(hs, PFX, netctl, NULL);
	else
		fabric_down(PFX, NULL);
	res->down_s = mono() - t0;
}

int main(int argc, char **argv)
{
	if (geteuid() != 0) {
		fprintf(stderr, "multihost: needs root (it builds namespaces)\n");
		return 2;
	}
	if (argc < 2 || argc > 5) {
		fprintf(stderr, "usage: multihost NETCTL [TOPOLOGY [RATE_SCALE [ROUNDS]]]\n");
		return 2;
	}
	const char *path = argc > 2 ? argv[2] : "topologies/geni-10rack.conf";
	double scale = argc > 3 ? atof(argv[3]) : 0.1;
	int rounds = argc > 4 ? atoi(argv[4]) : 3;
	if (!(scale > 0) || rounds < 1 || rounds > 20) {
		fprintf(stderr, "multihost: RATE_SCALE must be > 0 and ROUNDS 1..20\n");
		return 2;
	}
	struct topo t;
	char err[TOPO_ERR_LEN], herr[HOSTS_ERR_LEN];
	if (topo_load(&t, path, scale, err)) {
		fprintf(stderr, "multihost: %s\n", err);
		return 2;
	}
	if (!t.ocs) {
		fprintf(stderr, "multihost: %s has no OCS\n", path);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	static const char *layouts[] = {
		NULL,
		"a emulated lan0 10.79.0.1 auto mtu=1550\nb emulated lan0 10.79.0.2 auto mtu=1550\n",
		"a emulated lan0 10.79.0.1 auto mtu=1550\nb emulated lan0 10.79.0.2 auto mtu=1550\n"
		"c emulated lan0 10.79.0.3 auto mtu=1550\n",
	};
	static struct result runs[3][20];
	struct result res[3];
	double load[2][3];
	printf("%s at rate scale %g: %d racks, %d servers; flows: every server to the next rack's; %d round%s\n",
	       t.name, scale, t.racks, topo_servers(&t), rounds, rounds == 1 ? "" : "s");
	getloadavg(load[0], 3);
	for (int k = 0; k < rounds; k++)
		for (int i = 0; i < 3; i++) {
			struct hosts hs;
			if (layouts[i] && hosts_load_string(&hs, layouts[i], "bench", herr)) {
				fprintf(stderr, "multihost: %s\n", herr);
				return 1;
			}
			one_layout(&t, layouts[i] ? &hs : NULL, argv[1], &runs[i][k]);
		}
	getloadavg(load[1], 3);
	/* The median of each figure over the rounds. */
	for (int i = 0; i < 3; i++) {
		double v[20];
		res[i] = runs[i][0];
#define MEDIAN(field)                                   \
	do {                                            \
		for (int k = 0; k < rounds; k++)        \
			v[k] = runs[i][k].field;        \
		res[i].field = pct(v, rounds, 0.5);     \
	} while (0)
		MEDIAN(up_s);
		MEDIAN(eps_bps);
		MEDIAN(ocs_bps);
		MEDIAN(dark50);
		MEDIAN(dark_max);
		MEDIAN(host_dark50_max);
		MEDIAN(apply50);
		MEDIAN(down_s);
	}
	printf("machine load average (1 min) %.1f before, %.1f after\n", load[0][0], load[1][0]);
	printf("%-28s %12s %12s %12s\n", "", "one host", "2 hosts", "3 hosts");
#define ROW(label, fmt, field)                                                                  \
	printf("%-28s " fmt " " fmt " " fmt "\n", label, res[0].field, res[1].field, res[2].field)
	ROW("up (s)", "%12.2f", up_s);
	ROW("EPS aggregate (Mbit/s)", "%12.1f", eps_bps / 1e6);
	ROW("OCS aggregate (Mbit/s)", "%12.1f", ocs_bps / 1e6);
	ROW("dark gap p50 (ms)", "%12.2f", dark50);
	ROW("dark gap max (ms)", "%12.2f", dark_max);
	ROW("worst host's dark p50 (ms)", "%12.2f", host_dark50_max);
	ROW("control plane p50 (ms)", "%12.2f", apply50);
	ROW("down (s)", "%12.2f", down_s);
	return 0;
}
