/* Integration tests of the task agent (root): real agents in the servers'
 * namespaces, the test acting as a minimal controller on a Unix socket, real
 * transfers over the emulated network.
 *
 * Fabric: 2 racks x 2 servers, 100 Mbit servers, 50 Mbit uplinks, a
 * 200 Mbit OCS.  Global server id = rack * 2 + index. */
#include "agent_fixture.h"
#include <criterion/logging.h>
#include <fcntl.h>
#include <sys/stat.h>

#define P     "itag"
#define MB    1000000ULL

static const char *topo =
	"name = \"itag\"; racks = 2; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"50Mbit\"; };\n"
	"ocs = { rate = \"200Mbit\"; };\n";

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The agents after --control PATH MODE. */
static const char *const agent_args[] = {"--cc", "cubic", "--copiers", "5", NULL};

static void setup(void)
{
	ctl_up(P, topo, agent_args);
}

static void teardown(void)
{
	ctl_down();
}

TestSuite(agent, .init = setup, .fini = teardown, .timeout = 60);

static void expect_msg(int id, enum msg_op op, struct msg *m, double timeout)
{
	cr_assert_eq(next_msg(id, m, timeout), 1, "agent %d: no message (wanted op %d) within %.1f s", id, (int)op,
		     timeout);
	cr_assert_eq(m->op, op, "agent %d: op %d, wanted %d", id, (int)m->op, (int)op);
}

/* Drain messages for `seconds`, recording demand; fails on anything else. */
static void only_demand_for(int id, double seconds)
{
	struct msg m;
	int r = next_msg(id, &m, seconds);
	cr_assert_eq(r, 0, "agent %d: unexpected message op %d", id, (int)m.op);
}

/* waitpid with a timeout; returns the status or -1. */
static int wait_exit(pid_t pid, double timeout)
{
	double end = now() + timeout;
	int st;
	while (now() < end) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return st;
		usleep(10000);
	}
	return -1;
}

static uint64_t tor_tx(int rack, const char *ifname)
{
	char name[32];
	uint64_t tx = 0;
	sprintf(name, P "-tor%d", rack);
	cr_assert_eq(tr_link_counters(name, ifname, &tx, NULL, NULL, NULL), 0, "%s", tr_errmsg());
	return tx;
}

static void set_circuits(const char *spec)
{
	char err[FABRIC_ERR_LEN];
	struct fabric *f = fabric_open(P, err);
	cr_assert_not_null(f, "%s", err);
	struct circuit_cfg c;
	cr_assert_eq(circuits_parse(spec, &f->topo, &c, err), 0, "%s", err);
	cr_assert_eq(fabric_circuits_apply(f, &c, err), 0, "%s", err);
	fabric_close(f);
}

static void send_pairs(int id, enum msg_op op, int src, int dst)
{
	struct rack_pair p = {src, dst};
	struct msg m = {.op = op, .pairs = &p, .npairs = src >= 0 ? 1 : 0};
	send_msg(id, &m);
}

static void send_reduce(int id, int task, double duration, int copiers)
{
	struct msg m = {.op = OP_REDUCE, .task = task, .job = 0, .duration = duration, .copiers = copiers};
	send_msg(id, &m);
}

static void send_fetch(int id, int task, bool final, const struct xfer *x, int n)
{
	struct msg m = {.op = OP_FETCH, .task = task, .final = final, .xfers = (struct xfer *)x, .nxfers = n};
	send_msg(id, &m);
}

static struct xfer xfer_of(int xid, int src, int dst, uint64_t bytes, bool circuit)
{
	return (struct xfer){.id = xid, .src = src, .addr = data_addr(src), .bytes = bytes, .circuit = circuit,
			     .src_rack = src / 2, .dst_rack = dst / 2};
}

/* ------------------------------------------------------------------ */

Test(agent, hello_from_each_agent_and_exit_when_the_control_socket_closes)
{
	int ids[NSRV] = {0, 1, 2, 3};
	start_agents(ids, NSRV, "--hold");
	/* every agent is in its own namespace: its data port answers there */
	for (int i = 0; i < NSRV; i++) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/ns/net", C.a[i].pid);
		struct stat a, b;
		char nsp[64];
		snprintf(nsp, sizeof nsp, "/run/netns/" P "-r%dh%d", i / 2, i % 2);
		cr_assert_eq(stat(path, &a), 0);
		cr_assert_eq(stat(nsp, &b), 0);
		cr_assert_eq(a.st_ino, b.st_ino, "agent %d is not in %s", i, nsp);
	}
	for (int i = 0; i < NSRV; i++) {
		close(C.a[i].fd);
		C.a[i].fd = -1;
	}
	for (int i = 0; i < NSRV; i++) {
		int st = wait_exit(C.a[i].pid, 3.0);
		cr_assert_neq(st, -1, "agent %d still running 3 s after its control socket closed", i);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "agent %d: status 0x%x", i, st);
		C.a[i].pid = 0;
	}
}

