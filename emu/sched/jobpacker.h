/* jobpacker.h — private to the plan-based schedulers (jobpacker.c,
 * corral.c), their profiler (jobpacker_profile.c), their planner
 * (jobpacker_plan.c), their plan follower (jobpacker_follow.c) and their
 * unit tests.
 *
 * Source: the dissertation's Chapter 4 (JobPacker); where it is silent the
 * choice is ours, and the comments below say so.  Nothing here is part of
 * the scheduler API (emu/sched.h): the knobs the dissertation needs beyond
 * struct sched_params live in struct jp_conf, with documented defaults, set
 * by the policies' options (struct jp_opts, jp_conf_opts). */
#ifndef EMU_SCHED_JOBPACKER_H
#define EMU_SCHED_JOBPACKER_H
#include "emu/sched.h"
#include <math.h>

/* Shuffle term of the latency response function, Eq. 4.1.  Our choice: Eq. 4.1
 * as printed does not reproduce Fig. 4.6, the port-parallel model (FIG46) does. */
enum jp_lrf {
	JP_LRF_FIG46,    /* port-parallel: OCS D_s/(bw_o·min(rm,rr)), EPS D_s/(bw_e·rm); reproduces Fig 4.6 */
	JP_LRF_LITERAL,  /* Eq. 4.1 as printed: D_s/(rm·rr)·(rr−1)/BW */
	JP_LRF_PERIODIC, /* FIG46 with circuits lit for whole reconfiguration intervals: the OCS term is at
			    least (max(rm,rr) − 1)·⌈piece/(bw_o·(I−δ))⌉·I, piece = D_s/(rm·rr) */
};
/* The default follows the run's OCS (jp_conf_fabric): PERIODIC when configurations are held for
 * whole intervals, FIG46 when they give way once served (--ocs-reconfig early). */
enum jp_scenario { JP_SCEN_AUTO, JP_SCEN_BATCH, JP_SCEN_ONLINE };

struct jp_conf {
	int subbatches;          /* B, sub-batches of a batch (5, §4.3.2.1) */
	int orders;              /* orders of the sub-batches the batch planner tries (1 = the
				    text's one random order; jobpacker_plan.c plan_batch) */
	int plan_threads;        /* threads that try them; 0: one per core (the plan is the same) */
	double rho;              /* over-provisioning ratio; < 0 = auto: 0 if every job is
				    recurring, 1.0 otherwise (§4.3.2, §4.3.4); the plan
				    takes ⌈(1+ρ)N⌉ containers a stage (ours: the text is silent) */
	double interval_s;       /* OCS reconfiguration interval (the run's, --ocs-interval) */
	double delta_s;          /* OCS reconfiguration delay δ (the run's, --delta) */
	double util;             /* target OCS utilisation: E = bw_o·δ·u/(1−u), u = 0.9 ⇒ 9δ (§4.1.2) */
	double piece_margin;     /* a pair is planned on the OCS when its pieces D/(rm·rr) exceed
				    E × this (1.25): a rack that runs fewer maps than planned must not
				    push its pieces under E, onto the EPS (jobpacker_profile.c) */
	double bw_ocs;           /* OCS port rate, bytes/s (the topology's); 0 = derived from E: E/(9δ) */
	double bw_ratio;         /* bw_o / bw_e (the topology's OCS port / EPS uplink; GENI 10) */
	double eps_jobs;         /* jobs whose shuffles share a busy EPS uplink: Eq. 4.1's EPS term is
				    D_s/(bw_e/eps_jobs · r_map).  1 = the job has its uplinks alone (Eq. 4.1
				    as printed, Corral); JobPacker plans with JP_EPS_JOBS */
	enum jp_lrf lrf;
	enum jp_scenario scenario;
	double adhoc_sh_input;   /* ad-hoc job is shuffle-heavy if input > this × data_scale (1 GB,
				    §4.2.4; scaled as E is: ours, the text is silent) */
	double early_reduce_cap; /* reduces of jobs that still have unlaunched maps may hold at
				    most this fraction of a rack's containers (0.5; deadlock guard, see
				    jobpacker_plan.c) */
	bool postpone;           /* shuffle data aggregation on (JobPacker) */
	bool ports;              /* the plan books OCS ports: shuffles that share one take turns */
	bool sparsity;           /* ad-hoc sparsity rule on (JobPacker, §4.2.4) */
	bool adhoc_agg;          /* ad-hoc jobs on a few racks: §4.2.5's dropped trial, Fig. 4.18
				    (off; jobpacker_adhoc.c) */
	bool seq_by_time;        /* a rack's sequence by planned start (our earlier default), else
				    by the planning list, i.e. the jobs' priority (default; jobpacker_plan.c) */
};
void jp_conf_default(struct jp_conf *k);
/* The EPS shuffles a busy uplink carries at once in the runs (flows.csv, GENI batch, seeds 4–13:
 * 1.70, 1.26–2.20 by seed; online 1.43, mixed 2.09).  Eq. 4.1 gives a job its uplinks alone, so
 * the plan put jobs over E on an EPS that runs at 1/1.7 of the rate it assumed. */
