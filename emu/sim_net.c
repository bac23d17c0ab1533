/* sim_net.c — see sim_net.h.
 *
 * Progressive filling with a lazy min-heap of links keyed by fair share:
 * freezing a link's flows only raises the other links' shares (they lose a
 * flow and at most its share of capacity), so a stale key is a lower bound
 * and is simply re-pushed when popped.  One allocation costs
 * O((L' + F·P) log L') for the L' links flows cross, F flows, paths of
 * P <= MAXP links: links no flow crosses are not visited (at 6000 servers
 * most of them at any time).
 *
 * Most allocations need no filling: every older flow keeps its rate and
 * the new flows take the level of their bottlenecks (keep_rates: checked
 * in the time of the flows that came and went, against each link's load
 * and bottlenecked flows as the last filling left them).  A flow that ends
 * with less than a byte left is then done at its own completion time, not
 * at the allocation.
 *
 * Link counters are kept as bytes B at time T plus a rate R, so nothing is
 * touched between allocations except the few links of a removed flow; a
 * whole filling sets each rate from the links' loads.  A flow is kept the
 * same way (remaining bytes as of t_set, its rate), and an allocation
 * touches only the flows whose rate it changes: their remaining bytes and
 * places in the completion heap.
 *
 * A held flow (hold mode, its circuit dark) is set aside by rack pair until
 * its circuit lights: it has rate 0 and no path, and every allocation would
 * otherwise visit it (10^5 of them at paper scale when every circuit
 * transfer started at once; now those a reconfiguration catches running). */
#include "emu/sim_net.h"
#include "emu/grow.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIRE  (1514.0 / 1448.0)              /* frame bytes per payload byte */
#define ACKS  (66.0 / (2.0 * 1448.0))        /* ACK frame bytes per payload byte, delayed ACKs */
#define MAXP  6                              /* up, EPS or OCS out and in, down, disk read, disk write */

struct flow {
	int src, dst, srack, drack;
	bool circuit, held;
	unsigned disks;                    /* DISK_READ (src's disk), DISK_WRITE (dst's) */
	double rem, rate, t_set;           /* remaining payload as of t_set */
	int64_t tag;
	uint64_t bytes;
	int path[MAXP], rpath[MAXP], np, nrp;
	bool marked_eps;                   /* eligible but on the EPS (fallback): the leak counter */
	bool aside;                        /* held, in aside[srack * racks + drack] */
	bool fresh;                        /* added or re-routed: its completion time is to be set */
};

/* Held flows of one rack pair, and their remaining bytes (each truncated,
 * as simnet_demand counts them). */
struct aside { int *h, n, cap; int64_t bytes; };

struct counter { double bytes, rate, t, mbytes, mrate; };

/* What progressive filling reads of an active flow, dense: it visits the
 * flows link by link, in no memory order, and a struct flow is 128 bytes. */
struct fill {
	int path[MAXP], np;            /* np = 0: nothing to fill (held or done) */
	double rate, old;              /* the filling's, and the flow's until now */
	int bn;                        /* the link it froze on, -1 */
	bool update;                   /* fresh, or done: set whatever its new rate */
	bool marked;                   /* its marked_eps */
};

struct simnet {
	int racks, servers, ports, nlinks;
	int *rack_of;                  /* per server */
	int *rack_first;               /* per rack: its first server */
	bool hold;
	double *cap;                   /* payload bytes/s per link */
	struct counter *ctr;
	int16_t *lit_port;             /* racks x racks: port of the lit circuit, -1 */
	int *ncirc;                    /* racks x racks: active circuit-eligible flows */
	struct flow *f;
	int nf, capf, *freel, nfree;
	int *act, nact;                /* active flow handles, but those set aside */
	struct aside *aside;           /* racks x racks */
	int naside;
	int *heap, nheap;              /* completion heap of handles, by t_done */
	/* Per handle, kept apart from struct flow so that the heap's work stays
	 * in cache with 10^5 flows. */
	double *t_done;                /* when the flow ends at its rate */
	int *heap_pos;                 /* its place in the heap, -1 = free slot */
	int *bn;                       /* the link it is bottlenecked on, -1 (a filling sets every flow's) */
	int *act_pos;                  /* its place in act, or in its aside list (a filling sets every flow's) */
	bool dirty;
	bool relit;                    /* the lit circuits changed: circuit flows are re-routed */
	/* What the last filling left, kept up to date as flows go: per link the
	 * payload rate on it, and the flows bottlenecked on it and their rate
	 * (INFINITY: none).  stale: not kept (the next allocation fills all). */
	double *load, *level;
	int *nb;
	int *used, nused;              /* the links the last filling set (reset by the next; a link a kept
					* allocation adds to is busy then, or empty again: its load 0 but
					* for rounding, and no flow bottlenecked on it) */
	bool stale;
	int *fresh, nfresh, capfresh;  /* flows added since the last allocation */
	int *touched, ntouched;        /* links flows left or came on since then */
	uint64_t *touched_bit;
	long long kept;                /* allocations that kept every older flow's rate */
	/* allocation scratch */
	int *cnt, *start, *members, capm;
	int *cur;                      /* per link: its members' end, once they are filled in */
	uint64_t *busy;                /* bit per link: flows cross it in this filling */
	uint64_t *live;                /* bit per handle: active (the allocation's visit in handle order) */
	double *capr;
	struct { double key; int link; } *lh;
	int caplh;
	bool *frozen;                  /* by active index */
	double *ackload, *mload;       /* per link: payload rate whose ACKs cross it, marked payload rate */
	int *acklinks;                 /* the links set_counters gives ACKs to that no flow crosses */
	struct fill *fl;               /* by active index */
};

