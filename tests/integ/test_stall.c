/* Integration tests of stalled data connections (root): real agents in the
 * servers' namespaces, the test as a minimal controller on a Unix socket,
 * real transfers over the emulated network, and stalls made on purpose:
 *
 *   - a black hole (an nftables drop rule in the sending server's own
 *     namespace, made by this test, gone with the fabric) for longer than
 *     the stall timeout: the fetcher resumes on a new connection and the
 *     transfer completes, byte-exact;
 *   - a sender that never sends (SIGSTOP; the kernel still accepts the
 *     connections): the fetch fails after its bounded retries and the
 *     reduce reports the failure, within the bound;
 *   - a fetcher that stops reading (SIGSTOP): the sender aborts the
 *     connection (its pending demand drops), and once the fetcher runs
 *     again it asks for the rest and completes.
 *
 * Agents run with --stall-timeout 1 so the whole suite takes ~15 s.
 * Fabric: 2 racks x 2 servers, 100 Mbit servers, 50 Mbit uplinks.
 * Global server id = rack * 2 + index. */
#include "agent_fixture.h"
#include <criterion/logging.h>
#include <nftables/libnftables.h>

#define P       "istl"
#define MB      1000000ULL
#define TIMEOUT "1"     /* --stall-timeout */
#define RETRIES "2"     /* --stall-retries */

static const char *topo =
	"name = \"istl\"; racks = 2; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"50Mbit\"; };\n"
	"ocs = { rate = \"200Mbit\"; };\n";

/* The agents after --control PATH MODE. */
static const char *const agent_args[] = {"--stall-timeout", TIMEOUT, "--stall-retries", RETRIES, NULL};

static void setup(void)
{
	ctl_up(P, topo, agent_args);
}

static void teardown(void)
{
	ctl_down();   /* the namespaces, and the nftables rules in them */
}

TestSuite(stall, .init = setup, .fini = teardown, .timeout = 60);

/* One reduce on `dst` fetching `bytes` from `src` (the final fetch). */
static void reduce_from(int dst, int task, int src, uint64_t bytes, bool circuit)
{
	struct msg r = {.op = OP_REDUCE, .task = task, .job = 0, .duration = 0.05, .copiers = 5};
	send_msg(dst, &r);
	struct xfer x = {.id = 100 + task, .src = src, .addr = data_addr(src), .bytes = bytes, .circuit = circuit,
			 .src_rack = src / 2, .dst_rack = dst / 2};
	struct msg f = {.op = OP_FETCH, .task = task, .final = true, .xfers = &x, .nxfers = 1};
	send_msg(dst, &f);
}

static int nft_fn(void *arg)
{
	struct nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);
	if (!nft)
		return -1;
	nft_ctx_buffer_error(nft);
	int rc = nft_run_cmd_from_buffer(nft, arg);
	if (rc)
		cr_log_error("nft: %s", nft_ctx_get_error_buffer(nft));
	nft_ctx_free(nft);
	return rc;
}

/* Drop (or stop dropping) everything server `id` sends from its data port:
 * an nftables table of this test's own in that server's namespace. */
static void black_hole(int id, bool on)
{
	char ns[48];
	sprintf(ns, P "-r%dh%d", id / 2, id % 2);
	char *rules = on ? "table inet " P "_stall {\n"
			   "  chain out { type filter hook output priority 0; tcp sport 7000 drop; }\n"
			   "}\n"
			 : "delete table inet " P "_stall\n";
	cr_assert_eq(tr_in_ns(ns, nft_fn, rules), 0, "nftables in %s failed", ns);
}

/* ------------------------------------------------------------------ */

Test(stall, a_black_holed_fetch_resumes_on_a_new_connection_and_completes)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--hold");
	const uint64_t bytes = 8 * MB;   /* ~1.4 s over the 50 Mbit uplink */
	double t0 = now();
	reduce_from(2, 1, 0, bytes, false);
	usleep(300000);
	black_hole(0, true);
	double hole = 3.0;   /* 3 stall timeouts */
	usleep((useconds_t)(hole * 1e6));
	black_hole(0, false);
	struct msg m;
	/* SYNs of the resumed connection were lost too: its connect retries
	 * after 1, 2, 4 s; the rest of the 8 MB takes < 1.5 s after that */
	cr_assert_eq(next_msg(2, &m, 12), 1, "no flow_done 12 s after the black hole ended: the fetch hangs");
	cr_assert_eq(m.op, OP_FLOW_DONE, "op %d (error: %s)", (int)m.op, m.error);
	cr_assert_eq(m.bytes, bytes, "resumed fetch got %llu of %llu bytes", (unsigned long long)m.bytes,
		     (unsigned long long)bytes);
	cr_assert_eq(next_msg(2, &m, 5), 1);
	cr_assert_eq(m.op, OP_TASK_DONE);
	cr_assert(m.ok, "reduce failed: %s", m.error);
	cr_assert_eq(m.bytes, bytes, "bytes_in %llu", (unsigned long long)m.bytes);
	double took = now() - t0;
	cr_log_info("8 MB with a %.1f s black hole: %.2f s", hole, took);
	cr_assert_gt(took, 0.3 + hole, "the transfer did not wait for the black hole (%.2f s)", took);
}

