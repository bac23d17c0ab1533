/* ocs.c — circuits on a running fabric: the ToRs' circuit routes and the
 * crossbar's redirects.  See the four steps in fabric.h. */
#include "netctl/fabric.h"
#include "netctl/rtreq.h"
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int tor_batch(struct fabric *f, int r, struct nlbatch *nb, char err[FABRIC_ERR_LEN])
{
	struct host_id tor = {HOST_TOR, r, 0};
	if (fabric_nl(f, &tor, nb)) {
		snprintf(err, FABRIC_ERR_LEN, "tor%d: cannot open its namespace: %s", r, strerror(errno));
		return -1;
	}
	return 0;
}

static void circuit_route(struct fabric *f, struct nlbatch *nb, bool add, int r, int p, int d)
{
	struct in_addr gw = plan_optical_ip(&f->topo, d, p);
	(void)r;
	rq_route(nb, add, CIRCUIT_TABLE, plan_rack_net(&f->topo, d), 24, &gw, plan_ifx_tor_opt(p));
}

/* Apply route changes on every ToR whose lit circuits differ from want
 * (only removals when remove_only), then record them in f->lit. */
static int sync_routes(struct fabric *f, const struct circuit_cfg *want, bool remove_only,
		       char err[FABRIC_ERR_LEN])
{
	const struct topo *t = &f->topo;
	for (int r = 0; r < t->racks; r++) {
		struct nlbatch nb;
		bool open = false;
		for (int p = 0; p < t->ocs_ports; p++) {
			int cur = f->lit.out[p][r], next = want->out[p][r];
			if (cur == next || (remove_only && cur < 0))
				continue;
			if (!open && tor_batch(f, r, &nb, err))
				return -1;
			open = true;
			if (cur >= 0)
				circuit_route(f, &nb, false, r, p, cur);
			if (!remove_only && next >= 0)
				circuit_route(f, &nb, true, r, p, next);
		}
		if (!open)
			continue;
		int rc = nlbatch_commit(&nb);
		if (rc)
			snprintf(err, FABRIC_ERR_LEN, "tor%d: %s", r, nb.err);
		nlbatch_free(&nb);
		if (rc)
			return -1;
		for (int p = 0; p < t->ocs_ports; p++)
			if (f->lit.out[p][r] != want->out[p][r])
				f->lit.out[p][r] = remove_only ? -1 : want->out[p][r];
	}
	return 0;
}

int fabric_circuits_unroute(struct fabric *f, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN])
{
	return sync_routes(f, next, true, err);
}

