/* fawkes.c — FAWKES (seed 003): K logical MapReduce clusters on one
 * physical cluster (emu/mrcluster.h), each with its jobs (job.cluster), its
 * data on its core servers and its own Fair scheduler; every period T the
 * clusters' weights are recomputed from what they showed (a weighting
 * policy, fawkes_weights.c) and, when the discrimination Var(D) exceeds
 * tau, their targets follow the weights (water-filling over the floors,
 * the minimum shares): clusters over target give up transient servers
 * (by kill or decommission), clusters under it grow with free ones as
 * TR or TC servers, as they come free (every heartbeat).
 *
 * Where the seed is silent (docs/reproduction.md, FAWKES): every cluster
 * is deployed at time 0 on `core` core servers (no global queue, no data
 * load l^D); metrics are sampled every `sample` seconds, a period's y is
 * their mean (JT/TT: the period's completions over the mean waiting);
 * "waiting" tasks are those not started, of queued and of running jobs;
 * a reconfiguration is a period whose targets differ from the last; a
 * cluster whose jobs have all finished is removed, its servers, core
 * included, leaving by the shrink mode (by decommission, copying what
 * they store through the disks stands for b^D); with None no server ever
 * moves. */
#include "emu/mrcluster.h"
#include "emu/sched/fawkes.h"
#include <math.h>
#include <stdlib.h>

struct fawkes_opts {
	int policy;
	double period, tau, psi, a, sample;
	int grow, shrink, clusters, core, map_slots, reduce_slots;
	double disk_gb;
	const char *log;
	bool report;
};

enum { GROW_TR, GROW_TC };
enum { SHRINK_AUTO, SHRINK_KILL, SHRINK_DECOMMISSION };

struct fawkes {
	struct mrc m;
	int k, total;
	double next_sample, next_period;
	struct fawkes_obs *sum;   /* per cluster: sums of this period's samples */
	int nsamples;
	double *w, *y, *ref;      /* per cluster: weights; per job: reference runtime */
	int *target, *floor, *size;
	long *jobs_done, *tasks_done;   /* per cluster, this period */
	uint64_t *out_bytes;            /* per cluster, written since the start */
	bool *removed;
	struct fawkes_stats st;
	FILE *periods;
};

static int fawkes_init(struct sched *s)
{
	const struct fawkes_opts *o = s->opts;
	struct fawkes *f = s->priv;
	struct workload *w = s->c->w;
	int k = o->clusters ? o->clusters : 1;
	for (int j = 0; j < w->njobs && !o->clusters; j++)
		k = w->jobs[j].cluster > k ? w->jobs[j].cluster : k;
	int core = o->core * k <= s->c->nservers ? o->core : s->c->nservers / k;
	f->k = k;
	f->total = s->c->nservers;
	if (mrc_init(&f->m, s->c, k, core, o->map_slots, o->reduce_slots))
		return -1;
	f->sum = calloc(k, sizeof *f->sum);
	f->w = calloc(k, sizeof *f->w);
	f->y = calloc(k, sizeof *f->y);
	f->target = calloc(k, sizeof *f->target);
	f->floor = calloc(k, sizeof *f->floor);
	f->size = calloc(k, sizeof *f->size);
	f->jobs_done = calloc(k, sizeof *f->jobs_done);
	f->tasks_done = calloc(k, sizeof *f->tasks_done);
	f->out_bytes = calloc(k, sizeof *f->out_bytes);
	f->removed = calloc(k, sizeof *f->removed);
	f->ref = calloc(w->njobs ? w->njobs : 1, sizeof *f->ref);
	if (!f->sum || !f->w || !f->y || !f->target || !f->floor || !f->size || !f->jobs_done || !f->tasks_done ||
	    !f->out_bytes || !f->removed || !f->ref)
		return -1;
	for (int i = 0; i < k; i++) {
		f->target[i] = f->floor[i] = core;
		f->w[i] = 1.0 / k;
	}
	for (int j = 0; j < w->njobs; j++)
		f->ref[j] = fawkes_ref_runtime(&w->jobs[j], w->tasks, core, o->map_slots, o->reduce_slots);
	f->next_sample = 0;
	f->next_period = o->period;
	if (o->log && o->log[0]) {
		char path[600];
		snprintf(path, sizeof path, "%s-periods.csv", o->log);
		if (!(f->periods = fopen(path, "w")))
			return -1;
		fprintf(f->periods, "t,cluster,nodes,core,tr,tc,jobs_waiting,tasks_waiting,y,weight,target,var_d,"
				    "reconfig\n");
	}
	return 0;
}

