/* shuffle.c — turning finished outputs into transfers for the tasks that
 * read them.
 *
 * A reduce (a task of any stage but the first) reads its parent stages'
 * outputs: over a shuffle its share of every parent task's output, over a
 * one-to-one edge all of its own parent task's, over a broadcast all of
 * every parent task's.  A transfer is what one reduce fetches from one
 * holder in one fetch request: what it reads of every finished output held
 * there that it has not requested yet.  It is circuit-eligible when the
 * scheduler's hook says so (default: cross-rack and larger than the
 * elephant threshold).  Defined once here, the same for every backend.
 *
 * Incremental, because a job may have 10^4 maps and 10^3 reduces: each job
 * keeps its finished sources in completion order and each reduce a cursor
 * into that list, so a pump looks only at outputs that are new to it.  A
 * task re-run after its output was lost is listed again, and reduces that
 * had already fetched it skip it: from the first loss in a job on, a
 * requested matrix says so (before, each source is listed once, and what a
 * reduce requested is what its cursor passed: no matrix to read, which was
 * a cache miss per reduce and source). */
#include "emu/run_int.h"
#include <stdlib.h>
#include <string.h>

/* Reduce `ri`'s share of a map's output: an even split, remainder first. */
static uint64_t partition(const struct task *map, int nreduces, int ri)
{
	uint64_t base = map->output_bytes / (uint64_t)nreduces;
	return base + ((uint64_t)ri < map->output_bytes % (uint64_t)nreduces ? 1 : 0);
}

/* What reduce `red` reads of finished task `src`'s output (0: nothing). */
static uint64_t reads(const struct workload *w, const struct job *j, const struct task *red, const struct task *src)
{
	const struct stage_edge *e = stages_edge(j, red->stage, src->stage);
	if (!e)
		return 0;
	switch (e->kind) {
	case EDGE_SHUFFLE: return partition(src, j->stages[red->stage].ntasks, red->sindex);
	case EDGE_ONE_TO_ONE: return src->sindex == red->sindex ? src->output_bytes : 0;
	case EDGE_BROADCAST: return src->output_bytes;
	case EDGE_TASKS:
		for (int d = 0; d < red->ntdeps; d++) {
			const struct task_dep *td = &w->tdeps[red->tdep_first + d];
			if (j->first_task + td->task == src->id)
				return workload_share(src->output_bytes, src->nchildren, td->rank);   /* as fill_staged */
		}
		return 0;
	}
	return 0;
}

/* Sources: the job's tasks up to the last stage that others read. */
static int nsources(const struct job *j)
{
	int n = 0;
	for (int s = 0; s < j->nstages; s++)
		if (j->stages[s].has_children)
			n = j->stages[s].first + j->stages[s].ntasks;
	return n;
}

/* Every output the reduce reads is there: no more will follow.  Over a
 * shuffle or broadcast that is the whole parent stage; over one-to-one and
 * listed edges its own parent tasks, which were done before it started
 * unless it started out of order (disordered: it waits for them). */
static bool parents_done(const struct cluster *c, const struct job *j, const struct task *red)
{
	const struct stage *s = &j->stages[red->stage];
	for (int p = 0; p < s->nparents; p++) {
		const struct stage *ps = &j->stages[s->parent[p].stage];
		if ((s->parent[p].kind == EDGE_SHUFFLE || s->parent[p].kind == EDGE_BROADCAST) && ps->done < ps->ntasks)
			return false;
	}
	return !red->disordered || cluster_task_deps_done(c, red);
}

static uint8_t *requested_row(struct run *r, const struct job *j, int ri)
{
	return r->requested[j->id] ? r->requested[j->id] + (size_t)ri * nsources(j) : NULL;
}

