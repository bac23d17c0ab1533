/* fetch_queue.c — see fetch_queue.h. */
#include "emu/fetch_queue.h"
#include "emu/grow.h"
#include <stdlib.h>
#include <string.h>

/* A lane's transfers sit in chunks of FQ_CHUNK, in arrival order: a take
 * reads a chunk or two whose addresses it knows, not a linked list of
 * items each a cache miss (a queue's memory is cold: thousands of reduces
 * are pushed to between two takes of one). */
#define FQ_CHUNK 4

struct fq_chunk {
	int next;                   /* the lane's next chunk, or the free list's */
	int seq[FQ_CHUNK];          /* arrival in the queue */
	int id[FQ_CHUNK];
	uint64_t bytes[FQ_CHUNK];
	double t_start[FQ_CHUNK];
};

/* A lane is a slot of the table of lanes by (holder, flag), open
 * addressing: a push's probe finds the lane itself.  Lanes stay once made;
 * a rehash moves them, and the heap follows. */
struct fq_lane {
	int key;                    /* holder * 2 + circuit; -1: an empty slot */
	int src_rack, dst_rack;
	int head, first;            /* the front: chunk (-1: empty, and not in the heap), index in it */
	int tail, last;             /* the back: chunk, and how many it holds */
};

/* A lane in the heap, with what the rules look at: lanes passed over cost
 * no read of the lane or its chunks. */
struct fq_front { int seq, lane, key, src_rack, dst_rack; };

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
	q->lane[k] = (struct fq_lane){.key = key, .src_rack = x->src_rack, .dst_rack = x->dst_rack, .head = -1, .tail = -1};
	q->nlane++;
	return k;
}

/* ---- chunks ------------------------------------------------------------- */

static int chunk_new(struct fetch_queue *q)
{
	int c = q->free - 1;
	if (c >= 0) {
		q->free = q->chunk[c].next + 1;
		return c;
	}
	if (grow(&q->chunk, &q->capchunk, q->nchunk + 1, sizeof *q->chunk, 16))
		return -1;
	return q->nchunk++;
}

static void chunk_free(struct fetch_queue *q, int c)
{
	q->chunk[c].next = q->free - 1;
	q->free = c + 1;
}

/* ---- the heap of lanes, by their front's arrival ------------------------ */

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

static struct fq_front front_of(const struct fetch_queue *q, int l)
{
	const struct fq_lane *ln = &q->lane[l];
	return (struct fq_front){q->chunk[ln->head].seq[ln->first], l, ln->key, ln->src_rack, ln->dst_rack};
}

/* ---- the queue ---------------------------------------------------------- */

int fq_push(struct fetch_queue *q, const struct xfer *x, double t_start)
{
	int l = lane_for(q, x);
	if (l < 0)
		return -1;
	struct fq_lane *ln = &q->lane[l];
	bool was_empty = ln->head < 0;
	if (was_empty || ln->last == FQ_CHUNK) {
		int c = chunk_new(q);
		if (c < 0)
			return -1;
		if (was_empty)
			ln->head = c, ln->first = 0;
		else
			q->chunk[ln->tail].next = c;
		ln->tail = c;
		ln->last = 0;
	}
	struct fq_chunk *ch = &q->chunk[ln->tail];
	int k = ln->last++;
	ch->seq[k] = q->seq++;
	ch->id[k] = x->id;
	ch->bytes[k] = x->bytes;
	ch->t_start[k] = t_start;
	if (was_empty)
		heap_push(q, front_of(q, l));
	q->live++;
	return 0;
}

static struct xfer xfer_of(const struct fq_front *f, int id, uint64_t bytes)
{
	return (struct xfer){.id = id, .src = f->key / 2, .bytes = bytes, .circuit = f->key & 1,
			     .src_rack = f->src_rack, .dst_rack = f->dst_rack};
}

/* Up to `max` transfers off lane f's front into out[] and t_start[]. */
static int take_lane(struct fetch_queue *q, const struct fq_front *f, int max, struct xfer *out, double *t_start)
{
	struct fq_lane *ln = &q->lane[f->lane];
	int n = 0;
	while (ln->head >= 0 && n < max) {
		struct fq_chunk *ch = &q->chunk[ln->head];
		int end = ln->head == ln->tail ? ln->last : FQ_CHUNK;
		for (; ln->first < end && n < max; ln->first++, n++) {
			out[n] = xfer_of(f, ch->id[ln->first], ch->bytes[ln->first]);
			t_start[n] = ch->t_start[ln->first];
		}
		if (ln->first == end) {
			int next = ln->head == ln->tail ? -1 : ch->next;
			chunk_free(q, ln->head);
			ln->head = next;
			ln->first = 0;
		}
	}
	q->live -= n;
	return n;
}

int fq_take(struct fetch_queue *q, const struct copier_rules *rules, struct xfer out[FETCH_MAX_XFERS],
	    double t_start[FETCH_MAX_XFERS])
{
	/* Lanes come off the heap oldest first until one may start; those
	 * passed over wait in heap[nheap..end) and go back after.  The rules
	 * see the front's holder, flag and racks (all they may look at). */
	int end = q->nheap, passed = 0, n = 0;
	while (q->nheap) {
		struct fq_front f = heap_pop(q);
		struct xfer front = xfer_of(&f, -1, 0);
		if (rules->movable(&front, rules->arg) && !rules->holder_busy(front.src, rules->arg)) {
			passed = q->nheap + 1;   /* f was left at heap[nheap] */
			n = take_lane(q, &f, FETCH_MAX_XFERS, out, t_start);
			if (q->lane[f.lane].head >= 0)
				heap_push(q, front_of(q, f.lane));
			break;
		}
	}
	for (int i = passed; i < end; i++)
		heap_push(q, q->heap[i]);
	return n;
}

void fq_each(const struct fetch_queue *q, void (*fn)(const struct xfer *x, double t_start, void *arg), void *arg)
{
	for (int l = 0; l < q->caplane; l++) {
		const struct fq_lane *ln = &q->lane[l];
		if (ln->key < 0)
			continue;
		struct fq_front f = {.key = ln->key, .src_rack = ln->src_rack, .dst_rack = ln->dst_rack};
		for (int c = ln->head, k = ln->first; c >= 0; c = c == ln->tail ? -1 : q->chunk[c].next, k = 0)
			for (int end = c == ln->tail ? ln->last : FQ_CHUNK; k < end; k++) {
				struct xfer x = xfer_of(&f, q->chunk[c].id[k], q->chunk[c].bytes[k]);
				fn(&x, q->chunk[c].t_start[k], arg);
			}
	}
}

void fq_free(struct fetch_queue *q)
{
	free(q->chunk);
	free(q->lane);
	free(q->heap);
	memset(q, 0, sizeof *q);
}
