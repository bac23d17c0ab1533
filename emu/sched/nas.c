/* nas.c — NAS, the network-aware scheduler of the dissertation's ch. 3, and
 * its ablations, as one policy whose parts are options (tt, adaptive,
 * ca_rts, cr_rts) and aliases that turn some off:
 *
 *   nas          MTS + CA-RTS + CR-RTS with TrafficThreshold and the
 *                adaptive map completion threshold
 *   nas-mts      MTS only: reduces like Fair, fixed threshold 0.2
 *   nas-nott     NAS without TrafficThreshold (every map shuffle-qualified)
 *   nas-noadapt  NAS with a fixed map completion threshold (0.2)
 *
 * A free container is offered to the jobs in Fair order (a job = a "user"
 * of the text: the emulator has no users).  A job whose own threshold is
 * reached is asked for a reduce first — even while maps are still pending
 * (the threshold is when "the reduce tasks of the job can be scheduled",
 * §2.2, §3.2.4), within YARN's ramp-up limit (sched_ramp_up_ok, as every
 * policy) — then for a map: Algorithm 1's reduce and map requests.
 * Option early_reduces=off offers reduces only once all maps are launched.
 *
 *  - MTS (§3.2.3, Algorithm 2): a map that is data-local on the server and
 *    shuffle-qualified — its predicted output (Eq. 3.1) fits in the server's
 *    available space, TrafficThreshold (Eq. 3.3: containers x the mean
 *    predicted shuffle per map of the jobs in the cluster) minus the
 *    predicted output of the maps running there.  Of several, the one
 *    closest to the space.  Otherwise the job is skipped; once it has
 *    waited D^m (a time, as in the real-cluster runs of §3.3.1: the node +
 *    rack waits of Delay) it takes a qualified map of least MapCost (γ x input,
 *    γ = 0/1/2 node/rack/remote), else its data-local map of smallest
 *    output, else its smallest.  The wait clock stops when it launches a
 *    local qualified map (as Delay's does on a node-local one).
 *  - Its reduces are offered only once its own threshold is reached (Eq.
 *    3.5: linear in its predicted shuffle between T_max for the smallest
 *    and T_min for the largest of the jobs in the cluster); the runtime's
 *    --slowstart is a lower bound, so run NAS with --slowstart <= 0.2.
 *    From then on CA-RTS places them as containers come free, while the
 *    job's later maps still run: the shuffle overlaps the maps.
 *  - Rack of the server not congested (utilisation < 0.8 both ways):
 *    CA-RTS (§3.2.4, Algorithm 3).  Pass 1, in Fair order: a job whose
 *    reduces on this rack are fewer than ReduceNum (Eq. 3.4: its reduces x
 *    the rack's share of its map output, rounded so that the racks' targets
 *    add up to its reduces: a one-reduce job goes to its largest rack;
 *    Algorithm 3 lines 3-5: "jobs that run fewer reduce tasks than
 *    ReduceNum") gets the container;
 *    one at or over it is passed over (it waits for a rack holding its data, at most D^r).
 *    Pass 2, if nobody took the container: the passed-over jobs, light
 *    before medium before heavy, then "delayed" or all maps done first,
 *    then smaller shuffle first (categories 4-6).
 *  - Congested: CR-RTS (§3.2.5, Algorithm 4).  Reduces of shuffle-light
 *    jobs (predicted shuffle < 1 MB, scaled) go; others are tagged delayed
 *    and wait until the rack is not congested, at most D^r; maps of
 *    shuffle-medium/heavy jobs are not launched in that rack meanwhile
 *    (its second strategy) — a skip of the job like MTS's own, so at most D^m:
 *    "a user cannot be skipped more than 5 seconds to launch tasks"
 *    (§3.3.1, as D^m = D^r = 135 skips in the simulation).  Without
 *    that bound a medium/heavy job with its blocks in a congested rack
 *    waited out the congestion, or read them remotely once its locality
 *    wait ran out. */
