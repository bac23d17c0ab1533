/* demand.c — the circuit demand this server reports to the controller.
 *
 * Two vectors, and every circuit transfer is in at least one of them
 * until it is done (in both between its request's arrival and its first
 * byte's):
 *   pending[dst_rack]  bytes of requested circuit transfers this server
 *                      still has to hand to the kernel (serve.c, sender)
 *   queued[src_rack]   bytes of circuit transfers this server's reduces
 *                      have not received a byte of: waiting for a copier
 *                      or their circuit, or just started (tasks.c, fetch.c,
 *                      receiver, hold mode)
 * The controller sums both into its rack-pair demand.  A change is
 * reported at most every 100 ms, but an entry that becomes zero or stops
 * being zero is news at once: a controller that reconfigures early
 * (ocs_early_due) gives a circuit away when its pair shows no demand.  A
 * transfer passes from the receiver's queue to the sender's pending (at
 * its first byte, fetch.c), and the sender's news of it must not lag:
 * held behind the 100 ms limit of its last report, a pair whose reduces
 * were between fetches could show no demand for up to 100 ms, and lose its
 * circuit with fetches under way. */
#include "agents/agent.h"
#include <errno.h>
#include <string.h>

#define DEMAND_EVERY 0.1           /* s between demand messages */

struct vec { uint64_t now[AGENT_MAX_RACKS], reported[AGENT_MAX_RACKS]; };

static struct vec pending, queued;
static struct ev timer = {.fd = -1};
static bool armed;
static double last = -1;

/* The nonzero racks of v, and those that just dropped to zero; whether
 * anything changed since the last report. */
static bool collect(struct vec *v, struct rack_bytes *rb, int *n)
{
	bool changed = false;
	*n = 0;
	for (int r = 0; r < AGENT_MAX_RACKS; r++) {
		changed |= v->now[r] != v->reported[r];
		if (v->now[r] || v->reported[r])
			rb[(*n)++] = (struct rack_bytes){r, v->now[r]};
		v->reported[r] = v->now[r];
	}
	return changed;
}

static void report(void)
{
	struct rack_bytes p[AGENT_MAX_RACKS], q[AGENT_MAX_RACKS];
	int np, nq;
	bool changed = collect(&pending, p, &np);
	changed |= collect(&queued, q, &nq);
	if (!changed)
		return;
	struct msg m = {.op = OP_DEMAND, .pending = p, .npending = np, .queued = q, .nqueued = nq};
	control_send(&m);
	last = now_mono();
}

static void on_timer(struct ev *e, uint32_t events)
{
	(void)events;
	timer_ack(e);
	armed = false;
	report();
}

static void changed(void)
{
	if (armed)
		return;
	if (timer.fd < 0 && timer_open(&timer, on_timer)) {
		alog("demand timer: %s; reporting every change", strerror(errno));
		report();
		return;
	}
	timer_arm(&timer, last < 0 ? 0 : last + DEMAND_EVERY - now_mono());
	armed = true;
}

static void add(struct vec *v, int rack, int64_t delta)
{
	if (rack < 0 || rack >= AGENT_MAX_RACKS || !delta)
		return;
	v->now[rack] += (uint64_t)delta;
	if (!v->now[rack] != !v->reported[rack])
		report();
	else
		changed();
}

void demand_pending_add(int dst_rack, int64_t delta) { add(&pending, dst_rack, delta); }
void demand_queued_add(int src_rack, int64_t delta) { add(&queued, src_rack, delta); }
