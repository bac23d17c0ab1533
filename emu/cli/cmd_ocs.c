/* emu ocs — run the OCS controller alone on a fabric that is up, replaying a
 * demand schedule.  For experiments with the OCS itself and for tests:
 *
 *   emu ocs --prefix P --demand FILE [--interval S] [--delta S] [--guard S]
 *           [--scope all|changed] [--duration S] [--log FILE] [--rt]
 *
 * The schedule has one line per change, "T SRC DST BYTES": from T seconds on,
 * BYTES are pending from rack SRC to rack DST.  Every interval the controller
 * computes a max-weight matching on the pending demand and reconfigures. */
#include "emu/cli/cmds.h"
#include "emu/demand.h"
#include "emu/ocs_ctl.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Leakage: circuit-marked bytes the ToRs sent over their uplinks. */
static uint64_t marked_eps_bytes(struct fabric *f)
{
	struct link_stats *ls;
	int n;
	uint64_t sum = 0;
	if (fabric_stats(f, &ls, &n))
		return 0;
	for (int i = 0; i < n; i++)
		sum += ls[i].marked_tx_bytes;
	free(ls);
	return sum;
}

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static int parse_seconds(const char *opt, const char *v, double lo, double hi, double *out)
{
	char *end;
	double x = strtod(v, &end);
	if (*end || !(x >= lo && x <= hi)) {
		fprintf(stderr, "emu ocs: %s '%s': expected seconds in [%g, %g]\n", opt, v, lo, hi);
		return -1;
	}
	*out = x;
	return 0;
}

