/* fetch_queue.h — a reduce's queued transfers, indexed so that the next
 * fetch is found without scanning the queue: copiers_take's rule
 * (emu/copiers.c), the same choices in the same order, for queues of 10^4
 * transfers (a paper-scale reduce is told of every holder's new outputs at
 * every heartbeat, and takes 20 at a time).
 *
 * The queue is kept as lanes, one per (holder, circuit-eligible): a fetch
 * takes from one lane's front, and the oldest transfer that could start is
 * the front of some lane, so the lanes sit in a heap by the age of their
 * front.  The rules' movable() must depend only on a transfer's holder and
 * circuit flag (true of the simulator's: hold mode and the lit circuits): it is
 * shown a transfer with just those. */
#ifndef EMU_FETCH_QUEUE_H
#define EMU_FETCH_QUEUE_H
#include "emu/copiers.h"
#include <stdint.h>

struct fq_item;
struct fq_lane;
struct fq_front;

struct fetch_queue {
	struct fq_item *item;   /* in arrival order; the taken ones are dead until compacted */
	int *next;              /* per item, apart (a take walks them before it reads
				 * the items): the next of its lane, -1; or taken */
	int nitem, capitem, live;
	struct fq_lane *lane;   /* by (holder, circuit): open addressing */
	int nlane, caplane;
	struct fq_front *heap;  /* lanes with transfers, by the arrival of their front */
	int nheap, capheap;
};

/* Append x (its id, holder, bytes and flag; not its racks or address: a
 * transfer taken or visited has rack -1), requested at t_start.  -1: out
 * of memory. */
int fq_push(struct fetch_queue *q, const struct xfer *x, double t_start);
/* A push of (src, circuit) comes soon: its lane's slot and the heap's top
 * into the cache (a hint). */
void fq_warm(const struct fetch_queue *q, int src, bool circuit);
/* copiers_take on the queue (see emu/copiers.h); t_start[i]: out[i]'s. */
int fq_take(struct fetch_queue *q, const struct copier_rules *rules, struct xfer out[FETCH_MAX_XFERS],
	    double t_start[FETCH_MAX_XFERS]);
/* Transfers not taken. */
static inline int fq_len(const struct fetch_queue *q) { return q->live; }
/* Call fn on every transfer not taken, in no particular order. */
void fq_each(const struct fetch_queue *q, void (*fn)(const struct xfer *x, double t_start, void *arg), void *arg);
/* Empty, memory released. */
void fq_free(struct fetch_queue *q);
#endif
