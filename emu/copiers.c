/* copiers.c — a reduce's next fetch, as Hadoop's shuffle scheduler picks it.
 *
 * Hadoop (ShuffleSchedulerImpl.getHost / getMapsForHost) hands a free
 * copier a pending host, marks that host busy so no other copier of the
 * reduce fetches from it, and gives the copier every map output known on
 * that host (up to 20), fetched over one connection.  A reduce that starts
 * before its maps are done thus fetches each host's outputs that finished
 * meanwhile together, and never opens two connections to one host (one
 * connection per map output would pay TCP's handshake and slow start for
 * each).
 * We take the oldest movable transfer's holder rather than a random one:
 * the queue's order (emu/shuffle.c) already spreads the reduces over the
 * holders. */
#include "emu/copiers.h"
#include <string.h>

/* Move q[k] to q[*qhead] (the front of the queue's remainder), keeping the
 * order of q[*qhead..k). */
static struct xfer take_at(struct xfer *q, int *qhead, int k)
{
	struct xfer x = q[k];
	memmove(&q[*qhead + 1], &q[*qhead], (size_t)(k - *qhead) * sizeof x);
	(*qhead)++;
	return x;
}

int copiers_take(struct xfer *q, int *qhead, int nq, const struct copier_rules *rules,
		 struct xfer out[FETCH_MAX_XFERS])
{
	int first = *qhead;
	while (first < nq && (!rules->movable(&q[first], rules->arg) || rules->holder_busy(q[first].src, rules->arg)))
		first++;
	if (first == nq)
		return 0;
	int src = q[first].src, n = 0;
	bool circuit = q[first].circuit;
	/* Later indices do not move when an earlier one is taken. */
	for (int k = first; k < nq && n < FETCH_MAX_XFERS; k++)
		if (q[k].src == src && q[k].circuit == circuit && rules->movable(&q[k], rules->arg))
			out[n++] = take_at(q, qhead, k);
	return n;
}
