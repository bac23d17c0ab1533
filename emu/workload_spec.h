/* workload_spec.h — private to the workload module (workload*.c, synth.c).
 *
 * Every source of jobs (SWIM reader, native reader, generator) first fills
 * job specs in the units the user wrote (unscaled bytes and seconds), and
 * one function, workload_build, turns them into jobs and tasks: task counts,
 * per-task bytes and durations, then scaling.  Keeping the derivation in one
 * place is what makes a SWIM job and the same job written natively produce
 * identical tasks. */
#ifndef EMU_WORKLOAD_SPEC_H
#define EMU_WORKLOAD_SPEC_H
#include "emu/workload.h"
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* Upper bound on the tasks of one job: keeps counts in an int and catches
 * absurd inputs ("1EB" of input would need 7e9 maps) with a clear message. */
#define WORKLOAD_MAX_TASKS_PER_JOB 10000000

/* A stage of a job given by its stages (the native format's "stages"). */
struct stage_spec {
	char name[24];
	int line;                   /* where it was defined, 0 = unknown */
	int tasks;
	double work;                /* seconds per task on the reference server, unscaled; < 0 = derive */
	double *works;              /* per task (owned), overrides work */
	uint64_t output;            /* bytes the stage writes (all its tasks), unscaled */
	double ask[RES_KINDS];      /* < 0 = the job's */
	int nparents;
	struct stage_edge parent[STAGE_MAX_PARENTS];
	/* Listed parent tasks (an EDGE_TASKS parent): task i's are
	 * tp[tp_first[i] .. tp_first[i + 1]); NULL = none; owned. */
	int *tp_first;
	struct stage_task_ref { int stage, index; } *tp;
};

struct job_spec {
	char name[32];
	int line;                   /* where it was defined (error messages), 0 = unknown */
	double submit;              /* seconds, unscaled */
	uint64_t input, shuffle, output;   /* bytes, unscaled */
	bool has_pred_submit, has_pred_shuffle;
	double pred_submit;
	uint64_t pred_shuffle;
	int nmaps, nreduces;        /* -1 = derive from bytes */
	double map_duration;        /* seconds per map, unscaled; < 0 = derive */
	double reduce_duration;     /* seconds per reduce, unscaled; < 0 = derive */
	double *map_durations;      /* per map (owned), overrides map_duration */
	double *reduce_durations;   /* per reduce (owned), overrides reduce_duration */
	uint64_t *map_inputs;       /* per map input bytes (owned), sums to input */
	bool recurring;
	int deps[JOB_MAX_DEPS];
	int ndeps;
	double deadline;            /* seconds after submission, unscaled; 0 = none */
	int cluster;                /* its logical cluster (1..), 0 = none */
	/* What each task asks for, in the file's units (cores, GB, MB/s; [RES_CORES]
	 * and so on), for the whole job and per stage ([TASK_MAP], [TASK_REDUCE]);
	 * < 0 = not given: the stage's, else the job's, else task_cpu, task_mem_gb, 0. */
	double ask[RES_KINDS];
	double stage_ask[2][RES_KINDS];
	/* Stages instead of maps and reduces (then nmaps, nreduces, durations,
	 * shuffle and output are not given: the stages say them); owned. */
	struct stage_spec *stages;
	int nstages;
	bool lineage;               /* its input is its dependencies' output, then `input` (a base input) */
};

/* A spec with everything derived and nothing predicted. */
void job_spec_init(struct job_spec *s);
void job_specs_free(struct job_spec *specs, int n);

/* Whether a drawn or read job is chosen (its shuffle is at least
 * p->min_shuffle), and the job scaled down to p->max_maps maps when it has
 * more (bytes only: counts given explicitly are left alone). */
bool job_spec_chosen(const struct job_spec *s, const struct workload_params *p);
void job_spec_fit(struct job_spec *s, const struct workload_params *p);

/* Check the knobs (positive rates, block size, ...).  0 or -1 with err. */
int workload_params_check(const struct workload_params *p, char err[512]);

/* Derive tasks from specs and fill w (which is overwritten).  prescaled:
 * the specs are already in emulated units (a file written by
 * workload_write_native), so data_scale and time_scale are not applied
 * again; the floor still is.  Errors: "SOURCE:LINE: job 'x': problem". */
int workload_build(struct workload *w, const struct job_spec *specs, int n, const struct workload_params *p,
		   bool prescaled, const char *source, char err[512]);

/* Sizes beyond this are refused as input (units_parse_size's own limit)
 * and scaled sizes saturate at it, so sums of a few never overflow. */
#define WORKLOAD_MAX_BYTES 1000000000000000000ULL
#define WORKLOAD_ERRLEN 512

static inline bool positive(double v) { return isfinite(v) && v > 0; }
static inline bool nonneg(double v) { return isfinite(v) && v >= 0; }

/* Format a message into err (WORKLOAD_ERRLEN bytes, may be NULL); -1. */
int workload_fail(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A growable array of specs, shared by both readers. */
struct specs {
	struct job_spec *v;
	int n, cap;
};
/* A new spec (job_spec_init'ed) at the end, or NULL out of memory. */
struct job_spec *specs_add(struct specs *a);

/* A job name is written into JSON and CSV files: valid UTF-8 and no
 * control characters. */
bool job_name_ok(const char *name);


/* workload_read_native keeping the first max_jobs jobs (0 = all). */
int workload_read_native_n(struct workload *w, const char *path, const struct workload_params *p, int max_jobs,
			   char err[512]);
#endif
