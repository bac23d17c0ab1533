/* COBRA (seed 001): Af's branches on the notes' vectors
 * (shared/notes/001_cobra.md, Appendix A), Pdelay's thresholds and its
 * free-share gate, leases (packing, grant latency, placement by locality),
 * SRS's two executors, and the seed's Fig. 2 examples through the runtime
 * on the simulator: one job under Default (20 s) and COBRA (12 s), two
 * jobs under static (average 16 s) and dynamic allocation (15 s). */
#include "emu/lease.h"
#include "emu/run.h"
#include "emu/sched.h"
#include "emu/sched/cobra.h"
#include "simrun_fixture.h"
#include "tree_fixture.h"
#include "workload_fixture.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static char root[64], repo[512];
static void setup(void) { tf_setup(root, sizeof root, "/tmp/emu-cobra-XXXXXX", repo, sizeof repo, NULL, 0); }
static void teardown(void) { tf_teardown(root); }
TestSuite(cobra, .init = setup, .fini = teardown);

/* ---- Af ---------------------------------------------------------------- */

/* Appendix A, rho 1.5, delta 0.7: (d, a, u, waited) -> branch, d. */
Test(cobra, af_branches_over_periods)
{
	static const struct { double d; int a; double u; bool waited; enum cobra_af b; double next; } v[] = {
		{1, 1, 0.9, true, AF_SATISFIED, 1.5},
		{1.5, 2, 0.8, true, AF_SATISFIED, 2.25},
		{2.25, 2, 0.95, true, AF_DEPRIVED, 2.25},      /* 2 < ceil(2.25) */
		{2.25, 3, 0.5, false, AF_INEFFICIENT, 1.5},
		{1.5, 2, 0.4, true, AF_SATISFIED, 2.25},       /* low u, but a task waited: case 2.2 */
		{2.25, 3, 0.3, false, AF_INEFFICIENT, 1.5},
		{1.5, 2, 0.1, false, AF_INEFFICIENT, 1.0},
		{1.0, 1, 0.1, false, AF_INEFFICIENT, 1.0},     /* 0.667, held at 1 */
	};
	double d = 1;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		cr_assert_float_eq(d, v[i].d, 1e-9, "period %zu starts at %g", i + 2, d);
		enum cobra_af b;
		d = cobra_af(d, v[i].a, v[i].u, v[i].waited, 1.5, 0.7, &b);
		cr_assert_eq(b, v[i].b, "period %zu", i + 2);
		cr_assert_float_eq(d, v[i].next, 1e-9, "period %zu: %g", i + 2, d);
	}
	/* Efficient at u = delta exactly; deprived when a job got fewer than asked, even if u is low but a task waited. */
	cr_assert_float_eq(cobra_af(2, 2, 0.7, false, 1.5, 0.7, NULL), 3, 1e-9);
	enum cobra_af b;
	cr_assert_float_eq(cobra_af(4, 1, 0.1, true, 3, 0.7, &b), 4, 1e-9);
	cr_assert_eq(b, AF_DEPRIVED);
}

/* ---- Pdelay ------------------------------------------------------------ */

/* Appendix A: tau 0.5, p 10 s: rack after 5 s, anywhere after 10 s with
 * 0.3 of the container free. */
Test(cobra, pdelay_thresholds)
{
	cr_assert(cobra_pdelay_ok(LOCAL_NODE, 0, 5, false), "node-local: at once, whatever is free");
	cr_assert_not(cobra_pdelay_ok(LOCAL_RACK, 4, 5, true));
	cr_assert(cobra_pdelay_ok(LOCAL_RACK, 6, 5, false));
	cr_assert_not(cobra_pdelay_ok(LOCAL_NONE, 9, 5, true));
	cr_assert(cobra_pdelay_ok(LOCAL_NONE, 11, 5, true));
	cr_assert_not(cobra_pdelay_ok(LOCAL_NONE, 30, 5, false), "the gate: less than 1 - delta free");
	cr_assert(cobra_pdelay_ok(LOCAL_RACK, 30, 5, false), "rack-local does not need the gate");
}

static struct topo topo_of(const char *text)
{
	struct topo t;
	char err[TOPO_ERR_LEN];
	cr_assert_eq(topo_load_string(&t, text, "t.conf", 0, err), 0, "%s", err);
	return t;
}

/* Two racks of two servers, one core and 1 GB each (a container each with
 * per_server 1); a job of five maps of 0.2 core / 0.2 GB, 10 s, blocks on
 * server 0 (A), 1 (B, rack-local to 0), 2, 3 and 3 (C, D, E: off-rack). */
