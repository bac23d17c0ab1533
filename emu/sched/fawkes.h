/* fawkes.h — FAWKES's weights and allocation (seed 003), apart from the
 * policy's state so that tests can check them on hand-made numbers. */
#ifndef EMU_SCHED_FAWKES_H
#define EMU_SCHED_FAWKES_H
#include "emu/sched.h"

/* The baselines and the 9 weighting policies, in the option's order. */
enum fawkes_policy { FW_NONE, FW_EQ, FW_JD, FW_DD, FW_TD, FW_PU, FW_DU, FW_RU, FW_JS, FW_JT, FW_TT };

/* What a logical cluster showed over the last period: sample means, and
 * what it completed in the period. */
struct fawkes_obs {
	bool active;              /* deployed and not removed */
	double jobs_waiting;      /* jobs submitted, none of their tasks started */
	double bytes_waiting;     /* their input bytes */
	double tasks_waiting;     /* tasks not started: of waiting jobs and of running ones */
	double proc_usage;        /* busy slots / slots of its servers */
	double disk_usage;        /* output written / storage of its storing servers */
	double slowdown;          /* mean over unfinished jobs of (now - submit) / reference runtime */
	double jobs_done, tasks_done;   /* completed in the period */
};

/* Eq. 6: a^-q with q = done / waiting (waiting 0: q infinite, 0; done 0: 1). */
double fawkes_throughput_weight(double done, double waiting, double a);
/* Each cluster's raw weight y_i (inactive ones 0); RU mixes PU and DU each
 * normalised over the clusters (Eq. 5). */
void fawkes_raw_weights(enum fawkes_policy p, const struct fawkes_obs *o, int k, double psi, double a, double *y);
/* Eq. 4 in place: w_i = y_i / sum y; returns the sum (0: left as is). */
double fawkes_normalize(double *w, int k);
/* Eq. 3 over the period: Var(D) = mean of D_i^2, D_i = (size_i/total - w_i) T. */
double fawkes_discrimination(const int *size, const double *w, int k, int total, double period);
/* Servers per cluster: shares proportional to the weights with each
 * cluster at least its floor (water-filling), whole by largest remainder
 * (ties: lower index), summing to total when some weight is positive. */
void fawkes_targets(const double *w, const int *floor, int k, int total, int *x);
/* A job's runtime alone on a static cluster of `servers` (JS and the
 * slowdown's denominator): per stage, waves of its tasks over the stage's
 * slots (map_slots per server for the first, reduce_slots for the others)
 * times its tasks' mean work. */
double fawkes_ref_runtime(const struct job *j, const struct task *tasks, int servers, int map_slots,
			  int reduce_slots);

struct fawkes_stats { long periods, reconfigs, grows, leaves, kills; uint64_t rereplicated; };
/* The counters of a fawkes scheduler. */
struct fawkes_stats fawkes_stats(const struct sched *s);
/* Logical cluster i's servers in role (enum mrc_role) and its target now. */
int fawkes_size(const struct sched *s, int i, int role);
int fawkes_target(const struct sched *s, int i);
#endif