/* Link ids: per server up (server->ToR) and down; per rack EPS out/in; per
 * rack and port OCS out/in; per server disk read and write. */
static int l_up(const struct simnet *n, int s) { (void)n; return s; }
static int l_down(const struct simnet *n, int s) { return n->servers + s; }
static int l_eps_out(const struct simnet *n, int r) { return 2 * n->servers + r; }
static int l_eps_in(const struct simnet *n, int r) { return 2 * n->servers + n->racks + r; }
static int l_ocs_out(const struct simnet *n, int r, int p) { return 2 * n->servers + 2 * n->racks + r * n->ports + p; }
static int l_ocs_in(const struct simnet *n, int r, int p)
{
	return 2 * n->servers + 2 * n->racks + n->racks * n->ports + r * n->ports + p;
}
static int l_disk_rd(const struct simnet *n, int s)
{
	return 2 * n->servers + 2 * n->racks + 2 * n->racks * n->ports + s;
}
static int l_disk_wr(const struct simnet *n, int s) { return l_disk_rd(n, s) + n->servers; }

struct simnet *simnet_new(const struct topo *t, bool hold)
{
	struct simnet *n = calloc(1, sizeof *n);
	if (!n)
		return NULL;
	n->racks = t->racks;
	n->servers = topo_servers(t);
	n->ports = t->ocs ? t->ocs_ports : 0;
	n->nlinks = 4 * n->servers + 2 * n->racks + 2 * n->racks * n->ports;
	n->hold = hold;
	n->cap = calloc(n->nlinks, sizeof *n->cap);
	n->ctr = calloc(n->nlinks, sizeof *n->ctr);
	n->lit_port = malloc((size_t)n->racks * n->racks * sizeof *n->lit_port);
	n->ncirc = calloc((size_t)n->racks * n->racks, sizeof *n->ncirc);
	n->aside = calloc((size_t)n->racks * n->racks, sizeof *n->aside);
	n->cnt = calloc(n->nlinks, sizeof *n->cnt);
	n->start = calloc(n->nlinks + 1, sizeof *n->start);
	n->capr = calloc(n->nlinks, sizeof *n->capr);
	n->cur = calloc(n->nlinks, sizeof *n->cur);
	n->busy = calloc(n->nlinks / 64 + 1, sizeof *n->busy);
	n->load = calloc(n->nlinks, sizeof *n->load);
	n->level = malloc(n->nlinks * sizeof *n->level);
	n->nb = calloc(n->nlinks, sizeof *n->nb);
	n->used = calloc(n->nlinks, sizeof *n->used);
	n->touched = calloc(n->nlinks, sizeof *n->touched);
	n->touched_bit = calloc(n->nlinks / 64 + 1, sizeof *n->touched_bit);
	n->rack_of = calloc(n->servers ? n->servers : 1, sizeof *n->rack_of);
	n->rack_first = calloc(n->racks ? n->racks : 1, sizeof *n->rack_first);
	n->ackload = calloc(n->nlinks, sizeof *n->ackload);
	n->mload = calloc(n->nlinks, sizeof *n->mload);
	n->acklinks = calloc(n->nlinks, sizeof *n->acklinks);
	if (!n->cap || !n->ctr || !n->lit_port || !n->ncirc || !n->aside || !n->cnt || !n->start || !n->capr ||
	    !n->cur || !n->busy || !n->rack_of || !n->rack_first || !n->load || !n->level || !n->nb || !n->used ||
	    !n->touched || !n->touched_bit || !n->ackload || !n->mload || !n->acklinks) {
		simnet_free(n);
		return NULL;
	}
	for (int l = 0; l < n->nlinks; l++)
		n->level[l] = INFINITY;
	/* Each server's link at its class's rates. */
	for (int r = 0; r < n->racks; r++) {
		n->rack_first[r] = t->rack[r].first;
		for (int i = 0; i < topo_rack_size(t, r); i++) {
			int s = t->rack[r].first + i;
			const struct topo_class *k = topo_server_class(t, r, i);
			n->rack_of[s] = r;
			n->cap[l_up(n, s)] = (double)k->tx.rate / 8 / WIRE;
			n->cap[l_down(n, s)] = (double)k->rx.rate / 8 / WIRE;
			n->cap[l_disk_rd(n, s)] = k->disk_read_mbps * 1e6;   /* 0: not limited, never on a path */
			n->cap[l_disk_wr(n, s)] = k->disk_write_mbps * 1e6;
		}
	}
	for (int r = 0; r < n->racks; r++) {
		n->cap[l_eps_out(n, r)] = n->cap[l_eps_in(n, r)] = (double)t->uplink.rate / 8 / WIRE;
		for (int p = 0; p < n->ports; p++)
			n->cap[l_ocs_out(n, r, p)] = n->cap[l_ocs_in(n, r, p)] = (double)t->optical.rate / 8 / WIRE;
	}
	memset(n->lit_port, 0xff, (size_t)n->racks * n->racks * sizeof *n->lit_port);
	return n;
}

