/* cluster.c — see cluster.h. */
#include "emu/cluster.h"
#include <stdlib.h>
#include <string.h>

int cluster_init(struct cluster *c, int racks, int per_rack, int containers, struct workload *w,
		 double slowstart)
{
	memset(c, 0, sizeof *c);
	c->racks = racks;
	c->per_rack = per_rack;
	c->nservers = racks * per_rack;
	c->servers = calloc(c->nservers, sizeof *c->servers);
	c->arrived = calloc(w->njobs ? w->njobs : 1, sizeof *c->arrived);
	c->rack_util_out = calloc(racks ? racks : 1, sizeof(double));
	c->rack_util_in = calloc(racks ? racks : 1, sizeof(double));
	c->job_xrack_bytes = calloc(w->njobs ? w->njobs : 1, sizeof(uint64_t));
	if (!c->servers || !c->arrived || !c->rack_util_out || !c->rack_util_in || !c->job_xrack_bytes) {
		cluster_free(c);
		return -1;
	}
	for (int i = 0; i < c->nservers; i++)
		c->servers[i] = (struct server){i, i / per_rack, i % per_rack, containers, containers, true};
	for (int i = 0; i < w->njobs; i++)
		w->jobs[i].t_start = w->jobs[i].t_end = -1;
	c->w = w;
	c->slowstart = slowstart;
	return 0;
}

void cluster_free(struct cluster *c)
{
	free(c->servers);
	free(c->arrived);
	free(c->rack_util_out);
	free(c->rack_util_in);
	free(c->job_xrack_bytes);
	memset(c, 0, sizeof *c);
}

void cluster_job_arrive(struct cluster *c, struct job *j)
{
	if (c->arrived[j->id])
		return;
	c->arrived[j->id] = true;
	if (!cluster_job_finished(j))
		c->running_jobs++;
	else
		j->t_start = j->t_end = c->now;   /* an empty job finishes on arrival */
}

bool cluster_job_ready(const struct cluster *c, const struct job *j)
{
	if (c->arrived[j->id] || c->now < j->submit_s)
		return false;
	for (int d = 0; d < j->ndeps; d++)
		if (!cluster_job_finished(&c->w->jobs[j->deps[d]]))
			return false;
	return true;
}

bool cluster_job_finished(const struct job *j)
{
	return j->maps_done == j->nmaps && j->reduces_done == j->nreduces;
}

bool cluster_job_active(const struct cluster *c, const struct job *j)
{
	return c->arrived[j->id] && !cluster_job_finished(j);
}

bool cluster_reduces_allowed(const struct cluster *c, const struct job *j)
{
	return j->maps_done >= c->slowstart * j->nmaps - 1e-9;
}

int cluster_pending_maps(const struct cluster *c, const struct job *j)
{
	return cluster_job_active(c, j) ? j->nmaps - j->maps_done - j->maps_running : 0;
}

int cluster_pending_reduces(const struct cluster *c, const struct job *j)
{
	if (!cluster_job_active(c, j) || !cluster_reduces_allowed(c, j))
		return 0;
	return j->nreduces - j->reduces_done - j->reduces_running;
}

enum locality cluster_locality(const struct cluster *c, const struct task *t, int server)
{
	enum locality best = LOCAL_NONE;
	for (int i = 0; i < 3; i++) {
		int r = t->replicas[i];
		if (r < 0 || !c->servers[r].alive)
			continue;
		if (r == server)
			return LOCAL_NODE;
		if (c->servers[r].rack == c->servers[server].rack)
			best = LOCAL_RACK;
	}
	return best;
}

struct task *cluster_best_map(const struct cluster *c, const struct job *j, int server, enum locality *loc)
{
	struct task *best = NULL;
	enum locality bl = LOCAL_NONE;
	if (!cluster_job_active(c, j))
		return NULL;
	for (int i = 0; i < j->nmaps; i++) {
		struct task *t = job_map(c->w->tasks, j, i);
		if (t->state != TASK_PENDING)
			continue;
		enum locality l = cluster_locality(c, t, server);
		if (!best || l < bl) {
			best = t;
			bl = l;
			if (l == LOCAL_NODE)
				break;
		}
	}
	if (loc)
		*loc = bl;
	return best;
}

struct task *cluster_next_reduce(const struct cluster *c, const struct job *j)
{
	if (!cluster_job_active(c, j) || !cluster_reduces_allowed(c, j))
		return NULL;
	for (int i = 0; i < j->nreduces; i++) {
		struct task *t = job_reduce(c->w->tasks, j, i);
		if (t->state == TASK_PENDING)
			return t;
	}
	return NULL;
}

uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void placement_default(const struct cluster *c, struct rng *r, int replicas[3])
{
	replicas[0] = replicas[1] = replicas[2] = -1;
	int ra = rng_below(r, c->racks);
	replicas[0] = ra * c->per_rack + rng_below(r, c->per_rack);
	int rb = ra;
	if (c->racks > 1)
		while ((rb = rng_below(r, c->racks)) == ra)
			;
	/* Two different servers of rack B, never the first replica's server. */
	for (int k = 1; k < 3; k++) {
		int tries = 0, s;
		do {
			s = rb * c->per_rack + rng_below(r, c->per_rack);
		} while ((s == replicas[0] || s == replicas[1]) && ++tries < 64);
		if (s != replicas[0] && s != replicas[1])
			replicas[k] = s;
	}
}

static struct job *job_of(struct cluster *c, const struct task *t)
{
	return &c->w->jobs[t->job];
}

void cluster_start_task(struct cluster *c, struct task *t, int server)
{
	struct job *j = job_of(c, t);
	t->state = TASK_RUNNING;
	t->server = server;
	t->t_start = c->now;
	t->attempts++;
	c->servers[server].free--;
	if (t->kind == TASK_MAP)
		j->maps_running++;
	else
		j->reduces_running++;
	if (j->t_start < 0)
		j->t_start = c->now;
}

void cluster_finish_task(struct cluster *c, struct task *t)
{
	struct job *j = job_of(c, t);
	t->state = TASK_DONE;
	t->t_end = c->now;
	c->servers[t->server].free++;
	if (t->kind == TASK_MAP) {
		j->maps_running--;
		j->maps_done++;
	} else {
		j->reduces_running--;
		j->reduces_done++;
	}
	if (cluster_job_finished(j)) {
		j->t_end = c->now;
		c->running_jobs--;
	}
}

void cluster_requeue_task(struct cluster *c, struct task *t)
{
	struct job *j = job_of(c, t);
	bool was_finished = cluster_job_finished(j);
	if (t->state == TASK_RUNNING) {
		if (c->servers[t->server].alive)
			c->servers[t->server].free++;
		if (t->kind == TASK_MAP)
			j->maps_running--;
		else
			j->reduces_running--;
	} else if (t->state == TASK_DONE) {
		if (t->kind == TASK_MAP)
			j->maps_done--;
		else
			j->reduces_done--;
		if (was_finished)
			c->running_jobs++;
	}
	t->state = TASK_PENDING;
	t->server = -1;
}
