/* cluster.h — the resource manager's view of the cluster: servers with
 * container slots, racks, the workload's jobs and tasks, and the questions
 * a scheduler asks (which tasks are runnable, where is a block).
 *
 * It is backend-independent: the emulator (agents on namespaces) and a
 * simulator drive it the same way, so schedulers cannot tell which. */
#ifndef EMU_CLUSTER_H
#define EMU_CLUSTER_H
#include "emu/job.h"
#include "emu/stages.h"
#include "emu/workload.h"
#include "netctl/topo.h"
#include <stdbool.h>
#include <stdint.h>

/* A server holds task slots (every task takes one, whatever it asks for:
 * the topology's `containers`) or resources (a task takes what its stage
 * asks for: cores, memory, disk bandwidth).  Either way `containers` and
 * `free` count reference tasks (res_reference: a slot, or 1 core and 1 GB),
 * which is what slot-minded policies read, and `avail` is the free vector
 * that packing policies read; cluster_task_fits is the one test. */
struct server {
	int id, rack, index;      /* global id, rack, index in rack */
	int containers, free;     /* reference tasks it holds, and could start now */
	int running;              /* tasks running there */
	bool alive;
	int cls;                  /* its class in the topology (topo.cls[]) */
	double speed;             /* work per second; the reference server's is 1 */
	enum topo_model model;    /* its class's compute model (emu/compute_model.h) */
	bool slots;               /* a slot server (its cap counts slots as cores) */
	struct res cap, avail;    /* capacity, and what is free now */
};

struct cluster {
	int racks, nservers;
	int containers;           /* every server's containers: the nominal cluster */
	struct server *servers;   /* a rack's servers have consecutive ids (cluster_rack_servers) */
	int *rack_first, *rack_size;   /* per rack: its first server's id, and how many it has */
	struct workload *w;       /* jobs and tasks (not owned) */
	double now;               /* seconds since the run started */
	double slowstart;         /* fraction of a job's maps done before its reduces may run */
	bool semi_clairvoyant;    /* a stage's task sizes are hidden until it may run (cluster_sizes_known) */
	bool *arrived;            /* per job: submitted and its dependencies done */
	int running_jobs;         /* arrived and not finished */
	int *active;              /* their ids, ascending: what policies iterate */

	/* The network monitor's view, filled in by the runtime (every backend)
	 * once per sample (1 s by default) — what network-aware schedulers read:
	 * per rack, the cross-rack utilisation (0..1) of the ToR's EPS uplink
	 * (traffic leaving the rack) and downlink (entering it) over the last
	 * sample; per job, cross-rack bytes moved so far (shuffle + input). */
	double *rack_util_out, *rack_util_in;
	uint64_t *job_xrack_bytes;

	struct map_index **map_idx;   /* per job, built on first use (cluster_best_map) */
	uint64_t *running_bits;       /* per task: running, as bits by id (cluster_next_running_reduce) */

	/* Disorder: set by a policy that may start a task before its parents
	 * end (sched_ignore_deps); such a task holds its resources and waits
	 * for their outputs.  deps_barred: the core's deadlock breaker
	 * forbids it until some task ends (run.c). */
	bool ignore_deps, deps_barred;

	/* Copies a policy asked for (cluster_copy), by id: the runtime hands
	 * them to the backend and marks them done. */
	struct cluster_copy { int src, dst; uint64_t bytes; bool sent, done; } *copies;
	int ncopies, capcopies;
};

/* The topology's servers, each as its class says. */
int cluster_init_topo(struct cluster *c, const struct topo *t, struct workload *w, double slowstart);
/* A uniform cluster: racks x per_rack servers, each with `containers` slots
 * and speed 1 (tests). */
int cluster_init(struct cluster *c, int racks, int per_rack, int containers, struct workload *w,
		 double slowstart);
void cluster_free(struct cluster *c);

/* A copy of `bytes` off src's disk onto dst's (re-replication): the
 * backend moves it as any disk I/O (emu/disk.h), over the network when
 * src != dst.  Returns its id (-1: out of memory); cluster_copy_done says
 * when it has arrived. */
int cluster_copy(struct cluster *c, int src, int dst, uint64_t bytes);
bool cluster_copy_done(const struct cluster *c, int id);

/* Job j's first running reduce of index >= i, -1 if none: a walk of the
 * running ones in index order, at a word per 64 reduces (the shuffle pump's,
 * every heartbeat for every job). */
static inline int cluster_next_running_reduce(const struct cluster *c, const struct job *j, int i)
{
	int first = j->first_task + j->nmaps, end = first + j->nreduces;
	for (int id = first + i; id < end;) {
		uint64_t w = c->running_bits[id / 64] >> (id % 64);
		if (w) {
			id += __builtin_ctzll(w);
			return id < end ? id - first : -1;
		}
		id = (id / 64 + 1) * 64;
	}
	return -1;
}

static inline int cluster_rack_of(const struct cluster *c, int server) { return c->servers[server].rack; }
/* The servers of `rack`: ids *first .. *first + *n - 1.  Racks may differ
 * in size; a policy walks a rack with this, never with rack x size. */
static inline void cluster_rack_servers(const struct cluster *c, int rack, int *first, int *n)
{
	*first = c->rack_first[rack];
	*n = c->rack_size[rack];
}
/* Free containers on the live servers of `rack`. */
static inline int cluster_rack_free(const struct cluster *c, int rack)
{
	int first, n, free = 0;
	cluster_rack_servers(c, rack, &first, &n);
	for (int i = first; i < first + n; i++)
		free += c->servers[i].alive ? c->servers[i].free : 0;
	return free;
}

/* The arrived, unfinished jobs in id order (a policy's loop over jobs):
 * for (int i = 0; i < c->running_jobs; i++) { struct job *j = cluster_active(c, i); ... } */