void simnet_free(struct simnet *n)
{
	if (!n)
		return;
	free(n->cap);
	free(n->rack_of);
	free(n->rack_first);
	free(n->ctr);
	free(n->lit_port);
	free(n->ncirc);
	for (int i = 0; n->aside && i < n->racks * n->racks; i++)
		free(n->aside[i].h);
	free(n->aside);
	free(n->f);
	free(n->freel);
	free(n->act);
	free(n->heap);
	free(n->t_done);
	free(n->heap_pos);
	free(n->bn);
	free(n->act_pos);
	free(n->cnt);
	free(n->start);
	free(n->members);
	free(n->capr);
	free(n->cur);
	free(n->busy);
	free(n->load);
	free(n->level);
	free(n->nb);
	free(n->used);
	free(n->fresh);
	free(n->touched);
	free(n->touched_bit);
	free(n->live);
	free(n->lh);
	free(n->frozen);
	free(n->fl);
	free(n->ackload);
	free(n->mload);
	free(n->acklinks);
	free(n);
}

/* ---- the completion heap ------------------------------------------------ */

/* Ties by handle: flows that end together end in one order, whatever the
 * heap's history (or its shape: a 4-ary heap is half as deep as a binary
 * one, and a node's children share a cache line). */
#define ARITY 4
static bool before(const struct simnet *n, int a, int b)
{
	return n->t_done[a] < n->t_done[b] || (n->t_done[a] == n->t_done[b] && a < b);
}

static void heap_set(struct simnet *n, int i, int h)
{
	n->heap[i] = h;
	n->heap_pos[h] = i;
}

static void sift_up(struct simnet *n, int i)
{
	int h = n->heap[i];
	while (i > 0) {
		int p = (i - 1) / ARITY;
		if (!before(n, h, n->heap[p]))
			break;
		heap_set(n, i, n->heap[p]);
		i = p;
	}
	heap_set(n, i, h);
}

static void sift_down(struct simnet *n, int i)
{
	int h = n->heap[i];
	for (;;) {
		int c = ARITY * i + 1, end = c + ARITY < n->nheap ? c + ARITY : n->nheap;
		if (c >= n->nheap)
			break;
		for (int k = c + 1; k < end; k++)
			if (before(n, n->heap[k], n->heap[c]))
				c = k;
		if (!before(n, n->heap[c], h))
			break;
		heap_set(n, i, n->heap[c]);
		i = c;
	}
	heap_set(n, i, h);
}

/* ---- flows -------------------------------------------------------------- */

static void ctr_at(struct counter *c, double now)
{
	if (now > c->t) {
		c->bytes += c->rate * (now - c->t);
		c->mbytes += c->mrate * (now - c->t);
		c->t = now;
	}
}

/* A counter's rate plus d; one that comes back within rounding of 0 is 0
 * (no flows: its bytes stay). */
static void add_rate(double *rate, double d)
{
	*rate += d;
	if (fabs(*rate) < 1e-3)
		*rate = 0;
}

/* A flow's rate on its links' counters goes from `was` to `now_rate` (0:
 * not counted): a counter's rate is kept by these changes alone.  Each
 * counter is brought up to date once, then loses the old and gains the new. */
static void recount(struct simnet *n, const struct flow *f, double was, double now_rate, double now)
{
	if (was <= 0 && now_rate <= 0)
		return;
	for (int i = 0; i < f->np; i++) {
		struct counter *c = &n->ctr[f->path[i]];
		ctr_at(c, now);
		bool marked = f->marked_eps && i == 1;
		if (was > 0) {
			add_rate(&c->rate, -was * WIRE);
			if (marked)
				add_rate(&c->mrate, -was * WIRE);
		}
		if (now_rate > 0) {
			add_rate(&c->rate, now_rate * WIRE);
			if (marked)
				add_rate(&c->mrate, now_rate * WIRE);
		}
	}
	for (int i = 0; i < f->nrp; i++) {
		struct counter *c = &n->ctr[f->rpath[i]];
		ctr_at(c, now);
		if (was > 0)
			add_rate(&c->rate, -was * ACKS);
		if (now_rate > 0)
			add_rate(&c->rate, now_rate * ACKS);
	}
}

/* The link that carries the ACKs of payload crossing l (route's rpath: a
 * flow's reverse path mirrors its path, ACKs on the EPS); -1: none (disks). */
static int ack_link(const struct simnet *n, int l)
{
	int s = n->servers, racks = n->racks, ocs = racks * n->ports;
	if (l < 2 * s)
		return l < s ? l_down(n, l) : l_up(n, l - s);
	l -= 2 * s;
	if (l < 2 * racks)
		return l < racks ? l_eps_in(n, l) : l_eps_out(n, l - racks);
	l -= 2 * racks;
	if (l < 2 * ocs)
		return l < ocs ? l_eps_in(n, l / n->ports) : l_eps_out(n, (l - ocs) / n->ports);
	return -1;
}

