/* hybrid.c — the dissertation's Hybrid scale-up/scale-out cluster (Chapter 5):
 * job placement by job type, job stealing and replication-based data
 * placement, over Fair (h-fs) or Delay (h-ds) within each queue.
 *
 *  - Scale-up servers are those faster than the reference (speed > 1) or
 *    whose class has the crosspoint compute model; the others scale out.
 *  - Job placement (§5.2.3): on arrival a job is classified (emu/classify.h:
 *    an RBF SVM on its maps, reduces and shuffle, the shuffle 0 when it is
 *    not recurring; without a model, the compute model's crosspoint rule on
 *    the same features) into the scale-up or the scale-out queue.  A
 *    scale-up server runs only the scale-up queue's jobs and stays idle
 *    when it has none; a scale-out server only the scale-out queue's.
 *  - Job stealing: a scale-out server offered a container while no job of
 *    the scale-out queue has a task to run moves the scale-up job that has
 *    not started and lies nearest the hyperplane (least |decision|) to the
 *    scale-out queue, for good.  Never the other way.
 *  - Data placement (§5.2.4): replicas 1 and 2 of every block on two servers
 *    of one scale-out rack, replica 3 on a scale-up server.
 *
 * The ablations of §5.3.4 are options (and aliases of h-fs): placement=off
 * (H-w/o-P: one queue, every server), stealing=off (H-w/o-JS), dps=off
 * (H-w/o-DPS: HDFS's default placement).  H-FS-w/o and H-DS-w/o, the
 * hybrid cluster without any strategy, are fair and delay on it. */
#include "emu/classify.h"
#include "emu/compute_model.h"
#include "emu/sched/nas.h"   /* delay_fair_order, delay_may_launch */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { Q_OUT, Q_UP, Q_ANY };

struct hybrid_opts {
	bool placement, stealing, dps;
	const char *svm_model, *svm_train, *svm_save, *class_log;
};

struct hybrid_job {
	signed char queue;      /* Q_OUT or Q_UP once arrived */
	bool predicted_up;      /* the classifier's answer (queue may change by stealing) */
	bool stolen;
	double decision;        /* positive on the scale-up side */
	double waiting_since;   /* h-ds: delay scheduling's clock, -1 = not waiting */
};

struct hybrid {
	struct classifier svm;
	bool have_svm;
	struct hybrid_job *js;
	struct job **order;
	int *up, nup;           /* scale-up servers */
	int up_containers;      /* theirs together */
	int *out, nout;         /* scale-out servers, rack by rack */
};

#define OPTS(s) ((const struct hybrid_opts *)(s)->opts)

static bool is_up(const struct server *sv)
{
	return sv->speed > 1 || sv->model == TOPO_MODEL_CROSSPOINT;
}

/* ---- classification ----------------------------------------------------- */

static struct job_features features_of(const struct sched *s, const struct job *j)
{
	double scale = s->c->w->params.data_scale > 0 ? s->c->w->params.data_scale : 1;
	return (struct job_features){.maps = j->nmaps, .reduces = j->nreduces,
				     .shuffle_bytes = j->recurring ? (double)j->pred_shuffle_bytes / scale : 0};
}

/* Without a model: small when the input is under the crosspoint its known
 * shuffle gives; the decision is the log ratio, for stealing. */
static bool classify_job(struct sched *s, const struct job *j, double *decision)
{
	struct hybrid *h = s->priv;
	struct job_features x = features_of(s, j);
	if (h->have_svm)
		return classify_predict(&h->svm, &x, decision);
	double scale = s->c->w->params.data_scale > 0 ? s->c->w->params.data_scale : 1;
	double input = fmax((double)j->input_bytes / scale, 1);
	*decision = log(compute_crosspoint_bytes(input, x.shuffle_bytes) / input);
	return *decision >= 0;
}

static void hybrid_job_arrived(struct sched *s, struct job *j)
{
	struct hybrid *h = s->priv;
	struct hybrid_job *x = &h->js[j->id];
	x->predicted_up = classify_job(s, j, &x->decision);
	x->queue = x->predicted_up ? Q_UP : Q_OUT;
}

/* ---- job placement and stealing ----------------------------------------- */

static bool waiting(const struct sched *s, const struct job *j)
{
	return cluster_pending_maps(s->c, j) || cluster_pending_reduces(s->c, j);
}

