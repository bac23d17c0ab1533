/* hosts.h — the machines one fabric is spread over, and which racks each
 * carries.
 *
 * A hosts file has one machine per line (`#` starts a comment):
 *
 *   NAME  MANAGEMENT  UNDERLAY_IF  UNDERLAY_ADDR[/LEN]  RACKS  [mtu=N]
 *
 *   NAME           1-15 of [a-z0-9_], unique
 *   MANAGEMENT     `emulated` (a namespace PREFIX-m-NAME on this machine stands
 *                  for the host) or [USER@]HOST, the address SSH reaches; one
 *                  file is all emulated or all real
 *   UNDERLAY_IF    the interface the VXLAN tunnels leave by (created, on an
 *                  emulated host)
 *   UNDERLAY_ADDR  its IPv4 address, unique; LEN (default 24) only for emulated
 *   RACKS          how many whole racks it carries, or `auto`
 *   mtu=N          the underlay's MTU (default 1500; 1280..65535)
 *
 * The partition is a pure function of the hosts and the topology, so every
 * host computes the same one from the same two texts. */
#ifndef NETCTL_HOSTS_H
#define NETCTL_HOSTS_H
#include "netctl/topo.h"
#include <netinet/in.h>
#include <stdbool.h>

#define HOSTS_MAX      16
#define HOST_NAME_MAX_ 15
#define HOSTS_ERR_LEN  512
#define HOSTS_AUTO     (-1)
/* Outer IPv4 (20) + UDP (8) + VXLAN (8) headers and the inner Ethernet
 * header (14): an inner IP packet of MTU m needs an underlay MTU m + 50. */
#define VXLAN_OVERHEAD 50
#define VXLAN_PORT     4789   /* IANA's */
#define FABRIC_MTU_MAX 1500

struct fabric_host {
	char name[HOST_NAME_MAX_ + 1];
	char mgmt[128];            /* "" when emulated */
	bool emulated;
	char ifname[16];
	struct in_addr addr;
	int plen;
	int racks;                 /* HOSTS_AUTO or >= 1 */
	int mtu;
	int line;
};

struct hosts {
	char source[256];
	int n;
	struct fabric_host h[HOSTS_MAX];
};

/* Read and validate; -1 with "FILE:LINE: problem" in err. */
int hosts_load(struct hosts *hs, const char *path, char err[HOSTS_ERR_LEN]);
int hosts_load_string(struct hosts *hs, const char *text, const char *name, char err[HOSTS_ERR_LEN]);
/* Write hosts back in the file's form (the same partition follows). */
int hosts_format(const struct hosts *hs, char *buf, size_t len);
int hosts_find(const struct hosts *hs, const char *name);

/* Which host carries each rack. */
struct layout {
	int nhosts;
	int host_of[TOPO_MAX_RACKS];
	int racks[HOSTS_MAX];      /* racks per host */
	double load[HOSTS_MAX];    /* sum of its racks' weights (bits/s) */
	int eps_host;              /* the host of the EPS core: most racks, first of equals */
	int mtu;                   /* every fabric interface's MTU: min underlay - 50, at most 1500 */
};

/* A rack's weight: the rates of every link it terminates (its servers',
 * its uplink, its optical ports), what its host must forward. */
double hosts_rack_weight(const struct topo *t, int rack);
/* Whole racks: hosts with a count get exactly that many, the rest go to the
 * `auto` hosts; each rack, heaviest first, to the least loaded host that
 * may still take one.  -1 with err ("FILE:LINE: ...") if counts cannot add
 * up or a host would get no rack. */
int hosts_partition(const struct hosts *hs, const struct topo *t, struct layout *l, char err[HOSTS_ERR_LEN]);
#endif
