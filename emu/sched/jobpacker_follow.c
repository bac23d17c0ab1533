/* jobpacker_follow.c — the online half of JobPacker and of the Corral
 * baseline (the dissertation's §4.2.4; Corral's design): following
 * the plan jobpacker_plan.c made.  A free container serves its rack's
 * sequence of planned entries; input blocks go to the job's planned racks;
 * ad-hoc jobs (Fair order, sparsity rule) and non-shuffle-heavy planned
 * jobs fill what the plan leaves; a job planned on a failed rack falls back
 * to Fair.  Choices the text leaves open are marked "ours". */
#include "emu/sched/jobpacker.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int jp_rt_init(struct jp_rt *rt, struct sched *s)
{
	const struct cluster *c = s->c;
	int n = c->w->njobs ? c->w->njobs : 1;
	jp_model_make(&rt->model, c, &rt->conf, s->p.elephant_bytes);
	rt->fallback = calloc(n, sizeof *rt->fallback);
	rt->rack_dead = calloc(c->racks, sizeof *rt->rack_dead);
	rt->cursor = calloc(c->racks, sizeof *rt->cursor);
	rt->block_server = calloc(c->racks, sizeof *rt->block_server);
	rt->tidx = calloc(n, sizeof *rt->tidx);
	rt->spread_since = malloc(n * sizeof *rt->spread_since);
	rt->idle = malloc(n * sizeof *rt->idle);
	if (!rt->fallback || !rt->rack_dead || !rt->cursor || !rt->block_server || !rt->tidx || !rt->spread_since ||
	    !rt->idle) {
		jp_rt_free(rt);
		return -1;
	}
	for (int i = 0; i < n; i++)
		rt->spread_since[i] = -1;
	rt->offplan = -1;
	rt->limit_early = (int)floor(rt->conf.early_reduce_cap * rt->model.containers + 1e-9);
	double scale = c->w->params.data_scale > 0 ? c->w->params.data_scale : 1;
	rt->adhoc_sh_bytes = (uint64_t)(rt->conf.adhoc_sh_input * scale);
	return 0;
}

static void tidx_free(struct jp_rt *rt, int job);
static void seq_free(struct jp_rt *rt);

void jp_rt_free(struct jp_rt *rt)
{
	for (int i = 0; rt->tidx && i < rt->plan.njobs; i++)
		tidx_free(rt, i);
	free(rt->tidx);
	rt->tidx = NULL;
	free(rt->on_rack);
	free(rt->on_key);
	rt->on_rack = NULL;
	rt->on_key = NULL;
	seq_free(rt);
	jp_plan_free(&rt->plan);
	jp_adhoc_free(rt);
	free(rt->fallback);
	free(rt->rack_dead);
	free(rt->cursor);
	free(rt->block_server);
	free(rt->spread_since);
	free(rt->idle);
	rt->idle = NULL;
	rt->fallback = rt->rack_dead = NULL;
	rt->cursor = rt->block_server = NULL;
	rt->spread_since = NULL;
}

bool jp_job_sh(const struct jp_rt *rt, const struct cluster *c, const struct job *j)
{
	(void)c;
	if (rt->plan.planned && rt->plan.planned[j->id])
		return rt->plan.sh[j->id];
	return j->input_bytes > rt->adhoc_sh_bytes;   /* ad-hoc: input > 1 GB (§4.2.4) */
}

static bool follows_plan(const struct jp_rt *rt, int job)
{
	return rt->plan.planned[job] && !rt->fallback[job];
}

/* How many jobs do not follow the plan (counted once the plan exists). */
static int offplan_jobs(struct jp_rt *rt)
{
	if (rt->offplan < 0) {
		rt->offplan = 0;
		for (int i = 0; i < rt->plan.njobs; i++)
			rt->offplan += !rt->plan.planned[i] || rt->fallback[i];
	}
	return rt->offplan;
}

void jp_rt_fall_back(struct jp_rt *rt, int job)
{
	if (rt->fallback[job])
		return;
	offplan_jobs(rt);
	rt->fallback[job] = true;
	rt->offplan += rt->plan.planned[job];
}

static int pending_maps(const struct job *j)
{
	return j->nmaps - j->maps_done - j->maps_running;
}

/* Containers of `rack` held by reduces of jobs that still have unlaunched maps. */
static int early_reduces(const struct cluster *c, int rack)
{
	int n = 0;
	for (int i = 0; i < c->running_jobs; i++) {
		const struct job *j = cluster_active(c, i);
		if (!j->reduces_running || !pending_maps(j))
			continue;
		for (int k = 0; k < j->nreduces; k++) {
			const struct task *t = job_reduce(c->w->tasks, j, k);
			n += t->state == TASK_RUNNING && t->server >= 0 && cluster_rack_of(c, t->server) == rack;
		}
	}
	return n;
}

static bool reduce_ok(const struct jp_rt *rt, const struct job *j, int early)
{
	return !pending_maps(j) || early < rt->limit_early;
}

