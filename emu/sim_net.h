/* sim_net.h — the simulator's network: flows over capacities, shared
 * max-min fairly.
 *
 * The same topology file as the emulator: per server a link to its ToR in
 * each direction (server rate), per rack an EPS uplink in each direction
 * (where oversubscription lives), per rack and optical port an OCS link in
 * each direction.  A flow's path is what the emulator's routing gives it:
 * intra-rack via the ToR; cross-rack over the EPS, or — when it is
 * circuit-eligible and a circuit from its rack to the destination's is lit —
 * over that circuit.  An eligible flow without a lit circuit is held (rate
 * 0, "hold" mode: the emulator's agents do not send it) or takes the EPS
 * ("fallback").
 *
 * Each server's disk is two more capacities, its read and its write rate
 * (the topology's disk_read_mbps and disk_write_mbps; a rate not given is
 * no capacity): a disk I/O (simnet_add_io) crosses the source's read side
 * and/or the destination's write side, and the network between them when
 * they differ, so disks and links are shared in the one filling.
 *
 * Rates are recomputed by progressive filling when simnet_allocate() is
 * called (the backend does it after every change, or at most once per
 * quantum); between allocations they are constant, so completion times are
 * exact.  Capacities are payload rates: TCP/IP framing (1448 payload bytes
 * in a 1514-byte frame) is taken off, and the counters count frames — and
 * the reverse direction's ACKs — as the emulator's links do. */
#ifndef EMU_SIM_NET_H
#define EMU_SIM_NET_H
#include "emu/disk.h"
#include "netctl/circuits.h"
#include "netctl/fabric.h"
#include "netctl/topo.h"
#include <stdbool.h>
#include <stdint.h>

struct simnet;

struct simnet *simnet_new(const struct topo *t, bool hold);
void simnet_free(struct simnet *n);

/* A flow of `bytes` payload from server src to dst, starting at `now` (its
 * rate is 0 until the next allocation).  Returns a handle >= 0, -1 on OOM. */
int simnet_add(struct simnet *n, double now, int src, int dst, uint64_t bytes, bool circuit, int64_t tag);
/* simnet_add, with disk I/O: read off src's disk and/or written to dst's
 * (`disks`: DISK_READ, DISK_WRITE, emu/disk.h), over the network when src != dst.  One that crosses no
 * capacity at all (local, its disks not limited) ends at the next
 * allocation. */
int simnet_add_io(struct simnet *n, double now, int src, int dst, uint64_t bytes, bool circuit, unsigned disks,
		  int64_t tag);
/* Does server s's disk limit any of `disks`? */
bool simnet_disk_limited(const struct simnet *n, int s, unsigned disks);
/* Which circuits carry traffic now (a subset of the crossbar's). */
void simnet_set_lit(struct simnet *n, const struct circuit_cfg *lit);
/* Whether the circuit from rack src to rack dst is lit (the last set_lit). */
bool simnet_lit(const struct simnet *n, int src, int dst);
/* Max-min fair rates for every flow, as of `now`. */
void simnet_allocate(struct simnet *n, double now);
/* Changed since the last allocation (flows, circuits)? */
bool simnet_dirty(const struct simnet *n);
/* The earliest completion at the current rates (INFINITY if none), and its flow. */
double simnet_next_done(const struct simnet *n, int *flow);
/* Remove a flow at `now` (done, or aborted); returns its tag and, in
 * *bytes (may be NULL), the size it was added with. */
int64_t simnet_remove(struct simnet *n, int flow, double now, uint64_t *bytes);
int simnet_active(const struct simnet *n);
/* Allocations so far that kept every older flow's rate and set only the new
 * flows' (see sim_net.c): the others filled all the flows. */
long long simnet_kept(const struct simnet *n);
/* Payload rate (bytes/s) and remaining bytes of a flow, for tests. */
double simnet_rate(const struct simnet *n, int flow);
double simnet_remaining(const struct simnet *n, int flow, double now);
/* Active circuit-eligible flows from rack src to rack dst (cheap: counted). */
int simnet_circuit_flows(const struct simnet *n, int src, int dst);
/* Remaining circuit-eligible bytes per ordered rack pair: demand[src * racks + dst]. */
void simnet_demand(const struct simnet *n, double now, int64_t *demand);
/* Cumulative counters of every ToR-facing link as of `now` (the layout of
 * fabric_stats); *out is malloc'd. */
int simnet_stats(struct simnet *n, double now, struct link_stats **out, int *count);
#endif
