/* mrcluster.h — logical MapReduce clusters on one physical cluster (FAWKES,
 * seed 003): each logical cluster has its jobs (job.cluster), its data (its
 * jobs' input blocks on its core nodes), its own Fair scheduler (Fair's
 * order over its jobs only, emu/sched/fair.h) and the servers it holds,
 * each held by one logical cluster at a time in one role:
 *   core  runs tasks and stores input and output; never taken away;
 *   TR    transient: runs tasks, stores nothing, reads input remotely;
 *   TC    transient-core: runs tasks, reads input remotely, stores the
 *         output of the tasks it runs.
 * A server leaves by kill (its running tasks are killed and pending again,
 * through the preempt hook: mrc_victims) or by decommission (no new task;
 * once its tasks have ended, the blocks it stores are copied onto a core
 * server (cluster_copy: the backend moves them through both disks and the
 * network), then it is free).
 *
 * Typed slots (6 map + 2 reduce per server in the seed): the cluster model
 * has one kind of slot, so they are kept here: a server takes at most
 * map_slots maps and reduce_slots reduces at once, counted over the tasks
 * mrc_offer placed there.
 *
 * An overlay kept on the policy's side, as emu/lease.h: the runtime offers
 * servers one task at a time and never sees logical clusters. */
#ifndef EMU_MRCLUSTER_H
#define EMU_MRCLUSTER_H
#include "emu/sched.h"

enum mrc_role { MRC_FREE, MRC_CORE, MRC_TR, MRC_TC };
enum mrc_leave { MRC_KILL, MRC_DECOMMISSION };

#define MRC_MAX_RUN 64

struct mrc_node {
	int owner;               /* logical cluster, -1: free */
	enum mrc_role role;
	bool leaving;            /* decommissioning: takes no task */
	bool emptied;            /* leaving, its tasks ended: re-replicating */
	int copy;                /* its re-replication (cluster_copy id), -1: none */
	double joined;           /* when its owner got it */
	uint64_t stored;         /* bytes of its owner's blocks it stores */
	int run[MRC_MAX_RUN], nrun;   /* tasks mrc_offer placed here (stale ones pruned on use) */
};

struct mrc {
	struct cluster *c;
	int k;                   /* logical clusters */
	int map_slots, reduce_slots;
	struct mrc_node *node;   /* per server */
	int *size;               /* per logical cluster: servers held, leaving ones not counted */
	uint64_t *stored;        /* per logical cluster: bytes stored on its servers */
	int *victims, nvictims, room;   /* running tasks to kill (leaving by kill) */
	long grows, leaves, kills;
	uint64_t rereplicated;   /* bytes re-replicated by decommissions */
};

/* k logical clusters of `core` core servers each, the i-th cluster's the
 * servers i*core .. (i+1)*core - 1 (consecutive: racks are filled in
 * order); the other servers are free.  -1: out of memory, or fewer
 * servers than k*core. */
int mrc_init(struct mrc *m, struct cluster *c, int k, int core, int map_slots, int reduce_slots);
void mrc_free(struct mrc *m);

/* Job j's logical cluster, 0..k-1 (job.cluster 1..k; 0 or beyond k: the first). */
int mrc_of_job(const struct mrc *m, const struct job *j);
/* Servers of logical cluster i in `role` (leaving ones included). */
int mrc_count(const struct mrc *m, int i, enum mrc_role role);

/* The place_input hook: a block of job j on 3 different core servers of
 * its logical cluster (fewer when it has fewer), drawn with r. */
void mrc_place_input(struct mrc *m, struct rng *r, const struct job *j, int replicas[3]);
/* The offer of `server`: Fair's next task among its owner's jobs within
 * the server's typed slots, recorded as placed when the runtime will start
 * it; NULL for a free or leaving server. */
struct task *mrc_offer(struct mrc *m, struct sched *s, int server);
/* Where a last-stage task's output goes (the output_server hook): where
 * it ran, but a TR server's to a core server of its cluster (by task id:
 * the same one every time). */
int mrc_output_server(const struct mrc *m, const struct task *t);
/* A task ended (task_finished hook): its output stored at
 * mrc_output_server. */
void mrc_task_done(struct mrc *m, const struct task *t);
/* Running tasks placed on `server` now (typed: maps, reduces). */
void mrc_running(struct mrc *m, int server, int *maps, int *reduces);

/* A free server joins logical cluster i as `role`. */
void mrc_grow(struct mrc *m, int server, int i, enum mrc_role role);
/* A transient server leaves its cluster: by kill at once (its running
 * tasks go to mrc_victims), by decommission once empty and re-replicated
 * (mrc_tick). */
void mrc_leave(struct mrc *m, int server, enum mrc_leave how);
/* Decommissions that have emptied start re-replicating (cluster_copy);
 * those whose copy has arrived are freed. */
void mrc_tick(struct mrc *m);
/* The kills owed (for the preempt hook): up to max, removed from the list. */
int mrc_victims(struct mrc *m, struct preemption *out, int max);
#endif
