/* Tetris (emu/sched/tetris.c): its choices on hand-made clusters with
 * resources (alignment, fit, SRPT, the fairness knob, the remote penalty,
 * dep=sim and dep=none, semi-clairvoyance), its options, and a packing case
 * on the simulator against Fair. */
#include "emu/run.h"
#include "emu/sched/tetris.h"
#include "simrun_fixture.h"
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One rack: an 8-core, 16 GB server and a 2-core, 16 GB one. */
static const char two_servers[] =
	"classes = { big = { rate = \"1Gbit\"; cores = 8; mem_gb = 16; };\n"
	"            small = { rate = \"1Gbit\"; cores = 2; mem_gb = 16; }; };\n"
	"racks = ( { servers = { big = 1; small = 1; }; } );\n"
	"eps = { uplink_rate = \"1Gbit\"; };\n";

struct fx { struct topo t; struct workload w; struct cluster c; struct sched s; };

static void read_json(struct workload *w, const char *json)
{
	char path[] = "/tmp/emu-tetris-XXXXXX", err[512];
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	struct workload_params wp;
	workload_params_default(&wp);
	int rc = workload_read(w, path, &wp, 0, err);
	unlink(path);
	cr_assert_eq(rc, 0, "%s", err);
}

/* The cluster of `topo` over the jobs of `json`, every job arrived, and
 * tetris with the options given ("KEY=VALUE", NULL-terminated). */
static void fx_start(struct fx *x, const char *topo, const char *json, const char *const *opts)
{
	char err[TOPO_ERR_LEN];
	memset(x, 0, sizeof *x);
	cr_assert_eq(topo_load_string(&x->t, topo, "t.conf", 0, err), 0, "%s", err);
	read_json(&x->w, json);
	cr_assert_eq(cluster_init_topo(&x->c, &x->t, &x->w, 0.05), 0);
	for (int j = 0; j < x->w.njobs; j++)
		cluster_job_arrive(&x->c, &x->w.jobs[j]);
	int n = 0;
	while (opts && opts[n])
		n++;
	struct sched_params p = {.seed = 1, .opts = opts, .nopts = n};
	cr_assert_eq(sched_init(&x->s, sched_find("tetris"), &x->c, &p), 0);
}

static void fx_stop(struct fx *x)
{
	sched_destroy(&x->s);
	cluster_free(&x->c);
	workload_free(&x->w);
}

static struct task *offer(struct fx *x, int server)
{
	return x->s.ops->offer(&x->s, server);
}

static void start(struct fx *x, struct task *t, int server)
{
	cr_assert_not_null(t);
	cr_assert(cluster_task_fits(&x->c, t, server), "task %d does not fit on %d", t->id, server);
	cluster_start_task(&x->c, t, server);
}

static void finish(struct fx *x, struct task *t)
{
	cluster_finish_task(&x->c, t);
	x->s.ops->task_finished(&x->s, t);
}

static const char *job_of(struct fx *x, const struct task *t)
{
	cr_assert_not_null(t);
	return x->w.jobs[t->job].name;
}

static const char *const pure_packing[] = {"m=0", "f=0", NULL};

/* ---- packing ---------------------------------------------------------------- */

/* Free (8 cores, 16 GB): "mem" (1, 8) aligns 1/8 + 8/16 = 0.625 against
 * "cpu" (4, 1) 4/8 + 1/16 = 0.5625.  Once "mem" holds 8 GB, free (7, 8):
 * "cpu" 4/8 x 7/8 + 1/16 x 8/16 = 0.469 against "mem" 1/8 x 7/8 + 8/16 x
 * 8/16 = 0.359. */
Test(tetris, picks_the_task_best_aligned_with_what_is_free)
{
	struct fx x;
	fx_start(&x, two_servers,
		 "{\"jobs\": [\n"
		 " {\"name\": \"cpu\", \"input\": 1000, \"maps\": 4, \"map_duration\": 10, \"cpu\": 4, \"mem_gb\": 1},\n"
		 " {\"name\": \"mem\", \"input\": 1000, \"maps\": 4, \"map_duration\": 10, \"cpu\": 1, \"mem_gb\": 8}\n"
		 "]}\n", pure_packing);
	struct task *t = offer(&x, 0);
	cr_assert_str_eq(job_of(&x, t), "mem");
	start(&x, t, 0);
	t = offer(&x, 0);
	cr_assert_str_eq(job_of(&x, t), "cpu");
	start(&x, t, 0);
	/* Free (3, 7): "cpu" no longer fits (4 cores); "mem" (1, 8) does not either. */
	cr_assert_null(offer(&x, 0));
	fx_stop(&x);
}

