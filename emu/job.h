/* job.h — the cluster's work: jobs made of stages of tasks.
 *
 * A job is a DAG of stages.  Stage 0, the only root, reads the job's input
 * (its tasks are the maps); every other stage reads its parents' outputs
 * over edges of a kind (its tasks are reduces, in the sense that they fetch
 * before they compute).  MapReduce is the two-stage case: maps, then reduces
 * over a shuffle.  A workload (emu/workload.h) produces jobs with their
 * stages and tasks already derived (counts, sizes, work, scaled); the
 * runtime fills in the runtime fields.  Tasks of all jobs live in one array
 * so they can be referred to by a global id everywhere (protocol, logs,
 * schedulers); a job's tasks are consecutive, stage after stage. */
#ifndef EMU_JOB_H
#define EMU_JOB_H
#include "emu/res.h"
#include <stdbool.h>
#include <stdint.h>

#define JOB_MAX_DEPS 8
#define JOB_MAX_STAGES 16
#define STAGE_MAX_PARENTS 4

/* A task of the root stage is a map (it reads input blocks); any other, a
 * reduce (it fetches its parents' outputs, then computes). */
enum task_kind { TASK_MAP, TASK_REDUCE };
/* A suspended task keeps its progress and its server, and holds nothing
 * there until it resumes (preemption, emu/sched.h). */
enum task_state { TASK_PENDING, TASK_RUNNING, TASK_DONE, TASK_SUSPENDED };

struct task {
	int id;                  /* index in workload.tasks */
	int job;                 /* index in workload.jobs */
	enum task_kind kind;
	int index;               /* 0..nmaps-1 or 0..nreduces-1 within the job */
	int stage, sindex;       /* its stage, and its index there */
	int tdep_first, ntdeps;  /* the parent tasks it lists (workload.tdeps[tdep_first ..]) */
	int nchildren;           /* tasks that list it */
	double work_s;           /* compute on the reference server (speed 1), time_scale applied */
	uint64_t input_bytes;    /* map: its input block; reduce: its shuffle partition (sum over maps) */
	uint64_t output_bytes;   /* map: map output (all partitions); reduce: final output */
	int replicas[3];         /* map: servers holding the input block (global server ids), -1 = none */
	int out_replicas[3];     /* a last-stage task: servers holding its output once done, -1 = none */

	/* runtime */
	enum task_state state;
	int server;              /* where it runs/ran, -1 */
	int attempts;
	double duration_s;       /* its compute time where it runs (cluster_task_duration), set at start */
	double t_start, t_end;   /* seconds since the run started */
	bool data_local;         /* map: read its input on the same server */
	bool rack_local;         /* map: read its input from the same rack */
	struct res held;         /* what it takes on its server while it runs (cluster_start_task) */
	int kills, suspends;     /* preemptions it went through */
	bool disordered;         /* this attempt started before its parents ended (cluster.h, ignore_deps) */
	int disorders;           /* attempts that did */
};

/* How a stage reads a parent stage's output. */
enum edge_kind {
	EDGE_SHUFFLE,     /* all to all: task i gets its share (1/n) of every parent task's output */
	EDGE_ONE_TO_ONE,  /* task i reads parent task i's output (the stages have as many tasks) */
	EDGE_BROADCAST,   /* every task reads every parent task's whole output */
	EDGE_TASKS,       /* task-level dependencies: a task reads the parent tasks it lists
			     (workload.tdeps), an equal share of each one's output among its children */
};

/* A listed parent task: its job-relative index, and which of its children
 * this one is (its share of the output). */
struct task_dep { int task, rank; };

struct stage {
	char name[24];
	int first, ntasks;       /* its tasks: job tasks first .. first + ntasks - 1 (job-relative) */
	int nparents;
	struct stage_edge { int stage; enum edge_kind kind; } parent[STAGE_MAX_PARENTS];
	bool has_children;       /* some stage reads its output */
	struct res ask;          /* what each of its tasks asks of a server with resources
				    (a slot server gives it one slot) */
	int done, running, suspended;   /* runtime */
};

struct job {
	int id;                  /* index in workload.jobs */
	char name[32];
	int line;                /* where its workload file defines it (messages), 0 = unknown */
	double submit_s;         /* actual arrival, seconds since run start (scaled) */
	double pred_submit_s;    /* predicted arrival (recurring jobs), = submit_s if none */
	uint64_t input_bytes, shuffle_bytes, output_bytes;   /* actual, data_scale applied */
	uint64_t pred_shuffle_bytes;                         /* what a predictor may know */
	int nmaps, nreduces;
	int first_task;          /* maps are tasks[first_task .. +nmaps), reduces follow */
	bool recurring;
	int deps[JOB_MAX_DEPS];  /* jobs that must finish first (DAG) */
	int ndeps;
	uint64_t lineage_bytes;  /* the first bytes of its input are its deps' output, in deps order
				    (each dep's last-stage tasks in order); the rest is new data */
	double deadline_s;       /* 0 = none */
	int cluster;             /* the logical cluster it is submitted to (1..), 0 = none:
				    multi-cluster policies (FAWKES) read it, others ignore it */
	int nstages;             /* 1 (maps only) or more; stages[0] is the maps */
	struct stage stages[JOB_MAX_STAGES];   /* parents before children */

	/* runtime */
	double t_start, t_end;   /* first task start, last task end (s since run start) */
	int maps_done, reduces_done, maps_running, reduces_running;
	int requeues;            /* tasks sent back to pending (cluster_requeue_task): a scheduler's
				    cursors past non-pending tasks must rewind when it changes */
	int changes;             /* its tasks' state changes (cluster.c): what a policy derives from
				    them alone holds while this stays */
};

static inline struct task *job_map(struct task *tasks, const struct job *j, int i)
{
	return &tasks[j->first_task + i];
}

static inline struct task *job_reduce(struct task *tasks, const struct job *j, int i)
{
	return &tasks[j->first_task + j->nmaps + i];
}

/* Task i of stage st. */
static inline struct task *stage_task(struct task *tasks, const struct job *j, int st, int i)
{
	return &tasks[j->first_task + j->stages[st].first + i];
}
#endif
