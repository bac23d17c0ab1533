/* sched.h — the scheduler interface.  A scheduler is to emu what a qdisc is
 * to tc: an ops table registered by name (emu/sched/registry.c), one file
 * per policy under emu/sched/.  The runtime calls it; it answers from the
 * cluster state (emu/cluster.h) and never talks to the network or the
 * backend, so the same policy runs on the emulator and the simulator.
 *
 * Only `offer` is required; every hook has a default. */
#ifndef EMU_SCHED_H
#define EMU_SCHED_H
#include "emu/cluster.h"
#include <stdio.h>

struct sched;

struct sched_ops {
	const char *name;
	const char *help;
	int (*init)(struct sched *s);                       /* allocate s->priv */
	void (*destroy)(struct sched *s);
	/* A job was submitted (its dependencies are done). */
	void (*job_arrived)(struct sched *s, struct job *j);
	/* A container is free on `server`: the task to run there, or NULL. */
	struct task *(*offer)(struct sched *s, int server);
	void (*task_finished)(struct sched *s, struct task *t);
	/* Every heartbeat. */
	void (*tick)(struct sched *s);
	/* Hook: where the 3 replicas of a map's input block live (default:
	 * HDFS-like, placement_default). */
	void (*place_input)(struct sched *s, struct job *j, struct task *map, int replicas[3]);
	/* Hook: may this running reduce fetch the outputs available now?
	 * (default: yes; JobPacker postpones shuffles to aggregate them). */
	bool (*shuffle_ready)(struct sched *s, struct task *reduce);
	/* Hook: is a transfer of `bytes` from src_server to the reduce's server
	 * circuit-eligible?  (default: cross-rack and larger than the elephant
	 * threshold). */
	bool (*circuit_eligible)(struct sched *s, const struct task *reduce, int src_server, uint64_t bytes);
	/* Hook: running tasks to kill now (preemption); returns how many it
	 * wrote into victims (default: none). */
	int (*preempt)(struct sched *s, struct task **victims, int max);
};

struct sched_params {
	uint64_t elephant_bytes;    /* circuit-eligible above this (scaled like data) */
	double node_wait_s;         /* delay scheduling: wait for a node-local slot */
	double rack_wait_s;         /*   then for a rack-local one */
	unsigned long seed;
	/* The fabric, for policies that model it (JobPacker's Eq. 4.1): a
	 * rack's EPS uplink and OCS port rates (bytes/s; OCS 0 if none), and
	 * the OCS controller's interval and delta. */
	double uplink_Bps, ocs_Bps, ocs_interval_s, ocs_delta_s;
	bool ocs_early;             /* configurations give way once served (ocs_early_due) */
};

struct sched {
	const struct sched_ops *ops;
	struct cluster *c;
	struct sched_params p;
	struct rng rng;
	void *priv;
};

const struct sched_ops *sched_find(const char *name);
void sched_list(FILE *out);
int sched_init(struct sched *s, const struct sched_ops *ops, struct cluster *c, const struct sched_params *p);
void sched_destroy(struct sched *s);

/* Hook wrappers that apply the defaults. */
void sched_place_input(struct sched *s, struct job *j, struct task *map, int replicas[3]);
bool sched_shuffle_ready(struct sched *s, struct task *reduce);
bool sched_circuit_eligible(struct sched *s, const struct task *reduce, int src_server, uint64_t bytes);

/* Helpers shared by policies: the next task of job j for `server` (a
 * reduce within the ramp-up limit, else its best map, else a reduce), and
 * the job order of Fair sharing. */
struct task *sched_job_task(struct sched *s, struct job *j, int server);
/* YARN's reduce ramp-up: may job j, past slowstart with maps still pending,
 * take a reduce now?  As the MapReduce AM
 * (yarn.app.mapreduce.am.job.reduce.rampup.limit, default 0.5), a job's
 * early reduces hold at most half of its containers; and, against reduces
 * filling the cluster while their maps cannot run, the early reduces of all
 * jobs at most half of the cluster's.  Every policy that offers a job's
 * reduces while its maps are pending asks this (sched_job_task, delay, nas). */
bool sched_ramp_up_ok(const struct cluster *c, const struct job *j);
int sched_running(const struct job *j);
/* A policy's experiment override: environment variable `name` as a finite
 * number into *v; false (v untouched) when unset, empty or not a number. */
bool sched_env_num(const char *name, double *v);
#endif
