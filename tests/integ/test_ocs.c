/* Integration tests of the OCS controller (root): demand -> matching ->
 * reconfiguration, checked with counters and packet captures. */
#include "emu/ocs_ctl.h"
#include "fabric_fixture.h"
#include "netctl/capture.h"
#include "traffic.h"
#include <criterion/logging.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define P "itocs"

/* 4 racks x 2 servers: uplink 20 Mbit/s, circuits 60 Mbit/s, so where the
 * bytes went shows in the rates as well as in the counters. */
static const char *topo4 =
	"racks = 4; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"20Mbit\"; };\n"
	"ocs = { rate = \"60Mbit\"; };\n";

static void setup(void)
{
	fx_need_root();
	fabric_down(P, NULL);
	tr_set_congestion("cubic");
}
static void teardown(void) { if (geteuid() == 0) fabric_down(P, NULL); }

TestSuite(ocs, .init = setup, .fini = teardown, .timeout = 120);

struct flows_job { struct tr_flow *f; int n; double warm, secs; int rc; };

static void *flows_thread(void *arg)
{
	struct flows_job *j = arg;
	j->rc = tr_run_flows(j->f, j->n, j->warm, j->secs);
	return NULL;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	nanosleep(&ts, NULL);
}

struct sample { uint64_t opt_tx[4], up_tx[4], opt_rx[4]; };

static void take(struct sample *s)
{
	for (int r = 0; r < 4; r++) {
		char ns[32];
		sprintf(ns, P "-tor%d", r);
		cr_assert_eq(tr_link_counters(ns, "o0", &s->opt_tx[r], &s->opt_rx[r], NULL, NULL), 0);
		cr_assert_eq(tr_link_counters(ns, "up", &s->up_tx[r], NULL, NULL, NULL), 0);
	}
}

static double mbps(uint64_t a, uint64_t b, double secs) { return (double)(b - a) * 8 / secs / 1e6; }

/* Waits until racks ra and rb both send over their circuits, so the rate
 * windows start on moving flows: a connection can take a SYN retransmit
 * (1 s) to open, which fixed sleeps after starting the flows once missed in
 * CI. */
static void wait_circuits_busy(int ra, int rb)
{
	struct sample s0, s1;
	take(&s0);
	for (int i = 0; i < 50; i++) {
		sleep_s(0.1);
		take(&s1);
		if (mbps(s0.opt_tx[ra], s1.opt_tx[ra], 0.1) > 10 && mbps(s0.opt_tx[rb], s1.opt_tx[rb], 0.1) > 10)
			return;
		s0 = s1;
	}
	cr_assert_fail("racks %d and %d sent nothing over their circuits within 5 s", ra, rb);
}

static struct fabric *open_fabric(void)
{
	char err[FABRIC_ERR_LEN];
	struct fabric *f = fabric_open(P, err);
	cr_assert_not_null(f, "%s", err);
	return f;
}

static void tick(struct ocs_ctl *c, struct ocs_event *ev, const char *want)
{
	char err[FABRIC_ERR_LEN], spec[256];
	cr_assert_eq(ocs_tick(c, ev, err), 0, "%s", err);
	circuits_format(&c->fab->circuits, spec, sizeof spec);
	cr_assert_str_eq(spec, want, "matching chose %s, expected %s", spec, want);
}

