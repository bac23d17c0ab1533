/* The indexes the DSP baselines' offers read (emu/sched/fit_index.c,
 * key_sort.c, ready_set.c): the first entry that fits, as a scan in order
 * finds it; a linear sort in the comparison sort's order; runnable and
 * startable from the counts, as the cluster says them. */
#include "emu/cluster.h"
#include "emu/sched/fit_index.h"
#include "emu/sched/key_sort.h"
#include "emu/sched/ready_set.h"
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct res r2(int64_t cores, int64_t mem) { return (struct res){{cores, mem, 0}}; }

struct probe { int calls, accept; bool *gone; struct fit_index *f; };

/* Accepts entry `accept` (or any, -1); removes the entries marked gone. */
static bool check(void *ctx, int i)
{
	struct probe *p = ctx;
	p->calls++;
	if (p->gone && p->gone[i]) {
		fit_index_remove(p->f, i);
		return false;
	}
	return p->accept < 0 || p->accept == i;
}

Test(sched_index, fit_index_finds_the_first_entry_that_fits)
{
	struct res ask[5] = {r2(4000, 8), r2(1000, 16), r2(2000, 2), r2(500, 1), r2(3000, 4)};
	struct fit_index f = {0};
	cr_assert_eq(fit_index_build(&f, 5, ask), 0);
	struct probe p = {.accept = -1, .f = &f};
	struct res avail = r2(2500, 4);
	cr_assert_eq(fit_index_first(&f, 0, &avail, check, &p), 2, "0 and 1 ask too much");
	cr_assert_eq(p.calls, 1, "an entry that cannot fit is not checked");
	avail = r2(5000, 100);
	cr_assert_eq(fit_index_first(&f, 0, &avail, check, &p), 0);
	p.accept = 3;
	p.calls = 0;
	avail = r2(3000, 4);
	cr_assert_eq(fit_index_first(&f, 0, &avail, check, &p), 3, "the policy's test rejects 2");
	cr_assert_eq(p.calls, 2, "2 and 3 are checked, 0, 1 and 4 are not (4 comes after)");
	bool gone[5] = {false, false, true, false, false};
	p.gone = gone;
	p.accept = 4;
	cr_assert_eq(fit_index_first(&f, 0, &avail, check, &p), 4);
	p.calls = 0;
	p.gone = NULL;
	p.accept = -1;
	cr_assert_eq(fit_index_first(&f, 0, &avail, check, &p), 3, "2 is removed");
	cr_assert_eq(p.calls, 1);
	fit_index_put(&f, 2, &ask[2]);
	cr_assert_eq(fit_index_first(&f, 0, &avail, check, &p), 2, "and put back");
	cr_assert_eq(fit_index_first(&f, 3, &avail, check, &p), 3, "from 3 on");
	fit_index_remove(&f, 1);
	cr_assert_eq(fit_index_next(&f, 1), 2, "1 is removed");
	cr_assert_eq(fit_index_next(&f, 0), 0);
	cr_assert_eq(fit_index_next(&f, 5), -1);
	avail = r2(400, 100);
	cr_assert_eq(fit_index_first(&f, 0, &avail, check, &p), -1);
	fit_index_free(&f);
}