Test(agent, maps_read_remote_input_over_the_network_and_local_input_without)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--hold");
	uint64_t up0 = tor_tx(0, "up");
	struct msg m = {.op = OP_MAP, .task = 1, .job = 0, .duration = 0.3, .input_bytes = 2 * MB, .input_src = 0,
			.input_addr = data_addr(0), .output_bytes = 1000};
	double t0 = wall();
	send_msg(2, &m);
	struct msg r;
	expect_msg(2, OP_TASK_DONE, &r, 10);
	cr_assert(r.ok, "map failed: %s", r.error);
	cr_assert_eq(r.task, 1);
	cr_assert_eq(r.bytes, 2 * MB, "bytes_in %llu", (unsigned long long)r.bytes);
	/* 2 MB over the 50 Mbit uplink take >= 0.32 s, then 0.3 s of compute */
	double took = r.t_end - r.t_start;
	cr_log_info("remote-input map: %.3f s (input ~%.3f s + compute 0.3 s)", took, 2e6 * 8 / 50e6 * 1514 / 1448);
	cr_assert(took >= 0.3 + 0.30 && took < 0.3 + 0.34 * 1.5 + 0.3, "map took %.3f s", took);
	cr_assert(r.t_start >= t0 - 0.01 && r.t_end <= wall() + 0.01, "timestamps are not epoch seconds");
	cr_assert_geq(tor_tx(0, "up") - up0, 2 * MB, "the input did not cross rack 0's uplink");

	struct msg l = {.op = OP_MAP, .task = 2, .job = 0, .duration = 0.2, .input_bytes = 5 * MB, .input_src = -1,
			.output_bytes = 1000};
	up0 = tor_tx(0, "up");
	send_msg(2, &l);
	expect_msg(2, OP_TASK_DONE, &r, 5);
	cr_assert(r.ok);
	cr_assert_eq(r.task, 2);
	cr_assert_eq(r.bytes, 5 * MB);
	cr_assert(r.t_end - r.t_start >= 0.2 && r.t_end - r.t_start < 0.35, "local map took %.3f s",
		  r.t_end - r.t_start);
	cr_assert_lt(tor_tx(0, "up") - up0, 20000, "a local map used the network");
}

Test(agent, reduce_fetches_from_two_holders_exactly)
{
	int ids[] = {0, 1, 3};
	start_agents(ids, 3, "--hold");
	send_reduce(3, 7, 0.25, 5);
	struct xfer a = xfer_of(100, 0, 3, 3 * MB, false), b = xfer_of(101, 1, 3, 1 * MB + 17, false);
	send_fetch(3, 7, false, &a, 1);
	usleep(50000);
	send_fetch(3, 7, true, &b, 1);
	uint64_t got[2] = {0};
	double last_end = 0;
	for (int i = 0; i < 2; i++) {
		struct msg r;
		expect_msg(3, OP_FLOW_DONE, &r, 10);
		cr_assert_eq(r.task, 7);
		cr_assert(r.xfer == 100 || r.xfer == 101, "xfer %d", r.xfer);
		cr_assert_eq(r.src, r.xfer - 100);
		cr_assert_eq(r.dst, 3);
		cr_assert_not(r.circuit);
		got[r.xfer - 100] = r.bytes;
		cr_assert(r.t_end > r.t_start);
		if (r.t_end > last_end)
			last_end = r.t_end;
	}
	cr_assert_eq(got[0], 3 * MB);
	cr_assert_eq(got[1], 1 * MB + 17);
	struct msg r;
	expect_msg(3, OP_TASK_DONE, &r, 5);
	cr_assert(r.ok, "%s", r.error);
	cr_assert_eq(r.task, 7);
	cr_assert_eq(r.bytes, 4 * MB + 17);
	cr_assert_geq(r.t_end - last_end, 0.25 - 0.005, "compute %.3f s after the last fetch", r.t_end - last_end);
	/* both cross the 50 Mbit uplink together: >= 4 MB / 50 Mbit */
	double took = last_end - r.t_start;
	cr_log_info("shuffle of 4 MB from two holders: %.3f s (uplink-bound %.3f s)", took, 4e6 * 8 / 50e6);
	cr_assert(took > 0.6, "4 MB across a 50 Mbit uplink in %.3f s", took);
}

