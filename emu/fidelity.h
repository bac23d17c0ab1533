/* fidelity.h — does a run measure the emulated network, or this machine?
 *
 * One machine has a ceiling.  The monitor feeds this every second; the
 * summary asks it for a verdict. */
#ifndef EMU_FIDELITY_H
#define EMU_FIDELITY_H

#include "netctl/fabric.h"
#include <stdbool.h>
#include <stddef.h>

struct fidelity {
	unsigned long samples;      /* monitor samples (about one per second) */
	unsigned long cpu_hot;      /* of them, with every CPU over 95% busy */
	unsigned long standing;     /* link-samples whose queue stood through the interval without dropping */
	unsigned long slow;         /* of those, sending below 80% of the link's rate */
	unsigned long bursts;       /* slow link-samples whose link, looked at again, had sent what it held:
				       bursts caught at both instants, not a queue the CPU left standing */
	unsigned long dropping;     /* link-samples whose queue overflowed (TCP backs off: the network's doing) */
	unsigned long paused;       /* link-samples whose senders the network paused: a drop before, circuits reconfigured */
	unsigned long long softnet_base, softnet_dropped;   /* kernel input-backlog drops: at the start, since */
	/* Written by the OCS controller's thread only, read once it has stopped. */
	unsigned long reconfigs;    /* reconfigurations that changed circuits */
	unsigned long late;         /* of them, dark for more than FIDELITY_LATE_S beyond δ */
};

#define FIDELITY_LATE_S 0.010

/* One link over one sampling interval: its counters before and after and
 * what it sent meanwhile, against its rate (both bits/s); `paused` when the
 * network paused its senders during the interval (fidelity.c).  Returns
 * the time after which to look at the link again (fidelity_recheck) when
 * its queue looked standing yet it sent slowly, else 0. */
double fidelity_link(struct fidelity *f, const struct link_stats *prev, const struct link_stats *cur, double tx_bps,
		     double rate_bps, bool paused);

/* The second look at a link fidelity_link asked about: its counters then
 * and now, elapsed_s apart, against its rate (bits/s).  Slow only if it
 * did not send what it held. */
void fidelity_recheck(struct fidelity *f, const struct link_stats *then, const struct link_stats *now, double elapsed_s,
		      double rate_bps);

/* One reconfiguration: how long its circuits were dark (drain, switch, δ,
 * routes) against the δ asked for. */
void fidelity_reconfig(struct fidelity *f, double dark_s, double delta_s);

/* One sample's busy share of all CPUs (0..1). */
void fidelity_cpu(struct fidelity *f, double busy_share);

/* Packets the kernel dropped because a CPU's input backlog overflowed,
 * summed over CPUs, from a softnet_stat file (SOFTNET_STAT); 0 when
 * unreadable. */
#define SOFTNET_STAT "/proc/net/softnet_stat"
unsigned long long fidelity_softnet_drops(const char *path);

/* The kernel's drop count now (fidelity_softnet_drops), against the
 * count at the run's start (softnet_base). */
void fidelity_softnet(struct fidelity *f, unsigned long long total);

/* "ok" or "machine-limited", with the reason in why. */
const char *fidelity_verdict(const struct fidelity *f, char *why, size_t len);

#endif
