/* fetch_queue.c — see fetch_queue.h. */
#include "emu/fetch_queue.h"
#include "emu/grow.h"
#include <stdlib.h>
#include <string.h>

struct fq_item {
	int id, seq;            /* seq: its arrival in the queue */
	uint64_t bytes;
	double t_start;         /* when it was requested: its record's, kept here */
};

/* Two cache lines, aligned. */
#define FQ_CHUNK 5
struct fq_chunk {
	struct fq_item it[FQ_CHUNK];
	int next;               /* the lane's next chunk (or the free list's), -1 */
} __attribute__((aligned(64)));

/* A lane is a slot of the table of lanes by (holder, flag), open
 * addressing: a push's probe finds the lane itself (a queue's memory is
 * cold, thousands of reduces apart: one miss, not two).  Lanes stay once
 * made; a rehash moves them, and the heap follows.  Its transfers run from
 * it[front] of chunk head to it[back - 1] of chunk tail. */
struct fq_lane {
	int key;                /* holder * 2 + circuit; -1: an empty slot */
	int src_rack, dst_rack;
	int head, tail;         /* chunks; head -1 = empty, and not in the heap */
	int front, back;
};

/* seq: the arrival of the lane's front; key: the lane's (a take passes over
 * a lane that may not start without reading the lane, a cache miss). */
struct fq_front { int seq, lane, key; };

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
	if ((q->nlane + 1) * 2 > q->caplane && rehash(q, q->caplane ? 2 * q->caplane : 16))
		return -1;
	int key = key_of(x->src, x->circuit), k = slot_of(q, key);
	if (q->lane[k].key >= 0)
		return k;
	if (grow(&q->heap, &q->capheap, q->nlane + 1, sizeof *q->heap, 16))
		return -1;
	q->lane[k] = (struct fq_lane){.key = key, .src_rack = x->src_rack, .dst_rack = x->dst_rack, .head = -1};
	q->nlane++;
	return k;
}

/* ---- the heap of lanes, by their front's arrival ------------------------ */

/* x joins the heap (at heap[nheap] or not: where heap_pop left it, or new). */
static void heap_push(struct fetch_queue *q, struct fq_front x)
{
	int i = q->nheap++;
	while (i > 0 && x.seq < q->heap[(i - 1) / 2].seq) {
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
		if (c + 1 < q->nheap && q->heap[c + 1].seq < q->heap[c].seq)
			c++;
		if (q->heap[c].seq >= x.seq)
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->nheap)
		q->heap[i] = x;
	q->heap[q->nheap] = top;
	return top;
}

/* ---- chunks ------------------------------------------------------------- */

/* Chunk c: blocks double in size, so a small queue stays small and a growing
 * one copies nothing. */
static struct fq_chunk *chunk(const struct fetch_queue *q, int c)
{
	int k = 29 - __builtin_clz((unsigned)c + 4);
	return &q->block[k][c + 4 - (4 << k)];
}

/* A chunk off the free list, or a new one.  -1: out of memory. */
static int chunk_new(struct fetch_queue *q)
{
	if (q->free_chunk) {
		int c = q->free_chunk - 1;
		q->free_chunk = chunk(q, c)->next + 1;
		return c;
	}
	int k = 29 - __builtin_clz((unsigned)q->nchunk + 4);
	if (k == q->nblock) {
		struct fq_chunk **b = realloc(q->block, (k + 1) * sizeof *b);
		if (!b)
			return -1;
		q->block = b;
		if (!(b[k] = aligned_alloc(_Alignof(struct fq_chunk), (4 << k) * sizeof(struct fq_chunk))))
			return -1;
		q->nblock++;
	}
	return q->nchunk++;
}

static void chunk_free(struct fetch_queue *q, int c)
{
	chunk(q, c)->next = q->free_chunk - 1;
	q->free_chunk = c + 1;
}

/* ---- items -------------------------------------------------------------- */

