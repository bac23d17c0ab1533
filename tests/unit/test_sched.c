/* Unit tests of the scheduler policies and the cluster bookkeeping, on
 * hand-made fixtures (no workload files, no network). */
#include "emu/sched.h"
#include "sched_fixture.h"
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* njobs jobs of `maps` maps and `reduces` reduces, submitted at 0, 1, 2 ... */
static struct workload *make_workload(int njobs, int maps, int reduces)
{
	struct workload *w = fx_workload_new(njobs);
	for (int j = 0; j < njobs; j++) {
		w->jobs[j].submit_s = j;
		w->jobs[j].nmaps = maps;
		w->jobs[j].nreduces = reduces;
	}
	fx_workload_layout(w);
	return w;
}

static struct cluster c;
static struct sched s;
static struct workload *w;

static void start(const char *policy, int racks, int per_rack, int containers, int njobs, int maps, int reduces,
		  double slowstart)
{
	w = make_workload(njobs, maps, reduces);
	fx_sched_start(&s, &c, w, policy, racks, per_rack, containers, slowstart, 1000);
}

static void stop(void)
{
	fx_sched_stop(&s, &c, w);
}

static void arrive_all(void)
{
	for (int j = 0; j < w->njobs; j++)
		cluster_job_arrive(&c, &w->jobs[j]);
}

/* Offer every free container once; start what the scheduler picks. */
static int offer_all(void)
{
	int started = 0;
	for (int sv = 0; sv < c.nservers; sv++)
		while (c.servers[sv].free > 0) {
			struct task *t = s.ops->offer(&s, sv);
			if (!t)
				break;
			cluster_start_task(&c, t, sv);
			started++;
		}
	return started;
}

Test(sched, registry_knows_the_baselines)
{
	cr_assert_not_null(sched_find("fifo"));
	cr_assert_not_null(sched_find("fair"));
	cr_assert_not_null(sched_find("delay"));
	cr_assert_null(sched_find("nonesuch"));
}

Test(sched, fair_gives_two_jobs_equal_containers)
{
	start("fair", 2, 4, 1, 2, 20, 0, 1.0);
	arrive_all();
	cr_assert_eq(offer_all(), 8);
	cr_assert_eq(w->jobs[0].maps_running, 4);
	cr_assert_eq(w->jobs[1].maps_running, 4);
	/* A freed container goes to the job below its share. */
	struct task *t0 = NULL;
	for (int i = 0; i < w->ntasks; i++)
		if (w->tasks[i].job == 1 && w->tasks[i].state == TASK_RUNNING) {
			t0 = &w->tasks[i];
			break;
		}
	int sv = t0->server;
	cluster_finish_task(&c, t0);
	struct task *next = s.ops->offer(&s, sv);
	cr_assert_not_null(next);
	cr_assert_eq(next->job, 1, "the freed slot must go to the job with fewer running tasks");
	stop();
}

Test(sched, fifo_serves_the_earliest_job_first)
{
	start("fifo", 1, 4, 1, 2, 10, 0, 1.0);
	arrive_all();
	cr_assert_eq(offer_all(), 4);
	cr_assert_eq(w->jobs[0].maps_running, 4);
	cr_assert_eq(w->jobs[1].maps_running, 0);
	stop();
}

Test(sched, reduces_wait_for_slowstart)
{
	start("fair", 1, 4, 1, 1, 4, 2, 0.5);
	arrive_all();
	cr_assert_eq(offer_all(), 4);
	struct job *j = &w->jobs[0];
	cr_assert_eq(j->reduces_running, 0);
	/* One map done (25% < 50%): its slot may not take a reduce yet. */
	struct task *m0 = job_map(w->tasks, j, 0);
	int sv = m0->server;
	cluster_finish_task(&c, m0);
	cr_assert_null(s.ops->offer(&s, sv));
	struct task *m1 = job_map(w->tasks, j, 1);
	cluster_finish_task(&c, m1);
	struct task *r = s.ops->offer(&s, sv);
	cr_assert_not_null(r);
	cr_assert_eq(r->kind, TASK_REDUCE);
	stop();
}