Test(tetris, never_offers_a_task_that_does_not_fit)
{
	struct fx x;
	fx_start(&x, two_servers,
		 "{\"jobs\": [\n"
		 " {\"name\": \"wide\", \"input\": 1000, \"maps\": 3, \"map_duration\": 10, \"cpu\": 4, \"mem_gb\": 1},\n"
		 " {\"name\": \"thin\", \"input\": 1000, \"maps\": 2, \"map_duration\": 10, \"cpu\": 1, \"mem_gb\": 1}\n"
		 "]}\n", pure_packing);
	/* The 2-core server: "wide" (4 cores) aligns better anywhere it fits, never here. */
	for (int i = 0; i < 2; i++) {
		struct task *t = offer(&x, 1);
		cr_assert_str_eq(job_of(&x, t), "thin");
		start(&x, t, 1);
	}
	cr_assert_null(offer(&x, 1), "the 2-core server is full");
	cr_assert_str_eq(job_of(&x, offer(&x, 0)), "wide");
	fx_stop(&x);
}

/* ---- SRPT ------------------------------------------------------------------- */

/* Alike asks: the job with less remaining work goes first (m = 1), else the
 * earlier job (m = 0, a tie). */
Test(tetris, srpt_breaks_ties_of_alignment)
{
	static const char json[] = "{\"jobs\": [\n"
				   " {\"name\": \"long\", \"input\": 1000, \"maps\": 2, \"map_duration\": 50},\n"
				   " {\"name\": \"short\", \"input\": 1000, \"maps\": 2, \"map_duration\": 5}\n"
				   "]}\n";
	static const char *const srpt[] = {"f=0", NULL};
	struct fx x;
	fx_start(&x, two_servers, json, srpt);
	cr_assert_str_eq(job_of(&x, offer(&x, 0)), "short");
	fx_stop(&x);
	fx_start(&x, two_servers, json, pure_packing);
	cr_assert_str_eq(job_of(&x, offer(&x, 0)), "long");
	fx_stop(&x);
}

/* X (2 cores, 2 GB) aligns 0.375, Y (1, 1) 0.1875; X's remaining work is
 * 10 x 10 s x 0.375 = 37.5, Y's 1 x 10 s x 0.1875 = 1.875, so eps =
 * 0.28125 / 19.6875 and X scores 0.375 - 0.536 < Y's 0.1875 - 0.027. */
Test(tetris, srpt_outweighs_alignment_by_eps)
{
	static const char json[] =
		"{\"jobs\": [\n"
		" {\"name\": \"X\", \"input\": 1000, \"maps\": 10, \"map_duration\": 10, \"cpu\": 2, \"mem_gb\": 2},\n"
		" {\"name\": \"Y\", \"input\": 1000, \"maps\": 1, \"map_duration\": 10, \"cpu\": 1, \"mem_gb\": 1}\n"
		"]}\n";
	static const char *const srpt[] = {"f=0", "m=1", NULL};
	struct fx x;
	fx_start(&x, two_servers, json, srpt);
	cr_assert_str_eq(job_of(&x, offer(&x, 0)), "Y");
	fx_stop(&x);
	fx_start(&x, two_servers, json, pure_packing);
	cr_assert_str_eq(job_of(&x, offer(&x, 0)), "X");
	fx_stop(&x);
}

/* ---- fairness knob ------------------------------------------------------------ */

/* A and B each hold a task, C nothing.  f = 0: the best aligned (A, 2 cores);
 * f = 0.9: ceil(0.1 x 3) = 1 job eligible, C, furthest below its share; and
 * where C's task does not fit, nothing: the server waits for it. */
