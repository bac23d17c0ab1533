/* Integration tests of copies between agents (root; emu/disk.h's copy,
 * agents/copy.c): the destination fetches the bytes and writes them to its
 * disk, so a copy moves at min(source read, network, destination write).
 * 2 racks x 2 servers of 100 Mbit with 50 Mbit uplinks (6.25 MB/s across
 * racks); one suite's disks read faster than they write, the other's write
 * faster than they read. */
#include "agent_fixture.h"
#include <criterion/logging.h>

#define MB 1000000ULL

static const char *topo = "name = \"itcp\"; racks = 2; servers_per_rack = 2;\n"
			  "server = { rate = \"100Mbit\"; };\n"
			  "eps = { uplink_rate = \"50Mbit\"; };\n"
			  "ocs = { rate = \"200Mbit\"; };\n";

static const char *const slow_write[] = {"--disk-read-mbps", "20", "--disk-write-mbps", "2", NULL};
static const char *const slow_read[] = {"--disk-read-mbps", "2", "--disk-write-mbps", "20", NULL};

static void up_slow_write(void) { ctl_up("itcw", topo, slow_write); }
static void up_slow_read(void) { ctl_up("itcr", topo, slow_read); }
static void down(void) { ctl_down(); }

TestSuite(copy_slow_write, .init = up_slow_write, .fini = down, .timeout = 60);
TestSuite(copy_slow_read, .init = up_slow_read, .fini = down, .timeout = 60);

/* Copy `bytes` from server src onto dst; returns the seconds it took. */
static double copy(int id, int src, int dst, uint64_t bytes, bool from_disk)
{
	struct msg m = {.op = OP_COPY, .copy = id, .src = src, .src_addr = data_addr(src), .bytes = bytes,
			.from_disk = from_disk}, r;
	send_msg(dst, &m);
	cr_assert_eq(next_msg(dst, &r, 15), 1, "copy %d: no copy_done within 15 s", id);
	cr_assert_eq(r.op, OP_COPY_DONE, "copy %d: op %d", id, (int)r.op);
	cr_assert(r.ok, "copy %d: %s", id, r.error);
	cr_assert_eq(r.copy, id);
	cr_assert_eq(r.bytes, bytes, "copy %d: %llu bytes of %llu", id, (unsigned long long)r.bytes,
		     (unsigned long long)bytes);
	return r.t_end - r.t_start;
}

Test(copy_slow_write, a_copy_moves_at_the_destinations_write_rate)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--hold");
	/* 4 MB: read 0.2 s, across the uplink 0.64 s, written at 2 MB/s 2 s. */
	double took = copy(1, 0, 2, 4 * MB, true);
	cr_assert(took > 1.9 && took < 2.5, "4 MB onto a 2 MB/s disk: %.3f s", took);
}

Test(copy_slow_write, two_copies_onto_one_disk_share_its_write_side)
{
	int ids[] = {0, 1, 2};
	start_agents(ids, 3, "--hold");
	struct msg a = {.op = OP_COPY, .copy = 1, .src = 0, .src_addr = data_addr(0), .bytes = 2 * MB, .from_disk = true};
	struct msg b = {.op = OP_COPY, .copy = 2, .src = 1, .src_addr = data_addr(1), .bytes = 2 * MB, .from_disk = true};
	send_msg(2, &a);
	send_msg(2, &b);
	/* 4 MB in all at 2 MB/s: both end near 2 s (alone each would take 1 s). */
	for (int i = 0; i < 2; i++) {
		struct msg r;
		cr_assert_eq(next_msg(2, &r, 15), 1, "no copy_done within 15 s");
		cr_assert_eq(r.op, OP_COPY_DONE);
		cr_assert(r.ok, "%s", r.error);
		cr_assert_eq(r.bytes, 2 * MB);
		double took = r.t_end - r.t_start;
		cr_assert(took > 1.8 && took < 2.5, "copy %d of two onto one disk: %.3f s", r.copy, took);
	}
}

Test(copy_slow_read, a_copy_moves_at_the_sources_read_rate_and_from_memory_at_the_networks)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--hold");
	/* Off the disk: read at 2 MB/s, 2 s. */
	double disk = copy(1, 0, 2, 4 * MB, true);
	cr_assert(disk > 1.9 && disk < 2.5, "4 MB off a 2 MB/s disk: %.3f s", disk);
	/* From memory (a task's output): the 50 Mbit uplink, 0.64 s, and the
	 * 20 MB/s write side, 0.2 s. */
	double mem = copy(2, 0, 2, 4 * MB, false);
	cr_assert(mem > 0.6 && mem < 1.2, "4 MB from memory across a 50 Mbit uplink: %.3f s", mem);
}

Test(copy_slow_read, a_copy_from_a_server_without_an_agent_fails_with_its_reason)
{
	int ids[] = {2};
	start_agents(ids, 1, "--hold");
	struct msg m = {.op = OP_COPY, .copy = 5, .src = 0, .src_addr = data_addr(0), .bytes = MB, .from_disk = true}, r;
	send_msg(2, &m);
	cr_assert_eq(next_msg(2, &r, 40), 1, "no copy_done within 40 s");
	cr_assert_eq(r.op, OP_COPY_DONE);
	cr_assert_not(r.ok);
	cr_assert_eq(r.copy, 5);
	cr_assert_not_null(strstr(r.error, "connect"), "error: %s", r.error);
}
