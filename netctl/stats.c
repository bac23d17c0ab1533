/* stats.c — link and queue counters of a running fabric, read from the
 * ToRs (every link of the fabric has exactly one ToR end). */
#include "netctl/fabric.h"
#include "netctl/hostctl.h"
#include "netctl/leak.h"
#include "netctl/ns.h"
#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fifo_walk {
	struct fifo_stats *out;
	int max;
};

static int fifo_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct fifo_walk *w = arg;
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *kind = NULL, *stats2 = NULL;
	mnl_attr_for_each(a, nlh, sizeof *tcm) {
		if (mnl_attr_get_type(a) == TCA_KIND)
			kind = a;
		else if (mnl_attr_get_type(a) == TCA_STATS2)
			stats2 = a;
	}
	if (!kind || strcmp(mnl_attr_get_str(kind), "bfifo") || !stats2 || tcm->tcm_ifindex >= w->max ||
	    tcm->tcm_ifindex < 0)
		return 0;
	mnl_attr_for_each_nested(a, stats2) {
		if (mnl_attr_get_type(a) == TCA_STATS_QUEUE &&
		    mnl_attr_get_payload_len(a) >= sizeof(struct gnet_stats_queue)) {
			struct gnet_stats_queue q;
			memcpy(&q, mnl_attr_get_payload(a), sizeof q);
			w->out[tcm->tcm_ifindex].backlog = q.backlog;
			w->out[tcm->tcm_ifindex].drops = q.drops;
		}
	}
	return 0;
}

int fabric_fifo_stats(struct nlbatch *nb, struct fifo_stats *out, int max_ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct fifo_walk w = {out, max_ifindex};
	memset(out, 0, max_ifindex * sizeof *out);
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETQDISC;
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof *tcm);
	tcm->tcm_family = AF_UNSPEC;
	return nlbatch_dump(nb, nlh, fifo_cb, &w);
}

struct link_walk {
	struct link_stats *out;    /* indexed by ifindex */
	int max;
};

static int link_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct link_walk *w = arg;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	if (ifi->ifi_index <= 0 || ifi->ifi_index >= w->max)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof *ifi) {
		if (mnl_attr_get_type(a) != IFLA_STATS64 ||
		    mnl_attr_get_payload_len(a) < sizeof(struct rtnl_link_stats64))
			continue;
		struct rtnl_link_stats64 s;
		memcpy(&s, mnl_attr_get_payload(a), sizeof s);
		struct link_stats *l = &w->out[ifi->ifi_index];
		l->tx_bytes = s.tx_bytes;
		l->rx_bytes = s.rx_bytes;
		l->tx_packets = s.tx_packets;
		l->rx_packets = s.rx_packets;
	}
	return 0;
}

static int link_dump(struct nlbatch *nb, struct link_stats *out, int max)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct link_walk w = {out, max};
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof *ifi);
	ifi->ifi_family = AF_UNSPEC;
	return nlbatch_dump(nb, nlh, link_cb, &w);
}

/* The links of the racks of host `only` (-1: every rack), in rack order,
 * appended at res[*k].  A rack on a host with a channel (hostctl.h) comes
 * from that host's answer, read once per call. */
static int stats_of(struct fabric *f, int only, struct link_stats *res, int *k)
{
	const struct topo *t = &f->topo;
	int ports = t->ocs ? t->ocs_ports : 0;
	int max = IFX_TOR_DOWN0 + TOPO_MAX_SERVERS, rc = 0;
	struct link_stats *byif = calloc(max, sizeof *byif);
	struct fifo_stats *fifo = calloc(max, sizeof *fifo);
	struct link_stats *there[HOSTS_MAX] = {0};
	int used[HOSTS_MAX] = {0}, got[HOSTS_MAX] = {0};
	if (!byif || !fifo)
		rc = -1;
	for (int r = 0; r < t->racks && !rc; r++) {
		int h = fabric_host_of(f, r), servers = topo_rack_size(t, r);
		if (only >= 0 && h != only)
			continue;
		if (f->chan[h]) {
			char err[FABRIC_ERR_LEN];
			if (!there[h] && (!(there[h] = calloc((size_t)t->nservers + (size_t)t->racks * (1 + ports), sizeof **there)) ||
					  hostctl_stats(f, h, there[h], &got[h], err))) {
				fprintf(stderr, "netctl: stats: %s\n", there[h] ? err : "out of memory");
				rc = -1;
				break;
			}
			for (int i = 0; i < servers + 1 + ports; i++, used[h]++)
				if (used[h] >= got[h] || there[h][used[h]].rack != r) {
					fprintf(stderr, "netctl: stats: host %s: its counters do not match rack %d\n",
						f->hosts->h[h].name, r);
					rc = -1;
					break;
				} else
					res[(*k)++] = there[h][used[h]];
			continue;
		}
		struct host_id tor = {HOST_TOR, r, 0};
		struct nlbatch *nb = fabric_nl(f, &tor);
		if (!nb) {
			rc = -1;
			break;
		}
		memset(byif, 0, max * sizeof *byif);
		rc = link_dump(nb, byif, max) || fabric_fifo_stats(nb, fifo, max) ? -1 : 0;
		uint64_t marked = 0, marked_pkts;
		if (!rc && t->ocs) {
			if (ns_enter(fabric_ns_fd(f, &tor)))
				rc = -1;
			else if (leak_read(&marked, &marked_pkts))
				marked = 0;   /* a fabric built before counters existed */
			ns_enter(f->root_fd);
		}
		for (int i = 0; i < servers + 1 + ports && !rc; i++) {
			struct link_stats *l = &res[(*k)++];
			int ifx;
			if (i < servers) {
				ifx = plan_ifx_tor_down(i);
				*l = byif[ifx];
				l->cls = LINK_SERVER;
				l->server = i;
			} else if (i == servers) {
				ifx = IFX_TOR_UP;
				*l = byif[ifx];
				l->cls = LINK_UPLINK;
				l->marked_tx_bytes = marked;
			} else {
				ifx = plan_ifx_tor_opt(i - servers - 1);
				*l = byif[ifx];
				l->cls = LINK_OPTICAL;
				l->port = i - servers - 1;
			}
			l->rack = r;
			l->drops = fifo[ifx].drops;
			l->backlog = fifo[ifx].backlog;
		}
	}
	for (int h = 0; h < HOSTS_MAX; h++)
		free(there[h]);
	free(byif);
	free(fifo);
	return rc;
}

static int stats_alloc(struct fabric *f, int only, struct link_stats **out, int *n)
{
	const struct topo *t = &f->topo;
	int ports = t->ocs ? t->ocs_ports : 0, k = 0;
	struct link_stats *res = calloc((size_t)t->nservers + (size_t)t->racks * (1 + ports), sizeof *res);
	if (!res || stats_of(f, only, res, &k)) {
		free(res);
		return -1;
	}
	*out = res;
	*n = k;
	return 0;
}

int fabric_stats(struct fabric *f, struct link_stats **out, int *n)
{
	return stats_alloc(f, -1, out, n);
}

int fabric_stats_on(struct fabric *f, int host, struct link_stats **out, int *n)
{
	return stats_alloc(f, host, out, n);
}
