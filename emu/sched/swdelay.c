/* swdelay.c — ShuffleWatcher on Delay (SW-delay), the NAS chapter's
 * strongest baseline, as the dissertation describes it (§1.2.1, §3.1,
 * §3.3.1, §3.3.3; Ahmad et al., ATC'14):
 *
 *  - Delay scheduling (delay.c's fair order and wait rule) with the job's
 *    map racks as the locality target: when a job arrives it gets the
 *    fewest racks holding most of its input replicas that fit its maps in
 *    one wave (the text leaves the choice open; the replicas decide, ties go
 *    to the racks fewest running jobs picked).  A map on its racks is
 *    "node-local" when it reads its block on the server, "rack-local" (after
 *    the node wait) otherwise — even if it reads it from another rack, the
 *    cost the text notes; off its racks it waits both waits.
 *  - Reduces where the map output is: a job's reduces on a rack are capped
 *    by ReduceNum (Eq. 3.4, shared with NAS: its reduces x the rack's share
 *    of its map output); a rack at or over it waits the node + rack waits.
 *  - While the rack of the offered server is congested (cross-rack
 *    utilisation >= 0.8 either way, as for NAS) no reduce of any job is
 *    launched there: the container goes to a map instead (§1.2.1).
 *
 * No adaptive threshold: the runtime's slowstart (0.2 in the thesis: use
 * --slowstart 0.2). */
#include "emu/sched/nas.h"
#include <stdlib.h>

struct swd {
	struct nas_track k;   /* first (nas_track_of) */
	double *map_since, *red_since;   /* per job: Delay's wait clocks */
	bool *in_set;                    /* [job * racks + rack]: the job's map racks */
	bool *released;                  /* per job: finished, its racks given back */
	int *sets_on;                    /* per rack: running jobs that picked it */
	int *count;                      /* scratch: per rack */
	struct job **order;
};

/* Its options: NAS's CongestionThreshold, the one knob it shares with NAS. */
struct swd_opts {
	double congestion;
};

static int rack_slots(const struct cluster *c, int rack)
{
	int first, size, n = 0;
	cluster_rack_servers(c, rack, &first, &size);
	for (int i = first; i < first + size; i++)
		n += c->servers[i].containers;
	return n;
}

/* The job's map racks: by replicas of its blocks held, until one wave fits. */
static void choose_racks(struct swd *d, const struct cluster *c, const struct job *j)
{
	bool *set = &d->in_set[(size_t)j->id * c->racks];
	d->k.job[j->id].rack_set = true;
	for (int r = 0; r < c->racks; r++)
		d->count[r] = 0;
	for (int i = 0; i < j->nmaps; i++) {
		const struct task *t = job_map(c->w->tasks, j, i);
		bool seen[3] = {false, false, false};   /* a block counts once per rack */
		for (int a = 0; a < 3; a++) {
			if (t->replicas[a] < 0 || seen[a])
				continue;
			int ra = cluster_rack_of(c, t->replicas[a]);
			for (int b = a + 1; b < 3; b++)
				seen[b] = seen[b] || (t->replicas[b] >= 0 && cluster_rack_of(c, t->replicas[b]) == ra);
			d->count[ra]++;
		}
	}
	for (int slots = 0; slots < j->nmaps || slots == 0;) {
		int best = -1;
		for (int r = 0; r < c->racks; r++)
			if (!set[r] && (best < 0 || d->count[r] > d->count[best] ||
					(d->count[r] == d->count[best] && d->sets_on[r] < d->sets_on[best])))
				best = r;
		if (best < 0)
			break;
		set[best] = true;
		d->sets_on[best]++;
		slots += rack_slots(c, best) ? rack_slots(c, best) : 1;
	}
}

