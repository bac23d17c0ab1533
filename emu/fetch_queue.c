/* fetch_queue.c — see fetch_queue.h. */
#include "emu/fetch_queue.h"
#include "emu/grow.h"
#include <stdlib.h>
#include <string.h>

/* A transfer waiting, 20 bytes; its link to the next of its lane is apart
 * (fetch_queue.next: TAKEN once taken, until compacted). */
struct __attribute__((packed)) fq_item {
	int id;
	uint64_t bytes;
	double t_start;         /* when it was requested: its record's, kept here */
};
#define TAKEN (-2)

/* A lane is a slot of the table of lanes by (holder, flag), open
 * addressing up to three quarters full: a push's probe finds the lane
 * itself (a queue's memory is cold, thousands of reduces apart: one miss,
 * not two).  Lanes stay once made (15 million at ten times the paper's
 * batch: 12 bytes each); a rehash moves them, and the heap follows. */
struct fq_lane {
	int key;                /* holder * 2 + circuit; -1: an empty slot */
	int head, tail;         /* items; head -1 = empty, and not in the heap */
};

/* head: the lane's front item; key: the lane's (a take passes over a lane
 * that may not start without reading the lane, a cache miss). */
struct fq_front { int head, lane, key; };

/* ---- lanes by (holder, flag) -------------------------------------------- */

static int key_of(int src, bool circuit) { return src * 2 + circuit; }

static unsigned hash(int key, int cap) { return ((uint32_t)key * 2654435769u) >> (32 - __builtin_ctz(cap)); }

static int slot_of(const struct fetch_queue *q, int key)
{
	unsigned k = hash(key, q->caplane);
	while (q->lane[k].key >= 0 && q->lane[k].key != key)
		k = (k + 1) & (q->caplane - 1);
	return (int)k;
}

static int rehash(struct fetch_queue *q, int cap)
{
	struct fq_lane *old = q->lane, *l = malloc(cap * sizeof *l);
	int oldcap = q->caplane, *to = malloc((oldcap ? oldcap : 1) * sizeof *to);
	if (!l || !to) {
		free(l);
		free(to);
		return -1;
	}
	for (int i = 0; i < cap; i++)
		l[i].key = -1;
	q->lane = l;
	q->caplane = cap;
	for (int i = 0; i < oldcap; i++)
		if (old[i].key >= 0) {
			to[i] = slot_of(q, old[i].key);
			l[to[i]] = old[i];
		}
	for (int i = 0; i < q->nheap; i++)
		q->heap[i].lane = to[q->heap[i].lane];
	free(old);
	free(to);
	return 0;
}

static int lane_for(struct fetch_queue *q, const struct xfer *x)
{
	if ((q->nlane + 1) * 4 > q->caplane * 3 && rehash(q, q->caplane ? 2 * q->caplane : 16))
		return -1;
	int key = key_of(x->src, x->circuit), k = slot_of(q, key);
	if (q->lane[k].key >= 0)
		return k;
	q->lane[k] = (struct fq_lane){.key = key, .head = -1, .tail = -1};
	q->nlane++;
	return k;
}

/* ---- the heap of lanes, by their front's arrival ------------------------ */

/* x joins the heap (at heap[nheap] or not: where heap_pop left it, or new). */
static void heap_push(struct fetch_queue *q, struct fq_front x)
{
	int i = q->nheap++;
	while (i > 0 && x.head < q->heap[(i - 1) / 2].head) {
		q->heap[i] = q->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->heap[i] = x;
}

/* The oldest lane leaves the heap, and is left at heap[nheap]. */
static struct fq_front heap_pop(struct fetch_queue *q)
{
	struct fq_front top = q->heap[0], x = q->heap[--q->nheap];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= q->nheap)
			break;
		if (c + 1 < q->nheap && q->heap[c + 1].head < q->heap[c].head)
			c++;
		if (q->heap[c].head >= x.head)
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->nheap)
		q->heap[i] = x;
	q->heap[q->nheap] = top;
	return top;
}

/* ---- items -------------------------------------------------------------- */

/* Room for cap items and their links.  A grow that fails is -1 and leaves
 * capitem; a shrink that fails leaves an array larger than it needs. */
static int resize_items(struct fetch_queue *q, int cap)
{
	struct fq_item *item = realloc(q->item, cap * sizeof *item);
	if (item)
		q->item = item;
	int *next = realloc(q->next, cap * sizeof *next);
	if (next)
		q->next = next;
	if (cap > q->capitem && (!item || !next))
		return -1;
	q->capitem = cap;
	return 0;
}

/* Drop the taken items, keeping the order (so the heap's stays right), and
 * give back room a shrunk queue no longer needs (at ten times the paper's
 * batch the queues hold 42 million transfers at once, and room for two
 * to three times as many was the run's largest memory). */