/* After a whole filling: every counter's rate made from the links' loads
 * (the filling's, on the links it used) rather than by each flow whose
 * rate changed (most of them in a batch), brought up to date first.  The
 * links a filling used, and those their ACKs cross, are the only ones any
 * flow crosses: the others were left at 0 by the flows that went.
 * n->mload: the marked payload rate per link, set by the caller; busy
 * (clear after a filling) marks the links seen. */
static void set_counters(struct simnet *n, double now)
{
	int nack = 0;
	for (int j = 0; j < n->nused; j++) {
		int l = n->used[j];
		n->busy[l / 64] |= 1ull << (l % 64);
	}
	for (int j = 0; j < n->nused; j++) {
		int l = n->used[j], a = ack_link(n, l);
		if (a < 0)
			continue;
		n->ackload[a] += n->load[l];
		if (!(n->busy[a / 64] >> (a % 64) & 1)) {
			n->busy[a / 64] |= 1ull << (a % 64);
			n->acklinks[nack++] = a;
		}
	}
	for (int j = 0; j < n->nused + nack; j++) {
		int l = j < n->nused ? n->used[j] : n->acklinks[j - n->nused];
		struct counter *c = &n->ctr[l];
		ctr_at(c, now);
		c->rate = (j < n->nused ? n->load[l] * WIRE : 0) + n->ackload[l] * ACKS;
		c->mrate = n->mload[l] * WIRE;
		n->ackload[l] = n->mload[l] = 0;
		n->busy[l / 64] = 0;
	}
}

/* Its remaining bytes as of now, at the rate it had. */
static void bring_up_to_date(struct flow *f, double now)
{
	f->rem -= f->rate * (now - f->t_set);
	f->t_set = now;
}

/* *pp (any pointer) reallocated to count elements of size bytes; -1 leaves
 * it as it was. */
static int resize(void *pp, int count, size_t size)
{
	void *p;
	memcpy(&p, pp, sizeof p);
	if (!(p = realloc(p, (size_t)count * size)))
		return -1;
	memcpy(pp, &p, sizeof p);
	return 0;
}

/* Everything kept per flow handle, the allocation's scratch too. */
static int grow_flows(struct simnet *n, int cap)
{
	if (resize(&n->f, cap, sizeof *n->f) || resize(&n->freel, cap, sizeof *n->freel) ||
	    resize(&n->act, cap, sizeof *n->act) || resize(&n->heap, cap, sizeof *n->heap) ||
	    resize(&n->t_done, cap, sizeof *n->t_done) || resize(&n->heap_pos, cap, sizeof *n->heap_pos) ||
	    resize(&n->bn, cap, sizeof *n->bn) || resize(&n->act_pos, cap, sizeof *n->act_pos) ||
	    resize(&n->frozen, cap, sizeof *n->frozen) || resize(&n->fl, cap, sizeof *n->fl) ||
	    resize(&n->live, cap / 64 + 1, sizeof *n->live))
		return -1;
	memset(n->live + n->capf / 64, 0, (cap / 64 + 1 - n->capf / 64) * sizeof *n->live);
	n->capf = cap;
	return 0;
}

static void route(struct simnet *n, struct flow *f);

static int add(struct simnet *n, double now, int src, int dst, uint64_t bytes, bool circuit, unsigned disks,
	       int64_t tag)
{
	int h;
	if (n->nfree) {
		h = n->freel[--n->nfree];
	} else {
		if (n->nf == n->capf && grow_flows(n, n->capf ? 2 * n->capf : 1024))
			return -1;
		h = n->nf++;
	}
	struct flow *f = &n->f[h];
	memset(f, 0, sizeof *f);
	f->src = src;
	f->dst = dst;
	f->srack = n->rack_of[src];
	f->drack = n->rack_of[dst];
	f->circuit = circuit && f->srack != f->drack && n->ports > 0;
	f->disks = disks;
	f->rem = (double)bytes;
	f->t_set = now;
	n->t_done[h] = bytes ? INFINITY : now;
	f->tag = tag;
	f->bytes = bytes;
	f->fresh = true;
	n->bn[h] = -1;
	if (grow(&n->fresh, &n->capfresh, n->nfresh + 1, sizeof *n->fresh, 64))
		n->stale = true;   /* not listed: the next allocation fills all */
	else
		n->fresh[n->nfresh++] = h;
	n->ncirc[f->srack * n->racks + f->drack] += f->circuit;
	route(n, f);
	n->act_pos[h] = n->nact;
	n->act[n->nact++] = h;
	n->heap_pos[h] = n->nheap;
	n->heap[n->nheap++] = h;
	sift_up(n, n->heap_pos[h]);
	n->dirty = true;
	return h;
}

int simnet_add(struct simnet *n, double now, int src, int dst, uint64_t bytes, bool circuit, int64_t tag)
{
	return add(n, now, src, dst, bytes, circuit, 0, tag);
}

int simnet_add_io(struct simnet *n, double now, int src, int dst, uint64_t bytes, bool circuit, unsigned disks,
		  int64_t tag)
{
	return add(n, now, src, dst, bytes, circuit, disks & (DISK_READ | DISK_WRITE), tag);
}

