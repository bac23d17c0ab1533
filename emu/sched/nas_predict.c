/* nas_predict.c — the shuffle-size predictor (Eq. 3.1) and the per-job,
 * per-rack and per-server sums NAS and sw-delay decide on; see nas.h.
 *
 * Everything is kept up to date as tasks are launched (by the policy's own
 * offer) and finish (task_finished), so an offer never rescans a job's
 * tasks.  The runtime re-queues tasks (failures, lost servers, lost map
 * output) without telling the scheduler; the per-server lists are pruned
 * against the tasks' state, and a job whose counters disagree with ours is
 * rebuilt from its tasks once per heartbeat (nas_track_check). */
#include "emu/sched/nas.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void nas_conf_init(struct nas_conf *k, const struct sched *s)
{
	const struct nas_opts *o = s->opts;
	double scale = s->p.elephant_bytes ? (double)s->p.elephant_bytes / NAS_ELEPHANT_FULL : 1.0;
	*k = (struct nas_conf){
		.congestion = o->congestion,
		.t_min = o->t_min,
		.t_max = o->t_max,
		.light_bytes = isnan(o->light_bytes) ? NAS_LIGHT_FULL * scale : o->light_bytes,
		.heavy_bytes = isnan(o->heavy_bytes) ? NAS_HEAVY_FULL * scale : o->heavy_bytes,
		.traffic_threshold = isnan(o->traffic_threshold) ? -1 : o->traffic_threshold,
		.max_wait_s = s->p.node_wait_s + s->p.rack_wait_s,
		.early_reduces = o->early_reduces,
	};
}

int nas_track_init(struct nas_track *k, const struct cluster *c)
{
	memset(k, 0, sizeof *k);
	k->racks = c->racks;
	k->nservers = c->nservers;
	k->njobs = c->w->njobs;
	k->cap = 1;   /* a free slot when offered: at most containers-1 others run, +1 not yet started */
	for (int i = 0; i < c->nservers; i++)
		if (c->servers[i].containers + 1 > k->cap)
			k->cap = c->servers[i].containers + 1;
	size_t jr = (size_t)(k->njobs ? k->njobs : 1) * (k->racks ? k->racks : 1);
	k->job = calloc(k->njobs ? k->njobs : 1, sizeof *k->job);
	k->out_done = calloc(jr, sizeof *k->out_done);
	k->in_run = calloc(jr, sizeof *k->in_run);
	k->red_on = calloc(jr, sizeof *k->red_on);
	k->node_map = calloc((size_t)(k->nservers ? k->nservers : 1) * k->cap, sizeof *k->node_map);
	k->node_n = calloc(k->nservers ? k->nservers : 1, sizeof *k->node_n);
	if (!k->job || !k->out_done || !k->in_run || !k->red_on || !k->node_map || !k->node_n) {
		nas_track_free(k);
		return -1;
	}
	return 0;
}

void nas_track_free(struct nas_track *k)
{
	free(k->job);
	free(k->out_done);
	free(k->in_run);
	free(k->red_on);
	free(k->node_map);
	free(k->node_n);
	memset(k, 0, sizeof *k);
}

static size_t at(const struct nas_track *k, int job, int rack)
{
	return (size_t)job * k->racks + rack;
}

/* Remove entry i of server's list (its input no longer runs there). */
static void node_drop(struct nas_track *k, const struct cluster *c, int server, int i)
{
	int *l = &k->node_map[(size_t)server * k->cap];
	const struct task *t = &c->w->tasks[l[i]];
	k->in_run[at(k, t->job, cluster_rack_of(c, server))] -= t->input_bytes;
	l[i] = l[--k->node_n[server]];
}

void nas_track_launch(struct nas_track *k, const struct cluster *c, const struct task *t, int server)
{
	int rack = cluster_rack_of(c, server);
	if (t->kind == TASK_REDUCE) {
		k->red_on[at(k, t->job, rack)]++;
		k->job[t->job].reds_placed++;
		return;
	}
	int *l = &k->node_map[(size_t)server * k->cap];
	for (int i = 0; i < k->node_n[server]; i++)
		if (l[i] == t->id)
			return;   /* re-run of a map whose old entry is still there */
	if (k->node_n[server] == k->cap)
		return;   /* cannot happen with a pruned list; then it is just not counted */
	l[k->node_n[server]++] = t->id;
	k->in_run[at(k, t->job, rack)] += t->input_bytes;
}

void nas_track_finished(struct nas_track *k, const struct cluster *c, const struct task *t)
{
	if (t->kind != TASK_MAP || t->server < 0)
		return;
	int *l = &k->node_map[(size_t)t->server * k->cap];
	for (int i = 0; i < k->node_n[t->server]; i++)
		if (l[i] == t->id) {
			node_drop(k, c, t->server, i);
			break;
		}
	struct nas_jobacct *a = &k->job[t->job];
	k->out_done[at(k, t->job, cluster_rack_of(c, t->server))] += t->output_bytes;
	if (t->input_bytes) {
		a->ratio_sum += (double)t->output_bytes / (double)t->input_bytes;
		a->ratio_n++;
	}
	a->maps_seen++;
}

