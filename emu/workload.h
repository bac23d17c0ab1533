/* workload.h — jobs from a SWIM trace, a native file, or a generator, with
 * tasks derived from bytes and everything scaled to the emulated cluster.
 *
 * Task derivation (documented in emu-workload(5), knobs in struct workload_params):
 *   maps     = max(1, ceil(input / block_size))           (on unscaled bytes)
 *   reduces  = max(1, round((shuffle + output) / bytes_per_reduce)), 0 if
 *              shuffle == 0 and output == 0, capped at max_reduces
 *   t_map    = map_overhead_s + block / map_rate          (unscaled seconds)
 *   t_reduce = reduce_overhead_s + (partition + output share) / reduce_rate
 * then bytes are multiplied by data_scale and durations by time_scale
 * (durations never below time_floor_s: kernel timers — 200 ms minimum RTO,
 * 40 ms delayed ACKs — do not scale). */
#ifndef EMU_WORKLOAD_H
#define EMU_WORKLOAD_H
#include "emu/job.h"
#include <stddef.h>
#include <stdint.h>

struct workload_params {
	uint64_t block_size;        /* default 128 MiB */
	uint64_t bytes_per_reduce;  /* default 1 GiB */
	int max_reduces;            /* default 100 */
	double map_rate;            /* bytes/s of map processing, default 50e6 */
	double reduce_rate;         /* bytes/s of reduce processing, default 50e6 */
	double map_overhead_s;      /* default 2 */
	double reduce_overhead_s;   /* default 2 */
	double data_scale;          /* bytes multiplier, default 1 (GENI: 0.01) */
	double time_scale;          /* duration and arrival multiplier, default 1 */
	double time_floor_s;        /* minimum task duration after scaling, default 0.2 */
	double task_cpu;            /* default 1 */
	double task_mem_gb;         /* default 1 */
	/* Choosing and fitting the jobs of a SWIM trace or of the generator
	 * (job_spec_chosen, job_spec_fit; a native file lists its jobs as they
	 * are and refuses these): */
	uint64_t min_shuffle;       /* only jobs with at least this shuffle (unscaled bytes): the
				       SWIM reader skips the others, the generator draws again; 0 = all */
	int max_maps;               /* a job of more maps is scaled down to this many, as SWIM
				       scales a trace to a smaller cluster: input, shuffle and output
				       × max_maps·block / input; 0 = no limit */
};
void workload_params_default(struct workload_params *p);

struct workload {
	struct job *jobs;
	int njobs;
	struct task *tasks;
	int ntasks;
	struct task_dep *tdeps;     /* listed parent tasks (EDGE_TASKS), by task */
	int ntdeps;
	struct workload_params params;
	char source[256];           /* file name or "synthetic:..." */
};

/* Readers.  On error: -1 and "FILE:LINE: problem" in err. */
int workload_read_swim(struct workload *w, const char *path, const struct workload_params *p,
		       int max_jobs, char err[512]);
int workload_read_native(struct workload *w, const char *path, const struct workload_params *p, char err[512]);
/* Either format, by content (native files are JSON). */
int workload_read(struct workload *w, const char *path, const struct workload_params *p, int max_jobs,
		  char err[512]);

enum arrival_mode { ARRIVE_BATCH, ARRIVE_UNIFORM, ARRIVE_POISSON, ARRIVE_TRACE };

struct synth_params {
	int njobs;                  /* default 20 */
	unsigned long seed;         /* default 1 */
	enum arrival_mode arrivals; /* default batch */
	double window_s;            /* uniform: arrivals in [0, window], default 60 */
	double mean_gap_s;          /* poisson: mean inter-arrival, default 5 */
	double recurring_fraction;  /* default 1.0 */
};
void synth_params_default(struct synth_params *s);
/* SWIM-like size distributions (heavy-tailed: most jobs small, a few
 * large), seeded and reproducible. */
int workload_synthetic(struct workload *w, const struct synth_params *s, const struct workload_params *p,
		       char err[512]);

/* Re-time arrivals of an existing workload (trace times kept for ARRIVE_TRACE). */
void workload_set_arrivals(struct workload *w, const struct synth_params *s);
/* Mark round(s->recurring_fraction x njobs) jobs recurring, a seeded random
 * set of them, the rest ad hoc, as the generator does (the same draw): for
 * a trace, which says nothing of it. */
void workload_set_recurring(struct workload *w, const struct synth_params *s);

/* Prediction errors for sensitivity studies (the dissertation's Fig. 4.20):
 * each job's predicted shuffle size off by up to `shuffle` (a fraction,
 * uniform, either sign: |real - pred| / real <= shuffle), and a fraction
 * `arrival_fraction` of jobs predicted to arrive up to `arrival_s`
 * (unscaled seconds, uniform, either sign) off their real arrival.
 * Seeded; applied after the arrivals are set. */
struct prediction_errors {
	double shuffle;
	double arrival_fraction, arrival_s;
};
void workload_prediction_errors(struct workload *w, const struct prediction_errors *e, unsigned long seed);

/* Write a workload in the native format (round-trips through workload_read_native). */
int workload_write_native(const struct workload *w, const char *path);

/* Task i's share of total over n tasks (the remainder on the last): how
 * bytes are split among tasks, by the workload and the shuffle alike. */
uint64_t workload_share(uint64_t total, int n, int i);
/* A deep copy (the runtime writes into a workload: a run needs its own); -1 out of memory. */
int workload_copy(struct workload *copy, const struct workload *w);
void workload_free(struct workload *w);
#endif
