/* sched.h — the scheduler interface.  A scheduler is to emu what a qdisc is
 * to tc: an ops table registered by name (emu/sched/registry.c), one file
 * per policy under emu/sched/.  The runtime calls it; it answers from the
 * cluster state (emu/cluster.h) and never talks to the network or the
 * backend, so the same policy runs on the emulator and the simulator.
 *
 * Only `offer` is required; every hook has a default.  As a qdisc's, a
 * policy's parameters are options it declares (struct sched_opt, parsed by
 * the core from `emu run --sched-opt KEY=VALUE`, dumped into summary.json),
 * and its private state is allocated by the core (priv_size). */
#ifndef EMU_SCHED_H
#define EMU_SCHED_H
#include "emu/cluster.h"
#include <stddef.h>
#include <stdio.h>

struct sched;
struct json_t;

/* Preemption: a killed task restarts from zero (pending again, anywhere);
 * a suspended one keeps its progress and its server, frees its resources,
 * and resumes there, after the run's recovery delay, when offer returns it
 * or, if offer has nothing for that server, as soon as it fits again. */
enum preempt_op { PREEMPT_KILL, PREEMPT_SUSPEND };
struct preemption { struct task *t; enum preempt_op op; };

/* ------------------------------------------------------------- options */

enum sched_opt_type {
	SCHED_OPT_BOOL,     /* bool: on/off, true/false, yes/no, 1/0 */
	SCHED_OPT_INT,      /* int in [min, max] */
	SCHED_OPT_NUM,      /* double in [min, max] (finite) */
	SCHED_OPT_CHOICE,   /* int: the index of one of `choices` */
	SCHED_OPT_STR,      /* const char *: points into the setting, which must outlive the scheduler */
};

enum {
	SCHED_OPT_AUTO = 1,      /* NUM: also "auto", stored as NAN: the policy decides from the run */
	SCHED_OPT_ABOVE_MIN = 2, /* NUM: more than min, not equal */
};

/* One option of a policy: the field at `offset` of its options struct
 * (struct sched_ops.opts_size bytes).  A table of them, ended by an entry
 * without a name, is all a policy writes: one parser reads them all. */
struct sched_opt {
	const char *name;
	enum sched_opt_type type;
	size_t offset;
	double def;                  /* BOOL, INT, NUM (NAN: auto), CHOICE (an index) */
	double min, max;             /* INT, NUM; max INFINITY: no upper bound */
	const char *const *choices;  /* CHOICE: the names, NULL-terminated */
	const char *def_str;         /* STR */
	unsigned flags;              /* SCHED_OPT_AUTO, SCHED_OPT_ABOVE_MIN */
	const char *help;
};

