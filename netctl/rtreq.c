/* rtreq.c — see rtreq.h. */
#include "netctl/rtreq.h"
#include <arpa/inet.h>
#include <linux/fib_rules.h>
#include <linux/if.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_mirred.h>
#include <linux/veth.h>
#include <netlink/route/act/mirred.h>
#include <netlink/route/class.h>
#include <netlink/route/classifier.h>
#include <netlink/route/link.h>
#include <netlink/route/link/vxlan.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/htb.h>
#include <string.h>

#define HTB_HANDLE     0x00010000u   /* 1: */
#define HTB_CLASS      0x00010001u   /* 1:1 */
#define FIFO_HANDLE    0x000a0000u   /* a: */
#define INGRESS_HANDLE 0xffff0000u
#define XBAR_PRIO      1
#define XBAR_HANDLE    0x80000800u   /* u32 800::800 */

static void put_ifinfo(struct nlmsghdr *nlh, int ifindex, bool up)
{
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof *ifi);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	if (up) {
		ifi->ifi_flags = IFF_UP;
		ifi->ifi_change = IFF_UP;
	}
}

void rq_veth(struct nlbatch *nb, const struct veth_end *a, const struct veth_end *b,
	     int peer_ns_fd, uint32_t gso_max)
{
	struct nlmsghdr *nlh = nlbatch_msg(nb, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL,
					   "veth %s <-> %s", a->name, b->name);
	put_ifinfo(nlh, a->ifindex, true);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, a->name);
	mnl_attr_put(nlh, IFLA_ADDRESS, 6, a->mac);
	mnl_attr_put_u32(nlh, IFLA_GSO_MAX_SIZE, gso_max);
	struct nlattr *info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	struct nlattr *data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	struct nlattr *peer = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	/* The peer is an ifinfomsg followed by its own attributes. */
	struct ifinfomsg *pi = mnl_nlmsg_put_extra_header(nlh, sizeof *pi);
	pi->ifi_family = AF_UNSPEC;
	pi->ifi_index = b->ifindex;
	/* No IFF_UP here: the kernel opens the peer before pairing it and
	 * fails with ENOTCONN.  The peer's namespace brings it up. */
	mnl_attr_put_strz(nlh, IFLA_IFNAME, b->name);
	mnl_attr_put(nlh, IFLA_ADDRESS, 6, b->mac);
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)peer_ns_fd);
	mnl_attr_put_u32(nlh, IFLA_GSO_MAX_SIZE, gso_max);
	mnl_attr_nest_end(nlh, peer);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
}

void rq_link_up(struct nlbatch *nb, int ifindex)
{
	put_ifinfo(nlbatch_msg(nb, RTM_NEWLINK, 0, "link %d up", ifindex), ifindex, true);
}

void rq_link_mtu(struct nlbatch *nb, int ifindex, int mtu)
{
	struct nlmsghdr *nlh = nlbatch_msg(nb, RTM_NEWLINK, 0, "link %d mtu %d", ifindex, mtu);
	put_ifinfo(nlh, ifindex, false);
	mnl_attr_put_u32(nlh, IFLA_MTU, (uint32_t)mtu);
}

void rq_link_master(struct nlbatch *nb, int ifindex, int master)
{
	struct nlmsghdr *nlh = nlbatch_msg(nb, RTM_NEWLINK, 0, "link %d master %d", ifindex, master);
	put_ifinfo(nlh, ifindex, false);
	mnl_attr_put_u32(nlh, IFLA_MASTER, (uint32_t)master);
}

void rq_bridge(struct nlbatch *nb, int ifindex, const char *name, int mtu)
{
	struct nlmsghdr *nlh = nlbatch_msg(nb, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, "bridge %s", name);
	put_ifinfo(nlh, ifindex, true);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_MTU, (uint32_t)mtu);
	struct nlattr *info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "bridge");
	mnl_attr_nest_end(nlh, info);
}

