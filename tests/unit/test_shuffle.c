/* The shuffle (emu/shuffle.c) on a hand-made run: a reduce is sent each
 * finished output once, also when an output is lost and its task re-run
 * (listed again): a reduce that had requested it does not fetch it again,
 * one that had not (or was reset) fetches it once. */
#include "emu/run_int.h"
#include "sched_fixture.h"
#include <criterion/criterion.h>

enum { MAPS = 4, REDUCES = 3 };

/* What each reduce was sent: bytes by holder, and transfers. */
static uint64_t got[REDUCES][4];
static int nsent[REDUCES];

static void fetch(struct run *r, struct task *reduce, const struct xfer *xs, int n, bool final)
{
	(void)r;
	(void)final;
	for (int i = 0; i < n; i++) {
		got[reduce->index][xs[i].src] += xs[i].bytes;
		nsent[reduce->index]++;
	}
}

static double now(const struct run *r)
{
	(void)r;
	return 1;
}

static const struct backend_ops stub = {.name = "stub", .now = now, .fetch = fetch};

static struct run r;
static struct workload *w;

static void finish(struct task *t, int server)
{
	cluster_start_task(&r.c, t, server);
	cluster_finish_task(&r.c, t);
	shuffle_output_done(&r, t);
}

static void pump(void)
{
	memset(got, 0, sizeof got);
	memset(nsent, 0, sizeof nsent);
	shuffle_pump(&r, &w->jobs[0]);
}

Test(shuffle, a_lost_output_is_fetched_again_only_by_who_lacks_it)
{
	w = fx_workload_new(1);
	w->jobs[0].nmaps = MAPS;
	w->jobs[0].nreduces = REDUCES;
	fx_workload_layout(w);
	struct job *j = &w->jobs[0];
	for (int m = 0; m < MAPS; m++)
		job_map(w->tasks, j, m)->output_bytes = 3000 * (m + 1);   /* 1000 (m+1) to each reduce */
	r = (struct run){.w = w, .be = &stub};
	cr_assert_eq(cluster_init(&r.c, 2, 2, 4, w, 0), 0);
	cluster_job_arrive(&r.c, j);
	struct sched_params sp = {.seed = 1};
	cr_assert_eq(sched_init(&r.s, sched_find("fifo"), &r.c, &sp), 0);
	int ns = r.c.nservers;
	r.requested = calloc(1, sizeof *r.requested);
	r.done_maps = calloc(1, sizeof *r.done_maps);
	r.cursor = calloc(w->ntasks, sizeof *r.cursor);
	r.final_sent = calloc(w->ntasks, sizeof *r.final_sent);
	r.attempt_fetched = calloc(w->ntasks, sizeof *r.attempt_fetched);
	r.scratch_bytes = calloc(ns, sizeof *r.scratch_bytes);
	r.scratch_holders = calloc(ns, sizeof *r.scratch_holders);
	r.scratch_seen = calloc(ns, sizeof *r.scratch_seen);
	r.scratch_xfers = calloc(ns, sizeof *r.scratch_xfers);

	struct task *red[REDUCES];
	for (int i = 0; i < REDUCES; i++)
		red[i] = job_reduce(w->tasks, j, i);
	cluster_start_task(&r.c, red[0], 3);
	cluster_start_task(&r.c, red[1], 3);
	/* maps 0..3 on servers 0, 1, 2, 0; each reduce fetches 1000 (m+1) of map m */
	int on[MAPS] = {0, 1, 2, 0};
	for (int m = 0; m < MAPS; m++)
		finish(job_map(w->tasks, j, m), on[m]);
	pump();
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(got[i][0], 1000 + 4000, "reduce %d from server 0", i);
		cr_assert_eq(got[i][1], 2000);
		cr_assert_eq(got[i][2], 3000);
	}
	cr_assert_eq(nsent[2], 0, "reduce 2 does not run");

	/* Server 1's output (map 1) is lost; reduce 1 is reset (killed); map 1
	 * runs again on server 2; reduce 2 starts only now. */
	struct task *lost = job_map(w->tasks, j, 1);
	shuffle_output_lost(&r, lost);
	cluster_requeue_task(&r.c, lost);
	shuffle_reset_reduce(&r, red[1]);
	finish(lost, 2);
	cluster_start_task(&r.c, red[2], 3);
	pump();
	cr_assert_eq(nsent[0], 0, "reduce 0 has map 1's output already");
	for (int i = 1; i < 3; i++) {
		cr_assert_eq(got[i][0], 1000 + 4000, "reduce %d from server 0", i);
		cr_assert_eq(got[i][1], 0, "reduce %d: server 1 lost it", i);
		cr_assert_eq(got[i][2], 2000 + 3000, "reduce %d: map 1 once, and map 2", i);
	}

	/* Map 3 is re-run too (no loss: a duplicate listing): no one fetches it twice. */
	struct task *again = job_map(w->tasks, j, 3);
	shuffle_output_lost(&r, again);
	cluster_requeue_task(&r.c, again);
	finish(again, 1);
	pump();
	for (int i = 0; i < 3; i++)
		cr_assert_eq(nsent[i], 0, "reduce %d had map 3's output", i);

	xfer_flush(&r);
	sched_destroy(&r.s);
	cluster_free(&r.c);
	free(r.requested[0]);
	free(r.requested);
	free(r.done_maps[0].map);
	free(r.done_maps[0].on_rack);
	free(r.done_maps);
	free(r.cursor);
	free(r.final_sent);
	free(r.attempt_fetched);
	free(r.scratch_bytes);
	free(r.scratch_holders);
	free(r.scratch_seen);
	free(r.scratch_xfers);
	fx_workload_free(w);
}