static void pdelay_setup(struct sched *s, struct cluster *c, struct workload **wp, const char *tau)
{
	static const char text[] = "classes = { m = { rate = \"1Gbit\"; cores = 1; mem_gb = 1; }; };\n"
				   "racks = ( { repeat = 2; servers = { m = 2; }; } );\n"
				   "eps = { uplink_rate = \"1Gbit\"; };\n";
	struct topo t = topo_of(text);
	struct workload *w = fx_workload_new(1);
	w->jobs[0].nmaps = 5;
	fx_workload_layout(w);
	w->jobs[0].stages[0].ask = res_of(0.2, 0.2, 0);
	static const int where[5] = {0, 1, 2, 3, 3};
	for (int i = 0; i < 5; i++) {
		w->tasks[i].replicas[0] = where[i];
		w->tasks[i].work_s = 10;
	}
	w->params.data_scale = 1;
	cr_assert_eq(cluster_init_topo(c, &t, w, 1), 0);
	static const char *opts[3];
	opts[0] = "per_server=1";
	opts[1] = "grant_latency=0";
	opts[2] = tau;
	struct sched_params p = {.seed = 1, .opts = opts, .nopts = 3};
	cr_assert_eq(sched_init(s, sched_find("cobra"), c, &p), 0);
	c->now = 0;
	cluster_job_arrive(c, &w->jobs[0]);
	s->ops->job_arrived(s, &w->jobs[0]);
	*wp = w;
}

/* What the policy starts on `server` now, as the runtime would. */
static struct task *offer_start(struct sched *s, int server)
{
	struct task *t = s->ops->offer(s, server);
	if (t)
		cluster_start_task(s->c, t, server);
	return t;
}

Test(cobra, pdelay_on_a_container)
{
	struct sched s;
	struct cluster c;
	struct workload *w;
	pdelay_setup(&s, &c, &w, "tau=0.5");
	/* Desire 1: one container, granted where the job has a node-local block (server 0). */
	for (int sv = 1; sv < 4; sv++)
		cr_assert_null(s.ops->offer(&s, sv), "no container on server %d", sv);
	struct task *t = offer_start(&s, 0);
	cr_assert(t && t->index == 0, "A, node-local, at once");
	c.now = 4;
	cr_assert_null(offer_start(&s, 0), "B is rack-local: 4 s < tau x p = 5 s");
	c.now = 6;
	t = offer_start(&s, 0);
	cr_assert(t && t->index == 1, "B after 5 s");
	c.now = 9;
	cr_assert_null(offer_start(&s, 0), "C is off-rack: 9 s < 2 tau x p");
	c.now = 11;
	t = offer_start(&s, 0);
	cr_assert(t && t->index == 2, "C: 0.6 of the container free");
	t = offer_start(&s, 0);
	cr_assert(t && t->index == 3, "D: 0.4 free, at least 1 - delta");
	cr_assert_null(offer_start(&s, 0), "E fits (0.2 free) but the gate wants 0.3 free");
	cr_assert(cluster_task_fits(&c, &w->tasks[4], 0));
	sched_destroy(&s);
	cluster_free(&c);
	fx_workload_free(w);
}

/* ---- leases ------------------------------------------------------------ */

/* One rack of two servers of 4 cores / 4 GB, two containers each (2 cores,
 * 2 GB): a job of six 0.5-core maps on server 1 packs four into its
 * container there once the grant latency has passed; the fifth waits,
 * though the server has room. */
