/* lease.c — see lease.h. */
#include "emu/lease.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool limited(const struct container *k, int r)
{
	return k->cap.v[r] != RES_UNLIMITED && k->cap.v[r] > 0;
}

int lease_init(struct lease *l, struct cluster *c, const struct lease_params *p)
{
	memset(l, 0, sizeof *l);
	l->c = c;
	l->p = *p;
	l->first = calloc(c->nservers ? c->nservers : 1, sizeof *l->first);
	l->count = calloc(c->nservers ? c->nservers : 1, sizeof *l->count);
	l->job = calloc(c->w->njobs ? c->w->njobs : 1, sizeof *l->job);
	l->order = calloc(c->w->njobs ? c->w->njobs : 1, sizeof *l->order);
	l->draining = calloc(c->w->njobs ? c->w->njobs : 1, sizeof *l->draining);
	l->skip = calloc(c->w->njobs ? c->w->njobs : 1, sizeof *l->skip);
	if (!l->first || !l->count || !l->job || !l->order || !l->draining || !l->skip)
		return -1;
	for (int s = 0; s < c->nservers; s++) {
		const struct server *sv = &c->servers[s];
		int n = p->per_server;
		if (!n)   /* one per core (the notes' DECIDE-10), or per slot */
			n = sv->slots ? sv->containers : (int)(sv->cap.v[RES_CORES] / 1000);
		l->first[s] = l->n;
		l->count[s] = n > 0 ? n : 1;
		l->n += l->count[s];
	}
	if (!(l->ctr = calloc(l->n ? l->n : 1, sizeof *l->ctr)))
		return -1;
	for (int s = 0; s < c->nservers; s++)
		for (int i = 0; i < l->count[s]; i++) {
			struct container *k = &l->ctr[l->first[s] + i];
			k->id = l->first[s] + i;
			k->server = s;
			k->owner = -1;
			for (int r = 0; r < RES_KINDS; r++) {
				int64_t cap = c->servers[s].cap.v[r];
				k->cap.v[r] = cap == RES_UNLIMITED ? RES_UNLIMITED : cap / l->count[s];
			}
		}
	return 0;
}

void lease_free(struct lease *l)
{
	for (int i = 0; l->ctr && i < l->n; i++) {
		free(l->ctr[i].tasks);
		free(l->ctr[i].attempt);
	}
	free(l->ctr);
	free(l->first);
	free(l->count);
	free(l->job);
	free(l->order);
	free(l->draining);
	free(l->skip);
	memset(l, 0, sizeof *l);
}

struct res lease_ask(const struct lease *l, const struct container *k, const struct task *t)
{
	struct res a = cluster_task_ask(l->c, t, k->server);
	for (int r = 0; r < RES_KINDS; r++)
		a.v[r] = !limited(k, r) ? 0 : a.v[r] < k->cap.v[r] ? a.v[r] : k->cap.v[r];
	return a;
}

void lease_refresh(struct lease *l, struct container *k)
{
	int n = 0;
	memset(&k->used, 0, sizeof k->used);
	for (int i = 0; i < k->ntasks; i++) {
		const struct task *t = &l->c->w->tasks[k->tasks[i]];
		if (t->state != TASK_RUNNING || t->server != k->server || t->attempts != k->attempt[i])
			continue;
		struct res a = lease_ask(l, k, t);
		for (int r = 0; r < RES_KINDS; r++)
			k->used.v[r] += a.v[r];
		k->tasks[n] = k->tasks[i];
		k->attempt[n++] = k->attempt[i];
	}
	if (k->ntasks && !n)
		k->idle_since = l->c->now;
	k->ntasks = n;
}

bool lease_usable(const struct lease *l, const struct container *k)
{
	return k->owner >= 0 && !k->draining && !k->gone && l->c->now >= k->ready_at - 1e-9 &&
	       l->c->servers[k->server].alive;
}

bool lease_fits(const struct lease *l, const struct container *k, const struct task *t)
{
	struct res a = lease_ask(l, k, t);
	for (int r = 0; r < RES_KINDS; r++)
		if (limited(k, r) && k->used.v[r] + a.v[r] > k->cap.v[r])
			return false;
	return cluster_task_fits(l->c, t, k->server);
}

bool lease_free_at_least(const struct lease *l, const struct container *k, double share)
{
	(void)l;
	for (int r = 0; r < RES_KINDS; r++)
		if (limited(k, r) && (double)(k->cap.v[r] - k->used.v[r]) < share * (double)k->cap.v[r] - 1e-6)
			return false;
	return true;
}

void lease_place(struct lease *l, struct container *k, struct task *t)
{
	if (k->ntasks == k->room) {
		int room = k->room ? 2 * k->room : 4;
		int *a = realloc(k->tasks, room * sizeof *a), *b = a ? realloc(k->attempt, room * sizeof *b) : NULL;
		if (a)
			k->tasks = a;
		if (!b)
			return;   /* out of memory: it runs unaccounted in the container */
		k->attempt = b;
		k->room = room;
	}
	struct res a = lease_ask(l, k, t);
	for (int r = 0; r < RES_KINDS; r++)
		k->used.v[r] += a.v[r];
	k->tasks[k->ntasks] = t->id;
	k->attempt[k->ntasks++] = t->attempts + 1;   /* the runtime starts it next */
	k->placed++;
}

