/* Integration tests of the agents' disk (root, emu/disk.h): real agents
 * whose disks read and write at 2 MB/s, on 2 racks x 2 servers of 100 Mbit
 * (50 Mbit uplinks): the network carries 2 MB in a third of a second, the
 * disk in one. */
#include "agent_fixture.h"
#include <criterion/logging.h>

#define P  "itdk"
#define MB 1000000ULL

static const char *topo = "name = \"itdk\"; racks = 2; servers_per_rack = 2;\n"
			  "server = { rate = \"100Mbit\"; };\n"
			  "eps = { uplink_rate = \"50Mbit\"; };\n"
			  "ocs = { rate = \"200Mbit\"; };\n";

static const char *const agent_args[] = {"--copiers", "5", "--disk-read-mbps", "2", "--disk-write-mbps", "2", NULL};

static void setup(void) { ctl_up(P, topo, agent_args); }
static void teardown(void) { ctl_down(); }

TestSuite(agent_disk, .init = setup, .fini = teardown, .timeout = 60);

static void expect_msg(int id, enum msg_op op, struct msg *m, double timeout)
{
	cr_assert_eq(next_msg(id, m, timeout), 1, "agent %d: no message (wanted op %d) within %.1f s", id, (int)op,
		     timeout);
	cr_assert_eq(m->op, op, "agent %d: op %d, wanted %d", id, (int)m->op, (int)op);
}

static struct msg local_map(int task, uint64_t input)
{
	return (struct msg){.op = OP_MAP, .task = task, .job = 0, .duration = 0.1, .input_bytes = input,
			    .input_src = -1, .output_bytes = 1000};
}

Test(agent_disk, two_local_readers_each_get_half_the_disk)
{
	int ids[] = {0};
	start_agents(ids, 1, "--hold");
	/* Alone: 2 MB at 2 MB/s, then 0.1 s of compute. */
	struct msg m = local_map(1, 2 * MB), r;
	send_msg(0, &m);
	expect_msg(0, OP_TASK_DONE, &r, 10);
	cr_assert(r.ok, "%s", r.error);
	double alone = r.t_end - r.t_start;
	cr_assert(alone > 1.0 && alone < 1.4, "one reader: %.3f s", alone);
	/* Two at once: 1 MB/s each, both about 2 s. */
	struct msg a = local_map(2, 2 * MB), b = local_map(3, 2 * MB);
	send_msg(0, &a);
	send_msg(0, &b);
	for (int i = 0; i < 2; i++) {
		expect_msg(0, OP_TASK_DONE, &r, 10);
		cr_assert(r.ok, "%s", r.error);
		double took = r.t_end - r.t_start;
		cr_assert(took > 1.9 && took < 2.5, "task %d of two readers: %.3f s (alone %.3f s)", r.task, took, alone);
	}
}

Test(agent_disk, a_remote_read_is_limited_by_the_holders_disk)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--hold");
	/* Server 2 reads 2 MB off server 0: its disk (1 s), not the uplink (0.34 s). */
	struct msg m = {.op = OP_MAP, .task = 1, .job = 0, .duration = 0.1, .input_bytes = 2 * MB, .input_src = 0,
			.input_addr = data_addr(0), .output_bytes = 1000};
	send_msg(2, &m);
	struct msg r;
	expect_msg(2, OP_TASK_DONE, &r, 10);
	cr_assert(r.ok, "%s", r.error);
	cr_assert_eq(r.bytes, 2 * MB);
	double took = r.t_end - r.t_start;
	cr_assert(took > 1.0 && took < 1.5, "remote read off a 2 MB/s disk: %.3f s", took);
}

Test(agent_disk, output_is_written_at_the_write_rate)
{
	int ids[] = {0};
	start_agents(ids, 1, "--hold");
	struct msg m = {.op = OP_MAP, .task = 1, .job = 0, .duration = 0.1, .input_bytes = 0, .input_src = -1,
			.output_bytes = 3 * MB};
	send_msg(0, &m);
	struct msg r;
	expect_msg(0, OP_TASK_DONE, &r, 10);
	cr_assert(r.ok, "%s", r.error);
	double took = r.t_end - r.t_start;
	cr_assert(took > 1.5 && took < 2.0, "0.1 s of compute and 3 MB spilled at 2 MB/s: %.3f s", took);
}