bool simnet_disk_limited(const struct simnet *n, int s, unsigned disks)
{
	return ((disks & DISK_READ) && n->cap[l_disk_rd(n, s)] > 0) ||
	       ((disks & DISK_WRITE) && n->cap[l_disk_wr(n, s)] > 0);
}

static void touch(struct simnet *n, int l)
{
	if (n->touched_bit[l / 64] >> (l % 64) & 1)
		return;
	n->touched_bit[l / 64] |= 1ull << (l % 64);
	n->touched[n->ntouched++] = l;
}

int64_t simnet_remove(struct simnet *n, int h, double now, uint64_t *bytes)
{
	struct flow *f = &n->f[h];
	recount(n, f, f->rate, 0, now);
	if (!f->aside) {   /* what it leaves on its links */
		for (int k = 0; k < f->np; k++) {
			n->load[f->path[k]] -= f->rate;
			touch(n, f->path[k]);
		}
		if (n->bn[h] >= 0)
			n->nb[n->bn[h]]--;
	}
	n->ncirc[f->srack * n->racks + f->drack] -= f->circuit;
	int i = n->heap_pos[h], last = n->heap[--n->nheap];
	if (i < n->nheap) {
		heap_set(n, i, last);
		sift_down(n, i);
		sift_up(n, n->heap_pos[last]);
	}
	if (f->aside) {
		struct aside *a = &n->aside[f->srack * n->racks + f->drack];
		int moved = a->h[--a->n];
		a->h[n->act_pos[h]] = moved;
		n->act_pos[moved] = n->act_pos[h];
		a->bytes -= (int64_t)f->rem;
		n->naside--;
	} else {
		int moved = n->act[--n->nact];
		n->act[n->act_pos[h]] = moved;
		n->act_pos[moved] = n->act_pos[h];
	}
	n->heap_pos[h] = -1;
	n->freel[n->nfree++] = h;
	n->dirty = true;
	if (bytes)
		*bytes = f->bytes;
	return f->tag;
}

void simnet_set_lit(struct simnet *n, const struct circuit_cfg *lit)
{
	memset(n->lit_port, 0xff, (size_t)n->racks * n->racks * sizeof *n->lit_port);
	for (int p = 0; p < lit->ports && p < n->ports; p++)
		for (int s = 0; s < lit->racks && s < n->racks; s++)
			if (lit->out[p][s] >= 0 && lit->out[p][s] < n->racks)
				n->lit_port[s * n->racks + lit->out[p][s]] = (int16_t)p;
	/* The held flows of the pairs lit now are active again. */
	for (int k = 0; k < n->racks * n->racks; k++) {
		struct aside *a = &n->aside[k];
		if (!a->n || n->lit_port[k] < 0)
			continue;
		for (int i = 0; i < a->n; i++) {
			struct flow *f = &n->f[a->h[i]];
			f->aside = false;
			n->act_pos[a->h[i]] = n->nact;
			n->act[n->nact++] = a->h[i];
		}
		n->naside -= a->n;
		a->n = 0;
		a->bytes = 0;
	}
	n->dirty = n->relit = true;
}

bool simnet_lit(const struct simnet *n, int src, int dst)
{
	return n->lit_port[src * n->racks + dst] >= 0;
}

/* Set a held flow aside (its rate is 0 and its rem up to date).  -1: out of
 * memory, and it stays active. */
static int set_aside(struct simnet *n, int h)
{
	struct flow *f = &n->f[h];
	struct aside *a = &n->aside[f->srack * n->racks + f->drack];
	if (a->n == a->cap) {
		int cap = a->cap ? 2 * a->cap : 64;
		if (resize(&a->h, cap, sizeof *a->h))
			return -1;
		a->cap = cap;
	}
	f->aside = true;
	n->act_pos[h] = a->n;
	a->h[a->n++] = h;
	a->bytes += (int64_t)f->rem;
	n->naside++;
	n->t_done[h] = INFINITY;
	sift_down(n, n->heap_pos[h]);
	return 0;
}

/* The route the emulator's ToRs would give f now (see sim_net.h). */
static void route(struct simnet *n, struct flow *f)
{
	f->np = f->nrp = 0;
	f->held = f->marked_eps = false;
	/* The disks go last: path[1] is the EPS hop the leak counter reads. */
	int rd = (f->disks & DISK_READ) && n->cap[l_disk_rd(n, f->src)] > 0 ? l_disk_rd(n, f->src) : -1;
	int wr = (f->disks & DISK_WRITE) && n->cap[l_disk_wr(n, f->dst)] > 0 ? l_disk_wr(n, f->dst) : -1;
	if (f->disks && f->src == f->dst) {   /* a local disk I/O: no network */
		if (rd >= 0)
			f->path[f->np++] = rd;
		if (wr >= 0)
			f->path[f->np++] = wr;
		return;
	}
	f->path[f->np++] = l_up(n, f->src);
	f->rpath[f->nrp++] = l_up(n, f->dst);
	if (f->srack != f->drack) {
		int p = f->circuit ? n->lit_port[f->srack * n->racks + f->drack] : -1;
		if (p >= 0) {
			f->path[f->np++] = l_ocs_out(n, f->srack, p);
			f->path[f->np++] = l_ocs_in(n, f->drack, p);
		} else if (f->circuit && n->hold) {
			f->held = true;
		} else {
			f->marked_eps = f->circuit;
			f->path[f->np++] = l_eps_out(n, f->srack);
			f->path[f->np++] = l_eps_in(n, f->drack);
		}
		/* ACKs are unmarked: always the EPS. */
		f->rpath[f->nrp++] = l_eps_out(n, f->drack);
		f->rpath[f->nrp++] = l_eps_in(n, f->srack);
	}
	f->path[f->np++] = l_down(n, f->dst);
	f->rpath[f->nrp++] = l_down(n, f->src);
	if (rd >= 0)
		f->path[f->np++] = rd;
	if (wr >= 0)
		f->path[f->np++] = wr;
	if (f->held)
		f->np = f->nrp = 0;
}