Test(ocs, reconfiguration_moves_circuit_traffic_and_the_log_says_so)
{
	struct topo t;
	char err[FABRIC_ERR_LEN], logpath[] = "/tmp/emu-itocs-XXXXXX";
	close(mkstemp(logpath));
	fx_up(P, topo4, &t);
	struct fabric *f = open_fabric();
	struct ocs_ctl c;
	struct ocs_params p;
	ocs_params_default(&p);
	cr_assert_eq(ocs_ctl_init(&c, f, &p, NULL, logpath, err), 0, "%s", err);

	/* Phase 1: demand 0->1 and 2->3. */
	struct ocs_event ev1, ev2;
	ocs_demand_set(&c, 0, 1, 100000000);
	ocs_demand_set(&c, 2, 3, 100000000);
	ocs_demand_set(&c, 0, 3, 1000);
	tick(&c, &ev1, "0>1,2>3");
	struct ocs_event again;
	tick(&c, &again, "0>1,2>3");
	cr_assert_eq(again.changed, 0, "an unchanged configuration must not reconfigure");

	struct tr_flow fl[2] = {
		{.src_ns = P "-r0h0", .dst_ns = P "-r1h0", .dst_addr = "198.18.1.1", .tos = CIRCUIT_TOS},
		{.src_ns = P "-r2h0", .dst_ns = P "-r3h0", .dst_addr = "198.18.3.1", .tos = CIRCUIT_TOS},
	};
	struct flows_job job = {fl, 2, 0.5, 7.5, -1};
	pthread_t th;
	pthread_create(&th, NULL, flows_thread, &job);
	struct sample a, b, cc, d;
	wait_circuits_busy(0, 2);
	sleep_s(0.5);
	take(&a);
	sleep_s(1.5);
	take(&b);

	/* Phase 2: the demand moves to 0->3 and 2->1: the flows lose their
	 * circuits and fall back to the EPS. */
	ocs_demand_set(&c, 0, 1, 0);
	ocs_demand_set(&c, 2, 3, 0);
	ocs_demand_set(&c, 0, 3, 200000000);
	ocs_demand_set(&c, 2, 1, 200000000);
	tick(&c, &ev2, "0>3,2>1");
	sleep_s(0.3);
	take(&cc);
	sleep_s(1.5);
	take(&d);
	pthread_join(th, NULL);
	cr_assert_eq(job.rc, 0, "%s", tr_errmsg());

	double p1_opt0 = mbps(a.opt_tx[0], b.opt_tx[0], 1.5), p1_up0 = mbps(a.up_tx[0], b.up_tx[0], 1.5);
	double p1_opt2 = mbps(a.opt_tx[2], b.opt_tx[2], 1.5), p1_rx3 = mbps(a.opt_rx[3], b.opt_rx[3], 1.5);
	double p2_opt0 = mbps(cc.opt_tx[0], d.opt_tx[0], 1.5), p2_up0 = mbps(cc.up_tx[0], d.up_tx[0], 1.5);
	double p2_up2 = mbps(cc.up_tx[2], d.up_tx[2], 1.5), p2_rx3 = mbps(cc.opt_rx[3], d.opt_rx[3], 1.5);
	cr_log_info("phase 1 (0>1,2>3): tor0 o0 %.1f, up %.2f; tor2 o0 %.1f; tor3 o0 rx %.1f Mbit/s", p1_opt0, p1_up0,
		    p1_opt2, p1_rx3);
	cr_log_info("phase 2 (0>3,2>1): tor0 o0 %.2f, up %.1f; tor2 up %.1f; tor3 o0 rx %.2f Mbit/s", p2_opt0, p2_up0,
		    p2_up2, p2_rx3);
	/* Phase 1: both flows on their circuits, at twice what the EPS uplink
	 * could carry, and nothing on the EPS. */
	cr_assert(p1_opt0 > 40 && p1_opt2 > 40 && p1_rx3 > 40, "circuit traffic missing in phase 1");
	cr_assert(p1_up0 < 1, "rack 0 sent %.2f Mbit/s over the EPS while its circuit was lit", p1_up0);
	/* Phase 2: no circuit serves the flows: they use the EPS (at its rate),
	 * and nothing reaches rack 3's optical port. */
	cr_assert(p2_opt0 < 1 && p2_rx3 < 1, "circuit traffic in phase 2: %.2f / %.2f", p2_opt0, p2_rx3);
	cr_assert(p2_up0 > 15 && p2_up2 > 15, "EPS fallback %.1f / %.1f Mbit/s", p2_up0, p2_up2);

	/* The log has both configurations, with their dark intervals. */
	FILE *lf = fopen(logpath, "r");
	char line[1024];
	int lines = 0;
	cr_assert_not_null(lf);
	cr_assert_not_null(fgets(line, sizeof line, lf));   /* header */
	while (fgets(line, sizeof line, lf)) {
		double ts, ta, td, tsw, tl, drain, dark, apply;
		int changed;
		char cfg[256];
		cr_assert_eq(sscanf(line, "%lf,%lf,%lf,%lf,%lf,%d,%lf,%lf,%lf,%*d,%*d,%255[^\n]", &ts, &ta, &td, &tsw, &tl,
				    &changed, &drain, &dark, &apply, cfg), 10, "bad log line: %s", line);
		cr_assert_str_eq(cfg, lines == 0 ? "0>1 2>3" : "0>3 2>1");
		cr_assert(ta <= td && td <= tsw && tsw <= tl, "log stamps out of order: %s", line);
		cr_assert(dark >= p.delta_s, "dark %.4f s shorter than delta", dark);
		lines++;
	}
	fclose(lf);
	unlink(logpath);
	cr_assert_eq(lines, 2);
	cr_assert_eq(c.reconfigs, 2);
	ocs_ctl_free(&c);
	fabric_close(f);
}

/* One switch of rack 0's circuit from rack 1 to rack 2 under marked
 * traffic to both, seen by a capture on the crossbar: the gap between the
 * last frame to rack 1 and the first to rack 2, and how long after the
 * logged lighting that first frame came.  Asserts that no frame went to a
 * rack whose circuit was not lit. */
struct switch_seen { double gap, after_lit; };

static struct switch_seen switch_gap(struct fabric *f, struct ocs_ctl *c)
{
	char err[FABRIC_ERR_LEN];
	struct ocs_event ev1, ev2;
	ocs_demand_set(c, 0, 1, 200);
	ocs_demand_set(c, 0, 2, 100);
	tick(c, &ev1, "0>1");

