/* dawn.c — Dawn (seed 000: Wang, Zhou, Zhang, Jiang, "Network-adaptive
 * scheduling of data-intensive parallel jobs with dependencies in
 * clusters"): dependent jobs placed so that a child's input gathers in one
 * rack where its parents wrote it, aggregation traffic spent only while the
 * network is not saturated.
 *
 *  - Dependency detector: the workload's deps (every job's parents are
 *    known from the start, as the paper's benchmark documentation), turned
 *    into each job's children (Next_x) once.
 *  - Online plan (dawn_plan.c's equations), per job, by its current stage:
 *    the input stage (maps) prefers the rack holding most of its pending
 *    input (Eq. 1); a middle stage (Tez) the rack holding most of what it
 *    reads (Eq. 2); the output stage (MapReduce's reduces) max_r (Eq. 2)
 *    and dep_r, the rack whose choice leaves the children's input most
 *    gathered (Eqs. 3-5).
 *  - Saturation: the network monitor's per-rack cross-rack utilisation,
 *    (out + in) / 2 of the uplink, aggregated (max by default) and compared
 *    with a threshold (0.8), optionally smoothed and with hysteresis.
 *  - Algorithm 1 on every offer from rack i, then the node-level tie-break
 *    among equal jobs, then the job's task for the offered server (a map
 *    node-local, then rack-local, then any; a reduce, one-to-one parent on
 *    the server first).  Nobody preferring rack i: the notes' relaxed
 *    fallback (jobs with any preferred rack i), then Fair with delay
 *    scheduling.
 *
 * Every choice the paper leaves open, with the option that makes it, is
 * listed in docs/reproduction.md, "Dawn". */
#include "emu/sched/dawn.h"
#include "emu/sched/nas.h"   /* delay_fair_order, delay_may_launch: the fallback */
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { AGG_MAX, AGG_MEAN, AGG_RACK };
enum { FB_STRICT, FB_RELAXED, FB_FAIR };
enum { REP_ANY, REP_FRACTION };
enum { STAGE_NONE, STAGE_INPUT, STAGE_MIDDLE, STAGE_OUTPUT };

struct dawn_opts {
	double saturation;    /* θ */
	int aggregate;        /* max | mean | rack */
	double hysteresis;    /* clear at θ - this */
	double ewma;          /* weight of the newest sample */
	int fallback;         /* strict | relaxed (then Fair) | fair */
	bool base_input;      /* Eq. 3 counts a child's own (base) input */
	int replicas;         /* a block is in every rack holding a replica, or 1/k in each */
	double tolerance;     /* line 22's "same traffic", relative */
	double slowstart;     /* a stage's parents done before Dawn offers it */
	bool node_tiebreak;   /* lines 28-29; off: the first of the set */
	double max_wait;      /* fallback: s a job waits off its preferred racks (NAN: the delay waits) */
	bool report;          /* print where the offers went, at the end (stderr) */
};

struct plan {
	int kind, stage;      /* STAGE_*, the stage it plans for */
	int n;
	struct dawn_pref p[2];
	bool dirty;
	unsigned out_gen;     /* output stage: the last-stage placements it saw */
	int requeues;
};

struct dawn {
	int *child_first, *child;   /* Next_x: child[child_first[x] .. child_first[x+1]) */
	struct plan *plan;
	struct dawn_cand *cand;
	struct job **cjob, **order;
	int *set;
	double *v, *inter, *here, *prevbuf, **prev;   /* per rack scratch; prev: a vector per child */
	int maxchild;
	unsigned out_gen;           /* bumped when a job's last stage places a task */
	double *u, *seen_out, *seen_in;   /* per rack: smoothed utilisation, the sample it came from */
	bool *sat;                  /* per rack (aggregate rack), [racks]: the cluster's */
	bool primed;
	double *waiting, *delay;    /* per job: waiting off its racks, delay scheduling's clock (fallback) */
	long n_offers, n_sat, n_alg1, n_relaxed, n_fair;   /* option report */
};

/* ---- the network ---------------------------------------------------------- */

static bool hysteresis_flag(bool was, double u, const struct dawn_opts *o)
{
	return was ? u >= o->saturation - o->hysteresis : u >= o->saturation;
}

