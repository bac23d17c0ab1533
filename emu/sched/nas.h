/* nas.h — what the network-aware policies share: NAS and its ablations
 * (nas.c, dissertation ch. 3) and ShuffleWatcher on Delay (swdelay.c).
 *
 *  - the shuffle-size predictor (Eq. 3.1) and the bookkeeping it needs,
 *    kept incrementally: per job the mean output/input ratio of its finished
 *    maps; per job and rack the output of finished maps, the input of maps
 *    running there and the reduces placed there; per server the maps running
 *    on it (nas_predict.c);
 *  - the tunables: defaults (#defines) and NAS's options (struct nas_opts);
 *  - Delay scheduling's fair order and wait rule, exported by delay.c so
 *    that sw-delay reuses them (they belong next to sched_job_task in
 *    sched.h; they live here because sched.h is not ours to change). */
#ifndef EMU_SCHED_NAS_H
#define EMU_SCHED_NAS_H
#include "emu/sched.h"
#include <math.h>

/* ------------------------------------------------------------ tunables */

/* CongestionThreshold: a rack is congested when the cross-rack utilisation
 * of its ToR uplink, either way, reaches this (80% in every experiment of
 * §3.3.1; the text's example is 90%).  Option congestion (nas, sw-delay). */
#define NAS_CONGESTION 0.8
#define NAS_OPT_CONGESTION(T)                                                                          \
	SCHED_NUM_OPT(T, congestion, NAS_CONGESTION, 0, INFINITY, SCHED_OPT_ABOVE_MIN,                     \
		      "CongestionThreshold: a rack is congested while its uplink's cross-rack utilisation, either " \
		      "way, is at least this (§3.3.1); above 1, never")
/* Adaptive map completion threshold, Eq. 3.5: T_min for the job with the
 * largest predicted shuffle, T_max for the smallest (§3.3.1).  Options
 * t_min, t_max. */
#define NAS_T_MIN 0.2
#define NAS_T_MAX 0.5
/* Fixed threshold of the variants without the adaptive method (nas-mts,
 * nas-noadapt): the baselines' 0.2 of §3.3.1. */
#define NAS_T_FIXED 0.2
/* Job classes by predicted shuffle size (§3.2.1, §3.3.1): light < 1 MB,
 * heavy > 100 MB, at full scale (MiB: they reproduce Fig. 3.2).  The
 * scheduler sees bytes after --data-scale, so they are scaled the same way
 * (see nas_conf_init).  Options light_bytes, heavy_bytes: scaled bytes. */
#define NAS_LIGHT_FULL (1024.0 * 1024)
#define NAS_HEAVY_FULL (100.0 * 1024 * 1024)
/* The unscaled elephant threshold (emu run --elephant: 1.125 GB x data scale), the one
 * scaled reference a scheduler is given: data scale = elephant / this. */
#define NAS_ELEPHANT_FULL 1.125e9

/* NAS's options (nas.c's table, emu-run(8)); NAN is auto. */
struct nas_opts {
	double congestion;
	double t_min, t_max;
	double light_bytes, heavy_bytes;   /* scaled; auto: the full-scale defaults x data scale */
	double traffic_threshold;          /* bytes per node; auto: Eq. 3.3 */
	bool early_reduces;                /* reduces before all maps launch, sched_ramp_up_ok */
	bool tt, adaptive, ca_rts, cr_rts; /* NAS's parts; the ablations turn some off */
};

/* What NAS decides with: its options, auto resolved, and the run's waits. */
struct nas_conf {
	double congestion;
	double t_min, t_max;
	double light_bytes, heavy_bytes;   /* scaled */
	double traffic_threshold;          /* bytes per node; < 0 = Eq. 3.3 */
	double max_wait_s;                 /* D^m = D^r as a time (5 s in §3.3.1's real cluster): node + rack wait of Delay */
	bool early_reduces;                /* reduces before all maps launch, sched_ramp_up_ok */
};
/* (s runs nas: s->opts is a struct nas_opts.) */
void nas_conf_init(struct nas_conf *k, const struct sched *s);

/* ------------------------------------------------------ the predictor */

