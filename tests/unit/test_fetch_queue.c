/* The simulator's indexed fetch queue (emu/fetch_queue.h) makes the choices
 * of the copiers' rule (emu/copiers.h) on the same queue, in the same order:
 * random appends and takes, with holders busy and circuits dark at random. */
#include "emu/fetch_queue.h"
#include <criterion/criterion.h>
#include <stdlib.h>

#define HOLDERS 12

/* As the simulator's rules: movable by (holder, flag), busy by holder. */
struct world { bool dark[HOLDERS], busy[HOLDERS]; };

static bool movable(const struct xfer *x, void *arg) { return !x->circuit || !((struct world *)arg)->dark[x->src]; }
static bool holder_busy(int src, void *arg) { return ((struct world *)arg)->busy[src]; }

Test(fetch_queue, takes_what_the_copiers_rule_takes)
{
	enum { N = 20000 };
	static struct xfer flat[N];
	int nflat = 0, head = 0, next_id = 0;
	struct fetch_queue q = {0};
	struct world w = {0};
	struct copier_rules rules = {movable, holder_busy, &w};
	srand(44);
	int taken = 0;
	while (next_id < N) {
		for (int h = 0; h < HOLDERS; h++) {
			w.dark[h] = rand() % 3 == 0;
			w.busy[h] = rand() % 4 == 0;
		}
		/* a pump: a few holders' new outputs, then a few fetches */
		for (int k = rand() % 40; k > 0 && next_id < N; k--) {
			int src = rand() % HOLDERS;
			struct xfer x = {.id = next_id++, .src = src, .bytes = (uint64_t)rand(), .circuit = rand() % 4 == 0,
					 .src_rack = src / 4, .dst_rack = 1};
			flat[nflat++] = x;
			cr_assert_eq(fq_push(&q, &x, x.id * 0.5), 0);
		}
		for (int k = rand() % 8; k > 0; k--) {
			struct xfer want[FETCH_MAX_XFERS], got[FETCH_MAX_XFERS];
			double t_start[FETCH_MAX_XFERS];
			int nw = copiers_take(flat, &head, nflat, &rules, want);
			int ng = fq_take(&q, &rules, got, t_start);
			cr_assert_eq(ng, nw, "fetch %d: %d transfers, the rule takes %d", taken, ng, nw);
			for (int i = 0; i < nw; i++) {
				cr_assert_eq(got[i].id, want[i].id, "fetch %d, transfer %d", taken, i);
				cr_assert_eq(got[i].src, want[i].src);
				cr_assert_eq(got[i].bytes, want[i].bytes);
				cr_assert_eq(got[i].circuit, want[i].circuit);
				cr_assert_eq(got[i].src_rack, -1, "the queue keeps no racks");
				cr_assert_eq(t_start[i], want[i].id * 0.5, "each keeps its own request time");
			}
			taken++;
			cr_assert_eq(fq_len(&q), nflat - head);
		}
	}
	cr_assert_gt(taken, 1000);
	fq_free(&q);
}

static void add_bytes(const struct xfer *x, double t_start, void *arg)
{
	cr_assert_eq(t_start, x->id + 0.25);
	*(uint64_t *)arg += x->bytes;
}

Test(fetch_queue, each_visits_what_was_not_taken)
{
	struct fetch_queue q = {0};
	struct world w = {0};
	struct copier_rules rules = {movable, holder_busy, &w};
	for (int i = 0; i < 30; i++)
		fq_push(&q, &(struct xfer){.id = i, .src = i % 3, .bytes = 1ULL << i}, i + 0.25);
	struct xfer out[FETCH_MAX_XFERS];
	double t_start[FETCH_MAX_XFERS];
	cr_assert_eq(fq_take(&q, &rules, out, t_start), 10, "holder 0's ten");
	uint64_t sum = 0;
	fq_each(&q, add_bytes, &sum);
	uint64_t want = 0;
	for (int i = 0; i < 30; i++)
		want += i % 3 ? 1ULL << i : 0;
	cr_assert_eq(sum, want);
	fq_free(&q);
	cr_assert_eq(fq_len(&q), 0);
}
