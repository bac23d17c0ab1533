/* spark.h — the executor side that COBRA's deployment baselines share
 * (SRS and DRS, seed 001: Spark on YARN): a container is an executor that
 * runs one task at a time (one core per executor, one per task: Spark's
 * defaults) or, with pack, as many as fit; tasks are placed with Spark's
 * delay scheduling, whose wait (spark.locality.wait, 3 s) runs from the
 * job's last launch. */
#ifndef EMU_SCHED_SPARK_H
#define EMU_SCHED_SPARK_H
#include "emu/lease.h"
#include "emu/sched.h"

/* The first member of the policy's options, and of its state. */
struct spark_opts { struct lease_params lease; bool pack; double wait; };
struct spark { struct lease l; double *last_launch; };

int spark_init(struct sched *s, bool drain);
void spark_destroy(struct sched *s);
void spark_arrived(struct sched *s, struct job *j);
struct task *spark_offer(struct sched *s, int server);

#define SPARK_SCHED_OPTS(T)                                                                          \
	LEASE_SCHED_OPTS(T, spark.lease),                                                                         \
	{.name = "pack", .type = SCHED_OPT_BOOL, .offset = offsetof(T, spark.pack), .def = 0,        \
	 .help = "run as many tasks in an executor as their asks fit (off: one at a time, Spark's)"}, \
	{.name = "wait", .type = SCHED_OPT_NUM, .offset = offsetof(T, spark.wait), .def = 3, .min = 0, \
	 .max = 3600, .help = "delay scheduling: seconds per locality level (spark.locality.wait)"}
#endif