	/* Rack 0 sends marked traffic to racks 1 and 2 all along; the circuit
	 * moves from rack 1 to rack 2 half-way. */
	struct tr_flow fl[2] = {
		{.src_ns = P "-r0h0", .dst_ns = P "-r1h0", .dst_addr = "198.18.1.1", .tos = CIRCUIT_TOS},
		{.src_ns = P "-r0h1", .dst_ns = P "-r2h0", .dst_addr = "198.18.2.1", .tos = CIRCUIT_TOS},
	};
	struct flows_job job = {fl, 2, 0.5, 3.0, -1};
	pthread_t th;
	struct host_id ocs = {HOST_OCS, 0, 0};
	struct capture *cap = capture_start(fabric_ns_fd(f, &ocs), f->root_fd, "r0p0", 1, err);
	cr_assert_not_null(cap, "%s", err);
	pthread_create(&th, NULL, flows_thread, &job);
	wait_circuits_busy(0, 0);
	sleep_s(1.0);
	ocs_demand_set(c, 0, 2, 300);
	tick(c, &ev2, "0>2");
	pthread_join(th, NULL);
	struct cap_pkt *pk;
	size_t n;
	capture_stop(cap, &pk, &n);
	cr_assert_eq(job.rc, 0, "%s", tr_errmsg());

	uint8_t mac1[6], mac2[6];
	plan_mac(MAC_TOR_OPT, 1, 0, 0, mac1);
	plan_mac(MAC_TOR_OPT, 2, 0, 0, mac2);
	double last_old = 0, first_new = 0;
	size_t late_old = 0, early_new = 0;
	for (size_t i = 0; i < n; i++) {
		if (!memcmp(pk[i].dst, mac1, 6)) {
			if (pk[i].ts > ev2.t_switch)
				late_old++;
			else if (pk[i].ts > last_old)
				last_old = pk[i].ts;
		} else if (!memcmp(pk[i].dst, mac2, 6)) {
			if (pk[i].ts < ev2.t_dark)
				early_new++;
			else if (!first_new)
				first_new = pk[i].ts;
		}
	}
	free(pk);
	cr_assert(last_old > 0 && first_new > 0, "no traffic on the old or the new circuit");
	cr_assert_eq(late_old, 0, "%zu frames for rack 1 entered the crossbar after it switched", late_old);
	cr_assert_eq(early_new, 0, "%zu frames for rack 2 entered the crossbar before the change", early_new);
	cr_log_info("%zu frames; gap %.2f ms (logged dark %.2f ms, drain %.2f ms, apply %.3f ms); first frame %.2f ms "
		    "after the logged lighting",
		    n, (first_new - last_old) * 1e3, ev2.dark_s * 1e3, ev2.drain_s * 1e3, ev2.apply_ms,
		    (first_new - ev2.t_lit) * 1e3);
	return (struct switch_seen){first_new - last_old, first_new - ev2.t_lit};
}

Test(ocs, dark_gap_is_delta_and_no_packet_reaches_the_wrong_rack)
{
	struct topo t;
	char err[FABRIC_ERR_LEN];
	fx_up(P, topo4, &t);
	struct fabric *f = open_fabric();
	struct ocs_ctl c;
	struct ocs_params p;
	ocs_params_default(&p);
	cr_assert_eq(ocs_ctl_init(&c, f, &p, NULL, NULL, err), 0, "%s", err);
	ocs_realtime();   /* best effort: tighter timing if permitted */
	/* The gap is never shorter than δ.  It can be longer when the flow to
	 * rack 2 is silent at the switch (a TCP sender in RTO backoff on the
	 * EPS before it: 214 ms once in CI, 222 ms twice in a row once), so a
	 * long gap is measured again, up to three times in all; a slow switch is
	 * slow every time. */
	struct switch_seen w = {0, 0};
	for (int attempt = 0; attempt < 3; attempt++) {
		w = switch_gap(f, &c);
		cr_assert(w.gap >= p.delta_s, "gap %.2f ms shorter than delta", w.gap * 1e3);
		/* Capture and log use the same clock. */
		cr_assert(w.after_lit >= -0.001, "first frame on the new circuit %.2f ms before the logged lighting",
			  -w.after_lit * 1e3);
		if (w.gap < p.delta_s + 0.020 && w.after_lit < 0.010)
			break;
		cr_log_info("attempt %d: gap %.2f ms; measuring again", attempt + 1, w.gap * 1e3);
	}
	cr_assert(w.gap < p.delta_s + 0.020, "gap %.2f ms longer than delta + 20 ms", w.gap * 1e3);
	cr_assert(w.after_lit < 0.010, "first frame on the new circuit %.2f ms after the logged lighting",
		  w.after_lit * 1e3);
	ocs_ctl_free(&c);
	fabric_close(f);
}