/* A planned job's tasks as the strict follower looks for them: its maps and
 * reduces by planned rack, and its maps by each server that holds a replica
 * of their block on their planned rack; every list in task order, with a
 * cursor past the entries at its head that are no longer pending.  Scanning
 * all the job's tasks instead, for every entry of the rack's sequence on
 * every offer, was 84% of a paper-scale run (a 12,499-map job sits in 15
 * racks' sequences for its whole life). */
struct jp_tidx {
	int *map_start, *map_list, *map_cur;     /* racks + 1, nmaps, racks */
	int *red_start, *red_list, *red_cur;     /* racks + 1, nreduces, racks */
	int *node_start, *node_list, *node_cur;  /* nservers + 1, <= 3 nmaps, nservers */
	int requeues;                            /* j->requeues the cursors are valid for */
};

static void tidx_free(struct jp_rt *rt, int job)
{
	struct jp_tidx *x = rt->tidx[job];
	if (!x)
		return;
	free(x->map_start);
	free(x->map_list);
	free(x->map_cur);
	free(x->red_start);
	free(x->red_list);
	free(x->red_cur);
	free(x->node_start);
	free(x->node_list);
	free(x->node_cur);
	free(x);
	rt->tidx[job] = NULL;
}

/* Stable counting sort of n (key, item) pairs, given in item order, into
 * per-key lists start/list, and a cursor per key. */
static int csr_build(int nkeys, int n, const int *key, const int *item, int **start, int **list, int **cur)
{
	*start = calloc(nkeys + 1, sizeof **start);
	*list = malloc((n ? n : 1) * sizeof **list);
	*cur = malloc((nkeys ? nkeys : 1) * sizeof **cur);
	if (!*start || !*list || !*cur)
		return -1;
	for (int x = 0; x < n; x++)
		(*start)[key[x] + 1]++;
	for (int k = 0; k < nkeys; k++)
		(*start)[k + 1] += (*start)[k];
	memcpy(*cur, *start, nkeys * sizeof **cur);
	for (int x = 0; x < n; x++)
		(*list)[(*cur)[key[x]]++] = item[x];
	return 0;
}

static void tidx_rewind(const struct cluster *c, struct jp_tidx *x)
{
	memcpy(x->map_cur, x->map_start, c->racks * sizeof *x->map_cur);
	memcpy(x->red_cur, x->red_start, c->racks * sizeof *x->red_cur);
	memcpy(x->node_cur, x->node_start, c->nservers * sizeof *x->node_cur);
}

static int tidx_lists(const struct cluster *c, const struct jp_plan *p, const struct job *j, struct jp_tidx *x)
{
	int n = j->nmaps > j->nreduces ? j->nmaps : j->nreduces;
	int *key = malloc((3 * (size_t)n + 1) * sizeof *key), *item = malloc((3 * (size_t)n + 1) * sizeof *item);
	int rc = -1, np = 0;
	if (!key || !item)
		goto out;
	for (int i = 0; i < j->nmaps; i++) {
		int q = p->task_rack[j->first_task + i];
		key[i] = q < 0 ? c->racks : q;   /* unplanned: a key past the racks, never looked up */
		item[i] = i;
	}
	if (csr_build(c->racks + 1, j->nmaps, key, item, &x->map_start, &x->map_list, &x->map_cur))
		goto out;
	for (int i = 0; i < j->nreduces; i++) {
		int q = p->task_rack[j->first_task + j->nmaps + i];
		key[i] = q < 0 ? c->racks : q;
		item[i] = i;
	}
	if (csr_build(c->racks + 1, j->nreduces, key, item, &x->red_start, &x->red_list, &x->red_cur))
		goto out;
	for (int i = 0; i < j->nmaps; i++) {
		const struct task *t = job_map(c->w->tasks, j, i);
		int q = p->task_rack[t->id];
		for (int k = 0; k < 3; k++) {
			int sv = t->replicas[k];
			bool dup = false;
			for (int e = 0; e < k; e++)
				dup |= t->replicas[e] == sv;
			if (sv < 0 || sv >= c->nservers || dup || cluster_rack_of(c, sv) != q)
				continue;
			key[np] = sv;
			item[np++] = i;
		}
	}
	rc = csr_build(c->nservers, np, key, item, &x->node_start, &x->node_list, &x->node_cur);
out:
	free(key);
	free(item);
	return rc;
}

/* Job j's index, its cursors rewound if a task went back to pending. */
static struct jp_tidx *tidx_of(const struct cluster *c, struct jp_rt *rt, const struct job *j)
{
	struct jp_tidx *x = rt->tidx[j->id];
	if (!x) {
		if (!(x = rt->tidx[j->id] = calloc(1, sizeof *x)))
			return NULL;
		if (tidx_lists(c, &rt->plan, j, x)) {
			tidx_free(rt, j->id);
			return NULL;
		}
		x->requeues = j->requeues - 1;
	}
	if (x->requeues != j->requeues) {
		tidx_rewind(c, x);
		x->requeues = j->requeues;
	}
	return x;
}

