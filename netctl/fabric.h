/* fabric.h — bring a topology up as namespaces, links and shaping; take it
 * down; operate on a running one (circuits, counters).
 *
 * Everything a fabric creates lives inside namespaces named PREFIX-*, plus a
 * state directory /run/emu/PREFIX (root only).  Deleting those namespaces
 * deletes every link, address, route and qdisc with them, so `down` also
 * works after a crashed or killed `up`, and never touches anything else. */
#ifndef NETCTL_FABRIC_H
#define NETCTL_FABRIC_H
#include "netctl/circuits.h"
#include "netctl/hosts.h"
#include "netctl/nlbatch.h"
#include "netctl/plan.h"
#include "netctl/topo.h"
#include <stdbool.h>

#define FABRIC_STATE_DIR "/run/emu"
#define FABRIC_ERR_LEN   640
/* Format an error into err; returns -1, for `return fabric_errf(err, ...)`. */
int fabric_errf(char err[FABRIC_ERR_LEN], const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What up took, and what it could not do as asked. */
struct fabric_timing {
	double ns_s, links_s, config_s, total_s;
	/* the host does not allow the topology's congestion control as a
	 * namespace default: sockets must set TCP_CONGESTION themselves */
	int cc_restricted;
};

/* Build the fabric.  On failure everything made so far is removed, and err
 * says what failed ("tor3: add route ...: File exists").  Fails without
 * touching anything if PREFIX is already in use. */
int fabric_up(const struct topo *t, const char *prefix, struct fabric_timing *timing,
	      char err[FABRIC_ERR_LEN]);

/* One host's part of a fabric spread over several (netctl/hosts.h): its
 * racks' servers and ToRs, the EPS core if the layout puts it there, its
 * slice of the OCS crossbar (namespace ocsK, K = self; ocs for host 0), and
 * a VXLAN end on its underlay for every link towards another host: a ToR's
 * uplink to a remote EPS core (or the core's end of a remote ToR's), and in
 * its slice one tunnel per remote rack's optical port, which the crossbar
 * redirects a local port into, plus one receiving end per local port, which
 * always redirects into that port.  Run inside the host's network namespace
 * (its underlay is there).  Claims /run/emu/PREFIX/host-NAME; on failure it
 * removes what it made and nothing else. */
struct fabric_part {
	const struct hosts *hs;
	const struct layout *l;
	int self;
};
int fabric_up_part(const struct topo *t, const char *prefix, const struct fabric_part *part,
		   struct fabric_timing *timing, char err[FABRIC_ERR_LEN]);
/* The VNI of tunnel `index` (EPS link of rack r: r; optical port p of rack
 * y: 256 + 256p + y) of fabric PREFIX: a hash of the prefix in the upper
 * bits keeps two fabrics on the same hosts apart. */
uint32_t fabric_vni(const char *prefix, int index);

/* Kill processes inside PREFIX-* namespaces, remove the namespaces and the
 * state.  Returns the number of namespaces removed (0 if none existed). */
int fabric_down(const char *prefix, int *killed);
/* /run/emu/PREFIX and everything in it. */
void fabric_state_remove(const char *prefix);

/* A running fabric. */
struct fabric {
	char prefix[PREFIX_MAX + 1];
	struct topo topo;
	struct circuit_cfg circuits;   /* what the crossbar is set to */
	struct circuit_cfg lit;        /* circuits the ToRs route into */
	int *ns_fd;                    /* lazily opened, -1 until then */
	struct nlbatch *nl;            /* lazily opened sockets, one per namespace */
	int root_fd;
	int lock_fd;
	/* Spread over several hosts (/run/emu/PREFIX/hosts): NULL on one. */
	struct hosts *hosts;
	struct layout *layout;
	int slice_fd[HOSTS_MAX];       /* crossbar slices ocsK, K > 0; -1 until opened */
	struct nlbatch slice_nl[HOSTS_MAX];
	/* Hosts reached through their netctl host-ctl (hostctl.h), NULL: here. */
	struct host_chan *chan[HOSTS_MAX];
	int part;                      /* a host's own handle (host-ctl): its racks only, -1: all */
};

/* Attach to the fabric up under PREFIX; NULL with err if none. */
struct fabric *fabric_open(const char *prefix, char err[FABRIC_ERR_LEN]);
/* On host `self` of a fabric over several hosts, from the topology and the
 * hosts file (a real host keeps no state of the fabric): only its racks and
 * slice are used, and the crossbar's state is not recorded (the
 * controller's is). */
struct fabric *fabric_open_part(const char *prefix, const struct topo *t, const struct hosts *hs, int self,
				char err[FABRIC_ERR_LEN]);
void fabric_close(struct fabric *f);
int fabric_ns_fd(struct fabric *f, const struct host_id *h);
/* The netlink socket inside host h's namespace, opened on first use and
 * kept (reconfigurations then cost only sendmsg calls).  NULL with errno. */
struct nlbatch *fabric_nl(struct fabric *f, const struct host_id *h);
/* The crossbar slice that holds rack's optical ports (the one OCS on one
 * host), its socket opened on first use.  NULL with errno. */
struct nlbatch *fabric_slice_nl(struct fabric *f, int rack);
/* Serialise changes among processes sharing the fabric (flock). */
int fabric_lock(struct fabric *f);
void fabric_unlock(struct fabric *f);

/* --- circuits ------------------------------------------------------------
 * A reconfiguration is four steps, exposed separately so the OCS controller
 * can put its guard time and delay between them:
 *   unroute  remove the ToRs' circuit routes that change (senders fall back
 *            to the EPS: the kernel never blackholes);
 *   drain    wait until the optical queues of those ports are empty, since a
 *            packet still queued would be redirected to a peer whose MAC it
 *            does not carry and be dropped;
 *   switch   point the crossbar at the new configuration;
 *   route    install the ToRs' routes of the new circuits (lit).
 * fabric_circuits_apply() runs them back to back. */
int fabric_circuits_unroute(struct fabric *f, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN]);
/* Returns the time waited in seconds, or -1 if queues were still busy at the timeout. */
double fabric_circuits_drain(struct fabric *f, const struct circuit_cfg *next, double timeout_s);
/* Bytes queued now towards the ports that change, on host `host` (its ToRs
 * and its slice's ports): -1 if they cannot be read. */