Test(sched, maps_prefer_node_local_input)
{
	start("fair", 2, 2, 1, 1, 4, 0, 1.0);
	struct job *j = &w->jobs[0];
	/* Map 3's only replica is on server 2. */
	job_map(w->tasks, j, 3)->replicas[0] = 2;
	arrive_all();
	struct task *t = s.ops->offer(&s, 2);
	cr_assert_eq(t->index, 3);
	cr_assert_eq(cluster_locality(&c, t, 2), LOCAL_NODE);
	cr_assert_eq(cluster_locality(&c, t, 3), LOCAL_RACK);
	cr_assert_eq(cluster_locality(&c, t, 0), LOCAL_NONE);
	stop();
}

Test(sched, delay_waits_for_a_local_slot_then_gives_up)
{
	start("delay", 2, 2, 1, 2, 2, 0, 1.0);
	struct job *a = &w->jobs[0], *b = &w->jobs[1];
	/* Job A's blocks live on server 3 (rack 1), job B's on servers 0 and 1 (rack 0). */
	for (int i = 0; i < 2; i++) {
		job_map(w->tasks, a, i)->replicas[0] = 3;
		job_map(w->tasks, b, i)->replicas[0] = i;
	}
	arrive_all();
	c.now = 10;
	/* Server 0 is not local for A: A skips, B (next in fair order) gets it. */
	struct task *t = s.ops->offer(&s, 0);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, b->id, "delay scheduling should skip the non-local job");
	cluster_start_task(&c, t, 0);
	/* Server 3 holds A's block: A launches node-locally at once. */
	t = s.ops->offer(&s, 3);
	cr_assert_eq(t->job, a->id);
	cr_assert_eq(cluster_locality(&c, t, 3), LOCAL_NODE);
	cluster_start_task(&c, t, 3);
	/* Server 2 is rack-local for A: still waiting (no time has passed). */
	cluster_finish_task(&c, job_map(w->tasks, b, 0));
	c.now = 10.5;
	t = s.ops->offer(&s, 2);
	cr_assert(t == NULL || t->job != a->id, "launched rack-local before the node wait");
	/* After the node wait, rack-local is acceptable. */
	c.now = 14;
	t = s.ops->offer(&s, 2);
	cr_assert_not_null(t);
	cr_assert_eq(t->job, a->id);
	stop();
}

Test(sched, requeue_restores_counters)
{
	start("fair", 1, 2, 2, 1, 2, 1, 0.0);
	arrive_all();
	cr_assert_eq(offer_all(), 3);
	struct job *j = &w->jobs[0];
	struct task *m = job_map(w->tasks, j, 0);
	cluster_finish_task(&c, m);
	cr_assert_eq(j->maps_done, 1);
	cluster_requeue_task(&c, m);   /* its output was lost */
	cr_assert_eq(j->maps_done, 0);
	cr_assert_eq(m->state, TASK_PENDING);
	int free_total = 0;
	for (int i = 0; i < c.nservers; i++)
		free_total += c.servers[i].free;
	cr_assert_eq(free_total, 4 - 2, "two tasks still hold containers");
	stop();
}

/* The walk of running reduces the shuffle pump makes finds exactly the
 * reduces running, in index order, through starts, ends, suspensions,
 * resumptions and requeues (jobs of 130 reduces: words shared by jobs). */
Test(sched, the_running_reduces_walk_finds_those_running)
{
	start("fair", 2, 4, 64, 3, 3, 130, 0.0);
	arrive_all();
	srand(11);
	for (int step = 0; step < 4000; step++) {
		struct task *t = &w->tasks[rand() % w->ntasks];
		int sv = rand() % c.nservers;
		switch (t->state) {
		case TASK_PENDING:
			if (cluster_task_fits(&c, t, sv))
				cluster_start_task(&c, t, sv);
			break;
		case TASK_RUNNING:
			switch (rand() % 3) {
			case 0: cluster_finish_task(&c, t); break;
			case 1: cluster_suspend_task(&c, t); break;
			default: cluster_requeue_task(&c, t); break;
			}
			break;
		case TASK_SUSPENDED:
			if (rand() % 2 && cluster_resume_fits(&c, t, t->server))
				cluster_resume_task(&c, t);
			else if (rand() % 2)
				cluster_requeue_task(&c, t);
			break;
		case TASK_DONE:
			if (rand() % 4 == 0)
				cluster_requeue_task(&c, t);
			break;
		}
		for (int jj = 0; jj < w->njobs; jj++) {
			struct job *j = &w->jobs[jj];
			int next = cluster_next_running_reduce(&c, j, 0);
			for (int i = 0; i < j->nreduces; i++) {
				bool running = job_reduce(w->tasks, j, i)->state == TASK_RUNNING;
				if (running) {
					cr_assert_eq(next, i, "step %d job %d: reduce %d runs", step, jj, i);
					next = cluster_next_running_reduce(&c, j, i + 1);
				}
			}
			cr_assert_eq(next, -1, "step %d job %d: no more run", step, jj);
		}
	}
	stop();
}