/* The first pending task of list[*cur .. end) (indices of job j's maps, or
 * reduces), node-local to `server` if `node`; the cursor moves past the
 * tasks at its head that are not pending. */
static struct task *tidx_first(const struct cluster *c, const struct job *j, bool reduce, const int *list, int *cur,
			       int end, int server, bool node)
{
	for (int i = *cur; i < end; i++) {
		struct task *t = reduce ? job_reduce(c->w->tasks, j, list[i]) : job_map(c->w->tasks, j, list[i]);
		if (t->state != TASK_PENDING) {
			if (i == *cur)
				(*cur)++;
			continue;
		}
		if (!node || cluster_locality(c, t, server) == LOCAL_NODE)   /* a dead server holds no replica */
			return t;
	}
	return NULL;
}

static struct task *planned_map(struct sched *s, struct jp_rt *rt, struct job *j, int server, int rack)
{
	const struct cluster *c = s->c;
	if (!rt->strict)
		return rt->plan.map_rack[(size_t)j->id * c->racks + rack] ? cluster_best_map(c, j, server, NULL) : NULL;
	/* The first pending map planned on the rack in map order, a node-local
	 * one first. */
	struct jp_tidx *x = tidx_of(c, rt, j);
	if (!x)
		return NULL;
	struct task *t = tidx_first(c, j, false, x->node_list, &x->node_cur[server], x->node_start[server + 1], server,
				    true);
	if (!t)
		t = tidx_first(c, j, false, x->map_list, &x->map_cur[rack], x->map_start[rack + 1], server, false);
	if (t)
		return t;
	/* The rack's own share of the job's maps is launched: the entry map_j
	 * of Seq_i stands for "any map task of job j" (§4.2.1), so rather than
	 * idle while the job's other map racks are behind, the rack takes one
	 * of their maps whose block has a replica here (replicas 2 and 3 are on
	 * one other rack).  Not one it would read across racks: such a read
	 * shares the EPS with the shuffles, and one slow map holds back every
	 * reduce of its job (two of them, stolen at the tail of the seed-8
	 * batch, cost it 6 s).  The output stays on R_j^map, so the job's rack
	 * pairs are the planned ones. */
	enum locality loc;
	t = cluster_best_map(c, j, server, &loc);
	return t && loc != LOCAL_NONE ? t : NULL;
}

/* Whether `server` may take one more of job j's reduces.  A reduce fetches
 * through its server's one port, so two of a job's reduces on a server
 * fetch at half speed.  When a job's reduces become runnable, the first
 * server of a planned rack with free containers would take one per
 * heartbeat (paper scale, seed 4: 6 of a 6.7 TB job's reduces on one
 * 10 Gb/s port, its last fetch 400 s after the others' median).  So a
 * server that runs one of the job's reduces declines another, for up to
 * node_wait_s from the first refusal since the job's last reduce started
 * (as delay scheduling waits for a local map); then it takes it, so that
 * nothing waits on servers that do not free up (a rack's started reducers
 * wait for the rest, §4.2.2).  Where a server has one container (GENI) it
 * never holds two tasks anyway.  Called only with a reduce to give; true:
 * give it. */
static bool reduce_spreads(struct sched *s, struct jp_rt *rt, const struct job *j, int server)
{
	const struct cluster *c = s->c;
	bool here = false;
	for (int i = 0; i < j->nreduces && !here; i++) {
		const struct task *t = job_reduce(c->w->tasks, j, i);
		here = t->state == TASK_RUNNING && t->server == server;
	}
	double *since = &rt->spread_since[j->id];
	if (here && *since < 0)
		*since = c->now;
	if (here && c->now - *since < s->p.node_wait_s)
		return false;
	*since = -1;
	return true;
}

static struct task *planned_reduce(struct sched *s, struct jp_rt *rt, struct job *j, int server, int *early)
{
	const struct cluster *c = s->c;
	int rack = cluster_rack_of(c, server);
	if (!cluster_reduces_allowed(c, j) || j->reduces_done + j->reduces_running == j->nreduces)
		return NULL;
	if (*early < 0)
		*early = early_reduces(c, rack);
	if (!reduce_ok(rt, j, *early))
		return NULL;
	struct task *t = NULL;
	if (!rt->strict) {
		if (rt->plan.red_rack[(size_t)j->id * c->racks + rack])
			t = cluster_next_reduce(c, j);
	} else {
		struct jp_tidx *x = tidx_of(c, rt, j);   /* the first pending reduce planned on the rack */
		if (x)
			t = tidx_first(c, j, true, x->red_list, &x->red_cur[rack], x->red_start[rack + 1], -1, false);
	}
	return t && reduce_spreads(s, rt, j, server) ? t : NULL;
}

/* Fair's next task of job j for `server` (maps by locality, then a reduce). */
static struct task *fair_task(struct sched *s, struct jp_rt *rt, struct job *j, int server, int *early)
{
	int rack = cluster_rack_of(s->c, server);
	struct task *t = NULL;
	if (jp_adhoc_allows(s, rt, j, JP_MAP, rack))
		t = cluster_best_map(s->c, j, server, NULL);
	if (t || !cluster_pending_reduces(s->c, j))
		return t;
	if (*early < 0)
		*early = early_reduces(s->c, rack);
	if (!reduce_ok(rt, j, *early) || !(t = cluster_next_reduce(s->c, j)))
		return NULL;
	return jp_adhoc_allows(s, rt, j, JP_RED, rack) ? t : NULL;
}

