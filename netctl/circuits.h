/* circuits.h — OCS configurations: which optical port sends to which rack.
 *
 * A configuration maps (rack, port) to the rack that port's circuit reaches,
 * or -1.  Directed mode (the default, Helios style) only requires each rack
 * to send to at most one rack and receive from at most one per port; in
 * bidirectional mode (c-Through style) every circuit must be paired with its
 * reverse.  Port p of one rack always connects to port p of another. */
#ifndef NETCTL_CIRCUITS_H
#define NETCTL_CIRCUITS_H
#include "netctl/topo.h"
#include <stdint.h>

struct circuit_cfg {
	int racks, ports;
	int16_t out[TOPO_MAX_PORTS][TOPO_MAX_RACKS];
};

void circuits_clear(struct circuit_cfg *c, const struct topo *t);
/* Parse "0>3,3>0,1-2" (directed 0->3, 3->0, and 1<->2) with optional port
 * suffix "@P" (default 0), into c (cleared first).  "" or "none" is the
 * empty configuration.  Validates against t.  -1 with err on bad input. */
int circuits_parse(const char *spec, const struct topo *t, struct circuit_cfg *c, char err[256]);
int circuits_validate(const struct circuit_cfg *c, const struct topo *t, char err[256]);
/* Canonical text form: "0>3,1>2@1" ("none" when empty). */
void circuits_format(const struct circuit_cfg *c, char *buf, size_t len);
/* Number of (rack, port) outputs whose target differs. */
int circuits_changed(const struct circuit_cfg *a, const struct circuit_cfg *b);
#endif
