/* capspec.h — what a user asks to capture: HOST[:IFACE] of a fabric, the
 * snapshot length, the file it goes to.
 *
 * Pure functions of the topology (no kernel), so `netctl capture` and
 * `emu run --capture` reject bad input before they open or build anything.
 * Interface names follow the plan (plan.h): a server has eth0; a ToR up,
 * hY (its servers) and oP (optical ports); the EPS core rX (ToR X); the OCS
 * rXpP; every namespace has lo, and "any" is libpcap's pseudo-device for
 * all interfaces of the namespace at once. */
#ifndef NETCTL_CAPSPEC_H
#define NETCTL_CAPSPEC_H
#include "netctl/plan.h"
#include <stddef.h>

#define CAPSPEC_ERR_LEN      256
#define CAPSPEC_IFNAME_MAX   15        /* IFNAMSIZ - 1 */
#define CAPSPEC_SNAPLEN_MAX  262144    /* libpcap's largest (and tcpdump's default) */

struct cap_target {
	struct host_id host;
	char host_name[16];                 /* "r0h0", "tor1", "eps", "ocs" */
	char ifname[CAPSPEC_IFNAME_MAX + 1];
};

/* "r0h0" (its eth0), "tor1:up", "eps" (any).  A host without ":IFACE"
 * gets capspec_default_iface().  -1 with err naming the problem (a host
 * outside the topology, an empty or malformed interface name). */
int capspec_parse(const char *spec, const struct topo *t, struct cap_target *out, char err[CAPSPEC_ERR_LEN]);

/* A server's NIC (eth0); "any" for a ToR, the EPS core and the OCS, whose
 * traffic crosses several interfaces (a forwarded packet shows up twice,
 * arriving and leaving). */
const char *capspec_default_iface(enum host_kind kind);

/* 0 if the plan gives the target's host that interface (or lo, or any);
 * otherwise -1 with err listing the host's interfaces.  For callers that
 * must check before the fabric exists (emu run). */
int capspec_iface_planned(const struct topo *t, const struct cap_target *c, char err[CAPSPEC_ERR_LEN]);

/* Two targets naming the same interface of the same host. */
int capspec_same(const struct cap_target *a, const struct cap_target *b);

/* "capture-HOST-IFACE.pcap" (emu run's results directory). */
void capspec_file_name(const struct cap_target *c, char *buf, size_t len);

/* A snapshot length: a whole number of bytes in [1, CAPSPEC_SNAPLEN_MAX].
 * 0, or -1 leaving *out untouched. */
int capspec_snaplen(const char *s, int *out);

/* argv[0..n-1] joined with single spaces, as tcpdump joins its trailing
 * arguments into one filter expression; malloc'd ("" when n is 0), NULL
 * if out of memory. */
char *capspec_join(char *const *argv, int n);
#endif
