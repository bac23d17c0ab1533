/* The simulator's network model on hand-computed cases. */
#include "emu/sim_net.h"
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#define PAYLOAD(bps) ((double)(bps) / 8 * 1448.0 / 1514.0)   /* payload bytes/s of a link */

static struct simnet *net(struct topo *t, const char *text, bool hold)
{
	char err[TOPO_ERR_LEN];
	cr_assert_eq(topo_load_string(t, text, "t.conf", 0, err), 0, "%s", err);
	struct simnet *n = simnet_new(t, hold);
	cr_assert_not_null(n);
	return n;
}

/* 3 racks x 2 servers, 100 Mbit/s servers, 30 Mbit/s uplinks, no OCS. */
static const char eps3[] = "racks = 3;\nservers_per_rack = 2;\nserver = { rate = \"100Mbit\"; };\n"
			   "eps = { uplink_rate = \"30Mbit\"; };\n";
/* The same with one 60 Mbit/s optical port per rack. */
static const char ocs3[] = "racks = 3;\nservers_per_rack = 2;\nserver = { rate = \"100Mbit\"; };\n"
			   "eps = { uplink_rate = \"30Mbit\"; };\nocs = { ports_per_rack = 1; rate = \"60Mbit\"; };\n";

/* The circuit 0>1, and no circuit. */
static void lit_0to1_and_none(const struct topo *t, struct circuit_cfg *lit, struct circuit_cfg *none)
{
	char err[TOPO_ERR_LEN];
	cr_assert_eq(circuits_parse("0>1", t, lit, err), 0, "%s", err);
	circuits_clear(none, t);
}

Test(simnet, single_bottleneck_is_shared_equally)
{
	struct topo t;
	struct simnet *n = net(&t, eps3, true);
	/* Both servers of rack 0 send to rack 1: the 30 Mbit/s uplink splits. */
	int a = simnet_add(n, 0, 0, 2, 1000000, false, 1), b = simnet_add(n, 0, 1, 3, 1000000, false, 2);
	simnet_allocate(n, 0);
	cr_assert_float_eq(simnet_rate(n, a), PAYLOAD(30e6) / 2, 1e-6);
	cr_assert_float_eq(simnet_rate(n, b), PAYLOAD(30e6) / 2, 1e-6);
	/* An intra-rack flow is limited by the server links only. */
	int c = simnet_add(n, 0, 4, 5, 1000000, false, 3);
	simnet_allocate(n, 0);
	cr_assert_float_eq(simnet_rate(n, c), PAYLOAD(100e6), 1e-6);
	simnet_free(n);
}

Test(simnet, a_server_with_a_faster_tx_rate_feeds_two_receivers)
{
	struct topo t;
	/* Server 0 sends to both other servers of its rack.  At 100 Mbit/s both
	 * ways its egress halves the two flows; sending at 1 Gbit/s, each
	 * flow gets its receiver's 100 Mbit/s. */
	static const char sym[] = "racks = 2;\nservers_per_rack = 3;\nserver = { rate = \"100Mbit\"; };\n"
				  "eps = { uplink_rate = \"30Mbit\"; };\n";
	static const char fast[] = "racks = 2;\nservers_per_rack = 3;\n"
				   "server = { rate = \"100Mbit\"; tx_rate = \"1Gbit\"; };\n"
				   "eps = { uplink_rate = \"30Mbit\"; };\n";
	const char *text[2] = {sym, fast};
	double want[2] = {PAYLOAD(100e6) / 2, PAYLOAD(100e6)};
	for (int i = 0; i < 2; i++) {
		struct simnet *n = net(&t, text[i], true);
		int a = simnet_add(n, 0, 0, 1, 1000000, false, 1), b = simnet_add(n, 0, 0, 2, 1000000, false, 2);
		simnet_allocate(n, 0);
		cr_assert_float_eq(simnet_rate(n, a), want[i], 1e-6, "%s", text[i]);
		cr_assert_float_eq(simnet_rate(n, b), want[i], 1e-6, "%s", text[i]);
		/* The receiving side keeps its rate: two senders into server 1. */
		int c = simnet_add(n, 0, 2, 1, 1000000, false, 3);
		simnet_allocate(n, 0);
		cr_assert_float_eq(simnet_rate(n, a) + simnet_rate(n, c), PAYLOAD(100e6), 1e-6, "%s", text[i]);
		simnet_free(n);
	}
}