Test(cobra, lease_packs_tasks_after_the_grant_latency)
{
	static const char text[] = "classes = { m = { rate = \"1Gbit\"; cores = 4; mem_gb = 4; }; };\n"
				   "racks = ( { servers = { m = 2; }; } );\n"
				   "eps = { uplink_rate = \"1Gbit\"; };\n";
	struct topo tp = topo_of(text);
	struct workload *w = fx_workload_new(1);
	w->jobs[0].nmaps = 6;
	fx_workload_layout(w);
	w->jobs[0].stages[0].ask = res_of(0.5, 0.5, 0);
	for (int i = 0; i < 6; i++)
		w->tasks[i].replicas[0] = 1;
	struct cluster c;
	cr_assert_eq(cluster_init_topo(&c, &tp, w, 1), 0);
	static const char *opts[] = {"per_server=2"};
	struct sched_params p = {.seed = 1, .opts = opts, .nopts = 1};
	struct sched s;
	cr_assert_eq(sched_init(&s, sched_find("cobra"), &c, &p), 0);
	struct lease *l = s.priv;   /* struct cobra starts with its lease */
	cr_assert_eq(l->n, 4);
	cr_assert_eq(l->ctr[0].cap.v[RES_CORES], 2000);
	cr_assert_eq(l->ctr[0].cap.v[RES_MEM], 2000000000LL);
	cluster_job_arrive(&c, &w->jobs[0]);
	s.ops->job_arrived(&s, &w->jobs[0]);
	cr_assert_eq(l->job[0].held, 1);
	cr_assert_eq(l->ctr[2].owner, 0, "granted on server 1, where its blocks are");
	cr_assert_float_eq(l->ctr[2].ready_at, 1, 1e-9);
	c.now = 0.99;
	cr_assert_null(offer_start(&s, 1), "not usable before the grant latency");
	c.now = 1;
	for (int i = 0; i < 4; i++)
		cr_assert_not_null(offer_start(&s, 1), "task %d packed", i);
	cr_assert_null(offer_start(&s, 1), "the container is full");
	cr_assert(cluster_server_has_room(&c, 1));
	cr_assert_eq(l->ctr[2].ntasks, 4);
	cr_assert_eq(l->ctr[2].used.v[RES_CORES], 2000);
	/* One ends: its room is reused at once, no new grant. */
	c.now = 3;
	cluster_finish_task(&c, &w->tasks[0]);
	s.ops->task_finished(&s, &w->tasks[0]);
	struct task *t = offer_start(&s, 1);
	cr_assert(t && t->index == 4);
	cr_assert_eq(l->job[0].held, 1);
	sched_destroy(&s);
	cluster_free(&c);
	fx_workload_free(w);
}

/* Max-min water-filling by desire over 8 containers: wants 1, 5, 9 give 1,
 * then 7 split 4 / 3 (the remainder to the earlier job); wants 1, 2, 9
 * give 1, 2, 5. */
Test(cobra, fair_allotment_is_max_min)
{
	struct workload *w = fx_workload_new(3);
	for (int j = 0; j < 3; j++) {
		w->jobs[j].nmaps = 1;
		w->jobs[j].submit_s = j;
	}
	fx_workload_layout(w);
	struct cluster c;
	cr_assert_eq(cluster_init(&c, 1, 4, 2, w, 1), 0);
	struct lease l;
	struct lease_params lp = {.per_server = 2, .latency_s = 1};
	cr_assert_eq(lease_init(&l, &c, &lp), 0);
	for (int j = 0; j < 3; j++)
		cluster_job_arrive(&c, &w->jobs[j]);
	static const int wants[2][3] = {{1, 5, 9}, {1, 2, 9}}, allots[2][3] = {{1, 4, 3}, {1, 2, 5}};
	for (int k = 0; k < 2; k++) {
		for (int j = 0; j < 3; j++)
			l.job[j].want = wants[k][j];
		lease_balance(&l);
		for (int j = 0; j < 3; j++)
			cr_assert_eq(l.job[j].allot, allots[k][j], "case %d job %d: %d", k, j, l.job[j].allot);
	}
	/* Without drain, nobody gives back: job 1 keeps the 4 it got. */
	cr_assert_eq(l.job[1].held, 4);
	lease_free(&l);
	cluster_free(&c);
	fx_workload_free(w);
}

/* ---- through the runtime, on the simulator -------------------------------- */

/* The seed's Fig. 2 job: stage 0, four tasks of half a container for 5 s;
 * then, in the part of the figure that survives only as an image, two
 * tasks (J1.4, J1.5) that share one container and a last task, 7 s
 * together (4 s and 3 s: the split does not change any outcome). */
static const char fig2_job[] =
	" {\"name\": \"%s\", \"submit\": %g, \"input\": 4000, \"cpu\": 0.5, \"mem_gb\": 0.5, \"stages\": [\n"
	"  {\"name\": \"s0\", \"tasks\": 4, \"work\": 5, \"output\": 0},\n"
	"  {\"name\": \"s1\", \"tasks\": 2, \"work\": 4, \"output\": 0, \"parents\": [\"s0\"]},\n"
	"  {\"name\": \"s2\", \"tasks\": 1, \"work\": 3, \"output\": 0, \"parents\": [\"s1\"]}]}";