Test(stall, a_fetch_from_a_sender_that_never_sends_fails_within_the_bound)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--hold");
	/* stopped: its kernel still accepts connections and their requests */
	cr_assert_eq(kill(C.a[0].pid, SIGSTOP), 0);
	double t0 = now();
	reduce_from(2, 2, 0, 2 * MB, false);
	/* 3 connections of 1 s each, 0.5 + 1 s of backoff between: ~4.5 s */
	struct msg m;
	int got = next_msg(2, &m, 15);
	double took = now() - t0;
	kill(C.a[0].pid, SIGCONT);
	cr_assert_eq(got, 1, "the reduce neither finished nor failed within 15 s: it hangs");
	cr_assert_eq(m.op, OP_TASK_DONE, "op %d", (int)m.op);
	cr_assert_not(m.ok, "a reduce whose sender never sent succeeded");
	cr_assert_eq(m.task, 2);
	cr_assert_eq(m.bytes, 0);
	cr_log_info("failed after %.2f s: %s", took, m.error);
	cr_assert(strstr(m.error, "xfer 102") && strstr(m.error, "no data for") && strstr(m.error, "2 retries"),
		  "the error should name the transfer, the stall and the retries: %s", m.error);
	cr_assert(took > 4.0 && took < 7.0, "failed after %.2f s, expected ~4.5 s (3 x 1 s + 0.5 s + 1 s)", took);
}

Test(stall, a_sender_aborts_when_its_fetcher_stops_reading_and_the_fetcher_resumes)
{
	int ids[] = {0, 2};
	start_agents(ids, 2, "--fallback");   /* circuit-eligible, sent over the EPS: demand is reported */
	const uint64_t bytes = 24 * MB;        /* ~4 s over the 50 Mbit uplink */
	reduce_from(2, 3, 0, bytes, true);
	struct msg m;
	cr_assert_eq(next_msg(0, &m, 1.0), 0, "sender: unexpected op %d", (int)m.op);
	cr_assert_gt(C.a[0].demand[1], 0, "the sender reported no pending demand");
	cr_assert_eq(kill(C.a[2].pid, SIGSTOP), 0);
	double t0 = now();
	/* the fetcher's buffers fill, the window closes, nothing is acked for
	 * 1 s: the sender aborts and its pending demand drops to 0 */
	while (C.a[0].demand[1] > 0 && now() - t0 < 10)
		cr_assert_eq(next_msg(0, &m, 0.2), 0, "sender: unexpected op %d", (int)m.op);
	double took = now() - t0;
	cr_assert_eq(C.a[0].demand[1], 0, "the sender still holds %llu bytes 10 s after its fetcher stopped",
		     (unsigned long long)C.a[0].demand[1]);
	cr_log_info("sender gave up %.2f s after its fetcher stopped", took);
	cr_assert_lt(took, 6.0);
	cr_assert_eq(kill(C.a[2].pid, SIGCONT), 0);
	/* the fetcher reads what it has, finds the reset, asks for the rest */
	cr_assert_eq(next_msg(2, &m, 15), 1, "no flow_done 15 s after the fetcher resumed");
	cr_assert_eq(m.op, OP_FLOW_DONE, "op %d (error: %s)", (int)m.op, m.error);
	cr_assert_eq(m.bytes, bytes, "got %llu of %llu bytes", (unsigned long long)m.bytes,
		     (unsigned long long)bytes);
	cr_assert_eq(next_msg(2, &m, 5), 1);
	cr_assert_eq(m.op, OP_TASK_DONE);
	cr_assert(m.ok, "reduce failed: %s", m.error);
	/* and nothing stays pending at the sender */
	double t1 = now();
	while (C.a[0].demand[1] > 0 && now() - t1 < 2)
		next_msg(0, &m, 0.2);
	cr_assert_eq(C.a[0].demand[1], 0, "%llu bytes still pending at the sender",
		     (unsigned long long)C.a[0].demand[1]);
}
