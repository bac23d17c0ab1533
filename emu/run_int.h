/* run_int.h — the state of a run, shared by run.c (the core: arrivals,
 * heartbeats, task dispatch, faults), shuffle.c (transfers), xfers.c (their
 * record), monitor.c (links, fidelity, progress), results.c (files) and the
 * backends.  Not for schedulers: they see emu/cluster.h. */
#ifndef EMU_RUN_INT_H
#define EMU_RUN_INT_H
#include "emu/cluster.h"
#include "emu/fidelity.h"
#include "emu/flow_log.h"
#include "emu/ocs_ctl.h"
#include "emu/proto.h"
#include "emu/run.h"
#include "emu/sched.h"
#include <stdio.h>

struct run;

/* A backend carries out what the core decides: the emulator (namespaces,
 * one agent per server, real packets, wall clock: backend_emu.c) or the
 * flow-level simulator (max-min shared capacities, virtual clock:
 * backend_sim.c).  It reports back through run_task_done, run_flow_done and
 * run_server_lost; the scheduler, resource manager, shuffle and results
 * code cannot tell which one runs. */
struct backend_ops {
	const char *name;
	bool wallclock;           /* real time: the machine can fall behind (fidelity checks) */
	/* It keeps the records of the transfers fetch() hands it (xfer_new
	 * keeps none) and gives each to xfer_record when it ends, or at stop()
	 * as not done. */
	bool keeps_xfers;
	/* Build the network and what runs tasks, and the OCS controller when
	 * the topology has one (r->ocs_on, r->ocs logging to ocs.csv.tmp);
	 * the clock starts at 0 when it returns. */
	int (*setup)(struct run *r, char err[512]);
	/* The loop is over: stop the OCS controller and the task runners. */
	void (*stop)(struct run *r);
	/* Release everything (also after a failed or partial setup). */
	void (*teardown)(struct run *r);
	double (*now)(const struct run *r);
	/* Deliver what happened, waiting at most until `deadline` (run time). */
	void (*poll)(struct run *r, double deadline);
	/* Run task t on server: a map reads its input from input_src (-1 =
	 * local disk) then computes; a reduce waits for fetch() calls. */
	void (*start_task)(struct run *r, struct task *t, int server, int input_src);
	/* Transfers a running reduce must fetch; final = no more will follow. */
	void (*fetch)(struct run *r, struct task *reduce, const struct xfer *xs, int n, bool final);
	/* Optional: fetch() for this reduce and holder comes soon; bring what
	 * it touches into the cache (a hint: the pump of a job sends one
	 * transfer to each of thousands of reduces, a cache miss each). */
	void (*warm)(const struct run *r, const struct task *reduce, int holder);
	/* Preemption of a running task: kill (stop it; it reports nothing
	 * more), or suspend (stop its compute and transfers, keeping what is
	 * done); resume a suspended one after `delay` s (the recovery delay). */
	void (*preempt)(struct run *r, struct task *t, enum preempt_op op);
	void (*resume)(struct run *r, struct task *t, double delay);
	/* Optional: move a copy (cluster_copy: `bytes` off src's disk onto
	 * dst's) and report it with run_copy_done; without it a copy is done
	 * at once. */
	void (*copy)(struct run *r, int id, int src, int dst, uint64_t bytes);
	/* Counters of every ToR-facing link (cumulative; *out malloc'd). */
	int (*stats)(struct run *r, struct link_stats **out, int *n);
	/* Why the backend cannot go on (OCS controller failed, ...), or NULL. */
	const char *(*failure)(struct run *r);
	/* Optional: the backend's own figures for summary.json (a new JSON
	 * object, under its name), or NULL. */
	struct json_t *(*summary)(struct run *r);
};
extern const struct backend_ops backend_emu, backend_sim;
const struct backend_ops *backend_find(const char *name);

/* Fetches by where they cross: inside a rack, over the EPS, circuit-eligible. */
enum fetch_class { FETCH_IN_RACK, FETCH_EPS, FETCH_CIRCUIT, FETCH_CLASSES };

/* One transfer: what a reduce fetches from one map-output holder in one
 * request (all the outputs available there), or a map's remote input. */
struct xfer_rec {
	int id;                  /* -1 = free slot of the in-flight table */
	int job, task, src, dst;
	uint64_t bytes;
	bool circuit, input, local, done;
	double t_start, t_end;   /* s since the run started (start = when requested) */
	double t_moved;          /* when its bytes began to move (-1: not yet): a fetch
				    may wait for a copier or, in hold mode, its circuit */
};

struct run {
	struct run_params p;
	const struct topo *t;
	const struct backend_ops *be;
	void *be_priv;
	struct workload *w;
	struct cluster c;
	struct sched s;

