/* ocs.c — circuits on a running fabric: the ToRs' circuit routes and the
 * crossbar's redirects.  See the four steps in fabric.h. */
#include "netctl/fabric.h"
#include "netctl/hostctl.h"
#include "netctl/rtreq.h"
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct nlbatch *ns_sock(struct fabric *f, enum host_kind kind, int rack, char err[FABRIC_ERR_LEN])
{
	struct host_id h = {kind, rack, 0};
	struct nlbatch *nb = fabric_nl(f, &h);
	if (!nb && err) {
		char name[24];
		plan_host_name(&h, name, sizeof name);
		snprintf(err, FABRIC_ERR_LEN, "%s: cannot open its namespace: %s", name, strerror(errno));
	}
	return nb;
}

/* What rack r's ToR now routes, in f->lit. */
static void record_lit(struct fabric *f, int r, const struct circuit_cfg *want, bool remove_only)
{
	for (int p = 0; p < f->topo.ocs_ports; p++)
		if (f->lit.out[p][r] != want->out[p][r])
			f->lit.out[p][r] = remove_only ? -1 : want->out[p][r];
}

/* Apply route changes on every ToR whose lit circuits differ from want
 * (only removals when remove_only), then record them in f->lit.  All ToRs'
 * requests are queued first and committed back to back.  A host reached
 * through its host-ctl does the same there. */
static int sync_routes(struct fabric *f, const struct circuit_cfg *want, bool remove_only, int host,
		       char err[FABRIC_ERR_LEN])
{
	const struct topo *t = &f->topo;
	if (host < 0)
		for (int k = 0; k < fabric_hosts(f); k++)
			if (f->chan[k] && sync_routes(f, want, remove_only, k, err))
				return -1;
	if (host >= 0 && f->chan[host]) {
		if (hostctl_call(f, host, remove_only ? "unroute" : "route", want, NULL, err) < 0)
			return -1;   /* lost: left out, as done */
		for (int r = 0; r < t->racks; r++)
			if (fabric_host_of(f, r) == host)
				record_lit(f, r, want, remove_only);
		return 0;
	}
	for (int r = 0; r < t->racks; r++) {
		struct nlbatch *nb = NULL;
		if ((host >= 0 && fabric_host_of(f, r) != host) || (host < 0 && f->chan[fabric_host_of(f, r)]))
			continue;
		for (int p = 0; p < t->ocs_ports; p++) {
			int cur = f->lit.out[p][r], next = want->out[p][r];
			if (cur == next || (remove_only && cur < 0))
				continue;
			if (!nb && !(nb = ns_sock(f, HOST_TOR, r, err)))
				return -1;
			struct in_addr gw;
			if (cur >= 0) {
				gw = plan_optical_ip(t, cur, p);
				rq_route(nb, false, CIRCUIT_TABLE, plan_rack_net(t, cur), 24, &gw, plan_ifx_tor_opt(p));
			}
			if (!remove_only && next >= 0) {
				gw = plan_optical_ip(t, next, p);
				rq_route(nb, true, CIRCUIT_TABLE, plan_rack_net(t, next), 24, &gw, plan_ifx_tor_opt(p));
			}
		}
		if (!nb)
			continue;
		if (nlbatch_commit(nb)) {
			snprintf(err, FABRIC_ERR_LEN, "tor%d: %s", r, nb->err);
			return -1;
		}
		record_lit(f, r, want, remove_only);
	}
	return 0;
}

int fabric_circuits_unroute(struct fabric *f, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN])
{
	return sync_routes(f, next, true, -1, err);
}

int fabric_circuits_route(struct fabric *f, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN])
{
	return sync_routes(f, next, false, -1, err);
}

int fabric_circuits_unroute_on(struct fabric *f, int host, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN])
{
	return sync_routes(f, next, true, host, err);
}