static int compact(struct fetch_queue *q)
{
	int *to = malloc((q->nitem ? q->nitem : 1) * sizeof *to), n = 0;
	if (!to)
		return -1;
	for (int i = 0; i < q->nitem; i++) {
		to[i] = n;
		if (q->next[i] != TAKEN) {
			q->next[n] = q->next[i];
			q->item[n++] = q->item[i];
		}
	}
	for (int i = 0; i < n; i++)
		if (q->next[i] >= 0)
			q->next[i] = to[q->next[i]];
	for (int i = 0; i < q->nheap; i++) {   /* the lanes with items: those in the heap */
		struct fq_lane *ln = &q->lane[q->heap[i].lane];
		ln->head = q->heap[i].head = to[ln->head];
		ln->tail = to[ln->tail];
	}
	q->nitem = n;
	free(to);
	if (n <= q->capitem / 4 && q->capitem > 64)
		resize_items(q, q->capitem / 2);
	return 0;
}

int fq_push(struct fetch_queue *q, const struct xfer *x, double t_start)
{
	if (q->nitem == q->capitem && q->live * 4 <= q->nitem * 3 && compact(q))
		return -1;
	int l = lane_for(q, x);
	/* The heap holds the lanes with items (fq_take's passed-over ones stay within it). */
	if (l < 0 || (q->nitem == q->capitem && resize_items(q, q->capitem ? 2 * q->capitem : 16)) ||
	    (q->lane[l].head < 0 && grow(&q->heap, &q->capheap, q->nheap + 1, sizeof *q->heap, 16)))
		return -1;
	int i = q->nitem++;
	q->item[i] = (struct fq_item){.id = x->id, .bytes = x->bytes, .t_start = t_start};
	q->next[i] = -1;
	struct fq_lane *ln = &q->lane[l];
	if (ln->head < 0) {
		ln->head = ln->tail = i;
		heap_push(q, (struct fq_front){i, l, ln->key});
	} else {
		q->next[ln->tail] = i;
		ln->tail = i;
	}
	q->live++;
	return 0;
}

void fq_warm(const struct fetch_queue *q, int src, bool circuit)
{
	if (q->caplane) {
		const struct fq_lane *ln = &q->lane[hash(key_of(src, circuit), q->caplane)];
		__builtin_prefetch(ln, 1);
	}
	if (q->nheap)
		__builtin_prefetch(q->heap, 1);
	if (q->nitem < q->capitem) {   /* where its transfer goes */
		__builtin_prefetch(&q->item[q->nitem], 1);
		__builtin_prefetch(&q->next[q->nitem], 1);
	}
}

static struct xfer xfer_at(const struct fetch_queue *q, int key, int i)
{
	return (struct xfer){.id = q->item[i].id, .src = key / 2, .bytes = q->item[i].bytes, .circuit = key & 1,
			     .src_rack = -1, .dst_rack = -1};
}

int fq_take(struct fetch_queue *q, const struct copier_rules *rules, struct xfer out[FETCH_MAX_XFERS],
	    double t_start[FETCH_MAX_XFERS])
{
	/* Lanes come off the heap oldest first until one may start; those
	 * passed over wait in heap[nheap..end) and go back after, as they were. */
	int end = q->nheap, pick = -1, n = 0;
	while (q->nheap) {
		struct fq_front e = heap_pop(q);
		const struct xfer front = {.id = -1, .src = e.key / 2, .circuit = e.key & 1, .src_rack = -1, .dst_rack = -1};
		if (rules->movable(&front, rules->arg) && !rules->holder_busy(front.src, rules->arg)) {
			pick = q->nheap;
			break;
		}
	}
	if (pick >= 0) {
		/* The lane's links first, from its front in the heap (its slot is
		 * read alongside), then its items together: their cache misses
		 * overlap (a lane's items are far apart: one per pump). */
		struct fq_front *e = &q->heap[pick];
		struct fq_lane *ln = &q->lane[e->lane];
		__builtin_prefetch(ln, 1);
		int at[FETCH_MAX_XFERS], i = e->head;
		while (i >= 0 && n < FETCH_MAX_XFERS) {
			__builtin_prefetch(&q->item[i]);
			at[n++] = i;
			i = q->next[i];
			q->next[at[n - 1]] = TAKEN;
		}
		for (int k = 0; k < n; k++) {
			t_start[k] = q->item[at[k]].t_start;
			out[k] = xfer_at(q, e->key, at[k]);
		}
		e->head = ln->head = i;
		if (i < 0)
			ln->tail = -1;
		q->live -= n;
	}
	for (int i = q->nheap; i < end; i++)
		if (q->heap[i].head >= 0)
			heap_push(q, q->heap[i]);
	return n;
}

void fq_each(const struct fetch_queue *q, void (*fn)(const struct xfer *x, double t_start, void *arg), void *arg)
{
	/* An empty queue keeps its lanes (thousands at ten times the paper), and
	 * each reduce's is looked at when it ends. */
	for (int l = 0; q->live && l < q->caplane; l++)
		for (int i = q->lane[l].key >= 0 ? q->lane[l].head : -1; i >= 0; i = q->next[i]) {
			struct xfer x = xfer_at(q, q->lane[l].key, i);
			fn(&x, q->item[i].t_start, arg);
		}
}

void fq_free(struct fetch_queue *q)
{
	free(q->item);
	free(q->next);
	free(q->lane);
	free(q->heap);
	memset(q, 0, sizeof *q);
}
