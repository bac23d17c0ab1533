/* The agents' stall logic (agents/stall.h): the progress clock that both
 * ends of a data connection keep, its pause while a held circuit transfer
 * waits for its circuit, the retry policy and the backoff. */
#include "agents/stall.h"
#include <criterion/criterion.h>

Test(stall, idle_time_grows_only_while_nothing_moves)
{
	struct stall_watch w;
	stall_start(&w, 0, 100.0);
	cr_assert_float_eq(stall_idle(&w, 0, false, 101.5), 1.5, 1e-9);
	cr_assert_float_eq(stall_idle(&w, 0, false, 104.0), 4.0, 1e-9);
	/* progress: the clock restarts at the observation */
	cr_assert_float_eq(stall_idle(&w, 4096, false, 104.5), 0.0, 1e-9);
	cr_assert_float_eq(stall_idle(&w, 4096, false, 110.0), 5.5, 1e-9);
	cr_assert_float_eq(stall_deadline(&w, 30), 104.5 + 30, 1e-9);
}

Test(stall, held_time_does_not_count)
{
	struct stall_watch w;
	stall_start(&w, 10, 0.0);
	cr_assert_float_eq(stall_idle(&w, 10, false, 20.0), 20.0, 1e-9);
	/* dark circuit in hold mode: the sender may not send */
	cr_assert_float_eq(stall_idle(&w, 10, true, 25.0), 0.0, 1e-9);
	cr_assert_float_eq(stall_idle(&w, 10, true, 500.0), 0.0, 1e-9);
	/* lit again: counting starts from the last held observation */
	cr_assert_float_eq(stall_idle(&w, 10, false, 529.0), 29.0, 1e-9);
	cr_assert_float_eq(stall_deadline(&w, 30), 530.0, 1e-9);
}

Test(stall, no_timeout_means_no_deadline)
{
	struct stall_watch w;
	stall_start(&w, 0, 5.0);
	cr_assert_geq(stall_deadline(&w, 0), 1e299);
}

Test(stall, backoff_doubles_and_is_capped)
{
	cr_assert_float_eq(stall_backoff(1), 0.5, 1e-12);
	cr_assert_float_eq(stall_backoff(2), 1.0, 1e-12);
	cr_assert_float_eq(stall_backoff(3), 2.0, 1e-12);
	cr_assert_float_eq(stall_backoff(4), 4.0, 1e-12);
	cr_assert_float_eq(stall_backoff(50), 4.0, 1e-12);
}

Test(stall, retries_are_bounded_and_only_for_a_broken_transfer)
{
	for (int done = 0; done < 3; done++) {
		cr_assert(stall_may_retry(STALL_IDLE, done, 3));
		cr_assert(stall_may_retry(STALL_CONN_ERROR, done, 3));
		cr_assert(stall_may_retry(STALL_SHORT_EOF, done, 3));
	}
	cr_assert_not(stall_may_retry(STALL_IDLE, 3, 3), "the 4th retry of 3");
	cr_assert_not(stall_may_retry(STALL_IDLE, 0, 0), "retries off");
	/* the sender is gone (the controller re-runs its outputs), or lied */
	cr_assert_not(stall_may_retry(STALL_CONNECT, 0, 3));
	cr_assert_not(stall_may_retry(STALL_PROTOCOL, 0, 3));
}
