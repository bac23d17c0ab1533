/* plan.h — the fabric's naming, addressing, MAC and ifindex plan.
 *
 * Everything here is a pure function of the topology, so every process (the
 * CLI, the controller, tests) agrees on names and addresses without asking
 * the kernel.  Namespaces are PREFIX-HOST with HOST one of:
 *   rXhY   server Y of rack X           (eth0 -> its ToR)
 *   torX   ToR of rack X                (hY -> servers, up -> EPS, oP -> OCS)
 *   eps    the EPS core                 (rX -> ToR X)
 *   ocs    the OCS crossbar             (rXpP -> ToR X's optical port P)
 *   ocsK   over several hosts: host K's slice of the crossbar (host 0's is ocs)
 * Addresses (server_net S, fabric_net F, both /16):
 *   server rXhY      S.X.(Y+1)/32, gateway S.X.254 (the ToR)
 *   ToR X uplink     F.1.(X+1)/32, EPS core F.0.1/32
 *   ToR X port P     F.(16+P).(X+1)/32, next hop of circuits towards rack X
 * MACs are 02:ROLE:X:Y:P:00, locally administered and unique on every segment,
 * so every neighbour entry is static and no ARP ever crosses the fabric.
 * Interface indexes are fixed per namespace (lo is 1) so tc and routes need
 * no lookups. */
#ifndef NETCTL_PLAN_H
#define NETCTL_PLAN_H
#include "netctl/topo.h"
#include <stdint.h>
#include <netinet/in.h>

#define PREFIX_MAX      16
#define NS_NAME_MAX     (PREFIX_MAX + 24)
#define CIRCUIT_TABLE   100     /* ToR routing table of lit circuits */
#define CIRCUIT_TOS     0x08    /* IPTOS_THROUGHPUT marks circuit-eligible traffic */
#define CIRCUIT_RULE_PRIO 100

enum host_kind { HOST_SERVER, HOST_TOR, HOST_EPS, HOST_OCS };

struct host_id {
	enum host_kind kind;
	int rack;    /* servers and ToRs */
	int server;  /* servers */
};

/* Validate a prefix: 1..16 of [A-Za-z0-9_] (no '-', so one prefix never
 * matches another's names).  Returns 0 if valid. */
int plan_prefix_valid(const char *prefix);

/* "r3h7", "tor3", "eps", "ocs" <-> host_id.  parse returns -1 if malformed
 * or outside the topology (t may be NULL to skip the range check). */
void plan_host_name(const struct host_id *h, char *buf, size_t len);
/* A decimal index of a name (the 3 of "r3h7") at *s, without sign or leading
 * zeros ("07" would alias "7"); advances *s.  Returns -1 if there is none. */
int plan_parse_index(const char **s, int *out);
int plan_host_parse(const char *name, const struct topo *t, struct host_id *h);
void plan_ns_name(const char *prefix, const struct host_id *h, char *buf, size_t len);
/* The server names, for messages: "r0h0..r9h9", or per run of equally
 * sized racks "r0h0..r3h9, r4h0..r4h1". */
void plan_server_span(const struct topo *t, char *buf, size_t len);

/* Dense index of every namespace: servers, then ToRs, then eps, ocs. */
int plan_ns_count(const struct topo *t);
void plan_ns_host(const struct topo *t, int idx, struct host_id *h);
int plan_ns_index(const struct topo *t, const struct host_id *h);

struct in_addr plan_server_ip(const struct topo *t, int rack, int server);
struct in_addr plan_gateway_ip(const struct topo *t, int rack);
struct in_addr plan_rack_net(const struct topo *t, int rack);      /* /24 */
struct in_addr plan_core_ip(const struct topo *t);
struct in_addr plan_uplink_ip(const struct topo *t, int rack);
struct in_addr plan_optical_ip(const struct topo *t, int rack, int port);

enum mac_role {
	MAC_SERVER = 1, MAC_TOR_DOWN, MAC_TOR_UP, MAC_EPS, MAC_TOR_OPT, MAC_OCS
};
void plan_mac(enum mac_role role, int rack, int server, int port, uint8_t mac[6]);

/* Fixed interface indexes. */
enum { IFX_LO = 1, IFX_SERVER_ETH0 = 2, IFX_TOR_UP = 2, IFX_TOR_OPT0 = 3, IFX_TOR_DOWN0 = 16 };
static inline int plan_ifx_tor_opt(int port) { return IFX_TOR_OPT0 + port; }
static inline int plan_ifx_tor_down(int server) { return IFX_TOR_DOWN0 + server; }
static inline int plan_ifx_eps(int rack) { return 2 + rack; }
static inline int plan_ifx_ocs(int rack, int port) { return 2 + rack * TOPO_MAX_PORTS + port; }
/* A crossbar slice's tunnel end that receives what other hosts send to
 * local rack X's port P (iXpP). */
static inline int plan_ifx_ocs_in(int rack, int port) { return plan_ifx_ocs(TOPO_MAX_RACKS, 0) + rack * TOPO_MAX_PORTS + port; }
#endif