/* With one copier the fetches go strictly one after the other, and, as in
 * Hadoop's shuffle scheduler, one fetch takes every queued transfer of its
 * holder: 200 and 202 (holder 0) move together, then 201 (holder 1). */
Test(agent, copiers_bound_the_parallel_fetches_each_taking_its_holders_transfers)
{
	int ids[] = {0, 1, 3};
	start_agents(ids, 3, "--hold");
	send_reduce(3, 8, 0, 1);
	struct xfer x[3] = {xfer_of(200, 0, 3, MB, false), xfer_of(201, 1, 3, MB, false),
			    xfer_of(202, 0, 3, MB, false)};
	send_fetch(3, 8, true, x, 3);
	static const int order[] = {200, 202, 201};
	double s[3], e[3];
	for (int i = 0; i < 3; i++) {
		struct msg r;
		expect_msg(3, OP_FLOW_DONE, &r, 10);
		cr_assert_eq(r.xfer, order[i], "fetched out of order: xfer %d, wanted %d", r.xfer, order[i]);
		cr_assert_eq(r.bytes, MB);
		s[i] = r.t_start;
		e[i] = r.t_end;
	}
	cr_assert(s[1] == s[0] && e[1] == e[0], "200 and 202 moved apart: %.3f-%.3f and %.3f-%.3f", s[0], e[0], s[1], e[1]);
	cr_assert_geq(s[2], e[0] - 0.001, "201 started %.3f s before holder 0's fetch ended", e[0] - s[2]);
	struct msg r;
	expect_msg(3, OP_TASK_DONE, &r, 5);
	cr_assert(r.ok);
	cr_assert_eq(r.bytes, 3 * MB);
}

/* Tell both ends of rack 0 -> rack 1 (the controller tells every agent). */
static void circuit_0to1(enum msg_op op, int sender, int receiver)
{
	send_pairs(sender, op, 0, 1);
	send_pairs(receiver, op, 0, 1);
}

/* In hold mode a circuit transfer whose circuit is dark is not started: it
 * takes no copier, so with one copier the EPS transfer queued behind it
 * moves, and the receiver reports its bytes as queued demand. */
Test(agent, a_held_circuit_transfer_waits_at_the_receiver_as_demand_and_takes_no_copier)
{
	int ids[] = {0, 1, 3};
	start_agents(ids, 3, "--hold");
	send_reduce(3, 10, 0, 1);
	struct xfer x[2] = {xfer_of(300, 0, 3, MB, true), xfer_of(301, 1, 3, MB, false)};
	send_fetch(3, 10, true, x, 2);
	struct msg r;
	expect_msg(3, OP_FLOW_DONE, &r, 10);
	cr_assert_eq(r.xfer, 301, "xfer %d finished first, wanted the EPS one (301)", r.xfer);
	cr_assert_not(r.circuit);
	only_demand_for(3, 0.3);
	only_demand_for(0, 0.1);
	cr_assert_eq(C.a[3].queued[0], MB, "queued demand %llu", (unsigned long long)C.a[3].queued[0]);
	cr_assert_eq(C.a[0].demand[1], 0, "the sender has pending demand for a transfer not started");

	set_circuits("0>1");
	circuit_0to1(OP_CIRCUITS, 0, 3);
	expect_msg(3, OP_FLOW_DONE, &r, 10);
	cr_assert_eq(r.xfer, 300);
	cr_assert(r.circuit);
	cr_assert_eq(r.bytes, MB);
	expect_msg(3, OP_TASK_DONE, &r, 5);
	cr_assert(r.ok, "%s", r.error);
	cr_assert_eq(r.bytes, 2 * MB);
	cr_assert_eq(C.a[3].queued[0], 0, "queued demand %llu after the transfer", (unsigned long long)C.a[3].queued[0]);
}

/* A started circuit transfer stays the receiver's queued demand until its
 * first byte: the sender counts it only once the request arrives, and the
 * controller must never see the pair without it in between.  Here the
 * sender holds it (it has heard the circuit go, the receiver has not), so
 * no byte comes and both ends count it; before, the receiver's count went
 * at the fetch's start. */
