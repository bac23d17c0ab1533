/* Integration test of the dissertation's Chapter 4 systems (root): a tiny
 * batch under JobPacker, F-Hybrid (fair), Corral and F-EPS (fair on an
 * EPS-only fabric as fast as the OCS).  JobPacker aggregates each job's
 * shuffle per rack pair and plans it onto circuits, so most cross-rack
 * bytes cross the OCS; Fair's per-reducer transfers stay below the
 * elephant threshold and cross the EPS.  Measured on the fabric's
 * counters (summary's eps_bytes / ocs_bytes), not computed. */
#include "run_fixture.h"
#include "../ocs_log_fixture.h"
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define P "itc4"
#define RESULTS "/tmp/emu-itc4-results"

static const char *hybrid_text =
	"name = \"itc4\"; racks = 3; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; containers = 2; };\n"
	"eps = { uplink_rate = \"50Mbit\"; };\n"
	"ocs = { rate = \"200Mbit\"; };\n";

/* F-EPS: no OCS, the core as fast as the circuits. */
static const char *eps_text =
	"name = \"itc4e\"; racks = 3; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; containers = 2; };\n"
	"eps = { uplink_rate = \"200Mbit\"; };\n";

/* Three recurring jobs (JobPacker and Corral plan recurring jobs): two
 * shuffle-heavy ones spread over the racks and a small one. */
static const char *workload_text =
	"{\"scaled\": true, \"jobs\": [\n"
	" {\"name\": \"big\", \"submit\": 0, \"input\": 12000000, \"shuffle\": 36000000, \"output\": 1000,"
	"  \"recurring\": true, \"maps\": 12, \"reduces\": 6, \"map_duration\": 0.3, \"reduce_duration\": 0.3},\n"
	" {\"name\": \"mid\", \"submit\": 0, \"input\": 6000000, \"shuffle\": 18000000, \"output\": 1000,"
	"  \"recurring\": true, \"maps\": 6, \"reduces\": 3, \"map_duration\": 0.3, \"reduce_duration\": 0.3},\n"
	" {\"name\": \"small\", \"submit\": 0, \"input\": 200000, \"shuffle\": 100000, \"output\": 1000,"
	"  \"recurring\": true, \"maps\": 2, \"reduces\": 1, \"map_duration\": 0.3, \"reduce_duration\": 0.3}\n"
	"]}\n";
#define TOTAL_SHUFFLE (36000000ULL + 18000000ULL + 100000ULL)

static char hybrid_path[] = "/tmp/emu-itc4-topo-XXXXXX";
static char eps_path[] = "/tmp/emu-itc4-eps-XXXXXX";
static char wl_path[] = "/tmp/emu-itc4-wl-XXXXXX";

static void setup(void)
{
	fx_need_root();
	fabric_down(P, NULL);
	rx_write_file(hybrid_path, hybrid_text);
	rx_write_file(eps_path, eps_text);
	rx_write_file(wl_path, workload_text);
}

static void teardown(void)
{
	rx_teardown(P, (const char *[]){hybrid_path, eps_path, wl_path, NULL}, RESULTS);
}

TestSuite(chapter4, .init = setup, .fini = teardown, .timeout = 240);

struct system {
	const char *name, *scheduler, *topology, *slowstart;
	const char *reconfig;   /* --ocs-reconfig */
	const char *interval;   /* --ocs-interval */
};

/* Run one system to completion; its summary. */
static json_t *run_system(const struct system *sys)
{
	char emu[600], log[128], path[512];
	rx_emu_path(emu, sizeof emu);
	snprintf(log, sizeof log, "/tmp/emu-itc4-%s.log", sys->name);
	const char *argv[] = {emu, "run", "--topology", sys->topology, "--workload", wl_path, "--prefix", P,
			      "--results", RESULTS, "--experiment", "c4", "--run", sys->name, "--scheduler",
			      sys->scheduler, "--slowstart", sys->slowstart, "--elephant", "1MB", "--ocs-interval",
			      sys->interval ? sys->interval : "0.5", "--ocs-reconfig",
			      sys->reconfig ? sys->reconfig : "periodic", "--timeout", "120", "--quiet", NULL};
	int rc = rx_wait_exit(rx_spawn(argv, log));
	cr_assert_eq(rc, 0, "%s: emu run exited %d (see %s)", sys->name, rc, log);
	snprintf(path, sizeof path, RESULTS "/c4/%s/%s/summary.json", sys->scheduler, sys->name);
	json_t *s = rx_summary(path);
	cr_assert_eq(rx_num(s, "jobs_finished"), 3, "%s", sys->name);
	double moved = rx_num(s, "agent_bytes.shuffle_network") + rx_num(s, "agent_bytes.shuffle_local");
	cr_assert_eq((unsigned long long)moved, TOTAL_SHUFFLE, "%s: shuffle bytes %.0f", sys->name, moved);
	cr_log_info("%s: makespan %.2f s, EPS %.0f B, OCS %.0f B (%.0f%%), fidelity %s", sys->name,
		    rx_num(s, "makespan_s"), rx_num(s, "eps_bytes"), rx_num(s, "ocs_bytes"),
		    100 * rx_num(s, "ocs_share"),
		    json_string_value(json_object_get(json_object_get(s, "fidelity"), "verdict")));
	return s;
}