#include "emu/sched/nas.h"
#include <math.h>
#include <stdlib.h>

struct nas_flags {
	bool tt;          /* MTS's TrafficThreshold */
	bool adaptive;    /* Eq. 3.5, else NAS_T_FIXED */
	bool ca_rts;      /* proportional reduce placement */
	bool cr_rts;      /* congestion reaction */
};

/* A job's maps in three orders, so that an offer finds MTS's choice with
 * a binary search or a short walk instead of a scan of every job's maps
 * (jobs x maps per offer).  An entry is a map under a key (a server or a
 * rack holding its block, or 0 for all maps), sorted by key, then input,
 * then map order; nxt skips entries whose map is no longer pending (nxt ==
 * self: not known to be; path-compressed).  A map becomes pending again
 * only by a requeue, which resets nxt. */
struct nas_ent {
	uint64_t in;   /* the map's input bytes */
	int key, map, nxt;
};

struct nas_list {
	int n;
	struct nas_ent *e;
};

struct nas_idx {
	int requeues;          /* j->requeues when nxt was reset */
	bool exact;            /* every input below 2^52: a positive ratio x input grows strictly with it */
	struct nas_list srv;   /* by server, input descending: the local qualified map */
	struct nas_list rack;  /* by rack, input ascending: the least rack MapCost */
	struct nas_list all;   /* input ascending: the least remote MapCost, the smallest map */
	struct nas_ent mem[];
};

struct nas_job {
	double map_since, red_since, cr_since;   /* wait clocks (D^m, D^r), -1 = not waiting */
	bool delayed;                            /* held back by CR-RTS since its last reduce */
	double S;                                /* predicted shuffle at the last refresh */
	int first_pending, requeues;             /* maps before it are not pending (as of j->requeues) */
	struct nas_idx *idx;                     /* built on the first map request; freed once its maps are done */
};

struct nas {
	struct nas_track k;   /* first (nas_track_of) */
	struct nas_flags f;
	struct nas_conf conf;
	struct nas_job *js;
	struct job **order;
	bool dirty;           /* a job arrived or a task finished since the refresh */
	double s_min, s_max;  /* Eq. 3.5's range over the jobs in the cluster */
	double per_map;       /* Eq. 3.3's sum S_i / sum K_i */
};

enum { LIGHT, MEDIUM, HEAVY };

static int nas_class(const struct nas *n, const struct job *j)
{
	double S = n->js[j->id].S;
	return S < n->conf.light_bytes ? LIGHT : S > n->conf.heavy_bytes ? HEAVY : MEDIUM;
}

/* The cluster-wide inputs of Eqs. 3.3 and 3.5, over the jobs submitted and
 * not finished (cluster_active, in id order); only after something changed. */
static void refresh(struct nas *n, const struct cluster *c)
{
	double sum_s = 0, sum_k = 0;
	n->s_min = INFINITY;
	n->s_max = 0;
	for (int a = 0; a < c->running_jobs; a++) {
		const struct job *j = cluster_active(c, a);
		double S = n->js[j->id].S = nas_pred_shuffle(&n->k, j);
		n->s_min = fmin(n->s_min, S);
		n->s_max = fmax(n->s_max, S);
		sum_s += S;
		sum_k += j->nmaps;
	}
	n->per_map = sum_k > 0 ? sum_s / sum_k : 0;
	n->dirty = false;
}

static double threshold(const struct nas *n, const struct job *j)
{
	double lo = n->conf.t_min, hi = n->conf.t_max, d = n->s_max - n->s_min;
	if (!n->f.adaptive)
		return NAS_T_FIXED;
	if (!(d > 0))   /* one job, or all alike: Eq. 3.5 is undefined; the middle */
		return (lo + hi) / 2;
	double t = (lo - hi) / d * n->js[j->id].S + (hi * n->s_max - lo * n->s_min) / d;
	return fmin(hi, fmax(lo, t));
}

