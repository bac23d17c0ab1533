/* fifo.c — first in, first out: the earliest submitted job with a runnable
 * task gets every free container (Hadoop's original scheduler). */
#include "emu/sched.h"

static struct task *fifo_offer(struct sched *s, int server)
{
	struct job *best = NULL;
	for (int i = 0; i < s->c->running_jobs; i++) {
		struct job *j = cluster_active(s->c, i);
		if (!cluster_pending_maps(s->c, j) && !cluster_pending_reduces(s->c, j))
			continue;
		if (!best || j->submit_s < best->submit_s)
			best = j;
	}
	return best ? sched_job_task(s, best, server) : NULL;
}

const struct sched_ops sched_fifo = {
	.name = "fifo",
	.help = "first in, first out",
	.offer = fifo_offer,
};
