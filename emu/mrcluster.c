/* mrcluster.c — logical MapReduce clusters (see mrcluster.h). */
#include "emu/mrcluster.h"
#include "emu/sched/fair.h"
#include <stdlib.h>
#include <string.h>

int mrc_init(struct mrc *m, struct cluster *c, int k, int core, int map_slots, int reduce_slots)
{
	memset(m, 0, sizeof *m);
	m->c = c;
	m->k = k;
	m->map_slots = map_slots;
	m->reduce_slots = reduce_slots;
	if (k < 1 || core < 1 || (long)k * core > c->nservers)
		return -1;
	m->room = 64;
	m->node = calloc(c->nservers, sizeof *m->node);
	m->size = calloc(k, sizeof *m->size);
	m->stored = calloc(k, sizeof *m->stored);
	m->victims = malloc(m->room * sizeof *m->victims);
	if (!m->node || !m->size || !m->stored || !m->victims)
		return -1;
	for (int s = 0; s < c->nservers; s++) {
		m->node[s].owner = s < k * core ? s / core : -1;
		m->node[s].role = s < k * core ? MRC_CORE : MRC_FREE;
		m->node[s].copy = -1;
		if (s < k * core)
			m->size[s / core]++;
	}
	return 0;
}

void mrc_free(struct mrc *m)
{
	free(m->node);
	free(m->size);
	free(m->stored);
	free(m->victims);
}

int mrc_of_job(const struct mrc *m, const struct job *j)
{
	return j->cluster >= 1 && j->cluster <= m->k ? j->cluster - 1 : 0;
}

int mrc_count(const struct mrc *m, int i, enum mrc_role role)
{
	int n = 0;
	for (int s = 0; s < m->c->nservers; s++)
		n += m->node[s].owner == i && m->node[s].role == role;
	return n;
}

void mrc_place_input(struct mrc *m, struct rng *r, const struct job *j, int replicas[3])
{
	int i = mrc_of_job(m, j), core[3], n = 0, seen = 0;
	replicas[0] = replicas[1] = replicas[2] = -1;
	/* Reservoir sampling of 3 of the cluster's core servers. */
	for (int s = 0; s < m->c->nservers; s++) {
		if (m->node[s].owner != i || m->node[s].role != MRC_CORE)
			continue;
		seen++;
		if (n < 3)
			core[n++] = s;
		else if (rng_below(r, seen) < 3)
			core[rng_below(r, 3)] = s;
	}
	for (int q = 0; q < n; q++)
		replicas[q] = core[q];
}

/* Drops from server s's list the tasks no longer running there. */
static void prune(struct mrc *m, int s)
{
	struct mrc_node *n = &m->node[s];
	int w = 0;
	for (int q = 0; q < n->nrun; q++) {
		const struct task *t = &m->c->w->tasks[n->run[q]];
		if (t->state == TASK_RUNNING && t->server == s)
			n->run[w++] = n->run[q];
	}
	n->nrun = w;
}

void mrc_running(struct mrc *m, int server, int *maps, int *reduces)
{
	prune(m, server);
	*maps = *reduces = 0;
	for (int q = 0; q < m->node[server].nrun; q++)
		(m->c->w->tasks[m->node[server].run[q]].kind == TASK_MAP ? maps : reduces)[0]++;
}

/* Fair's filter: a job of the cluster with a pending task of a kind the server has a slot for. */
struct want { struct mrc *m; int owner; bool maps, reduces; };

static bool wanted(void *ctx, const struct job *j)
{
	const struct want *w = ctx;
	return mrc_of_job(w->m, j) == w->owner && ((w->maps && cluster_pending_maps(w->m->c, j)) ||
						      (w->reduces && cluster_pending_reduces(w->m->c, j)));
}

struct task *mrc_offer(struct mrc *m, struct sched *s, int server)
{
	struct mrc_node *n = &m->node[server];
	if (n->owner < 0 || n->leaving)
		return NULL;
	int maps, reduces;
	mrc_running(m, server, &maps, &reduces);
	struct want w = {m, n->owner, maps < m->map_slots, reduces < m->reduce_slots};
	struct job *j = (w.maps || w.reduces) && n->nrun < MRC_MAX_RUN ? fair_pick_in(s, wanted, &w) : NULL;
	if (!j)
		return NULL;
	struct task *t;
	if (w.maps && w.reduces)
		t = sched_job_task(s, j, server);
	else if (w.maps)
		t = cluster_best_map(m->c, j, server, NULL);
	else
		t = cluster_next_reduce_on(m->c, j, server);
	if (t && t->state == TASK_PENDING && cluster_task_startable(m->c, t) && cluster_task_fits(m->c, t, server))
		n->run[n->nrun++] = t->id;   /* the runtime starts it now */
	return t;
}

