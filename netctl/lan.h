/* lan.h — emulated hosts: machines made of namespaces, on one machine.
 *
 * Each host of an `emulated` hosts file is a namespace PREFIX-m-NAME holding
 * its underlay interface (the file's name, address and MTU); the underlays
 * are veths into one bridge in PREFIX-lan, the hosts' LAN.  A host's part of
 * the fabric is built from inside its namespace, so its VXLAN tunnels leave
 * by that underlay and cross that bridge, and never the machine's own
 * interfaces.  Everything carries the prefix and goes with the fabric. */
#ifndef NETCTL_LAN_H
#define NETCTL_LAN_H
#include "netctl/fabric.h"
#include "netctl/hosts.h"

#define LAN_NS "lan"
#define LAN_MACHINE "m-"

void lan_machine_ns(const char *prefix, const char *host, char *buf, size_t len);
/* Make the LAN and one machine per host; on failure removes them. */
int lan_up(const char *prefix, const struct hosts *hs, char err[FABRIC_ERR_LEN]);
/* A namespace of the LAN or a machine (not of a fabric part). */
bool lan_owns(const char *ns_name, void *prefix);
#endif