static inline struct job *cluster_active(const struct cluster *c, int i) { return &c->w->jobs[c->active[i]]; }

/* Not arrived yet, but its submit time has passed and its dependencies are done. */
bool cluster_job_ready(const struct cluster *c, const struct job *j);
void cluster_job_arrive(struct cluster *c, struct job *j);
/* A job may run: arrived (submit time passed, dependencies finished) and not finished. */
bool cluster_job_active(const struct cluster *c, const struct job *j);
bool cluster_job_finished(const struct job *j);
/* Its reduces may start: maps_done >= slowstart x nmaps (MapReduce's rule;
 * a later stage's is cluster_next_reduce's). */
bool cluster_reduces_allowed(const struct cluster *c, const struct job *j);
/* Pending tasks of a job that may start now (maps; reduces as
 * cluster_next_reduce allows them). */
int cluster_pending_maps(const struct cluster *c, const struct job *j);
int cluster_pending_reduces(const struct cluster *c, const struct job *j);

enum locality { LOCAL_NODE, LOCAL_RACK, LOCAL_NONE };
/* How local map t would be on server s. */
enum locality cluster_locality(const struct cluster *c, const struct task *t, int server);
/* The best pending map of job j for server s (node-local first, then
 * rack-local, then any, each in map order), and its locality; NULL if none.
 * Indexed: the job's maps by replica server and rack, built on the first
 * call (replicas must be placed by then), so a call costs what it skips. */
struct task *cluster_best_map(const struct cluster *c, const struct job *j, int server, enum locality *loc);
/* A pending reduce of job j that may start, else NULL: of the first stage
 * whose parents allow it (every parent stage read over a shuffle or
 * broadcast has done its slowstart share; in MapReduce,
 * cluster_reduces_allowed), the first in order whose own parent tasks
 * (one-to-one, listed) are done. */
struct task *cluster_next_reduce(const struct cluster *c, const struct job *j);
/* The same, preferring for `server` a task whose one-to-one parent ran there
 * (its input is there: a one-to-one edge keeps data on its server). */
struct task *cluster_next_reduce_on(const struct cluster *c, const struct job *j, int server);

/* Whether a policy may know t's size (its work and bytes): always
 * (clairvoyant, the default), or, semi-clairvoyant as COBRA's model, once
 * its stage is runnable (its job has arrived and every parent stage is
 * done) or it has started.  A policy
 * that uses sizes asks this; what it may not know it must not read. */
bool cluster_sizes_known(const struct cluster *c, const struct task *t);
/* t is pending and may start now (its job is active; a reduce: as
 * cluster_next_reduce would allow it).  The core starts nothing else. */
bool cluster_task_runnable(const struct cluster *c, const struct task *t);
/* The dependency part of cluster_task_runnable: t's parents have ended as
 * far as it must wait for them (listed and one-to-one parents, a shuffle's
 * or broadcast's slowstart share). */
bool cluster_task_deps_done(const struct cluster *c, const struct task *t);
/* The stage part of it: every parent stage read over a shuffle or a
 * broadcast has done its slowstart share (a policy that counts a task's own
 * parents itself asks only this). */
bool cluster_stage_allowed(const struct cluster *c, const struct job *j, int st);
/* What the core starts: a runnable task or, when the policy ignores
 * dependencies and the deadlock breaker does not forbid it, any pending
 * task of an active job (it then waits for its parents: a disorder). */
bool cluster_task_startable(const struct cluster *c, const struct task *t);
/* Every stage's task fits on some server of the topology (a slot server
 * takes any); else -1 and err names the job and stage. */
int cluster_check_asks(const struct topo *t, const struct workload *w, char err[512]);
/* What task t takes on `server`: one slot there, or its stage's vector. */
struct res cluster_task_ask(const struct cluster *c, const struct task *t, int server);
/* How long t computes on `server`: its work over the server's speed for
 * t's job (compute_speed: the class's model).  Decided when the task
 * starts (cluster_start_task), where it runs. */
double cluster_task_duration(const struct cluster *c, const struct task *t, int server);
/* Whether t fits on `server` now: the core never starts a task that does
 * not, so no server is ever packed beyond its capacity. */
bool cluster_task_fits(const struct cluster *c, const struct task *t, int server);
/* Whether anything could still start on `server` (it is alive, with a free
 * slot or some of every resource). */
bool cluster_server_has_room(const struct cluster *c, int server);

/* Bookkeeping of a task's life, shared by every backend: resources, the
 * job's counters, the task's state and times (now = c->now). */
void cluster_start_task(struct cluster *c, struct task *t, int server);
void cluster_finish_task(struct cluster *c, struct task *t);
/* Back to pending (failed, killed, or its server died); a finished map whose
 * output was lost is un-finished the same way.  A suspended one too. */
void cluster_requeue_task(struct cluster *c, struct task *t);
/* Preemption that keeps progress: a running task gives its resources back
 * and stays on its server; it resumes there, taking them again, when they
 * fit (cluster_resume_fits). */
void cluster_suspend_task(struct cluster *c, struct task *t);
void cluster_resume_task(struct cluster *c, struct task *t);
bool cluster_resume_fits(const struct cluster *c, const struct task *t, int server);

/* Deterministic per-run randomness (placement, tie-breaks): splitmix64. */
struct rng { uint64_t s; };
uint64_t rng_next(struct rng *r);
static inline int rng_below(struct rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }

/* HDFS-like default placement of a block's 3 replicas: one on a random
 * server of a random rack, two on two different servers of one other rack
 * (one rack only when the cluster has one; fewer replicas than 3 when it has
 * fewer servers). */
void placement_default(const struct cluster *c, struct rng *r, int replicas[3]);
#endif