Test(simnet, two_bottlenecks_max_min)
{
	struct topo t;
	struct simnet *n = net(&t, eps3, true);
	/* f1 r0->r1, f2 r0->r2, f3 and f4 r2->r1.  Rack 1's downlink carries
	 * f1, f3, f4: 10 each; f2 then gets what rack 0's uplink has left: 20. */
	int f1 = simnet_add(n, 0, 0, 2, 1 << 20, false, 1);
	int f2 = simnet_add(n, 0, 1, 4, 1 << 20, false, 2);
	int f3 = simnet_add(n, 0, 4, 3, 1 << 20, false, 3);
	int f4 = simnet_add(n, 0, 5, 2, 1 << 20, false, 4);
	simnet_allocate(n, 0);
	double u = PAYLOAD(30e6);
	cr_assert_float_eq(simnet_rate(n, f1), u / 3, 1e-6);
	cr_assert_float_eq(simnet_rate(n, f3), u / 3, 1e-6);
	cr_assert_float_eq(simnet_rate(n, f4), u / 3, 1e-6);
	cr_assert_float_eq(simnet_rate(n, f2), 2 * u / 3, 1e-6);
	simnet_free(n);
}

Test(simnet, circuit_eps_hold_and_fallback)
{
	struct topo t;
	struct simnet *hold = net(&t, ocs3, true), *fb = simnet_new(&t, false);
	struct circuit_cfg lit;
	char err[TOPO_ERR_LEN];
	cr_assert_eq(circuits_parse("0>1", &t, &lit, err), 0, "%s", err);
	for (int k = 0; k < 2; k++) {
		struct simnet *n = k ? fb : hold;
		simnet_set_lit(n, &lit);
		int circ = simnet_add(n, 0, 0, 2, 1 << 20, true, 1);   /* r0 -> r1: the circuit */
		int eps = simnet_add(n, 0, 1, 3, 1 << 20, false, 2);   /* r0 -> r1 unmarked: the EPS */
		int dark = simnet_add(n, 0, 0, 4, 1 << 20, true, 3);   /* r0 -> r2: no circuit */
		simnet_allocate(n, 0);
		cr_assert_float_eq(simnet_rate(n, circ), PAYLOAD(60e6), 1e-6, "the circuit's rate");
		if (!k) {   /* hold: waits, the EPS flow has the uplink alone */
			cr_assert_float_eq(simnet_rate(n, dark), 0, 1e-9);
			cr_assert_float_eq(simnet_rate(n, eps), PAYLOAD(30e6), 1e-6);
		} else {    /* fallback: shares the uplink */
			cr_assert_float_eq(simnet_rate(n, dark), PAYLOAD(30e6) / 2, 1e-6);
			cr_assert_float_eq(simnet_rate(n, eps), PAYLOAD(30e6) / 2, 1e-6);
		}
		/* Demand counts eligible bytes, lit or not. */
		int64_t d[9];
		simnet_demand(n, 0, d);
		cr_assert_eq(d[0 * 3 + 1], 1 << 20);
		cr_assert_eq(d[0 * 3 + 2], 1 << 20);
		cr_assert_eq(d[1 * 3 + 0], 0);
		/* Circuit dark: the circuit flow moves to the EPS or waits. */
		struct circuit_cfg none;
		circuits_clear(&none, &t);
		simnet_set_lit(n, &none);
		simnet_allocate(n, 0);
		cr_assert_float_eq(simnet_rate(n, circ), k ? PAYLOAD(30e6) / 3 : 0, 1e-6);
	}
	simnet_free(hold);
	simnet_free(fb);
}

/* A held flow keeps its place through dark and lit spells: it stays active
 * and in the demand with what it has left, resumes at the circuit's rate
 * when its circuit lights again, and can be removed while it waits. */
Test(simnet, held_flows_wait_with_their_remainder_and_resume_when_lit)
{
	struct topo t;
	struct simnet *n = net(&t, ocs3, true);
	struct circuit_cfg lit, none;
	lit_0to1_and_none(&t, &lit, &none);
	const double r = PAYLOAD(60e6);
	int a = simnet_add(n, 0, 0, 2, 1000000, true, 1);
	int b = simnet_add(n, 0, 1, 3, 1000000, true, 2);
	int c = simnet_add(n, 0, 0, 4, 1000000, true, 3);   /* r0 -> r2: never lit */
	simnet_allocate(n, 0);
	cr_assert_eq(simnet_active(n), 3);
	cr_assert_float_eq(simnet_rate(n, a), 0, 1e-9);
	simnet_set_lit(n, &lit);   /* 0.1 s at half the circuit each */
	simnet_allocate(n, 1);
	cr_assert_float_eq(simnet_rate(n, a), r / 2, 1e-6);
	cr_assert_float_eq(simnet_rate(n, b), r / 2, 1e-6);
	simnet_set_lit(n, &none);
	simnet_allocate(n, 1.1);
	double left = 1000000 - r / 2 * 0.1;
	cr_assert_float_eq(simnet_remaining(n, a, 5), left, 1e-3, "held: nothing moves");
	int64_t d[9];
	simnet_demand(n, 5, d);
	cr_assert_eq(d[0 * 3 + 1], 2 * (int64_t)left);
	cr_assert_eq(d[0 * 3 + 2], 1000000);
	uint64_t bytes;
	cr_assert_eq(simnet_remove(n, b, 5, &bytes), 2);   /* aborted while held */
	cr_assert_eq(bytes, 1000000);
	cr_assert_eq(simnet_active(n), 2);
	simnet_demand(n, 5, d);
	cr_assert_eq(d[0 * 3 + 1], (int64_t)left);
	simnet_set_lit(n, &lit);
	simnet_allocate(n, 5);
	cr_assert_float_eq(simnet_rate(n, a), r, 1e-6, "alone on the circuit now");
	int done;
	cr_assert_float_eq(simnet_next_done(n, &done), 5 + left / r, 1e-9);
	cr_assert_eq(done, a);
	cr_assert_float_eq(simnet_rate(n, c), 0, 1e-9);
	simnet_free(n);
}