int fabric_circuits_route_on(struct fabric *f, int host, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN])
{
	return sync_routes(f, next, false, host, err);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool output_changes(const struct fabric *f, const struct circuit_cfg *next, int p, int r)
{
	return f->circuits.out[p][r] >= 0 && f->circuits.out[p][r] != next->out[p][r];
}

static struct nlbatch *slice_sock(struct fabric *f, int rack, char err[FABRIC_ERR_LEN])
{
	struct nlbatch *nb = fabric_slice_nl(f, rack);
	if (!nb && err) {
		struct host_id h = {HOST_OCS, fabric_host_of(f, rack), 0};
		char name[24];
		plan_host_name(&h, name, sizeof name);
		snprintf(err, FABRIC_ERR_LEN, "%s: cannot open its namespace: %s", name, strerror(errno));
	}
	return nb;
}

/* Bytes still queued on the optical path of the ports that change: the
 * ToRs' optical egress and the crossbar port egress they currently feed
 * (over several hosts, that port is in the peer rack's slice; the tunnel
 * on the way has no queue).  On host `only` (-1: all); a host reached
 * through its host-ctl answers for itself. */
static long queued(struct fabric *f, const struct circuit_cfg *next, struct fifo_stats *q, int max, int only)
{
	const struct topo *t = &f->topo;
	long total = 0;
	int nslices = fabric_hosts(f);
	for (int k = 0; k < nslices; k++) {
		struct nlbatch *ocs = NULL;
		if (only >= 0 && k != only)
			continue;
		if (f->chan[k]) {
			char reply[64], err[FABRIC_ERR_LEN], *end;
			if (hostctl_call(f, k, "queued", next, reply, err) < 0)
				return -1;   /* lost: "0" */
			long n = strtol(reply, &end, 10);
			if (*end || n < 0)
				return -1;
			total += n;
			continue;
		}
		for (int p = 0; p < t->ocs_ports; p++)
			for (int r = 0; r < t->racks; r++) {
				int to = f->circuits.out[p][r];
				if (!output_changes(f, next, p, r) || (fabric_host_of(f, to)) != k)
					continue;
				if (!ocs && (!(ocs = slice_sock(f, to, NULL)) || fabric_fifo_stats(ocs, q, max)))
					return -1;
				total += q[plan_ifx_ocs(to, p)].backlog;
			}
	}
	for (int r = 0; r < t->racks; r++) {
		bool any = false;
		int h = fabric_host_of(f, r);
		if ((only >= 0 && h != only) || f->chan[h])
			continue;
		for (int p = 0; p < t->ocs_ports; p++)
			any |= output_changes(f, next, p, r);
		if (!any)
			continue;
		struct nlbatch *tor = ns_sock(f, HOST_TOR, r, NULL);
		if (!tor || fabric_fifo_stats(tor, q, max))
			return -1;
		for (int p = 0; p < t->ocs_ports; p++)
			if (output_changes(f, next, p, r))
				total += q[plan_ifx_tor_opt(p)].backlog;
	}
	return total;
}

double fabric_circuits_drain(struct fabric *f, const struct circuit_cfg *next, double timeout_s)
{
	int max = 2 + TOPO_MAX_RACKS * TOPO_MAX_PORTS;
	struct fifo_stats *q = malloc(max * sizeof *q);
	double t0 = now_s(), waited = -1;
	if (!q)
		return -1;
	for (;;) {
		long n = queued(f, next, q, max, -1);
		double el = now_s() - t0;
		if (n == 0) {
			waited = el;
			break;
		}
		if (n < 0 || el > timeout_s)
			break;
		struct timespec ts = {0, 100 * 1000};
		nanosleep(&ts, NULL);
	}
	free(q);
	return waited;
}

long fabric_circuits_queued_on(struct fabric *f, int host, const struct circuit_cfg *next)
{
	int max = 2 + TOPO_MAX_RACKS * TOPO_MAX_PORTS;
	struct fifo_stats *q = malloc(max * sizeof *q);
	long n = q ? queued(f, next, q, max, host) : -1;
	free(q);
	return n;
}

/* One slice's part of a switch: the redirects of its racks' ports (a
 * remote peer's port is the tunnel towards that peer's host), there by its
 * host-ctl if it has one. */
static int switch_slice(struct fabric *f, int slice, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN])
{
	const struct topo *t = &f->topo;
	struct nlbatch *nb = NULL;
	int rc = 0;
	if (f->chan[slice]) {
		if (hostctl_call(f, slice, "switch", next, NULL, err) < 0)
			return -1;
		goto done;
	}
	for (int p = 0; p < t->ocs_ports && !rc; p++)
		for (int r = 0; r < t->racks && !rc; r++) {
			int cur = f->circuits.out[p][r], want = next->out[p][r];
			if (cur == want || fabric_host_of(f, r) != slice)
				continue;
			if (!nb && !(nb = slice_sock(f, r, err)))
				return -1;
			rc = want >= 0 ? rq_redirect(nb, plan_ifx_ocs(r, p), plan_ifx_ocs(want, p))
				       : rq_redirect_del(nb, plan_ifx_ocs(r, p));
		}
	struct host_id h = {HOST_OCS, slice, 0};
	char name[24];
	plan_host_name(&h, name, sizeof name);
	if (rc) {
		nlbatch_discard(nb);
		snprintf(err, FABRIC_ERR_LEN, "%s: cannot encode a crossbar filter", name);
		return -1;
	}
	if (nb && nlbatch_commit(nb)) {
		snprintf(err, FABRIC_ERR_LEN, "%s: %s", name, nb->err);
		return -1;
	}
done:
	for (int p = 0; p < t->ocs_ports; p++)
		for (int r = 0; r < t->racks; r++)
			if (fabric_host_of(f, r) == slice)
				f->circuits.out[p][r] = next->out[p][r];
	return 0;
}