static void lh_push(struct simnet *n, int *len, double key, int link)
{
	int i = (*len)++;
	while (i > 0) {
		int p = (i - 1) / 2;
		if (n->lh[p].key <= key)
			break;
		n->lh[i] = n->lh[p];
		i = p;
	}
	n->lh[i].key = key;
	n->lh[i].link = link;
}

static int lh_pop(struct simnet *n, int *len, double *key)
{
	int link = n->lh[0].link;
	*key = n->lh[0].key;
	double k = n->lh[--*len].key;
	int l = n->lh[*len].link, i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= *len)
			break;
		if (c + 1 < *len && n->lh[c + 1].key < n->lh[c].key)
			c++;
		if (n->lh[c].key >= k)
			break;
		n->lh[i] = n->lh[c];
		i = c;
	}
	n->lh[i].key = k;
	n->lh[i].link = l;
	return link;
}

static int grow_scratch(struct simnet *n)
{
	int need = MAXP * n->nact + 1, needlh = n->nlinks + MAXP * n->nact + 1;
	if (need > n->capm) {
		if (resize(&n->members, need, sizeof *n->members))
			return -1;
		n->capm = need;
	}
	if (needlh > n->caplh) {
		if (resize(&n->lh, needlh, sizeof *n->lh))
			return -1;
		n->caplh = needlh;
	}
	return 0;
}

/* A circuit flow's route after the lit circuits changed.  A flow whose
 * route changes stops, as of now: its counters and rate go, and its
 * completion time is set again. */
static void reroute(struct simnet *n, struct flow *f, double now)
{
	struct flow old = *f;
	route(n, f);
	if (old.held == f->held && old.np == f->np && !memcmp(old.path, f->path, sizeof f->path))
		return;
	recount(n, &old, old.rate, 0, now);
	bring_up_to_date(f, now);
	f->rate = 0;
	f->fresh = true;
}

/* An allocation where every older flow keeps its rate, the common case
 * (84% of them at the paper's setup under Fair: a reduce that ends a fetch
 * starts the next at the rate the last had).  Each flow that came takes the
 * least level of the links it crosses where flows are bottlenecked; that is
 * the max-min allocation (Bertsekas and Gallager: every flow has a
 * saturated link on which no flow has more) if every link flows came on or
 * left is within its capacity and still full where flows are bottlenecked.
 * Checked in the time of the flows that came and went; false: the whole
 * filling is needed (the load and bottlenecks are then made again). */
#define FULL_EPS 1e-9
static bool keep_rates(struct simnet *n, double now)
{
	bool ok = true;
	for (int i = 0; ok && i < n->nfresh; i++) {
		int h = n->fresh[i];
		struct flow *f = &n->f[h];
		if (n->heap_pos[h] < 0 || !f->fresh || n->bn[h] >= 0)
			continue;   /* gone already, or listed twice */
		if (f->held) {
			ok = false;   /* set aside by the whole filling */
			break;
		}
		if (!f->np || f->rem < 1)
			continue;     /* instant, or done: less than a byte is rounding */
		double r = INFINITY;
		for (int k = 0; k < f->np; k++)
			if (n->nb[f->path[k]] > 0 && n->level[f->path[k]] < r) {
				r = n->level[f->path[k]];
				n->bn[h] = f->path[k];
			}
		if (n->bn[h] < 0) {
			ok = false;   /* crosses no full link: the filling decides */
			break;
		}
		f->rate = r;        /* for now: set once the links are checked */
		n->nb[n->bn[h]]++;
		for (int k = 0; k < f->np; k++) {
			n->load[f->path[k]] += r;
			touch(n, f->path[k]);
		}
	}
	for (int j = 0; ok && j < n->ntouched; j++) {
		int l = n->touched[j];
		ok = n->load[l] <= n->cap[l] * (1 + FULL_EPS) && (!n->nb[l] || n->load[l] >= n->cap[l] * (1 - FULL_EPS));
	}
	for (int i = 0; i < n->nfresh; i++) {
		int h = n->fresh[i];
		struct flow *f = &n->f[h];
		if (n->heap_pos[h] < 0 || !f->fresh)
			continue;
		double r = f->rate;
		f->rate = 0;
		if (!ok) {        /* the whole filling sets it */
			n->bn[h] = -1;
			continue;
		}
		f->fresh = false;
		bring_up_to_date(f, now);
		if (f->rem < 1)
			f->rem = 0;
		f->rate = f->rem > 0 ? r : 0;
		recount(n, f, 0, f->rate, now);
		bool instant = f->rem <= 0 || !f->np;
		n->t_done[h] = instant ? now : now + f->rem / f->rate;
		sift_down(n, n->heap_pos[h]);
		sift_up(n, n->heap_pos[h]);
	}
	return ok;
}

