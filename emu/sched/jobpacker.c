/* jobpacker.c — JobPacker (dissertation ch. 4; Z. Li and H. Shen, ICPP'19): a
 * job scheduler for hybrid EPS/OCS clusters that makes shuffle traffic
 * big enough, and concentrated enough, to ride the circuits.
 *
 *  1. Shuffle data aggregation (§4.2.2): a reduce of a shuffle-heavy
 *     recurring job does not fetch until the job's reduces planned on its
 *     rack d have containers ("until more reduce tasks from the same job
 *     are assigned to containers"; or every container of rack d holds
 *     such a waiting reduce; or, at the flush, other tasks hold rack d and
 *     what the running reduces fetch is over E from every source rack) and
 *     the job's aggregated shuffle
 *     data from every source rack s to rack d that has some — the finished
 *     map outputs on rack s destined to the job's running reduces on rack d
 *     that have not been fetched — is larger than the elephant threshold E,
 *     or all of the job's maps are done (flush: our rule, the text has
 *     none); not before the flush when the output still to come would
 *     make pieces under E (small_tail).
 *     Then every running reduce of the job on rack d fetches at once, and
 *     when what they fetch from other racks is > E in all, every transfer
 *     of it is circuit-eligible: the aggregate is classified, not the
 *     single transfer (our choice: the text does not say what the E test
 *     applies to).  Other jobs (ad-hoc, §4.2.5, and recurring ones whose
 *     predicted shuffle is < E, not shuffle-heavy by §4.1.2) fetch at once
 *     and use the default per-transfer rule.
 *  2. Offline scheduler (§4.2.3, jobpacker_profile.c and jobpacker_plan.c):
 *     the profiler's feasible (map-width, reduce-width) pairs by the latency
 *     response function (Eq. 4.1 with Fig 4.6's port-parallel shuffle term;
 *     circuits lit for whole reconfiguration intervals unless the OCS
 *     reconfigures early), the job manager's list (batch: B = 5 sub-batches
 *     by Tetris packing, each by width then latency, in random order;
 *     online: by predicted arrival),
 *     container availability times T_ik, over-provisioning ρ (0 when every
 *     job is recurring, 1.0 otherwise); output: per-rack sequences and the
 *     map racks R_j^map of every recurring job.
 *  3. Online scheduler (§4.2.4): input blocks' first replica on the job's
 *     planned racks; a free container serves the first runnable entry of
 *     its rack's sequence (while ad-hoc jobs wait and the rack's recurring
 *     tasks hold their over-provisioned share C/(1+ρ), only the entries
 *     due by now, and planned reduces); otherwise ad-hoc jobs in Fair
 *     order with the sparsity rule as a preference (an ad-hoc job with
 *     input > 1 GB × data_scale is shuffle-heavy; a second shuffle-heavy
 *     job on a rack only when nothing else can use the container); jobs
 *     planned on a failed rack (no server alive) fall back to Fair.
 *
 * Slowstart is the runtime's (`--slowstart`): JobPacker's experiments use
 * 0.7 (§4.3.2) and the experiment scripts must pass it; the baselines keep
 * YARN's default 0.05 (§4.2.2; the text gives them no value: our choice).
 * Knobs beyond struct sched_params (B, ρ, OCS interval 1 s and δ 10 ms, the
 * OCS rate — derived from E = bw_o·9δ — and the EPS:OCS ratio 1:10) are
 * struct jp_conf's (jobpacker.h), set by the options below (jp_conf_opts). */
#include "emu/sched/jobpacker.h"
#include <stdlib.h>
#include <string.h>

