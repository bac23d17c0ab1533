/* xfers.c — the record of every transfer, kept flat in memory.
 *
 * A finished transfer is written to flows.csv(.tmp) at once and added to
 * the run's byte counters; only transfers still in flight are kept, in an
 * open-addressing table keyed by id, so a long run's memory does not grow
 * with the work it has done. */
#include "emu/run_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* flows.csv has a line per transfer, millions in a paper-scale simulation:
 * formatted by hand, as printf's %f would be most of the run's time. */
static char *put_int(char *p, long long v)
{
	char d[24];
	int n = 0;
	unsigned long long u = v < 0 ? (unsigned long long)-v : (unsigned long long)v;
	if (v < 0)
		*p++ = '-';
	do
		d[n++] = (char)('0' + u % 10);
	while ((u /= 10));
	while (n)
		*p++ = d[--n];
	return p;
}

static char *put_ms(char *p, double s)   /* s with 3 decimals, as %.3f */
{
	long long ms = llround(s * 1000);
	if (ms < 0) {
		*p++ = '-';
		ms = -ms;
	}
	p = put_int(p, ms / 1000);
	*p++ = '.';
	*p++ = (char)('0' + ms / 100 % 10);
	*p++ = (char)('0' + ms / 10 % 10);
	*p++ = (char)('0' + ms % 10);
	return p;
}

static void write_flow(struct run *r, int id, const struct xfer_rec *x)
{
	char line[256], *p = line;
	const int fields[] = {x->job, x->task, x->src, x->dst, cluster_rack_of(&r->c, x->src), cluster_rack_of(&r->c, x->dst)};
	p = put_int(p, id);
	const char *kind = x->input ? ",input" : x->local ? ",local" : ",shuffle";
	size_t k = strlen(kind);
	memcpy(p, kind, k);
	p += k;
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		*p++ = ',';
		p = put_int(p, fields[i]);
	}
	*p++ = ',';
	p = put_int(p, (long long)x->bytes);
	*p++ = ',';
	p = put_ms(p, x->t_start);
	*p++ = ',';
	p = put_ms(p, x->t_moved);
	*p++ = ',';
	p = put_ms(p, x->done ? x->t_end : -1.0);
	*p++ = ',';
	*p++ = x->circuit ? '1' : '0';
	*p++ = ',';
	*p++ = x->done ? '1' : '0';
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), r->flows_csv);
}

static void account(struct run *r, int id, const struct xfer_rec *x)
{
	bool xr = cluster_rack_of(&r->c, x->src) != cluster_rack_of(&r->c, x->dst);
	struct xfer_totals *t = &r->totals;
	if (x->done) {
		if (xr && !x->local && x->job >= 0 && x->job < r->w->njobs)
			r->c.job_xrack_bytes[x->job] += x->bytes;
		if (x->local)
			t->shuffle_local += x->bytes;
		else if (x->input) {
			t->input_net += x->bytes;
			t->input_xrack += xr ? x->bytes : 0;
		} else {
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
	if (r->flows_csv)
		write_flow(r, id, x);
}

/* Ids are handed out in sequence: spread them (Fibonacci hashing) or the
 * in-flight ones form one long probe run that every removal re-places. */
static int slot(int id, int cap) { return (int)(((uint32_t)id * 2654435769u) >> 7) & (cap - 1); }

static int grow(struct run *r)
{
	int cap = r->cap_inflight ? 2 * r->cap_inflight : 1024;
	struct xfer_rec *n = malloc(cap * sizeof *n);
	if (!n)
		return -1;
	for (int i = 0; i < cap; i++)
		n[i].id = -1;
	struct xfer_rec *old = r->inflight;
	int oldcap = r->cap_inflight;
	r->inflight = n;
	r->cap_inflight = cap;
	r->ninflight = 0;
	for (int i = 0; i < oldcap; i++)
		if (old[i].id >= 0) {
			int k = slot(old[i].id, cap);
			while (n[k].id >= 0)
				k = (k + 1) & (cap - 1);
			n[k] = old[i];
			r->ninflight++;
		}
	free(old);
	return 0;
}

int xfer_new(struct run *r, const struct xfer_rec *x)
{
	int id = r->next_xfer++;
	if (x->done) {
		account(r, id, x);
		return id;
	}
	if ((r->ninflight + 1) * 2 > r->cap_inflight && grow(r))
		return -1;
	int k = slot(id, r->cap_inflight);
	while (r->inflight[k].id >= 0)
		k = (k + 1) & (r->cap_inflight - 1);
	r->inflight[k] = *x;
	r->inflight[k].id = id;
	r->ninflight++;
	return id;
}

/* Linear probing: removing an entry re-places the rest of its cluster. */
static void remove_at(struct run *r, int k)
{
	int cap = r->cap_inflight;
	r->inflight[k].id = -1;
	r->ninflight--;
	for (int j = (k + 1) & (cap - 1); r->inflight[j].id >= 0; j = (j + 1) & (cap - 1)) {
		struct xfer_rec e = r->inflight[j];
		r->inflight[j].id = -1;
		int h = slot(e.id, cap);
		while (r->inflight[h].id >= 0)
			h = (h + 1) & (cap - 1);
		r->inflight[h] = e;
	}
}

/* The in-flight transfer `id`, or NULL; its slot in *at when at is given. */
static struct xfer_rec *find_inflight(struct run *r, int id, int *at)
{
	if (id < 0 || !r->cap_inflight)
		return NULL;
	for (int k = slot(id, r->cap_inflight); r->inflight[k].id >= 0; k = (k + 1) & (r->cap_inflight - 1))
		if (r->inflight[k].id == id) {
			if (at)
				*at = k;
			return &r->inflight[k];
		}
	return NULL;
}

void xfer_moving(struct run *r, int id, double t)
{
	struct xfer_rec *x = find_inflight(r, id, NULL);
	if (x && x->t_moved < 0)
		x->t_moved = t;
}

void xfer_finish(struct run *r, int id, uint64_t bytes, double t_end)
{
	int k;
	struct xfer_rec *p = find_inflight(r, id, &k);
	if (!p)
		return;
	struct xfer_rec x = *p;
	x.done = true;
	x.bytes = bytes;
	x.t_end = t_end;
	account(r, id, &x);
	remove_at(r, k);
}

void xfer_flush(struct run *r)
{
	for (int k = 0; k < r->cap_inflight; k++)
		if (r->inflight[k].id >= 0)
			account(r, r->inflight[k].id, &r->inflight[k]);
	free(r->inflight);
	r->inflight = NULL;
	r->cap_inflight = r->ninflight = 0;
}