/* Progressive filling over the active flows, and then only the flows whose
 * rate changed are touched: their remaining bytes, counters and completion
 * times (most keep their rate from one allocation to the next: 93% at the
 * paper's setup under Fair). */
void simnet_allocate(struct simnet *n, double now)
{
	n->dirty = false;
	bool kept = !n->relit && !n->stale && keep_rates(n, now);
	for (int j = 0; j < n->ntouched; j++)
		n->touched_bit[n->touched[j] / 64] = 0;
	n->ntouched = n->nfresh = 0;
	if (kept) {
		n->kept++;
		return;
	}
	n->stale = true;
	if (grow_scratch(n))
		return;   /* out of memory: keep the old rates */
	bool relit = n->relit;
	n->relit = false;
	/* Visit the flows in memory order: with 10^5 of them the passes below are
	 * bound by cache misses, and the active list is in no order (removals
	 * swap the last one in).  Each flow's fill entry is made in the same
	 * visit, and the links' counts: cnt is all 0 here (every flow counted is
	 * frozen, and uncounted, by the end of a filling). */
	for (int i = 0; i < n->nact; i++)
		n->live[n->act[i] / 64] |= 1ull << (n->act[i] % 64);
	n->nact = 0;
	int unfrozen = 0;
	for (int w = 0; w < (n->nf + 63) / 64; w++) {
		uint64_t bits = n->live[w];
		n->live[w] = 0;
		for (; bits; bits &= bits - 1) {
			int h = w * 64 + __builtin_ctzll(bits);
			struct flow *f = &n->f[h];
			if (f->circuit && relit)   /* the others' routes do not depend on the circuits */
				reroute(n, f, now);
			/* Bytes are whole: less than one left is rounding, the flow is done.  Kept, a held
			 * flow's sub-byte rest was 0 bytes of OCS demand (it truncates), so its circuit was
			 * never lit again and the flow never ended. */
			bool done = f->rem - f->rate * (now - f->t_set) < 1;
			if (done && f->rem > 0) {
				bring_up_to_date(f, now);
				f->rem = 0;
			}
			if (f->held && f->rem > 0 && !set_aside(n, h))
				continue;
			int i = n->act_pos[h] = n->nact++;
			n->act[i] = h;
			struct fill *x = &n->fl[i];
			x->np = done ? 0 : f->np;
			memcpy(x->path, f->path, sizeof x->path);
			x->rate = 0;
			x->old = f->rate;
			x->bn = -1;
			x->marked = f->marked_eps;
			x->update = f->fresh || done;
			n->frozen[i] = !x->np;
			unfrozen += x->np > 0;
			for (int k = 0; k < x->np; k++)
				if (!n->cnt[x->path[k]]++)
					n->busy[x->path[k] / 64] |= 1ull << (x->path[k] % 64);
		}
	}
	for (int j = 0; j < n->nused; j++) {
		n->load[n->used[j]] = n->nb[n->used[j]] = 0;
		n->level[n->used[j]] = INFINITY;
	}
	n->nused = 0;
	/* Flows per link crossed, CSR style, and the links' first shares in
	 * the heap by link id (the order decides ties). */
	int pos = 0, len = 0, words = n->nlinks / 64 + 1;
	for (int w = 0; w < words; w++)
		for (uint64_t bits = n->busy[w]; bits; bits &= bits - 1) {
			int l = w * 64 + __builtin_ctzll(bits);
			n->start[l] = n->cur[l] = pos;
			pos += n->cnt[l];
		}
	for (int i = 0; i < n->nact; i++)
		for (int k = 0; k < n->fl[i].np; k++)
			n->members[n->cur[n->fl[i].path[k]]++] = i;
	for (int w = 0; w < words; w++) {
		for (uint64_t bits = n->busy[w]; bits; bits &= bits - 1) {
			int l = w * 64 + __builtin_ctzll(bits);
			n->capr[l] = n->cap[l];
			lh_push(n, &len, n->capr[l] / n->cnt[l], l);
			n->used[n->nused++] = l;
		}
		n->busy[w] = 0;
	}
	/* Progressive filling, until every flow is frozen: the links left then
	 * (most, at ten times the paper: a server link's flows freeze on the
	 * racks' links) have none to freeze. */
	while (unfrozen) {
		double key;
		int l = lh_pop(n, &len, &key);
		if (!n->cnt[l])
			continue;
		double share = fmax(0, n->capr[l] / n->cnt[l]);
		if (key < share * (1 - 1e-12)) {
			lh_push(n, &len, share, l);
			continue;
		}
		for (int m = n->start[l]; m < n->cur[l]; m++) {
			int i = n->members[m];
			if (n->frozen[i])
				continue;
			n->frozen[i] = true;
			unfrozen--;
			struct fill *x = &n->fl[i];
			x->rate = share;
			x->bn = l;
			n->level[l] = share;
			n->nb[l]++;
			for (int k = 0; k < x->np; k++) {
				n->capr[x->path[k]] -= share;
				n->cnt[x->path[k]]--;
			}
		}
	}
	for (int j = 0; j < n->nused; j++)
		n->load[n->used[j]] = n->cap[n->used[j]] - n->capr[n->used[j]];
	n->stale = false;
	/* The flows whose rate changed: counters and completion times.  When
	 * most change (a batch's thousands of fetches share their links), the
	 * heap is made again at the end rather than sifted for each. */
	int changed = 0;
	for (int i = 0; i < n->nact; i++)
		changed += n->fl[i].update || n->fl[i].rate != n->fl[i].old;
	bool reheap = changed > n->nheap / 4;
	for (int i = 0; i < n->nact; i++) {
		int h = n->act[i];
		const struct fill *x = &n->fl[i];
		n->bn[h] = x->bn;
		if (x->marked && x->rate > 0)
			n->mload[x->path[1]] += x->rate;
		if (!x->update && x->rate == x->old)
			continue;
		struct flow *f = &n->f[h];
		bring_up_to_date(f, now);
		f->rate = x->rate;
		f->fresh = false;
		if (f->rate <= 0)   /* its links may be left by every flow: no load of the filling's sets them */
			recount(n, f, x->old, 0, now);
		/* A flow across no capacity (a local I/O on unlimited disks) is instant. */
		bool instant = f->rem <= 0 || (!f->np && !f->held);
		n->t_done[h] = instant ? now : f->rate > 0 ? now + f->rem / f->rate : INFINITY;
		if (!reheap) {
			sift_down(n, n->heap_pos[h]);
			sift_up(n, n->heap_pos[h]);
		}
	}
	if (reheap)
		for (int i = (n->nheap - 2) / ARITY; n->nheap > 1 && i >= 0; i--)
			sift_down(n, i);
	set_counters(n, now);
}