/* Per job with postponed shuffles: a mirror of what its reduces requested. */
struct jp_agg {
	uint8_t *req;            /* nreduces × nmaps: map output requested by the reduce */
	int *attempt;            /* per reduce: the attempt `req` belongs to */
	bool *flush;             /* per reduce: released, fetches at its next call */
	uint64_t *pend;          /* racks × racks: unrequested bytes s → d for running reduces */
	uint64_t *rel;           /* per rack d: the cross-rack aggregate of its last release */
	long key[3];             /* state `pend` was computed for */
	bool valid;
	/* What `pend` holds, so that it is brought up to date by the maps
	 * finished and the reduces started or ended since, not rebuilt from
	 * every (running reduce, map) pair each time a map finishes (that was
	 * 80% of a paper-scale run, a 12,499-map × 100-reduce job). */
	int *map_in;             /* per map: the rack its output is counted on, -1 = not counted */
	int *red_in;             /* per reduce: the rack it is counted on, -1 = not counted */
	int nmap_in;             /* maps counted */
	int *todo, ntodo;        /* the maps not counted, in no particular order (sums do not care) */
	int *seq, nseq;          /* the maps counted, in the order they were */
	int *gcur;               /* per reduce: seq before it has been requested (grant) */
	int changes;             /* j->changes when the counted maps were last brought up to date */
	int *gat;                /* racks × 2: the job's reduces planned on the rack, and launched */
	int gat_key[2];          /* reduces done + running and requeues when `gat` was counted; -1 = never */
	int requeues;            /* j->requeues when `pend` was last rebuilt */
	bool exact;              /* pend = the sum over the counted pairs (else rebuild) */
	uint64_t tail_rem;       /* the output of the maps not counted (small_tail) */
};

struct jobpacker {
	struct jp_rt rt;
	struct jp_agg **agg;     /* per job, while it runs */
	bool *held;              /* per task: a running reduce whose shuffle is being held */
};

/* A reduce's share of a map's output, as emu/shuffle.c splits it. */
static uint64_t partition(const struct task *map, int nreduces, int ri)
{
	uint64_t base = map->output_bytes / (uint64_t)nreduces;
	return base + ((uint64_t)ri < map->output_bytes % (uint64_t)nreduces ? 1 : 0);
}

static void agg_free(struct jp_agg *a)
{
	if (!a)
		return;
	free(a->req);
	free(a->attempt);
	free(a->flush);
	free(a->pend);
	free(a->rel);
	free(a->map_in);
	free(a->red_in);
	free(a->todo);
	free(a->seq);
	free(a->gcur);
	free(a->gat);
	free(a);
}

static struct jp_agg *agg_of(struct sched *s, const struct job *j)
{
	struct jobpacker *jp = s->priv;
	int R = s->c->racks;
	if (jp->agg[j->id])
		return jp->agg[j->id];
	struct jp_agg *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->req = calloc((size_t)j->nreduces * (j->nmaps ? j->nmaps : 1), 1);
	a->attempt = calloc(j->nreduces, sizeof *a->attempt);
	a->flush = calloc(j->nreduces, sizeof *a->flush);
	a->pend = calloc((size_t)R * R, sizeof *a->pend);
	a->rel = calloc(R, sizeof *a->rel);
	a->map_in = malloc((j->nmaps ? j->nmaps : 1) * sizeof *a->map_in);
	a->red_in = malloc((j->nreduces ? j->nreduces : 1) * sizeof *a->red_in);
	a->todo = malloc((j->nmaps ? j->nmaps : 1) * sizeof *a->todo);
	a->seq = malloc((j->nmaps ? j->nmaps : 1) * sizeof *a->seq);
	a->gcur = calloc(j->nreduces ? j->nreduces : 1, sizeof *a->gcur);
	a->changes = -1;
	a->gat = malloc(2 * (size_t)R * sizeof *a->gat);
	a->gat_key[0] = a->gat_key[1] = -1;
	if (!a->req || !a->attempt || !a->flush || !a->pend || !a->rel || !a->map_in || !a->red_in || !a->todo ||
	    !a->seq || !a->gcur || !a->gat) {
		agg_free(a);
		return NULL;
	}
	for (int m = 0; m < j->nmaps; m++)
		a->map_in[m] = -1;
	for (int ri = 0; ri < j->nreduces; ri++)
		a->red_in[ri] = -1;
	return jp->agg[j->id] = a;
}