/* Folds in a new monitor sample when there is one (utilisation changed). */
static void network_update(struct sched *s)
{
	struct dawn *d = s->priv;
	const struct dawn_opts *o = s->opts;
	const struct cluster *c = s->c;
	if (!c->rack_util_out || !c->rack_util_in)
		return;
	bool fresh = !d->primed;
	for (int r = 0; r < c->racks && !fresh; r++)
		fresh = c->rack_util_out[r] != d->seen_out[r] || c->rack_util_in[r] != d->seen_in[r];
	if (!fresh)
		return;
	double agg = 0;
	for (int r = 0; r < c->racks; r++) {
		double u = (c->rack_util_out[r] + c->rack_util_in[r]) / 2;
		d->u[r] = d->primed ? o->ewma * u + (1 - o->ewma) * d->u[r] : u;
		d->seen_out[r] = c->rack_util_out[r];
		d->seen_in[r] = c->rack_util_in[r];
		d->sat[r] = hysteresis_flag(d->sat[r], d->u[r], o);
		agg = o->aggregate == AGG_MEAN ? agg + d->u[r] / c->racks : fmax(agg, d->u[r]);
	}
	d->sat[c->racks] = hysteresis_flag(d->sat[c->racks], agg, o);
	d->primed = true;
}

static bool saturated(struct sched *s, int rack)
{
	struct dawn *d = s->priv;
	network_update(s);
	return ((const struct dawn_opts *)s->opts)->aggregate == AGG_RACK ? d->sat[rack] : d->sat[s->c->racks];
}

/* ---- the online plan ------------------------------------------------------ */

/* The stage whose tasks Dawn would offer now, and its first such task. */
static int current_stage(struct sched *s, struct job *j, struct task **t)
{
	const struct dawn_opts *o = s->opts;
	*t = NULL;
	if (cluster_pending_maps(s->c, j))
		return 0;
	struct task *r = cluster_next_reduce(s->c, j);
	if (!r)
		return -1;
	const struct stage *st = &j->stages[r->stage];
	for (int p = 0; p < st->nparents; p++) {   /* the paper's sequential stages */
		const struct stage *ps = &j->stages[st->parent[p].stage];
		if (st->parent[p].kind != EDGE_ONE_TO_ONE && ps->done < o->slowstart * ps->ntasks - 1e-9)
			return -1;
	}
	*t = r;
	return r->stage;
}

static bool is_last_stage(const struct job *j, int st)
{
	return !j->stages[st].has_children;
}

/* Eq. 1's vector: the job's pending input per rack (or per server, node >= 0:
 * on that server alone). */
static void pending_input(struct sched *s, const struct job *j, double *v, int node)
{
	const struct dawn_opts *o = s->opts;
	const struct cluster *c = s->c;
	int racks = c->racks;
	memset(v, 0, (node >= 0 ? 1 : racks) * sizeof *v);
	for (int i = 0; i < j->nmaps; i++) {
		const struct task *t = job_map(c->w->tasks, j, i);
		if (t->state != TASK_PENDING)
			continue;
		if (node >= 0) {
			for (int k = 0; k < 3; k++)
				if (t->replicas[k] == node) {
					v[0] += t->input_bytes;
					break;
				}
			continue;
		}
		int seen[3], ns = 0;
		for (int k = 0; k < 3; k++) {
			if (t->replicas[k] < 0)
				continue;
			int r = cluster_rack_of(c, t->replicas[k]), q = 0;
			while (q < ns && seen[q] != r)
				q++;
			if (q == ns)
				seen[ns++] = r;
		}
		for (int q = 0; q < ns; q++)
			v[seen[q]] += o->replicas == REP_ANY ? (double)t->input_bytes : (double)t->input_bytes / ns;
	}
}

static double pending_input_total(const struct cluster *c, const struct job *j)
{
	double sum = 0;
	for (int i = 0; i < j->nmaps; i++) {
		const struct task *t = job_map(c->w->tasks, j, i);
		sum += t->state == TASK_PENDING ? (double)t->input_bytes : 0;
	}
	return sum;
}

/* Eq. 2's vector for stage st: its parent stages' outputs where their tasks
 * run or ran (node >= 0: on that server alone). */