Test(agent, a_circuit_transfer_is_demand_until_its_first_byte_arrives)
{
	int ids[] = {0, 3};
	start_agents(ids, 2, "--hold");
	send_pairs(3, OP_CIRCUITS, 0, 1);
	send_reduce(3, 14, 0, 1);
	struct xfer x = xfer_of(500, 0, 3, MB, true);
	send_fetch(3, 14, true, &x, 1);
	only_demand_for(0, 0.3);
	only_demand_for(3, 0.3);
	cr_assert_eq(C.a[0].demand[1], MB, "the sender's pending demand %llu", (unsigned long long)C.a[0].demand[1]);
	cr_assert_eq(C.a[3].queued[0], MB, "the receiver's queued demand %llu before any byte",
		     (unsigned long long)C.a[3].queued[0]);

	set_circuits("0>1");
	send_pairs(0, OP_CIRCUITS, 0, 1);
	struct msg r;
	expect_msg(3, OP_FLOW_DONE, &r, 10);
	cr_assert_eq(r.xfer, 500);
	cr_assert_eq(C.a[3].queued[0], 0, "queued demand %llu after the transfer", (unsigned long long)C.a[3].queued[0]);
	expect_msg(3, OP_TASK_DONE, &r, 5);
	cr_assert(r.ok, "%s", r.error);
}

/* Rack 0 -> rack 1 to both senders on rack 0 and to the receiver. */
static void circuits_0to1_senders_0_1(enum msg_op op)
{
	circuit_0to1(op, 0, 3);
	send_pairs(1, op, 0, 1);
}

/* Copiers bound lit circuit transfers too (all of a reduce's senders at
 * once would be an incast), and a running one whose circuit goes dark
 * gives its copier to a transfer that can move. */
Test(agent, a_circuit_transfer_caught_by_the_dark_gives_up_its_copier)
{
	int ids[] = {0, 1, 3};
	start_agents(ids, 3, "--hold");
	set_circuits("0>1");
	circuits_0to1_senders_0_1(OP_CIRCUITS);
	send_reduce(3, 13, 0, 1);
	/* 401 from another holder than 400: one holder's would move with it */
	struct xfer x[3] = {xfer_of(400, 0, 3, 16 * MB, true), xfer_of(401, 1, 3, MB, true),
			    xfer_of(402, 1, 3, MB, false)};
	send_fetch(3, 13, true, x, 3);
	only_demand_for(3, 0.4);   /* 400 runs (16 MB at 100 Mbit: ~1.3 s); 401 and 402 wait for the copier */
	cr_assert_eq(C.a[3].queued[0], MB, "queued demand %llu", (unsigned long long)C.a[3].queued[0]);
	circuits_0to1_senders_0_1(OP_ANNOUNCE);
	struct msg r;
	expect_msg(3, OP_FLOW_DONE, &r, 5);
	cr_assert_eq(r.xfer, 402, "xfer %d finished first, wanted the EPS one (402) while the circuit is dark", r.xfer);
	only_demand_for(0, 0.3);
	uint64_t held = C.a[0].demand[1];
	cr_assert(held > 0 && held < 16 * MB, "the sender holds %llu bytes of 400", (unsigned long long)held);

	circuits_0to1_senders_0_1(OP_CIRCUITS);
	double s[2], e[2];
	for (int i = 0; i < 2; i++) {
		expect_msg(3, OP_FLOW_DONE, &r, 10);
		cr_assert_eq(r.xfer, 400 + i, "xfer %d finished out of order", r.xfer);
		cr_assert(r.circuit);
		s[i] = r.t_start;
		e[i] = r.t_end;
	}
	cr_assert_geq(s[1], e[0] - 0.001, "401 started %.3f s before 400 ended: one copier", e[0] - s[1]);
	expect_msg(3, OP_TASK_DONE, &r, 5);
	cr_assert(r.ok, "%s", r.error);
	cr_assert_eq(r.bytes, 18 * MB);
}

