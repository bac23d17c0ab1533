/* copiers.h — which of a reduce's queued transfers its next fetch takes:
 * Hadoop's shuffle scheduler (ShuffleSchedulerImpl), one rule for the
 * agents (agents/tasks.c) and the simulator (emu/backend_sim.c). */
#ifndef EMU_COPIERS_H
#define EMU_COPIERS_H
#include "emu/proto.h"
#include <stdbool.h>

/* A fetch takes at most this many transfers from its holder at once:
 * Hadoop's MAX_MAPS_AT_ONCE (a transfer holds one or more map outputs). */
#define FETCH_MAX_XFERS 20

struct copier_rules {
	/* the transfer may start now (not held for a dark circuit) */
	bool (*movable)(const struct xfer *x, void *arg);
	/* a fetch of this reduce from that server is running */
	bool (*holder_busy)(int src, void *arg);
	void *arg;
};

/* The next fetch of a reduce whose queue is q[*qhead..nq): the oldest
 * movable transfer whose holder is not busy, with every later movable one
 * from the same holder sent the same way (circuit or not), at most
 * FETCH_MAX_XFERS.  They leave the queue (the rest keep their order, *qhead
 * moves past the taken ones) and are copied to out[] in queue order.
 * Returns how many (0: nothing can start). */
int copiers_take(struct xfer *q, int *qhead, int nq, const struct copier_rules *rules,
		 struct xfer out[FETCH_MAX_XFERS]);
#endif