Test(tetris, fairness_knob_narrows_the_jobs)
{
	static const char json[] =
		"{\"jobs\": [\n"
		" {\"name\": \"A\", \"input\": 1000, \"maps\": 4, \"map_duration\": 10, \"cpu\": 2, \"mem_gb\": 1},\n"
		" {\"name\": \"B\", \"input\": 1000, \"maps\": 4, \"map_duration\": 10, \"cpu\": 1, \"mem_gb\": 1},\n"
		" {\"name\": \"C\", \"input\": 1000, \"maps\": 4, \"map_duration\": 10, \"cpu\": 1.5, \"mem_gb\": 1}\n"
		"]}\n";
	static const char *const f0[] = {"f=0", "m=0", NULL}, *const f9[] = {"f=0.9", "m=0", NULL};
	const char *const *opts[2] = {f0, f9};
	const char *want[2] = {"A", "C"};
	for (int k = 0; k < 2; k++) {
		struct fx x;
		fx_start(&x, two_servers, json, opts[k]);
		start(&x, job_map(x.w.tasks, &x.w.jobs[0], 0), 0);
		start(&x, job_map(x.w.tasks, &x.w.jobs[1], 0), 0);
		cr_assert_str_eq(job_of(&x, offer(&x, 0)), want[k], "f=%s", k ? "0.9" : "0");
		/* The 2-core server with 1 core free: B's task fits, C's (1.5) not. */
		start(&x, job_map(x.w.tasks, &x.w.jobs[1], 1), 1);
		struct task *t = offer(&x, 1);
		if (k) {
			cr_assert_null(t, "only C is eligible and it does not fit");
		} else {
			cr_assert_str_eq(job_of(&x, t), "B");
		}
		fx_stop(&x);
	}
}

/* ---- remote penalty ----------------------------------------------------------- */

Test(tetris, remote_input_costs_a_tenth_of_alignment)
{
	static const char json[] = "{\"jobs\": [\n"
				   " {\"name\": \"far\", \"input\": 1000, \"maps\": 1, \"map_duration\": 10},\n"
				   " {\"name\": \"near\", \"input\": 1000, \"maps\": 1, \"map_duration\": 10}\n"
				   "]}\n";
	static const char *const pen[] = {"f=0", "m=0", NULL}, *const none[] = {"f=0", "m=0", "remote_penalty=0", NULL};
	const char *const *opts[2] = {pen, none};
	const char *want[2] = {"near", "far"};
	for (int k = 0; k < 2; k++) {
		struct fx x;
		fx_start(&x, two_servers, json, opts[k]);
		struct task *far = job_map(x.w.tasks, &x.w.jobs[0], 0), *near = job_map(x.w.tasks, &x.w.jobs[1], 0);
		far->replicas[0] = 1;    /* its block on the other server */
		near->replicas[0] = 0;
		cr_assert_str_eq(job_of(&x, offer(&x, 0)), want[k]);
		fx_stop(&x);
	}
}

/* ---- grant latency ------------------------------------------------------------ */

/* A choice holds its ask on the server until it starts, a second later:
 * the first offer grants "big" (6 cores) and "small" (2), starts nothing;
 * the freed 8 cores are held, so a later job's task is not granted there;
 * at 1 s both start. */
Test(tetris, a_grant_holds_the_ask_until_it_starts)
{
	static const char *const lat[] = {"grant_latency=1", "f=0", "m=0", NULL};
	struct fx x;
	fx_start(&x, two_servers,
		 "{\"jobs\": [\n"
		 " {\"name\": \"big\", \"input\": 1000, \"maps\": 1, \"map_duration\": 10, \"cpu\": 6, \"mem_gb\": 1},\n"
		 " {\"name\": \"small\", \"input\": 1000, \"maps\": 1, \"map_duration\": 10, \"cpu\": 2, \"mem_gb\": 1},\n"
		 " {\"name\": \"late\", \"input\": 1000, \"maps\": 1, \"map_duration\": 10, \"cpu\": 1, \"mem_gb\": 1}\n"
		 "]}\n", lat);
	x.c.now = 0;
	cr_assert_null(offer(&x, 0), "granted, not started");
	cr_assert_eq(x.c.servers[0].avail.v[RES_CORES], 8000, "the cluster has started nothing");
	x.c.now = 0.5;
	cr_assert_null(offer(&x, 0), "8 cores held: nothing more is granted, nothing due");
	x.c.now = 1;
	struct task *a = offer(&x, 0);
	start(&x, a, 0);
	struct task *b = offer(&x, 0);
	start(&x, b, 0);
	cr_assert_str_eq(job_of(&x, a), "big");
	cr_assert_str_eq(job_of(&x, b), "small");
	cr_assert_null(offer(&x, 0), "the server is full");
	/* The 2-core server: "late" is granted now, starts a second later. */
	cr_assert_null(offer(&x, 1));
	x.c.now = 2;
	cr_assert_str_eq(job_of(&x, offer(&x, 1)), "late");
	fx_stop(&x);
}