int rq_vxlan(struct nlbatch *nb, const struct vxlan_end *v)
{
	struct rtnl_link *link = rtnl_link_vxlan_alloc();
	struct nl_addr *mac = nl_addr_build(AF_LLC, v->mac, 6);
	struct nl_addr *local = nl_addr_build(AF_INET, &v->local, 4);
	struct nl_addr *remote = v->remote.s_addr ? nl_addr_build(AF_INET, &v->remote, 4) : NULL;
	struct nl_msg *msg = NULL;
	int rc = -1;
	if (!link || !mac || !local || (v->remote.s_addr && !remote))
		goto out;
	rtnl_link_set_name(link, v->name);
	rtnl_link_set_ifindex(link, v->ifindex);
	rtnl_link_set_addr(link, mac);
	rtnl_link_set_ns_fd(link, v->ns_fd);
	if (v->mtu)
		rtnl_link_set_mtu(link, (unsigned)v->mtu);
	rtnl_link_set_flags(link, IFF_UP);
	/* Static ends: no learning, every frame to the one remote. */
	if (rtnl_link_vxlan_set_id(link, v->vni) || rtnl_link_vxlan_set_local(link, local) ||
	    (remote && rtnl_link_vxlan_set_group(link, remote)) || rtnl_link_vxlan_set_link(link, (uint32_t)v->underlay) ||
	    rtnl_link_vxlan_set_port(link, VXLAN_PORT) || rtnl_link_vxlan_disable_learning(link) ||
	    rtnl_link_build_add_request(link, NLM_F_CREATE | NLM_F_EXCL, &msg) < 0)
		goto out;
	if (nla_put_u32(msg, IFLA_GSO_MAX_SIZE, v->gso_max) < 0)
		goto out;
	char r[INET_ADDRSTRLEN] = "none";
	if (remote)
		inet_ntop(AF_INET, &v->remote, r, sizeof r);
	nlbatch_add_nl(nb, msg, "vxlan %s id %u remote %s", v->name, v->vni, r);
	rc = 0;
out:
	if (msg)
		nlmsg_free(msg);
	if (link)
		rtnl_link_put(link);
	if (mac)
		nl_addr_put(mac);
	if (local)
		nl_addr_put(local);
	if (remote)
		nl_addr_put(remote);
	return rc;
}

void rq_addr(struct nlbatch *nb, int ifindex, struct in_addr a)
{
	rq_addr_plen(nb, ifindex, a, 32);
}

void rq_addr_plen(struct nlbatch *nb, int ifindex, struct in_addr a, int plen)
{
	struct nlmsghdr *nlh = nlbatch_msg(nb, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL,
					   "address %s on ifindex %d", inet_ntoa(a), ifindex);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof *ifa);
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = (unsigned char)plen;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (unsigned)ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, 4, &a);
	mnl_attr_put(nlh, IFA_ADDRESS, 4, &a);
}

struct nlmsghdr *rq_route(struct nlbatch *nb, bool add, uint32_t table, struct in_addr dst, int plen,
			  const struct in_addr *gw, int oif)
{
	char d[INET_ADDRSTRLEN], g[INET_ADDRSTRLEN] = "";
	inet_ntop(AF_INET, &dst, d, sizeof d);
	if (gw)
		inet_ntop(AF_INET, gw, g, sizeof g);
	struct nlmsghdr *nlh = nlbatch_msg(nb, add ? RTM_NEWROUTE : RTM_DELROUTE,
					   add ? NLM_F_CREATE | NLM_F_EXCL : 0,
					   "%s route %s/%d%s%s dev %d table %u", add ? "add" : "delete",
					   d, plen, gw ? " via " : "", g, oif, table);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof *rtm);
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = (unsigned char)plen;
	rtm->rtm_table = table < 256 ? (unsigned char)table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = gw ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
	rtm->rtm_type = RTN_UNICAST;
	/* Gateways are reached through static neighbours, never a subnet. */
	if (gw)
		rtm->rtm_flags = RTNH_F_ONLINK;
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	mnl_attr_put(nlh, RTA_DST, 4, &dst);
	if (gw)
		mnl_attr_put(nlh, RTA_GATEWAY, 4, gw);
	mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)oif);
	return nlh;
}