void shuffle_output_lost(struct run *r, struct task *t)
{
	struct job *j = &r->w->jobs[t->job];
	struct done_list *d = &r->done_maps[j->id];
	if (d->relisting)
		return;
	d->relisting = true;
	size_t n = (size_t)nsources(j), cells = n * j->nreduces;
	uint8_t *m = r->requested[j->id] = calloc(cells ? cells : 1, 1);
	for (int ri = 0; m && ri < j->nreduces; ri++)
		for (int q = 0; q < r->cursor[job_reduce(r->w->tasks, j, ri)->id]; q++)
			m[ri * n + d->map[q]] = 1;
}

void shuffle_output_done(struct run *r, struct task *t)
{
	struct done_list *d = &r->done_maps[t->job];
	if (d->n == d->cap) {
		int cap = d->cap ? 2 * d->cap : 16;
		int *m = realloc(d->map, cap * sizeof *m);
		if (!m)
			return;
		d->map = m;
		d->cap = cap;
	}
	d->map[d->n++] = t->id - r->w->jobs[t->job].first_task;
	if (!d->on_rack && !(d->on_rack = calloc(r->c.racks, sizeof *d->on_rack)))
		return;
	d->on_rack[cluster_rack_of(&r->c, t->server)] = true;
}

void shuffle_reset_reduce(struct run *r, struct task *reduce)
{
	struct job *j = &r->w->jobs[reduce->job];
	uint8_t *row = requested_row(r, j, reduce->index);
	if (row)
		memset(row, 0, (size_t)nsources(j));
	/* What it fetched so far is fetched again: moved, but not used. */
	r->totals.shuffle_discarded += r->attempt_fetched[reduce->id];
	r->attempt_fetched[reduce->id] = 0;
	r->final_sent[reduce->id] = false;
	r->cursor[reduce->id] = 0;
}

/* Fetch order: holders rack by rack, and within a rack from a server that
 * depends on the reduce's index.  The k-th rack running the job's reduces
 * starts with the (k+1)-th rack holding its map outputs, so the racks' first
 * requests form a permutation that one OCS configuration can serve
 * (completion order, or one rack that every reducer asks first, would have
 * reducers wait on dark circuits), and the reducers of a rack start on
 * different senders.  Hadoop's fetcher randomises hosts for the same
 * reasons. */
struct fetch_order { const struct cluster *c; int first_rack, reduce; };

static int fetch_key(const struct fetch_order *o, int server)
{
	const struct server *s = &o->c->servers[server];
	int racks = o->c->racks, n = o->c->rack_size[s->rack];
	return (s->rack - o->first_rack + racks) % racks * (TOPO_MAX_SERVERS + 1) +
	       (s->index - o->reduce % n + n) % n;
}

static int by_fetch_order(const void *a, const void *b, void *arg)
{
	int ka = fetch_key(arg, *(const int *)a), kb = fetch_key(arg, *(const int *)b);
	return (ka > kb) - (ka < kb);
}

