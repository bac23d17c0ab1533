/* shuffle.c — turning finished map outputs into transfers for reducers.
 *
 * A transfer is what one reducer fetches from one map-output holder in one
 * fetch request: the reducer's partitions of every finished map output held
 * there that it has not requested yet.  It is circuit-eligible when the
 * scheduler's hook says so (default: cross-rack and larger than the
 * elephant threshold).  Defined once here, the same for every backend. */
#include "emu/run_int.h"
#include <stdlib.h>
#include <string.h>

/* Reduce `ri`'s share of a map's output: an even split, remainder first. */
static uint64_t partition(const struct task *map, int nreduces, int ri)
{
	uint64_t base = map->output_bytes / (uint64_t)nreduces;
	return base + ((uint64_t)ri < map->output_bytes % (uint64_t)nreduces ? 1 : 0);
}

static uint8_t *requested_row(struct run *r, struct job *j, int ri)
{
	if (!r->requested[j->id]) {
		r->requested[j->id] = calloc((size_t)j->nmaps * j->nreduces, 1);
		if (!r->requested[j->id])
			return NULL;
	}
	return r->requested[j->id] + (size_t)ri * j->nmaps;
}

void shuffle_reset_reduce(struct run *r, struct task *reduce)
{
	struct job *j = &r->w->jobs[reduce->job];
	uint8_t *row = requested_row(r, j, reduce->index);
	if (row)
		memset(row, 0, j->nmaps);
	r->final_sent[reduce->id] = false;
}

/* Send one running reduce the transfers that are ready for it. */
static void pump_reduce(struct run *r, struct job *j, struct task *red)
{
	if (r->final_sent[red->id] || !sched_shuffle_ready(&r->s, red))
		return;
	uint8_t *row = requested_row(r, j, red->index);
	if (!row)
		return;
	int ns = r->c.nservers;
	uint64_t *by_holder = calloc(ns, sizeof *by_holder);
	struct xfer *xs = calloc(ns, sizeof *xs);
	if (!by_holder || !xs) {
		free(by_holder);
		free(xs);
		return;
	}
	for (int m = 0; m < j->nmaps; m++) {
		struct task *map = job_map(r->w->tasks, j, m);
		if (map->state != TASK_DONE || row[m])
			continue;
		row[m] = 1;
		by_holder[map->server] += partition(map, j->nreduces, red->index);
	}
	int nx = 0;
	for (int h = 0; h < ns; h++) {
		if (!by_holder[h])
			continue;
		struct xfer_rec rec = {.job = j->id, .task = red->id, .src = h, .dst = red->server,
				       .bytes = by_holder[h], .t_start = run_now(r)};
		if (h == red->server) {
			/* Its own server: read from local disk, no network. */
			rec.local = rec.done = true;
			rec.t_end = rec.t_start;
			xfer_new(r, &rec);
			continue;
		}
		rec.circuit = r->ocs_on && sched_circuit_eligible(&r->s, red, h, by_holder[h]);
		int id = xfer_new(r, &rec);
		if (id < 0)
			continue;
		struct xfer *x = &xs[nx++];
		x->id = id;
		x->src = h;
		x->bytes = by_holder[h];
		x->circuit = rec.circuit;
		x->src_rack = cluster_rack_of(&r->c, h);
		x->dst_rack = cluster_rack_of(&r->c, red->server);
	}
	bool final = j->maps_done == j->nmaps;
	if (nx || final) {
		r->final_sent[red->id] = final;
		r->be->fetch(r, red, xs, nx, final);
	}
	free(by_holder);
	free(xs);
}

void shuffle_pump(struct run *r, struct job *j)
{
	for (int i = 0; i < j->nreduces; i++) {
		struct task *red = job_reduce(r->w->tasks, j, i);
		if (red->state == TASK_RUNNING)
			pump_reduce(r, j, red);
	}
}
