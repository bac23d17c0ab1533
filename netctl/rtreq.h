/* rtreq.h — the rtnetlink requests a fabric is built from, queued on a batch.
 *
 * Links, addresses, routes, neighbours and rules are plain structs and are
 * written with libmnl; qdiscs, classes and filters carry nested options that
 * libnl-route already knows how to encode, so those are built with libnl and
 * appended to the same batch. */
#ifndef NETCTL_RTREQ_H
#define NETCTL_RTREQ_H
#include "netctl/hosts.h"
#include "netctl/nlbatch.h"
#include "netctl/topo.h"
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

struct veth_end {
	int ifindex;
	const char *name;
	uint8_t mac[6];
};

/* A veth pair: `a` (up) in the batch's namespace, `b` (down: bring it up
 * with rq_link_up from its own namespace) created directly in peer_ns_fd. */
void rq_veth(struct nlbatch *nb, const struct veth_end *a, const struct veth_end *b,
	     int peer_ns_fd, uint32_t gso_max);
void rq_link_up(struct nlbatch *nb, int ifindex);
void rq_link_mtu(struct nlbatch *nb, int ifindex, int mtu);
/* Make ifindex a port of the bridge `master` (the emulated hosts' LAN). */
void rq_link_master(struct nlbatch *nb, int ifindex, int master);
void rq_bridge(struct nlbatch *nb, int ifindex, const char *name, int mtu);
void rq_addr(struct nlbatch *nb, int ifindex, struct in_addr a);      /* /32 */
void rq_addr_plen(struct nlbatch *nb, int ifindex, struct in_addr a, int plen);

/* A VXLAN tunnel end, created from the batch's namespace (the host's, whose
 * underlay interface and UDP socket it uses) inside the namespace ns_fd.
 * A remote of 0 makes a receive-only end (it sends nothing). */
struct vxlan_end {
	int ifindex;
	const char *name;
	uint8_t mac[6];
	uint32_t vni;
	struct in_addr local, remote;
	int underlay;              /* ifindex in the batch's namespace */
	int mtu;
	uint32_t gso_max;
	int ns_fd;
};
int rq_vxlan(struct nlbatch *nb, const struct vxlan_end *v);
/* Route dst/plen in table; via gw (on-link) or, with gw NULL, a device
 * route.  Returns the request, for rq_route_rto_min. */
struct nlmsghdr *rq_route(struct nlbatch *nb, bool add, uint32_t table, struct in_addr dst, int plen,
			  const struct in_addr *gw, int oif);
/* Give the route just queued a locked minimum RTO (ms) for the TCP
 * connections that use it, as `ip route ... rto_min` does. */
void rq_route_rto_min(struct nlmsghdr *route, uint32_t ms);
void rq_neigh(struct nlbatch *nb, int ifindex, struct in_addr ip, const uint8_t mac[6]);
void rq_tos_rule(struct nlbatch *nb, uint8_t tos, uint32_t table, uint32_t prio);
/* HTB root (1:) with one default class (1:1) at the link rate, and a bfifo
 * leaf (10:) holding at most the link's queue limit in bytes. */
int rq_shape(struct nlbatch *nb, int ifindex, const struct topo_link *l);
void rq_ingress(struct nlbatch *nb, int ifindex);
/* Crossbar: every packet entering `ifindex` leaves through `target`
 * (u32 match-all + mirred egress redirect); replaces an existing one. */
int rq_redirect(struct nlbatch *nb, int ifindex, int target);
int rq_redirect_del(struct nlbatch *nb, int ifindex);
#endif