#define JP_EPS_JOBS 1.7
/* The run's fabric: interval, δ, the OCS and EPS uplink rates. */
void jp_conf_fabric(struct jp_conf *k, const struct sched_params *p);

/* The options (emu-run(8)); NAN is auto.  Corral's are the first part,
 * which its table describes alone: a struct jp_opts starts with them. */
struct jp_shared_opts {
	int scenario;            /* enum jp_scenario */
	double bw_ocs, bw_ratio; /* auto: the fabric's (jp_conf_fabric) */
	double early_reduce_cap;
	const char *plan_log;    /* a file the plan is appended to, "-" stderr, "" none (jp_plan_dump) */
};
struct jp_opts {
	struct jp_shared_opts sh;   /* first */
	int subbatches, orders, plan_threads;
	double rho;              /* auto: jp_conf's < 0 */
	double eps_jobs, piece_margin;
	int lrf;                 /* an index into jp_lrf_names (0: auto, the fabric's) */
	int seq;                 /* 0 list, 1 time */
	bool ports, postpone, sparsity, adhoc_agg;
};
/* The table entries of the shared options, for struct jp_shared_opts or a
 * struct that starts with one. */
extern const char *const jp_scenario_names[], *const jp_lrf_names[], *const jp_seq_names[];
#define JP_SHARED_OPTS                                                                                      \
	SCHED_CHOICE_OPT(struct jp_shared_opts, scenario, JP_SCEN_AUTO, jp_scenario_names,                     \
			 "how the plan is made: batch (every job at once), online (by predicted arrival), or auto: " \
			 "batch when every job's predicted arrival is the same"),                                     \
	SCHED_NUM_OPT(struct jp_shared_opts, bw_ocs, NAN, 0, INFINITY, SCHED_OPT_AUTO,                          \
		      "the OCS port rate the plan assumes, bytes/s; 0 derives it from the elephant threshold, "   \
		      "E / (9 x delta); auto: the topology's (0 without an OCS)"),                                \
	SCHED_NUM_OPT(struct jp_shared_opts, bw_ratio, NAN, 0, INFINITY, SCHED_OPT_AUTO | SCHED_OPT_ABOVE_MIN, \
		      "OCS port rate over EPS uplink rate; auto: the topology's (10 without an OCS)"),            \
	SCHED_NUM_OPT(struct jp_shared_opts, early_reduce_cap, 0.5, 0, 1, 0,                                    \
		      "the share of a rack's containers that reduces of jobs with maps not yet launched may "     \
		      "hold"),                                                                                    \
	SCHED_STR_OPT(struct jp_shared_opts, plan_log, "",                                                      \
		      "a file to append the plan to, human-readable (- is standard error; empty: none)")
/* The options over the defaults and the fabric: Corral's, and all of JobPacker's. */
void jp_conf_shared(struct jp_conf *k, const struct jp_shared_opts *o);
void jp_conf_opts(struct jp_conf *k, const struct jp_opts *o);

/* What Eq. 4.1 is evaluated with. */
struct jp_model {
	int racks, containers;   /* containers per rack (C) */
	double E;                /* elephant threshold, bytes */
	double piece_min;        /* pieces over this use the OCS in Eq. 4.1; 0 = E */
	double bw_ocs, bw_eps;   /* bytes/s; bw_ocs is the effective rate, ×(1 − δ/interval) */
	enum jp_lrf lrf;
	double interval;         /* OCS reconfiguration interval (JP_LRF_PERIODIC; 0 = continuous) */
};
void jp_model_make(struct jp_model *m, const struct cluster *c, const struct jp_conf *k, uint64_t elephant);