static int push(struct fetch_queue *q, const struct xfer *x, double t_start)
{
	int l = lane_for(q, x);
	if (l < 0)
		return -1;
	struct fq_lane *ln = &q->lane[l];
	if (ln->head < 0 || ln->back == FQ_CHUNK) {
		int c = chunk_new(q);
		if (c < 0)
			return -1;
		chunk(q, c)->next = -1;
		if (ln->head < 0) {
			ln->head = c;
			ln->front = 0;
			heap_push(q, (struct fq_front){q->seq, l, ln->key});
		} else {
			chunk(q, ln->tail)->next = c;
		}
		ln->tail = c;
		ln->back = 0;
	}
	chunk(q, ln->tail)->it[ln->back++] = (struct fq_item){.id = x->id, .seq = q->seq++, .bytes = x->bytes,
								.t_start = t_start};
	q->live++;
	return 0;
}

int fq_push(struct fetch_queue *q, const struct xfer *x, int n, double t_start)
{
	/* The lanes, then their tails, into the cache for all n at once: the
	 * misses overlap rather than follow each other. */
	for (int i = 0; q->caplane && i < n; i++)
		__builtin_prefetch(&q->lane[hash(key_of(x[i].src, x[i].circuit), q->caplane)], 1);
	for (int i = 0; q->caplane && i < n; i++) {
		const struct fq_lane *ln = &q->lane[slot_of(q, key_of(x[i].src, x[i].circuit))];
		if (ln->key >= 0 && ln->head >= 0 && ln->back < FQ_CHUNK)
			__builtin_prefetch(&chunk(q, ln->tail)->it[ln->back], 1);
	}
	for (int i = 0; i < n; i++)
		if (push(q, &x[i], t_start))
			return -1;
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
}

static struct xfer xfer_of(const struct fq_lane *ln, const struct fq_item *it)
{
	return (struct xfer){.id = it->id, .src = ln->key / 2, .bytes = it->bytes, .circuit = ln->key & 1,
			     .src_rack = ln->src_rack, .dst_rack = ln->dst_rack};
}

/* The lane's front item leaves it (its chunk too, when that was its last). */
static void lane_advance(struct fetch_queue *q, struct fq_lane *ln)
{
	int c = ln->head;
	if (++ln->front < (c == ln->tail ? ln->back : FQ_CHUNK))
		return;
	ln->head = c == ln->tail ? -1 : chunk(q, c)->next;
	ln->front = 0;
	chunk_free(q, c);
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
		struct fq_lane *ln = &q->lane[q->heap[pick].lane];
		while (ln->head >= 0 && n < FETCH_MAX_XFERS) {
			const struct fq_item *it = &chunk(q, ln->head)->it[ln->front];
			t_start[n] = it->t_start;
			out[n++] = xfer_of(ln, it);
			lane_advance(q, ln);
		}
		q->heap[pick].seq = ln->head >= 0 ? chunk(q, ln->head)->it[ln->front].seq : -1;
		q->live -= n;
	}
	for (int i = q->nheap; i < end; i++)
		if (q->heap[i].seq >= 0)
			heap_push(q, q->heap[i]);
	return n;
}

void fq_each(const struct fetch_queue *q, void (*fn)(const struct xfer *x, double t_start, void *arg), void *arg)
{
	/* An empty queue keeps its lanes (thousands at ten times the paper), and
	 * each reduce's is looked at when it ends. */
	for (int l = 0; q->live && l < q->caplane; l++) {
		const struct fq_lane *ln = &q->lane[l];
		for (int c = ln->key >= 0 ? ln->head : -1, i = ln->front; c >= 0; c = chunk(q, c)->next, i = 0)
			for (; i < (c == ln->tail ? ln->back : FQ_CHUNK); i++) {
				const struct fq_item *it = &chunk(q, c)->it[i];
				struct xfer x = xfer_of(ln, it);
				fn(&x, it->t_start, arg);
			}
	}
}

void fq_free(struct fetch_queue *q)
{
	for (int k = 0; k < q->nblock; k++)
		free(q->block[k]);
	free(q->block);
	free(q->lane);
	free(q->heap);
	memset(q, 0, sizeof *q);
}
