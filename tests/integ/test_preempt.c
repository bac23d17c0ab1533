/* Preemption on the emulator (root): a 3-stage job and a 2-job chain with
 * real bytes; one map is suspended and resumed, one reduce killed while it
 * fetches; every job finishes and every shuffle byte is counted once. */
#include "fabric_fixture.h"
#include "emu/run.h"
#include "../preempt_fixture.h"
#include <jansson.h>
#include <stdlib.h>

#define P "itpre"
#define RESULTS "/tmp/emu-itpre-results"

static void setup(void)
{
	fx_need_root();
	fabric_down(P, NULL);
}
static void teardown(void)
{
	if (geteuid() == 0)
		fabric_down(P, NULL);
	if (system("rm -rf " RESULTS)) { /* best effort */ }
}
TestSuite(preempt_emu, .init = setup, .fini = teardown, .timeout = 180);

static const char *topo_text =
	"name = \"itpre\"; racks = 2; servers_per_rack = 3;\n"
	"server = { rate = \"100Mbit\"; containers = 2; };\n"
	"eps = { uplink_rate = \"100Mbit\"; };\n";

static const char *jobs_text =
	"{\"scaled\": true, \"jobs\": [\n"
	" {\"name\": \"dag\", \"input\": 12000000, \"stages\": [\n"
	"   {\"name\": \"read\", \"tasks\": 6, \"work\": 1.0, \"output\": 24000000},\n"
	"   {\"name\": \"mid\", \"tasks\": 3, \"work\": 0.5, \"output\": 6000000, \"parents\": {\"read\": \"shuffle\"}},\n"
	"   {\"name\": \"last\", \"tasks\": 3, \"work\": 0.3, \"output\": 1000, \"parents\": {\"mid\": \"one-to-one\"}}]},\n"
	" {\"name\": \"first\", \"input\": 4000000, \"maps\": 2, \"reduces\": 1, \"shuffle\": 4000000,"
	"  \"output\": 3000000, \"map_duration\": 0.5, \"reduce_duration\": 0.3},\n"
	" {\"name\": \"next\", \"deps\": [\"first\"], \"lineage\": true, \"maps\": 2, \"reduces\": 1,"
	"  \"shuffle\": 2000000, \"output\": 1000, \"map_duration\": 0.4, \"reduce_duration\": 0.3}\n"
	"]}\n";

Test(preempt_emu, a_suspended_and_a_killed_task_and_every_byte_adds_up)
{
	char err[512], agent[600], wl[] = "/tmp/emu-itpre-wl-XXXXXX";
	struct topo t;
	cr_assert_eq(topo_load_string(&t, topo_text, "itpre.conf", 0, err), 0, "%s", err);
	int fd = mkstemp(wl);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, jobs_text, strlen(jobs_text)), (ssize_t)strlen(jobs_text));
	close(fd);
	struct workload w;
	struct workload_params wp;
	workload_params_default(&wp);
	cr_assert_eq(workload_read(&w, wl, &wp, 0, err), 0, "%s", err);
	unlink(wl);
	fx_bin_path("emu-agent", agent, sizeof agent);
	px_nwants = 2;
	px_wants[0] = (struct px_want){.op = PREEMPT_SUSPEND, .kind = TASK_MAP, .job = 0, .at = 0.3, .victim = -1};
	px_wants[1] = (struct px_want){.op = PREEMPT_KILL, .kind = TASK_REDUCE, .job = 0, .maps_done = 1, .at = 0,
				       .victim = -1};
	struct run_params p;
	run_params_default(&p);
	p.prefix = P;
	p.sched_ops = px_policy();
	p.results_root = RESULTS;
	p.run_name = "pre";
	p.quiet = true;
	p.agent_path = agent;
	p.recovery_s = 0.5;
	p.timeout_s = 120;
	cr_assert_eq(run_experiment(&t, &w, &p, err), 0, "%s", err);
	cr_assert_eq(fx_ip_netns_count(P), 0, "the fabric must be gone after the run");
	json_error_t je;
	json_t *s = json_load_file(RESULTS "/default/fair/pre/summary.json", 0, &je);
	cr_assert_not_null(s, "%s", je.text);
	cr_assert_eq(json_integer_value(json_object_get(s, "jobs_finished")), 3);
	json_t *pre = json_object_get(s, "preemptions"), *b = json_object_get(s, "agent_bytes");
	cr_assert_eq(json_integer_value(json_object_get(pre, "kills")), 1);
	cr_assert_eq(json_integer_value(json_object_get(pre, "suspends")), 1);
	const struct task *sus = &w.tasks[px_wants[0].victim], *kil = &w.tasks[px_wants[1].victim];
	cr_assert(sus->suspends == 1 && sus->attempts == 1 && sus->state == TASK_DONE);
	cr_assert(kil->kills == 1 && kil->attempts == 2 && kil->state == TASK_DONE);
	cr_assert_geq(sus->t_end - sus->t_start, sus->duration_s + 0.5 - 0.05, "its work and the recovery delay");
	uint64_t want = 0;
	for (int i = 0; i < w.ntasks; i++)
		want += w.tasks[i].kind == TASK_REDUCE ? w.tasks[i].input_bytes : 0;
	json_int_t got = json_integer_value(json_object_get(b, "shuffle_network")) +
			 json_integer_value(json_object_get(b, "shuffle_local")) -
			 json_integer_value(json_object_get(b, "shuffle_discarded"));
	cr_assert_eq((uint64_t)got, want, "fetched and kept %lld, the reduces read %llu", (long long)got,
		     (unsigned long long)want);
	json_decref(s);
	workload_free(&w);
}
