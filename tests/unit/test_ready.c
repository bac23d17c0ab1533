/* The ready index (emu/sched/ready.c) on a hand-made DAG: what each task's
 * own parents leave missing, what becomes ready as they end, its heaps'
 * order, and a build from the tasks' states agreeing with the updates. */
#include "emu/sched/ready.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* b reads a one-to-one, c both a and b (both must be done); d lists a's
 * tasks. */
static const char dag[] =
	"{\"jobs\": [{\"name\": \"dag\", \"input\": 1000, \"stages\": [\n"
	"  {\"name\": \"a\", \"tasks\": 3, \"work\": 1, \"output\": 1000},\n"
	"  {\"name\": \"b\", \"tasks\": 3, \"work\": 1, \"output\": 1000, \"parents\": {\"a\": \"one-to-one\"}},\n"
	"  {\"name\": \"c\", \"tasks\": 3, \"work\": 1, \"output\": 1000,\n"
	"   \"parents\": {\"a\": \"one-to-one\", \"b\": \"one-to-one\"}},\n"
	"  {\"name\": \"d\", \"tasks\": 2, \"work\": 1, \"output\": 1000, \"parents\": {\"a\": \"tasks\"},\n"
	"   \"task_parents\": [{\"a\": [2]}, {\"a\": [0, 1]}]}\n"
	"]}]}\n";
enum { A, B, C, D };

static void read_dag(struct workload *w)
{
	char path[] = "/tmp/emu-ready-XXXXXX", err[512];
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, dag, strlen(dag)), (ssize_t)strlen(dag));
	close(fd);
	struct workload_params wp;
	workload_params_default(&wp);
	int rc = workload_read(w, path, &wp, 0, err);
	unlink(path);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_eq(w->jobs[0].nstages, 4);
}

static void done(struct ready *r, struct workload *w, int st, int i)
{
	struct task *t = stage_task(w->tasks, &w->jobs[0], st, i);
	t->state = TASK_DONE;
	ready_task_done(r, w, &w->jobs[0], t);
}

static int top(const struct ready *r, const struct workload *w, int st)
{
	return r->hn[st] ? ready_heap(r, &w->jobs[0], st)[0] : -1;
}

Test(ready, a_task_is_ready_once_every_parent_of_its_own_is_done)
{
	struct workload w = {0};
	struct ready r = {0};
	read_dag(&w);
	const struct job *j = &w.jobs[0];
	cr_assert_eq(ready_build(&r, &w, j, NULL, NULL), 0);
	cr_assert(ready_current(&r, j));
	cr_assert(!r.per_task[A] && r.per_task[B] && r.per_task[C] && r.per_task[D]);
	cr_assert_eq(r.hn[B] + r.hn[C] + r.hn[D], 0, "nothing ready before a parent ends");
	done(&r, &w, A, 0);
	cr_assert_eq(r.hn[B], 1);
	cr_assert_eq(top(&r, &w, B), 0);
	cr_assert_eq(r.hn[C], 0, "c0 waits for b0 as well");
	done(&r, &w, B, 0);
	cr_assert_eq(r.hn[C], 1);
	cr_assert_eq(top(&r, &w, C), 0);
	done(&r, &w, A, 1);
	cr_assert_eq(top(&r, &w, D), 1, "d1 lists a0 and a1");
	stage_task(w.tasks, j, D, 0)->state = TASK_RUNNING;   /* started meanwhile: not pushed */
	done(&r, &w, A, 2);
	cr_assert_eq(r.hn[D], 1);
	done(&r, &w, B, 2);
	cr_assert_eq(r.hn[C], 2);
	cr_assert_eq(top(&r, &w, C), 0, "by index");
	ready_pop(&r, j, C);
	cr_assert_eq(top(&r, &w, C), 2);
	ready_free(&r);
	cr_assert_not(ready_current(&r, j));
	workload_free(&w);
}

/* Reversed task order; ctx counts the comparisons. */
static bool reversed(const void *ctx, const struct job *j, int st, int a, int b)
{
	(void)j;
	(void)st;
	++*(int *)ctx;
	return a > b;
}

Test(ready, a_build_from_the_states_orders_by_the_policy)
{
	struct workload w = {0};
	struct ready r = {0};
	int calls = 0;
	read_dag(&w);
	struct job *j = &w.jobs[0];
	for (int i = 0; i < 3; i++) {
		stage_task(w.tasks, j, A, i)->state = TASK_DONE;
		stage_task(w.tasks, j, B, i)->state = TASK_DONE;
	}
	stage_task(w.tasks, j, C, 1)->state = TASK_RUNNING;
	cr_assert_eq(ready_build(&r, &w, j, reversed, &calls), 0);
	cr_assert_gt(calls, 0, "the policy's order is asked");
	cr_assert_eq(r.hn[B], 0, "b is done");
	cr_assert_eq(r.hn[C], 2, "c1 runs");
	cr_assert_eq(r.hn[D], 2);
	int order[2];
	for (int i = 0; i < 2; i++) {
		order[i] = top(&r, &w, C);
		ready_pop(&r, j, C);
	}
	cr_assert_eq(order[0], 2);
	cr_assert_eq(order[1], 0);
	cr_assert_eq(top(&r, &w, D), 1);
	j->requeues++;
	cr_assert_not(ready_current(&r, j), "a requeue calls for a new build");
	ready_free(&r);
	workload_free(&w);
}

struct seen { int n, rel[16]; };

static void saw(void *ctx, const struct job *j, int rel)
{
	struct seen *s = ctx;
	(void)j;
	cr_assert_lt(s->n, 16);
	s->rel[s->n++] = rel;
}

Test(ready, counts_alone_call_once_as_each_pending_task_becomes_ready)
{
	struct workload w = {0};
	struct ready r = {0};
	struct seen s = {0};
	read_dag(&w);
	const struct job *j = &w.jobs[0];
	cr_assert_eq(ready_build_counts(&r, &w, j, saw, &s), 0);
	cr_assert(ready_current(&r, j));
	cr_assert_null(r.heap, "no heaps");
	cr_assert(ready_parents_done(&r, j, stage_task(w.tasks, j, A, 0)));
	cr_assert_not(ready_parents_done(&r, j, stage_task(w.tasks, j, C, 0)));
	done(&r, &w, A, 0);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.rel[0], stage_task(w.tasks, j, B, 0)->id - j->first_task, "b0, not c0 (it waits for b0)");
	done(&r, &w, B, 0);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.rel[1], stage_task(w.tasks, j, C, 0)->id - j->first_task);
	stage_task(w.tasks, j, D, 1)->state = TASK_RUNNING;   /* started meanwhile: no call */
	done(&r, &w, A, 1);
	cr_assert_eq(s.n, 3, "b1 only");
	cr_assert(ready_parents_done(&r, j, stage_task(w.tasks, j, D, 1)));
	ready_free(&r);
	workload_free(&w);
}