static bool in_queue(const struct hybrid *h, const struct job *j, int q)
{
	return q == Q_ANY || h->js[j->id].queue == q;
}

/* A job of queue q waits to be scheduled. */
static bool queue_waiting(const struct sched *s, int q)
{
	for (int i = 0; i < s->c->running_jobs; i++) {
		const struct job *j = cluster_active(s->c, i);
		if (in_queue(s->priv, j, q) && waiting(s, j))
			return true;
	}
	return false;
}

static void steal(struct sched *s)
{
	struct hybrid *h = s->priv;
	struct job *best = NULL;
	for (int i = 0; i < s->c->running_jobs; i++) {
		struct job *j = cluster_active(s->c, i);
		if (h->js[j->id].queue != Q_UP || j->t_start >= 0 || !waiting(s, j))
			continue;
		if (!best || fabs(h->js[j->id].decision) < fabs(h->js[best->id].decision))
			best = j;
	}
	if (best) {
		h->js[best->id].queue = Q_OUT;
		h->js[best->id].stolen = true;
	}
}

/* YARN's ramp-up limit on early reduces counts the whole cluster: the
 * scale-up queue's few servers could fill with reduces waiting for maps
 * that find no container there (a deadlock seen with stealing off).  The
 * queue's early reduces hold at most half of its servers' containers. */
static bool queue_ramp_up_ok(const struct sched *s, const struct job *j)
{
	const struct hybrid *h = s->priv;
	if (!OPTS(s)->placement || h->js[j->id].queue != Q_UP)
		return true;
	int early = 0;
	for (int i = 0; i < s->c->running_jobs; i++) {
		const struct job *o = cluster_active(s->c, i);
		if (h->js[o->id].queue == Q_UP && cluster_pending_maps(s->c, o))
			early += o->reduces_running;
	}
	return early < 0.5 * h->up_containers;
}

/* Fair within queue q: the job with the fewest running tasks (then the
 * earliest), as fair.c. */
static struct task *fs_pick(struct sched *s, int server, int q)
{
	struct job *best = NULL;
	for (int i = 0; i < s->c->running_jobs; i++) {
		struct job *j = cluster_active(s->c, i);
		if (!in_queue(s->priv, j, q) || !waiting(s, j))
			continue;
		if (!best || sched_running(j) < sched_running(best) ||
		    (sched_running(j) == sched_running(best) && j->submit_s < best->submit_s))
			best = j;
	}
	return best ? sched_job_task_if(s, best, server, queue_ramp_up_ok(s, best)) : NULL;
}

/* Delay within queue q, as delay.c: in fair order, a job takes a reduce
 * when one may start, else a map once its locality wait allows. */
static struct task *ds_pick(struct sched *s, int server, int q)
{
	struct hybrid *h = s->priv;
	int n = delay_fair_order(s, h->order);
	for (int k = 0; k < n; k++) {
		struct job *j = h->order[k];
		if (!in_queue(h, j, q))
			continue;
		struct task *r = cluster_next_reduce(s->c, j);
		if (r && cluster_pending_maps(s->c, j) && sched_ramp_up_ok(s->c, j) && queue_ramp_up_ok(s, j))
			return r;
		enum locality loc;
		struct task *m = cluster_best_map(s->c, j, server, &loc);
		if (!m) {
			if ((r = cluster_next_reduce(s->c, j)))
				return r;
			continue;
		}
		if (delay_may_launch(s, &h->js[j->id].waiting_since, loc))
			return m;
	}
	return NULL;
}

static struct task *hybrid_offer(struct sched *s, int server, struct task *(*pick)(struct sched *, int, int))
{
	const struct hybrid_opts *o = OPTS(s);
	if (!o->placement)
		return pick(s, server, Q_ANY);
	if (is_up(&s->c->servers[server]))
		return pick(s, server, Q_UP);
	if (o->stealing && !queue_waiting(s, Q_OUT))
		steal(s);
	return pick(s, server, Q_OUT);
}

static struct task *hfs_offer(struct sched *s, int server) { return hybrid_offer(s, server, fs_pick); }
static struct task *hds_offer(struct sched *s, int server) { return hybrid_offer(s, server, ds_pick); }

/* ---- data placement ----------------------------------------------------- */