/* The jobs (submitted at 0 and, if two, at `second`) under `policy` with
 * `opts` in a 2-unit environment: one server of 2 cores and 2 GB, two
 * containers; every stage waits for its parents (slowstart 1). */
static struct workload *fig2(const char *policy, const char *const *opts, int nopts, int njobs, double second,
			     const char *name)
{
	static const char text[] = "classes = { m = { rate = \"1Gbit\"; cores = 2; mem_gb = 2; }; };\n"
				   "racks = ( { servers = { m = 1; }; } );\n"
				   "eps = { uplink_rate = \"1Gbit\"; };\n";
	struct topo t = topo_of(text);
	char path[300], err[512];
	snprintf(path, sizeof path, "%s/%s.json", root, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"scaled\": true, \"jobs\": [\n", f);
	fprintf(f, fig2_job, "J1", 0.0);
	if (njobs > 1) {
		fputs(",\n", f);
		fprintf(f, fig2_job, "J2", second);
	}
	fputs("\n]}\n", f);
	fclose(f);
	struct workload *w = calloc(1, sizeof *w);
	struct workload_params wp;
	workload_params_default(&wp);
	cr_assert_eq(workload_read(w, path, &wp, 0, err), 0, "%s", err);
	struct run_params p;
	sr_params(&p, root, policy, name);
	p.sched_opts = opts;
	p.nsched_opts = nopts;
	p.slowstart = 1;
	json_decref(sr_run(&t, w, &p));
	return w;
}

static void fig2_free(struct workload *w)
{
	workload_free(w);
	free(w);
}

/* The figure starts J1's clock when its first containers are there (it
 * charges no response time at 0, and 1 s to J2's grant at 5): our J1 waits
 * 1 s for its first grant, so its times are read from 1, and J2 comes at 6,
 * the figure's 5. */
static double jrt(const struct workload *w, int j)
{
	return w->jobs[j].t_end - w->jobs[j].submit_s - (j == 0);
}

Test(cobra, fig2b_default_20s)
{
	struct workload *w = fig2("cobra-default", NULL, 0, 1, 0, "default");
	cr_assert_float_eq(jrt(w, 0), 20, 0.05, "Default: %g", jrt(w, 0));
	/* One task per container: never more than two running, each wave after a new grant. */
	cr_assert_float_eq(w->tasks[2].t_start, 7, 0.05, "the second wave waits for a new grant");
	fig2_free(w);
}

Test(cobra, fig2b_cobra_12s)
{
	/* The figure gives the job the 2-unit environment from the start: d0 = 2. */
	static const char *const opts[] = {"d0=2"};
	struct workload *w = fig2("cobra", opts, 1, 1, 0, "cobra");
	cr_assert_float_eq(jrt(w, 0), 12, 0.05, "COBRA: %g", jrt(w, 0));
	for (int i = 0; i < 4; i++)
		cr_assert_float_eq(w->tasks[i].t_start, 1, 0.05, "stage 0 packed: two tasks per container");
	cr_assert_float_eq(w->tasks[4].t_start, 6, 0.05, "containers reused without a new grant");
	fig2_free(w);
}

/* Fig. 2(c): static, J1 holds both containers to its end: 12 and 20, mean 16. */
Test(cobra, fig2c_static_16s)
{
	static const char *const opts[] = {"pack=on"};
	struct workload *w = fig2("srs", opts, 1, 2, 6, "static");
	cr_assert_float_eq(jrt(w, 0), 12, 0.05);
	cr_assert_float_eq(jrt(w, 1), 20, 0.05);
	cr_assert_float_eq((jrt(w, 0) + jrt(w, 1)) / 2, 16, 0.05);
	fig2_free(w);
}

/* Dynamic: J1 gives one container back as J1.4 and J1.5 share the other
 * (the figure's 5 s), J2 gets it a response time later: 12 and 18, mean 15. */
Test(cobra, fig2c_dynamic_15s)
{
	static const char *const opts[] = {"pack=on", "backlog_timeout=0", "sustained_timeout=0", "idle_timeout=0"};
	struct workload *w = fig2("drs", opts, 4, 2, 6, "dynamic");
	cr_assert_float_eq(jrt(w, 0), 12, 0.05, "J1: %g", jrt(w, 0));
	cr_assert_float_eq(w->jobs[1].t_start, 7, 0.05, "J2 starts a response time after J1 gave a container back");
	cr_assert_float_eq(jrt(w, 1), 18, 0.05, "J2: %g", jrt(w, 1));
	cr_assert_float_eq((jrt(w, 0) + jrt(w, 1)) / 2, 15, 0.05);
	fig2_free(w);
}