void nas_track_prune(struct nas_track *k, const struct cluster *c, int server)
{
	int *l = &k->node_map[(size_t)server * k->cap];
	for (int i = 0; i < k->node_n[server];) {
		const struct task *t = &c->w->tasks[l[i]];
		if (t->state == TASK_RUNNING && t->server == server)
			i++;
		else
			node_drop(k, c, server, i);
	}
}

static void rebuild_maps(struct nas_track *k, const struct cluster *c, const struct job *j)
{
	struct nas_jobacct *a = &k->job[j->id];
	memset(&k->out_done[at(k, j->id, 0)], 0, k->racks * sizeof *k->out_done);
	a->ratio_sum = 0;
	a->ratio_n = a->maps_seen = 0;
	for (int i = 0; i < j->nmaps; i++) {
		const struct task *t = job_map(c->w->tasks, j, i);
		if (t->state != TASK_DONE || t->server < 0)
			continue;
		k->out_done[at(k, j->id, cluster_rack_of(c, t->server))] += t->output_bytes;
		if (t->input_bytes) {
			a->ratio_sum += (double)t->output_bytes / (double)t->input_bytes;
			a->ratio_n++;
		}
		a->maps_seen++;
	}
}

static void rebuild_reduces(struct nas_track *k, const struct cluster *c, const struct job *j)
{
	memset(&k->red_on[at(k, j->id, 0)], 0, k->racks * sizeof *k->red_on);
	k->job[j->id].reds_placed = 0;
	for (int i = 0; i < j->nreduces; i++) {
		const struct task *t = job_reduce(c->w->tasks, j, i);
		if (t->state == TASK_PENDING || t->server < 0)
			continue;
		k->red_on[at(k, j->id, cluster_rack_of(c, t->server))]++;
		k->job[j->id].reds_placed++;
	}
}

void nas_track_check(struct nas_track *k, const struct cluster *c)
{
	for (int s = 0; s < k->nservers; s++)
		nas_track_prune(k, c, s);
	for (int i = 0; i < k->njobs; i++) {
		const struct job *j = &c->w->jobs[i];
		if (k->job[i].maps_seen != j->maps_done)
			rebuild_maps(k, c, j);
		if (k->job[i].reds_placed != j->reduces_running + j->reduces_done)
			rebuild_reduces(k, c, j);
	}
}

double nas_ratio(const struct nas_track *k, const struct job *j)
{
	const struct nas_jobacct *a = &k->job[j->id];
	if (a->ratio_n)
		return a->ratio_sum / a->ratio_n;
	if (j->recurring)   /* predicted job: its known shuffle size */
		return j->input_bytes ? (double)j->pred_shuffle_bytes / (double)j->input_bytes : 0;
	return 1.0;         /* unpredicted job */
}

double nas_pred_shuffle(const struct nas_track *k, const struct job *j)
{
	if (!k->job[j->id].ratio_n && j->recurring)
		return (double)j->pred_shuffle_bytes;
	return nas_ratio(k, j) * (double)j->input_bytes;
}

double nas_node_output(const struct nas_track *k, const struct cluster *c, int server)
{
	const int *l = &k->node_map[(size_t)server * k->cap];
	double sum = 0;
	for (int i = 0; i < k->node_n[server]; i++) {
		const struct task *t = &c->w->tasks[l[i]];
		sum += nas_ratio(k, &c->w->jobs[t->job]) * (double)t->input_bytes;
	}
	return sum;
}

int nas_reduce_target(const struct nas_track *k, const struct cluster *c, const struct job *j, int rack)
{
	double ratio = nas_ratio(k, j), total = 0;
	for (int r = 0; r < c->racks; r++)
		total += (double)k->out_done[at(k, j->id, r)] + ratio * (double)k->in_run[at(k, j->id, r)];
	if (total <= 0)
		return j->nreduces;
	/* Eq. 3.4 in whole reduces that add up to TotalReduceNum: floor of each
	 * rack's quota, and the reduces left over to the racks with the largest
	 * remainders (ties: lower rack).  Rounding every quota up instead gave a
	 * one-reduce job a "not reached" ReduceNum on every rack holding any of
	 * its output, so it went wherever it was first offered. */
	double here = 0, rem = 0;
	int floors = 0;
	for (int r = 0; r < c->racks; r++) {
		double v = (double)k->out_done[at(k, j->id, r)] + ratio * (double)k->in_run[at(k, j->id, r)];
		double q = j->nreduces * (v / total) + 1e-9;
		floors += (int)floor(q);
		if (r == rack)
			here = floor(q), rem = q - floor(q);
	}
	int left = j->nreduces - floors, ahead = 0;
	if (left <= 0)
		return (int)here;
	for (int r = 0; r < c->racks && ahead < left; r++) {
		if (r == rack)
			continue;
		double v = (double)k->out_done[at(k, j->id, r)] + ratio * (double)k->in_run[at(k, j->id, r)];
		double q = j->nreduces * (v / total) + 1e-9, f = q - floor(q);
		ahead += f > rem || (f == rem && r < rack);
	}
	return (int)here + (ahead < left);
}

bool nas_rack_congested(const struct cluster *c, int rack, double threshold)
{
	return c->rack_util_in[rack] >= threshold || c->rack_util_out[rack] >= threshold;
}