static void stage_inter(const struct cluster *c, const struct job *j, int st, double *v, int node)
{
	memset(v, 0, (node >= 0 ? 1 : c->racks) * sizeof *v);
	const struct stage *s = &j->stages[st];
	for (int p = 0; p < s->nparents; p++) {
		const struct stage *ps = &j->stages[s->parent[p].stage];
		for (int i = 0; i < ps->ntasks; i++) {
			const struct task *t = stage_task(c->w->tasks, j, s->parent[p].stage, i);
			if (t->server < 0 || t->state == TASK_PENDING)
				continue;
			if (node < 0)
				v[cluster_rack_of(c, t->server)] += t->output_bytes;
			else if (t->server == node)
				v[0] += t->output_bytes;
		}
	}
}

/* A job's last-stage output per rack where placed; returns what is unplaced. */
static double job_output(const struct cluster *c, const struct job *j, double *v)
{
	double rest = 0;
	for (int st = 0; st < j->nstages; st++) {
		if (!is_last_stage(j, st))
			continue;
		for (int i = 0; i < j->stages[st].ntasks; i++) {
			const struct task *t = stage_task(c->w->tasks, j, st, i);
			if (t->server >= 0 && t->state != TASK_PENDING)
				v[cluster_rack_of(c, t->server)] += t->output_bytes;
			else
				rest += t->output_bytes;
		}
	}
	return rest;
}

static void plan_job(struct sched *s, struct job *j)
{
	struct dawn *d = s->priv;
	const struct dawn_opts *o = s->opts;
	const struct cluster *c = s->c;
	struct plan *p = &d->plan[j->id];
	struct task *t;
	int st = current_stage(s, j, &t), R = c->racks;
	p->dirty = false;
	p->requeues = j->requeues;
	p->out_gen = d->out_gen;
	p->stage = st;
	p->n = 0;
	if (st < 0) {
		p->kind = STAGE_NONE;
		return;
	}
	if (st == 0) {   /* Eq. 1: proactive aggregation of the maps */
		p->kind = STAGE_INPUT;
		pending_input(s, j, d->v, -1);
		double cost;
		int r = dawn_max_rack(R, d->v, &cost);
		/* With a replica counted in every rack it is in, v sums to more than the input. */
		if (o->replicas == REP_ANY)
			cost = pending_input_total(c, j) - d->v[r];
		p->p[p->n++] = (struct dawn_pref){r, cost};
		return;
	}
	stage_inter(c, j, st, d->inter, -1);
	double cmin;
	int rmax = dawn_max_rack(R, d->inter, &cmin);   /* Eq. 2 */
	p->p[p->n++] = (struct dawn_pref){rmax, cmin};
	int nchild = d->child_first[j->id + 1] - d->child_first[j->id];
	if (!is_last_stage(j, st) || !nchild) {
		p->kind = STAGE_MIDDLE;
		return;
	}
	p->kind = STAGE_OUTPUT;
	/* Eq. 3: each child's input from its other parents (and its base input, spread as HDFS would). */
	for (int k = 0; k < nchild; k++) {
		const struct job *y = &c->w->jobs[d->child[d->child_first[j->id] + k]];
		double *pv = d->prev[k];
		memset(pv, 0, R * sizeof *pv);
		for (int q = 0; q < y->ndeps; q++)
			if (y->deps[q] != j->id)
				job_output(c, &c->w->jobs[y->deps[q]], pv);
		if (o->base_input && y->input_bytes > y->lineage_bytes)
			for (int r = 0; r < R; r++)
				pv[r] += (double)(y->input_bytes - y->lineage_bytes) / R;
	}
	memset(d->here, 0, R * sizeof *d->here);
	double rest = job_output(c, j, d->here);
	int rdep = dawn_dep_rack(R, d->inter, rmax, d->here, rest, nchild, (const double *const *)d->prev, NULL);
	if (rdep != rmax) {   /* Eq. 5 */
		double sum = 0;
		for (int r = 0; r < R; r++)
			sum += d->inter[r];
		p->p[p->n++] = (struct dawn_pref){rdep, sum - d->inter[rdep]};
	}
}

static void plan_update(struct sched *s)
{
	struct dawn *d = s->priv;
	for (int i = 0; i < s->c->running_jobs; i++) {
		struct job *j = cluster_active(s->c, i);
		struct plan *p = &d->plan[j->id];
		if (p->dirty || p->requeues != j->requeues || (p->kind == STAGE_OUTPUT && p->out_gen != d->out_gen))
			plan_job(s, j);
	}
}