void rq_route_rto_min(struct nlmsghdr *route, uint32_t ms)
{
	/* TCP takes a route's RTO floor only when the metric is locked. */
	struct nlattr *m = mnl_attr_nest_start(route, RTA_METRICS);
	mnl_attr_put_u32(route, RTAX_LOCK, 1u << RTAX_RTO_MIN);
	mnl_attr_put_u32(route, RTAX_RTO_MIN, ms);
	mnl_attr_nest_end(route, m);
}

void rq_neigh(struct nlbatch *nb, int ifindex, struct in_addr ip, const uint8_t mac[6])
{
	struct nlmsghdr *nlh = nlbatch_msg(nb, RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_REPLACE,
					   "neighbour %s on ifindex %d", inet_ntoa(ip), ifindex);
	struct ndmsg *nd = mnl_nlmsg_put_extra_header(nlh, sizeof *nd);
	nd->ndm_family = AF_INET;
	nd->ndm_ifindex = ifindex;
	nd->ndm_state = NUD_PERMANENT;
	mnl_attr_put(nlh, NDA_DST, 4, &ip);
	mnl_attr_put(nlh, NDA_LLADDR, 6, mac);
}

void rq_tos_rule(struct nlbatch *nb, uint8_t tos, uint32_t table, uint32_t prio)
{
	struct nlmsghdr *nlh = nlbatch_msg(nb, RTM_NEWRULE, NLM_F_CREATE | NLM_F_EXCL,
					   "rule tos 0x%02x lookup %u", tos, table);
	struct fib_rule_hdr *frh = mnl_nlmsg_put_extra_header(nlh, sizeof *frh);
	frh->family = AF_INET;
	frh->tos = tos;
	frh->action = FR_ACT_TO_TBL;
	frh->table = table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
	mnl_attr_put_u32(nlh, FRA_TABLE, table);
	mnl_attr_put_u32(nlh, FRA_PRIORITY, prio);
}

/* Queue one libnl-built tc request; libnl objects are freed here. */
static int add_tc(struct nlbatch *nb, int rc, struct nl_msg **msg, const char *what, int ifindex)
{
	/* msg by reference: the builder in the same call sets it, and argument
	 * evaluation order is unspecified. */
	if (rc < 0)
		return -1;
	nlbatch_add_nl(nb, *msg, "%s on ifindex %d", what, ifindex);
	nlmsg_free(*msg);
	return 0;
}

int rq_shape(struct nlbatch *nb, int ifindex, const struct topo_link *l)
{
	struct rtnl_qdisc *htb = rtnl_qdisc_alloc(), *fifo = rtnl_qdisc_alloc();
	struct rtnl_class *cls = rtnl_class_alloc();
	struct nl_msg *msg;
	int rc = -1;
	uint32_t rate = (uint32_t)(l->rate / 8);
	/* One millisecond of tokens, never less than the largest packet. */
	uint32_t burst = rate / 1000 > l->gso_max ? rate / 1000 : l->gso_max;

	if (!htb || !fifo || !cls)
		goto out;
	rtnl_tc_set_ifindex(TC_CAST(htb), ifindex);
	rtnl_tc_set_parent(TC_CAST(htb), TC_H_ROOT);
	rtnl_tc_set_handle(TC_CAST(htb), HTB_HANDLE);
	if (rtnl_tc_set_kind(TC_CAST(htb), "htb") || rtnl_htb_set_defcls(htb, TC_H_MIN(HTB_CLASS)) ||
	    add_tc(nb, rtnl_qdisc_build_add_request(htb, NLM_F_CREATE | NLM_F_REPLACE, &msg), &msg, "htb qdisc", ifindex))
		goto out;

	rtnl_tc_set_ifindex(TC_CAST(cls), ifindex);
	rtnl_tc_set_parent(TC_CAST(cls), HTB_HANDLE);
	rtnl_tc_set_handle(TC_CAST(cls), HTB_CLASS);
	rtnl_tc_set_mtu(TC_CAST(cls), 1514);
	if (rtnl_tc_set_kind(TC_CAST(cls), "htb") || rtnl_htb_set_rate(cls, rate) ||
	    rtnl_htb_set_ceil(cls, rate) || rtnl_htb_set_rbuffer(cls, burst) ||
	    rtnl_htb_set_cbuffer(cls, burst) || rtnl_htb_set_quantum(cls, 60000) ||
	    add_tc(nb, rtnl_class_build_add_request(cls, NLM_F_CREATE, &msg), &msg, "htb class", ifindex))
		goto out;

	rtnl_tc_set_ifindex(TC_CAST(fifo), ifindex);
	rtnl_tc_set_parent(TC_CAST(fifo), HTB_CLASS);
	rtnl_tc_set_handle(TC_CAST(fifo), FIFO_HANDLE);
	if (rtnl_tc_set_kind(TC_CAST(fifo), "bfifo") ||
	    rtnl_qdisc_fifo_set_limit(fifo, (int)(l->queue_bytes > INT32_MAX ? INT32_MAX : l->queue_bytes)) ||
	    add_tc(nb, rtnl_qdisc_build_add_request(fifo, NLM_F_CREATE, &msg), &msg, "bfifo qdisc", ifindex))
		goto out;
	rc = 0;
out:
	rtnl_qdisc_put(htb);
	rtnl_qdisc_put(fifo);
	rtnl_class_put(cls);
	return rc;
}