Test(simnet, completion_times_and_counters)
{
	struct topo t;
	struct simnet *n = net(&t, eps3, true);
	double u = PAYLOAD(30e6);
	int a = simnet_add(n, 0, 0, 2, 3000000, false, 7), b = simnet_add(n, 0, 1, 3, 1000000, false, 8);
	simnet_allocate(n, 0);
	int f = -1;
	/* b finishes first, at 1 MB over half the uplink. */
	double tb = 1000000 / (u / 2);
	cr_assert_float_eq(simnet_next_done(n, &f), tb, 1e-9);
	cr_assert_eq(f, b);
	uint64_t bytes;
	cr_assert_eq(simnet_remove(n, b, tb, &bytes), 8);
	cr_assert_eq(bytes, 1000000);
	simnet_allocate(n, tb);
	/* a has 2 MB left and the whole uplink now. */
	cr_assert_float_eq(simnet_remaining(n, a, tb), 2000000, 1e-3);
	cr_assert_float_eq(simnet_next_done(n, &f), tb + 2000000 / u, 1e-9);
	cr_assert_eq(f, a);
	double end = tb + 2000000 / u;
	simnet_remove(n, a, end, NULL);
	/* Rack 0's uplink sent 4 MB of payload in frames; rack 1's received it;
	 * rack 1 sent the ACKs back. */
	struct link_stats *s;
	int count;
	cr_assert_eq(simnet_stats(n, end + 5, &s, &count), 0);
	cr_assert_eq(count, 3 * 2 + 3);
	for (int i = 0; i < count; i++)
		if (s[i].cls == LINK_UPLINK && s[i].rack == 0) {
			cr_assert_float_eq((double)s[i].tx_bytes, 4e6 * 1514 / 1448, 2);
			cr_assert_float_eq((double)s[i].rx_bytes, 4e6 * 66 / 2896, 2);
		} else if (s[i].cls == LINK_UPLINK && s[i].rack == 1) {
			cr_assert_float_eq((double)s[i].rx_bytes, 4e6 * 1514 / 1448, 2);
		}
	free(s);
	cr_assert_eq(simnet_active(n), 0);
	cr_assert(isinf(simnet_next_done(n, &f)));
	simnet_free(n);
}

Test(simnet, zero_byte_flow_is_done_at_once)
{
	struct topo t;
	struct simnet *n = net(&t, eps3, true);
	int f = -1, z = simnet_add(n, 2.5, 0, 2, 0, false, 1);
	cr_assert_float_eq(simnet_next_done(n, &f), 2.5, 1e-12);
	cr_assert_eq(f, z);
	simnet_free(n);
}

Test(simnet, flow_with_a_rounding_remainder_completes_when_held)
{
	/* A circuit flow has sent all but a fraction of a byte (floating-point
	 * rounding) when its circuit goes dark.  Held at rate 0 it must still
	 * complete now: it once never did, and with no whole byte left to
	 * demand the OCS never lit its circuit again (GENI online runs hung
	 * with reduces waiting for it: 0.1 and 0.9 byte left). */
	struct topo t;
	struct simnet *n = net(&t, ocs3, true);
	struct circuit_cfg lit, none;
	lit_0to1_and_none(&t, &lit, &none);
	simnet_set_lit(n, &lit);
	int f = -1, circ = simnet_add(n, 0, 0, 2, 1000000, true, 1);
	simnet_allocate(n, 0);
	double rate = simnet_rate(n, circ), t_dark = (1000000 - 0.9) / rate;
	simnet_set_lit(n, &none);
	simnet_allocate(n, t_dark);
	cr_assert_float_eq(simnet_next_done(n, &f), t_dark, 1e-9, "0.9 byte left: done when the circuit goes dark");
	cr_assert_eq(f, circ);
	simnet_free(n);
}