/* Lines 28-29: the cross-node traffic job j would cause with its next task on `server`. */
static double node_cost(struct sched *s, struct job *j, int server)
{
	struct dawn *d = s->priv;
	const struct plan *p = &d->plan[j->id];
	double on;
	if (p->kind == STAGE_INPUT) {
		pending_input(s, j, &on, server);
		return pending_input_total(s->c, j) - on;
	}
	stage_inter(s->c, j, p->stage, d->v, -1);
	double sum = 0;
	for (int r = 0; r < s->c->racks; r++)
		sum += d->v[r];
	stage_inter(s->c, j, p->stage, &on, server);
	return sum - on;
}

/* ---- offers ---------------------------------------------------------------- */

static struct task *job_task(struct sched *s, struct job *j, int server)
{
	struct dawn *d = s->priv;
	struct task *t;
	int st = current_stage(s, j, &t);
	if (st < 0)
		return NULL;
	if (st == 0)
		t = cluster_best_map(s->c, j, server, NULL);
	else
		t = cluster_next_reduce_on(s->c, j, server);
	if (t) {
		d->plan[j->id].dirty = true;
		if (is_last_stage(j, t->stage))
			d->out_gen++;
	}
	return t;
}

static bool prefers_rack(const struct plan *p, int rack)
{
	for (int k = 0; k < p->n; k++)
		if (p->p[k].rack == rack)
			return true;
	return false;
}

/* Fair order with delay scheduling (the notes' fallback), a job off its
 * preferred racks first waiting max_wait (0 by default: at once). */
static struct task *fair_fallback(struct sched *s, int server)
{
	struct dawn *d = s->priv;
	const struct dawn_opts *o = s->opts;
	double max_wait = isnan(o->max_wait) ? s->p.node_wait_s + s->p.rack_wait_s : o->max_wait;
	int rack = cluster_rack_of(s->c, server);
	int n = delay_fair_order(s, d->order);
	for (int k = 0; k < n; k++) {
		struct job *j = d->order[k];
		struct task *t;
		int st = current_stage(s, j, &t);
		if (st < 0)
			continue;
		double *since = &d->waiting[j->id];
		if (max_wait > 0 && !prefers_rack(&d->plan[j->id], rack)) {
			if (*since < 0)
				*since = s->c->now;
			if (s->c->now - *since < max_wait)
				continue;
		}
		enum locality loc;
		if (st > 0 || (cluster_best_map(s->c, j, server, &loc) && delay_may_launch(s, &d->delay[j->id], loc)))
			return job_task(s, j, server);
	}
	return NULL;
}

static struct task *dawn_offer(struct sched *s, int server)
{
	struct dawn *d = s->priv;
	const struct dawn_opts *o = s->opts;
	struct cluster *c = s->c;
	int rack = cluster_rack_of(c, server);
	plan_update(s);   /* line 2 */
	bool sat = saturated(s, rack);
	d->n_offers++;
	d->n_sat += sat;
	int n = 0;
	for (int i = 0; i < c->running_jobs; i++) {
		struct job *j = cluster_active(c, i);
		const struct plan *p = &d->plan[j->id];
		if (!p->n)
			continue;
		d->cjob[n] = j;
		d->cand[n] = (struct dawn_cand){p->n, {p->p[0], p->p[1]}, j->submit_s, j->id};
		n++;
	}
	bool relaxed_used;
	int m = dawn_select(d->cand, n, rack, sat, o->tolerance, o->fallback == FB_RELAXED, d->set, &relaxed_used);
	if (!m) {
		if (o->fallback == FB_STRICT)
			return NULL;
		struct task *t = fair_fallback(s, server);
		d->n_fair += t != NULL;
		return t;
	}
	int best = d->set[0];
	if (m > 1 && o->node_tiebreak) {   /* lines 28-29 */
		double bc = node_cost(s, d->cjob[best], server);
		for (int k = 1; k < m; k++) {
			double nc = node_cost(s, d->cjob[d->set[k]], server);
			if (sat ? nc < bc : nc > bc) {
				best = d->set[k];
				bc = nc;
			}
		}
	}
	struct task *t = job_task(s, d->cjob[best], server);
	for (int k = 0; !t && k < m; k++)   /* its task fits nowhere here: the next of the set */
		t = job_task(s, d->cjob[d->set[k]], server);
	if (t) {
		d->waiting[t->job] = -1;
		*(relaxed_used ? &d->n_relaxed : &d->n_alg1) += 1;
	}
	return t;
}