void lease_release(struct lease *l, struct container *k)
{
	if (k->owner >= 0)
		l->job[k->owner].held--;
	k->owner = -1;
	k->draining = false;
	k->placed = 0;
	k->idle_since = l->c->now;
}

int lease_total(const struct lease *l)
{
	int n = 0;
	for (int i = 0; i < l->n; i++)
		n += !l->ctr[i].gone;
	return n;
}

struct task *lease_next_reduce(const struct lease *l, const struct job *j, int server)
{
	struct task *t = cluster_next_reduce_on(l->c, j, server);
	if (!t)
		return NULL;
	const struct stage *st = &j->stages[t->stage];
	for (int p = 0; p < st->nparents; p++)
		if (j->stages[st->parent[p].stage].done < j->stages[st->parent[p].stage].ntasks)
			return NULL;
	return t;
}

/* ---- the fair job scheduler ------------------------------------------------ */

static const struct lease *sort_l;

static int by_submit(const struct job *x, const struct job *y)
{
	if (x->submit_s != y->submit_s)
		return x->submit_s < y->submit_s ? -1 : 1;
	return x->id - y->id;
}

static int by_want(const void *a, const void *b)
{
	const struct job *x = &sort_l->c->w->jobs[*(const int *)a], *y = &sort_l->c->w->jobs[*(const int *)b];
	int wx = sort_l->job[x->id].want, wy = sort_l->job[y->id].want;
	return wx != wy ? wx - wy : by_submit(x, y);
}

static int by_release(const void *a, const void *b)
{
	return by_submit(&sort_l->c->w->jobs[*(const int *)a], &sort_l->c->w->jobs[*(const int *)b]);
}

/* Max-min water-filling of whole containers: a job wanting no more than an
 * equal share of what is left gets its want; once one wants more, every job
 * left does, and they split the rest equally, the remainder one each to
 * the earliest released. */
static void allot(struct lease *l)
{
	struct cluster *c = l->c;
	int n = c->running_jobs, left = lease_total(l);
	for (int i = 0; i < c->w->njobs; i++)
		l->job[i].allot = 0;
	for (int i = 0; i < n; i++)
		l->order[i] = c->active[i];
	sort_l = l;
	qsort(l->order, n, sizeof *l->order, by_want);
	for (int i = 0; i < n; i++) {
		int share = left / (n - i);
		struct lease_job *lj = &l->job[l->order[i]];
		if (lj->want <= share) {
			lj->allot = lj->want;
			left -= lj->want;
			continue;
		}
		for (int k = i; k < n; k++)
			l->job[l->order[k]].allot = share;
		left -= share * (n - i);
		qsort(l->order + i, n - i, sizeof *l->order, by_release);
		for (int k = i; k < n && left > 0; k++, left--)
			l->job[l->order[k]].allot++;
		break;
	}
}

static double share_used(const struct container *k)
{
	double u = 0;
	for (int r = 0; r < RES_KINDS; r++)
		if (limited(k, r))
			u = fmax(u, (double)k->used.v[r] / (double)k->cap.v[r]);
	return u;
}

/* Job j should have `want` of its containers draining: mark the emptiest
 * (idle first) or unmark the fullest. */
static void set_draining(struct lease *l, int j, int have, int want)
{
	while (have != want) {
		struct container *best = NULL;
		for (int i = 0; i < l->n; i++) {
			struct container *k = &l->ctr[i];
			if (k->owner != j || k->gone || k->draining != (have > want))
				continue;
			double u = share_used(k);
			if (!best || (have < want ? u < share_used(best) : u > share_used(best)))
				best = k;
		}
		if (!best)
			return;
		best->draining = have < want;
		have += have < want ? 1 : -1;
	}
}

/* Where job j could use a container on server s: its best pending map's
 * locality there; with no map waiting, anywhere is as good. */
static enum locality where(const struct lease *l, const struct job *j, int s)
{
	enum locality loc = LOCAL_NODE;
	if (!cluster_pending_maps(l->c, j) || !cluster_best_map(l->c, j, s, &loc))
		return LOCAL_NODE;
	return loc;
}

/* The free container to grant job j, no worse than `worst`: the best
 * locality, then a server where j holds fewer, then the one with most
 * free; -1 if none. */