static bool postpones(const struct sched *s, int job)
{
	const struct jobpacker *jp = s->priv;
	/* A job fallen back to Fair (rack failure) ignores the plan, its
	 * aggregation included: its reduces no longer run on planned racks. */
	return jp->rt.conf.postpone && jp->rt.plan.planned[job] && jp->rt.plan.sh[job] &&
	       !jp->rt.fallback[job];
}

/* The reduce was (re)started: the runtime forgot what it had requested. */
static void agg_sync(struct jp_agg *a, const struct job *j, const struct task *r)
{
	int ri = r->index;
	if (a->attempt[ri] == r->attempts)
		return;
	a->attempt[ri] = r->attempts;
	a->flush[ri] = false;
	memset(a->req + (size_t)ri * j->nmaps, 0, j->nmaps);
	a->gcur[ri] = 0;
	a->valid = false;
	if (a->red_in[ri] >= 0)
		a->exact = false;   /* its counted share was for the old row */
}

/* pend[s][d]: finished map outputs on rack s for the running reduces on
 * rack d that they have not requested — from scratch. */
static void agg_rebuild(struct sched *s, struct jp_agg *a, const struct job *j)
{
	const struct cluster *c = s->c;
	struct task *tasks = c->w->tasks;
	int R = c->racks;
	memset(a->pend, 0, (size_t)R * R * sizeof *a->pend);
	a->nmap_in = a->ntodo = a->nseq = 0;
	a->tail_rem = 0;
	memset(a->gcur, 0, j->nreduces * sizeof *a->gcur);   /* seq's order is new */
	for (int m = 0; m < j->nmaps; m++) {
		const struct task *map = job_map(tasks, j, m);
		a->map_in[m] = map->state == TASK_DONE ? cluster_rack_of(c, map->server) : -1;
		a->nmap_in += a->map_in[m] >= 0;
		if (a->map_in[m] < 0) {
			a->todo[a->ntodo++] = m;
			a->tail_rem += map->output_bytes;
		} else {
			a->seq[a->nseq++] = m;
		}
	}
	for (int ri = 0; ri < j->nreduces; ri++) {
		struct task *r = job_reduce(tasks, j, ri);
		a->red_in[ri] = -1;
		if (r->state != TASK_RUNNING)
			continue;
		agg_sync(a, j, r);
		int d = a->red_in[ri] = cluster_rack_of(c, r->server);
		const uint8_t *row = a->req + (size_t)ri * j->nmaps;
		for (int m = 0; m < j->nmaps; m++)
			if (a->map_in[m] >= 0 && !row[m])
				a->pend[a->map_in[m] * R + d] += partition(job_map(tasks, j, m), j->nreduces, ri);
	}
	a->requeues = j->requeues;
	a->exact = true;
}

/* Reduce ri's unrequested share of the counted maps, added to (sign +1) or
 * taken from (-1) pend. */
static void agg_count_reduce(struct sched *s, struct jp_agg *a, const struct job *j, int ri, int sign)
{
	struct task *tasks = s->c->w->tasks;
	int R = s->c->racks, d = a->red_in[ri];
	const uint8_t *row = a->req + (size_t)ri * j->nmaps;
	for (int m = 0; m < j->nmaps; m++)
		if (a->map_in[m] >= 0 && !row[m]) {
			uint64_t b = partition(job_map(tasks, j, m), j->nreduces, ri);
			a->pend[a->map_in[m] * R + d] += sign > 0 ? b : -b;   /* exact: b was added before */
		}
}

/* The same pend as agg_rebuild, from the last one: with no task requeued
 * since, the finished maps only grew, and the counted reduces only ended
 * (a reduce that ends has fetched its share; its row says what is left). */