static void fawkes_destroy(struct sched *s)
{
	const struct fawkes_opts *o = s->opts;
	struct fawkes *f = s->priv;
	if (!f)
		return;
	if (o->report)
		fprintf(stderr,
			"fawkes: periods %ld reconfigurations %ld grows %ld leaves %ld kills %ld re-replicated %llu bytes\n",
			f->st.periods, f->st.reconfigs, f->m.grows, f->m.leaves, f->m.kills,
			(unsigned long long)f->m.rereplicated);
	if (o->log && o->log[0] && s->c->w) {
		char path[600];
		snprintf(path, sizeof path, "%s-jobs.csv", o->log);
		FILE *j = fopen(path, "w");
		if (j) {
			fprintf(j, "job,name,cluster,submit_s,end_s,ref_s,slowdown\n");
			for (int i = 0; i < s->c->w->njobs; i++) {
				const struct job *x = &s->c->w->jobs[i];
				bool fin = s->c->arrived && s->c->arrived[i] && cluster_job_finished(x);
				fprintf(j, "%d,%s,%d,%.3f,%.3f,%.3f,%.4f\n", i, x->name, mrc_of_job(&f->m, x) + 1,
					x->submit_s, fin ? x->t_end : -1.0, f->ref[i],
					fin ? (x->t_end - x->submit_s) / f->ref[i] : -1.0);
			}
			fclose(j);
		}
	}
	if (f->periods)
		fclose(f->periods);
	mrc_free(&f->m);
	free(f->sum);
	free(f->w);
	free(f->y);
	free(f->target);
	free(f->floor);
	free(f->size);
	free(f->jobs_done);
	free(f->tasks_done);
	free(f->out_bytes);
	free(f->removed);
	free(f->ref);
}

/* ---- monitoring ---------------------------------------------------------- */

static int not_started(const struct job *j)
{
	int n = 0;
	for (int st = 0; st < j->nstages; st++)
		n += j->stages[st].ntasks - j->stages[st].done - j->stages[st].running - j->stages[st].suspended;
	return n;
}

static void sample(struct sched *s)
{
	const struct fawkes_opts *o = s->opts;
	struct fawkes *f = s->priv;
	for (int q = 0; q < s->c->running_jobs; q++) {
		const struct job *j = cluster_active(s->c, q);
		struct fawkes_obs *x = &f->sum[mrc_of_job(&f->m, j)];
		if (j->t_start < 0) {
			x->jobs_waiting++;
			x->bytes_waiting += (double)j->input_bytes;
		}
		x->tasks_waiting += not_started(j);
	}
	/* Slowdown: per cluster, the mean over its unfinished jobs. */
	double *sd = f->y;   /* scratch until the period's end */
	int *n = f->size;
	for (int i = 0; i < f->k; i++)
		sd[i] = n[i] = 0;
	for (int q = 0; q < s->c->running_jobs; q++) {
		const struct job *j = cluster_active(s->c, q);
		int i = mrc_of_job(&f->m, j);
		sd[i] += (s->c->now - j->submit_s) / f->ref[j->id];
		n[i]++;
	}
	for (int i = 0; i < f->k; i++) {
		int maps, reduces, busy = 0, servers = 0, storing = 0;
		for (int sv = 0; sv < s->c->nservers; sv++) {
			const struct mrc_node *nd = &f->m.node[sv];
			if (nd->owner != i)
				continue;
			mrc_running(&f->m, sv, &maps, &reduces);
			busy += maps + reduces;
			servers++;
			storing += nd->role != MRC_TR;
		}
		struct fawkes_obs *x = &f->sum[i];
		x->proc_usage += servers ? (double)busy / ((o->map_slots + o->reduce_slots) * servers) : 0;
		x->disk_usage += storing ? (double)f->out_bytes[i] / (storing * o->disk_gb * 1e9) : 0;
		x->slowdown += n[i] ? sd[i] / n[i] : 0;
	}
	f->nsamples++;
}