/* Table entries whose name is the field's. */
#define SCHED_BOOL_OPT(T, field, dflt, text) \
	{.name = #field, .type = SCHED_OPT_BOOL, .offset = offsetof(T, field), .def = (dflt), .help = (text)}
#define SCHED_INT_OPT(T, field, dflt, lo, hi, text)                                                  \
	{.name = #field, .type = SCHED_OPT_INT, .offset = offsetof(T, field), .def = (dflt), .min = (lo), \
	 .max = (hi), .help = (text)}
#define SCHED_NUM_OPT(T, field, dflt, lo, hi, fl, text)                                              \
	{.name = #field, .type = SCHED_OPT_NUM, .offset = offsetof(T, field), .def = (dflt), .min = (lo), \
	 .max = (hi), .flags = (fl), .help = (text)}
#define SCHED_CHOICE_OPT(T, field, dflt, names, text)                                                   \
	{.name = #field, .type = SCHED_OPT_CHOICE, .offset = offsetof(T, field), .def = (dflt),          \
	 .choices = (names), .help = (text)}
#define SCHED_STR_OPT(T, field, dflt, text) \
	{.name = #field, .type = SCHED_OPT_STR, .offset = offsetof(T, field), .def_str = (dflt), .help = (text)}

/* ------------------------------------------------------------ the ops */

struct sched_ops {
	const char *name;
	const char *help;
	/* An alias is only a name, a help and this: the policy it names, with
	 * these options ("KEY=VALUE", NULL-terminated) set before the run's. */
	const struct sched_ops *alias_of;
	const char *const *preset;
	/* The core allocates s->priv (this many bytes, zeroed) before init and
	 * frees it after destroy; destroy is called when init fails too, so it
	 * must cope with a state made in part. */
	size_t priv_size;
	/* Its options (NULL: none) and the struct they are parsed into, s->opts. */
	const struct sched_opt *opts;
	size_t opts_size;
	/* Optional: what one option cannot say alone (e.g. a range's ends in
	 * order); 0, or -1 with err. */
	int (*check)(const void *opts, char *err, size_t len);
	int (*init)(struct sched *s);
	void (*destroy)(struct sched *s);
	/* A job was submitted (its dependencies are done). */
	void (*job_arrived)(struct sched *s, struct job *j);
	/* `server` has room: the task to run there (pending, or suspended on
	 * this server: it resumes), or NULL.  What is free is
	 * s->c->servers[server].avail (a vector) and .free (reference tasks);
	 * a task that does not fit (cluster_task_fits) stays pending. */
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
	/* Hook: the server a last-stage task writes its output to (default:
	 * its own); the same answer every time it is asked for one task. */
	int (*output_server)(struct sched *s, const struct task *t);
	/* Hook, every heartbeat: running tasks to preempt now; returns how
	 * many it wrote into out (default: none). */
	int (*preempt)(struct sched *s, struct preemption *out, int max);
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
	/* The policy's options, "KEY=VALUE" each, set over its defaults (and an
	 * alias's preset) in order; the strings must outlive the scheduler. */
	const char *const *opts;
	int nopts;
};

struct sched {
	const struct sched_ops *ops;   /* the policy (an alias resolved) */
	struct cluster *c;
	struct sched_params p;
	struct rng rng;
	void *priv;
	const void *opts;              /* the policy's options struct, every option set */
};

/* Disorder, for baselines that ignore dependencies (DSP's TetrisW/oDep,
 * SRPT, Amoeba, Natjam): called in init (as an option decides), it lets
 * offer return a pending task whose parents have not ended.  The core
 * starts it (cluster_task_startable says which tasks it would); it holds
 * its resources and waits for its parents' outputs, and counts as a
 * disorder (summary.json, preemptions.csv).  The deadlock breaker (run.c):
 * while some server's every running task is such a wait for a parent no
 * one computes, the core starts only runnable tasks; when the server was so
 * at the heartbeat before too, it kills the one started last there.
 * Without the call nothing changes: a task starts once runnable
 * (cluster_task_runnable). */
static inline void sched_ignore_deps(struct sched *s) { s->c->ignore_deps = true; }

/* A policy or an alias by name; NULL if there is none. */
const struct sched_ops *sched_find(const char *name);
/* Every name with its help, an alias with what it stands for. */
void sched_list(FILE *out);
/* ops: as sched_find gave it (an alias is resolved here).  -1 when the
 * options are bad (sched_opts_check says why) or init fails. */
int sched_init(struct sched *s, const struct sched_ops *ops, struct cluster *c, const struct sched_params *p);
void sched_destroy(struct sched *s);

/* Options (emu/sched_opt.c).  Whether the settings ("KEY=VALUE" each) are
 * options of ops with values they accept: 0, or -1 with err naming the
 * setting and what it accepts. */
int sched_opts_check(const struct sched_ops *ops, const char *const *set, int n, char *err, size_t len);
/* Into opts (ops->opts_size bytes): the defaults, an alias's preset, then
 * the settings; 0 or -1 with err as sched_opts_check. */
int sched_opts_parse(const struct sched_ops *ops, void *opts, const char *const *set, int n, char *err, size_t len);
/* The options in opts, every one with its value, as a JSON object whose
 * values, written KEY=VALUE, parse back to the same (NULL: out of memory). */
struct json_t *sched_opts_json(const struct sched_ops *ops, const void *opts);
/* For emu run --scheduler NAME --help: the options, their values by
 * default (an alias's preset applied), what they accept and their help. */
void sched_opts_help(const struct sched_ops *ops, FILE *out);

/* Hook wrappers that apply the defaults. */
void sched_place_input(struct sched *s, struct job *j, struct task *map, int replicas[3]);
int sched_output_server(struct sched *s, const struct task *t);
bool sched_shuffle_ready(struct sched *s, struct task *reduce);
bool sched_circuit_eligible(struct sched *s, const struct task *reduce, int src_server, uint64_t bytes);

/* Helpers shared by policies: the next task of job j for `server` (a
 * reduce within the ramp-up limit, else its best map, else a reduce), and
 * the job order of Fair sharing. */
struct task *sched_job_task(struct sched *s, struct job *j, int server);
/* The same, an early reduce (one whose maps are pending) only if early_ok
 * too: a policy's own limit, e.g. on a partition of the cluster. */
struct task *sched_job_task_if(struct sched *s, struct job *j, int server, bool early_ok);
/* YARN's reduce ramp-up: may job j, past slowstart with maps still pending,
 * take a reduce now?  As the MapReduce AM
 * (yarn.app.mapreduce.am.job.reduce.rampup.limit, default 0.5), a job's
 * early reduces hold at most half of its containers; and, against reduces
 * filling the cluster while their maps cannot run, the early reduces of all
 * jobs at most half of the cluster's.  Every policy that offers a job's
 * reduces while its maps are pending asks this (sched_job_task, delay, nas). */
bool sched_ramp_up_ok(const struct cluster *c, const struct job *j);
/* The same in two parts, for a policy that asks it of every job in one
 * offer: the early reduces of all jobs (counted once), then each job. */
int sched_early_reduces(const struct cluster *c);
bool sched_ramp_up_ok_early(const struct cluster *c, const struct job *j, int early);
int sched_running(const struct job *j);
#endif