static void agg_update(struct sched *s, struct jp_agg *a, const struct job *j)
{
	const struct cluster *c = s->c;
	struct task *tasks = c->w->tasks;
	int R = c->racks, nin = 0;
	for (int ri = 0; ri < j->nreduces; ri++)
		if (a->red_in[ri] >= 0 && job_reduce(tasks, j, ri)->state != TASK_RUNNING) {
			agg_count_reduce(s, a, j, ri, -1);
			a->red_in[ri] = -1;
		}
	if (a->nmap_in < j->maps_done) {
		int *run = malloc((j->nreduces ? j->nreduces : 1) * sizeof *run);
		if (!run) {
			agg_rebuild(s, a, j);
			return;
		}
		for (int ri = 0; ri < j->nreduces; ri++)
			if (a->red_in[ri] >= 0)
				run[nin++] = ri;
		/* The maps finished since: maps_done − nmap_in of the uncounted
		 * ones (none was requeued). */
		for (int x = 0; x < a->ntodo && a->nmap_in < j->maps_done;) {
			int m = a->todo[x];
			const struct task *map = job_map(tasks, j, m);
			if (map->state != TASK_DONE) {
				x++;
				continue;
			}
			a->todo[x] = a->todo[--a->ntodo];
			int sr = a->map_in[m] = cluster_rack_of(c, map->server);
			a->nmap_in++;
			a->seq[a->nseq++] = m;
			a->tail_rem -= map->output_bytes;
			for (int y = 0; y < nin; y++)
				if (!a->req[(size_t)run[y] * j->nmaps + m])
					a->pend[sr * R + a->red_in[run[y]]] += partition(map, j->nreduces, run[y]);
		}
		free(run);
	}
	for (int ri = 0; ri < j->nreduces; ri++) {
		struct task *r = job_reduce(tasks, j, ri);
		if (a->red_in[ri] >= 0 || r->state != TASK_RUNNING)
			continue;
		agg_sync(a, j, r);
		a->red_in[ri] = cluster_rack_of(c, r->server);
		agg_count_reduce(s, a, j, ri, +1);
	}
}

/* pend, when the job's state has changed since it was last computed:
 * finished maps, running reduces, or task starts (the attempts of all its
 * tasks sum to done + running + requeued). */
static void agg_refresh(struct sched *s, struct jp_agg *a, const struct job *j)
{
	long att = (long)j->maps_done + j->maps_running + j->reduces_done + j->reduces_running + j->requeues;
	long key[3] = {j->maps_done, j->reduces_running, att};
	if (a->valid && !memcmp(key, a->key, sizeof key))
		return;
	if (a->exact && a->requeues == j->requeues)
		agg_update(s, a, j);
	else
		agg_rebuild(s, a, j);
	memcpy(a->key, key, sizeof key);
	a->valid = true;
	a->changes = j->changes;
}

/* The reduce fetches now: everything finished is requested (emu/shuffle.c). */
static bool grant(struct sched *s, struct jp_agg *a, const struct job *j, const struct task *r)
{
	const struct cluster *c = s->c;
	int ri = r->index, d = cluster_rack_of(c, r->server), R = c->racks;
	uint8_t *row = a->req + (size_t)ri * j->nmaps;
	a->flush[ri] = false;
	/* When no task of the job changed since the counted maps were brought
	 * up to date, they are the done ones, and the reduce has requested
	 * those before its cursor: only the rest is read (a 12,499-map job's
	 * reduces are granted at every heartbeat). */
	bool counted = a->exact && a->changes == j->changes;
	int n = counted ? a->nseq : j->nmaps;
	for (int q = counted ? a->gcur[ri] : 0; q < n; q++) {
		int m = counted ? a->seq[q] : q;
		struct task *map = job_map(c->w->tasks, j, m);
		if (map->state != TASK_DONE || row[m])
			continue;
		row[m] = 1;
		int sr = cluster_rack_of(c, map->server);
		uint64_t *p = &a->pend[sr * R + d];
		uint64_t b = partition(map, j->nreduces, ri);
		if (*p < b || a->map_in[m] != sr || a->red_in[ri] != d)
			a->exact = false;   /* pend was stale (a requeue the key missed): rebuild next time */
		*p = *p > b ? *p - b : 0;
	}
	if (counted)
		a->gcur[ri] = a->nseq;
	return true;
}