static bool fair_before(const struct job *a, const struct job *b)
{
	int ra = sched_running(a), rb = sched_running(b);
	if (ra != rb)
		return ra < rb;
	if (a->submit_s != b->submit_s)
		return a->submit_s < b->submit_s;
	return a->id < b->id;
}

/* The shuffle-heavy jobs with tasks running on `rack`: how many (0, 1, 2 =
 * two or more) and the first one's id. */
/* Job j's running tasks on each rack, counted again only when one of its
 * tasks changed state since (every start, finish or requeue moves one of
 * these counters); NULL when out of memory. */
static const int *running_on_racks(struct jp_rt *rt, const struct cluster *c, const struct job *j)
{
	int R = c->racks, n = c->w->njobs;
	if (!rt->on_rack) {
		rt->on_rack = malloc((size_t)n * R * sizeof *rt->on_rack);
		rt->on_key = malloc(n * sizeof *rt->on_key);
		if (!rt->on_rack || !rt->on_key) {
			free(rt->on_rack);
			free(rt->on_key);
			rt->on_rack = NULL;
			rt->on_key = NULL;
			return NULL;
		}
		for (int i = 0; i < n; i++)
			rt->on_key[i][4] = -1;
	}
	int key[5] = {j->maps_done, j->maps_running, j->reduces_done, j->reduces_running, j->requeues};
	int *on = rt->on_rack + (size_t)j->id * R;
	if (!memcmp(key, rt->on_key[j->id], sizeof key))
		return on;
	memset(on, 0, R * sizeof *on);
	for (int k = 0; k < j->nmaps + j->nreduces; k++) {
		const struct task *t = &c->w->tasks[j->first_task + k];
		if (t->state == TASK_RUNNING && t->server >= 0)
			on[cluster_rack_of(c, t->server)]++;
	}
	memcpy(rt->on_key[j->id], key, sizeof key);
	return on;
}

static int sh_on_rack(struct jp_rt *rt, const struct cluster *c, int rack, int *one)
{
	int n = 0;
	*one = -1;
	for (int i = 0; i < c->running_jobs && n < 2; i++) {   /* a job with running tasks is active */
		const struct job *j = cluster_active(c, i);
		if (!sched_running(j) || !jp_job_sh(rt, c, j))
			continue;
		const int *on = running_on_racks(rt, c, j);
		bool here = false;
		for (int k = 0; !on && k < j->nmaps + j->nreduces && !here; k++) {   /* no memory: scan */
			const struct task *t = &c->w->tasks[j->first_task + k];
			here = t->state == TASK_RUNNING && t->server >= 0 && cluster_rack_of(c, t->server) == rack;
		}
		if ((on && on[rack] > 0) || here) {
			if (!n++)
				*one = j->id;
		}
	}
	return n;
}

/* An ad-hoc (or fallen-back) job that may take a container: active, not
 * following the plan, with a task that may start; with `starved`, only
 * one that has no task running. */
static bool adhoc_candidate(const struct jp_rt *rt, const struct cluster *c, const struct job *j, bool starved)
{
	return !follows_plan(rt, j->id) && (!starved || !sched_running(j)) &&
	       (cluster_pending_maps(c, j) || cluster_pending_reduces(c, j));
}

/* Ad-hoc jobs (and fallen-back recurring ones) in Fair order on the idle
 * container; with the sparsity rule (§4.2.4), which "tries to" keep
 * shuffle-heavy jobs apart: shuffle-heavy first on a rack where none runs;
 * where one does, non-shuffle-heavy jobs first, then the shuffle-heavy job
 * already alone there.  Only then, rather than leave the container to the
 * plan's jobs past their share or idle, any shuffle-heavy job: the input
 * rule (> 1 GB) marks most jobs of a workload of big shuffles
 * shuffle-heavy (GENI mixed, seed 4: 13 of 15 ad-hoc jobs, 6 with a
 * shuffle over E), and kept strictly it left them only the racks no
 * recurring shuffle-heavy task ran on (simulator, seeds 4-13: their median
 * JCT 1.17 of Fair's; preferring it, 0.83; without the rule, 0.77). */