/* ---- dependencies ------------------------------------------------------------- */

/* Maps m0, m1; level l1 reads them over a "tasks" edge: a0 <- m1, a1 <- m0,
 * a2 <- m0; level l2 reads l1: a2 has 3 children, a1 one, a0 none.  l1 asks
 * more than the maps (it aligns better). */
static const char dag[] =
	"{\"jobs\": [{\"name\": \"dag\", \"input\": 1000, \"stages\": [\n"
	"  {\"name\": \"m\", \"tasks\": 2, \"work\": 5, \"output\": 1000},\n"
	"  {\"name\": \"l1\", \"tasks\": 3, \"work\": 5, \"cpu\": 2, \"output\": 1000, \"parents\": {\"m\": \"tasks\"},\n"
	"   \"task_parents\": [{\"m\": [1]}, {\"m\": [0]}, {\"m\": [0]}]},\n"
	"  {\"name\": \"l2\", \"tasks\": 3, \"work\": 5, \"output\": 1000, \"parents\": {\"l1\": \"tasks\"},\n"
	"   \"task_parents\": [{\"l1\": [2]}, {\"l1\": [2]}, {\"l1\": [1, 2]}]}\n"
	"]}]}\n";

Test(tetris, dep_sim_takes_ready_tasks_with_most_dependents_first)
{
	static const char *const sim[] = {"dep=sim", "f=0", NULL};
	struct fx x;
	fx_start(&x, two_servers, dag, sim);
	const struct job *j = &x.w.jobs[0];
	struct task *m0 = stage_task(x.w.tasks, j, 0, 0);
	start(&x, m0, 0);
	start(&x, stage_task(x.w.tasks, j, 0, 1), 0);
	finish(&x, m0);
	/* m1 runs: a1 and a2 are ready, a0 is not; a2 has more dependents. */
	int order[2];
	for (int i = 0; i < 2; i++) {
		struct task *t = offer(&x, 0);
		cr_assert_not_null(t);
		cr_assert_eq(t->stage, 1);
		cr_assert(cluster_task_runnable(&x.c, t));
		order[i] = t->sindex;
		start(&x, t, 0);
	}
	cr_assert_eq(order[0], 2);
	cr_assert_eq(order[1], 1);
	cr_assert_null(offer(&x, 0), "a0 waits for m1");
	cr_assert_not(x.c.ignore_deps);
	cr_assert_eq(tetris_stats(&x.s).disorders, 0);
	fx_stop(&x);
}

Test(tetris, dep_none_starts_tasks_past_their_dependencies)
{
	static const char *const none[] = {"dep=none", "f=0", NULL};
	struct fx x;
	fx_start(&x, two_servers, dag, none);
	cr_assert(x.c.ignore_deps, "dep=none lets the core start a task before its parents end");
	const struct job *j = &x.w.jobs[0];
	struct task *m0 = stage_task(x.w.tasks, j, 0, 0);
	start(&x, m0, 0);
	start(&x, stage_task(x.w.tasks, j, 0, 1), 0);
	finish(&x, m0);
	/* Task order, whatever the parents: a0 (waiting on m1) first. */
	struct task *t = offer(&x, 0);
	cr_assert_eq(t->stage, 1);
	cr_assert_eq(t->sindex, 0);
	cr_assert_not(cluster_task_deps_done(&x.c, t));
	cr_assert(cluster_task_startable(&x.c, t));
	cr_assert_eq(tetris_stats(&x.s).disorders, 1);
	/* While the deadlock breaker bars such starts, the best that may start. */
	x.c.deps_barred = true;
	t = offer(&x, 0);
	cr_assert_eq(t->sindex, 1);
	cr_assert_eq(tetris_stats(&x.s).barred, 1);
	cr_assert_eq(tetris_stats(&x.s).disorders, 1);
	fx_stop(&x);
}

/* ---- visibility --------------------------------------------------------------- */

/* "tail" has a 1-task first stage and a heavy second one; "flat" 5 tasks.
 * Clairvoyant, flat has less remaining work; semi-clairvoyant, tail's
 * second stage is hidden until its first is done, so tail looks smaller. */