/* The containers of rack d's alive servers, 0 if one of them is free. */
static int rack_full(const struct cluster *c, int d)
{
	int slots = 0, first, n;
	cluster_rack_servers(c, d, &first, &n);
	for (int i = first; i < first + n; i++)
		if (c->servers[i].alive) {
			if (c->servers[i].free > 0)
				return 0;
			slots += c->servers[i].containers;
		}
	return slots;
}

/* Every container of rack d is taken by a reduce whose shuffle is held: no
 * more reduces can start there until one of them is released, so gathering
 * must stop waiting for them.  The asking reduce counts as held (it would
 * be): nothing else may ask again.  Two jobs that had each launched half their
 * reduces on a rack, and waited for the other half, held it forever (GENI
 * batch, seed 4, with a wider E margin: 7 jobs never finished). */
static bool rack_held(struct sched *s, int d, const struct task *asking)
{
	const struct jobpacker *jp = s->priv;
	const struct cluster *c = s->c;
	int slots = rack_full(c, d), held = 0;
	if (!slots)
		return false;
	for (int i = 0; i < c->running_jobs; i++) {
		if (!postpones(s, c->active[i]))   /* by id: a job is a cache miss, most do not postpone */
			continue;
		const struct job *j = &c->w->jobs[c->active[i]];
		for (int ri = 0; ri < j->nreduces; ri++) {
			const struct task *r = job_reduce(c->w->tasks, j, ri);
			held += r->state == TASK_RUNNING && (jp->held[r->id] || r == asking) &&
				cluster_rack_of(c, r->server) == d;
		}
	}
	return held >= slots;
}

/* "More reduce tasks from the same job are assigned to containers" (§4.2.2):
 * the job's reduces planned on rack d have all been given a container (or as
 * many as the rack holds at once, when the plan has more than one wave of
 * them there), so their shuffles form one aggregate per source rack.  Before,
 * the first reduces of a rack were released as soon as one source rack's
 * share for them crossed E; the reduces launched there later, and the maps
 * finished later, made aggregates of their own, below E, that went over
 * the EPS in one burst at the flush: in the default 20-job batch (seed 4)
 * 61% of the shuffle-heavy job's cross-rack bytes, although each of its
 * rack pairs carried 19 MB > E in all (with the gate: 4–6%). */
static bool gathered(struct sched *s, struct jp_agg *a, const struct job *j, const struct task *reduce, int d)
{
	const struct jobpacker *jp = s->priv;
	const struct cluster *c = s->c;
	int R = c->racks, key[2] = {j->reduces_done + j->reduces_running, j->requeues};
	if (memcmp(key, a->gat_key, sizeof key)) {   /* a reduce started, ended or was requeued: count again */
		memset(a->gat, 0, 2 * (size_t)R * sizeof *a->gat);
		for (int ri = 0; ri < j->nreduces; ri++) {
			const struct task *r = job_reduce(c->w->tasks, j, ri);
			int q = jp->rt.plan.task_rack[r->id];
			if (q < 0 || q >= R)
				continue;
			a->gat[2 * q]++;
			a->gat[2 * q + 1] += r->state != TASK_PENDING;
		}
		memcpy(a->gat_key, key, sizeof key);
	}
	int planned = a->gat[2 * d], launched = a->gat[2 * d + 1], wave = jp->rt.model.containers;
	return launched >= (planned < wave ? planned : wave) || rack_held(s, d, reduce);
}

/* Whether the map output still to come for the job's running reduces on
 * rack d, spread over its planned map racks, makes pieces under E: released
 * now, that tail would follow as aggregates of its own below E, over the
 * EPS, at the flush; held, it rides the flush's circuits with the rest.
 * (GENI online, seed 9: a 4 × 5-rack job sent 45 of its 300 MB over the EPS
 * after its maps, 2 s of shuffle where the circuits need 0.6 s.)  Unless
 * the rack is full of held reduces (rack_held): nothing could run there. */