/* ---- allocation ---------------------------------------------------------- */

/* Cluster i gives up one transient server: by kill the one running fewest
 * tasks (ties: the latest to join), by decommission the one storing least. */
static bool give_up_one(struct fawkes *f, int i, enum mrc_leave how)
{
	int best = -1, bm = 0, br = 0;
	for (int sv = 0; sv < f->m.c->nservers; sv++) {
		const struct mrc_node *n = &f->m.node[sv];
		if (n->owner != i || n->leaving || (n->role == MRC_CORE && !f->removed[i]))
			continue;
		int maps, reduces;
		mrc_running(&f->m, sv, &maps, &reduces);
		const struct mrc_node *b = best >= 0 ? &f->m.node[best] : NULL;
		bool better = !b;
		if (b && how == MRC_KILL)
			better = maps + reduces < bm + br ||
				 (maps + reduces == bm + br && n->joined > b->joined);
		else if (b)
			better = n->stored < b->stored;
		if (better) {
			best = sv;
			bm = maps;
			br = reduces;
		}
	}
	if (best < 0)
		return false;
	mrc_leave(&f->m, best, how);
	return true;
}

static enum mrc_leave leave_mode(const struct fawkes_opts *o)
{
	if (o->shrink == SHRINK_AUTO)
		return o->grow == GROW_TR ? MRC_KILL : MRC_DECOMMISSION;
	return o->shrink == SHRINK_KILL ? MRC_KILL : MRC_DECOMMISSION;
}

/* Clusters over target shrink; free servers go to clusters under target,
 * the furthest below first. */
static void apply_targets(struct sched *s)
{
	const struct fawkes_opts *o = s->opts;
	struct fawkes *f = s->priv;
	for (int i = 0; i < f->k; i++)
		while (f->m.size[i] > f->target[i] && give_up_one(f, i, leave_mode(o)))
			;
	for (int sv = 0; sv < s->c->nservers; sv++) {
		if (f->m.node[sv].owner >= 0 || !s->c->servers[sv].alive)
			continue;
		int best = -1;
		for (int i = 0; i < f->k; i++)
			if (!f->removed[i] && f->m.size[i] < f->target[i] &&
			    (best < 0 || f->m.size[i] - f->target[i] < f->m.size[best] - f->target[best]))
				best = i;
		if (best < 0)
			break;
		mrc_grow(&f->m, sv, best, o->grow == GROW_TR ? MRC_TR : MRC_TC);
	}
}

/* A cluster with every job finished is removed: floor and weight 0. */
static void remove_finished(struct sched *s)
{
	struct fawkes *f = s->priv;
	bool *left = calloc(f->k, sizeof *left);
	if (!left)
		return;
	for (int j = 0; j < s->c->w->njobs; j++)
		if (!(s->c->arrived[j] && cluster_job_finished(&s->c->w->jobs[j])))
			left[mrc_of_job(&f->m, &s->c->w->jobs[j])] = true;
	for (int i = 0; i < f->k; i++)
		if (!left[i] && !f->removed[i]) {
			f->removed[i] = true;
			f->floor[i] = f->target[i] = 0;
		}
	free(left);
}