Test(tetris, semi_clairvoyant_counts_only_visible_stages)
{
	static const char json[] =
		"{\"jobs\": [\n"
		" {\"name\": \"flat\", \"input\": 1000, \"maps\": 5, \"map_duration\": 10},\n"
		" {\"name\": \"tail\", \"input\": 1000, \"stages\": [\n"
		"   {\"name\": \"a\", \"tasks\": 1, \"work\": 10, \"output\": 1000},\n"
		"   {\"name\": \"b\", \"tasks\": 20, \"work\": 100, \"parents\": [\"a\"]}]}\n"
		"]}\n";
	static const char *const srpt[] = {"f=0", NULL};
	for (int semi = 0; semi < 2; semi++) {
		struct fx x;
		fx_start(&x, two_servers, json, srpt);
		x.c.semi_clairvoyant = semi;
		cr_assert_str_eq(job_of(&x, offer(&x, 0)), semi ? "tail" : "flat");
		fx_stop(&x);
	}
}

/* ---- options ------------------------------------------------------------------ */

Test(tetris, options_and_aliases)
{
	const struct sched_ops *t = sched_find("tetris");
	cr_assert_not_null(t);
	cr_assert_eq(sched_find("tetris-nodep")->alias_of, t);
	cr_assert_eq(sched_find("tetris-simdep")->alias_of, t);
	char err[256];
	static const char *const ok[] = {"f=0", "f=1", "m=2.5", "remote_penalty=0", "dep=none", "dep=sim", "report=on"};
	cr_assert_eq(sched_opts_check(t, ok, 7, err, sizeof err), 0, "%s", err);
	static const char *const bad[] = {"f=1.5", "m=-1", "remote_penalty=2", "dep=full", "eps=1"};
	for (int i = 0; i < 5; i++)
		cr_assert_eq(sched_opts_check(t, &bad[i], 1, err, sizeof err), -1, "%s accepted", bad[i]);
	struct fx x;
	fx_start(&x, two_servers, "{\"jobs\": [{\"input\": 1000, \"maps\": 1}]}", NULL);
	json_t *o = sched_opts_json(x.s.ops, x.s.opts);
	cr_assert_float_eq(json_number_value(json_object_get(o, "f")), 0.25, 1e-12);
	cr_assert_float_eq(json_number_value(json_object_get(o, "m")), 1, 1e-12);
	cr_assert_float_eq(json_number_value(json_object_get(o, "remote_penalty")), 0.1, 1e-12);
	cr_assert_str_eq(json_string_value(json_object_get(o, "dep")), "sim");
	json_decref(o);
	fx_stop(&x);
}

/* ---- on the simulator --------------------------------------------------------- */

/* One server of 4 cores and 4 GB; A: 2 tasks of (2, 2), B: 4 of (1, 1), 10 s
 * each.  Tetris packs A, A, then B x 4: makespan 20 s.  Fair gives A and B a
 * task each, then A's turn (a tie, earlier job) does not fit the (1, 1) left
 * and the server waits: 30 s. */
static double makespan(const char *policy, double *jct_a)
{
	char dir[] = "/tmp/emu-tetris-run-XXXXXX", err[512], path[600];
	cr_assert_not_null(mkdtemp(dir));
	struct topo t;
	cr_assert_eq(topo_load_string(&t,
				      "classes = { m = { rate = \"1Gbit\"; cores = 4; mem_gb = 4; }; };\n"
				      "racks = ( { servers = { m = 1; }; } );\n"
				      "eps = { uplink_rate = \"1Gbit\"; };\nocs = { enabled = false; };\n",
				      "one", 0, err), 0, "%s", err);
	struct workload w;
	read_json(&w, "{\"jobs\": [\n"
		      " {\"name\": \"A\", \"input\": 1000, \"maps\": 2, \"map_duration\": 10, \"cpu\": 2, \"mem_gb\": 2},\n"
		      " {\"name\": \"B\", \"input\": 1000, \"maps\": 4, \"map_duration\": 10, \"cpu\": 1, \"mem_gb\": 1}\n"
		      "]}\n");
	struct run_params p;
	sr_params(&p, dir, policy, "r");
	json_t *s = sr_run(&t, &w, &p);
	double ms = json_number_value(json_object_get(s, "makespan_s"));
	*jct_a = w.jobs[0].t_end - w.jobs[0].submit_s;
	json_decref(s);
	workload_free(&w);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	cr_assert_eq(system(path), 0);
	return ms;
}

/* DSP's two variants on a DAG of 3 levels: SimDep never starts a task
 * before its parents end, oDep does (disorders) and still finishes. */