/* What a predictor knows of a recurring job (§2.3): predicted shuffle and
 * arrival, task counts, task durations (the job's mean). */
struct jp_jobdesc {
	int id, nmaps, nreduces;
	double t_map, t_red, shuffle, arrival;
};
void jp_jobdesc_of(struct jp_jobdesc *d, const struct workload *w, const struct job *j);

int jp_waves(int n, int r, int C);                 /* ⌈⌈n/r⌉/C⌉ */
/* Eq. 4.1: L(rm, rr); *ocs = the per-rack-pair share D_s/(rm·rr) > E. */
double jp_lrf(const struct jp_model *m, const struct jp_jobdesc *j, int rm, int rr, bool *ocs);
double jp_lrf_shuffle(const struct jp_model *m, const struct jp_jobdesc *j, int rm, int rr, bool *ocs);

/* The job profiler's answer (§4.2.3.1; the feasibility rule and the latency used
 * for sorting are ours, the text gives neither: jobpacker_profile.c). */
struct jp_profile {
	bool sh;                 /* shuffle-heavy: has feasible (OCS) pairs */
	bool relaxed;            /* a stage needs more than one wave even on all R racks */
	int n;                   /* feasible pairs */
	int *rm, *rr;
	double *lat;
	double width, latency;   /* sort keys */
};
int jp_profile(const struct jp_model *m, const struct jp_jobdesc *j, struct jp_profile *p);
void jp_profile_free(struct jp_profile *p);

/* Tetris alignment score (footnote of §4.2.3.2). */
double jp_tetris_score(const double avail[3], const double demand[3]);
/* Divide n jobs with demand (shuffle, #maps, #reduces) into B sub-batches
 * (Tetris, §4.2.3.2; the demand normalisation, the capacities and the fill order
 * are ours, the text gives none); sub[i] = the sub-batch of job i. */
int jp_subbatch(int n, const double (*demand)[3], int B, int *sub);

/* Fig 4.3: completion time of a demand matrix on the OCS (port bound,
 * δ ignored, intra-rack excluded), M row-major R×R, rate 1. */
double jp_port_bound(int R, const double *M);
/* M[i][j] = D_s · maps_i/N_map · reds_j/N_red (even map output, even partitions). */
void jp_demand_matrix(int R, const int *maps, const int *reds, double shuffle, double *M);

enum jp_stage { JP_MAP = 1, JP_RED = 2, JP_BOTH = 3 };

struct jp_entry {
	int job, stage;
	double t;                /* planned start on this rack */
	int rank;                /* position of the job in the planning list (ties) */
};

/* The offline schedule. */
struct jp_plan {
	int racks, njobs, ntasks;
	bool batch;              /* batch scenario (all predicted arrivals equal) */
	double rho;
	bool *planned;           /* per job: recurring, followed from the plan */
	bool *sh;                /* per job: predicted shuffle ≥ E (and reduces) */
	int *rm, *rr;            /* per job: map and reduce widths (racks used) */
	uint8_t *map_rack, *red_rack;   /* njobs × racks: 1 = rack runs the job's maps/reduces */
	int *task_rack;          /* per task: planned rack, -1 */
	double *start, *end;     /* per job: planned start and completion */
	int *sub;                /* per job: sub-batch, -1 */
	int *order, norder;      /* the planning list */
	struct jp_entry **seq;   /* per rack: Seq_i, by planned start */
	int *nseq, *capseq;
};
void jp_plan_free(struct jp_plan *p);
/* JobPacker's job manager (§4.2.3.2) over the recurring jobs of c->w. */
int jp_plan_jobpacker(struct jp_plan *p, const struct cluster *c, const struct jp_model *m,
		      const struct jp_conf *k, struct rng *rng);
/* Corral's planner (corral.c): one rack set per job for maps and
 * reduces, LRF with the EPS bandwidth, provisioning + widest-job-first. */
int jp_plan_corral(struct jp_plan *p, const struct cluster *c, const struct jp_model *m,
		   const struct jp_conf *k);
/* The plan, human-readable, appended to the file `path` ("-" = stderr; ""
 * or NULL: nowhere): the planning list with sub-batches, widths, planned
 * start/end and racks, and every rack's sequence. */