bool simnet_dirty(const struct simnet *n) { return n->dirty; }
int simnet_active(const struct simnet *n) { return n->nact + n->naside; }
long long simnet_kept(const struct simnet *n) { return n->kept; }

double simnet_next_done(const struct simnet *n, int *flow)
{
	if (!n->nheap)
		return INFINITY;
	*flow = n->heap[0];
	return n->t_done[n->heap[0]];
}

double simnet_rate(const struct simnet *n, int h) { return n->f[h].rate; }

double simnet_remaining(const struct simnet *n, int h, double now)
{
	const struct flow *f = &n->f[h];
	return fmax(0, f->rem - f->rate * (now - f->t_set));
}

int simnet_circuit_flows(const struct simnet *n, int src, int dst)
{
	return n->ncirc[src * n->racks + dst];
}

void simnet_demand(const struct simnet *n, double now, int64_t *demand)
{
	memset(demand, 0, (size_t)n->racks * n->racks * sizeof *demand);
	for (int i = 0; i < n->nact; i++) {
		const struct flow *f = &n->f[n->act[i]];
		if (f->circuit)
			demand[f->srack * n->racks + f->drack] += (int64_t)simnet_remaining(n, n->act[i], now);
	}
	for (int k = 0; k < n->racks * n->racks; k++)
		demand[k] += n->aside[k].bytes;
}

int simnet_stats(struct simnet *n, double now, struct link_stats **out, int *count)
{
	int total = n->servers + n->racks + n->racks * n->ports, k = 0;
	struct link_stats *s = calloc(total ? total : 1, sizeof *s);
	if (!s)
		return -1;
	for (int l = 0; l < n->nlinks; l++)
		ctr_at(&n->ctr[l], now);
	for (int r = 0; r < n->racks; r++) {
		int size = (r + 1 < n->racks ? n->rack_first[r + 1] : n->servers) - n->rack_first[r];
		for (int i = 0; i < size; i++) {
			int sv = n->rack_first[r] + i;
			s[k++] = (struct link_stats){.cls = LINK_SERVER, .rack = r, .server = i, .port = -1,
						     .tx_bytes = (uint64_t)n->ctr[l_down(n, sv)].bytes,
						     .rx_bytes = (uint64_t)n->ctr[l_up(n, sv)].bytes};
		}
		s[k++] = (struct link_stats){.cls = LINK_UPLINK, .rack = r, .server = -1, .port = -1,
					     .tx_bytes = (uint64_t)n->ctr[l_eps_out(n, r)].bytes,
					     .rx_bytes = (uint64_t)n->ctr[l_eps_in(n, r)].bytes,
					     .marked_tx_bytes = (uint64_t)n->ctr[l_eps_out(n, r)].mbytes};
		for (int p = 0; p < n->ports; p++)
			s[k++] = (struct link_stats){.cls = LINK_OPTICAL, .rack = r, .server = -1, .port = p,
						     .tx_bytes = (uint64_t)n->ctr[l_ocs_out(n, r, p)].bytes,
						     .rx_bytes = (uint64_t)n->ctr[l_ocs_in(n, r, p)].bytes};
	}
	for (int i = 0; i < k; i++) {
		s[i].tx_packets = s[i].tx_bytes / 1514;
		s[i].rx_packets = s[i].rx_bytes / 1514;
	}
	*out = s;
	*count = k;
	return 0;
}