Test(agent, circuit_transfer_is_held_while_dark_and_takes_the_circuit_when_lit)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--hold");
	uint64_t o0 = tor_tx(0, "o0"), up0 = tor_tx(0, "up");
	const uint64_t size = 8 * MB;
	send_reduce(2, 9, 0, 5);
	struct xfer x = xfer_of(55, 0, 2, size, true);
	send_fetch(2, 9, true, &x, 1);
	/* dark: nothing moves, the receiver reports the demand */
	only_demand_for(2, 1.0);
	cr_assert_geq(C.a[2].ndemand, 1, "no demand reported while held");
	cr_assert_eq(C.a[2].queued[0], size, "queued demand %llu", (unsigned long long)C.a[2].queued[0]);
	cr_assert_lt(tor_tx(0, "up") - up0 + tor_tx(0, "o0") - o0, 50000, "a held transfer moved data");

	/* light 0>1, tell both ends */
	set_circuits("0>1");
	double t_lit = wall();
	circuit_0to1(OP_CIRCUITS, 0, 2);
	only_demand_for(0, 0.3);
	/* announce: it stops at once; the demand stays put, at the sender now */
	circuit_0to1(OP_ANNOUNCE, 0, 2);
	only_demand_for(0, 0.15);
	uint64_t held = C.a[0].demand[1], o_mid = tor_tx(0, "o0");
	cr_assert(held > 0 && held < size, "pending after announce %llu", (unsigned long long)held);
	only_demand_for(0, 0.5);
	cr_assert_eq(C.a[0].demand[1], held, "the sender kept writing after announce");
	cr_assert_lt(tor_tx(0, "o0") - o_mid, 100000, "data kept flowing on the circuit after announce");
	cr_log_info("held after announce: %llu of %llu bytes pending", (unsigned long long)held,
		    (unsigned long long)size);

	/* lit again: it completes on the circuit */
	circuit_0to1(OP_CIRCUITS, 0, 2);
	struct msg r;
	expect_msg(2, OP_FLOW_DONE, &r, 10);
	cr_assert_eq(C.a[2].queued[0], 0);
	cr_assert_eq(r.xfer, 55);
	cr_assert_eq(r.bytes, size);
	cr_assert(r.circuit);
	expect_msg(2, OP_TASK_DONE, &r, 5);
	cr_assert(r.ok, "%s", r.error);
	uint64_t opt = tor_tx(0, "o0") - o0, up = tor_tx(0, "up") - up0;
	cr_log_info("circuit transfer: tor0 o0 +%llu B, up +%llu B; done %.3f s after light", (unsigned long long)opt,
		    (unsigned long long)up, r.t_end - t_lit);
	cr_assert_geq(opt, size, "the optical port carried %llu of %llu bytes", (unsigned long long)opt,
		      (unsigned long long)size);
	cr_assert_lt(up, size / 20, "the uplink carried %llu bytes of a held circuit transfer",
		     (unsigned long long)up);
	/* the demand goes back to zero */
	only_demand_for(0, 0.3);
	cr_assert_eq(C.a[0].demand[1], 0);
}

Test(agent, fallback_mode_sends_circuit_transfers_over_the_eps_when_dark)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--fallback");
	uint64_t o0 = tor_tx(0, "o0"), up0 = tor_tx(0, "up");
	send_reduce(2, 3, 0, 5);
	struct xfer x = xfer_of(56, 0, 2, 2 * MB, true);
	send_fetch(2, 3, true, &x, 1);
	struct msg r;
	expect_msg(2, OP_FLOW_DONE, &r, 10);
	cr_assert_eq(r.bytes, 2 * MB);
	expect_msg(2, OP_TASK_DONE, &r, 5);
	cr_assert(r.ok);
	cr_assert_geq(tor_tx(0, "up") - up0, 2 * MB);
	cr_assert_lt(tor_tx(0, "o0") - o0, 10000);
}

Test(agent, a_killed_sender_fails_the_fetch_and_a_missing_one_is_refused)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--hold");
	send_reduce(2, 11, 0, 5);
	struct xfer x = xfer_of(77, 0, 2, 30 * MB, false);   /* ~5 s over the uplink */
	send_fetch(2, 11, true, &x, 1);
	usleep(600000);
	kill(C.a[0].pid, SIGKILL);
	struct msg r;
	expect_msg(2, OP_TASK_DONE, &r, 10);
	cr_assert_not(r.ok);
	cr_assert_eq(r.task, 11);
	cr_assert_not_null(strstr(r.error, "xfer 77"), "error does not name the transfer: %s", r.error);
	cr_assert(r.bytes > 0 && r.bytes < 30 * MB, "bytes_in %llu", (unsigned long long)r.bytes);
	cr_log_info("killed sender: %s", r.error);

	/* nobody listens on r0h1: refused at once */
	send_reduce(2, 12, 0, 5);
	x = xfer_of(78, 1, 2, MB, false);
	send_fetch(2, 12, true, &x, 1);
	expect_msg(2, OP_TASK_DONE, &r, 5);
	cr_assert_not(r.ok);
	cr_assert_not_null(strstr(r.error, "xfer 78"), "%s", r.error);
	cr_assert_not_null(strstr(r.error, "refused"), "%s", r.error);
}