int cmd_ocs(int argc, char **argv)
{
	static const struct option opts[] = {
		{"prefix", required_argument, 0, 'p'}, {"demand", required_argument, 0, 'd'},
		{"interval", required_argument, 0, 'i'}, {"delta", required_argument, 0, 'D'},
		{"guard", required_argument, 0, 'g'}, {"scope", required_argument, 0, 's'},
		{"duration", required_argument, 0, 'T'}, {"log", required_argument, 0, 'l'},
		{"rt", no_argument, 0, 'r'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	const char *prefix = cli_default_prefix();
	const char *demand = NULL, *log = NULL;
	double duration = -1;
	int rt = 0, c;
	struct ocs_params p;
	ocs_params_default(&p);
	while ((c = getopt_long(argc, argv, "p:d:i:D:g:s:T:l:rh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': prefix = optarg; break;
		case 'd': demand = optarg; break;
		case 'i': if (parse_seconds("--interval", optarg, 0.01, 3600, &p.interval_s)) return 2; break;
		case 'D': if (parse_seconds("--delta", optarg, 0, 10, &p.delta_s)) return 2; break;
		case 'g': if (parse_seconds("--guard", optarg, 0, 10, &p.guard_s)) return 2; break;
		case 'T': if (parse_seconds("--duration", optarg, 0, 1e6, &duration)) return 2; break;
		case 'l': log = optarg; break;
		case 'r': rt = 1; break;
		case 's':
			if (!strcmp(optarg, "all"))
				p.scope = OCS_DARK_ALL;
			else if (!strcmp(optarg, "changed"))
				p.scope = OCS_DARK_CHANGED;
			else {
				fprintf(stderr, "emu ocs: --scope '%s': expected all or changed\n", optarg);
				return 2;
			}
			break;
		case 'h':
			printf("usage: emu ocs --demand FILE [--prefix P] [--interval S] [--delta S] [--guard S]\n"
			       "               [--scope all|changed] [--duration S] [--log FILE] [--rt]\n"
			       "Run the OCS controller on the fabric PREFIX (netctl up first), replaying FILE:\n"
			       "lines 'T SRC DST BYTES' set the pending demand from rack SRC to DST at T seconds.\n"
			       "  --interval S   reconfiguration interval (default 1)\n"
			       "  --delta S      reconfiguration delay, dark time of the switch (default 0.010)\n"
			       "  --guard S      senders are told this long before circuits go dark (default 0.002)\n"
			       "  --scope        all: the whole OCS goes dark on a change (default); changed: only\n"
			       "                 the ports that change\n"
			       "  --duration S   stop after S seconds (default: last change + 2 intervals)\n"
			       "  --log FILE     CSV of every reconfiguration\n"
			       "  --rt           run at real-time priority (SCHED_FIFO) for precise timing\n");
			return 0;
		default: return 2;
		}
	}
	if (!demand || optind != argc) {
		fprintf(stderr, "emu ocs: %s (see emu ocs --help)\n", demand ? "unexpected argument" : "--demand FILE is required");
		return 2;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "emu ocs: needs root (it reconfigures the fabric's namespaces)\n");
		return 2;
	}
	char err[FABRIC_ERR_LEN];
	struct fabric *f = fabric_open(prefix, err);
	if (!f) {
		fprintf(stderr, "emu ocs: %s\n", err);
		return 2;
	}
	struct demand_step *steps;
	int nsteps, rc = 0;
	if (demand_schedule_read(demand, f->topo.racks, &steps, &nsteps, err)) {
		fprintf(stderr, "emu ocs: %s\n", err);
		fabric_close(f);
		return 2;
	}
	if (duration < 0)
		duration = (nsteps ? steps[nsteps - 1].t : 0) + 2 * p.interval_s;
	struct ocs_ctl ctl;
	if (ocs_ctl_init(&ctl, f, &p, NULL, log, err)) {
		fprintf(stderr, "emu ocs: %s\n", err);
		free(steps);
		fabric_close(f);
		return 2;
	}
	if (rt && ocs_realtime())
		fprintf(stderr, "emu ocs: warning: cannot run at real-time priority: %s\n", strerror(errno));
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	uint64_t leak0 = marked_eps_bytes(f);
	printf("%8s %8s %8s %8s %9s  %s\n", "t(s)", "drain", "dark", "apply", "served%", "configuration");
	double t0 = ocs_mono(), dark_sum = 0, dark_max = 0, apply_sum = 0;
	int next_step = 0;
	for (int k = 0; !stop; k++) {
		double tick = t0 + k * p.interval_s;
		if (tick - t0 > duration + 1e-9)
			break;
		struct timespec ts = {(time_t)tick, (long)((tick - (double)(time_t)tick) * 1e9)};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop)
			;
		if (stop)
			break;
		for (; next_step < nsteps && steps[next_step].t <= tick - t0 + 1e-9; next_step++)
			ocs_demand_set(&ctl, steps[next_step].src, steps[next_step].dst, steps[next_step].bytes);
		struct ocs_event ev;
		if (ocs_tick(&ctl, &ev, err)) {
			fprintf(stderr, "emu ocs: %s\n", err);
			rc = 1;
			break;
		}
		if (!ev.changed)
			continue;
		char spec[4096];
		circuits_format(&ev.cfg, spec, sizeof spec);
		printf("%8.3f %6.2fms %6.2fms %6.3fms %8.1f%%  %s\n", tick - t0, ev.drain_s * 1e3, ev.dark_s * 1e3,
		       ev.apply_ms, ev.demand ? 100.0 * (double)ev.served / (double)ev.demand : 0.0, spec);
		fflush(stdout);
		dark_sum += ev.dark_s;
		apply_sum += ev.apply_ms;
		if (ev.dark_s > dark_max)
			dark_max = ev.dark_s;
	}
	if (ctl.reconfigs)
		printf("%lu reconfigurations in %lu intervals; dark mean %.2f ms, max %.2f ms; apply mean %.3f ms\n",
		       ctl.reconfigs, ctl.ticks, dark_sum / ctl.reconfigs * 1e3, dark_max * 1e3,
		       apply_sum / ctl.reconfigs);
	else
		printf("no reconfiguration in %lu intervals\n", ctl.ticks);
	printf("circuit-marked bytes sent over the EPS meanwhile: %llu\n",
	       (unsigned long long)(marked_eps_bytes(f) - leak0));
	ocs_ctl_free(&ctl);
	free(steps);
	fabric_close(f);
	return rc;
}
