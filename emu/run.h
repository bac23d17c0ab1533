/* run.h — one experiment run: the resource manager and a scheduler, the OCS
 * controller on live demand, results on disk, on one of two backends:
 *
 *   emu  a fabric of namespaces, one agent per server, real packets, wall
 *        clock (backend_emu.c: an epoll loop; the OCS controller on its own
 *        thread because a reconfiguration blocks for guard + drain + δ);
 *   sim  a flow-level model of the same topology, max-min fair sharing,
 *        virtual clock (backend_sim.c, sim_net.c): paper scale in seconds,
 *        no root. */
#ifndef EMU_RUN_H
#define EMU_RUN_H
#include "emu/ocs_ctl.h"
#include "emu/workload.h"
#include "netctl/topo.h"
#include <stdbool.h>

/* Headers only: Ethernet, IP and TCP with options fit in 128 bytes, and a
 * run moves gigabytes of shuffle payload. */
#define RUN_CAPTURE_SNAPLEN 128

struct sched_ops;
struct web_pub;
struct hosts;

struct run_params {
	const char *backend;         /* "emu" (default) or "sim" */
	const char *prefix;          /* fabric prefix, default "emu" */
	const char *scheduler;       /* default "fair"; a policy or an alias (emu/sched/registry.c) */
	const struct sched_ops *sched_ops;   /* a policy of the caller's own, instead of `scheduler` (tests) */
	const char *const *sched_opts;   /* the scheduler's options, "KEY=VALUE" each (emu/sched.h) */
	int nsched_opts;
	const char *results_root;    /* default "results" */
	const char *experiment;      /* default "default" */
	const char *run_name;        /* default: timestamp */
	double slowstart;            /* default 0.05 (Hadoop) */
	bool semi_clairvoyant;       /* task sizes hidden from the scheduler until their stage may run */
	uint64_t elephant_bytes;     /* circuit-eligible above this (default 1.125 GB x data_scale) */
	bool hold;                   /* circuit-eligible bytes wait for a circuit (default) or fall back */
	struct ocs_params ocs;
	double heartbeat_s;          /* offers of idle containers and scheduler ticks (default 0.2) */
	double monitor_s;            /* network monitor sample period: links.csv, rack utilisation (default 1) */
	bool no_flows;               /* flows.csv not written (its totals in summary.json stay) */
	double sim_quantum_s;        /* sim: least time between bandwidth reallocations (default 0.01; 0 = every change) */
	double node_wait_s, rack_wait_s;   /* delay scheduling */
	int copiers;                 /* parallel fetches per reduce (default 5) */
	double recovery_s;           /* a suspended task's delay when it resumes (default 1) */
	int output_replicas;         /* a job's output: 1 on the server that wrote it (default), or
					3: and two servers of another rack, as HDFS (writes not modelled) */
	double stall_timeout_s;      /* agents: s without progress on a data connection (default 120; 0 = never) */
	int stall_retries;           /* agents: resumptions of a stalled fetch before its task fails (default 3) */
	double timeout_s;            /* stop the run (marked partial) after this (default 3600) */
	double slowdown;             /* emu: wall seconds per run second, slow motion (default 1) */
	/* emu: pcap files of fabric interfaces, capture-HOST-IFACE.pcap beside
	 * the results (captures.h) */
	const char *const *captures; /* HOST[:IFACE] each */
	int ncaptures;
	const char *capture_filter;  /* tcpdump's syntax, for every capture (NULL: every packet) */
	int capture_snaplen;         /* bytes kept of each packet (default RUN_CAPTURE_SNAPLEN) */
	unsigned long seed;
	bool quiet;
	bool keep_fabric;            /* leave the fabric up afterwards */
	const struct hosts *hosts;   /* emu: the fabric over these emulated hosts (netctl/hosts.h); NULL: this one */
	const char *agent_path;      /* default: emu-agent beside the emu binary */
	char *dir_out;               /* if set (512 bytes): where the results went, once they are prepared */
	struct web_pub *web;         /* if set: a snapshot for the live view every sample (emu/web/publish.h) */
};
void run_params_default(struct run_params *p);

/* Everything is set up and torn down inside; on the emu backend the fabric
 * is built from t (must not exist yet).  Returns 0 if every job finished, 1 if the run
 * stopped early (signal, timeout, servers lost: results marked partial), -1
 * on setup failure with err. */
int run_experiment(const struct topo *t, struct workload *w, const struct run_params *p, char err[512]);

/* Set by a signal handler to stop the run cleanly. */
extern volatile int run_stop_requested;
#endif