Test(agent, kill_aborts_a_task_and_frees_the_sender)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--hold");
	send_reduce(2, 20, 0, 5);
	struct xfer x = xfer_of(90, 0, 2, 4 * MB, true);   /* held: no circuit */
	send_fetch(2, 20, true, &x, 1);
	/* The receiver alone hears of a circuit: it starts the fetch, and the
	 * sender, still dark, holds it. */
	send_pairs(2, OP_CIRCUITS, 0, 1);
	only_demand_for(0, 0.4);
	cr_assert_eq(C.a[0].demand[1], 4 * MB);
	struct msg k = {.op = OP_KILL, .task = 20};
	send_msg(2, &k);
	struct msg r;
	expect_msg(2, OP_TASK_DONE, &r, 3);
	cr_assert_not(r.ok);
	cr_assert_str_eq(r.error, "killed");
	/* the sender sees the fetcher go and drops the pending demand */
	only_demand_for(0, 0.5);
	cr_assert_eq(C.a[0].demand[1], 0, "demand %llu after kill", (unsigned long long)C.a[0].demand[1]);
	/* a map's compute timer is cancelled too */
	struct msg m = {.op = OP_MAP, .task = 21, .duration = 5, .input_src = -1};
	send_msg(2, &m);
	usleep(100000);
	k.task = 21;
	send_msg(2, &k);
	expect_msg(2, OP_TASK_DONE, &r, 1);
	cr_assert_eq(r.task, 21);
	cr_assert_not(r.ok);
	cr_assert_lt(r.t_end - r.t_start, 1.0);
}

Test(agent, malformed_control_messages_are_ignored_and_shutdown_exits)
{
	int ids[] = {2};
	start_agents(ids, 1, "--hold");
	const char *junk[] = {"garbage\n", "{\"op\":\"map\"}\n", "{\"op\":\"fetch\",\"task\":1,\"final\":true,\"xfers\":[{}]}\n",
			      "{\"op\":\"kill\",\"task\":999}\n", "{\"op\":\"fetch\",\"task\":5,\"final\":true,\"xfers\":[]}\n",
			      "\n", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"};
	for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
		cr_assert_eq(write(C.a[2].fd, junk[i], strlen(junk[i])), (ssize_t)strlen(junk[i]));
	/* an overlong line */
	size_t big = PROTO_MAX_LINE + 100;
	char *s = malloc(big);
	memset(s, 'x', big);
	s[big - 1] = '\n';
	for (size_t off = 0; off < big;) {
		ssize_t w = write(C.a[2].fd, s + off, big - off);
		cr_assert_gt(w, 0);
		off += (size_t)w;
	}
	free(s);
	struct msg m = {.op = OP_MAP, .task = 4, .duration = 0.05, .input_bytes = 10, .input_src = -1};
	send_msg(2, &m);
	struct msg r;
	expect_msg(2, OP_TASK_DONE, &r, 3);
	cr_assert(r.ok);
	cr_assert_eq(r.task, 4);
	struct msg sd = {.op = OP_SHUTDOWN};
	send_msg(2, &sd);
	int st = wait_exit(C.a[2].pid, 3.0);
	cr_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
	C.a[2].pid = 0;
}

Test(agent, refuses_a_controller_that_is_not_root)
{
	char path[108];
	snprintf(path, sizeof path, "/tmp/" P "-nonroot-%d.sock", (int)getpid());
	unlink(path);
	int pfd[2];
	cr_assert_eq(pipe(pfd), 0);
	pid_t child = fork();
	if (child == 0) {
		/* an unprivileged "controller" */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(3);
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		strcpy(sa.sun_path, path);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 4))
			_exit(4);
		(void)!write(pfd[1], "r", 1);
		int c = accept(fd, NULL, NULL);
		char b[256];
		while (c >= 0 && read(c, b, sizeof b) > 0)
			;
		_exit(0);
	}
	close(pfd[1]);
	char ready;
	cr_assert_eq(read(pfd[0], &ready, 1), 1, "the unprivileged listener did not start");
	chmod(path, 0777);
	C.a[2].pid = spawn_to(2, path, "--hold");
	int st = wait_exit(C.a[2].pid, 3.0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	unlink(path);
	cr_assert_neq(st, -1, "the agent kept talking to a non-root controller");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status 0x%x", st);
	C.a[2].pid = 0;
}
