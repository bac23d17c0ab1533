/* ocs_ctl.h — the OCS controller: demand in, circuits out, on time.
 *
 * It keeps the demand matrix (pending circuit-eligible bytes per ordered
 * rack pair, as the senders report it) and, every interval, computes a
 * max-weight matching (emu/ocs_match.h) that prefers the circuits already
 * lit among equal optima.  An unchanged configuration costs nothing.  A
 * change follows a fixed sequence, because the naive one loses packets:
 *
 *   1. announce  tell the senders (hook) which circuits are about to go, then
 *                wait the guard time so they stop writing circuit traffic;
 *   2. dark      remove the ToRs' circuit routes: every circuit (scope
 *                OCS_DARK_ALL, the dissertation's model: no traffic uses the
 *                OCS during a reconfiguration) or only those that change;
 *   3. drain     wait (bounded) until the optical queues that change are
 *                empty: a queued packet would reach a rack whose MAC it does
 *                not carry and be dropped;
 *   4. switch    point the crossbar at the new configuration;
 *   5. delay     wait δ, the switch's reconfiguration time;
 *   6. light     install the new circuits' routes and tell the senders (hook).
 *
 * The drain counts as dark time.  ocs_reconfigure() blocks for guard +
 * drain + δ (~12 ms by default): a controller with an event loop runs it on
 * its own thread, ideally at real-time priority (ocs_realtime()).
 *
 * A fabric over several hosts (netctl/hosts.h) has a crossbar slice per
 * host: the announce goes once, then steps 2, 4 and 6 run on every host in
 * turn (the drain waits for every slice), each host's dark gap measured on
 * its own (ocs_event.host_dark_s; the log gets LOG_hosts.csv beside it). */
#ifndef EMU_OCS_CTL_H
#define EMU_OCS_CTL_H
#include "netctl/fabric.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum ocs_dark_scope { OCS_DARK_ALL, OCS_DARK_CHANGED };

struct ocs_ctl;
struct ocs_event;
/* Optional, for a live view (emu/web): told on the controller's thread of
 * every decision (the demand it saw in c->demand, the configuration chosen)
 * and of every reconfiguration that changed circuits.  Both must be quick
 * and must not block: `decided` runs before the reconfiguration. */
struct ocs_observer {
	void (*decided)(void *arg, const struct ocs_ctl *c, const struct circuit_cfg *next, int64_t served);
	void (*reconfigured)(void *arg, const struct ocs_ctl *c, const struct ocs_event *ev);
	void *arg;
};

struct ocs_params {
	double interval_s;        /* how often to recompute (default 1 s) */
	double delta_s;           /* reconfiguration delay δ (default 10 ms) */
	double guard_s;           /* announce this long before going dark (default 2 ms) */
	double drain_timeout_s;   /* bound on waiting for optical queues (default 50 ms) */
	enum ocs_dark_scope scope;
	bool early;               /* also reconfigure as soon as served circuits' ports could
				     serve a waiting pair (ocs_early_due); default: every interval only */
	double log_slowdown;      /* the log's t_s, drain_s, dark_s: wall seconds / this (the
				     run's own seconds under emu run --slowdown; default 1) */
	struct ocs_observer observer;   /* default none */
};
void ocs_params_default(struct ocs_params *p);
/* Slow motion (emu run --slowdown k): every time above k times as long in
 * wall seconds, and the log in the run's own seconds (log_slowdown = k). */
void ocs_params_slow_down(struct ocs_params *p, double k);

struct ocs_hooks {
	/* Circuits in `going` (a subset of what is lit) go dark soon. */
	void (*announce)(void *arg, const struct circuit_cfg *going);
	/* `lit` is now usable. */
	void (*lit)(void *arg, const struct circuit_cfg *lit);
	void *arg;
};

/* What one reconfiguration did, with wall-clock (CLOCK_REALTIME) stamps so
 * it lines up with packet captures. */
struct ocs_event {
	int changed;              /* outputs that changed; 0 = nothing happened */
	double t_announce, t_dark, t_switch, t_lit;   /* epoch seconds */
	double drain_s;           /* time waiting for queues (-1: timed out) */
	double dark_s;            /* t_lit - t_dark */
	double apply_ms;          /* control-plane time: routes + crossbar netlink work */
	int64_t served, demand;   /* demand the new configuration serves / total */
	struct circuit_cfg cfg;
	/* A fabric over several hosts goes through each step host by host
	 * (its ToRs, its crossbar slice): each host's own dark gap, from its
	 * ToRs' routes removed to its ToRs' new routes in (wall seconds). */
	int hosts;
	double host_dark_s[HOSTS_MAX];
};

