/* lease.h — container leases, the resource manager of lease-based policies
 * (COBRA and its baselines, seed 001): a job holds fixed-capacity
 * containers on servers across its tasks and runs in each the tasks whose
 * summed asks fit; a fair (max-min) job scheduler divides the containers by
 * the jobs' desires; a grant becomes usable after the container response
 * time (the seed's Table I: about 1 s).
 *
 * It is an overlay on the cluster, kept on the policy's side: the runtime
 * still offers servers one task at a time (emu/sched.h), and a lease-based
 * policy answers an offer of a server with a task of a job that holds a
 * usable container there with room (lease_offer).  The server's own
 * accounting (cluster_task_fits) still holds, so nothing is ever packed
 * beyond a server.  Other schedulers never see leases. */
#ifndef EMU_LEASE_H
#define EMU_LEASE_H
#include "emu/cluster.h"

struct lease_params {
	int per_server;       /* containers per server; 0: one per core (one per slot) */
	double latency_s;     /* a grant is usable this long after it is made */
	bool drain;           /* a job over its allotment gives back its containers as
				 they empty (COBRA); else it keeps what it holds */
};

struct container {
	int id, server;
	int owner;            /* the job holding it, -1: free */
	double ready_at;      /* usable from (grant time + latency) */
	bool draining;        /* takes no task; released once empty */
	bool gone;            /* its server is lost */
	struct res cap, used; /* capacity, and what its running tasks ask (clamped to cap) */
	int ntasks, room;     /* its running tasks, and the array's size */
	int *tasks, *attempt; /* task ids, and the attempt each was placed in */
	int placed;           /* tasks placed since it was granted */
	double idle_since;    /* when it last emptied, or was granted */
};

struct lease_job {
	int want;             /* containers it asks for (its desire, whole) */
	int allot;            /* what the fair scheduler gives it (<= want) */
	int held;             /* containers it holds, usable or not yet */
	double use_t[RES_KINDS], use_dt;   /* utilisation integral over its usable containers */
};

struct lease;
/* A policy's say in where grants go: the worst locality it accepts for a
 * grant to job j now (NULL: any), and what it learns when a grant is made. */
typedef enum locality (*lease_reach_fn)(struct lease *l, const struct job *j);
typedef void (*lease_granted_fn)(struct lease *l, const struct job *j, enum locality loc);
/* Which of job j's tasks to run in container k (usable, owned by j), or NULL. */
typedef struct task *(*lease_pick_fn)(struct lease *l, struct container *k, struct job *j);

struct lease {
	struct cluster *c;
	struct lease_params p;
	int n;                    /* containers */
	struct container *ctr;    /* a server's containers are consecutive */
	int *first, *count;       /* per server: its first container, and how many */
	struct lease_job *job;    /* per job */
	double last_sample;
	lease_reach_fn reach;
	lease_granted_fn granted;
	void *ctx;                /* the policy's (its struct sched) */
	int *order, *draining;    /* scratch, per job: active jobs; its containers draining */
	bool *skip;               /* scratch, per job: sits out this round of grants */
};

int lease_init(struct lease *l, struct cluster *c, const struct lease_params *p);
void lease_free(struct lease *l);

/* Containers of server s: l->ctr[l->first[s] .. + l->count[s]). */
/* Drops from k the tasks that stopped (finished, failed, requeued) and
 * recomputes what it uses. */
void lease_refresh(struct lease *l, struct container *k);
/* k is held, past its latency, not draining, on a live server. */
bool lease_usable(const struct lease *l, const struct container *k);
/* What task t takes of a container on its server (its ask, each resource
 * at most the container's capacity: a larger task runs alone in one). */
struct res lease_ask(const struct lease *l, const struct container *k, const struct task *t);
/* t fits in k's free part, and on k's server. */
bool lease_fits(const struct lease *l, const struct container *k, const struct task *t);
/* Every resource of k has at least `share` of its capacity free. */
bool lease_free_at_least(const struct lease *l, const struct container *k, double share);
/* t runs in k from now (the runtime is about to start it on k's server). */
void lease_place(struct lease *l, struct container *k, struct task *t);
void lease_release(struct lease *l, struct container *k);
/* The containers that could be held: on live servers. */
int lease_total(const struct lease *l);

/* A task of a later stage job j may start in a container on `server`: as
 * cluster_next_reduce_on, but only once every parent stage of its stage is
 * done (the seed's model, whatever --slowstart says): a job's few
 * containers never fill with tasks that wait for tasks that cannot get
 * one.  NULL: none. */
struct task *lease_next_reduce(const struct lease *l, const struct job *j, int server);

/* The fair job scheduler: allotments by max-min water-filling of the
 * active jobs' `want` over the containers (ties: earlier submission, then
 * id), then containers moved toward them: those of finished jobs, and with
 * drain those over an allotment as they empty, are released; free ones are
 * granted, the job furthest below its allotment first, on the server the
 * job would use best (a node-local pending map, then rack-local, then the
 * server with most free containers).  Policies call it whenever wants or
 * the jobs change (and every heartbeat: frees and latencies expire). */
void lease_balance(struct lease *l);
/* The task of an offer of `server`: the first usable container there whose
 * owner's pick gives one; recorded in it.  NULL: none. */
struct task *lease_offer(struct lease *l, int server, lease_pick_fn pick);

/* Utilisation, sampled every heartbeat: per job, per resource, the average
 * over time of the share its usable containers use; u is the largest
 * (the seed's u(J,q)), or -1 when it held no usable container. */
void lease_sample(struct lease *l);
double lease_util(const struct lease *l, int job);
void lease_util_reset(struct lease *l, int job);

/* The options every lease-based policy has: the struct lease_params at
 * member m of its options struct T. */
#define LEASE_SCHED_OPTS(T, m)                                                                             \
	{.name = "per_server", .type = SCHED_OPT_INT, .offset = offsetof(T, m.per_server), .def = 0,  \
	 .min = 0, .max = 4096,                                                                         \
	 .help = "containers per server, each an equal part of it (0: one per core, or per slot)"},     \
	{.name = "grant_latency", .type = SCHED_OPT_NUM, .offset = offsetof(T, m.latency_s), .def = 1, \
	 .min = 0, .max = 3600, .help = "seconds from a container's grant to its use (the seed's Table I)"}
#endif