static void period(struct sched *s)
{
	const struct fawkes_opts *o = s->opts;
	struct fawkes *f = s->priv;
	f->st.periods++;
	if (o->policy != FW_NONE)
		remove_finished(s);
	struct fawkes_obs *obs = f->sum;
	double ns = f->nsamples ? f->nsamples : 1;
	for (int i = 0; i < f->k; i++) {
		struct fawkes_obs *x = &obs[i];
		x->jobs_waiting /= ns;
		x->bytes_waiting /= ns;
		x->tasks_waiting /= ns;
		x->proc_usage /= ns;
		x->disk_usage /= ns;
		x->slowdown /= ns;
		x->jobs_done = (double)f->jobs_done[i];
		x->tasks_done = (double)f->tasks_done[i];
		x->active = !f->removed[i];
	}
	fawkes_raw_weights(o->policy, obs, f->k, o->psi, o->a, f->y);
	double *w = calloc(f->k, sizeof *w);
	int *x = calloc(f->k, sizeof *x);
	bool changed = false;
	double var = 0;
	if (w && x) {
		for (int i = 0; i < f->k; i++)
			w[i] = f->y[i];
		if (o->policy != FW_NONE && fawkes_normalize(w, f->k) > 0) {
			for (int i = 0; i < f->k; i++)
				f->w[i] = w[i];
			var = fawkes_discrimination(f->m.size, f->w, f->k, f->total, o->period);
			if (var > o->tau) {
				fawkes_targets(f->w, f->floor, f->k, f->total, x);
				for (int i = 0; i < f->k; i++) {
					changed |= x[i] != f->target[i];
					f->target[i] = x[i];
				}
			}
		}
		f->st.reconfigs += changed;
	}
	for (int i = 0; f->periods && i < f->k; i++)
		fprintf(f->periods, "%.3f,%d,%d,%d,%d,%d,%.3f,%.3f,%.6g,%.6f,%d,%.6g,%d\n", s->c->now, i + 1,
			f->m.size[i], mrc_count(&f->m, i, MRC_CORE), mrc_count(&f->m, i, MRC_TR),
			mrc_count(&f->m, i, MRC_TC), obs[i].jobs_waiting, obs[i].tasks_waiting, f->y[i], f->w[i],
			f->target[i], var, changed);
	free(w);
	free(x);
	for (int i = 0; i < f->k; i++) {
		obs[i] = (struct fawkes_obs){0};
		f->jobs_done[i] = f->tasks_done[i] = 0;
	}
	f->nsamples = 0;
}

/* ---- hooks ---------------------------------------------------------------- */

static void fawkes_tick(struct sched *s)
{
	const struct fawkes_opts *o = s->opts;
	struct fawkes *f = s->priv;
	mrc_tick(&f->m);
	if (s->c->now >= f->next_sample - 1e-9) {
		sample(s);
		f->next_sample += o->sample;
	}
	if (s->c->now >= f->next_period - 1e-9) {
		period(s);
		f->next_period += o->period;
	}
	apply_targets(s);
}

static struct task *fawkes_offer(struct sched *s, int server)
{
	struct fawkes *f = s->priv;
	return mrc_offer(&f->m, s, server);
}

static void fawkes_task_finished(struct sched *s, struct task *t)
{
	struct fawkes *f = s->priv;
	const struct job *j = &s->c->w->jobs[t->job];
	int i = mrc_of_job(&f->m, j);
	mrc_task_done(&f->m, t);
	f->tasks_done[i]++;
	if (!j->stages[t->stage].has_children)
		f->out_bytes[i] += t->output_bytes;
	if (cluster_job_finished(j))
		f->jobs_done[i]++;
}

static void fawkes_place_input(struct sched *s, struct job *j, struct task *map, int replicas[3])
{
	(void)map;
	struct fawkes *f = s->priv;
	mrc_place_input(&f->m, &s->rng, j, replicas);
}

static int fawkes_output_server(struct sched *s, const struct task *t)
{
	const struct fawkes *f = s->priv;
	return mrc_output_server(&f->m, t);
}

static int fawkes_preempt(struct sched *s, struct preemption *out, int max)
{
	struct fawkes *f = s->priv;
	return mrc_victims(&f->m, out, max);
}

struct fawkes_stats fawkes_stats(const struct sched *s)
{
	const struct fawkes *f = s->priv;
	struct fawkes_stats st = f->st;
	st.grows = f->m.grows;
	st.leaves = f->m.leaves;
	st.kills = f->m.kills;
	st.rereplicated = f->m.rereplicated;
	return st;
}