static bool reduces_allowed(const struct nas *n, const struct cluster *c, const struct job *j)
{
	return cluster_reduces_allowed(c, j) && j->maps_done >= threshold(n, j) * j->nmaps - 1e-9;
}

static double traffic_threshold(const struct nas *n, const struct cluster *c, int server)
{
	if (!n->f.tt)
		return INFINITY;
	if (n->conf.traffic_threshold >= 0)
		return n->conf.traffic_threshold;
	return c->servers[server].containers * n->per_map;
}

static double waited(const struct sched *s, double since)
{
	return since < 0 ? 0 : s->c->now - since;
}

static bool on_server(const struct task *t, int server)
{
	return t->replicas[0] == server || t->replicas[1] == server || t->replicas[2] == server;
}

static int ent_cmp(const struct nas_ent *x, const struct nas_ent *y, int dir)
{
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->in != y->in)
		return x->in < y->in ? -dir : dir;
	return (x->map > y->map) - (x->map < y->map);
}

static int ent_asc(const void *a, const void *b) { return ent_cmp(a, b, 1); }
static int ent_desc(const void *a, const void *b) { return ent_cmp(a, b, -1); }

static void list_reset(struct nas_list *l)
{
	for (int i = 0; i < l->n; i++)
		l->e[i].nxt = i;
}

static struct nas_idx *idx_of(struct sched *s, struct nas_job *st, const struct job *j)
{
	const struct cluster *c = s->c;
	struct nas_idx *x = st->idx;
	if (!x) {
		if (!(x = malloc(sizeof *x + 7 * (size_t)j->nmaps * sizeof x->mem[0])))
			return NULL;
		x->exact = true;
		x->srv = (struct nas_list){0, x->mem};
		x->rack = (struct nas_list){0, x->mem + 3 * (size_t)j->nmaps};
		x->all = (struct nas_list){0, x->mem + 6 * (size_t)j->nmaps};
		for (int i = 0; i < j->nmaps; i++) {
			const struct task *t = job_map(c->w->tasks, j, i);
			struct nas_ent e = {.in = t->input_bytes, .map = i};
			x->exact &= t->input_bytes < (UINT64_C(1) << 52);
			x->all.e[x->all.n++] = e;
			for (int k = 0; k < 3; k++) {
				int r = t->replicas[k];
				bool srv_dup = false, rack_dup = false;
				if (r < 0 || r >= c->nservers)
					continue;
				for (int p = 0; p < k; p++) {
					int o = t->replicas[p];
					srv_dup |= o == r;
					rack_dup |= o >= 0 && o < c->nservers && cluster_rack_of(c, o) == cluster_rack_of(c, r);
				}
				if (!srv_dup)
					e.key = r, x->srv.e[x->srv.n++] = e;
				if (!rack_dup)
					e.key = cluster_rack_of(c, r), x->rack.e[x->rack.n++] = e;
			}
		}
		qsort(x->srv.e, x->srv.n, sizeof x->mem[0], ent_desc);
		qsort(x->rack.e, x->rack.n, sizeof x->mem[0], ent_asc);
		qsort(x->all.e, x->all.n, sizeof x->mem[0], ent_asc);
		x->requeues = j->requeues - 1;
		st->idx = x;
	}
	if (x->requeues != j->requeues) {
		x->requeues = j->requeues;
		list_reset(&x->srv);
		list_reset(&x->rack);
		list_reset(&x->all);
	}
	return x;
}

/* The first entry at or after e whose map is pending, or l->n. */
static int list_pending(struct nas_list *l, struct task *tasks, const struct job *j, int e)
{
	int r = e;
	for (;;) {
		while (r < l->n && l->e[r].nxt != r)
			r = l->e[r].nxt;
		if (r >= l->n || job_map(tasks, j, l->e[r].map)->state == TASK_PENDING)
			break;
		l->e[r].nxt = r + 1;
	}
	while (e < r) {
		int next = l->e[e].nxt;
		l->e[e].nxt = r;
		e = next;
	}
	return r;
}