static void hybrid_place_input(struct sched *s, struct job *j, struct task *map, int replicas[3])
{
	(void)j;
	(void)map;
	struct hybrid *h = s->priv;
	if (!OPTS(s)->dps || !h->nup || !h->nout) {
		placement_default(s->c, &s->rng, replicas);
		return;
	}
	/* Two servers of one scale-out rack (HDFS's two-rack rule holds with the
	 * third on the scale-up rack), the other one of its rack when it has one. */
	int a = h->out[rng_below(&s->rng, h->nout)], first, n;
	cluster_rack_servers(s->c, cluster_rack_of(s->c, a), &first, &n);
	int b = -1;
	for (int tries = 0; tries < 64 && (b < 0 || b == a || is_up(&s->c->servers[b])); tries++)
		b = first + rng_below(&s->rng, n);
	replicas[0] = a;
	replicas[1] = b != a && !is_up(&s->c->servers[b]) ? b : -1;
	replicas[2] = h->up[rng_below(&s->rng, h->nup)];
}

/* ---- options, life ------------------------------------------------------ */

static int load_or_train(struct classifier *k, const struct hybrid_opts *o, char *err, size_t len)
{
	if (*o->svm_model)
		return classify_load(k, o->svm_model, err, len);
	struct labelled_job *set;
	int n;
	if (classify_read_labels(o->svm_train, &set, &n, err, len))
		return -1;
	int rc = classify_train(k, set, n, 5, err, len);
	free(set);
	return rc;
}

static int hybrid_check(const void *opts, char *err, size_t len)
{
	const struct hybrid_opts *o = opts;
	if (*o->svm_model && *o->svm_train) {
		snprintf(err, len, "svm_model and svm_train: give one (a model, or the labels to train one on)");
		return -1;
	}
	if (*o->svm_save && !*o->svm_train) {
		snprintf(err, len, "svm_save needs svm_train (it writes the model trained)");
		return -1;
	}
	if (*o->svm_model) {
		struct classifier k;
		if (classify_load(&k, o->svm_model, err, len))
			return -1;
		classify_free(&k);
	}
	if (*o->svm_train) {
		struct labelled_job *set;
		int n, ups = 0;
		if (classify_read_labels(o->svm_train, &set, &n, err, len))
			return -1;
		for (int i = 0; i < n; i++)
			ups += set[i].up;
		free(set);
		if (n < 5 || ups == 0 || ups == n) {
			snprintf(err, len, "%s: the classifier needs both labels and at least 5 jobs (%d jobs, %d up)",
				 o->svm_train, n, ups);
			return -1;
		}
	}
	return 0;
}

static int hybrid_init(struct sched *s)
{
	struct hybrid *h = s->priv;
	const struct hybrid_opts *o = OPTS(s);
	const struct cluster *c = s->c;
	int nj = c->w->njobs ? c->w->njobs : 1, ns = c->nservers ? c->nservers : 1;
	h->js = calloc(nj, sizeof *h->js);
	h->order = calloc(nj, sizeof *h->order);
	h->up = calloc(ns, sizeof *h->up);
	h->out = calloc(ns, sizeof *h->out);
	if (!h->js || !h->order || !h->up || !h->out)
		return -1;
	for (int i = 0; i < c->w->njobs; i++)
		h->js[i].waiting_since = -1;
	for (int i = 0; i < c->nservers; i++) {
		if (is_up(&c->servers[i])) {
			h->up[h->nup++] = i;
			h->up_containers += c->servers[i].containers;
		} else
			h->out[h->nout++] = i;
	}
	char err[512];
	if (*o->svm_model || *o->svm_train) {
		if (load_or_train(&h->svm, o, err, sizeof err) ||
		    (*o->svm_save && classify_save(&h->svm, o->svm_save, err, sizeof err))) {
			fprintf(stderr, "%s: %s\n", s->ops->name, err);
			return -1;
		}
		h->have_svm = true;
	}
	return 0;
}

/* class_log: per job its features, class, decision and whether it was
 * stolen (experiments/hybrid's accuracy table reads it). */