struct nas_jobacct {
	double ratio_sum;        /* sum over finished maps (input > 0) of output/input */
	int ratio_n;
	int maps_seen;           /* finishes we were told of (only grows: a re-queue shows as maps_seen > maps_done) */
	int reds_placed;         /* reduces we placed (sum of red_on) */
	bool rack_set;           /* sw-delay: its map racks are chosen */
};

struct nas_track {
	int racks, nservers, njobs, cap;
	struct nas_jobacct *job;
	uint64_t *out_done;      /* [job * racks + rack]: output of the job's finished maps there */
	uint64_t *in_run;        /* [job * racks + rack]: input of its maps running there */
	int *red_on;             /* [job * racks + rack]: its reduces placed there (running or done) */
	int *node_map;           /* [server * cap + k]: maps launched there, still running */
	int *node_n;
};

int nas_track_init(struct nas_track *k, const struct cluster *c);
void nas_track_free(struct nas_track *k);
/* The policy returns t for `server`: account for it (the runtime starts
 * what offer returns; an entry that never ran is dropped by the next prune). */
void nas_track_launch(struct nas_track *k, const struct cluster *c, const struct task *t, int server);
void nas_track_finished(struct nas_track *k, const struct cluster *c, const struct task *t);
/* Drop a server's entries that no longer run there (finished unseen, failed, lost). */
void nas_track_prune(struct nas_track *k, const struct cluster *c, int server);
/* Once per heartbeat: prune every server, and rebuild the sums of a job
 * whose counters show a re-queue (the runtime has no hook for it). */
void nas_track_check(struct nas_track *k, const struct cluster *c);

/* Eq. 3.1: the job's map output/input ratio — the mean over its finished
 * maps; before any finished, pred_shuffle_bytes/input for a recurring
 * (predicted) job, 1 for an ad-hoc (unpredicted) one (§3.2.1, as [3]). */
double nas_ratio(const struct nas_track *k, const struct job *j);
/* The job's predicted shuffle size: ratio x its input. */
double nas_pred_shuffle(const struct nas_track *k, const struct job *j);
/* Predicted output of the maps running on `server` (Eq. 3.1 for each). */
double nas_node_output(const struct nas_track *k, const struct cluster *c, int server);
/* Eq. 3.4: ReduceNum of job j on `rack` = nreduces x MapOutputPortion, the
 * portion from finished maps' output plus running maps' predicted output,
 * rounded by largest remainders so that the racks' targets add up to
 * nreduces; nreduces when nothing is known yet (no preference). */
int nas_reduce_target(const struct nas_track *k, const struct cluster *c, const struct job *j, int rack);
static inline int nas_reduces_on(const struct nas_track *k, const struct job *j, int rack)
{
	return k->red_on[(size_t)j->id * k->racks + rack];
}
/* NetState of Algorithm 1: the rack's cross-rack utilisation, either way, at
 * or above the CongestionThreshold. */
bool nas_rack_congested(const struct cluster *c, int rack, double threshold);

/* ------------------------------------------------- from delay.c */

/* Jobs with a runnable task, in Fair order (fewest running tasks first, then
 * earliest submitted) into order (room for njobs); returns how many. */
int delay_fair_order(struct sched *s, struct job **order);
/* Delay scheduling's rule for a job waiting since *since (-1 = not): may it
 * launch a task of locality loc now?  Node-local at once, rack-local after
 * node_wait_s, anything after node_wait_s + rack_wait_s.  Starts the clock
 * when it says no, stops it on a node-local launch. */
bool delay_may_launch(struct sched *s, double *since, enum locality loc);

/* Both policies' private state starts with their tracker. */
static inline struct nas_track *nas_track_of(const struct sched *s)
{
	return s->priv;
}

/* ------------------------------------------------- NAS, for the tests */

/* (s must run a NAS variant.) */

/* The job's own map completion threshold (Eq. 3.5, or the fixed one). */
double nas_threshold(struct sched *s, const struct job *j);
/* TrafficThreshold of `server` (Eq. 3.3, or the override). */
double nas_traffic_threshold(struct sched *s, int server);
#endif