Test(chapter4, jobpacker_puts_most_shuffle_bytes_on_circuits_and_fair_few)
{
	const struct system systems[] = {
		{"JobPacker", "jobpacker", hybrid_path, "0.7", NULL, NULL},
		{"F-Hybrid", "fair", hybrid_path, "0.05", NULL, NULL},
		{"Corral", "corral", hybrid_path, "0.05", NULL, NULL},
		{"F-EPS", "fair", eps_path, "0.05", NULL, NULL},
	};
	json_t *s[4];
	for (int i = 0; i < 4; i++)
		s[i] = run_system(&systems[i]);
	double jp_ocs = rx_num(s[0], "ocs_bytes"), jp_xrack = rx_num(s[0], "cross_rack_bytes");
	/* The plan may keep a job inside one rack (the mid job, 1 × 1, when the
	 * batch ends earlier so); the big job's 3 × 2 racks still cross. */
	cr_assert_gt(jp_xrack, 0.3 * TOTAL_SHUFFLE, "JobPacker's shuffle should cross racks: %.0f B", jp_xrack);
	cr_assert_gt(jp_ocs, 0.8 * jp_xrack, "JobPacker: only %.0f of %.0f cross-rack bytes on circuits", jp_ocs,
		     jp_xrack);
	cr_assert_geq(rx_num(s[0], "ocs.reconfigurations"), 1);
	cr_assert_lt(rx_num(s[1], "ocs_share"), 0.2, "F-Hybrid should send few bytes over circuits");
	cr_assert_gt(rx_num(s[1], "cross_rack_bytes"), 0.5 * TOTAL_SHUFFLE);
	/* Corral keeps a job's maps and reduces on its planned racks. */
	cr_assert_lt(rx_num(s[2], "cross_rack_bytes"), 0.2 * TOTAL_SHUFFLE);
	cr_assert_eq(rx_num(s[3], "ocs_bytes"), 0, "F-EPS has no OCS");
	for (int i = 0; i < 4; i++)
		json_decref(s[i]);
	cr_assert_eq(fx_ip_netns_count(P), 0, "the fabric must be gone after the runs");
}

/* Early reconfiguration on real circuits: a configuration gives way before
 * its interval once its circuits are served (the agents report their
 * pending bytes at once when a rack pair's reach zero), never sooner than
 * 9δ after it was lit, and the shuffle still crosses on circuits.  The
 * interval is 1.5 s: a configuration here serves its pairs in 0.1-0.5 s,
 * so at 0.5 s a slow sanitizer run could serve none early (CI, once). */
Test(chapter4, early_reconfiguration_moves_circuits_once_served)
{
	const struct system jp = {"JobPacker-early", "jobpacker", hybrid_path, "0.7", "early", "1.5"};
	json_t *s = run_system(&jp);
	cr_assert_gt(rx_num(s, "ocs_bytes"), 0.8 * rx_num(s, "cross_rack_bytes"), "early: %.0f of %.0f on circuits",
		     rx_num(s, "ocs_bytes"), rx_num(s, "cross_rack_bytes"));
	json_decref(s);
	struct ocs_log_gaps g = ocs_log_gaps(RESULTS "/c4/jobpacker/JobPacker-early/ocs.csv", 1.5 - 0.02);
	cr_assert_gt(g.rows, 1);
	cr_assert_geq(g.min_after_lit, 0.09 - 0.002, "gave way %.3f s after light", g.min_after_lit);
	cr_assert_gt(g.sooner_than, 0, "no configuration gave way before its interval (%d reconfigurations)", g.rows);

	/* flows.csv: each fetch moved between its request and its end (the
	 * agents' stamps against the controller's, a few ms apart at most), and
	 * in hold mode circuit transfers asked for while their circuit was dark
	 * waited for it. */
	FILE *f = fopen(RESULTS "/c4/jobpacker/JobPacker-early/flows.csv", "r");
	cr_assert_not_null(f);
	char line[512];
	int n = 0;
	double waited = 0;
	cr_assert_not_null(fgets(line, sizeof line, f));
	cr_assert(strstr(line, ",start_s,moved_s,end_s,"), "%s", line);
	while (fgets(line, sizeof line, f)) {
		double start, moved, end;
		int circuit;
		char kind[16];
		cr_assert_eq(sscanf(line, "%*d,%15[^,],%*d,%*d,%*d,%*d,%*d,%*d,%*u,%lf,%lf,%lf,%d", kind, &start, &moved,
				    &end, &circuit), 5, "%s", line);
		if (strcmp(kind, "shuffle"))
			continue;
		cr_assert(moved >= start - 0.005 && moved <= end + 0.005, "%s", line);
		if (circuit)
			waited = fmax(waited, moved - start);
		n++;
	}
	fclose(f);
	cr_assert_gt(n, 10);
	cr_assert_gt(waited, 0.005, "no circuit transfer waited for its circuit (longest %.3f s)", waited);
}
