/* srs.c — SRS, COBRA's static baseline (seed 001's deployment: Spark's
 * static allocation on YARN): a job asks for `containers` executors (2,
 * spark.executor.instances) when it arrives and holds what it gets until it
 * ends; the fair job scheduler hands out containers as they come free
 * (emu/lease.h).  Executors run tasks as Spark's do (emu/sched/spark.h). */
#include "emu/sched/spark.h"

struct srs_opts { struct spark_opts spark; int containers; };

static void srs_want(struct sched *s)
{
	const struct srs_opts *o = s->opts;
	struct spark *x = s->priv;
	for (int i = 0; i < s->c->running_jobs; i++)
		x->l.job[s->c->active[i]].want = o->containers;
	lease_balance(&x->l);
}

static void srs_arrived(struct sched *s, struct job *j)
{
	spark_arrived(s, j);
	srs_want(s);
}

static void srs_finished(struct sched *s, struct task *t)
{
	(void)t;
	srs_want(s);
}

static int srs_init(struct sched *s)
{
	return spark_init(s, false);
}

static const struct sched_opt srs_opt_table[] = {
	SPARK_SCHED_OPTS(struct srs_opts),
	SCHED_INT_OPT(struct srs_opts, containers, 2, 1, 1 << 20, "executors a job holds from its arrival to its end"),
	{0},
};

const struct sched_ops sched_srs = {
	.name = "srs",
	.help = "COBRA's SRS: Spark static allocation, 2 executors per job held to its end, over Fair",
	.priv_size = sizeof(struct spark),
	.opts = srs_opt_table,
	.opts_size = sizeof(struct srs_opts),
	.init = srs_init,
	.destroy = spark_destroy,
	.job_arrived = srs_arrived,
	.offer = spark_offer,
	.task_finished = srs_finished,
	.tick = srs_want,
};
