/* delay.c — Fair sharing plus delay scheduling (Zaharia et al., EuroSys'10):
 * when the job whose turn it is has no node-local map for the offered
 * server, it skips the offer and waits — up to node_wait_s for a node-local
 * slot, then up to rack_wait_s more for a rack-local one — before it takes
 * any slot.  The offer goes to the next job in fair order meanwhile. */
#include "emu/sched/nas.h"   /* declares the two helpers sw-delay reuses */
#include <stdlib.h>

struct delay_state {
	double *waiting_since;    /* per job: when it started skipping, -1 = not */
};

static int delay_init(struct sched *s)
{
	struct delay_state *d = s->priv;
	int n = s->c->w->njobs;
	if (!(d->waiting_since = malloc((n ? n : 1) * sizeof(double))))
		return -1;
	for (int i = 0; i < n; i++)
		d->waiting_since[i] = -1;
	return 0;
}

static void delay_destroy(struct sched *s)
{
	struct delay_state *d = s->priv;
	free(d->waiting_since);
}

static int by_fair_order(const void *a, const void *b)
{
	const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
	int rx = sched_running(x), ry = sched_running(y);
	if (rx != ry)
		return rx - ry;
	return (x->submit_s > y->submit_s) - (x->submit_s < y->submit_s);
}

int delay_fair_order(struct sched *s, struct job **order)
{
	int n = 0;
	for (int i = 0; i < s->c->running_jobs; i++) {
		struct job *j = cluster_active(s->c, i);
		if (cluster_pending_maps(s->c, j) || cluster_pending_reduces(s->c, j))
			order[n++] = j;
	}
	qsort(order, n, sizeof *order, by_fair_order);
	return n;
}

bool delay_may_launch(struct sched *s, double *since, enum locality loc)
{
	double waited = *since < 0 ? 0 : s->c->now - *since;
	if (loc == LOCAL_NODE || (loc == LOCAL_RACK && waited >= s->p.node_wait_s) ||
	    waited >= s->p.node_wait_s + s->p.rack_wait_s) {
		*since = loc == LOCAL_NODE ? -1 : *since;
		return true;
	}
	if (*since < 0)
		*since = s->c->now;   /* start waiting; let another job have the slot */
	return false;
}

static struct task *delay_offer(struct sched *s, int server)
{
	struct delay_state *d = s->priv;
	struct workload *w = s->c->w;
	struct job **order = malloc((w->njobs ? w->njobs : 1) * sizeof *order);
	struct task *pick = NULL;
	if (!order)
		return NULL;
	int n = delay_fair_order(s, order);
	for (int k = 0; k < n && !pick; k++) {
		struct job *j = order[k];
		struct task *r = cluster_next_reduce(s->c, j);
		if (r && cluster_pending_maps(s->c, j) && sched_ramp_up_ok(s->c, j)) {
			pick = r;
			continue;
		}
		enum locality loc;
		struct task *m = cluster_best_map(s->c, j, server, &loc);
		if (!m) {
			pick = cluster_next_reduce(s->c, j);   /* reduces have no input locality */
			continue;
		}
		if (delay_may_launch(s, &d->waiting_since[j->id], loc))
			pick = m;
	}
	free(order);
	return pick;
}

const struct sched_ops sched_delay = {
	.name = "delay",
	.help = "Fair plus delay scheduling for map input locality",
	.priv_size = sizeof(struct delay_state),
	.init = delay_init,
	.destroy = delay_destroy,
	.offer = delay_offer,
};
