/* sched.c — scheduler plumbing and the hooks' defaults. */
#include "emu/sched.h"
#include <stdlib.h>
#include <string.h>

int sched_init(struct sched *s, const struct sched_ops *ops, struct cluster *c, const struct sched_params *p)
{
	const struct sched_ops *policy = ops->alias_of ? ops->alias_of : ops;
	memset(s, 0, sizeof *s);
	s->ops = policy;
	s->c = c;
	s->p = *p;
	s->rng.s = p->seed * 0x2545f4914f6cdd1dULL + 1;
	void *opts = calloc(1, policy->opts_size ? policy->opts_size : 1);
	s->opts = opts;
	s->priv = policy->priv_size ? calloc(1, policy->priv_size) : NULL;
	char err[256];   /* the caller asked sched_opts_check for the words */
	if (!opts || (policy->priv_size && !s->priv) || sched_opts_parse(ops, opts, p->opts, p->nopts, err, sizeof err)) {
		free(s->priv);
		free(opts);
		memset(s, 0, sizeof *s);
		return -1;
	}
	if (policy->init && policy->init(s)) {
		sched_destroy(s);
		return -1;
	}
	return 0;
}

void sched_destroy(struct sched *s)
{
	if (s->ops && s->ops->destroy)
		s->ops->destroy(s);
	free(s->priv);
	free((void *)s->opts);
	memset(s, 0, sizeof *s);
}

void sched_place_input(struct sched *s, struct job *j, struct task *map, int replicas[3])
{
	if (s->ops->place_input)
		s->ops->place_input(s, j, map, replicas);
	else
		placement_default(s->c, &s->rng, replicas);
}

int sched_output_server(struct sched *s, const struct task *t)
{
	return s->ops->output_server ? s->ops->output_server(s, t) : t->server;
}

bool sched_shuffle_ready(struct sched *s, struct task *reduce)
{
	return s->ops->shuffle_ready ? s->ops->shuffle_ready(s, reduce) : true;
}

bool sched_circuit_eligible(struct sched *s, const struct task *reduce, int src_server, uint64_t bytes)
{
	if (s->ops->circuit_eligible)
		return s->ops->circuit_eligible(s, reduce, src_server, bytes);
	return cluster_rack_of(s->c, src_server) != cluster_rack_of(s->c, reduce->server) &&
	       bytes > s->p.elephant_bytes;
}

int sched_running(const struct job *j)
{
	return j->maps_running + j->reduces_running;
}

int sched_early_reduces(const struct cluster *c)
{
	int early = 0;
	for (int i = 0; i < c->running_jobs; i++) {
		const struct job *o = cluster_active(c, i);
		if (cluster_pending_maps(c, o))
			early += o->reduces_running;
	}
	return early;
}

bool sched_ramp_up_ok_early(const struct cluster *c, const struct job *j, int early)
{
	return j->reduces_running < 0.5 * (sched_running(j) + 1) && early < 0.5 * c->containers;   /* the nominal cluster */
}

bool sched_ramp_up_ok(const struct cluster *c, const struct job *j)
{
	/* The job's own limit first: it spares the count. */
	return j->reduces_running < 0.5 * (sched_running(j) + 1) && sched_ramp_up_ok_early(c, j, sched_early_reduces(c));
}

struct task *sched_job_task(struct sched *s, struct job *j, int server)
{
	return sched_job_task_if(s, j, server, true);
}

struct task *sched_job_task_if(struct sched *s, struct job *j, int server, bool early_ok)
{
	struct task *r = cluster_next_reduce_on(s->c, j, server);
	if (r && cluster_pending_maps(s->c, j) && early_ok && sched_ramp_up_ok(s->c, j))
		return r;
	struct task *t = cluster_best_map(s->c, j, server, NULL);
	return t ? t : r;
}
