/* Unit tests of the OCS controller's bookkeeping and decisions (no root:
 * the fabric here is only a topology, nothing is applied). */
#include "emu/ocs_ctl.h"
#include <criterion/criterion.h>
#include <string.h>

static struct fabric fab;
static struct ocs_ctl ctl;

static void setup_mode(const char *mode, int ports)
{
	char text[512], err[FABRIC_ERR_LEN];
	if (ctl.demand)   /* the suite's default setup ran first */
		ocs_ctl_free(&ctl);
	snprintf(text, sizeof text,
		 "racks = 4; servers_per_rack = 1; server = { rate = \"1Gbit\"; }; eps = { uplink_rate = \"1Gbit\"; };"
		 "ocs = { rate = \"1Gbit\"; mode = \"%s\"; ports_per_rack = %d; };", mode, ports);
	memset(&fab, 0, sizeof fab);
	cr_assert_eq(topo_load_string(&fab.topo, text, "t", 0, err), 0, "%s", err);
	circuits_clear(&fab.circuits, &fab.topo);
	fab.lit = fab.circuits;
	struct ocs_params p;
	ocs_params_default(&p);
	cr_assert_eq(ocs_ctl_init(&ctl, &fab, &p, NULL, NULL, err), 0, "%s", err);
}

static void teardown(void) { ocs_ctl_free(&ctl); }
static void setup(void) { setup_mode("directed", 1); }

TestSuite(ocs_ctl, .init = setup, .fini = teardown);

static void decide(const char *want)
{
	struct circuit_cfg next;
	int64_t served;
	char spec[256];
	cr_assert_eq(ocs_decide(&ctl, &next, &served), 0);
	circuits_format(&next, spec, sizeof spec);
	cr_assert_str_eq(spec, want);
}

Test(ocs_ctl, demand_bookkeeping)
{
	ocs_demand_set(&ctl, 0, 1, 500);
	ocs_demand_add(&ctl, 0, 1, 250);
	cr_assert_eq(ocs_demand_get(&ctl, 0, 1), 750);
	ocs_demand_add(&ctl, 0, 1, -1000);
	cr_assert_eq(ocs_demand_get(&ctl, 0, 1), 0, "demand floors at zero");
	ocs_demand_set(&ctl, 2, 2, 99);
	cr_assert_eq(ocs_demand_get(&ctl, 2, 2), 0, "no demand from a rack to itself");
	ocs_demand_set(&ctl, 9, 1, 99);   /* out of range: ignored, no crash */
	ocs_demand_set(&ctl, 1, 0, -5);
	cr_assert_eq(ocs_demand_get(&ctl, 1, 0), 0);
}

Test(ocs_ctl, directed_matching_serves_the_most_demand)
{
	/* 0->1 and 1->2 conflict with nothing; 0->2 (300) loses to 0->1 + 1->2 + 2->0 ... */
	ocs_demand_set(&ctl, 0, 1, 100);
	ocs_demand_set(&ctl, 1, 2, 100);
	ocs_demand_set(&ctl, 0, 2, 150);
	ocs_demand_set(&ctl, 3, 2, 120);
	/* Options: {0>1,1>2} = 200 (+ 3 idle) vs {0>2} + nothing into 2 ... = 150,
	 * vs {0>1, 3>2} = 220. */
	decide("0>1,3>2");
	struct circuit_cfg none;
	circuits_clear(&none, &fab.topo);
	ocs_demand_set(&ctl, 0, 1, 0);
	ocs_demand_set(&ctl, 1, 2, 0);
	ocs_demand_set(&ctl, 0, 2, 0);
	ocs_demand_set(&ctl, 3, 2, 0);
	decide("none");   /* no demand, no circuits */
}

Test(ocs_ctl, equal_demand_keeps_the_lit_circuits)
{
	char err[256];
	ocs_demand_set(&ctl, 0, 1, 100);
	ocs_demand_set(&ctl, 0, 2, 100);
	/* Either is optimal: keep what the crossbar has. */
	circuits_parse("0>2", &fab.topo, &fab.circuits, err);
	decide("0>2");
	circuits_parse("0>1", &fab.topo, &fab.circuits, err);
	decide("0>1");
}

Test(ocs_ctl, bidirectional_pairs_racks)
{
	setup_mode("bidirectional", 1);
	ocs_demand_set(&ctl, 0, 1, 100);
	ocs_demand_set(&ctl, 1, 0, 100);
	ocs_demand_set(&ctl, 1, 2, 150);
	ocs_demand_set(&ctl, 2, 3, 60);
	/* {0-1, 2-3} = 260 beats {1-2} = 150. */
	decide("0>1,1>0,2>3,3>2");
}