/* Send one running reduce the transfers that are ready for it. */
static void pump_reduce(struct run *r, struct job *j, struct task *red, int first_rack)
{
	struct done_list *d = &r->done_maps[j->id];
	if (r->final_sent[red->id])
		return;
	bool final = parents_done(&r->c, j, red);
	if ((r->cursor[red->id] == d->n && !final) || !sched_shuffle_ready(&r->s, red))
		return;
	uint8_t *row = requested_row(r, j, red->index);
	if (!row && d->relisting)
		return;   /* out of memory */
	/* Group the new outputs by the server holding them (scratch arrays
	 * sized by the cluster, cleared through the list of touched holders). */
	uint64_t *by_holder = r->scratch_bytes;
	int *holders = r->scratch_holders, nh = 0;
	for (; r->cursor[red->id] < d->n; r->cursor[red->id]++) {
		int m = d->map[r->cursor[red->id]];
		struct task *src = &r->w->tasks[j->first_task + m];
		if (src->state != TASK_DONE || (row && row[m]) || !stages_edge(j, red->stage, src->stage))
			continue;
		if (row)
			row[m] = 1;
		if (!r->scratch_seen[src->server]) {
			r->scratch_seen[src->server] = true;
			holders[nh++] = src->server;
		}
		by_holder[src->server] += reads(r->w, j, red, src);
	}
	struct fetch_order order = {.c = &r->c, .first_rack = first_rack, .reduce = red->index};
	qsort_r(holders, nh, sizeof *holders, by_fetch_order, &order);
	struct xfer *xs = r->scratch_xfers;
	int nx = 0;
	for (int i = 0; i < nh; i++) {
		int h = holders[i];
		uint64_t bytes = by_holder[h];
		by_holder[h] = 0;
		r->scratch_seen[h] = false;
		if (!bytes)
			continue;
		struct xfer_rec rec = {.job = j->id, .task = red->id, .src = h, .dst = red->server, .bytes = bytes,
				       .t_start = run_now(r), .t_moved = -1};
		if (h == red->server) {
			/* Its own server: read from local disk, no network. */
			rec.local = rec.done = true;
			rec.t_moved = rec.t_end = rec.t_start;
			xfer_new(r, &rec);
			continue;
		}
		rec.circuit = r->ocs_on && sched_circuit_eligible(&r->s, red, h, bytes);
		int id = xfer_new(r, &rec);
		if (id < 0)
			continue;
		xs[nx++] = (struct xfer){.id = id, .src = h, .bytes = bytes, .circuit = rec.circuit,
					 .src_rack = cluster_rack_of(&r->c, h), .dst_rack = cluster_rack_of(&r->c, red->server)};
	}
	if (nx || final) {
		r->final_sent[red->id] = final;
		r->be->fetch(r, red, xs, nx, final);
	}
}

/* The backend's warm() (if it has one) of the reduce WARM_AHEAD ahead in a
 * pump, with the holder of its next new output. */
#define WARM_AHEAD 8
static void warm(const struct run *r, const struct job *j, const struct task *red)
{
	const struct done_list *d = &r->done_maps[j->id];
	int c = r->cursor[red->id];
	if (c < d->n)
		r->be->warm(r, red, r->w->tasks[j->first_task + d->map[c]].server);
}

void shuffle_pump(struct run *r, struct job *j)
{
	if (!j->reduces_running)
		return;
	/* The racks holding map outputs, and each rack's rank among those
	 * running the job's reduces (see fetch_order). */
	int racks = r->c.racks, nsrc = 0, nred = 0, src[racks], rank[racks];
	const bool *on_rack = r->done_maps[j->id].on_rack;
	for (int k = 0; k < racks; k++) {
		rank[k] = -1;
		if (on_rack && on_rack[k])
			src[nsrc++] = k;
	}
	for (int i = cluster_next_running_reduce(&r->c, j, 0); i >= 0; i = cluster_next_running_reduce(&r->c, j, i + 1))
		rank[cluster_rack_of(&r->c, job_reduce(r->w->tasks, j, i)->server)] = 0;
	for (int k = 0; k < racks; k++)
		if (rank[k] == 0)
			rank[k] = ++nred;
	int ahead = r->be->warm ? cluster_next_running_reduce(&r->c, j, 0) : -1;
	for (int k = 0; k < WARM_AHEAD && ahead >= 0; k++)
		ahead = cluster_next_running_reduce(&r->c, j, ahead + 1);
	for (int i = cluster_next_running_reduce(&r->c, j, 0); i >= 0; i = cluster_next_running_reduce(&r->c, j, i + 1)) {
		if (ahead >= 0) {
			warm(r, j, job_reduce(r->w->tasks, j, ahead));
			ahead = cluster_next_running_reduce(&r->c, j, ahead + 1);
		}
		struct task *red = job_reduce(r->w->tasks, j, i);
		pump_reduce(r, j, red, nsrc ? src[rank[cluster_rack_of(&r->c, red->server)] % nsrc] : 0);
	}
}
