/* A reduce's next fetch (emu/copiers.h): Hadoop's rule of one busy host per
 * fetch and all of its known outputs at once, as the agents and the
 * simulator apply it. */
#include "emu/copiers.h"
#include <criterion/criterion.h>

struct state { int busy_src; int dark_id; };

static bool movable(const struct xfer *x, void *arg) { return x->id != ((struct state *)arg)->dark_id; }
static bool holder_busy(int src, void *arg) { return src == ((struct state *)arg)->busy_src; }

static struct xfer X(int id, int src, bool circuit) { return (struct xfer){.id = id, .src = src, .bytes = 100, .circuit = circuit}; }

Test(copiers, a_fetch_takes_every_movable_transfer_of_its_holder_sent_the_same_way)
{
	/* holder 7: ids 0, 2, 5 on the circuit, 3 not; holder 8: 1; holder 9: 4 */
	struct xfer q[] = {X(0, 7, true), X(1, 8, true), X(2, 7, true), X(3, 7, false), X(4, 9, true), X(5, 7, true)};
	struct state st = {.busy_src = -1, .dark_id = -1};
	struct copier_rules rules = {movable, holder_busy, &st};
	struct xfer out[FETCH_MAX_XFERS];
	int qhead = 0;
	cr_assert_eq(copiers_take(q, &qhead, 6, &rules, out), 3);
	cr_assert_eq(out[0].id, 0);
	cr_assert_eq(out[1].id, 2);
	cr_assert_eq(out[2].id, 5);
	/* the rest keep their order after the queue's new head */
	cr_assert_eq(qhead, 3);
	cr_assert_eq(q[3].id, 1);
	cr_assert_eq(q[4].id, 3);
	cr_assert_eq(q[5].id, 4);
	/* holder 7 is busy now: the next fetch is holder 8's */
	st.busy_src = 7;
	cr_assert_eq(copiers_take(q, &qhead, 6, &rules, out), 1);
	cr_assert_eq(out[0].id, 1);
	cr_assert_eq(copiers_take(q, &qhead, 6, &rules, out), 1);
	cr_assert_eq(out[0].id, 4);
	cr_assert_eq(copiers_take(q, &qhead, 6, &rules, out), 0, "holder 7's EPS transfer waits while 7 is busy");
	cr_assert_eq(qhead, 5);
	st.busy_src = -1;
	cr_assert_eq(copiers_take(q, &qhead, 6, &rules, out), 1);
	cr_assert_eq(out[0].id, 3);
	cr_assert_eq(qhead, 6);
}

Test(copiers, a_transfer_held_for_a_dark_circuit_stays_queued)
{
	struct xfer q[] = {X(0, 7, true), X(1, 7, true), X(2, 8, true)};
	struct state st = {.busy_src = -1, .dark_id = 0};
	struct copier_rules rules = {movable, holder_busy, &st};
	struct xfer out[FETCH_MAX_XFERS];
	int qhead = 0;
	cr_assert_eq(copiers_take(q, &qhead, 3, &rules, out), 1);
	cr_assert_eq(out[0].id, 1, "the oldest movable one starts, without its held sibling");
	cr_assert_eq(q[qhead].id, 0);
	cr_assert_eq(q[qhead + 1].id, 2);
}

Test(copiers, a_fetch_takes_at_most_hadoops_twenty)
{
	struct xfer q[FETCH_MAX_XFERS + 5];
	for (int i = 0; i < FETCH_MAX_XFERS + 5; i++)
		q[i] = X(i, 3, false);
	struct state st = {.busy_src = -1, .dark_id = -1};
	struct copier_rules rules = {movable, holder_busy, &st};
	struct xfer out[FETCH_MAX_XFERS];
	int qhead = 0;
	cr_assert_eq(copiers_take(q, &qhead, FETCH_MAX_XFERS + 5, &rules, out), FETCH_MAX_XFERS);
	cr_assert_eq(out[FETCH_MAX_XFERS - 1].id, FETCH_MAX_XFERS - 1);
	cr_assert_eq(copiers_take(q, &qhead, FETCH_MAX_XFERS + 5, &rules, out), 5);
	cr_assert_eq(out[0].id, FETCH_MAX_XFERS);
	cr_assert_eq(copiers_take(q, &qhead, FETCH_MAX_XFERS + 5, &rules, out), 0);
}