/* by_key_desc of srpt.c: key descending, then id ascending. */
static int desc_cmp(const void *a, const void *b, void *arg)
{
	const double *k = arg;
	double x = k[*(const int *)a], y = k[*(const int *)b];
	return x != y ? (x > y ? -1 : 1) : (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

Test(sched_index, key_sort_orders_as_the_comparison_sort)
{
	enum { N = 5000 };
	static double key[N];
	static int a[N], b[N];
	srand(7);
	for (int i = 0; i < N; i++) {
		key[i] = (rand() % 200 - 100) * 0.25;   /* many ties, negatives */
		if (i % 97 == 0)
			key[i] = i % 2 ? -0.0 : 0.0;
		if (i % 501 == 0)
			key[i] = 1e300 * (i % 2 ? -1 : 1);
		a[i] = b[i] = i;
	}
	qsort_r(a, N, sizeof *a, desc_cmp, key);
	cr_assert_eq(key_sort(b, N, key, true), 0);
	cr_assert_eq(memcmp(a, b, sizeof a), 0, "descending, ties in id order");
	for (int i = 0; i < N; i++)
		b[i] = i;
	cr_assert_eq(key_sort(b, N, key, false), 0);
	for (int i = 1; i < N; i++) {
		cr_assert_leq(key[b[i - 1]], key[b[i]]);
		if (key[b[i - 1]] == key[b[i]])
			cr_assert_lt(b[i - 1], b[i], "stable");
	}
	int one[1] = {3};
	cr_assert_eq(key_sort(one, 1, key, true), 0);
	cr_assert_eq(one[0], 3);
}

static int asc(const void *a, const void *b, void *arg)
{
	const double *k = arg;
	double x = k[*(const int *)a], y = k[*(const int *)b];
	return x != y ? (x < y ? -1 : 1) : (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Heartbeats of a waiting set: ids come and go, most keys move together,
 * some jump, many tie; each call's result is the comparison sort's. */
Test(sched_index, key_resort_orders_as_the_comparison_sort)
{
	enum { N = 3000, ROUNDS = 40 };
	static double key[N];
	static int ids[N], want[N];
	struct key_order o = {0};
	srand(11);
	for (int i = 0; i < N; i++)
		key[i] = (rand() % 300) * 0.5;
	for (int round = 0; round < ROUNDS; round++) {
		bool desc = round % 5 != 4;
		int n = 0;
		for (int i = 0; i < N; i++) {
			key[i] += 0.25;                   /* all move together */
			if (rand() % 50 == 0)
				key[i] = (rand() % 300) * 0.5;   /* and some jump */
			if (rand() % 10)                  /* most stay in the set */
				ids[n++] = i;
		}
		memcpy(want, ids, n * sizeof *ids);
		qsort_r(want, n, sizeof *want, desc ? desc_cmp : asc, key);
		cr_assert_eq(key_resort(&o, ids, n, key, desc, N), 0);
		cr_assert_eq(memcmp(ids, want, n * sizeof *ids), 0, "round %d", round);
	}
	key_order_free(&o);
}

/* b reads a one-to-one; c lists a's tasks and reads b by a shuffle (its
 * slowstart share of b done). */
static const char dag[] =
	"{\"jobs\": [{\"name\": \"dag\", \"input\": 1000, \"stages\": [\n"
	"  {\"name\": \"a\", \"tasks\": 3, \"work\": 1, \"output\": 1000},\n"
	"  {\"name\": \"b\", \"tasks\": 3, \"work\": 1, \"output\": 1000, \"parents\": {\"a\": \"one-to-one\"}},\n"
	"  {\"name\": \"c\", \"tasks\": 2, \"work\": 1, \"output\": 1000,\n"
	"   \"parents\": {\"a\": \"tasks\", \"b\": \"shuffle\"},\n"
	"   \"task_parents\": [{\"a\": [2]}, {\"a\": [0, 1]}]}\n"
	"]}]}\n";

static void agree(struct ready_set *rs, struct cluster *c)
{
	for (int i = 0; i < c->w->ntasks; i++) {
		const struct task *t = &c->w->tasks[i];
		cr_assert_eq(ready_set_runnable(rs, t), cluster_task_runnable(c, t), "task %d", i);
		cr_assert_eq(ready_set_startable(rs, t), cluster_task_startable(c, t), "task %d", i);
		cr_assert_eq(ready_set_deps_done(rs, t), cluster_task_deps_done(c, t), "task %d", i);
	}
}

Test(sched_index, ready_set_says_what_the_cluster_says)
{
	char path[] = "/tmp/emu-sidx-XXXXXX", err[512];
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, dag, strlen(dag)), (ssize_t)strlen(dag));
	close(fd);
	struct workload w = {0};
	struct workload_params wp;
	workload_params_default(&wp);
	int rc = workload_read(&w, path, &wp, 0, err);
	unlink(path);
	cr_assert_eq(rc, 0, "%s", err);
	struct cluster c;
	cr_assert_eq(cluster_init(&c, 1, 2, 4, &w, 1.0), 0);
	struct ready_set rs;
	cr_assert_eq(ready_set_init(&rs, &c), 0);
	struct job *j = &w.jobs[0];
	agree(&rs, &c);   /* not arrived: nothing may start */
	c.arrived[0] = true;
	agree(&rs, &c);
	cr_assert(ready_set_runnable(&rs, stage_task(w.tasks, j, 0, 0)));
	cr_assert_not(ready_set_runnable(&rs, stage_task(w.tasks, j, 1, 0)));
	c.ignore_deps = true;
	agree(&rs, &c);
	cr_assert(ready_set_startable(&rs, stage_task(w.tasks, j, 2, 0)), "ignoring dependencies");
	c.deps_barred = true;
	agree(&rs, &c);
	/* a's tasks end one by one, then b's; c waits for a2, then for b's shuffle */
	int order[][2] = {{0, 2}, {0, 0}, {1, 0}, {0, 1}, {1, 1}, {1, 2}};
	for (int k = 0; k < 6; k++) {
		struct task *t = stage_task(w.tasks, j, order[k][0], order[k][1]);
		cluster_start_task(&c, t, 0);
		agree(&rs, &c);
		cluster_finish_task(&c, t);
		ready_set_task_done(&rs, t);
		agree(&rs, &c);
	}
	cr_assert(ready_set_runnable(&rs, stage_task(w.tasks, j, 2, 0)));
	cr_assert(ready_set_runnable(&rs, stage_task(w.tasks, j, 2, 1)));
	ready_set_free(&rs);
	cluster_free(&c);
	workload_free(&w);
}