static json_t *dag_run(const char *dir, const char *policy)
{
	char err[512];
	struct topo t;
	cr_assert_eq(topo_load_string(&t,
				      "classes = { m = { rate = \"1Gbit\"; cores = 4; mem_gb = 16; }; };\n"
				      "racks = ( { servers = { m = 2; }; } );\n"
				      "eps = { uplink_rate = \"1Gbit\"; };\nocs = { enabled = false; };\n",
				      "two", 0, err), 0, "%s", err);
	struct workload w;
	read_json(&w, dag);
	struct run_params p;
	sr_params(&p, dir, policy, "r");
	json_t *s = sr_run(&t, &w, &p);
	workload_free(&w);
	cr_assert_eq(json_integer_value(json_object_get(s, "jobs_finished")), 1, "%s", policy);
	return s;
}

Test(tetris, simdep_has_no_disorder_odep_has)
{
	char dir[] = "/tmp/emu-tetris-dag-XXXXXX", cmd[64];
	cr_assert_not_null(mkdtemp(dir));
	json_t *sim = dag_run(dir, "tetris-simdep"), *none = dag_run(dir, "tetris-nodep");
	json_int_t d_sim = json_integer_value(json_object_get(json_object_get(sim, "disorders"), "starts"));
	json_int_t d_none = json_integer_value(json_object_get(json_object_get(none, "disorders"), "starts"));
	cr_assert_eq(d_sim, 0);
	cr_assert_gt(d_none, 0);
	json_decref(sim);
	json_decref(none);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* COBRA's Fig. 2 as tests/unit/test_cobra.c reconstructs it: 4 tasks of
 * half a unit for 5 s, then 2 of 4 s, then 1 of 3 s, on 2 units.  Tetris
 * runs each stage at once in containers of the tasks' size, each paying
 * the 1 s response time: 1 + 5 + 1 + 4 + 1 + 3 = 15, the figure's 14 (it
 * charges nothing for the first containers, as there); without the
 * response time 12. */
static double fig2_tetris(const char *latency)
{
	char dir[] = "/tmp/emu-tetris-fig2-XXXXXX", err[512], path[600];
	cr_assert_not_null(mkdtemp(dir));
	struct topo t;
	cr_assert_eq(topo_load_string(&t,
				      "classes = { m = { rate = \"1Gbit\"; cores = 2; mem_gb = 2; }; };\n"
				      "racks = ( { servers = { m = 1; }; } );\n"
				      "eps = { uplink_rate = \"1Gbit\"; };\n",
				      "fig2", 0, err), 0, "%s", err);
	struct workload w;
	read_json(&w, "{\"scaled\": true, \"jobs\": [\n"
		      " {\"name\": \"J1\", \"input\": 4000, \"cpu\": 0.5, \"mem_gb\": 0.5, \"stages\": [\n"
		      "  {\"name\": \"s0\", \"tasks\": 4, \"work\": 5, \"output\": 0},\n"
		      "  {\"name\": \"s1\", \"tasks\": 2, \"work\": 4, \"output\": 0, \"parents\": [\"s0\"]},\n"
		      "  {\"name\": \"s2\", \"tasks\": 1, \"work\": 3, \"output\": 0, \"parents\": [\"s1\"]}]}\n"
		      "]}\n");
	const char *opts[] = {latency};
	struct run_params p;
	sr_params(&p, dir, "tetris", "r");
	p.sched_opts = opts;
	p.nsched_opts = 1;
	p.slowstart = 1;
	json_decref(sr_run(&t, &w, &p));
	double jrt = w.jobs[0].t_end - w.jobs[0].submit_s;
	workload_free(&w);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	cr_assert_eq(system(path), 0);
	return jrt;
}

Test(tetris, cobra_fig2_14s_with_the_container_response_time)
{
	double with = fig2_tetris("grant_latency=1"), without = fig2_tetris("grant_latency=0");
	cr_assert_float_eq(with - 1, 14, 0.05, "%.3f", with);
	cr_assert_float_eq(without, 12, 0.05, "%.3f", without);
}

Test(tetris, packs_where_fair_leaves_a_server_waiting)
{
	double a_tetris, a_fair;
	double tetris = makespan("tetris", &a_tetris), fair = makespan("fair", &a_fair);
	cr_assert_float_eq(tetris, 20, 0.05, "tetris %.3f", tetris);
	cr_assert_float_eq(a_tetris, 10, 0.05, "A's two tasks first: %.3f", a_tetris);
	cr_assert_float_eq(fair, 30, 0.05, "fair %.3f", fair);
}
