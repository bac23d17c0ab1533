/* stall.h — progress watching on data connections, shared by both ends of a
 * transfer and kept free of I/O so the unit tests can drive it.
 *
 * A connection is stalled when its progress counter (the fetcher: bytes
 * received; the sender: bytes the peer acknowledged) has not moved for
 * `timeout` seconds while the peer was supposed to be moving it.  Time
 * during which the bytes are legitimately held (a circuit transfer in hold
 * mode while its circuit is dark) does not count.
 *
 * The fetcher then closes the connection and asks for the rest of the
 * transfer on a new one (the data is synthetic: asking for the bytes still
 * missing resumes it exactly), at most `retries` times, waiting
 * stall_backoff() before each; after that the transfer fails and its task
 * is reported failed, as any other transfer failure. */
#ifndef AGENTS_STALL_H
#define AGENTS_STALL_H
#include <stdbool.h>
#include <stdint.h>

#include "emu/proto.h"

#define STALL_TIMEOUT_DEFAULT DATA_STALL_TIMEOUT_S
#define STALL_RETRIES_DEFAULT DATA_STALL_RETRIES

struct stall_watch {
	uint64_t mark;                /* progress counter at `since` */
	double since;                 /* when it last moved (or was last held) */
};

static inline void stall_start(struct stall_watch *w, uint64_t mark, double now)
{
	w->mark = mark;
	w->since = now;
}

/* Observe the counter at `now`; `held` = the peer is not supposed to send
 * now.  Returns the seconds without progress so far. */
static inline double stall_idle(struct stall_watch *w, uint64_t mark, bool held, double now)
{
	if (held || mark != w->mark)
		stall_start(w, mark, now);
	return now - w->since;
}

/* When the watch expires if nothing moves (timeout <= 0: never). */
static inline double stall_deadline(const struct stall_watch *w, double timeout)
{
	return timeout > 0 ? w->since + timeout : 1e300;
}

/* Seconds to wait before retry number `retry` (1, 2, ...): 0.5, 1, 2, 4, 4, ...
 * Enough that a peer that reset the connection is not hammered, short
 * against the timeout itself. */
static inline double stall_backoff(int retry)
{
	double d = 0.5;
	for (int i = 1; i < retry && d < 4; i++)
		d *= 2;
	return d < 4 ? d : 4;
}

/* Whether a fetch that failed this way may be retried: stalls, and errors
 * of an established connection (a reset — the sender's own stall timeout
 * aborts with one —, a timeout, an EOF before all bytes).  Not a failed
 * connect (the sender is gone: the controller re-runs its outputs), not a
 * protocol violation, and never more than `max` times. */
enum stall_why { STALL_NONE, STALL_IDLE, STALL_CONN_ERROR, STALL_SHORT_EOF, STALL_CONNECT, STALL_PROTOCOL };

static inline bool stall_may_retry(enum stall_why why, int retries_done, int max)
{
	if (retries_done >= max)
		return false;
	return why == STALL_IDLE || why == STALL_CONN_ERROR || why == STALL_SHORT_EOF;
}
#endif