/* Max-min rates by plain water-filling over the paths of eps3, to check the
 * allocation against after flows come and go in any order (the allocation
 * visits flows by handle, and removals leave holes that additions reuse). */
static void reference_rates(int nf, const int *src, const int *dst, double *rate)
{
	enum { SRV = 6, RACKS = 3, LINKS = 2 * SRV + 2 * RACKS };
	double cap[LINKS];
	for (int l = 0; l < LINKS; l++)
		cap[l] = l < 2 * SRV ? PAYLOAD(100e6) : PAYLOAD(30e6);
	int path[nf][4], np[nf];
	bool frozen[nf];
	for (int i = 0; i < nf; i++) {
		int sr = src[i] / 2, dr = dst[i] / 2;
		np[i] = 0;
		path[i][np[i]++] = src[i];
		if (sr != dr) {
			path[i][np[i]++] = 2 * SRV + sr;
			path[i][np[i]++] = 2 * SRV + RACKS + dr;
		}
		path[i][np[i]++] = SRV + dst[i];
		frozen[i] = false;
		rate[i] = 0;
	}
	for (;;) {
		int cnt[LINKS] = {0}, best = -1;
		for (int i = 0; i < nf; i++)
			for (int k = 0; k < np[i] && !frozen[i]; k++)
				cnt[path[i][k]]++;
		for (int l = 0; l < LINKS; l++)
			if (cnt[l] && (best < 0 || cap[l] / cnt[l] < cap[best] / cnt[best]))
				best = l;
		if (best < 0)
			return;
		double share = cap[best] / cnt[best];
		for (int i = 0; i < nf; i++) {
			bool on = false;
			for (int k = 0; k < np[i]; k++)
				on |= path[i][k] == best;
			if (!on || frozen[i])
				continue;
			frozen[i] = true;
			rate[i] = share;
			for (int k = 0; k < np[i]; k++)
				cap[path[i][k]] -= share;
		}
	}
}

/* An allocation that leaves a flow's rate leaves its completion time, and
 * its bytes keep being counted on its links. */
Test(simnet, a_flow_whose_rate_stays_keeps_its_end_and_its_counters)
{
	struct topo t;
	struct simnet *n = net(&t, eps3, true);
	double u = PAYLOAD(30e6), s = PAYLOAD(100e6);
	int a = simnet_add(n, 0, 0, 2, 6000000, false, 1), c = simnet_add(n, 0, 4, 5, 10000000, false, 2);
	simnet_allocate(n, 0);
	int f = -1;
	cr_assert_float_eq(simnet_next_done(n, &f), 10e6 / s, 1e-12);
	/* d crosses none of a's or c's links (c's ACKs are not capacity). */
	int d = simnet_add(n, 0.1, 5, 4, 10000000, false, 3);
	simnet_allocate(n, 0.1);
	cr_assert_float_eq(simnet_rate(n, a), u, u * 1e-12);
	cr_assert_float_eq(simnet_rate(n, c), s, s * 1e-12);
	cr_assert_float_eq(simnet_rate(n, d), s, s * 1e-12);
	cr_assert_float_eq(simnet_remaining(n, a, 0.5), 6e6 - u * 0.5, 1e-3);
	double want[3] = {10e6 / s, 0.1 + 10e6 / s, 6e6 / u};
	int order[3] = {c, d, a};
	for (int k = 0; k < 3; k++) {
		cr_assert_float_eq(simnet_next_done(n, &f), want[k], 1e-9, "end %d", k);
		cr_assert_eq(f, order[k]);
		simnet_remove(n, f, want[k], NULL);
		simnet_allocate(n, want[k]);
	}
	struct link_stats *st;
	int count;
	cr_assert_eq(simnet_stats(n, 10, &st, &count), 0);
	for (int i = 0; i < count; i++)
		if (st[i].cls == LINK_UPLINK && st[i].rack == 0)
			cr_assert_float_eq((double)st[i].tx_bytes, 6e6 * 1514 / 1448, 2);
		else if (st[i].cls == LINK_SERVER && st[i].rack == 2 && st[i].server == 1)   /* c in, d's ACKs */
			cr_assert_float_eq((double)st[i].tx_bytes, 10e6 * 1514 / 1448 + 10e6 * 66 / 2896, 2);
	free(st);
	simnet_free(n);
}

/* The tests' generator: one step of a linear congruence (bits 16 and up
 * are drawn). */
static void next_seed(unsigned *seed) { *seed = *seed * 1103515245u + 12345u; }