int fawkes_size(const struct sched *s, int i, int role)
{
	const struct fawkes *f = s->priv;
	return mrc_count(&f->m, i, (enum mrc_role)role);
}

int fawkes_target(const struct sched *s, int i)
{
	return ((const struct fawkes *)s->priv)->target[i];
}

static const char *const policy_names[] = {"none", "eq", "jd", "dd", "td", "pu", "du", "ru", "js", "jt", "tt", NULL};
static const char *const grow_names[] = {"tr", "tc", NULL};
static const char *const shrink_names[] = {"auto", "kill", "decommission", NULL};
static const struct sched_opt fawkes_opt_table[] = {
	SCHED_CHOICE_OPT(struct fawkes_opts, policy, FW_TD, policy_names,
			 "weighting: none (minimum shares), eq (equal), demand jd/dd/td (queued jobs, bytes, tasks), "
			 "usage pu/du/ru (slots, disk, both), performance js/jt/tt (slowdown, job/task throughput)"),
	SCHED_NUM_OPT(struct fawkes_opts, period, 120, 0, INFINITY, SCHED_OPT_ABOVE_MIN,
		      "seconds between weight updates (T)"),
	SCHED_NUM_OPT(struct fawkes_opts, tau, 10, 0, INFINITY, 0,
		      "allocations change only when Var(D) exceeds this (D in seconds)"),
	SCHED_CHOICE_OPT(struct fawkes_opts, grow, GROW_TC, grow_names,
			 "a cluster grows with tr (compute only) or tc (compute, stores its output) servers"),
	SCHED_CHOICE_OPT(struct fawkes_opts, shrink, SHRINK_AUTO, shrink_names,
			 "a server leaves by kill (tasks killed, re-run) or decommission (when its tasks end, after "
			 "re-replication); auto: kill for tr, decommission for tc"),
	SCHED_INT_OPT(struct fawkes_opts, clusters, 0, 0, 1024,
		      "logical clusters (0: the largest job 'cluster' in the workload, at least 1)"),
	SCHED_INT_OPT(struct fawkes_opts, core, 10, 1, 100000,
		      "core servers per cluster, its minimum share (at most servers / clusters)"),
	SCHED_NUM_OPT(struct fawkes_opts, psi, 0.5, 0, 1, 0, "RU: weight of processor usage against disk usage"),
	SCHED_NUM_OPT(struct fawkes_opts, a, 2, 1, INFINITY, SCHED_OPT_ABOVE_MIN, "JT, TT: the base of a^-q"),
	SCHED_NUM_OPT(struct fawkes_opts, sample, 5, 0, INFINITY, SCHED_OPT_ABOVE_MIN,
		      "seconds between samples of the weights' metrics"),
	SCHED_INT_OPT(struct fawkes_opts, map_slots, 6, 1, 4096, "maps a server runs at once"),
	SCHED_INT_OPT(struct fawkes_opts, reduce_slots, 2, 1, 4096, "reduces a server runs at once"),
	SCHED_NUM_OPT(struct fawkes_opts, disk_gb, 2000, 0, INFINITY, SCHED_OPT_ABOVE_MIN,
		      "storage of a storing server, GB (DU's denominator)"),
	SCHED_STR_OPT(struct fawkes_opts, log, "",
		      "path prefix: PREFIX-periods.csv (each period and cluster) and PREFIX-jobs.csv (slowdowns)"),
	SCHED_BOOL_OPT(struct fawkes_opts, report, false, "print the reconfiguration counts at the end (stderr)"),
	{0},
};

const struct sched_ops sched_fawkes = {
	.name = "fawkes",
	.help = "logical MapReduce clusters resized every period by weights (FAWKES; None, EQ, 9 policies)",
	.priv_size = sizeof(struct fawkes),
	.opts = fawkes_opt_table,
	.opts_size = sizeof(struct fawkes_opts),
	.init = fawkes_init,
	.destroy = fawkes_destroy,
	.offer = fawkes_offer,
	.tick = fawkes_tick,
	.task_finished = fawkes_task_finished,
	.place_input = fawkes_place_input,
	.output_server = fawkes_output_server,
	.preempt = fawkes_preempt,
};