/* A core server of cluster i (the one storing least), or -1. */
static int core_of(const struct mrc *m, int i)
{
	int best = -1;
	for (int s = 0; s < m->c->nservers; s++)
		if (m->node[s].owner == i && m->node[s].role == MRC_CORE &&
		    (best < 0 || m->node[s].stored < m->node[best].stored))
			best = s;
	return best;
}

int mrc_output_server(const struct mrc *m, const struct task *t)
{
	int s = t->server;
	if (s < 0 || m->node[s].owner < 0 || m->node[s].role != MRC_TR)
		return s;
	int i = m->node[s].owner, n = 0;
	for (int x = 0; x < m->c->nservers; x++)
		n += m->node[x].owner == i && m->node[x].role == MRC_CORE;
	for (int x = 0, k = n ? t->id % n : 0; n && x < m->c->nservers; x++)
		if (m->node[x].owner == i && m->node[x].role == MRC_CORE && !k--)
			return x;
	return s;
}

void mrc_task_done(struct mrc *m, const struct task *t)
{
	const struct job *j = &m->c->w->jobs[t->job];
	int s = t->server;
	if (j->stages[t->stage].has_children || s < 0 || m->node[s].owner < 0)
		return;   /* intermediate data is scratch, not HDFS */
	int i = m->node[s].owner;
	s = mrc_output_server(m, t);
	m->node[s].stored += t->output_bytes;
	m->stored[i] += t->output_bytes;
}

void mrc_grow(struct mrc *m, int server, int i, enum mrc_role role)
{
	struct mrc_node *n = &m->node[server];
	if (n->owner >= 0 || i < 0 || i >= m->k)
		return;
	*n = (struct mrc_node){.owner = i, .role = role, .copy = -1, .joined = m->c->now};
	m->size[i]++;
	m->grows++;
}

static void release(struct mrc *m, int server)
{
	struct mrc_node *n = &m->node[server];
	*n = (struct mrc_node){.owner = -1, .role = MRC_FREE, .copy = -1};
}

void mrc_leave(struct mrc *m, int server, enum mrc_leave how)
{
	struct mrc_node *n = &m->node[server];
	if (n->owner < 0 || n->leaving)
		return;
	m->size[n->owner]--;
	m->leaves++;
	if (how == MRC_DECOMMISSION) {
		n->leaving = true;
		return;
	}
	prune(m, server);
	for (int q = 0; q < n->nrun; q++) {
		if (m->nvictims == m->room) {
			int *v = realloc(m->victims, 2 * m->room * sizeof *v);
			if (!v)
				break;
			m->victims = v;
			m->room *= 2;
		}
		m->victims[m->nvictims++] = n->run[q];
	}
	/* Blocks it stored (a TR server stores none) are given up: a kill is
	 * instant preemption, with nothing to save. */
	m->stored[n->owner] -= n->stored;
	release(m, server);
}

void mrc_tick(struct mrc *m)
{
	for (int s = 0; s < m->c->nservers; s++) {
		struct mrc_node *n = &m->node[s];
		if (!n->leaving)
			continue;
		if (!n->emptied) {
			prune(m, s);
			if (n->nrun)
				continue;
			/* Empty: its blocks go to the core server of its
			 * cluster storing least, off its disk onto that one's. */
			n->emptied = true;
			m->rereplicated += n->stored;
			int to = core_of(m, n->owner);
			if (to >= 0 && to != s) {
				m->node[to].stored += n->stored;
				if (n->stored)
					n->copy = cluster_copy(m->c, s, to, n->stored);
			} else {
				m->stored[n->owner] -= n->stored;
			}
		}
		if (n->copy < 0 || cluster_copy_done(m->c, n->copy))
			release(m, s);
	}
}

int mrc_victims(struct mrc *m, struct preemption *out, int max)
{
	int n = 0, q = 0;
	for (; q < m->nvictims && n < max; q++) {
		struct task *t = &m->c->w->tasks[m->victims[q]];
		if (t->state == TASK_RUNNING)
			out[n++] = (struct preemption){t, PREEMPT_KILL};
	}
	memmove(m->victims, m->victims + q, (m->nvictims - q) * sizeof *m->victims);
	m->nvictims -= q;
	m->kills += n;
	return n;
}