long fabric_circuits_queued_on(struct fabric *f, int host, const struct circuit_cfg *next);
int fabric_crossbar_switch(struct fabric *f, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN]);
int fabric_circuits_route(struct fabric *f, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN]);
int fabric_circuits_apply(struct fabric *f, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN]);
/* Over several hosts, the same steps on one host's ToRs and crossbar slice
 * (fabric_hosts(f) of them; one host is host 0), so the controller can take
 * each host through them and time its dark gap. */
static inline int fabric_hosts(const struct fabric *f) { return f->layout ? f->layout->nhosts : 1; }
static inline int fabric_host_of(const struct fabric *f, int rack) { return f->layout ? f->layout->host_of[rack] : 0; }
int fabric_circuits_unroute_on(struct fabric *f, int host, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN]);
int fabric_crossbar_switch_on(struct fabric *f, int host, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN]);
int fabric_circuits_route_on(struct fabric *f, int host, const struct circuit_cfg *next, char err[FABRIC_ERR_LEN]);
/* The racks' lit circuits as the ToRs' routing tables show them. */
int fabric_circuits_lit(struct fabric *f, struct circuit_cfg *lit);

/* --- counters ------------------------------------------------------------ */
enum link_class { LINK_SERVER, LINK_UPLINK, LINK_OPTICAL };
struct link_stats {
	enum link_class cls;
	int rack, server, port;
	/* seen from the ToR: tx leaves the ToR on this link, rx arrives */
	uint64_t tx_bytes, rx_bytes, tx_packets, rx_packets;
	uint64_t drops;      /* bfifo drops on the ToR's egress of this link */
	uint32_t backlog;    /* bytes queued on that egress now */
	uint64_t marked_tx_bytes;  /* uplinks: circuit-marked bytes sent over the EPS (leakage) */
};
/* Every ToR-facing link; *out is malloc'd. */
int fabric_stats(struct fabric *f, struct link_stats **out, int *n);
/* Those of host `host`'s racks, in rack order. */
int fabric_stats_on(struct fabric *f, int host, struct link_stats **out, int *n);

/* bfifo queue state of every interface of one namespace, by ifindex. */
struct fifo_stats { uint32_t backlog; uint64_t drops; };
int fabric_fifo_stats(struct nlbatch *nb, struct fifo_stats *out, int max_ifindex);
#endif
