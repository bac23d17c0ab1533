/* xfers.c — the record of every transfer, kept flat in memory.
 *
 * A finished transfer is written to flows.csv(.tmp) at once and added to
 * the run's byte counters; only transfers still in flight are kept (below),
 * so a long run's memory does not grow with the work it has done.  A
 * backend that keeps_xfers (the simulator) keeps them itself, beside what
 * it does with them (a record looked up by id is a cache miss, and there
 * are millions), and hands each to xfer_record when it ends. */
#include "emu/run_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void write_flow(struct run *r, int id, const struct xfer_rec *x)
{
	flow_log_put(r->flow_log, &(struct flow_line){.id = id, .kind = x->input ? 'i' : x->local ? 'l' : 's',
						    .job = x->job, .task = x->task, .src = x->src, .dst = x->dst,
						    .src_rack = cluster_rack_of(&r->c, x->src),
						    .dst_rack = cluster_rack_of(&r->c, x->dst), .bytes = x->bytes,
						    .t_start = x->t_start, .t_moved = x->t_moved, .t_end = x->t_end,
						    .circuit = x->circuit, .done = x->done});
}

static void account(struct run *r, int id, const struct xfer_rec *x)
{
	bool xr = cluster_rack_of(&r->c, x->src) != cluster_rack_of(&r->c, x->dst);
	struct xfer_totals *t = &r->totals;
	if (x->done) {
		if (xr && !x->local && x->job >= 0 && x->job < r->w->njobs)
			r->c.job_xrack_bytes[x->job] += x->bytes;
		if (x->local && r->attempt_fetched)
			r->attempt_fetched[x->task] += x->bytes;
		if (x->local)
			t->shuffle_local += x->bytes;
		else if (x->input) {
			t->input_net += x->bytes;
			t->input_xrack += xr ? x->bytes : 0;
		} else {
			if (r->attempt_fetched)
				r->attempt_fetched[x->task] += x->bytes;
			t->shuffle_net += x->bytes;
			t->shuffle_xrack += xr ? x->bytes : 0;
			t->circuit_xrack += x->circuit && xr ? x->bytes : 0;
			if (x->t_moved >= 0) {
				struct fetch_time *f = &t->fetch[!xr ? FETCH_IN_RACK : x->circuit ? FETCH_CIRCUIT : FETCH_EPS];
				f->n++;
				f->wait_s += x->t_moved - x->t_start;
				f->move_s += x->t_end - x->t_moved;
			}
		}
	}
	if (r->flow_log)
		write_flow(r, id, x);
}

/* The in-flight store: ids are handed out in sequence, so records live in
 * pages of XFER_PAGE consecutive ids, found by id without hashing.  A page
 * is allocated by its first in-flight transfer and freed once its ids are
 * all handed out and none is in flight: memory follows what is in flight
 * (millions of transfers queued at reducers at paper scale), not the run's
 * history.  A record is kept compact (its job is its task's). */
#define XFER_PAGE 64

struct xfer_slot {
	int task, src, dst;
	bool live, circuit, input;
	uint64_t bytes;
	double t_start, t_moved;
};

struct xfer_page { struct xfer_slot s[XFER_PAGE]; };

/* Per page, dense: its count of live slots stays in cache, away from the slots. */
struct xfer_pages {
	struct xfer_page *page;
	int live;
};

static struct xfer_pages *pages_of(struct run *r, int id) { return &r->inflight[id / XFER_PAGE]; }

static void page_release(struct run *r, int page)
{
	struct xfer_pages *p = &r->inflight[page];
	if (p->page && !p->live && (page + 1) * XFER_PAGE <= r->next_xfer) {
		free(p->page);
		p->page = NULL;
	}
}

int xfer_new(struct run *r, const struct xfer_rec *x)
{
	int id = r->next_xfer;
	if (x->done || (r->be && r->be->keeps_xfers)) {
		r->next_xfer++;
		if (x->done)
			account(r, id, x);
		if (id % XFER_PAGE == XFER_PAGE - 1 && id / XFER_PAGE < r->npages)
			page_release(r, id / XFER_PAGE);
		return id;
	}
	int page = id / XFER_PAGE;
	if (page >= r->npages) {
		/* Done transfers take ids without pages: the id may be pages ahead. */
		int n = r->npages ? 2 * r->npages : 64;
		while (n <= page)
			n *= 2;
		struct xfer_pages *q = realloc(r->inflight, n * sizeof *q);
		if (!q)
			return -1;
		memset(q + r->npages, 0, (n - r->npages) * sizeof *q);
		r->inflight = q;
		r->npages = n;
	}
	struct xfer_pages *p = pages_of(r, id);
	if (!p->page && !(p->page = calloc(1, sizeof *p->page)))
		return -1;
	p->page->s[id % XFER_PAGE] = (struct xfer_slot){.task = x->task, .src = x->src, .dst = x->dst, .live = true,
						     .circuit = x->circuit, .input = x->input, .bytes = x->bytes,
						     .t_start = x->t_start, .t_moved = x->t_moved};
	p->live++;
	r->next_xfer++;
	return id;
}

void xfer_record(struct run *r, int id, const struct xfer_rec *x) { account(r, id, x); }

/* The in-flight transfer `id`, or NULL. */
static struct xfer_slot *find_inflight(struct run *r, int id)
{
	if (id < 0 || id >= r->next_xfer || !pages_of(r, id)->page)
		return NULL;
	struct xfer_slot *x = &pages_of(r, id)->page->s[id % XFER_PAGE];
	return x->live ? x : NULL;
}

static struct xfer_rec record_of(const struct run *r, const struct xfer_slot *x)
{
	return (struct xfer_rec){.job = r->w->tasks[x->task].job, .task = x->task, .src = x->src, .dst = x->dst,
				 .bytes = x->bytes, .circuit = x->circuit, .input = x->input,
				 .t_start = x->t_start, .t_moved = x->t_moved};
}

void xfer_moving(struct run *r, int id, double t)
{
	struct xfer_slot *x = find_inflight(r, id);
	if (x && x->t_moved < 0)
		x->t_moved = t;
}

void xfer_finish(struct run *r, int id, uint64_t bytes, double t_end)
{
	struct xfer_slot *p = find_inflight(r, id);
	if (!p)
		return;
	struct xfer_rec x = record_of(r, p);
	x.done = true;
	x.bytes = bytes;
	x.t_end = t_end;
	account(r, id, &x);
	p->live = false;
	pages_of(r, id)->live--;
	page_release(r, id / XFER_PAGE);
}

void xfer_drop_task(struct run *r, int task, double t)
{
	for (int page = 0; page < r->npages; page++) {
		struct xfer_page *p = r->inflight[page].page;
		for (int i = 0; p && i < XFER_PAGE; i++)
			if (p->s[i].live && p->s[i].task == task) {
				struct xfer_rec x = record_of(r, &p->s[i]);
				x.t_end = t;
				account(r, page * XFER_PAGE + i, &x);
				p->s[i].live = false;
				r->inflight[page].live--;
			}
		page_release(r, page);
	}
}

/* In id order. */
void xfer_flush(struct run *r)
{
	for (int page = 0; page < r->npages; page++) {
		struct xfer_page *p = r->inflight[page].page;
		for (int i = 0; p && i < XFER_PAGE; i++)
			if (p->s[i].live) {
				struct xfer_rec x = record_of(r, &p->s[i]);
				account(r, page * XFER_PAGE + i, &x);
			}
		free(p);
	}
	free(r->inflight);
	r->inflight = NULL;
	r->npages = 0;
}