static bool small_tail(struct sched *s, struct jp_agg *a, const struct job *j, int d)
{
	const struct cluster *c = s->c;
	const struct jobpacker *jp = s->priv;
	int here = 0, rm = jp->rt.plan.rm[j->id] > 0 ? jp->rt.plan.rm[j->id] : 1;
	uint64_t rem = a->tail_rem;   /* pend's refresh came first: the maps not done */
	for (int ri = 0; ri < j->nreduces; ri++) {
		const struct task *r = job_reduce(c->w->tasks, j, ri);
		here += r->state == TASK_RUNNING && cluster_rack_of(c, r->server) == d;
	}
	double piece = (double)rem * here / j->nreduces / rm;
	return piece > 0 && piece <= s->p.elephant_bytes;
}

/* Whether the job's unfetched output for its running reduces on rack d is
 * over E from every source rack that has some (and one has). */
static bool every_source_over_e(struct sched *s, const struct jp_agg *a, int d)
{
	int R = s->c->racks;
	bool any = false;
	for (int sr = 0; sr < R; sr++)
		if (sr != d && a->pend[sr * R + d] > 0) {
			if (a->pend[sr * R + d] <= s->p.elephant_bytes)
				return false;
			any = true;
		}
	return any;
}

static bool release_ready(struct sched *s, struct task *reduce)
{
	const struct cluster *c = s->c;
	struct job *j = &c->w->jobs[reduce->job];
	if (!postpones(s, j->id) || reduce->server < 0)
		return true;
	struct jp_agg *a = agg_of(s, j);
	if (!a)
		return true;   /* out of memory: do not hold the shuffle */
	agg_refresh(s, a, j);
	agg_sync(a, j, reduce);
	if (a->flush[reduce->index])
		return grant(s, a, j, reduce);
	int R = c->racks, d = cluster_rack_of(c, reduce->server);
	/* At the flush no map output is still to come, so waiting for the
	 * rack's other planned reduces, while other jobs' tasks hold its
	 * containers, cannot make what the running ones fetch any bigger: once
	 * that is over E from every source rack, it goes, and a reduce still
	 * without a container fetches its share when it gets one.  Waiting had
	 * held 9 of a rack's 10 reduces idle for 4 s until the 10th got a
	 * container, the OCS dark meanwhile (GENI batch, simulator seed 12: a
	 * 504 MB job planned 4 × 8); seeds 4-13, batch makespan ÷ F-Hybrid
	 * 0.627 -> 0.616 (seeds 9, 11, 13 1-2 s shorter, 7 0.6 s longer). */
	bool flush = j->maps_done == j->nmaps;
	if (!gathered(s, a, j, reduce, d) && !(flush && rack_full(c, d) && every_source_over_e(s, a, d)))
		return false;
	/* Released when the job's aggregate from every source rack with
	 * finished, unfetched output is over E (the aggregate "reaches the
	 * elephant flow threshold", §4.2.2), so that all of it rides circuits;
	 * releasing when one source rack crossed sent the others' smaller
	 * aggregates over the EPS (GENI batch, 5 seeds: OCS share 52% -> 58%,
	 * makespan ÷ F-Hybrid 0.68 -> 0.66).  Or when every map is done (flush). */
	if (!flush && !(every_source_over_e(s, a, d) && (!small_tail(s, a, j, d) || rack_held(s, d, reduce))))
		return false;
	/* Release rack d: its aggregates become transfers now, every running
	 * reduce of the job there fetches in this round. */
	a->rel[d] = 0;
	for (int sr = 0; sr < R; sr++)
		if (sr != d)
			a->rel[d] += a->pend[sr * R + d];
	for (int ri = 0; ri < j->nreduces; ri++) {
		struct task *r = job_reduce(c->w->tasks, j, ri);
		if (r->state == TASK_RUNNING && cluster_rack_of(c, r->server) == d) {
			agg_sync(a, j, r);
			a->flush[ri] = true;
		}
	}
	return grant(s, a, j, reduce);
}