	/* shuffle: per job, its finished sources in completion order
	 * (job-relative task indexes; sources: its tasks up to the last stage
	 * that others read, in MapReduce its maps); per reduce a cursor in that
	 * list and whether its final fetch was sent.  Once a finished source's
	 * output is lost (relisting: it is listed again when re-run), a reduces
	 * x sources matrix of "already requested" (shuffle_output_lost); until
	 * then a reduce has requested exactly what its cursor has passed. */
	uint8_t **requested;
	struct done_list { int *map, n, cap; bool *on_rack, relisting; } *done_maps;  /* on_rack: holds a finished map */
	int *cursor;
	bool *final_sent;
	uint64_t *scratch_bytes;         /* per server: pump_reduce's scratch */
	int *scratch_holders;
	bool *scratch_seen;
	struct xfer *scratch_xfers;
	struct xfer_pages *inflight;   /* transfers not finished yet, by id (xfers.c) */
	int npages, next_xfer;
	FILE *flows_csv;             /* finished ones, as they finish */
	struct flow_log *flow_log;   /* its lines, by a thread of their own */
	struct xfer_totals {
		uint64_t shuffle_net, shuffle_xrack, shuffle_local, input_net, input_xrack, circuit_xrack;
		uint64_t shuffle_discarded;   /* fetched by attempts that were killed or re-run: moved, not used */
		/* finished network fetches by class: how long they waited to move
		 * (for a copier, or in hold mode their circuit) and then moved */
		struct fetch_time { uint64_t n; double wait_s, move_s; } fetch[FETCH_CLASSES];
	} totals;

	/* OCS (driven by the backend) */
	bool ocs_on;
	struct ocs_ctl ocs;

	/* monitoring */
	FILE *links_csv;
	struct link_stats *base, *last;   /* counters at start and at the last sample */
	uint64_t *drops_before;           /* per link: drops at the sample before the last */
	unsigned long *changes_seen;      /* per rack: ocs_rack_changes() at the last sample */
	int nlinks;
	double last_sample;
	struct fidelity fid;
	int *recheck, nrecheck;           /* links fidelity_link asked to look at again */
	double recheck_at;                /* when (run time); 0 = none */
	unsigned long congested_samples;
	unsigned long long cpu_prev_busy, cpu_prev_total;
	double wall_start, last_progress;   /* wall clock (progress lines are for people) */
	char dir[512];           /* results directory */
	bool partial;
	const char *stop_reason;
	int tasks_done;
	int reruns;
	uint64_t *attempt_fetched;   /* per task: shuffle bytes its current attempt has fetched (discarded if it re-runs) */
	FILE *preemptions_csv;       /* every kill, suspend and resume, as it happens */
	unsigned long kills, suspends;
	int *suspended, nsuspended;   /* suspended tasks, in the order they were */
	/* Disorder (cluster.h, ignore_deps): starts of tasks whose parents had
	 * not ended, the deadlock breaker's kills, and the running tasks
	 * started so that are still waiting for their parents (a superset);
	 * the core-seconds they held while they waited, as break_deadlock
	 * finds them at each heartbeat, and when it last looked. */
	unsigned long disorders, deadlock_breaks;
	int *waiting, nwaiting;
	double hold_core_s, hold_seen_at;
	int *stuck;               /* per server: its tasks stuck at this heartbeat (break_deadlock) */
	bool *stuck_seen;         /* per server: every running task there was stuck at the last one */
	bool job_ended;          /* a job finished: jobs that depend on it may arrive */
	struct rng out_rng;      /* where output replicas go (its own: other draws stay as they were) */
};

double run_now(const struct run *r);
void run_say(const struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double run_wall(void);

/* What backends report (run.c). */
void run_task_done(struct run *r, int server, int task, bool ok, uint64_t bytes, const char *error);
void run_flow_done(struct run *r, int xfer, uint64_t bytes, double t_end);
void run_copy_done(struct run *r, int id);
void run_server_lost(struct run *r, int server);

/* shuffle.c */
/* A task whose output other stages read is done (a map, in MapReduce). */
void shuffle_output_done(struct run *r, struct task *t);
void shuffle_pump(struct run *r, struct job *j);
void shuffle_reset_reduce(struct run *r, struct task *reduce);
void shuffle_output_lost(struct run *r, struct task *t);
/* xfers.c: returns the transfer's id; a done one is recorded at once. */
int xfer_new(struct run *r, const struct xfer_rec *x);
void xfer_record(struct run *r, int id, const struct xfer_rec *x);   /* one the backend kept ends (keeps_xfers) */
void xfer_finish(struct run *r, int id, uint64_t bytes, double t_end);
void xfer_moving(struct run *r, int id, double t);   /* its bytes move from t on (the first call counts) */
void xfer_flush(struct run *r);   /* record what is still in flight (end of run) */
void xfer_drop_task(struct run *r, int task, double t);   /* a killed task's transfers in flight: not done */

/* monitor.c */
int monitor_open(struct run *r);
void monitor_sample(struct run *r, bool final);
void monitor_recheck(struct run *r);
void monitor_close(struct run *r);

/* results.c */
int results_prepare(struct run *r, char err[512]);
int results_write(struct run *r);
#endif