static struct task *adhoc_pick(struct sched *s, struct jp_rt *rt, int server, int *early, bool starved)
{
	struct cluster *c = s->c;
	bool any = false;
	if (!offplan_jobs(rt))
		return NULL;   /* every job follows the plan */
	for (int i = 0; i < c->running_jobs && !any; i++)
		any = adhoc_candidate(rt, c, cluster_active(c, i), starved);
	if (!any)
		return NULL;   /* the common case when every job is recurring: skip the sparsity census */
	int rack = cluster_rack_of(c, server), one = -1;
	int nsh = rt->sparsity ? sh_on_rack(rt, c, rack, &one) : 0;
	/* Try candidates class by class, in Fair order, until one has a task. */
	for (int cls = 0; cls < 4; cls++) {
		/* cls 0: SH jobs allowed on this rack (if none running there);
		 * cls 1: non-SH jobs (or everything without the sparsity rule);
		 * cls 2: the SH job already running alone on this rack;
		 * cls 3: any SH job (the rule could not be kept). */
		if (!rt->sparsity && cls != 1)
			continue;
		if ((cls == 0 && nsh > 0) || (cls == 2 && nsh != 1) || (cls == 3 && nsh == 0))
			continue;
		bool *tried = NULL;
		for (;;) {
			struct job *best = NULL;
			for (int i = 0; i < c->running_jobs; i++) {
				struct job *j = cluster_active(c, i);
				if ((tried && tried[j->id]) || !adhoc_candidate(rt, c, j, starved))
					continue;
				if (rt->sparsity) {
					bool sh = jp_job_sh(rt, c, j);
					if ((cls == 1 && sh) || (cls != 1 && !sh) || (cls == 2 && j->id != one))
						continue;
				}
				if (!best || fair_before(j, best))
					best = j;
			}
			if (!best)
				break;
			struct task *t = fair_task(s, rt, best, server, early);
			if (t) {
				free(tried);
				return t;
			}
			if (!tried && !(tried = calloc(c->w->njobs, sizeof *tried)))
				return NULL;
			tried[best->id] = true;
		}
		free(tried);
	}
	return NULL;
}

/* Whether any alive server of the racks marked in `racks` has a free container. */
static bool racks_have_room(const struct cluster *c, const uint8_t *racks)
{
	for (int r = 0; r < c->racks; r++) {
		int first, n;
		cluster_rack_servers(c, r, &first, &n);
		for (int k = first; racks[r] && k < first + n; k++) {
			const struct server *sv = &c->servers[k];
			if (sv->alive && sv->free > 0)
				return true;
		}
	}
	return false;
}

/* Whether a container of `rack` may take a reduce that is not the rack's
 * own: more free containers than the reduces the plan put on this rack for
 * shuffle-heavy jobs whose maps have begun.  Those come within a map phase
 * (slowstart), and a rack's reducers fetch together (§4.2.2): one that finds
 * its containers held by another job's reducers, which hold them through a
 * shuffle, keeps its rack-mates waiting.  GENI batch seed 8 (emulator):
 * job 18's four reduces took rack 0 0.2 s before job 7's were allowed,
 * three of job 7's waited 5.8 s, and its rack-0 shuffle with them.
 * Batch makespan ÷ Corral, simulator seeds 4–23: 0.996 -> 0.980; FB-2010
 * 0.999 -> 0.994; emulator, seeds 4 5 6 8 9, JobPacker's mean 24.4 -> 23.7 s. */
static bool rack_room_for_other_reduce(const struct cluster *c, struct jp_rt *rt, int rack)
{
	int free_ = cluster_rack_free(c, rack), due = 0;
	for (int i = 0; i < c->running_jobs && due < free_; i++) {
		const struct job *x = cluster_active(c, i);
		if (!follows_plan(rt, x->id) || !rt->plan.sh[x->id] || pending_maps(x) == x->nmaps ||
		    x->reduces_done + x->reduces_running == x->nreduces)
			continue;
		struct jp_tidx *ix = tidx_of(c, rt, x);
		if (!ix)
			return true;
		for (int e = ix->red_cur[rack]; e < ix->red_start[rack + 1]; e++)
			due += job_reduce(c->w->tasks, x, ix->red_list[e])->state == TASK_PENDING;
	}
	return due < free_;
}

/* A task of a non-shuffle-heavy planned job for a container elsewhere than
 * its planned racks: the plan put such a job on "any containers that are
 * available" (§4.2.3.2), and its racks only time it (its shuffle takes the EPS
 * wherever it runs), but the plan's times drift at run time.  Two uses:
 *  - before < ∞: the rack's next runnable entry was planned to start at
 *    `before`; a job planned earlier, whose planned racks are all busy,
 *    goes first, as the plan orders them.
 *    Small jobs had waited behind their racks' later entries (GENI online,
 *    simulator, seeds 9–14: median JCT ÷ F-Hybrid 0.89 -> 0.87, batch
 *    median 1.22 -> 1.07; seeds 4–8: mixed ad hoc 1.47 -> 1.28, recurring
 *    0.63 -> 0.59);
 *  - before = ∞: the rack's sequence and the ad-hoc jobs leave the
 *    container idle; any such job runs here.
 *    Without this a one-task job planned on a rack still busy with a job
 *    that ran long waited there ~1 s beside idle racks (seed 4).
 * Jobs in planned order (planned start); a map only with a replica on this
 * rack, as planned_map's rule; a reduce only where it leaves room for the
 * rack's own planned reduces that come soon; shuffle-heavy jobs stay on
 * their racks, which is what aggregates their shuffle. */