struct ocs_ctl {
	struct fabric *fab;       /* NULL for a virtual OCS (the simulator) */
	const struct topo *topo;
	const struct circuit_cfg *cur;   /* what the crossbar is set to now */
	struct ocs_params p;
	struct ocs_hooks hooks;
	int racks, ports;
	int64_t *demand;          /* racks x racks, row = source */
	FILE *log;                /* CSV, one line per reconfiguration (NULL = none) */
	FILE *host_log;           /* over several hosts: LOG_hosts.csv, a line per host and reconfiguration */
	char *host_log_tmp;       /* its name while written, if LOG was a .tmp: renamed at free */
	double t0;                /* epoch seconds at init, for the log */
	unsigned long reconfigs, ticks;
	unsigned long *rack_changes;   /* per rack: reconfigurations that darkened or lit one of its circuits */
};

/* f must be an OCS fabric.  log_path may be NULL.  -1 with err on failure. */
int ocs_ctl_init(struct ocs_ctl *c, struct fabric *f, const struct ocs_params *p,
		 const struct ocs_hooks *hooks, const char *log_path, char err[FABRIC_ERR_LEN]);
/* A controller without a fabric: the simulator keeps `cur` and applies
 * configurations itself; decide and the log work the same. */
int ocs_ctl_init_virtual(struct ocs_ctl *c, const struct topo *t, const struct circuit_cfg *cur,
			 const struct ocs_params *p, const char *log_path, char err[FABRIC_ERR_LEN]);
void ocs_ctl_free(struct ocs_ctl *c);

void ocs_demand_set(struct ocs_ctl *c, int src, int dst, int64_t bytes);
void ocs_demand_add(struct ocs_ctl *c, int src, int dst, int64_t delta);   /* floors at 0 */
int64_t ocs_demand_get(const struct ocs_ctl *c, int src, int dst);

/* The configuration the current demand asks for (ties keep lit circuits). */
int ocs_decide(struct ocs_ctl *c, struct circuit_cfg *next, int64_t *served);
/* Move the fabric to `next` by the sequence above.  ev may be NULL. */
int ocs_reconfigure(struct ocs_ctl *c, const struct circuit_cfg *next, struct ocs_event *ev,
		    char err[FABRIC_ERR_LEN]);
/* Count a reconfiguration from `lit` to `next` (ocs_reconfigure does; the
 * simulator, which applies configurations itself, too), and the racks whose
 * circuits it darkens or lights: their senders pause meanwhile (hold mode),
 * which the fidelity check must not take for a slow machine. */
void ocs_count_reconfig(struct ocs_ctl *c, const struct circuit_cfg *lit, const struct circuit_cfg *next);
/* rack_changes[rack], safe to read while the controller thread runs. */
unsigned long ocs_rack_changes(const struct ocs_ctl *c, int rack);
/* Early reconfiguration (p.early): a configuration lit for `lit_for_s`
 * gives way before the interval is up when a rack pair that is not lit has
 * demand and could be lit on ports that are dark or whose circuit's demand
 * is 0 (busy circuits are re-chosen by the matching, which keeps them if
 * they still weigh most), once it has been lit for 9δ — the
 * dissertation's minimum configuration length for 90% OCS utilisation
 * (§4.1.2: "the average duration of each configuration should be at least
 * 9δ"), which is also what its elephant threshold E = 9δ·bw_o assumes: a
 * circuit that carries E and then idles for the rest of a 1 s interval is
 * used 9% of the time.  Only zero / non-zero of c->demand matters. */
bool ocs_early_due(const struct ocs_ctl *c, double lit_for_s);
/* How long a configuration stays lit before it may give way early: 9δ. */
double ocs_early_hold_s(const struct ocs_ctl *c);
/* decide + reconfigure + log: what the controller does every interval. */
int ocs_tick(struct ocs_ctl *c, struct ocs_event *ev, char err[FABRIC_ERR_LEN]);
/* One line of the CSV log for a reconfiguration that happened (ev->changed),
 * stamps relative to t0 (the simulator's are run time, t0 = 0). */
void ocs_log_event(struct ocs_ctl *c, const struct ocs_event *ev);

/* The controller's clock: CLOCK_MONOTONIC seconds, and a sleep until such a time. */
double ocs_mono(void);
void ocs_sleep_until(double t);

/* Ask for SCHED_FIFO and locked memory, so δ is kept on a loaded machine.
 * Returns 0, or -1 (not permitted) — the controller then runs, less precisely. */
int ocs_realtime(void);
#endif