/* SRS holds at most 2 executors per job, one task each: with 12 maps of a
 * job on four 4-core servers, never more than 2 run at once, and 2 do. */
Test(cobra, srs_never_more_than_two_containers)
{
	static const char text[] = "classes = { m = { rate = \"1Gbit\"; cores = 4; mem_gb = 8; }; };\n"
				   "racks = ( { repeat = 2; servers = { m = 2; }; } );\n"
				   "eps = { uplink_rate = \"1Gbit\"; };\n";
	struct topo t = topo_of(text);
	char path[300], err[512];
	snprintf(path, sizeof path, "%s/srs.json", root);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"scaled\": true, \"jobs\": [\n"
	      " {\"name\": \"a\", \"input\": 12000, \"maps\": 12, \"reduces\": 2, \"shuffle\": 1000, \"output\": 10,"
	      "  \"map_duration\": 2, \"reduce_duration\": 1, \"cpu\": 0.25, \"mem_gb\": 0.25},\n"
	      " {\"name\": \"b\", \"submit\": 1, \"input\": 12000, \"maps\": 12, \"reduces\": 2, \"shuffle\": 1000,"
	      "  \"output\": 10, \"map_duration\": 3, \"reduce_duration\": 1, \"cpu\": 0.25, \"mem_gb\": 0.25}\n]}\n",
	      f);
	fclose(f);
	struct workload w = {0};
	struct workload_params wp;
	workload_params_default(&wp);
	cr_assert_eq(workload_read(&w, path, &wp, 0, err), 0, "%s", err);
	struct run_params p;
	sr_params(&p, root, "srs", "srs");
	json_decref(sr_run(&t, &w, &p));
	for (int j = 0; j < 2; j++) {
		const struct job *jb = &w.jobs[j];
		int most = 0;
		for (int i = 0; i < jb->nmaps + jb->nreduces; i++) {
			const struct task *x = &w.tasks[jb->first_task + i];
			int at = 0;   /* running when x starts */
			for (int k = 0; k < jb->nmaps + jb->nreduces; k++) {
				const struct task *y = &w.tasks[jb->first_task + k];
				at += y->t_start <= x->t_start + 1e-9 && y->t_end > x->t_start + 1e-9;
			}
			most = at > most ? at : most;
		}
		cr_assert_eq(most, 2, "job %d ran %d tasks at once", j, most);
		cr_assert_geq(jb->t_end - jb->submit_s, 1 + 6 * 2, "12 maps two at a time, after the grant");
	}
	workload_free(&w);
}

/* Drain (COBRA's shrinking, no preemption): a job over its allotment gives
 * back its idle containers at once and a busy one only when it empties,
 * and the job below gets each as it comes free. */
Test(cobra, lease_gives_back_lazily)
{
	struct workload *w = fx_workload_new(2);
	for (int j = 0; j < 2; j++) {
		w->jobs[j].nmaps = 4;
		w->jobs[j].submit_s = j;
	}
	fx_workload_layout(w);
	struct cluster c;
	cr_assert_eq(cluster_init(&c, 1, 2, 2, w, 1), 0);
	struct lease l;
	struct lease_params lp = {.per_server = 2, .latency_s = 0, .drain = true};
	cr_assert_eq(lease_init(&l, &c, &lp), 0);
	cluster_job_arrive(&c, &w->jobs[0]);
	l.job[0].want = 4;
	lease_balance(&l);
	cr_assert_eq(l.job[0].held, 4);
	for (int i = 0; i < 2; i++) {   /* tasks in containers 0 and 1; 2 and 3 idle */
		cr_assert(lease_usable(&l, &l.ctr[i]));
		lease_place(&l, &l.ctr[i], &w->tasks[i]);
		cluster_start_task(&c, &w->tasks[i], l.ctr[i].server);
	}
	cluster_job_arrive(&c, &w->jobs[1]);
	l.job[1].want = 4;
	lease_balance(&l);
	cr_assert_eq(l.job[0].allot, 2);
	cr_assert_eq(l.job[0].held, 2, "its two idle containers went back at once");
	cr_assert_eq(l.job[1].held, 2);
	cr_assert(l.ctr[0].owner == 0 && l.ctr[1].owner == 0);
	l.job[0].want = 1;
	lease_balance(&l);
	cr_assert_eq(l.job[1].allot, 3);
	cr_assert_eq(l.job[0].held, 2, "both busy: nothing is taken back");
	int drained = l.ctr[0].draining ? 0 : 1;
	cr_assert(l.ctr[drained].draining && !l.ctr[1 - drained].draining, "one drains");
	cr_assert_not(lease_usable(&l, &l.ctr[drained]), "a draining container takes no task");
	c.now = 2;
	cluster_finish_task(&c, &w->tasks[drained]);
	lease_balance(&l);
	cr_assert_eq(l.job[0].held, 1);
	cr_assert_eq(l.ctr[drained].owner, 1, "emptied, it went to the job below its allotment");
	cr_assert_eq(l.job[1].held, 3);
	lease_free(&l);
	cluster_free(&c);
	fx_workload_free(w);
}

