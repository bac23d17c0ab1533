/* run.h — one experiment run on the emulator backend: a fabric, one agent
 * per server, the resource manager and a scheduler, the OCS controller on
 * live demand, results on disk.
 *
 * The controller is one event loop (epoll + timerfd) on the main thread; the
 * OCS controller has its own thread because a reconfiguration blocks for
 * guard + drain + δ and must keep its timing while the loop works. */
#ifndef EMU_RUN_H
#define EMU_RUN_H
#include "emu/ocs_ctl.h"
#include "emu/workload.h"
#include "netctl/topo.h"
#include <stdbool.h>

struct run_params {
	const char *prefix;          /* fabric prefix, default "emu" */
	const char *scheduler;       /* default "fair" */
	const char *results_root;    /* default "results" */
	const char *experiment;      /* default "default" */
	const char *run_name;        /* default: timestamp */
	double slowstart;            /* default 0.05 (Hadoop) */
	uint64_t elephant_bytes;     /* circuit-eligible above this (default 1.125 GB x data_scale) */
	bool hold;                   /* circuit-eligible bytes wait for a circuit (default) or fall back */
	struct ocs_params ocs;
	double heartbeat_s;          /* offers of idle containers and scheduler ticks (default 0.2) */
	double node_wait_s, rack_wait_s;   /* delay scheduling */
	int copiers;                 /* parallel fetches per reduce (default 5) */
	double timeout_s;            /* stop the run (marked partial) after this (default 3600) */
	unsigned long seed;
	bool quiet;
	bool keep_fabric;            /* leave the fabric up afterwards */
	const char *agent_path;      /* default: emu-agent beside the emu binary */
};
void run_params_default(struct run_params *p);

/* Everything is set up and torn down inside; the fabric is built from t
 * (must not exist yet).  Returns 0 if every job finished, 1 if the run
 * stopped early (signal, timeout, agents lost: results marked partial), -1
 * on setup failure with err. */
int run_experiment(const struct topo *t, struct workload *w, const struct run_params *p, char err[512]);

/* Set by a signal handler to stop the run cleanly. */
extern volatile int run_stop_requested;
#endif
