/* claims.h — rooms claimed by preempting tasks: per server the task that
 * preempted for room there (-1: none), and per task how many servers it
 * claims, kept as each other's inverse.  Natjam's and SRPT's. */
#ifndef EMU_SCHED_CLAIMS_H
#define EMU_SCHED_CLAIMS_H

/* Server `server` claimed by task id (-1: freed). */
static inline void claims_set(int *claim, int *nclaims, int server, int id)
{
	if (claim[server] >= 0)
		nclaims[claim[server]]--;
	claim[server] = id;
	if (id >= 0)
		nclaims[id]++;
}
#endif