static void save_circuits(struct fabric *f);

int fabric_crossbar_switch_on(struct fabric *f, int host, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN])
{
	if (switch_slice(f, host, next, err))
		return -1;
	if (!circuits_changed(&f->circuits, next))
		save_circuits(f);
	return 0;
}

int fabric_crossbar_switch(struct fabric *f, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN])
{
	if (!circuits_changed(&f->circuits, next))
		return 0;
	for (int k = 0; k < fabric_hosts(f); k++)
		if (switch_slice(f, k, next, err))
			return -1;
	save_circuits(f);
	return 0;
}

static void save_circuits(struct fabric *f)
{
	char spec[8192];
	if (f->part >= 0)
		return;   /* a host's handle: the controller's is the record */
	/* Record it for other processes (netctl circuits show, a restarted
	 * controller); rename makes the file whole or absent. */
	char path[256], tmp[272];
	circuits_format(&f->circuits, spec, sizeof spec);
	snprintf(path, sizeof path, "%s/%s/circuits", FABRIC_STATE_DIR, f->prefix);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *fp = fopen(tmp, "w");
	if (fp) {
		int bad = fprintf(fp, "%s\n", spec) < 0;
		bad |= fclose(fp) != 0;
		if (bad || rename(tmp, path))
			unlink(tmp);
	}
}

int fabric_circuits_apply(struct fabric *f, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN])
{
	char verr[256];
	if (circuits_validate(next, &f->topo, verr)) {
		snprintf(err, FABRIC_ERR_LEN, "%s", verr);
		return -1;
	}
	if (fabric_circuits_unroute(f, next, err))
		return -1;
	fabric_circuits_drain(f, next, 0.05);
	if (fabric_crossbar_switch(f, next, err))
		return -1;
	return fabric_circuits_route(f, next, err);
}

struct lit_walk {
	const struct topo *t;
	struct circuit_cfg *lit;
	int rack;
};

static int route_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct lit_walk *w = arg;
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	uint32_t table = rtm->rtm_table, oif = 0;
	struct in_addr dst = {0};
	mnl_attr_for_each(a, nlh, sizeof *rtm) {
		switch (mnl_attr_get_type(a)) {
		case RTA_TABLE: table = mnl_attr_get_u32(a); break;
		case RTA_OIF: oif = mnl_attr_get_u32(a); break;
		case RTA_DST: memcpy(&dst, mnl_attr_get_payload(a), 4); break;
		}
	}
	if (table != CIRCUIT_TABLE || rtm->rtm_dst_len != 24)
		return 0;
	int p = (int)oif - IFX_TOR_OPT0;
	uint32_t off = ntohl(dst.s_addr) - ntohl(w->t->server_net.s_addr);
	int d = (int)(off >> 8);
	if (p >= 0 && p < w->t->ocs_ports && (off & 0xff) == 0 && d < w->t->racks)
		w->lit->out[p][w->rack] = (int16_t)d;
	return 0;
}

int fabric_circuits_lit(struct fabric *f, struct circuit_cfg *lit)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int rc = 0;
	circuits_clear(lit, &f->topo);
	for (int r = 0; r < f->topo.racks; r++) {
		struct lit_walk w = {&f->topo, lit, r};
		if (f->part >= 0 && fabric_host_of(f, r) != f->part)
			continue;
		/* A rack of a real host is not here: what it routes is unknown (none, on a fresh fabric). */
		struct nlbatch *nb = ns_sock(f, HOST_TOR, r, NULL);
		if (!nb) {
			rc = -1;
			continue;
		}
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		nlh->nlmsg_type = RTM_GETROUTE;
		struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof *rtm);
		rtm->rtm_family = AF_INET;
		if (nlbatch_dump(nb, nlh, route_cb, &w))
			rc = -1;
	}
	return rc;
}