static bool jobpacker_shuffle_ready(struct sched *s, struct task *reduce)
{
	struct jobpacker *jp = s->priv;
	bool ready = release_ready(s, reduce);
	jp->held[reduce->id] = !ready;   /* for rack_held */
	return ready;
}

static bool jobpacker_circuit_eligible(struct sched *s, const struct task *reduce, int src_server, uint64_t bytes)
{
	struct jobpacker *jp = s->priv;
	const struct cluster *c = s->c;
	const struct job *j = &c->w->jobs[reduce->job];
	int sr = cluster_rack_of(c, src_server), d = cluster_rack_of(c, reduce->server);
	if (sr == d)
		return false;
	if (!postpones(s, j->id) || !jp->agg[j->id])
		return bytes > s->p.elephant_bytes;
	/* "The size of aggregated shuffle data of the reduce tasks reaches the
	 * elephant flow threshold.  Then, we can use high-bandwidth OCS"
	 * (§4.2.2): what the release of rack d sent for, from every source rack,
	 * is classified.  Classifying each source rack's share on its own sent
	 * the shares under E over the EPS: a map rack that ran 9 of its planned
	 * 20 maps pushed 52 MB of 8.6 MB shares through its 0.1 Gb/s uplink in
	 * 4 s, its OCS port idle (GENI batch, simulator seed 4, job 1).  Seeds
	 * 4-23: batch makespan ÷ Corral 0.980 -> 0.965, OCS share 72% -> 74%;
	 * emulator, ten seeds: 1.012 -> 0.987. */
	return jp->agg[j->id]->rel[d] > s->p.elephant_bytes;
}

static int jobpacker_init(struct sched *s)
{
	struct jobpacker *jp = s->priv;
	const struct jp_opts *o = s->opts;
	jp_conf_default(&jp->rt.conf);
	jp_conf_fabric(&jp->rt.conf, &s->p);
	jp_conf_opts(&jp->rt.conf, o);
	jp->rt.strict = true;
	jp->rt.sparsity = jp->rt.conf.sparsity;
	jp->agg = calloc(s->c->w->njobs ? s->c->w->njobs : 1, sizeof *jp->agg);
	jp->held = calloc(s->c->w->ntasks ? s->c->w->ntasks : 1, sizeof *jp->held);
	if (!jp->agg || !jp->held || jp_rt_init(&jp->rt, s) ||
	    jp_plan_jobpacker(&jp->rt.plan, s->c, &jp->rt.model, &jp->rt.conf, &s->rng) ||
	    (jp->rt.conf.adhoc_agg && jp_adhoc_init(&jp->rt, s->c)))
		return -1;
	jp_plan_dump(&jp->rt.plan, s->c, "jobpacker", o->sh.plan_log);
	return 0;
}

static void jobpacker_destroy(struct sched *s)
{
	struct jobpacker *jp = s->priv;
	for (int i = 0; jp->agg && i < s->c->w->njobs; i++)
		agg_free(jp->agg[i]);
	free(jp->agg);
	free(jp->held);
	jp_rt_free(&jp->rt);
}

static struct task *jobpacker_offer(struct sched *s, int server)
{
	struct jobpacker *jp = s->priv;
	return jp_follow_offer(s, &jp->rt, server);
}

static void jobpacker_arrived(struct sched *s, struct job *j)
{
	struct jobpacker *jp = s->priv;
	jp_follow_arrived(&jp->rt, s->c, j);
}

static void jobpacker_place(struct sched *s, struct job *j, struct task *map, int replicas[3])
{
	struct jobpacker *jp = s->priv;
	jp_follow_place(s, &jp->rt, j, map, replicas);
}

