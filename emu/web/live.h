/* live.h — the snapshot of a run in progress (emu run --web). */
#ifndef EMU_WEB_LIVE_H
#define EMU_WEB_LIVE_H
#include "emu/run_int.h"
#include "emu/web/publish.h"

/* The run's state as the page shows it: a pure function of r, the link
 * counters of this sample (cur, r->nlinks of them; r->last holds the
 * previous sample's, dt s before) and the OCS mirror (NULL: no OCS). */
json_t *web_snapshot_live(const struct run *r, const struct link_stats *cur, double dt, const struct web_ocs *ocs,
			  bool final);
/* Build and publish it (the monitor, every sample; at most twice a wall
 * second, so a simulated run is not slowed by it). */
void web_publish_sample(struct web_pub *p, const struct run *r, const struct link_stats *cur, double dt, bool final);
#endif