int fabric_circuits_route(struct fabric *f, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN])
{
	return sync_routes(f, next, false, err);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Bytes still queued on the optical path of the ports that change: the
 * ToRs' optical egress and the crossbar port egress they currently feed. */
static long queued(struct fabric *f, const struct circuit_cfg *next, struct nlbatch *tors, struct nlbatch *ocs)
{
	const struct topo *t = &f->topo;
	int max = 2 + TOPO_MAX_RACKS * TOPO_MAX_PORTS;
	struct fifo_stats *q = calloc(max, sizeof *q);
	long total = 0;
	if (!q)
		return -1;
	if (fabric_fifo_stats(ocs, q, max))
		total = -1;
	for (int p = 0; p < t->ocs_ports && total >= 0; p++)
		for (int r = 0; r < t->racks; r++)
			if (f->circuits.out[p][r] >= 0 && f->circuits.out[p][r] != next->out[p][r])
				total += q[plan_ifx_ocs(f->circuits.out[p][r], p)].backlog;
	for (int r = 0; r < t->racks && total >= 0; r++) {
		if (!tors[r].sock)
			continue;
		if (fabric_fifo_stats(&tors[r], q, max)) {
			total = -1;
			break;
		}
		for (int p = 0; p < t->ocs_ports; p++)
			total += q[plan_ifx_tor_opt(p)].backlog;
	}
	free(q);
	return total;
}

double fabric_circuits_drain(struct fabric *f, const struct circuit_cfg *next, double timeout_s)
{
	const struct topo *t = &f->topo;
	struct nlbatch *tors = calloc(t->racks, sizeof *tors), ocs;
	struct host_id oh = {HOST_OCS, 0, 0};
	double t0 = now_s(), waited = -1;
	int any = 0;

	if (!tors)
		return -1;
	for (int r = 0; r < t->racks; r++)
		for (int p = 0; p < t->ocs_ports; p++)
			if (f->circuits.out[p][r] >= 0 && f->circuits.out[p][r] != next->out[p][r] && !tors[r].sock) {
				struct host_id tor = {HOST_TOR, r, 0};
				if (fabric_nl(f, &tor, &tors[r]) == 0)
					any = 1;
			}
	if (!any) {
		free(tors);
		return 0;
	}
	if (fabric_nl(f, &oh, &ocs) == 0) {
		for (;;) {
			long q = queued(f, next, tors, &ocs);
			double el = now_s() - t0;
			if (q == 0) {
				waited = el;
				break;
			}
			if (q < 0 || el > timeout_s)
				break;
			struct timespec ts = {0, 100 * 1000};
			nanosleep(&ts, NULL);
		}
		nlbatch_free(&ocs);
	}
	for (int r = 0; r < t->racks; r++)
		if (tors[r].sock)
			nlbatch_free(&tors[r]);
	free(tors);
	return waited;
}

int fabric_crossbar_switch(struct fabric *f, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN])
{
	const struct topo *t = &f->topo;
	struct host_id oh = {HOST_OCS, 0, 0};
	struct nlbatch nb;
	char spec[8192];
	int rc = 0;

	if (!circuits_changed(&f->circuits, next))
		return 0;
	if (fabric_nl(f, &oh, &nb)) {
		snprintf(err, FABRIC_ERR_LEN, "ocs: cannot open its namespace: %s", strerror(errno));
		return -1;
	}
	for (int p = 0; p < t->ocs_ports && !rc; p++)
		for (int r = 0; r < t->racks && !rc; r++) {
			int cur = f->circuits.out[p][r], want = next->out[p][r];
			if (cur == want)
				continue;
			rc = want >= 0 ? rq_redirect(&nb, plan_ifx_ocs(r, p), plan_ifx_ocs(want, p))
				       : rq_redirect_del(&nb, plan_ifx_ocs(r, p));
		}
	if (rc)
		snprintf(err, FABRIC_ERR_LEN, "ocs: cannot encode a crossbar filter");
	else if (nlbatch_commit(&nb)) {
		snprintf(err, FABRIC_ERR_LEN, "ocs: %s", nb.err);
		rc = -1;
	}
	nlbatch_free(&nb);
	if (rc)
		return -1;
	f->circuits = *next;
	/* Record it for other processes (netctl circuits show, a restarted
	 * controller); rename makes the file whole or absent. */
	char path[256], tmp[272];
	circuits_format(next, spec, sizeof spec);
	snprintf(path, sizeof path, "%s/%s/circuits", FABRIC_STATE_DIR, f->prefix);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *fp = fopen(tmp, "w");
	if (fp) {
		int bad = fprintf(fp, "%s\n", spec) < 0;
		bad |= fclose(fp) != 0;
		if (bad || rename(tmp, path))
			unlink(tmp);
	}
	return 0;
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
	char buf[MNL_SOCKET_BUFFER_SIZE], err[FABRIC_ERR_LEN];
	circuits_clear(lit, &f->topo);
	for (int r = 0; r < f->topo.racks; r++) {
		struct nlbatch nb;
		struct lit_walk w = {&f->topo, lit, r};
		if (tor_batch(f, r, &nb, err))
			return -1;
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		nlh->nlmsg_type = RTM_GETROUTE;
		struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof *rtm);
		rtm->rtm_family = AF_INET;
		int rc = nlbatch_dump(&nb, nlh, route_cb, &w);
		nlbatch_free(&nb);
		if (rc)
			return -1;
	}
	return 0;
}
