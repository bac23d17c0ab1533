/* fabric.c — see fabric.h.  Building happens in two passes: first every
 * namespace is created and its sysctls set (before any interface exists, so
 * the namespace defaults apply to all of them), then each namespace that
 * owns links is configured in one netlink batch on a socket opened inside it. */
#include "netctl/fabric.h"
#include "netctl/leak.h"
#include "netctl/ns.h"
#include "netctl/rtreq.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int errf(char err[FABRIC_ERR_LEN], const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, FABRIC_ERR_LEN, fmt, ap);
	va_end(ap);
	return -1;
}

static void state_path(const char *prefix, const char *file, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s%s%s", FABRIC_STATE_DIR, prefix, file ? "/" : "", file ? file : "");
}

/* Every namespace gets the same baseline: no IPv6 (its chatter would cross
 * the crossbar and pollute counters), no reverse-path filter (circuit
 * traffic arrives on an interface its source is not routed through), no
 * redirects.  Routers forward; servers pin their congestion control. */
static int setup_sysctls(const struct topo *t, enum host_kind kind, int *cc_restricted,
			 char err[FABRIC_ERR_LEN])
{
	static const char *const base[][2] = {
		{"net/ipv4/conf/all/rp_filter", "0"}, {"net/ipv4/conf/default/rp_filter", "0"},
		{"net/ipv4/conf/all/accept_redirects", "0"}, {"net/ipv4/conf/default/accept_redirects", "0"},
		{"net/ipv4/conf/all/send_redirects", "0"}, {"net/ipv4/conf/default/send_redirects", "0"},
	};
	for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
		if (sysctl_set(base[i][0], base[i][1]))
			return errf(err, "sysctl %s: %s", base[i][0], strerror(errno));
	/* A kernel without IPv6 has nothing to disable. */
	if ((sysctl_set("net/ipv6/conf/all/disable_ipv6", "1") ||
	     sysctl_set("net/ipv6/conf/default/disable_ipv6", "1")) && errno != ENOENT)
		return errf(err, "sysctl disable_ipv6: %s", strerror(errno));
	if (sysctl_set("net/ipv4/ip_forward", kind == HOST_TOR || kind == HOST_EPS ? "1" : "0"))
		return errf(err, "sysctl ip_forward: %s", strerror(errno));
	if (kind == HOST_SERVER) {
		char avail[256] = "", *tok, *save;
		int have = 0;
		sysctl_get("net/ipv4/tcp_available_congestion_control", avail, sizeof avail);
		for (tok = strtok_r(avail, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			have |= !strcmp(tok, t->tcp_cc);
		if (!have) {
			sysctl_get("net/ipv4/tcp_available_congestion_control", avail, sizeof avail);
			return errf(err, "TCP congestion control '%s' is not available in this kernel (available: %s)",
				    t->tcp_cc, avail);
		}
		/* A namespace may only default to what the host lists in
		 * tcp_allowed_congestion_control, which is not ours to change;
		 * then sockets must ask for it (TCP_CONGESTION, as root). */
		if (sysctl_set("net/ipv4/tcp_congestion_control", t->tcp_cc))
			*cc_restricted = 1;
		/* Each run starts from a clean slate, not cached path metrics. */
		if (sysctl_set("net/ipv4/tcp_no_metrics_save", "1"))
			return errf(err, "sysctl tcp_no_metrics_save: %s", strerror(errno));
	}
	return 0;
}

struct builder {
	const struct topo *t;
	const char *prefix;
	int *fd;         /* per namespace index */
	int root_fd;
	char *err;
};

static int fd_of(struct builder *b, enum host_kind kind, int rack, int server)
{
	struct host_id h = {kind, rack, server};
	return b->fd[plan_ns_index(b->t, &h)];
}

/* Open a batch inside namespace fd, queue with fill(), commit. */
static int configure(struct builder *b, enum host_kind kind, int rack, int server,
		     int (*fill)(struct builder *, struct nlbatch *, int, int))
{
	struct nlbatch nb;
	struct host_id h = {kind, rack, server};
	char host[24];
	plan_host_name(&h, host, sizeof host);
	if (ns_enter(fd_of(b, kind, rack, server)))
		return errf(b->err, "%s: setns: %s", host, strerror(errno));
	int rc = nlbatch_init(&nb);
	ns_enter(b->root_fd);
	if (rc)
		return errf(b->err, "%s: netlink socket: %s", host, strerror(errno));
	rq_link_up(&nb, IFX_LO);
	rc = fill(b, &nb, rack, server);
	if (!rc && nlbatch_commit(&nb))
		rc = errf(b->err, "%s: %s", host, nb.err);
	else if (rc)
		errf(b->err, "%s: cannot encode a traffic-control request", host);
	nlbatch_free(&nb);
	return rc;
}

static int fill_tor(struct builder *b, struct nlbatch *nb, int r, int unused)
{
	const struct topo *t = b->t;
	struct in_addr gw = plan_gateway_ip(t, r), core = plan_core_ip(t);
	uint8_t mac[6];
	(void)unused;

	for (int s = 0; s < topo_rack_size(t, r); s++) {
		const struct topo_class *k = topo_server_class(t, r, s);
		char down[16];
		snprintf(down, sizeof down, "h%d", s);
		struct veth_end a = {plan_ifx_tor_down(s), down, {0}}, z = {IFX_SERVER_ETH0, "eth0", {0}};
		plan_mac(MAC_TOR_DOWN, r, s, 0, a.mac);
		plan_mac(MAC_SERVER, r, s, 0, z.mac);
		rq_veth(nb, &a, &z, fd_of(b, HOST_SERVER, r, s), k->rx.gso_max);
		rq_addr(nb, a.ifindex, gw);
		rq_route(nb, true, RT_TABLE_MAIN, plan_server_ip(t, r, s), 32, NULL, a.ifindex);
		rq_neigh(nb, a.ifindex, plan_server_ip(t, r, s), z.mac);
		if (rq_shape(nb, a.ifindex, &k->rx))   /* what the server receives at: its class's */
			return -1;
	}

	char epsname[16];
	snprintf(epsname, sizeof epsname, "r%d", r);
	struct veth_end up = {IFX_TOR_UP, "up", {0}}, core_end = {plan_ifx_eps(r), epsname, {0}};
	plan_mac(MAC_TOR_UP, r, 0, 0, up.mac);
	plan_mac(MAC_EPS, r, 0, 0, core_end.mac);
	rq_veth(nb, &up, &core_end, fd_of(b, HOST_EPS, 0, 0), t->uplink.gso_max);
	rq_addr(nb, IFX_TOR_UP, plan_uplink_ip(t, r));
	rq_neigh(nb, IFX_TOR_UP, core, core_end.mac);
	/* Every other rack through the EPS; this rack's /32s are more specific. */
	rq_route(nb, true, RT_TABLE_MAIN, t->server_net, 16, &core, IFX_TOR_UP);
	if (rq_shape(nb, IFX_TOR_UP, &t->uplink))
		return -1;

	for (int p = 0; t->ocs && p < t->ocs_ports; p++) {
		char oname[8], pname[16];
		snprintf(oname, sizeof oname, "o%d", p);
		snprintf(pname, sizeof pname, "r%dp%d", r, p);
		struct veth_end o = {plan_ifx_tor_opt(p), oname, {0}}, port = {plan_ifx_ocs(r, p), pname, {0}};
		plan_mac(MAC_TOR_OPT, r, 0, p, o.mac);
		plan_mac(MAC_OCS, r, 0, p, port.mac);
		rq_veth(nb, &o, &port, fd_of(b, HOST_OCS, 0, 0), t->optical.gso_max);
		rq_addr(nb, o.ifindex, plan_optical_ip(t, r, p));
		/* Static next hops for every rack a circuit may reach. */
		for (int z = 0; z < t->racks; z++) {
			if (z == r)
				continue;
			plan_mac(MAC_TOR_OPT, z, 0, p, mac);
			rq_neigh(nb, o.ifindex, plan_optical_ip(t, z, p), mac);
		}
		if (rq_shape(nb, o.ifindex, &t->optical))
			return -1;
	}
	if (t->ocs)
		rq_tos_rule(nb, CIRCUIT_TOS, CIRCUIT_TABLE, CIRCUIT_RULE_PRIO);
	return 0;
}

static int fill_server(struct builder *b, struct nlbatch *nb, int r, int s)
{
	const struct topo *t = b->t;
	struct in_addr gw = plan_gateway_ip(t, r);
	uint8_t mac[6];
	rq_link_up(nb, IFX_SERVER_ETH0);
	rq_addr(nb, IFX_SERVER_ETH0, plan_server_ip(t, r, s));
	plan_mac(MAC_TOR_DOWN, r, s, 0, mac);
	rq_neigh(nb, IFX_SERVER_ETH0, gw, mac);
	/* Only the emulated servers are routable: no default route, so nothing
	 * can leave for the machine's real network. */
	struct nlmsghdr *route = rq_route(nb, true, RT_TABLE_MAIN, t->server_net, 16, &gw, IFX_SERVER_ETH0);
	if (t->rto_min_ms)
		rq_route_rto_min(route, t->rto_min_ms);
	return rq_shape(nb, IFX_SERVER_ETH0, &topo_server_class(t, r, s)->tx);
}

static int fill_eps(struct builder *b, struct nlbatch *nb, int unused1, int unused2)
{
	const struct topo *t = b->t;
	uint8_t mac[6];
	(void)unused1, (void)unused2;
	for (int r = 0; r < t->racks; r++) {
		struct in_addr tor = plan_uplink_ip(t, r);
		rq_link_up(nb, plan_ifx_eps(r));
		rq_addr(nb, plan_ifx_eps(r), plan_core_ip(t));
		plan_mac(MAC_TOR_UP, r, 0, 0, mac);
		rq_neigh(nb, plan_ifx_eps(r), tor, mac);
		rq_route(nb, true, RT_TABLE_MAIN, plan_rack_net(t, r), 24, &tor, plan_ifx_eps(r));
		if (rq_shape(nb, plan_ifx_eps(r), &t->uplink))
			return -1;
	}
	return 0;
}

static int fill_ocs(struct builder *b, struct nlbatch *nb, int unused1, int unused2)
{
	const struct topo *t = b->t;
	(void)unused1, (void)unused2;
	for (int r = 0; r < t->racks; r++)
		for (int p = 0; p < t->ocs_ports; p++) {
			rq_link_up(nb, plan_ifx_ocs(r, p));
			if (rq_shape(nb, plan_ifx_ocs(r, p), &t->optical))
				return -1;
			rq_ingress(nb, plan_ifx_ocs(r, p));
		}
	return 0;
}

static int write_state(const struct topo *t, const char *prefix, const char *file, const char *text)
{
	char path[256], tmp[272];
	state_path(prefix, file, path, sizeof path);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	int rc;
	if (text) {
		FILE *f = fopen(tmp, "w");
		if (!f)
			return -1;
		rc = fputs(text, f) < 0;
		rc |= fclose(f) != 0;
	} else {
		rc = topo_save(t, tmp);
	}
	/* rename() makes the state appear whole or not at all. */
	if (rc || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int build(struct builder *b, struct fabric_timing *tm)
{
	const struct topo *t = b->t;
	int n = plan_ns_count(t);
	double t0 = now_s();
	tm->cc_restricted = 0;

	/* Pass 1: namespaces, routers and switches before servers. */
	for (int i = n - 1; i >= 0; i--) {
		struct host_id h;
		char name[NS_NAME_MAX];
		plan_ns_host(t, i, &h);
		plan_ns_name(b->prefix, &h, name, sizeof name);
		b->fd[i] = ns_create(name);
		if (b->fd[i] < 0)
			return errf(b->err, "create namespace %s: %s", name, strerror(errno));
		int rc = setup_sysctls(t, h.kind, &tm->cc_restricted, b->err);
		ns_enter(b->root_fd);
		if (rc)
			return -1;
	}
	double t1 = now_s();

	/* Pass 2: each ToR makes its links to servers, the EPS and the OCS. */
	for (int r = 0; r < t->racks; r++) {
		if (configure(b, HOST_TOR, r, 0, fill_tor))
			return -1;
		if (t->ocs) {
			char lerr[256];
			ns_enter(fd_of(b, HOST_TOR, r, 0));
			int rc = leak_install(lerr, sizeof lerr);
			ns_enter(b->root_fd);
			if (rc)
				return errf(b->err, "tor%d: %s", r, lerr);
		}
	}
	double t2 = now_s();
	for (int r = 0; r < t->racks; r++)
		for (int s = 0; s < topo_rack_size(t, r); s++)
			if (configure(b, HOST_SERVER, r, s, fill_server))
				return -1;
	if (configure(b, HOST_EPS, 0, 0, fill_eps) || (t->ocs && configure(b, HOST_OCS, 0, 0, fill_ocs)))
		return -1;
	double t3 = now_s();
	tm->ns_s = t1 - t0;
	tm->links_s = t2 - t1;
	tm->config_s = t3 - t2;
	return 0;
}

static void count_one(const char *name, void *arg);

int fabric_up(const struct topo *t, const char *prefix, struct fabric_timing *tm, char err[FABRIC_ERR_LEN])
{
	char dir[256];
	double t0 = now_s();
	int n = plan_ns_count(t), rc;
	struct fabric_timing scratch;
	if (!tm)
		tm = &scratch;

	if (plan_prefix_valid(prefix))
		return errf(err, "bad prefix '%s': use 1-%d letters, digits or '_'", prefix, PREFIX_MAX);
	if (t->unshapeable[0])
		return errf(err, "%s", t->unshapeable);
	if (mkdir(FABRIC_STATE_DIR, 0700) && errno != EEXIST)
		return errf(err, "%s: %s", FABRIC_STATE_DIR, strerror(errno));
	state_path(prefix, NULL, dir, sizeof dir);
	/* The state directory doubles as the claim on the prefix: mkdir is
	 * atomic.  Namespaces without it (state removed by hand) count too:
	 * a failed up must never roll back somebody else's fabric. */
	int existing = 0;
	ns_list(prefix, count_one, &existing);
	if (existing || mkdir(dir, 0700)) {
		if (existing || errno == EEXIST)
			return errf(err, "a fabric with prefix '%s' is already up (remove it with: netctl down --prefix %s)",
				    prefix, prefix);
		return errf(err, "%s: %s", dir, strerror(errno));
	}
	raise_fd_limit();
	struct builder b = {t, prefix, malloc(n * sizeof(int)), ns_self(), err};
	if (!b.fd || b.root_fd < 0) {
		free(b.fd);
		rmdir(dir);
		return errf(err, "out of memory or no /proc");
	}
	for (int i = 0; i < n; i++)
		b.fd[i] = -1;
	rc = build(&b, tm);
	if (!rc && (write_state(t, prefix, "topology.conf", NULL) || write_state(t, prefix, "circuits", "none\n")))
		rc = errf(err, "%s: cannot write state: %s", dir, strerror(errno));
	ns_enter(b.root_fd);
	for (int i = 0; i < n; i++)
		if (b.fd[i] >= 0)
			close(b.fd[i]);
	close(b.root_fd);
	free(b.fd);
	if (rc)
		fabric_down(prefix, NULL);
	tm->total_s = now_s() - t0;
	return rc;
}

static void count_one(const char *name, void *arg)
{
	(void)name;
	++*(int *)arg;
}

static void delete_one(const char *name, void *arg)
{
	int *count = arg;
	if (!ns_delete(name))
		(*count)++;
}

/* Everything in /run/emu/PREFIX goes: the fabric's own files and whatever a
 * controller left there (its control socket after a kill -9). */
static void remove_state(const char *prefix)
{
	char dir[256], path[600];
	state_path(prefix, NULL, dir, sizeof dir);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

int fabric_down(const char *prefix, int *killed)
{
	int count = 0, k;
	if (plan_prefix_valid(prefix))
		return 0;
	/* Processes first: a namespace lives on while a process is inside it. */
	k = ns_kill_processes(prefix, 2000);
	if (killed)
		*killed = k;
	ns_list(prefix, delete_one, &count);
	remove_state(prefix);
	return count;
}