/* Flows that end at the same time end in the order of their handles,
 * whatever the order they came in. */
Test(simnet, flows_ending_together_end_in_handle_order)
{
	struct topo t;
	struct simnet *n = net(&t, eps3, true);
	int x = simnet_add(n, 0, 0, 4, 1000000, false, 1);
	int y = simnet_add(n, 0, 1, 3, 1000000, false, 2);
	simnet_remove(n, x, 0, NULL);
	int w = simnet_add(n, 0, 0, 2, 1000000, false, 3);   /* x's handle again, after y */
	cr_assert_lt(w, y);
	simnet_allocate(n, 0);
	cr_assert_eq(simnet_rate(n, w), simnet_rate(n, y));
	int f = -1;
	double t1 = simnet_next_done(n, &f);
	cr_assert_eq(f, w);
	simnet_remove(n, f, t1, NULL);
	cr_assert_eq(simnet_next_done(n, &f), t1);
	cr_assert_eq(f, y);
	simnet_free(n);
}

Test(simnet, flows_coming_and_going_in_any_order_keep_max_min_rates)
{
	struct topo t;
	struct simnet *n = net(&t, eps3, true);
	enum { N = 400 };
	int handle[N], src[N], dst[N], live[N], nlive = 0;
	unsigned seed = 12345;
	for (int i = 0; i < N; i++) {
		next_seed(&seed);
		src[i] = (int)(seed >> 16) % 6;
		next_seed(&seed);
		dst[i] = ((int)(seed >> 16) % 5 + src[i] + 1) % 6;   /* never src */
		handle[i] = simnet_add(n, 0, src[i], dst[i], 1000000 + (uint64_t)(seed % 7919) * 1000, false, i);
		cr_assert_geq(handle[i], 0);
		live[nlive++] = i;
		if (i % 3 == 2) {   /* take out one live flow picked by the generator: holes in the handles */
			next_seed(&seed);
			int k = (int)((seed >> 16) % (unsigned)nlive);
			simnet_remove(n, handle[live[k]], 0, NULL);
			live[k] = live[--nlive];
		}
	}
	simnet_allocate(n, 0);
	cr_assert_eq(simnet_active(n), nlive);
	int s[N], d[N];
	double want[N];
	for (int k = 0; k < nlive; k++) {
		s[k] = src[live[k]];
		d[k] = dst[live[k]];
	}
	reference_rates(nlive, s, d, want);
	for (int k = 0; k < nlive; k++)
		cr_assert_float_eq(simnet_rate(n, handle[live[k]]), want[k], want[k] * 1e-9, "flow %d", live[k]);
	/* Drain: every flow ends, in time order, as the first of what is left. */
	double now = 0;
	for (int left = nlive; left > 0; left--) {
		int f = -1;
		double t_next = simnet_next_done(n, &f);
		cr_assert(t_next >= now && isfinite(t_next));
		for (int k = 0; k < nlive; k++)
			if (handle[live[k]] >= 0 && handle[live[k]] != f)
				cr_assert_geq(simnet_remaining(n, handle[live[k]], t_next), -1e-3);
		now = t_next;
		int64_t tag = simnet_remove(n, f, now, NULL);
		cr_assert_eq(handle[tag], f);
		handle[tag] = -1;
		simnet_allocate(n, now);
	}
	cr_assert_eq(simnet_active(n), 0);
	simnet_free(n);
}

/* 12 racks x 8 servers at 100 Mbit/s, 300 Mbit/s uplinks, one 200 Mbit/s
 * optical port per rack: servers, uplinks and circuits can all be the
 * bottleneck. */
enum { MESH_RACKS = 12, MESH_SERVERS = 96 };
static const char mesh[] = "racks = 12;\nservers_per_rack = 8;\nserver = { rate = \"100Mbit\"; };\n"
			   "eps = { uplink_rate = \"300Mbit\"; };\nocs = { ports_per_rack = 1; rate = \"200Mbit\"; };\n";

/* A random matching of the racks as one port's circuits. */
static void random_circuits(const struct topo *t, struct circuit_cfg *lit, unsigned *seed)
{
	circuits_clear(lit, t);
	int perm[MESH_RACKS];
	for (int r = 0; r < MESH_RACKS; r++)
		perm[r] = r;
	for (int i = MESH_RACKS - 1; i > 0; i--) {
		next_seed(seed);
		int j = (int)((*seed >> 16) % (unsigned)(i + 1)), x = perm[i];
		perm[i] = perm[j];
		perm[j] = x;
	}
	for (int r = 0; r < MESH_RACKS; r++)
		if (perm[r] != r)
			lit->out[0][r] = perm[r];
}