static void dawn_task_finished(struct sched *s, struct task *t)
{
	struct dawn *d = s->priv;
	d->plan[t->job].dirty = true;
}

static void dawn_job_arrived(struct sched *s, struct job *j)
{
	struct dawn *d = s->priv;
	d->plan[j->id].dirty = true;
}

static void dawn_tick(struct sched *s)
{
	network_update(s);
}

/* ---- setup ---------------------------------------------------------------- */

static int dawn_init(struct sched *s)
{
	struct dawn *d = s->priv;
	const struct workload *w = s->c->w;
	int nj = w->njobs, R = s->c->racks;
	d->child_first = calloc(nj + 2, sizeof *d->child_first);
	d->plan = calloc(nj ? nj : 1, sizeof *d->plan);
	d->cand = calloc(nj ? nj : 1, sizeof *d->cand);
	d->cjob = calloc(nj ? nj : 1, sizeof *d->cjob);
	d->order = calloc(nj ? nj : 1, sizeof *d->order);
	d->set = calloc(nj ? nj : 1, sizeof *d->set);
	d->waiting = malloc((nj ? nj : 1) * sizeof *d->waiting);
	d->delay = malloc((nj ? nj : 1) * sizeof *d->delay);
	d->v = calloc(R + 1, sizeof *d->v);
	d->inter = calloc(R + 1, sizeof *d->inter);
	d->here = calloc(R + 1, sizeof *d->here);
	d->u = calloc(R + 1, sizeof *d->u);
	d->seen_out = calloc(R + 1, sizeof *d->seen_out);
	d->seen_in = calloc(R + 1, sizeof *d->seen_in);
	d->sat = calloc(R + 1, sizeof *d->sat);
	if (!d->child_first || !d->plan || !d->cand || !d->cjob || !d->order || !d->set || !d->waiting || !d->delay || !d->v ||
	    !d->inter || !d->here || !d->u || !d->seen_out || !d->seen_in || !d->sat)
		return -1;
	/* The dependency detector: Next_x from every job's deps. */
	for (int y = 0; y < nj; y++)
		for (int q = 0; q < w->jobs[y].ndeps; q++)
			d->child_first[w->jobs[y].deps[q] + 1]++;
	for (int x = 0; x < nj; x++) {
		int k = d->child_first[x + 1];
		d->maxchild = k > d->maxchild ? k : d->maxchild;
		d->child_first[x + 1] += d->child_first[x];
	}
	int total = d->child_first[nj];
	if (!(d->child = malloc((total ? total : 1) * sizeof *d->child)))
		return -1;
	int *fill = calloc(nj ? nj : 1, sizeof *fill);
	if (!fill)
		return -1;
	for (int y = 0; y < nj; y++)
		for (int q = 0; q < w->jobs[y].ndeps; q++) {
			int x = w->jobs[y].deps[q];
			d->child[d->child_first[x] + fill[x]++] = y;
		}
	free(fill);
	int mc = d->maxchild ? d->maxchild : 1;
	d->prevbuf = calloc((size_t)mc * R + 1, sizeof *d->prevbuf);
	d->prev = calloc(mc, sizeof *d->prev);
	if (!d->prevbuf || !d->prev)
		return -1;
	for (int k = 0; k < mc; k++)
		d->prev[k] = d->prevbuf + (size_t)k * R;
	for (int i = 0; i < nj; i++) {
		d->plan[i].dirty = true;
		d->waiting[i] = d->delay[i] = -1;
	}
	return 0;
}

static void dawn_destroy(struct sched *s)
{
	struct dawn *d = s->priv;
	if (!d)
		return;
	if (((const struct dawn_opts *)s->opts)->report)
		fprintf(stderr, "dawn: offers %ld saturated %ld algorithm1 %ld relaxed %ld fair %ld\n", d->n_offers,
			d->n_sat, d->n_alg1, d->n_relaxed, d->n_fair);
	free(d->child_first);
	free(d->child);
	free(d->plan);
	free(d->cand);
	free(d->cjob);
	free(d->order);
	free(d->set);
	free(d->waiting);
	free(d->delay);
	free(d->v);
	free(d->inter);
	free(d->here);
	free(d->prevbuf);
	free(d->prev);
	free(d->u);
	free(d->seen_out);
	free(d->seen_in);
	free(d->sat);
}