static bool idle_before(const struct jp_plan *p, const struct job *a, const struct job *b)
{
	return p->start[a->id] < p->start[b->id] || (p->start[a->id] == p->start[b->id] && a->id < b->id);
}

static void idle_down(const struct jp_plan *p, struct job **h, int n, int i)
{
	struct job *x = h[i];
	for (;;) {
		int c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && idle_before(p, h[c + 1], h[c]))
			c++;
		if (!idle_before(p, h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

static struct task *idle_pick(struct sched *s, struct jp_rt *rt, int server, int *early, double before)
{
	struct cluster *c = s->c;
	const struct jp_plan *p = &rt->plan;
	int R = c->racks, n = 0;
	int room = -1;   /* rack_room_for_other_reduce, once asked: the same for every job */
	/* The candidates, a heap by (planned start, id): most offers take the
	 * first, some try many. */
	struct job **h = rt->idle;
	for (int i = 0; i < c->running_jobs; i++) {
		int id = c->active[i];   /* the plan's arrays first: a job is a cache miss (a batch has 1000) */
		if (!follows_plan(rt, id) || p->sh[id] || !(p->start[id] < before))
			continue;
		struct job *x = &c->w->jobs[id];
		if (cluster_pending_maps(c, x) || cluster_pending_reduces(c, x))
			h[n++] = x;
	}
	for (int i = n / 2 - 1; i >= 0; i--)
		idle_down(p, h, n, i);
	while (n) {
		struct job *j = h[0];
		h[0] = h[--n];
		idle_down(p, h, n, 0);
		if (cluster_pending_maps(c, j) && !racks_have_room(c, p->map_rack + (size_t)j->id * R)) {
			enum locality loc;
			struct task *t = cluster_best_map(c, j, server, &loc);
			if (t && loc != LOCAL_NONE)
				return t;
		}
		if (cluster_pending_reduces(c, j) && !racks_have_room(c, p->red_rack + (size_t)j->id * R) &&
		    (room < 0 ? (room = rack_room_for_other_reduce(c, rt, cluster_rack_of(c, server))) : room)) {
			if (*early < 0)
				*early = early_reduces(c, cluster_rack_of(c, server));
			if (reduce_ok(rt, j, *early))
				return cluster_next_reduce(c, j);
		}
	}
	return NULL;
}

static void seq_free(struct jp_rt *rt)
{
	for (int i = 0; rt->next && i < rt->plan.racks; i++)
		free(rt->next[i]);
	free(rt->next);
	free(rt->at);
	free(rt->at_start);
	rt->next = NULL;
	rt->at = NULL;
	rt->at_start = NULL;
}

static void seq_insert(struct jp_rt *rt, int rack, int e)
{
	int *nx = rt->next[rack], *head = &rt->cursor[rack];
	if (*head > e) {
		nx[e] = *head;
		*head = e;
		return;
	}
	int q = *head;
	while (nx[q] < e)
		q = nx[q];
	nx[e] = nx[q];
	nx[q] = e;
}

/* Job j's entries join the lists. */
static void seq_link(struct jp_rt *rt, int j)
{
	for (int k = rt->at_start[j]; k < rt->at_start[j + 1]; k++)
		seq_insert(rt, rt->at[k].rack, rt->at[k].e);
}

/* The racks' sequences as lists of the entries whose job has arrived and
 * was not seen finished (a finished job never runs again), so that an
 * offer's walk steps neither over the hundreds of finished entries a
 * paper-scale batch leaves behind its head nor over those of the jobs yet to
 * come (online at the paper's scale, 98% of the entries walked: 1.4 billion
 * steps).  A job's entries join when it arrives.  Built on the first offer,
 * when the plan exists; -1: out of memory. */
static int seq_lists(struct jp_rt *rt, const struct cluster *c)
{
	const struct jp_plan *p = &rt->plan;
	int n = c->w->njobs, total = 0;
	rt->next = calloc(p->racks, sizeof *rt->next);
	rt->at_start = calloc(n + 1, sizeof *rt->at_start);
	if (!rt->next || !rt->at_start)
		return -1;
	for (int r = 0; r < p->racks; r++) {
		if (!(rt->next[r] = malloc((p->nseq[r] + 1) * sizeof **rt->next)))
			return -1;
		rt->cursor[r] = p->nseq[r];
		total += p->nseq[r];
		for (int e = 0; e < p->nseq[r]; e++)
			rt->at_start[p->seq[r][e].job + 1]++;
	}
	for (int j = 0; j < n; j++)
		rt->at_start[j + 1] += rt->at_start[j];
	if (!(rt->at = malloc((total ? total : 1) * sizeof *rt->at)))
		return -1;
	int *fill = malloc((n ? n : 1) * sizeof *fill);
	if (!fill)
		return -1;
	memcpy(fill, rt->at_start, n * sizeof *fill);
	for (int r = 0; r < p->racks; r++)
		for (int e = 0; e < p->nseq[r]; e++)
			rt->at[fill[p->seq[r][e].job]++] = (struct jp_at){r, e};
	free(fill);
	for (int i = 0; i < c->running_jobs; i++)
		seq_link(rt, c->active[i]);
	return 0;
}

void jp_follow_arrived(struct jp_rt *rt, const struct cluster *c, const struct job *j)
{
	if (rt->next && cluster_job_active(c, j))   /* else the lists, once built, take it */
		seq_link(rt, j->id);
}

/* Whether job j may have something for the entry's stage(s): pending maps,
 * or reduces allowed and pending.  What planned_map and planned_reduce
 * answer NULL to without looking further. */
static bool may_run(const struct cluster *c, const struct job *j, int stage)
{
	if ((stage & JP_MAP) && pending_maps(j) > 0)
		return true;
	return (stage & JP_RED) && cluster_reduces_allowed(c, j) && j->reduces_done + j->reduces_running < j->nreduces;
}

/* The over-provisioning ratio's runtime side (§4.2.3.2): the plan
 * gives every recurring task (1+ρ) containers, so each rack's sequence has
 * slack in it, and "the unused containers can be used by the ad-hoc jobs".
 * A recurring job that runs ahead of its plan (its entry on the rack is
 * not due yet) eats that slack: GENI mixed, simulator seed 4, ad-hoc jobs
 * waited 5.1 s (median) for their first container, 0.02 s under Fair.  So
 * while ad-hoc jobs wait, a rack whose recurring tasks hold C/(1+ρ) of its
 * containers (the share the plan times them with) serves only its due
 * entries before them (jp_follow_offer).  Seeds 4-23, with adhoc_pick's
 * fallback: ad-hoc median JCT 1.14 -> 0.92 of Fair's, recurring 0.76 ->
 * 0.83.  Capping every recurring entry, due or not, at the share made
 * small recurring jobs queue behind big ones held to half their racks
 * (seed 9: a 12-map job 10.6 s, under Fair 1.9 s).
 * Past the share, an ad-hoc job with no task running goes even before the
 * due entries, as YARN's Fair scheduler serves a starved job first: a
 * recurring job behind its plan had every due entry take each freed
 * container, while a 2-map ad-hoc job waited 9.8 s for its first (seed 8,
 * 728 recurring maps started meanwhile).  Seeds 4-23: ad-hoc median JCT
 * 0.910 -> 0.876 of Fair's, recurring 0.788 -> 0.789.  Serving every
 * ad-hoc job before the due entries gives 0.822, but the recurring jobs'
 * mean JCT grows by a third (5.19 -> 6.84 s, Fair's 7.30). */
static bool recurring_share_full(struct jp_rt *rt, const struct cluster *c, int rack)
{
	if (rt->plan.rho <= 0 || !offplan_jobs(rt))
		return false;
	int C = 0, n = 0, first, size;
	cluster_rack_servers(c, rack, &first, &size);
	for (int k = first; k < first + size; k++)
		C += c->servers[k].containers;
	for (int i = 0; i < c->running_jobs; i++) {
		const struct job *j = cluster_active(c, i);
		const int *on = follows_plan(rt, j->id) && sched_running(j) ? running_on_racks(rt, c, j) : NULL;
		n += on ? on[rack] : 0;
	}
	return n >= (int)(C / (1 + rt->plan.rho));
}

/* The rack's sequence: the first entry with a runnable task (ours: §4.2.4
 * takes "the first job in the sequence", yet §4.2.3.2 gives unused planned
 * containers to "other recurring jobs assigned to the same racks"); with
 * `due_only`, of the entries due by now, and only the reduces of the others
 * (a rack's shuffle waits for all its planned reduces, §4.2.2). */
static struct task *follow_sequence(struct sched *s, struct jp_rt *rt, int server, bool due_only, int *early)
{
	struct cluster *c = s->c;
	int rack = cluster_rack_of(c, server);
	struct jp_plan *p = &rt->plan;
	if (!rt->next && seq_lists(rt, c)) {
		seq_free(rt);
		return NULL;
	}
	int *nx = rt->next[rack], prev = -1;
	double tried = -INFINITY;   /* idle_pick found nothing planned before this */
	for (int e = rt->cursor[rack]; e < p->nseq[rack]; e = nx[e]) {
		const struct jp_entry *en = &p->seq[rack][e];
		struct job *j = &c->w->jobs[en->job];
		if (cluster_job_finished(j)) {
			if (prev < 0)
				rt->cursor[rack] = nx[e];
			else
				nx[prev] = nx[e];
			continue;
		}
		prev = e;
		bool due = en->t <= c->now + 1e-9;
		int stage = due_only && !due ? en->stage & JP_RED : en->stage;
		if (!stage || rt->fallback[j->id] || !may_run(c, j, stage))
			continue;
		struct task *t = NULL;
		/* A non-shuffle-heavy job planned to start before this entry
		 * (and by now, with due_only) goes first, wherever it was planned
		 * (idle_pick); what failed for an earlier start fails again. */
		double before = due_only ? fmin(p->start[j->id], c->now + 1e-9) : p->start[j->id];
		if (rt->strict && before > tried) {
			if ((t = idle_pick(s, rt, server, early, before)))
				return t;
			tried = before;
		}
		if (stage & JP_MAP)
			t = planned_map(s, rt, j, server, rack);
		if (!t && (stage & JP_RED))
			t = planned_reduce(s, rt, j, server, early);
		if (t)
			return t;
	}
	return NULL;
}

struct task *jp_follow_offer(struct sched *s, struct jp_rt *rt, int server)
{
	int early = -1;
	struct task *t;
	/* The recurring share of the rack is full: an ad-hoc job with no task
	 * running goes first, then the entries due by now, then the other
	 * ad-hoc jobs, and only then the plan's work ahead of its time. */
	bool full = recurring_share_full(rt, s->c, cluster_rack_of(s->c, server));
	if (full && ((t = adhoc_pick(s, rt, server, &early, true)) || (t = follow_sequence(s, rt, server, true, &early)) ||
		     (t = adhoc_pick(s, rt, server, &early, false))))
		return t;
	if ((t = follow_sequence(s, rt, server, false, &early)))
		return t;
	/* Nothing of the plan runnable here: ad-hoc jobs get the container
	 * (unless they just had their turn), else a non-shuffle-heavy planned
	 * job waiting elsewhere. */
	if (!full && (t = adhoc_pick(s, rt, server, &early, false)))
		return t;
	return rt->strict ? idle_pick(s, rt, server, &early, INFINITY) : NULL;
}

/* A live server of `rack` for a first replica: round-robin over the rack's servers for a
 * planned block, so that a job's blocks on a rack are spread evenly over its servers (each
 * server then runs its own maps node-local); random otherwise. */
static int alive_server_of(struct sched *s, struct jp_rt *rt, int rack, bool planned)
{
	const struct cluster *c = s->c;
	int first, pr;
	cluster_rack_servers(c, rack, &first, &pr);
	int k = planned ? rt->block_server[rack]++ % pr : rng_below(&s->rng, pr);
	for (int x = 0; x < pr; x++) {
		int sv = first + (k + x) % pr;
		if (c->servers[sv].alive)
			return sv;
	}
	return -1;
}

void jp_follow_place(struct sched *s, struct jp_rt *rt, struct job *j, struct task *map, int replicas[3])
{
	const struct cluster *c = s->c;
	int rack = -1, other = -1;
	bool planned = follows_plan(rt, j->id);
	if (planned)
		rack = rt->plan.task_rack[map->id];
	else
		jp_adhoc_input_racks(s, rt, j, map, &rack, &other);   /* the Fig. 4.18 trial's racks */
	int first = rack >= 0 && !rt->rack_dead[rack] ? alive_server_of(s, rt, rack, planned) : -1;
	if (first < 0) {
		placement_default(c, &s->rng, replicas);   /* ad-hoc (or fallen back): HDFS default */
		return;
	}
	/* Replica 1 on the block's planned rack (one of R_j^map, blocks spread
	 * evenly: ours, the text draws the rack at random); replicas 2 and 3 on
	 * two servers of one other random rack (HDFS's two-rack rule, §4.2.4). */
	replicas[0] = first;
	replicas[1] = replicas[2] = -1;
	if (other < 0) {
		other = rack;
		if (c->racks > 1)
			while ((other = rng_below(&s->rng, c->racks)) == rack)
				;
	}
	int other_first, other_n;
	cluster_rack_servers(c, other, &other_first, &other_n);
	for (int k = 1; k < 3; k++) {
		int tries = 0, sv;
		do {
			sv = other_first + rng_below(&s->rng, other_n);
		} while ((sv == replicas[0] || sv == replicas[1]) && ++tries < 64);
		if (sv != replicas[0] && sv != replicas[1])
			replicas[k] = sv;
	}
}

void jp_follow_tick(struct sched *s, struct jp_rt *rt)
{
	const struct cluster *c = s->c;
	int R = c->racks;
	bool any = false;
	for (int j = 0; j < c->w->njobs; j++)   /* a finished job is never offered again */
		if (rt->tidx[j] && c->arrived[j] && cluster_job_finished(&c->w->jobs[j]))
			tidx_free(rt, j);
	for (int i = 0; i < R; i++) {
		bool dead = true;
		int first, n;
		cluster_rack_servers(c, i, &first, &n);
		for (int k = first; k < first + n && dead; k++)
			dead = !c->servers[k].alive;
		rt->rack_dead[i] = dead;
		any |= dead;
	}
	if (!any)
		return;
	/* A failed rack: the jobs planned on it ignore the plan and run under
	 * the default scheduler (§4.2.4). */
	for (int j = 0; j < c->w->njobs; j++) {
		if (!rt->plan.planned[j] || rt->fallback[j] || (c->arrived[j] && cluster_job_finished(&c->w->jobs[j])))
			continue;
		for (int i = 0; i < R; i++)
			if (rt->rack_dead[i] && (rt->plan.map_rack[(size_t)j * R + i] || rt->plan.red_rack[(size_t)j * R + i])) {
				jp_rt_fall_back(rt, j);
				break;
			}
	}
}
