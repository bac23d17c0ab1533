/* fidelity.c — does a run measure the emulated network, or this machine?
 *
 * Three signs that the machine, not the emulated network, set the pace:
 *
 *  - a queue that stood through a sampling interval (backlogged at both
 *    ends) without dropping, yet its link sent below 80% of its rate: a
 *    shaper with packets and room should send at its rate, so the CPU did
 *    not dequeue them in time.  A queue that dropped is left out: its TCP
 *    senders were backing off (fast retransmit, 200 ms RTOs), which idles a
 *    shallow-buffered link between two backlogged instants on a real switch
 *    too.  Left out too, as `paused`: a link whose queue dropped in the
 *    interval before (its senders may still wait out an RTO), and a rack's
 *    server and optical links while its circuits were reconfigured (hold
 *    mode pauses their senders for the dark time).  Each sent some 50-60%
 *    of its rate with a backlog at both instants: all 12 such link-seconds
 *    of a JobPacker batch (GENI, seed 4) fell in a reconfiguration of their
 *    rack, 11 of an F-Hybrid batch's 14 after a drop.  Halving every rate
 *    (twice the CPU headroom) did not make such link-seconds rarer, and
 *    left the results the same.  A slow link whose queue held
 *    packets at both instants is looked at again once it could have sent
 *    them: a port fed by faster senders (GENI's slots send at 1 Gb/s into
 *    100 Mb/s ports) holds a burst at many instants while idle most of the
 *    second.  If it sent what it held, it kept up (`bursts`); only one that
 *    did not counts as slow.  Four F-EPS runs had 40-100% of their
 *    standing link-seconds slow; at half every rate and twice every time
 *    they gave the same JCTs and as many slow link-seconds;
 *  - packets the kernel dropped because a CPU's input backlog overflowed
 *    (softnet "dropped"): loss the emulated network does not have;
 *  - CPUs saturated for most of the run;
 *  - reconfigurations that kept the circuits dark well beyond δ: the
 *    controller's thread, or the netlink work it waits on, did not get the
 *    CPU in time, so the run measured a longer reconfiguration delay than
 *    the one it reports.  On this 2-core machine the GENI runs stay at
 *    δ + 1-2 ms (p99 δ + 5 ms). */
#include "emu/fidelity.h"
#include <math.h>
#include <stdio.h>

#define SLOW_SHARE 0.8   /* of the link rate */
#define CPU_HOT 0.95     /* busy share of all CPUs */
#define RECHECK_SLACK_S 0.002
#define RECHECK_MAX_S 0.05

double fidelity_link(struct fidelity *f, const struct link_stats *prev, const struct link_stats *cur, double tx_bps,
		     double rate_bps, bool paused)
{
	if (!prev->backlog || !cur->backlog)
		return 0;
	if (cur->drops != prev->drops) {
		f->dropping++;
		return 0;
	}
	if (paused) {
		f->paused++;
		return 0;
	}
	if (tx_bps >= SLOW_SHARE * rate_bps) {
		f->standing++;
		return 0;
	}
	/* Long enough for the link to send what it holds. */
	return rate_bps > 0 ? fmin(cur->backlog * 8 / rate_bps + RECHECK_SLACK_S, RECHECK_MAX_S) : RECHECK_MAX_S;
}

void fidelity_recheck(struct fidelity *f, const struct link_stats *then, const struct link_stats *now, double elapsed_s,
		      double rate_bps)
{
	if (now->drops != then->drops) {
		f->dropping++;
		return;
	}
	/* It held `backlog` bytes: a link the CPU keeps up with sends them
	 * (or all its rate allows in the time) before it can idle. */
	double owed = fmin((double)then->backlog, rate_bps * elapsed_s / 8);
	if ((double)(now->tx_bytes - then->tx_bytes) >= SLOW_SHARE * owed) {
		f->bursts++;
		return;
	}
	f->standing++;
	f->slow++;
}

void fidelity_reconfig(struct fidelity *f, double dark_s, double delta_s)
{
	f->reconfigs++;
	if (dark_s > delta_s + FIDELITY_LATE_S)
		f->late++;
}

void fidelity_cpu(struct fidelity *f, double busy_share)
{
	if (busy_share > CPU_HOT)
		f->cpu_hot++;
}

unsigned long long fidelity_softnet_drops(const char *path)
{
	FILE *fp = fopen(path, "r");
	unsigned long long sum = 0;
	unsigned int dropped;
	if (!fp)
		return 0;
	/* One line per CPU, hex columns: processed, dropped, time_squeeze, ... */
	while (fscanf(fp, "%*x %x%*[^\n]", &dropped) == 1)
		sum += dropped;
	fclose(fp);
	return sum;
}

void fidelity_softnet(struct fidelity *f, unsigned long long total)
{
	/* Machine-wide; a CPU going offline takes its count away. */
	f->softnet_dropped = total > f->softnet_base ? total - f->softnet_base : 0;
}

const char *fidelity_verdict(const struct fidelity *f, char *why, size_t len)
{
	if (len)
		why[0] = 0;
	if (f->softnet_dropped > 0) {
		snprintf(why, len, "the kernel dropped %llu packets for lack of CPU (softnet backlog)", f->softnet_dropped);
		return "machine-limited";
	}
	if (f->standing >= 10 && f->slow * 10 > f->standing) {
		snprintf(why, len, "%lu of %lu link-seconds with a standing queue and no drops ran below 80%% of the link rate",
			 f->slow, f->standing);
		return "machine-limited";
	}
	if (f->reconfigs >= 10 && f->late * 10 > f->reconfigs) {
		snprintf(why, len, "%lu of %lu OCS reconfigurations kept the circuits dark over %.0f ms longer than delta",
			 f->late, f->reconfigs, FIDELITY_LATE_S * 1e3);
		return "machine-limited";
	}
	if (f->samples >= 5 && f->cpu_hot * 2 > f->samples) {
		snprintf(why, len, "the CPU was saturated in %lu of %lu monitor samples", f->cpu_hot, f->samples);
		return "machine-limited";
	}
	return "ok";
}