static int dawn_check(const void *opts, char *err, size_t len)
{
	const struct dawn_opts *o = opts;
	if (o->hysteresis >= o->saturation) {
		snprintf(err, len, "hysteresis (%g) must be below saturation (%g)", o->hysteresis, o->saturation);
		return -1;
	}
	return 0;
}

static const char *const agg_names[] = {"max", "mean", "rack", NULL};
static const char *const fb_names[] = {"strict", "relaxed", "fair", NULL};
static const char *const rep_names[] = {"any", "fraction", NULL};
static const struct sched_opt dawn_opt_table[] = {
	SCHED_NUM_OPT(struct dawn_opts, saturation, 0.8, 0, INFINITY, SCHED_OPT_ABOVE_MIN,
		      "the network is saturated while the cross-rack utilisation, (out + in) / 2 of a rack's "
		      "uplink aggregated over racks, is at least this; above 1, never"),
	SCHED_CHOICE_OPT(struct dawn_opts, aggregate, AGG_MAX, agg_names,
			 "over racks: max, mean, or rack (each heartbeat's own rack)"),
	SCHED_NUM_OPT(struct dawn_opts, hysteresis, 0, 0, 1, 0,
		      "once saturated, the network stays so until below saturation - this"),
	SCHED_NUM_OPT(struct dawn_opts, ewma, 1, 0, 1, SCHED_OPT_ABOVE_MIN,
		      "weight of the newest monitor sample in the utilisation (1: no smoothing)"),
	SCHED_CHOICE_OPT(struct dawn_opts, fallback, FB_RELAXED, fb_names,
			 "when no job's selected rack is the heartbeat's: strict (leave it idle), relaxed (the jobs "
			 "with any preferred rack there, then Fair with delay scheduling) or fair (Fair with delay "
			 "scheduling at once)"),
	SCHED_BOOL_OPT(struct dawn_opts, base_input, false,
		       "Eq. 3 also counts a child's own input (placed when it arrives: spread evenly)"),
	SCHED_CHOICE_OPT(struct dawn_opts, replicas, REP_ANY, rep_names,
			 "Eq. 1: a block is in every rack holding a replica (any) or 1/k in each of its k racks"),
	SCHED_NUM_OPT(struct dawn_opts, tolerance, 0.01, 0, 1, 0,
		      "Algorithm 1 line 22: traffics within this fraction are the same"),
	SCHED_NUM_OPT(struct dawn_opts, slowstart, 1, 0, 1, 0,
		      "a stage is offered once its parent stages have done this fraction (1: sequential, as "
		      "the paper assumes; the run's --slowstart applies too)"),
	SCHED_BOOL_OPT(struct dawn_opts, node_tiebreak, true,
		       "among jobs of the same traffic, the least (saturated) or most cross-node traffic on "
		       "the offered server; off: the first"),
	SCHED_NUM_OPT(struct dawn_opts, max_wait, 0, 0, INFINITY, SCHED_OPT_AUTO,
		      "fallback: seconds a job waits before a rack it does not prefer takes its task (0: at "
		      "once; auto: the delay scheduling waits, node + rack)"),
	SCHED_BOOL_OPT(struct dawn_opts, report, false,
		       "at the end, print to stderr the offers, those made while saturated, and the tasks "
		       "placed by Algorithm 1, its relaxed pass and the Fair fallback"),
	{0},
};

const struct sched_ops sched_dawn = {
	.name = "dawn",
	.help = "Dawn (seed 000): dependent jobs' data gathered in preferred racks, aggregation while the "
		"network is not saturated",
	.priv_size = sizeof(struct dawn),
	.opts = dawn_opt_table,
	.opts_size = sizeof(struct dawn_opts),
	.check = dawn_check,
	.init = dawn_init,
	.destroy = dawn_destroy,
	.job_arrived = dawn_job_arrived,
	.offer = dawn_offer,
	.task_finished = dawn_task_finished,
	.tick = dawn_tick,
};