static struct task *swd_offer(struct sched *s, int server)
{
	struct swd *d = s->priv;
	struct cluster *c = s->c;
	int rack = cluster_rack_of(c, server);
	bool congested = nas_rack_congested(c, rack, ((const struct swd_opts *)s->opts)->congestion);
	nas_track_prune(&d->k, c, server);
	int cnt = delay_fair_order(s, d->order);
	struct task *pick = NULL;
	for (int i = 0; i < cnt && !pick; i++) {
		struct job *j = d->order[i];
		if (!d->k.job[j->id].rack_set)
			choose_racks(d, c, j);
		enum locality loc;
		struct task *m = cluster_best_map(c, j, server, &loc);
		if (m) {
			bool ours = d->in_set[(size_t)j->id * c->racks + rack];
			loc = !ours ? LOCAL_NONE : loc == LOCAL_NODE ? LOCAL_NODE : LOCAL_RACK;
			if (delay_may_launch(s, &d->map_since[j->id], loc))
				pick = m;
			continue;
		}
		struct task *r = congested ? NULL : cluster_next_reduce(c, j);
		if (!r)
			continue;   /* congested: every reduce waits, the slot goes to a map */
		bool wanted = nas_reduces_on(&d->k, j, rack) < nas_reduce_target(&d->k, c, j, rack);
		if (delay_may_launch(s, &d->red_since[j->id], wanted ? LOCAL_NODE : LOCAL_NONE))
			pick = r;
	}
	if (pick)
		nas_track_launch(&d->k, c, pick, server);
	return pick;
}

static void swd_task_finished(struct sched *s, struct task *t)
{
	struct swd *d = s->priv;
	const struct job *j = &s->c->w->jobs[t->job];
	nas_track_finished(&d->k, s->c, t);
	if (cluster_job_finished(j) && d->k.job[j->id].rack_set && !d->released[j->id]) {
		d->released[j->id] = true;
		for (int r = 0; r < s->c->racks; r++)
			d->sets_on[r] -= d->in_set[(size_t)j->id * s->c->racks + r];
	}
}

static void swd_job_arrived(struct sched *s, struct job *j)
{
	struct swd *d = s->priv;
	if (!d->k.job[j->id].rack_set)
		choose_racks(d, s->c, j);
}

static void swd_tick(struct sched *s)
{
	nas_track_check(nas_track_of(s), s->c);
}

static void swd_destroy(struct sched *s)
{
	struct swd *d = s->priv;
	if (!d)
		return;
	nas_track_free(&d->k);
	free(d->map_since);
	free(d->red_since);
	free(d->in_set);
	free(d->released);
	free(d->sets_on);
	free(d->count);
	free(d->order);
}

static int swd_init(struct sched *s)
{
	const struct cluster *c = s->c;
	int nj = c->w->njobs ? c->w->njobs : 1, nr = c->racks ? c->racks : 1;
	struct swd *d = s->priv;
	d->map_since = malloc(nj * sizeof *d->map_since);
	d->red_since = malloc(nj * sizeof *d->red_since);
	d->in_set = calloc((size_t)nj * nr, sizeof *d->in_set);
	d->released = calloc(nj, sizeof *d->released);
	d->sets_on = calloc(nr, sizeof *d->sets_on);
	d->count = calloc(nr, sizeof *d->count);
	d->order = calloc(nj, sizeof *d->order);
	if (!d->map_since || !d->red_since || !d->in_set || !d->released || !d->sets_on || !d->count ||
	    !d->order || nas_track_init(&d->k, c))
		return -1;
	for (int i = 0; i < nj; i++)
		d->map_since[i] = d->red_since[i] = -1;
	return 0;
}

static const struct sched_opt swd_opt_table[] = {
	NAS_OPT_CONGESTION(struct swd_opts),
	{0},
};

const struct sched_ops sched_swdelay = {
	.name = "sw-delay",
	.help = "ShuffleWatcher on Delay: maps on few racks, reduces where the map output is, "
		"none while the rack is congested (use --slowstart 0.2)",
	.priv_size = sizeof(struct swd),
	.opts = swd_opt_table,
	.opts_size = sizeof(struct swd_opts),
	.init = swd_init,
	.destroy = swd_destroy,
	.job_arrived = swd_job_arrived,
	.offer = swd_offer,
	.task_finished = swd_task_finished,
	.tick = swd_tick,
};