void jp_plan_dump(const struct jp_plan *p, const struct cluster *c, const char *who, const char *path);
/* Corral's LRF: l_map(r) + D_s(r−1)/(r²·bw_e) + l_red(r). */
double jp_corral_lrf(const struct jp_model *m, const struct jp_jobdesc *j, int r);

/* Online: following a plan (§4.2.4, jobpacker_follow.c). */
struct jp_tidx;
struct jp_rt {
	struct jp_plan plan;
	struct jp_conf conf;
	struct jp_model model;
	bool strict;             /* a task runs on its own planned rack (JobPacker), else on any
				    rack of its job (Corral) */
	bool sparsity;           /* ad-hoc sparsity rule (JobPacker) */
	bool *fallback;          /* per job: a planned rack failed, Fair from now on (jp_rt_fall_back) */
	int offplan;             /* jobs not following the plan (ad hoc, fallen back); -1 = not counted yet */
	int *on_rack;            /* njobs × racks: the job's running tasks per rack (sparsity census) */
	int (*on_key)[5];        /* per job: its task counters when on_rack was counted; [4] < 0 = never */
	bool *rack_dead;
	int *cursor;             /* per rack: the first entry of its list in `next` (nseq: none) */
	int *block_server;       /* per rack: the server (index in the rack) the next planned block's
				    first replica goes to, round-robin */
	int **next;              /* per rack, per entry: the next of the rack's entries whose job has
				    arrived and was not seen finished, by planned start (seq_lists) */
	struct jp_at { int rack, e; } *at;   /* every entry, by job */
	int *at_start;           /* per job + 1: its entries in `at` */
	struct jp_tidx **tidx;   /* per job: its tasks by planned rack (strict), built on first use */
	double *spread_since;    /* per job: since when a server running one of its reduces declined
				    another (-1: none is waiting), reduce_spreads */
	struct job **idle;       /* idle_pick's candidates (a heap by planned start), per job */
	int limit_early;         /* containers per rack early reduces may hold */
	uint64_t adhoc_sh_bytes; /* ad-hoc shuffle-heavy input threshold (scaled) */
	struct jp_adhoc *adhoc;  /* the ad-hoc aggregation trial's state; NULL = off */
};
int jp_rt_init(struct jp_rt *rt, struct sched *s);
void jp_rt_free(struct jp_rt *rt);
/* Job `job` ignores the plan from now on. */
void jp_rt_fall_back(struct jp_rt *rt, int job);
/* A shuffle-heavy job (planned: predicted shuffle ≥ E; ad-hoc: input > 1 GB scaled). */
bool jp_job_sh(const struct jp_rt *rt, const struct cluster *c, const struct job *j);
struct task *jp_follow_offer(struct sched *s, struct jp_rt *rt, int server);
/* Job j arrived (the policy's job_arrived): its entries join the racks' sequences. */
void jp_follow_arrived(struct jp_rt *rt, const struct cluster *c, const struct job *j);
void jp_follow_place(struct sched *s, struct jp_rt *rt, struct job *j, struct task *map, int replicas[3]);
/* The ad-hoc aggregation trial (jobpacker_adhoc.c; Fig. 4.18).  jp_adhoc_init after the
 * plan is made turns it on. */
int jp_adhoc_width(double ratio, int tasks, int racks);   /* ⌈tasks × ratio⌉ in 1..racks; 0 without tasks */
int jp_adhoc_init(struct jp_rt *rt, const struct cluster *c);
void jp_adhoc_free(struct jp_rt *rt);
/* An ad-hoc job's block: the racks of its first replica and of the other two (-1: any other
 * rack); false when the trial is off or the job is planned. */
bool jp_adhoc_input_racks(struct sched *s, struct jp_rt *rt, const struct job *j, const struct task *map, int *first,
			  int *other);
/* Whether the job's maps (JP_MAP) or reduces (JP_RED) may run on `rack`; true when the trial does
 * not apply to it.  The racks are chosen on the first ask with a map pending (a reduce runnable). */
bool jp_adhoc_allows(struct sched *s, struct jp_rt *rt, const struct job *j, enum jp_stage stage, int rack);
/* Rack failure (§4.2.4): a rack none of whose servers is alive (ours: the text does not
 * define it); jobs planned on it fall back to the default scheduler. */
void jp_follow_tick(struct sched *s, struct jp_rt *rt);
#endif