/* An allocation that keeps the older flows' rates, or fills all: after
 * every one, with flows coming and going and circuits changing between
 * them, each rate is what a filling of all the flows from scratch gives. */
Test(simnet, allocations_that_keep_rates_give_those_of_a_whole_filling)
{
	struct topo t;
	struct simnet *n = net(&t, mesh, false);
	enum { N = 1500 };
	int handle[N], src[N], dst[N], live[N], nlive = 0, next = 0;
	bool circ[N];
	struct circuit_cfg lit;
	unsigned seed = 4242;
	random_circuits(&t, &lit, &seed);
	simnet_set_lit(n, &lit);
	int step = 1;
	for (; next < N; step++) {
		double now = step * 1e-3;
		/* Every other step, a flow ends and one starts on its path: often
		 * nobody else's rate changes then.  Else flows come and go anywhere. */
		next_seed(&seed);
		bool replace = seed % 2 && nlive > 0;
		for (int k = replace ? 0 : (int)(seed >> 16) % 5; k > 0 && next < N; k--, next++) {
			next_seed(&seed);
			src[next] = (int)(seed >> 16) % MESH_SERVERS;
			next_seed(&seed);
			dst[next] = ((int)(seed >> 16) % (MESH_SERVERS - 1) + src[next] + 1) % MESH_SERVERS;
			circ[next] = seed % 3 == 0;
			handle[next] = simnet_add(n, now, src[next], dst[next], 1ULL << 40, circ[next], next);
			live[nlive++] = next;
		}
		next_seed(&seed);
		for (int k = replace ? 0 : (int)(seed >> 16) % 3; k > 0 && nlive > 0; k--) {
			next_seed(&seed);
			int j = (int)((seed >> 16) % (unsigned)nlive);
			simnet_remove(n, handle[live[j]], now, NULL);
			live[j] = live[--nlive];
		}
		next_seed(&seed);
		if (replace && next < N) {
			int j = (int)((seed >> 16) % (unsigned)nlive), old = live[j];
			simnet_remove(n, handle[old], now, NULL);
			src[next] = src[old];
			dst[next] = dst[old];
			circ[next] = circ[old];
			handle[next] = simnet_add(n, now, src[next], dst[next], 1ULL << 40, circ[next], next);
			live[j] = next++;
		}
		if (step % 40 == 0) {
			random_circuits(&t, &lit, &seed);
			simnet_set_lit(n, &lit);
		}
		simnet_allocate(n, now);
		struct simnet *ref = simnet_new(&t, false);
		cr_assert_not_null(ref);
		simnet_set_lit(ref, &lit);
		int rh[N];
		for (int k = 0; k < nlive; k++)
			rh[k] = simnet_add(ref, now, src[live[k]], dst[live[k]], 1ULL << 40, circ[live[k]], live[k]);
		simnet_allocate(ref, now);
		for (int k = 0; k < nlive; k++) {
			double want = simnet_rate(ref, rh[k]);
			cr_assert_float_eq(simnet_rate(n, handle[live[k]]), want, want * 1e-9, "step %d, flow %d", step,
					   live[k]);
		}
		simnet_free(ref);
	}
	cr_assert_gt(nlive, 100);
	/* Both kinds were checked. */
	cr_assert_gt(simnet_kept(n), 200, "%lld kept of %d", simnet_kept(n), step);
	cr_assert_lt(simnet_kept(n), step - 200, "%lld kept of %d", simnet_kept(n), step);
	simnet_free(n);
}

/* What a link's counters should hold: the flows' rates, as simnet_rate
 * gives them, over the time they had them, on the links their route and
 * their ACKs' route cross (frame bytes).  Indexed by stats order: per rack
 * its servers, its uplink, its optical port. */
enum { MESH_LINKS = MESH_SERVERS + 2 * MESH_RACKS };
struct expect { double tx[MESH_LINKS], rx[MESH_LINKS], marked[MESH_LINKS]; };

static int server_link(int s) { return s / 8 * 10 + s % 8; }
static int uplink(int r) { return r * 10 + 8; }
static int optical(int r) { return r * 10 + 9; }

static void integrate(struct expect *e, struct simnet *n, const struct circuit_cfg *lit, int nf, const int *handle,
		      const int *src, const int *dst, const bool *circ, double dt)
{
	const double wire = 1514.0 / 1448.0, acks = 66.0 / 2896.0;
	for (int i = 0; i < nf; i++) {
		if (handle[i] < 0)
			continue;
		double b = simnet_rate(n, handle[i]) * dt;
		int a = src[i], z = dst[i], ra = a / 8, rz = z / 8;
		e->rx[server_link(a)] += b * wire;   /* up: server to ToR */
		e->tx[server_link(z)] += b * wire;
		e->rx[server_link(z)] += b * acks;
		e->tx[server_link(a)] += b * acks;
		if (ra == rz)
			continue;
		if (circ[i] && lit->out[0][ra] == rz) {
			e->tx[optical(ra)] += b * wire;
			e->rx[optical(rz)] += b * wire;
		} else {
			e->tx[uplink(ra)] += b * wire;
			e->rx[uplink(rz)] += b * wire;
			if (circ[i])
				e->marked[uplink(ra)] += b * wire;
		}
		e->tx[uplink(rz)] += b * acks;
		e->rx[uplink(ra)] += b * acks;
	}
}