/* The first pending entry of `key` at or after e, or -1. */
static int key_pending(struct nas_list *l, struct task *tasks, const struct job *j, int key, int e)
{
	e = list_pending(l, tasks, j, e);
	return e < l->n && l->e[e].key == key ? e : -1;
}

enum bound { KEY, FITS, BELOW };

/* The first entry past the key's entries (KEY), or past those of the
 * key whose output exceeds avail (FITS) or whose input is not below `in`
 * (BELOW) in the input-descending list: as output = ratio x input with
 * ratio >= 0, both agree with its order. */
static int list_lower(const struct nas_list *l, int key, enum bound b, double ratio, double avail, uint64_t in)
{
	int lo = 0, hi = l->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		const struct nas_ent *m = &l->e[mid];
		bool past = m->key > key ||
			    (m->key == key && b != KEY && (b == FITS ? ratio * (double)m->in <= avail : m->in < in));
		if (past)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* MTS's local qualified map: a pending map with a block on `server` whose
 * predicted output fits in avail, the largest, of equal outputs the first
 * in map order (what a scan of the job's maps picks); NULL if none. */
static struct task *local_fit(struct sched *s, struct nas_idx *x, const struct job *j, int server, double ratio,
			      double avail)
{
	struct task *tasks = s->c->w->tasks;
	struct nas_list *l = &x->srv;
	int e = key_pending(l, tasks, j, server, list_lower(l, server, FITS, ratio, avail, 0));
	if (e < 0)
		return NULL;
	double out = ratio * (double)l->e[e].in;
	int best = l->e[e].map;
	/* The first pending entry of an input is its first in map order; an
	 * output can still be equal for a smaller input (ratio 0): look on. */
	for (;;) {
		int g = list_lower(l, server, BELOW, ratio, avail, l->e[e].in);
		if (g >= l->n || l->e[g].key != server || ratio * (double)l->e[g].in != out)
			break;
		if ((e = key_pending(l, tasks, j, server, g)) < 0 || ratio * (double)l->e[e].in != out)
			break;
		if (l->e[e].map < best)
			best = l->e[e].map;
	}
	return job_map(tasks, j, best);
}

struct mapcost {
	struct task *t;
	double cost, out;
};

/* Keep t as MTS's q if it fits and costs less (gamma x input), of equal
 * costs if its output is larger, then if it comes first in map order. */
static void least_cost(struct mapcost *q, struct task *t, double gamma, double ratio, double avail)
{
	if (!t)
		return;
	double out = ratio * (double)t->input_bytes, cost = gamma * (double)t->input_bytes;
	if (out <= avail && (!q->t || cost < q->cost ||
			     (cost == q->cost && (out > q->out || (out == q->out && t->index < q->t->index)))))
		*q = (struct mapcost){t, cost, out};
}

/* Algorithm 2 lines 7-16 when no local map qualifies: the qualified map of
 * least MapCost, else the local map of smallest output, else the smallest
 * (of equal outputs the first in map order).  With outputs growing
 * strictly with inputs (x->exact, a positive ratio) smallest output is
 * smallest input, so the input-ascending lists give each at their first
 * pending entry of the right locality. */
static struct task *relaxed_pick(struct sched *s, struct nas_idx *x, const struct job *j, int server,
				 double ratio, double avail)
{
	const struct cluster *c = s->c;
	struct task *tasks = c->w->tasks;
	int e = list_pending(&x->all, tasks, j, 0);
	if (e >= x->all.n)
		return NULL;
	struct task *any = job_map(tasks, j, x->all.e[e].map);
	if (!(ratio * (double)any->input_bytes <= avail)) {   /* none qualifies */
		struct nas_list *l = &x->srv;
		struct task *ls = NULL;
		if (!c->servers[server].alive)
			return any;
		for (int k = key_pending(l, tasks, j, server, list_lower(l, server - 1, KEY, 0, 0, 0)); k >= 0;
		     k = key_pending(l, tasks, j, server, k + 1))
			if (!ls || l->e[k].in < ls->input_bytes)
				ls = job_map(tasks, j, l->e[k].map);
		return ls ? ls : any;
	}
	/* The smallest qualified rack-local map (cost 1 x input), then a
	 * remote one (2 x input) only while it could cost no more. */
	struct mapcost q = {0};
	struct nas_list *l = &x->rack;
	int rack = cluster_rack_of(c, server);
	for (int k = key_pending(l, tasks, j, rack, list_lower(l, rack - 1, KEY, 0, 0, 0)); k >= 0;
	     k = key_pending(l, tasks, j, rack, k + 1)) {
		struct task *t = job_map(tasks, j, l->e[k].map);
		if (!(ratio * (double)t->input_bytes <= avail))
			break;
		if (cluster_locality(c, t, server) == LOCAL_RACK) {
			least_cost(&q, t, 1, ratio, avail);
			break;
		}
	}
	for (int k = e; k < x->all.n; k = list_pending(&x->all, tasks, j, k + 1)) {
		struct task *t = job_map(tasks, j, x->all.e[k].map);
		if (!(ratio * (double)t->input_bytes <= avail) || (q.t && 2 * (double)t->input_bytes > q.cost))
			break;
		if (cluster_locality(c, t, server) == LOCAL_NONE) {
			least_cost(&q, t, 2, ratio, avail);
			break;
		}
	}
	return q.t;
}

/* Algorithm 2 for one job (one "user"): a map, or NULL to skip it.  Until
 * the job has waited D^m only its local qualified map counts (local_fit:
 * this runs for every skipped job on every offer); after, lines 7-16
 * (relaxed_pick).  The scan below is what they stand for, and what runs
 * when they cannot: no index (out of memory), outputs not strictly
 * growing with inputs. */
static struct task *mts(struct sched *s, struct nas *n, struct job *j, int server, double avail)
{
	struct nas_job *st = &n->js[j->id];
	bool relaxed = waited(s, st->map_since) >= n->conf.max_wait_s;
	bool alive = s->c->servers[server].alive;
	double ratio = nas_ratio(&n->k, j);
	struct task *lq = NULL, *q = NULL, *ls = NULL, *any = NULL;
	double lq_out = 0, q_cost = 0, q_out = 0, ls_out = 0, any_out = 0;
	struct nas_idx *x = idx_of(s, st, j);
	if (x && alive)
		lq = local_fit(s, x, j, server, ratio, avail);
	if (x && relaxed && !lq && x->exact && isnormal(ratio) && ratio > 0 && ratio < 0x1p900)
		q = relaxed_pick(s, x, j, server, ratio, avail);
	if (!lq && !q && (relaxed || (alive && !x))) {
		/* A map that is not pending becomes so again only by a requeue: the
		 * scan starts past those (the same picks, without revisiting them). */
		if (st->requeues != j->requeues) {
			st->requeues = j->requeues;
			st->first_pending = 0;
		}
		while (st->first_pending < j->nmaps &&
		       job_map(s->c->w->tasks, j, st->first_pending)->state != TASK_PENDING)
			st->first_pending++;
		for (int i = st->first_pending; i < j->nmaps; i++) {
			struct task *t = job_map(s->c->w->tasks, j, i);
			if (t->state != TASK_PENDING)
				continue;
			double out = ratio * (double)t->input_bytes;
			bool qual = out <= avail;
			if (!relaxed) {
				if (qual && alive && on_server(t, server) && (!lq || out > lq_out))
					lq = t, lq_out = out;   /* closest to the space: fill it */
				continue;
			}
			enum locality loc = cluster_locality(s->c, t, server);
			if (loc == LOCAL_NODE && qual && (!lq || out > lq_out))
				lq = t, lq_out = out;
			if (loc == LOCAL_NODE && (!ls || out < ls_out))
				ls = t, ls_out = out;
			if (!any || out < any_out)
				any = t, any_out = out;
			double cost = (loc == LOCAL_NODE ? 0 : loc == LOCAL_RACK ? 1 : 2) * (double)t->input_bytes;
			if (qual && (!q || cost < q_cost || (cost == q_cost && out > q_out)))
				q = t, q_cost = cost, q_out = out;
		}
	}
	if (lq) {
		st->map_since = -1;
		return lq;
	}
	if (relaxed)
		return q ? q : ls ? ls : any;   /* D^m reached: Algorithm 2 lines 7-16 */
	if (st->map_since < 0)
		st->map_since = s->c->now;
	return NULL;
}

/* CR-RTS's second strategy (§3.2.5): while the rack is congested, no
 * maps of shuffle-medium/heavy jobs — counted as a skip of the job, with
 * MTS's own clock, so it lasts at most D^m (§3.3.1: a user cannot be skipped
 * more than 5 s; after that MTS lines 7-16 choose, least MapCost first). */
static bool cr_holds_maps(struct sched *s, struct nas *n, const struct job *j, bool congested)
{
	struct nas_job *st = &n->js[j->id];
	if (!congested || nas_class(n, j) == LIGHT)
		return false;
	if (waited(s, st->map_since) >= n->conf.max_wait_s)
		return false;
	if (st->map_since < 0)
		st->map_since = s->c->now;
	return true;
}

/* May job j, past its threshold with maps pending, take a reduce now?
 * (YARN's ramp-up, as for every policy: sched_ramp_up_ok.) */
static bool early_ok(const struct nas *n, const struct cluster *c, const struct job *j)
{
	return n->conf.early_reduces && sched_ramp_up_ok(c, j);
}

/* Algorithm 4 for one job: its reduce r, or NULL (delayed). */
static struct task *cr_rts(struct sched *s, struct nas *n, struct job *j, struct task *r)
{
	struct nas_job *st = &n->js[j->id];
	if (nas_class(n, j) == LIGHT)
		return r;
	st->delayed = true;
	if (waited(s, st->cr_since) >= n->conf.max_wait_s)
		return r;   /* D^r reached: any job */
	if (st->cr_since < 0)
		st->cr_since = s->c->now;
	return NULL;
}

/* Pass 2 of CA-RTS: does a go before b? */
static bool pass2_before(const struct nas *n, const struct job *a, const struct job *b)
{
	int ca = nas_class(n, a), cb = nas_class(n, b);
	if (ca != cb)
		return ca < cb;
	bool pa = n->js[a->id].delayed || a->maps_done == a->nmaps;
	bool pb = n->js[b->id].delayed || b->maps_done == b->nmaps;
	if (pa != pb)
		return pa;
	return n->js[a->id].S < n->js[b->id].S;
}

/* Pass 1 of Algorithm 3 for one job: its reduce r if ReduceNum is not
 * reached on the rack (or it waited D^r), else NULL and it may be *later. */
static struct task *ca_rts(struct sched *s, struct nas *n, struct job *j, struct task *r, int rack,
			   struct job **later)
{
	struct nas_job *st = &n->js[j->id];
	if (nas_reduces_on(&n->k, j, rack) < nas_reduce_target(&n->k, s->c, j, rack)) {
		st->red_since = -1;
		return r;
	}
	if (waited(s, st->red_since) >= n->conf.max_wait_s)
		return r;
	if (st->red_since < 0)
		st->red_since = s->c->now;
	if (!*later || pass2_before(n, j, *later))
		*later = j;
	return NULL;
}

static struct task *nas_offer(struct sched *s, int server)
{
	struct nas *n = s->priv;
	struct cluster *c = s->c;
	int rack = cluster_rack_of(c, server);
	if (n->dirty)
		refresh(n, c);
	nas_track_prune(&n->k, c, server);
	double avail = traffic_threshold(n, c, server) - nas_node_output(&n->k, c, server);
	bool congested = n->f.cr_rts && nas_rack_congested(c, rack, n->conf.congestion);
	int cnt = delay_fair_order(s, n->order);
	struct job *later = NULL;
	struct task *pick = NULL;
	for (int i = 0; i < cnt && !pick; i++) {
		struct job *j = n->order[i];
		bool maps = cluster_pending_maps(c, j) > 0;
		struct task *r = reduces_allowed(n, c, j) ? cluster_next_reduce(c, j) : NULL;
		if (r && maps && !early_ok(n, c, j))
			r = NULL;
		if (r) {   /* a reduce request (Algorithm 1, lines 3-7) */
			if (congested)
				pick = cr_rts(s, n, j, r);
			else if (n->f.ca_rts)
				pick = ca_rts(s, n, j, r, rack, &later);
			else
				pick = r;
		}
		if (!pick && maps && !cr_holds_maps(s, n, j, congested))
			pick = mts(s, n, j, server, avail);   /* a map request (lines 1-2) */
	}
	if (!pick && later)
		pick = cluster_next_reduce(c, later);
	if (pick && pick->kind == TASK_REDUCE && !congested) {
		n->js[pick->job].delayed = false;
		n->js[pick->job].cr_since = -1;
	}
	if (pick)
		nas_track_launch(&n->k, c, pick, server);
	return pick;
}

static void nas_task_finished(struct sched *s, struct task *t)
{
	struct nas *n = s->priv;
	const struct job *j = &s->c->w->jobs[t->job];
	nas_track_finished(&n->k, s->c, t);
	n->dirty = true;
	if (j->maps_done == j->nmaps) {   /* rebuilt if a map is requeued */
		free(n->js[j->id].idx);
		n->js[j->id].idx = NULL;
	}
}

static void nas_job_arrived(struct sched *s, struct job *j)
{
	(void)j;
	((struct nas *)s->priv)->dirty = true;
}

static void nas_tick(struct sched *s)
{
	struct nas *n = s->priv;
	nas_track_check(&n->k, s->c);
	refresh(n, s->c);
}

static void nas_destroy(struct sched *s)
{
	struct nas *n = s->priv;
	if (!n)
		return;
	nas_track_free(&n->k);
	for (int i = 0; n->js && i < s->c->w->njobs; i++)
		free(n->js[i].idx);
	free(n->js);
	free(n->order);
}

static int nas_init(struct sched *s)
{
	const struct nas_opts *o = s->opts;
	int nj = s->c->w->njobs ? s->c->w->njobs : 1;
	struct nas *n = s->priv;
	n->f = (struct nas_flags){.tt = o->tt, .adaptive = o->adaptive, .ca_rts = o->ca_rts, .cr_rts = o->cr_rts};
	n->dirty = true;
	nas_conf_init(&n->conf, s);
	n->js = calloc(nj, sizeof *n->js);
	n->order = calloc(nj, sizeof *n->order);
	if (!n->js || !n->order || nas_track_init(&n->k, s->c))
		return -1;
	for (int i = 0; i < nj; i++)
		n->js[i].map_since = n->js[i].red_since = n->js[i].cr_since = -1;
	return 0;
}

double nas_threshold(struct sched *s, const struct job *j)
{
	struct nas *n = s->priv;
	if (n->dirty)
		refresh(n, s->c);
	return threshold(n, j);
}

double nas_traffic_threshold(struct sched *s, int server)
{
	struct nas *n = s->priv;
	if (n->dirty)
		refresh(n, s->c);
	return traffic_threshold(n, s->c, server);
}

static int nas_check(const void *opts, char *err, size_t len)
{
	const struct nas_opts *o = opts;
	if (o->t_max >= o->t_min)
		return 0;
	snprintf(err, len, "nas options t_min=%g, t_max=%g: t_max must be at least t_min", o->t_min, o->t_max);
	return -1;
}

static const struct sched_opt nas_opt_table[] = {
	NAS_OPT_CONGESTION(struct nas_opts),
	SCHED_NUM_OPT(struct nas_opts, t_min, NAS_T_MIN, 0, 1, 0,
		      "the adaptive map completion threshold of the job with the largest predicted shuffle (Eq. 3.5)"),
	SCHED_NUM_OPT(struct nas_opts, t_max, NAS_T_MAX, 0, 1, 0,
		      "the same for the smallest predicted shuffle; at least t_min"),
	SCHED_NUM_OPT(struct nas_opts, light_bytes, NAN, 0, INFINITY, SCHED_OPT_AUTO,
		      "a job is shuffle-light below this predicted shuffle, scaled bytes (§3.2.1); auto: 1 MiB x the "
		      "data scale (--elephant / 1.125 GB)"),
	SCHED_NUM_OPT(struct nas_opts, heavy_bytes, NAN, 0, INFINITY, SCHED_OPT_AUTO,
		      "shuffle-heavy above this, scaled bytes; auto: 100 MiB x the data scale"),
	SCHED_NUM_OPT(struct nas_opts, traffic_threshold, NAN, 0, INFINITY, SCHED_OPT_AUTO,
		      "a fixed TrafficThreshold, bytes of predicted map output per server; auto: Eq. 3.3, the "
		      "server's containers x the active jobs' predicted shuffle per map"),
	SCHED_BOOL_OPT(struct nas_opts, early_reduces, true,
		       "reduces may start before every map is launched, within YARN's ramp-up limit"),
	SCHED_BOOL_OPT(struct nas_opts, tt, true, "MTS's TrafficThreshold (off: every map is shuffle-qualified)"),
	SCHED_BOOL_OPT(struct nas_opts, adaptive, true,
		       "the adaptive map completion threshold, Eq. 3.5 (off: a fixed 0.2)"),
	SCHED_BOOL_OPT(struct nas_opts, ca_rts, true,
		       "CA-RTS: a job's reduces per rack in proportion to its map output there (off: as Fair)"),
	SCHED_BOOL_OPT(struct nas_opts, cr_rts, true, "CR-RTS: hold heavier jobs' tasks in a congested rack"),
	{0},
};

const struct sched_ops sched_nas = {
	.name = "nas",
	.help = "NAS (ch. 3): MTS + CA-RTS + CR-RTS, own 0.2-0.5 map completion threshold (use --slowstart <= 0.2)",
	.priv_size = sizeof(struct nas),
	.opts = nas_opt_table,
	.opts_size = sizeof(struct nas_opts),
	.check = nas_check,
	.init = nas_init,
	.destroy = nas_destroy,
	.job_arrived = nas_job_arrived,
	.offer = nas_offer,
	.task_finished = nas_task_finished,
	.tick = nas_tick,
};

/* The ablations of §3.3 by their old names (experiments/nas/run.sh). */
const struct sched_ops sched_nas_mts = {
	.name = "nas-mts",
	.help = "NAS ablation: MTS only, reduces as Fair at threshold 0.2 (use --slowstart <= 0.2)",
	.alias_of = &sched_nas,
	.preset = (const char *const[]){"adaptive=off", "ca_rts=off", "cr_rts=off", NULL},
};
const struct sched_ops sched_nas_nott = {
	.name = "nas-nott",
	.help = "NAS ablation: without TrafficThreshold (w/o TT; use --slowstart <= 0.2)",
	.alias_of = &sched_nas,
	.preset = (const char *const[]){"tt=off", NULL},
};
const struct sched_ops sched_nas_noadapt = {
	.name = "nas-noadapt",
	.help = "NAS ablation: fixed map completion threshold 0.2 (w/o MCT; use --slowstart <= 0.2)",
	.alias_of = &sched_nas,
	.preset = (const char *const[]){"adaptive=off", NULL},
};
