/* hostfab.h — a fabric over several hosts, from the controller's side.
 *
 * Up: the hosts' partition, the LAN and machines when the hosts are
 * emulated (netctl/lan.h), then every host's part (fabric_up_part) started
 * on its host by the launcher (netctl/launch.h) as `netctl host-up`, all at
 * once; the state of /run/emu/PREFIX gets the hosts file beside the
 * topology, which is how fabric_open finds the crossbar's slices.  Down:
 * `netctl host-down` on every host, then what is left of the prefix here. */
#ifndef NETCTL_HOSTFAB_H
#define NETCTL_HOSTFAB_H
#include "netctl/fabric.h"
#include "netctl/hosts.h"
#include <stddef.h>

/* The per-host part's input: the effective topology and the hosts file. */
char *hostfab_encode(const struct topo *t, const struct hosts *hs);
int hostfab_decode(const char *in, struct topo *t, struct hosts *hs, char err[FABRIC_ERR_LEN]);

int fabric_up_hosts(const struct topo *t, const struct hosts *hs, const char *prefix, const char *netctl,
		    struct fabric_timing *tm, char err[FABRIC_ERR_LEN]);
/* Every host's part, then the machines, the LAN and the state here.
 * Returns the namespaces removed on this machine (-1 if a host failed). */
int fabric_down_hosts(const struct hosts *hs, const char *prefix, const char *netctl, int *killed);
/* On a host: remove every PREFIX-* namespace but the LAN's and the
 * machines', with their processes, and the prefix's state. */
int fabric_down_part(const char *prefix, int *killed);
#endif