/* Link counters against the flows' rates over time, with flows coming,
 * going and finishing (some left running after their end until an
 * allocation finds them done), circuits changing, and circuit-eligible
 * flows on the EPS while their circuit is dark (marked bytes). */
Test(simnet, counters_add_up_the_rates_of_the_flows_on_each_link)
{
	struct topo t;
	struct simnet *n = net(&t, mesh, false);
	enum { N = 1200 };
	int handle[N], src[N], dst[N], next = 0;
	bool circ[N];
	struct circuit_cfg lit;
	struct expect *e = calloc(1, sizeof *e);
	cr_assert_not_null(e);
	unsigned seed = 777;
	random_circuits(&t, &lit, &seed);
	simnet_set_lit(n, &lit);
	double now = 0;
	for (int step = 1; next < N; step++) {
		double t_next = step * 1e-3;
		integrate(e, n, &lit, next, handle, src, dst, circ, t_next - now);
		now = t_next;
		next_seed(&seed);
		for (int k = (int)(seed >> 16) % 5; k > 0 && next < N; k--, next++) {
			next_seed(&seed);
			src[next] = (int)(seed >> 16) % MESH_SERVERS;
			next_seed(&seed);
			dst[next] = ((int)(seed >> 16) % (MESH_SERVERS - 1) + src[next] + 1) % MESH_SERVERS;
			circ[next] = seed % 3 == 0;
			uint64_t bytes = seed % 4 ? 1ULL << 40 : 2000 + seed % 50000;   /* a quarter end soon */
			handle[next] = simnet_add(n, now, src[next], dst[next], bytes, circ[next], next);
		}
		next_seed(&seed);
		for (int k = (int)(seed >> 16) % 3; k > 0; k--) {
			next_seed(&seed);
			int j = (int)((seed >> 16) % (unsigned)next);
			if (handle[j] >= 0) {
				simnet_remove(n, handle[j], now, NULL);
				handle[j] = -1;
			}
		}
		if (step % 40 == 0) {
			random_circuits(&t, &lit, &seed);
			simnet_set_lit(n, &lit);
		}
		simnet_allocate(n, now);
	}
	integrate(e, n, &lit, next, handle, src, dst, circ, 0.5);
	now += 0.5;
	struct link_stats *st;
	int count;
	cr_assert_eq(simnet_stats(n, now, &st, &count), 0);
	cr_assert_eq(count, MESH_LINKS);
	double marked = 0;
	for (int i = 0; i < count; i++) {
		cr_assert_float_eq((double)st[i].tx_bytes, e->tx[i], 2 + e->tx[i] * 1e-9, "link %d tx", i);
		cr_assert_float_eq((double)st[i].rx_bytes, e->rx[i], 2 + e->rx[i] * 1e-9, "link %d rx", i);
		cr_assert_float_eq((double)st[i].marked_tx_bytes, e->marked[i], 2 + e->marked[i] * 1e-9, "link %d marked", i);
		marked += e->marked[i];
	}
	cr_assert_gt(marked, 1e6, "flows on the EPS while their circuit was dark");
	free(st);
	free(e);
	simnet_free(n);
}

/* ---- disks ---------------------------------------------------------------- */

/* 1 rack x 3 servers at 100 Mbit/s (12 MB/s of payload), disks reading at
 * 2 MB/s and writing at 1 MB/s. */
static const char disks3[] = "racks = 1;\nservers_per_rack = 3;\n"
			     "server = { rate = \"100Mbit\"; disk_read_mbps = 2; disk_write_mbps = 1; };\n"
			     "eps = { uplink_rate = \"100Mbit\"; };\n";

