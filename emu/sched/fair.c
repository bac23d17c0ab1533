/* fair.c — YARN Fair style: every active job gets an equal share of the
 * containers; a free container goes to the job furthest below its share,
 * i.e. with the fewest running tasks (ties: earlier submission).  On a
 * hybrid topology this is the dissertation's F-Hybrid, on an EPS-only one
 * (geni-10rack-eps) F-EPS. */
#include "emu/sched.h"


/* The job Fair would serve first among those with something runnable. */
static struct job *fair_pick(struct sched *s)
{
	struct job *best = NULL;
	for (int i = 0; i < s->c->running_jobs; i++) {
		struct job *j = cluster_active(s->c, i);
		if (!cluster_pending_maps(s->c, j) && !cluster_pending_reduces(s->c, j))
			continue;
		if (!best || sched_running(j) < sched_running(best) ||
		    (sched_running(j) == sched_running(best) && j->submit_s < best->submit_s))
			best = j;
	}
	return best;
}

static struct task *fair_offer(struct sched *s, int server)
{
	struct job *j = fair_pick(s);
	return j ? sched_job_task(s, j, server) : NULL;
}

const struct sched_ops sched_fair = {
	.name = "fair",
	.help = "equal share of containers per job (YARN Fair; F-Hybrid / F-EPS)",
	.offer = fair_offer,
};