/* What cluster_best_map must answer: the first pending map in order that is
 * node-local, else rack-local, else the first pending one. */
static struct task *best_map_by_scan(struct job *j, int server, enum locality *loc)
{
	for (enum locality want = LOCAL_NODE;; want = want == LOCAL_NODE ? LOCAL_RACK : LOCAL_NONE) {
		for (int i = 0; i < j->nmaps; i++) {
			struct task *t = job_map(w->tasks, j, i);
			if (t->state == TASK_PENDING && (want == LOCAL_NONE || cluster_locality(&c, t, server) == want)) {
				*loc = cluster_locality(&c, t, server);
				return t;
			}
		}
		if (want == LOCAL_NONE)
			return NULL;
	}
}

/* The map index's cursors, through starts, ends and requeues (a requeued
 * map moves them back to it): the map a scan would pick. */
Test(sched, the_best_map_after_requeues_is_the_scans)
{
	start("fair", 3, 4, 8, 2, 60, 0, 0.0);
	arrive_all();
	srand(5);
	for (int i = 0; i < w->ntasks; i++)
		for (int k = 0; k < 3; k++)
			w->tasks[i].replicas[k] = rand() % c.nservers;
	for (int step = 0; step < 3000; step++) {
		struct task *t = &w->tasks[rand() % w->ntasks];
		int sv = rand() % c.nservers;
		if (t->state == TASK_PENDING && rand() % 2)
			cluster_start_task(&c, t, sv);
		else if (t->state == TASK_RUNNING)
			rand() % 2 ? cluster_finish_task(&c, t) : cluster_requeue_task(&c, t);
		else if (t->state == TASK_DONE && rand() % 3 == 0)
			cluster_requeue_task(&c, t);
		struct job *j = &w->jobs[rand() % w->njobs];
		enum locality got, want = LOCAL_NONE;
		struct task *b = cluster_best_map(&c, j, sv, &got), *s = best_map_by_scan(j, sv, &want);
		cr_assert_eq(b, s, "step %d: map %d, the scan's %d", step, b ? b->index : -1, s ? s->index : -1);
		cr_assert_eq(got, want, "step %d", step);
	}
	stop();
}

Test(sched, default_placement_spreads_replicas_over_two_racks)
{
	start("fair", 4, 5, 1, 1, 1, 0, 1.0);
	struct rng r = {42};
	for (int k = 0; k < 1000; k++) {
		int rep[3];
		placement_default(&c, &r, rep);
		cr_assert(rep[0] >= 0 && rep[1] >= 0 && rep[2] >= 0);
		cr_assert(rep[0] != rep[1] && rep[1] != rep[2] && rep[0] != rep[2]);
		int ra = rep[0] / 5, rb = rep[1] / 5;
		cr_assert_neq(ra, rb, "first replica shares a rack with the others");
		cr_assert_eq(rep[2] / 5, rb, "second and third replicas on one rack");
	}
	stop();
}

Test(sched, circuit_eligibility_default)
{
	start("fair", 2, 2, 1, 1, 1, 1, 0.0);
	struct task *red = job_reduce(w->tasks, &w->jobs[0], 0);
	red->server = 0;
	cr_assert(sched_circuit_eligible(&s, red, 2, 1001), "cross-rack elephant");
	cr_assert(!sched_circuit_eligible(&s, red, 2, 1000), "threshold is 'larger than'");
	cr_assert(!sched_circuit_eligible(&s, red, 1, 5000), "same rack never uses a circuit");
	stop();
}