Test(ocs_ctl, two_ports_give_two_circuits)
{
	setup_mode("directed", 2);
	ocs_demand_set(&ctl, 0, 1, 300);
	ocs_demand_set(&ctl, 0, 2, 200);
	decide("0>1,0>2@1");
}

/* Early reconfiguration gives way only when every lit circuit is served,
 * another pair waits, and the configuration has been lit for 9δ. */
Test(ocs_ctl, early_reconfiguration_rule)
{
	char err[FABRIC_ERR_LEN];
	cr_assert_eq(circuits_parse("0>1", &fab.topo, &fab.circuits, err), 0, "%s", err);
	ocs_demand_set(&ctl, 2, 1, 1000);   /* waits: rack 1 receives from rack 0 */
	cr_assert(!ocs_early_due(&ctl, 10), "off unless asked for");
	ctl.p.early = true;
	ocs_demand_set(&ctl, 0, 1, 1);
	cr_assert(!ocs_early_due(&ctl, 10), "the lit circuit still has work");
	ocs_demand_set(&ctl, 0, 1, 0);
	cr_assert(ocs_early_due(&ctl, 10));
	cr_assert(!ocs_early_due(&ctl, 0.089), "lit for less than 9 delta");
	cr_assert(ocs_early_due(&ctl, 0.090));
	ocs_demand_set(&ctl, 2, 1, 0);
	cr_assert(!ocs_early_due(&ctl, 10), "nobody waits: keep the configuration");
}

/* A circuit that still has work does not keep the others' ports: once a lit
 * circuit is served, a waiting pair that could use its ports (and no busy
 * one's) is due. */
Test(ocs_ctl, early_reconfiguration_frees_served_ports)
{
	char err[FABRIC_ERR_LEN];
	cr_assert_eq(circuits_parse("0>1,2>3", &fab.topo, &fab.circuits, err), 0, "%s", err);
	ctl.p.early = true;
	ocs_demand_set(&ctl, 0, 1, 1000);   /* lit, busy (a slow sender) */
	ocs_demand_set(&ctl, 2, 3, 0);      /* lit, served */
	ocs_demand_set(&ctl, 0, 3, 500);    /* waits, but rack 0's port is busy */
	cr_assert(!ocs_early_due(&ctl, 10), "the waiting pair needs the busy circuit's port");
	ocs_demand_set(&ctl, 2, 1, 500);
	cr_assert(!ocs_early_due(&ctl, 10), "rack 1 receives on the busy circuit");
	ocs_demand_set(&ctl, 3, 2, 500);
	cr_assert(ocs_early_due(&ctl, 10), "3>2 can use the served circuit's ports");
}

/* The racks a reconfiguration pauses (the fidelity check leaves their links
 * out for that second): every lit circuit's ends go dark under the default
 * scope, and the new circuits' ends light; a rack with no circuit before or
 * after is not touched.  With only the changed circuits going dark, a circuit
 * that stays lit touches nobody. */
Test(ocs_ctl, a_reconfiguration_counts_the_racks_it_pauses)
{
	char err[FABRIC_ERR_LEN];
	struct circuit_cfg lit, next;
	cr_assert_eq(circuits_parse("0>1", &fab.topo, &lit, err), 0, "%s", err);
	cr_assert_eq(circuits_parse("0>1,2>0", &fab.topo, &next, err), 0, "%s", err);
	ocs_count_reconfig(&ctl, &lit, &next);
	cr_assert_eq(ctl.reconfigs, 1);
	cr_assert_eq(ocs_rack_changes(&ctl, 0), 1, "0>1 goes dark and relights, 2>0 lights");
	cr_assert_eq(ocs_rack_changes(&ctl, 1), 1);
	cr_assert_eq(ocs_rack_changes(&ctl, 2), 1);
	cr_assert_eq(ocs_rack_changes(&ctl, 3), 0, "no circuit before or after");
	cr_assert_eq(ocs_rack_changes(&ctl, 9), 0, "out of range");
	ctl.p.scope = OCS_DARK_CHANGED;
	cr_assert_eq(circuits_parse("0>1,3>2", &fab.topo, &lit, err), 0, "%s", err);
	ocs_count_reconfig(&ctl, &next, &lit);   /* 2>0 goes, 3>2 comes, 0>1 stays lit */
	cr_assert_eq(ocs_rack_changes(&ctl, 1), 1, "its circuit stayed lit");
	cr_assert_eq(ocs_rack_changes(&ctl, 0), 2);
	cr_assert_eq(ocs_rack_changes(&ctl, 2), 2);
	cr_assert_eq(ocs_rack_changes(&ctl, 3), 1);
}