Test(simnet, two_readers_on_one_disk_each_get_half)
{
	struct topo t;
	struct simnet *n = net(&t, disks3, false);
	cr_assert(simnet_disk_limited(n, 0, DISK_READ) && simnet_disk_limited(n, 0, DISK_WRITE));
	/* A local read and a remote one off server 0's disk: 1 MB/s each. */
	int a = simnet_add_io(n, 0, 0, 0, 4000000, false, DISK_READ, 1);
	int b = simnet_add_io(n, 0, 0, 1, 4000000, false, DISK_READ, 2);
	/* Writing to the same disk is its other side: not shared with reads. */
	int c = simnet_add_io(n, 0, 2, 0, 4000000, false, DISK_WRITE, 3);
	simnet_allocate(n, 0);
	cr_assert_float_eq(simnet_rate(n, a), 1e6, 1e-6);
	cr_assert_float_eq(simnet_rate(n, b), 1e6, 1e-6);
	cr_assert_float_eq(simnet_rate(n, c), 1e6, 1e-6);
	/* One reader left: the whole disk. */
	simnet_remove(n, a, 1, NULL);
	simnet_allocate(n, 1);
	cr_assert_float_eq(simnet_rate(n, b), 2e6, 1e-6);
	cr_assert_float_eq(simnet_remaining(n, b, 1), 3000000, 1e-3);
	simnet_free(n);
}

Test(simnet, a_remote_read_is_limited_by_the_holders_disk_and_shares_the_network)
{
	struct topo t;
	struct simnet *n = net(&t, disks3, false);
	/* A transient server (1) reads off server 0: its disk, not the
	 * network, limits the read. */
	int a = simnet_add_io(n, 0, 0, 1, 2000000, false, DISK_READ, 1);
	simnet_allocate(n, 0);
	cr_assert_float_eq(simnet_rate(n, a), 2e6, 1e-6);
	int f;
	cr_assert_float_eq(simnet_next_done(n, &f), 1.0, 1e-9);
	/* A network flow into server 1 takes what the read leaves of its link. */
	int b = simnet_add(n, 0, 2, 1, 100000000, false, 2);
	simnet_allocate(n, 0);
	cr_assert_float_eq(simnet_rate(n, a), 2e6, 1e-6);
	cr_assert_float_eq(simnet_rate(n, b), PAYLOAD(100e6) - 2e6, 1e-3);
	simnet_free(n);
}

Test(simnet, a_copy_crosses_both_disks_and_takes_bytes_over_the_slower)
{
	struct topo t;
	struct simnet *n = net(&t, disks3, false);
	/* Re-replication: read at 2 MB/s, written at 1 MB/s: 3 MB take 3 s. */
	int a = simnet_add_io(n, 0, 0, 1, 3000000, false, DISK_READ | DISK_WRITE, 1);
	simnet_allocate(n, 0);
	int f;
	cr_assert_float_eq(simnet_next_done(n, &f), 3.0, 1e-9);
	cr_assert_eq(f, a);
	simnet_free(n);
}

Test(simnet, without_disk_rates_io_is_a_plain_flow_and_local_io_is_instant)
{
	struct topo t;
	struct simnet *n = net(&t, eps3, false);
	cr_assert_not(simnet_disk_limited(n, 0, DISK_READ | DISK_WRITE));
	int a = simnet_add_io(n, 0, 0, 2, 1000000, false, DISK_READ | DISK_WRITE, 1);
	int b = simnet_add(n, 0, 1, 3, 1000000, false, 2);
	int c = simnet_add_io(n, 0, 4, 4, 1000000, false, DISK_READ, 3);
	simnet_allocate(n, 0.5);
	cr_assert_float_eq(simnet_rate(n, a), simnet_rate(n, b), 1e-9);
	cr_assert_float_eq(simnet_rate(n, a), PAYLOAD(30e6) / 2, 1e-6);
	int f;
	cr_assert_float_eq(simnet_next_done(n, &f), 0.5, 1e-12);
	cr_assert_eq(f, c);
	simnet_free(n);
}

Test(simnet, disk_rates_follow_rate_scale)
{
	struct topo t;
	char err[TOPO_ERR_LEN];
	cr_assert_eq(topo_load_string(&t, disks3, "t.conf", 0.1, err), 0, "%s", err);
	cr_assert_float_eq(t.cls[0].disk_read_mbps, 0.2, 1e-12);
	cr_assert_float_eq(t.cls[0].disk_write_mbps, 0.1, 1e-12);
	struct simnet *n = simnet_new(&t, false);
	int a = simnet_add_io(n, 0, 0, 0, 1000000, false, DISK_READ, 1);
	simnet_allocate(n, 0);
	cr_assert_float_eq(simnet_rate(n, a), 0.2e6, 1e-6);
	simnet_free(n);
	cr_assert_neq(topo_load_string(&t, "racks = 1;\nservers_per_rack = 1;\nserver = { rate = \"1Gbit\"; "
					   "disk_read_mbps = -3; };\n", "bad.conf", 0, err), 0);
	cr_assert(strstr(err, "bad.conf:3") && strstr(err, "disk_read_mbps"), "%s", err);
}