static void jobpacker_tick(struct sched *s)
{
	struct jobpacker *jp = s->priv;
	jp_follow_tick(s, &jp->rt);
	for (int i = 0; i < s->c->w->njobs; i++)
		if (jp->agg[i] && s->c->arrived[i] && cluster_job_finished(&s->c->w->jobs[i])) {
			agg_free(jp->agg[i]);
			jp->agg[i] = NULL;
		}
}

static const struct sched_opt jobpacker_opt_table[] = {
	JP_SHARED_OPTS,
	SCHED_INT_OPT(struct jp_opts, subbatches, 5, 1, INFINITY, "sub-batches B of a batch (§4.2.3.2)"),
	SCHED_INT_OPT(struct jp_opts, orders, 120, 1, INFINITY,
		      "orders of the sub-batches the batch planner tries, keeping the plan that ends first (120: every "
		      "order of 5; 1: the text's single random order)"),
	SCHED_INT_OPT(struct jp_opts, plan_threads, 0, 0, 256,
		      "threads the batch planner tries the orders on; 0: one per core (the plan is the same)"),
	SCHED_NUM_OPT(struct jp_opts, rho, NAN, 0, INFINITY, SCHED_OPT_AUTO,
		      "over-provisioning ratio: a planned stage takes (1 + rho) x its containers' room; auto: 0 when "
		      "every job is recurring, 1.0 otherwise (§4.3.2, §4.3.4)"),
	SCHED_NUM_OPT(struct jp_opts, eps_jobs, JP_EPS_JOBS, 1, INFINITY, 0,
		      "shuffles a busy EPS uplink carries at once: Eq. 4.1's EPS term gives a job 1/this of its "
		      "uplinks (1: Eq. 4.1 as printed)"),
	SCHED_NUM_OPT(struct jp_opts, piece_margin, 1.25, 0, INFINITY, SCHED_OPT_ABOVE_MIN,
		      "a rack pair is planned on the OCS only when its pieces exceed the elephant threshold by this "
		      "factor"),
	SCHED_CHOICE_OPT(struct jp_opts, lrf, 0, jp_lrf_names,
			 "Eq. 4.1's shuffle term: periodic (circuits lit for whole intervals), fig46 (port-parallel, "
			 "continuous circuits: Fig. 4.6), literal (as printed); auto: fig46 with --ocs-reconfig "
			 "early, periodic otherwise"),
	SCHED_CHOICE_OPT(struct jp_opts, seq, 0, jp_seq_names,
			 "a rack's sequence in the planning list's order, the jobs' priority (list), or by planned "
			 "start (time)"),
	SCHED_BOOL_OPT(struct jp_opts, ports, true,
		       "the plan books the OCS ports, so shuffles that share one take turns"),
	SCHED_BOOL_OPT(struct jp_opts, postpone, true, "shuffle data aggregation (§4.2.2)"),
	SCHED_BOOL_OPT(struct jp_opts, sparsity, true, "the ad-hoc sparsity rule (§4.2.4)"),
	SCHED_BOOL_OPT(struct jp_opts, adhoc_agg, false,
		       "ad-hoc jobs on a few racks, the trial §4.2.5 makes and drops (Fig. 4.18)"),
	{0},
};

const struct sched_ops sched_jobpacker = {
	.name = "jobpacker",
	.help = "JobPacker: shuffle aggregation for the OCS + offline plan of recurring jobs (use --slowstart 0.7)",
	.priv_size = sizeof(struct jobpacker),
	.opts = jobpacker_opt_table,
	.opts_size = sizeof(struct jp_opts),
	.init = jobpacker_init,
	.destroy = jobpacker_destroy,
	.job_arrived = jobpacker_arrived,
	.offer = jobpacker_offer,
	.tick = jobpacker_tick,
	.place_input = jobpacker_place,
	.shuffle_ready = jobpacker_shuffle_ready,
	.circuit_eligible = jobpacker_circuit_eligible,
};
