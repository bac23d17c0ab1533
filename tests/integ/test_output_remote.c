/* A task's output written to another server's disk on the emulator (root):
 * the policy's output_server hook (as FAWKES keeps a TR server's outputs on
 * a core server) sends the bytes over the fabric onto that server's disk,
 * and the task ends once they are written, as on the simulator.  Two
 * servers, one task slot each: a fast disk (40 MB/s) and a slow one (2 MB/s)
 * that keeps every output; two tasks of 2 MB output each, one per server,
 * share the slow disk's write side; one killed while its output is written
 * runs again and writes it again. */
#include "fabric_fixture.h"
#include "emu/run.h"
#include "emu/sched.h"
#include "../preempt_fixture.h"
#include <jansson.h>
#include <stdlib.h>

#define P "itout"
#define RESULTS "/tmp/emu-itout-results"

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
TestSuite(output_remote, .init = setup, .fini = teardown, .timeout = 120);

static const char *topo_text =
	"name = \"itout\";\n"
	"classes = {\n"
	"  fast = { rate = \"100Mbit\"; containers = 1; disk_read_mbps = 40; disk_write_mbps = 40; };\n"
	"  slow = { rate = \"100Mbit\"; containers = 1; disk_read_mbps = 40; disk_write_mbps = 2; };\n"
	"};\n"
	"racks = ( { servers = { fast = 1; slow = 1; }; } );\n"
	"eps = { uplink_rate = \"100Mbit\"; };\n"
	"ocs = { enabled = false; };\n";

static const char *jobs_text =
	"{\"scaled\": true, \"jobs\": [\n"
	" {\"name\": \"tr\", \"input\": 2000, \"stages\": [\n"
	"   {\"name\": \"m\", \"tasks\": 2, \"work\": 0.3, \"output\": 4000000}]}\n"
	"]}\n";

static int slow_disk(struct sched *s, const struct task *t)
{
	(void)s;
	(void)t;
	return 1;
}

static int other_server(struct sched *s, const struct task *t)
{
	(void)s;
	return 1 - t->server;
}

/* The workload under `ops`; w is left loaded. */
static void run(struct sched_ops *ops, struct workload *w)
{
	char err[512], agent[600], wl[] = "/tmp/emu-itout-wl-XXXXXX";
	struct topo t;
	cr_assert_eq(topo_load_string(&t, topo_text, "itout.conf", 0, err), 0, "%s", err);
	int fd = mkstemp(wl);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, jobs_text, strlen(jobs_text)), (ssize_t)strlen(jobs_text));
	close(fd);
	struct workload_params wp;
	workload_params_default(&wp);
	cr_assert_eq(workload_read(w, wl, &wp, 0, err), 0, "%s", err);
	unlink(wl);
	fx_bin_path("emu-agent", agent, sizeof agent);
	struct run_params p;
	run_params_default(&p);
	p.prefix = P;
	p.sched_ops = ops;
	p.results_root = RESULTS;
	p.run_name = "out";
	p.quiet = true;
	p.agent_path = agent;
	p.timeout_s = 60;
	cr_assert_eq(run_experiment(&t, w, &p, err), 0, "%s", err);
	cr_assert_eq(w->ntasks, 2);
}

Test(output_remote, a_remote_output_costs_the_destinations_disk_time)
{
	static struct sched_ops ops;
	ops = *sched_find("fair");
	ops.output_server = slow_disk;
	struct workload w;
	run(&ops, &w);
	int on[2] = {0, 0};
	for (int i = 0; i < w.ntasks; i++) {
		const struct task *k = &w.tasks[i];
		cr_assert_eq(k->state, TASK_DONE);
		cr_assert(k->server == 0 || k->server == 1, "task %d on server %d", i, k->server);
		on[k->server]++;
		/* 0.3 s of work, then 4 MB in all onto the 2 MB/s disk: about
		 * 2 s each (the fast disk alone would take 0.05 s). */
		double took = k->t_end - k->t_start;
		cr_assert(took > 2.1 && took < 3.2, "task %d on server %d: %.3f s", i, k->server, took);
	}
	cr_assert(on[0] == 1 && on[1] == 1, "one task per server (%d, %d)", on[0], on[1]);
	workload_free(&w);
}

Test(output_remote, a_task_killed_while_its_output_is_written_writes_it_again)
{
	px_nwants = 1;
	px_wants[0] = (struct px_want){.op = PREEMPT_KILL, .kind = TASK_MAP, .job = 0, .at = 0.6, .victim = -1};
	static struct sched_ops ops;
	ops = *px_policy();
	/* Each output on the other server: the one on the fast server is on the
	 * slow disk from 0.3 to 1.3 s, the other's done by 0.4 s: the kill at
	 * 0.6 s finds only the first running, writing. */
	ops.output_server = other_server;
	struct workload w;
	run(&ops, &w);
	cr_assert_geq(px_wants[0].victim, 0, "nothing was killed");
	const struct task *k = &w.tasks[px_wants[0].victim];
	cr_assert(k->kills == 1 && k->attempts == 2 && k->state == TASK_DONE, "kills %d attempts %d", k->kills,
		  k->attempts);
	/* The second attempt starts at the kill, computes 0.3 s and writes its
	 * 2 MB again: on the slow disk if it ran on the fast server again, at
	 * first beside the first attempt's write (which goes on; 1.36 MB left at
	 * the kill), so about 1.7 s, of which the first write's end at ~1.1 s
	 * must not be taken for its own; else on the fast disk, ~0.35 s. */
	cr_assert_geq(k->t_start, px_wants[0].when - 0.05);
	double took = k->t_end - k->t_start;
	if (k->server == 0)
		cr_assert(took > 1.4 && took < 2.4, "second attempt on the fast server: %.3f s", took);
	else
		cr_assert(took > 0.3 && took < 0.8, "second attempt on the slow server: %.3f s", took);
	for (int i = 0; i < w.ntasks; i++)
		cr_assert_eq(w.tasks[i].state, TASK_DONE);
	workload_free(&w);
}