static int pick_free(struct lease *l, const struct job *j, enum locality worst, enum locality *got)
{
	int best = -1, best_mine = 0, best_free = 0;
	enum locality best_loc = LOCAL_NONE;
	for (int s = 0; s < l->c->nservers; s++) {
		int free = 0, mine = 0, any = -1;
		for (int i = l->first[s]; i < l->first[s] + l->count[s]; i++) {
			const struct container *k = &l->ctr[i];
			if (k->gone)
				continue;
			if (k->owner < 0 && any < 0)
				any = i;
			free += k->owner < 0;
			mine += k->owner == j->id;
		}
		if (any < 0 || !l->c->servers[s].alive)
			continue;
		enum locality loc = where(l, j, s);
		if (loc > worst)
			continue;
		if (best < 0 || loc < best_loc || (loc == best_loc && (mine < best_mine ||
		    (mine == best_mine && free > best_free)))) {
			best = any;
			best_loc = loc;
			best_mine = mine;
			best_free = free;
		}
	}
	*got = best_loc;
	return best;
}

static void grant(struct lease *l, struct container *k, int j)
{
	k->owner = j;
	k->ready_at = l->c->now + l->p.latency_s;
	k->draining = false;
	k->placed = 0;
	k->idle_since = l->c->now;
	l->job[j].held++;
}

void lease_balance(struct lease *l)
{
	struct cluster *c = l->c;
	int nfree = 0;
	for (int i = 0; i < c->w->njobs; i++) {
		l->draining[i] = 0;
		l->skip[i] = false;
	}
	for (int i = 0; i < l->n; i++) {
		struct container *k = &l->ctr[i];
		if (k->gone)
			continue;
		lease_refresh(l, k);
		if (!c->servers[k->server].alive) {
			lease_release(l, k);
			k->gone = true;
			continue;
		}
		if (k->owner >= 0 && !cluster_job_active(c, &c->w->jobs[k->owner]))
			lease_release(l, k);
		if (k->owner >= 0 && k->draining)
			l->draining[k->owner]++;
	}
	allot(l);
	for (int i = 0; l->p.drain && i < c->running_jobs; i++) {
		int j = c->active[i], over = l->job[j].held - l->job[j].allot;
		if (l->draining[j] != (over > 0 ? over : 0))
			set_draining(l, j, l->draining[j], over > 0 ? over : 0);
	}
	for (int i = 0; i < l->n; i++) {
		struct container *k = &l->ctr[i];
		if (k->owner >= 0 && k->draining && !k->ntasks)
			lease_release(l, k);
		nfree += k->owner < 0 && !k->gone;
	}
	/* Grants: the job furthest below its allotment first; a job the policy
	 * will not serve where containers are free now sits out this round. */
	while (nfree > 0) {
		const struct job *best = NULL;
		for (int i = 0; i < c->running_jobs; i++) {
			const struct job *j = cluster_active(c, i);
			const struct lease_job *lj = &l->job[j->id], *lb = best ? &l->job[best->id] : NULL;
			int below = lj->allot - lj->held;
			if (l->skip[j->id] || below <= 0)
				continue;
			if (!best || below > lb->allot - lb->held ||
			    (below == lb->allot - lb->held && (lj->held < lb->held ||
			     (lj->held == lb->held && by_submit(j, best) < 0))))
				best = j;
		}
		if (!best)
			break;
		enum locality loc;
		int k = pick_free(l, best, l->reach ? l->reach(l, best) : LOCAL_NONE, &loc);
		if (k < 0) {
			l->skip[best->id] = true;
			continue;
		}
		grant(l, &l->ctr[k], best->id);
		if (l->granted)
			l->granted(l, best, loc);
		nfree--;
	}
}

struct task *lease_offer(struct lease *l, int server, lease_pick_fn pick)
{
	for (int i = l->first[server]; i < l->first[server] + l->count[server]; i++) {
		struct container *k = &l->ctr[i];
		if (!lease_usable(l, k))
			continue;
		lease_refresh(l, k);
		struct task *t = pick(l, k, &l->c->w->jobs[k->owner]);
		if (t) {
			lease_place(l, k, t);
			return t;
		}
	}
	return NULL;
}

/* ---- utilisation ------------------------------------------------------------ */

void lease_sample(struct lease *l)
{
	double dt = l->c->now - l->last_sample;
	l->last_sample = l->c->now;
	if (dt <= 0)
		return;
	for (int i = 0; i < l->n; i++) {
		struct container *k = &l->ctr[i];
		if (k->owner < 0 || k->gone || l->c->now < k->ready_at)
			continue;
		lease_refresh(l, k);
		struct lease_job *lj = &l->job[k->owner];
		for (int r = 0; r < RES_KINDS; r++)
			if (limited(k, r))
				lj->use_t[r] += dt * (double)k->used.v[r] / (double)k->cap.v[r];
		lj->use_dt += dt;
	}
}

double lease_util(const struct lease *l, int job)
{
	const struct lease_job *lj = &l->job[job];
	if (lj->use_dt <= 0)
		return -1;
	double u = 0;
	for (int r = 0; r < RES_KINDS; r++)
		u = fmax(u, lj->use_t[r] / lj->use_dt);
	return u;
}

void lease_util_reset(struct lease *l, int job)
{
	memset(l->job[job].use_t, 0, sizeof l->job[job].use_t);
	l->job[job].use_dt = 0;
}