static void write_class_log(const struct sched *s, const char *path)
{
	const struct hybrid *h = s->priv;
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return;
	}
	if (h->have_svm)
		fprintf(f, "# svm C=%g gamma=%g cv_accuracy=%.4f\n", h->svm.c, h->svm.gamma, h->svm.cv_accuracy);
	else
		fprintf(f, "# crosspoint rule\n");
	fprintf(f, "job,name,maps,reduces,shuffle_feature_bytes,recurring,class,decision,stolen\n");
	for (int i = 0; i < s->c->w->njobs; i++) {
		const struct job *j = &s->c->w->jobs[i];
		if (!s->c->arrived[i])
			continue;
		struct job_features x = features_of(s, j);
		fprintf(f, "%d,%s,%d,%d,%.0f,%d,%s,%.6f,%d\n", i, j->name, j->nmaps, j->nreduces, x.shuffle_bytes,
			j->recurring, h->js[i].predicted_up ? "up" : "out", h->js[i].decision, h->js[i].stolen);
	}
	fclose(f);
}

static void hybrid_destroy(struct sched *s)
{
	struct hybrid *h = s->priv;
	if (h->js && *OPTS(s)->class_log)
		write_class_log(s, OPTS(s)->class_log);
	classify_free(&h->svm);
	free(h->js);
	free(h->order);
	free(h->up);
	free(h->out);
}

static const struct sched_opt hybrid_opt_table[] = {
	SCHED_BOOL_OPT(struct hybrid_opts, placement, true,
		       "job placement: scale-up jobs on scale-up servers, scale-out jobs on scale-out ones (off: "
		       "H-w/o-P, one queue on every server)"),
	SCHED_BOOL_OPT(struct hybrid_opts, stealing, true,
		       "job stealing: an idle scale-out server takes the unstarted scale-up job nearest the "
		       "hyperplane (off: H-w/o-JS)"),
	SCHED_BOOL_OPT(struct hybrid_opts, dps, true,
		       "data placement: replicas 1-2 on one scale-out rack, replica 3 on a scale-up server (off: "
		       "H-w/o-DPS, HDFS's default)"),
	SCHED_STR_OPT(struct hybrid_opts, svm_model, "",
		      "a libsvm model file to classify jobs with (empty: svm_train, else the crosspoint rule)"),
	SCHED_STR_OPT(struct hybrid_opts, svm_train, "",
		      "labels CSV (maps, reduces, shuffle_bytes, label up|out) to train the RBF SVM on at start"),
	SCHED_STR_OPT(struct hybrid_opts, svm_save, "", "write the model trained on svm_train to this file"),
	SCHED_STR_OPT(struct hybrid_opts, class_log, "",
		      "write each job's features, class, decision value and stealing to this CSV at the end"),
	{0},
};

#define HYBRID_OPS                                    \
	.priv_size = sizeof(struct hybrid),           \
	.opts = hybrid_opt_table,                     \
	.opts_size = sizeof(struct hybrid_opts),      \
	.check = hybrid_check,                        \
	.init = hybrid_init,                          \
	.destroy = hybrid_destroy,                    \
	.job_arrived = hybrid_job_arrived,            \
	.place_input = hybrid_place_input

const struct sched_ops sched_hfs = {
	.name = "h-fs",
	.help = "Hybrid (ch. 5) over Fair: SVM job placement, job stealing, replica 3 on scale-up",
	.offer = hfs_offer,
	HYBRID_OPS,
};
const struct sched_ops sched_hds = {
	.name = "h-ds",
	.help = "Hybrid (ch. 5) over Delay: SVM job placement, job stealing, replica 3 on scale-up",
	.offer = hds_offer,
	HYBRID_OPS,
};

/* The ablations of §5.3.4, measured on H-FS. */
const struct sched_ops sched_h_wo_p = {
	.name = "h-wo-p",
	.help = "Hybrid ablation: without job placement (H-w/o-P)",
	.alias_of = &sched_hfs,
	.preset = (const char *const[]){"placement=off", NULL},
};
const struct sched_ops sched_h_wo_js = {
	.name = "h-wo-js",
	.help = "Hybrid ablation: without job stealing (H-w/o-JS)",
	.alias_of = &sched_hfs,
	.preset = (const char *const[]){"stealing=off", NULL},
};
const struct sched_ops sched_h_wo_dps = {
	.name = "h-wo-dps",
	.help = "Hybrid ablation: without data placement (H-w/o-DPS)",
	.alias_of = &sched_hfs,
	.preset = (const char *const[]){"dps=off", NULL},
};
