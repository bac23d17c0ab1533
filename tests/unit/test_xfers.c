/* The in-flight transfer store (emu/xfers.c): ids are handed out in
 * sequence, finished ones without a page. */
#include "emu/run_int.h"
#include <criterion/criterion.h>

/* Thousands of transfers recorded finished (node-local fetches) move the
 * next id many pages past the table's size: the table must grow to it. */
Test(xfers, a_live_transfer_after_many_finished_ones_gets_its_page)
{
	struct server servers[2] = {{.id = 0, .rack = 0}, {.id = 1, .rack = 0}};
	struct task tasks[1] = {{.id = 0, .job = 0}};
	struct workload w = {.njobs = 1, .tasks = tasks, .ntasks = 1};
	struct run r = {.w = &w};
	r.c.servers = servers;
	const int done = 64 * 64 * 5;   /* five times the table's first size in ids */
	for (int i = 0; i < done; i++)
		cr_assert_eq(xfer_new(&r, &(struct xfer_rec){.job = 0, .task = 0, .src = 0, .dst = 0, .bytes = 10,
							   .local = true, .done = true, .t_end = 1}), i);
	int id = xfer_new(&r, &(struct xfer_rec){.job = 0, .task = 0, .src = 0, .dst = 1, .bytes = 7, .t_moved = -1});
	cr_assert_eq(id, done);
	xfer_finish(&r, id, 7, 2.0);
	cr_assert_eq(r.totals.shuffle_local, 10ull * done);
	cr_assert_eq(r.totals.shuffle_net, 7);
	xfer_flush(&r);
}
