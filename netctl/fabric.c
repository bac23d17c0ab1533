/* fabric.c — see fabric.h.  Building happens in two passes: first every
 * namespace is created and its sysctls set (before any interface exists, so
 * the namespace defaults apply to all of them), then each namespace that
 * owns links is configured in one netlink batch on a socket opened inside it. */
#include "netctl/fabric.h"
#include "netctl/leak.h"
#include "netctl/ns.h"
#include "netctl/rtreq.h"
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
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

int fabric_errf(char err[FABRIC_ERR_LEN], const char *fmt, ...)
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
			return fabric_errf(err, "sysctl %s: %s", base[i][0], strerror(errno));
	/* A kernel without IPv6 has nothing to disable. */
	if ((sysctl_set("net/ipv6/conf/all/disable_ipv6", "1") ||
	     sysctl_set("net/ipv6/conf/default/disable_ipv6", "1")) && errno != ENOENT)
		return fabric_errf(err, "sysctl disable_ipv6: %s", strerror(errno));
	if (sysctl_set("net/ipv4/ip_forward", kind == HOST_TOR || kind == HOST_EPS ? "1" : "0"))
		return fabric_errf(err, "sysctl ip_forward: %s", strerror(errno));
	if (kind == HOST_SERVER) {
		char avail[256] = "", *tok, *save;
		int have = 0;
		sysctl_get("net/ipv4/tcp_available_congestion_control", avail, sizeof avail);
		for (tok = strtok_r(avail, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			have |= !strcmp(tok, t->tcp_cc);
		if (!have) {
			sysctl_get("net/ipv4/tcp_available_congestion_control", avail, sizeof avail);
			return fabric_errf(err, "TCP congestion control '%s' is not available in this kernel (available: %s)",
				    t->tcp_cc, avail);
		}
		/* A namespace may only default to what the host lists in
		 * tcp_allowed_congestion_control, which is not ours to change;
		 * then sockets must ask for it (TCP_CONGESTION, as root). */
		if (sysctl_set("net/ipv4/tcp_congestion_control", t->tcp_cc))
			*cc_restricted = 1;
		/* Each run starts from a clean slate, not cached path metrics. */
		if (sysctl_set("net/ipv4/tcp_no_metrics_save", "1"))
			return fabric_errf(err, "sysctl tcp_no_metrics_save: %s", strerror(errno));
	}
	return 0;
}

struct builder {
	const struct topo *t;
	const char *prefix;
	int *fd;         /* per namespace index */
	int root_fd;
	char *err;
	const struct fabric_part *part;   /* NULL: the whole fabric on this host */
	int mtu;         /* every fabric interface's; 0 = the kernel's default */
	int underlay;    /* ifindex of the underlay in the host's namespace */
};

/* What this host builds: everything on one host; over several, its racks,
 * the EPS core if it holds it, and its own crossbar slice. */
static bool rack_here(const struct builder *b, int rack)
{
	return !b->part || b->part->l->host_of[rack] == b->part->self;
}

static bool eps_here(const struct builder *b)
{
	return !b->part || b->part->l->eps_host == b->part->self;
}

static bool ns_here(const struct builder *b, const struct host_id *h)
{
	switch (h->kind) {
	case HOST_SERVER:
	case HOST_TOR: return rack_here(b, h->rack);
	case HOST_EPS: return eps_here(b);
	case HOST_OCS: return true;
	}
	return false;
}

static void set_mtu(const struct builder *b, struct nlbatch *nb, int ifindex)
{
	if (b->mtu)
		rq_link_mtu(nb, ifindex, b->mtu);
}

uint32_t fabric_vni(const char *prefix, int index)
{
	uint32_t h = 2166136261u;   /* FNV-1a */
	for (const char *p = prefix; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	return ((h % 4000) + 1) << 12 | (uint32_t)index;
}

static int vni_eps(int rack) { return rack; }
static int vni_ocs(int rack, int port) { return 256 + 256 * port + rack; }

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
		return fabric_errf(b->err, "%s: setns: %s", host, strerror(errno));
	int rc = nlbatch_init(&nb);
	ns_enter(b->root_fd);
	if (rc)
		return fabric_errf(b->err, "%s: netlink socket: %s", host, strerror(errno));
	rq_link_up(&nb, IFX_LO);
	rc = fill(b, &nb, rack, server);
	if (!rc && nlbatch_commit(&nb))
		rc = fabric_errf(b->err, "%s: %s", host, nb.err);
	else if (rc)
		fabric_errf(b->err, "%s: cannot encode a traffic-control request", host);
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
		set_mtu(b, nb, a.ifindex);
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
	if (eps_here(b)) {
		rq_veth(nb, &up, &core_end, fd_of(b, HOST_EPS, 0, 0), t->uplink.gso_max);
		set_mtu(b, nb, IFX_TOR_UP);
	}   /* else `up` is a tunnel to the core's host, made by make_tunnels */
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
		set_mtu(b, nb, o.ifindex);
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
	set_mtu(b, nb, IFX_SERVER_ETH0);
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
		if (rack_here(b, r))
			set_mtu(b, nb, plan_ifx_eps(r));
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
			/* A remote rack's port is a tunnel the crossbar sends into;
			 * what arrives for a local port from another host goes out
			 * of that port, always. */
			if (!rack_here(b, r))
				continue;
			rq_link_up(nb, plan_ifx_ocs(r, p));
			set_mtu(b, nb, plan_ifx_ocs(r, p));
			if (rq_shape(nb, plan_ifx_ocs(r, p), &t->optical))
				return -1;
			rq_ingress(nb, plan_ifx_ocs(r, p));
			if (b->part && b->part->l->nhosts > 1) {
				rq_ingress(nb, plan_ifx_ocs_in(r, p));
				if (rq_redirect(nb, plan_ifx_ocs_in(r, p), plan_ifx_ocs(r, p)))
					return -1;
			}
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

/* The host's underlay, checked before anything is made: it exists, holds
 * the address the hosts file gives, and carries the MTU the file says. */
static int check_underlay(struct builder *b)
{
	const struct fabric_host *h = &b->part->hs->h[b->part->self];
	b->underlay = (int)if_nametoindex(h->ifname);
	if (!b->underlay)
		return fabric_errf(b->err, "host %s: no underlay interface '%s' (%s, line %d)", h->name, h->ifname,
			    b->part->hs->source, h->line);
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", h->ifname);
	int rc = fd < 0 ? -1 : ioctl(fd, SIOCGIFMTU, &ifr);
	if (fd >= 0)
		close(fd);
	if (rc)
		return fabric_errf(b->err, "host %s: MTU of %s: %s", h->name, h->ifname, strerror(errno));
	if (ifr.ifr_mtu < h->mtu)
		return fabric_errf(b->err, "host %s: %s has MTU %d but %s:%d says mtu=%d: the tunnels would fragment "
			    "(raise the interface's MTU or write mtu=%d)", h->name, h->ifname, ifr.ifr_mtu,
			    b->part->hs->source, h->line, h->mtu, ifr.ifr_mtu);
	struct ifaddrs *ifa = NULL;
	bool found = false;
	if (getifaddrs(&ifa))
		return fabric_errf(b->err, "host %s: addresses: %s", h->name, strerror(errno));
	for (struct ifaddrs *a = ifa; a; a = a->ifa_next)
		found |= a->ifa_addr && a->ifa_addr->sa_family == AF_INET && !strcmp(a->ifa_name, h->ifname) &&
			 ((struct sockaddr_in *)a->ifa_addr)->sin_addr.s_addr == h->addr.s_addr;
	freeifaddrs(ifa);
	if (!found)
		return fabric_errf(b->err, "host %s: %s is not an address of %s (%s, line %d)", h->name, inet_ntoa(h->addr),
			    h->ifname, b->part->hs->source, h->line);
	return 0;
}

/* Every VXLAN end this host holds, made from its own namespace (the
 * tunnels' UDP socket and underlay are there) inside the fabric's. */
static int make_tunnels(struct builder *b)
{
	const struct topo *t = b->t;
	const struct layout *l = b->part->l;
	const struct hosts *hs = b->part->hs;
	struct in_addr self = hs->h[b->part->self].addr;
	struct nlbatch nb;
	char name[16];
	if (nlbatch_init(&nb))
		return fabric_errf(b->err, "host %s: netlink socket: %s", hs->h[b->part->self].name, strerror(errno));
	int rc = 0;
	for (int r = 0; r < t->racks && !rc; r++) {
		struct vxlan_end v = {.local = self, .underlay = b->underlay, .mtu = b->mtu, .gso_max = t->uplink.gso_max};
		if (rack_here(b, r) && !eps_here(b)) {          /* ToR's uplink to the core's host */
			v.ifindex = IFX_TOR_UP;
			v.name = "up";
			plan_mac(MAC_TOR_UP, r, 0, 0, v.mac);
			v.remote = hs->h[l->eps_host].addr;
			v.ns_fd = fd_of(b, HOST_TOR, r, 0);
		} else if (!rack_here(b, r) && eps_here(b)) {   /* the core's end of it */
			snprintf(name, sizeof name, "r%d", r);
			v.ifindex = plan_ifx_eps(r);
			v.name = name;
			plan_mac(MAC_EPS, r, 0, 0, v.mac);
			v.remote = hs->h[l->host_of[r]].addr;
			v.ns_fd = fd_of(b, HOST_EPS, 0, 0);
		} else {
			continue;
		}
		v.vni = fabric_vni(b->prefix, vni_eps(r));
		rc = rq_vxlan(&nb, &v);
	}
	for (int r = 0; t->ocs && r < t->racks && !rc; r++)
		for (int p = 0; p < t->ocs_ports && !rc; p++) {
			struct vxlan_end v = {.local = self, .underlay = b->underlay, .mtu = b->mtu,
					      .gso_max = t->optical.gso_max, .ns_fd = fd_of(b, HOST_OCS, 0, 0),
					      .vni = fabric_vni(b->prefix, vni_ocs(r, p)), .name = name};
			if (rack_here(b, r)) {   /* receives for local port p of rack r */
				snprintf(name, sizeof name, "i%dp%d", r, p);
				v.ifindex = plan_ifx_ocs_in(r, p);
				plan_mac(MAC_OCS, r, 1, p, v.mac);
			} else {                 /* sends to remote port p of rack r */
				snprintf(name, sizeof name, "r%dp%d", r, p);
				v.ifindex = plan_ifx_ocs(r, p);
				plan_mac(MAC_OCS, r, 0, p, v.mac);
				v.remote = hs->h[l->host_of[r]].addr;
			}
			rc = rq_vxlan(&nb, &v);
		}
	if (rc)
		fabric_errf(b->err, "host %s: cannot encode a VXLAN request", hs->h[b->part->self].name);
	else if (nlbatch_commit(&nb))
		rc = fabric_errf(b->err, "host %s: %s", hs->h[b->part->self].name, nb.err);
	nlbatch_free(&nb);
	return rc;
}

static int build(struct builder *b, struct fabric_timing *tm)
{
	const struct topo *t = b->t;
	int n = plan_ns_count(t);
	double t0 = now_s();
	tm->cc_restricted = 0;

	if (b->part && check_underlay(b))
		return -1;
	/* Pass 1: namespaces, routers and switches before servers. */
	for (int i = n - 1; i >= 0; i--) {
		struct host_id h;
		char name[NS_NAME_MAX];
		plan_ns_host(t, i, &h);
		if (!ns_here(b, &h))
			continue;
		if (h.kind == HOST_OCS && b->part)
			h.rack = b->part->self;   /* this host's slice */
		plan_ns_name(b->prefix, &h, name, sizeof name);
		b->fd[i] = ns_create(name);
		if (b->fd[i] < 0)
			return fabric_errf(b->err, "create namespace %s: %s", name, strerror(errno));
		int rc = setup_sysctls(t, h.kind, &tm->cc_restricted, b->err);
		ns_enter(b->root_fd);
		if (rc)
			return -1;
	}
	if (b->part && make_tunnels(b))
		return -1;
	double t1 = now_s();

	/* Pass 2: each ToR makes its links to servers, the EPS and the OCS. */
	for (int r = 0; r < t->racks; r++) {
		if (!rack_here(b, r))
			continue;
		if (configure(b, HOST_TOR, r, 0, fill_tor))
			return -1;
		if (t->ocs) {
			char lerr[256];
			ns_enter(fd_of(b, HOST_TOR, r, 0));
			int rc = leak_install(lerr, sizeof lerr);
			ns_enter(b->root_fd);
			if (rc)
				return fabric_errf(b->err, "tor%d: %s", r, lerr);
		}
	}
	double t2 = now_s();
	for (int r = 0; r < t->racks; r++)
		for (int s = 0; rack_here(b, r) && s < topo_rack_size(t, r); s++)
			if (configure(b, HOST_SERVER, r, s, fill_server))
				return -1;
	if ((eps_here(b) && configure(b, HOST_EPS, 0, 0, fill_eps)) ||
	    (t->ocs && configure(b, HOST_OCS, 0, 0, fill_ocs)))
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
		return fabric_errf(err, "bad prefix '%s': use 1-%d letters, digits or '_'", prefix, PREFIX_MAX);
	if (t->unshapeable[0])
		return fabric_errf(err, "%s", t->unshapeable);
	if (mkdir(FABRIC_STATE_DIR, 0700) && errno != EEXIST)
		return fabric_errf(err, "%s: %s", FABRIC_STATE_DIR, strerror(errno));
	state_path(prefix, NULL, dir, sizeof dir);
	/* The state directory doubles as the claim on the prefix: mkdir is
	 * atomic.  Namespaces without it (state removed by hand) count too:
	 * a failed up must never roll back somebody else's fabric. */
	int existing = 0;
	ns_list(prefix, count_one, &existing);
	if (existing || mkdir(dir, 0700)) {
		if (existing || errno == EEXIST)
			return fabric_errf(err, "a fabric with prefix '%s' is already up (remove it with: netctl down --prefix %s)",
				    prefix, prefix);
		return fabric_errf(err, "%s: %s", dir, strerror(errno));
	}
	raise_fd_limit();
	struct builder b = {t, prefix, malloc(n * sizeof(int)), ns_self(), err, NULL, 0, 0};
	if (!b.fd || b.root_fd < 0) {
		free(b.fd);
		rmdir(dir);
		return fabric_errf(err, "out of memory or no /proc");
	}
	for (int i = 0; i < n; i++)
		b.fd[i] = -1;
	rc = build(&b, tm);
	if (!rc && (write_state(t, prefix, "topology.conf", NULL) || write_state(t, prefix, "circuits", "none\n")))
		rc = fabric_errf(err, "%s: cannot write state: %s", dir, strerror(errno));
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

/* Undo a part that failed: only the namespaces it made (the other hosts'
 * parts, on one machine, are not ours). */
static void part_remove(struct builder *b)
{
	for (int i = 0; i < plan_ns_count(b->t); i++) {
		struct host_id h;
		char name[NS_NAME_MAX];
		if (b->fd[i] < 0)
			continue;
		plan_ns_host(b->t, i, &h);
		if (h.kind == HOST_OCS)
			h.rack = b->part->self;
		plan_ns_name(b->prefix, &h, name, sizeof name);
		ns_delete(name);
	}
}

int fabric_up_part(const struct topo *t, const char *prefix, const struct fabric_part *part,
		   struct fabric_timing *tm, char err[FABRIC_ERR_LEN])
{
	char dir[256], claim[300];
	double t0 = now_s();
	int n = plan_ns_count(t), rc;
	struct fabric_timing scratch;
	const struct fabric_host *self = &part->hs->h[part->self];
	if (!tm)
		tm = &scratch;
	if (plan_prefix_valid(prefix))
		return fabric_errf(err, "bad prefix '%s': use 1-%d letters, digits or '_'", prefix, PREFIX_MAX);
	if (t->unshapeable[0])
		return fabric_errf(err, "%s", t->unshapeable);
	state_path(prefix, NULL, dir, sizeof dir);
	if ((mkdir(FABRIC_STATE_DIR, 0700) && errno != EEXIST) || (mkdir(dir, 0700) && errno != EEXIST))
		return fabric_errf(err, "%s: %s", dir, strerror(errno));
	snprintf(claim, sizeof claim, "%s/host-%s", dir, self->name);
	if (mkdir(claim, 0700))
		return fabric_errf(err, errno == EEXIST ? "host %s already carries a part of fabric '%s' (%s)" : "host %s: %s: %s",
			    self->name, errno == EEXIST ? prefix : claim, errno == EEXIST ? claim : strerror(errno));
	raise_fd_limit();
	struct builder b = {t, prefix, malloc(n * sizeof(int)), ns_self(), err, part, part->l->mtu, 0};
	if (b.mtu == FABRIC_MTU_MAX)
		b.mtu = 0;   /* the kernel's default already */
	if (!b.fd || b.root_fd < 0) {
		free(b.fd);
		rmdir(claim);
		return fabric_errf(err, "out of memory or no /proc");
	}
	for (int i = 0; i < n; i++)
		b.fd[i] = -1;
	rc = build(&b, tm);
	ns_enter(b.root_fd);
	if (rc) {
		part_remove(&b);
		rmdir(claim);
	}
	for (int i = 0; i < n; i++)
		if (b.fd[i] >= 0)
			close(b.fd[i]);
	close(b.root_fd);
	free(b.fd);
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
void fabric_state_remove(const char *prefix)
{
	char dir[256], path[600];
	state_path(prefix, NULL, dir, sizeof dir);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (unlink(path) && errno == EISDIR)
			rmdir(path);   /* a host's claim (host-NAME), empty */
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
	fabric_state_remove(prefix);
	return count;
}
