/* The disk's sharing rule (emu/disk.h), as the agents apply it every tick. */
#include "emu/disk.h"
#include <criterion/criterion.h>

Test(disk, two_readers_each_get_half)
{
	double want[2] = {1e9, 1e9}, out[2];
	disk_split(2e6, want, 2, out);
	cr_assert_float_eq(out[0], 1e6, 1e-6);
	cr_assert_float_eq(out[1], 1e6, 1e-6);
}

Test(disk, a_stream_wanting_less_leaves_the_rest_to_the_others)
{
	/* Max-min: a served transfer the network holds to 0.2 MB a tick, and
	 * two local reads that take what it leaves. */
	double want[3] = {0.2e6, 5e6, 5e6}, out[3];
	disk_split(2e6, want, 3, out);
	cr_assert_float_eq(out[0], 0.2e6, 1e-6);
	cr_assert_float_eq(out[1], 0.9e6, 1e-6);
	cr_assert_float_eq(out[2], 0.9e6, 1e-6);
}

Test(disk, never_more_than_wanted_and_nothing_to_who_wants_nothing)
{
	double want[3] = {0, 3, 4}, out[3];
	disk_split(100, want, 3, out);
	cr_assert_float_eq(out[0], 0, 1e-12);
	cr_assert_float_eq(out[1], 3, 1e-12);
	cr_assert_float_eq(out[2], 4, 1e-12);
	disk_split(100, want, 0, out);   /* nobody: nothing to do */
}