/* With Hadoop's slowstart a job's few containers could fill with tasks
 * waiting for tasks that cannot get one: every lease-based policy finishes
 * workloads/dag.json (shuffle, one-to-one and broadcast edges, a job
 * after two others) on slots, each stage after its parents. */
Test(cobra, every_lease_policy_finishes_a_dag_with_slowstart)
{
	static const char *const names[] = {"cobra", "cobra-default", "srs", "drs"};
	struct topo t;
	char path[600], err[512];
	snprintf(path, sizeof path, "%s/topologies/geni-10rack.conf", repo);
	cr_assert_eq(topo_load(&t, path, 0, err), 0, "%s", err);
	snprintf(path, sizeof path, "%s/workloads/dag.json", repo);
	for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
		struct workload w = {0};
		struct workload_params wp;
		workload_params_default(&wp);
		cr_assert_eq(workload_read(&w, path, &wp, 0, err), 0, "%s", err);
		struct run_params p;
		sr_params(&p, root, names[n], "dag");
		json_decref(sr_run(&t, &w, &p));
		for (int i = 0; i < w.ntasks; i++) {
			const struct task *x = &w.tasks[i];
			const struct job *j = &w.jobs[x->job];
			for (int q = 0; q < j->stages[x->stage].nparents; q++) {
				int ps = j->stages[x->stage].parent[q].stage;
				for (int k = 0; k < j->stages[ps].ntasks; k++)
					cr_assert_geq(x->t_start, stage_task(w.tasks, j, ps, k)->t_end, "%s: task %d", names[n], i);
			}
		}
		workload_free(&w);
	}
}

/* DRS's ramp (Spark's dynamic allocation): nothing until tasks have waited
 * backlog_timeout, then +1, +2, +4, ... a second apart, capped at what the
 * waiting tasks need; the target falls to the need when it falls. */
Test(cobra, drs_ramps_up_exponentially_to_the_need)
{
	struct workload *w = fx_workload_new(1);
	w->jobs[0].nmaps = 20;
	fx_workload_layout(w);
	struct cluster c;
	cr_assert_eq(cluster_init(&c, 2, 10, 4, w, 1), 0);
	static const char *opts[] = {"grant_latency=1"};
	struct sched_params p = {.seed = 1, .opts = opts, .nopts = 1};
	struct sched s;
	cr_assert_eq(sched_init(&s, sched_find("drs"), &c, &p), 0);
	struct lease *l = s.priv;   /* struct drs starts with its executors' lease */
	cluster_job_arrive(&c, &w->jobs[0]);
	s.ops->job_arrived(&s, &w->jobs[0]);
	static const double at[] = {0.5, 1, 2, 3, 4, 5, 6};
	static const int want[] = {0, 1, 3, 7, 15, 20, 20};
	for (int i = 0; i < 7; i++) {
		c.now = at[i];
		s.ops->tick(&s);
		cr_assert_eq(l->job[0].want, want[i], "at %g s: %d", at[i], l->job[0].want);
		cr_assert_eq(l->job[0].held, want[i], "granted as asked (the cluster has 80)");
	}
	/* 12 maps done: 8 left to run, the target falls to 8 (idle executors stay for 60 s). */
	for (int i = 0; i < 12; i++) {
		cluster_start_task(&c, &w->tasks[i], 0);
		cluster_finish_task(&c, &w->tasks[i]);
	}
	c.now = 7;
	s.ops->tick(&s);
	cr_assert_eq(l->job[0].want, 8);
	cr_assert_eq(l->job[0].held, 20);
	c.now = 67;
	s.ops->tick(&s);
	cr_assert_eq(l->job[0].held, 8, "executors idle 60 s went back, down to the target");
	sched_destroy(&s);
	cluster_free(&c);
	fx_workload_free(w);
}
