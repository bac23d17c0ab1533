/* spark.c — see spark.h. */
#include "emu/sched/spark.h"
#include <stdlib.h>

static struct task *spark_pick(struct lease *l, struct container *k, struct job *j)
{
	struct sched *s = l->ctx;
	const struct spark_opts *o = s->opts;
	double *last = &((struct spark *)s->priv)->last_launch[j->id];
	if (!o->pack && k->ntasks)
		return NULL;
	enum locality loc = LOCAL_NONE;
	struct task *m = cluster_pending_maps(s->c, j) ? cluster_best_map(s->c, j, k->server, &loc) : NULL;
	struct task *t = NULL;
	if (m && loc == LOCAL_NODE)
		t = m;
	else if ((t = lease_next_reduce(l, j, k->server)))
		;   /* no locality preference */
	else if (m && (s->c->now - *last >= 2 * o->wait || (loc == LOCAL_RACK && s->c->now - *last >= o->wait)))
		t = m;
	if (!t || !lease_fits(l, k, t))
		return NULL;
	*last = s->c->now;
	return t;
}

struct task *spark_offer(struct sched *s, int server)
{
	return lease_offer(&((struct spark *)s->priv)->l, server, spark_pick);
}

void spark_arrived(struct sched *s, struct job *j)
{
	((struct spark *)s->priv)->last_launch[j->id] = s->c->now;
}

int spark_init(struct sched *s, bool drain)
{
	const struct spark_opts *o = s->opts;
	struct spark *x = s->priv;
	struct lease_params lp = o->lease;
	lp.drain = drain;
	if (lease_init(&x->l, s->c, &lp))
		return -1;
	x->l.ctx = s;
	return (x->last_launch = calloc(s->c->w->njobs ? s->c->w->njobs : 1, sizeof *x->last_launch)) ? 0 : -1;
}

void spark_destroy(struct sched *s)
{
	struct spark *x = s->priv;
	lease_free(&x->l);
	free(x->last_launch);
}