void rq_ingress(struct nlbatch *nb, int ifindex)
{
	struct nlmsghdr *nlh = nlbatch_msg(nb, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL,
					   "ingress qdisc on ifindex %d", ifindex);
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof *tcm);
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = TC_H_INGRESS;
	tcm->tcm_handle = INGRESS_HANDLE;
	mnl_attr_put_strz(nlh, TCA_KIND, "ingress");
}

static struct rtnl_cls *xbar_filter(int ifindex)
{
	struct rtnl_cls *cls = rtnl_cls_alloc();
	if (!cls)
		return NULL;
	rtnl_tc_set_ifindex(TC_CAST(cls), ifindex);
	rtnl_tc_set_parent(TC_CAST(cls), INGRESS_HANDLE);
	rtnl_tc_set_handle(TC_CAST(cls), XBAR_HANDLE);
	rtnl_cls_set_prio(cls, XBAR_PRIO);
	rtnl_cls_set_protocol(cls, ETH_P_ALL);
	if (rtnl_tc_set_kind(TC_CAST(cls), "u32")) {
		rtnl_cls_put(cls);
		return NULL;
	}
	return cls;
}

int rq_redirect(struct nlbatch *nb, int ifindex, int target)
{
	struct rtnl_cls *cls = xbar_filter(ifindex);
	struct rtnl_act *act = rtnl_act_alloc();
	struct nl_msg *msg;
	int rc = -1;
	if (!cls || !act || rtnl_tc_set_kind(TC_CAST(act), "mirred"))
		goto out;
	rtnl_mirred_set_action(act, TCA_EGRESS_REDIR);
	rtnl_mirred_set_policy(act, TC_ACT_STOLEN);
	rtnl_mirred_set_ifindex(act, (uint32_t)target);
	if (rtnl_u32_add_key_uint32(cls, 0, 0, 0, 0) || rtnl_u32_set_cls_terminal(cls) ||
	    rtnl_u32_add_action(cls, act))
		goto out;
	rc = add_tc(nb, rtnl_cls_build_add_request(cls, NLM_F_CREATE, &msg), &msg, "crossbar redirect", ifindex);
out:
	if (act)
		rtnl_act_put(act);
	if (cls)
		rtnl_cls_put(cls);
	return rc;
}

int rq_redirect_del(struct nlbatch *nb, int ifindex)
{
	struct rtnl_cls *cls = xbar_filter(ifindex);
	struct nl_msg *msg;
	int rc = -1;
	if (cls)
		rc = add_tc(nb, rtnl_cls_build_delete_request(cls, 0, &msg), &msg, "crossbar release", ifindex);
	if (cls)
		rtnl_cls_put(cls);
	return rc;
}
