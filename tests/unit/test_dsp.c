/* DSP (seed 004) and its baselines' machinery: the ILP against brute force
 * and H1, the priority of Eqs. 12-13 on the seed's Fig. 2, PP's example,
 * and on the simulator DSP's preemption conditions, disorder (a policy that
 * ignores dependencies) with its deadlock breaker, and SRPT's kill. */
#include "emu/gen.h"
#include "emu/run.h"
#include "emu/sched.h"
#include "emu/sched/dsp.h"
#include "simrun_fixture.h"
#include "tree_fixture.h"
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[64], repo[512];
static void setup(void) { tf_setup(root, sizeof root, "/tmp/emu-dsp-XXXXXX", repo, sizeof repo, NULL, 0); }
static void teardown(void) { tf_teardown(root); }
TestSuite(dsp, .init = setup, .fini = teardown, .timeout = 120);

/* ---- the plan -------------------------------------------------------------- */

/* The plan keeps precedence and runs one task at a time per machine. */
static void assert_feasible(const struct dsp_inst *in, const struct dsp_plan *pl)
{
	for (int e = 0; e < in->nedges; e++)
		cr_assert_geq(pl->start[in->edge[e][1]], pl->end[in->edge[e][0]] - 1e-6, "edge %d->%d", in->edge[e][0],
			      in->edge[e][1]);
	for (int v = 0; v < in->n; v++) {
		cr_assert_float_eq(pl->end[v] - pl->start[v], in->p[v * in->m + pl->machine[v]], 1e-6);
		for (int u = 0; u < v; u++)
			if (pl->machine[u] == pl->machine[v])
				cr_assert(pl->end[u] <= pl->start[v] + 1e-6 || pl->end[v] <= pl->start[u] + 1e-6,
					  "tasks %d and %d overlap on machine %d", u, v, pl->machine[v]);
	}
}

/* The optimum by enumeration: every order of the tasks that keeps
 * precedence, every machine for each, each task as early as it can go in
 * that order (every semi-active schedule is one of these). */
static double brute(const struct dsp_inst *in)
{
	int n = in->n, perm[8], used[8] = {0};
	double best = INFINITY;
	long assigns = 1;
	for (int v = 0; v < n; v++)
		assigns *= in->m;
	/* iterative permutations by depth */
	int depth = 0, next[9] = {0};
	while (depth >= 0) {
		if (depth == n) {
			for (long a = 0; a < assigns; a++) {
				double free[4] = {0}, end[8];
				long code = a;
				for (int i = 0; i < n; i++) {
					int v = perm[i], k = (int)(code % in->m);
					code /= in->m;
					double s = free[k];
					for (int e = 0; e < in->nedges; e++)
						if (in->edge[e][1] == v)
							s = fmax(s, end[in->edge[e][0]]);
					end[v] = s + in->p[v * in->m + k];
					free[k] = end[v];
				}
				double ms = 0;
				for (int v = 0; v < n; v++)
					ms = fmax(ms, end[v]);
				best = fmin(best, ms);
			}
			depth--;
			if (depth >= 0)
				used[perm[depth]] = 0;
			continue;
		}
		int v = next[depth]++;
		if (v >= n) {
			next[depth] = 0;
			depth--;
			if (depth >= 0)
				used[perm[depth]] = 0;
			continue;
		}
		bool ready = !used[v];
		for (int e = 0; ready && e < in->nedges; e++)
			if (in->edge[e][1] == v && !used[in->edge[e][0]])
				ready = false;
		if (!ready)
			continue;
		used[v] = 1;
		perm[depth++] = v;
	}
	return best;
}

static const struct dsp_ilp_opts ilp_opts = {.time_limit_s = 20, .gap = 0, .late_weight = 1e3};

Test(dsp, the_ilp_splits_two_long_tasks_for_the_optimum)
{
	/* 3, 3, 2, 2 on two machines: 5, with the two 3s apart */
	double p[] = {3, 3, 3, 3, 2, 2, 2, 2};
	int job[4] = {0};
	double dl[1] = {INFINITY};
	struct dsp_inst in = {.n = 4, .m = 2, .p = p, .job = job, .njobs = 1, .dl = dl, .gamma = 0.5};
	struct dsp_plan pl;
	cr_assert_eq(dsp_plan_alloc(&pl, 4), 0);
	cr_assert_eq(dsp_ilp(&in, &ilp_opts, &pl), 0, "optimal");
	cr_assert_float_eq(pl.makespan, 5, 1e-6);
	cr_assert_neq(pl.machine[0], pl.machine[1]);
	cr_assert_neq(pl.machine[2], pl.machine[3]);
	assert_feasible(&in, &pl);
	dsp_plan_free(&pl);
}

Test(dsp, the_ilp_meets_a_deadline_the_makespan_alone_would_miss)
{
	/* A (4) and B (1) -> C (1), two machines.  Makespan 4 either way; job
	 * 1 (B, C) has a deadline of 2, so C must not wait behind A. */
	double p[] = {4, 4, 1, 1, 1, 1};
	int job[] = {0, 1, 1};
	double dl[] = {INFINITY, 2};
	const int edge[][2] = {{1, 2}};
	struct dsp_inst in = {.n = 3, .m = 2, .p = p, .job = job, .njobs = 2, .dl = dl, .nedges = 1, .edge = edge,
			      .gamma = 0.5};
	struct dsp_plan pl;
	cr_assert_eq(dsp_plan_alloc(&pl, 3), 0);
	cr_assert_eq(dsp_ilp(&in, &ilp_opts, &pl), 0);
	cr_assert_float_eq(pl.makespan, 4, 1e-6);
	cr_assert_float_eq(pl.late, 0, 1e-6);
	cr_assert_leq(pl.end[2], 2 + 1e-6);
	assert_feasible(&in, &pl);
	dsp_plan_free(&pl);
}

/* Random small DAGs: the ILP's optimum is brute force's; H1 is feasible,
 * never better, and within the notes' 1.3 of it; on a chain they agree. */
Test(dsp, the_ilp_equals_brute_force_and_h1_stays_within_its_bound)
{
	struct rng r = {42};
	double worst = 1;
	for (int trial = 0; trial < 12; trial++) {
		int n = 4 + trial % 3, m = 2 + trial % 2, ne = 0, job[8] = {0}, edge[16][2];
		double p[8 * 3], dl[1] = {INFINITY};
		for (int v = 0; v < n; v++) {
			double base = 1 + rng_below(&r, 5);
			for (int k = 0; k < m; k++)
				p[v * m + k] = base;
		}
		for (int u = 0; u < n; u++)
			for (int w = u + 1; w < n && ne < 16; w++)
				if (rng_below(&r, 10) < 3) {
					edge[ne][0] = u;
					edge[ne++][1] = w;
				}
		struct dsp_inst in = {.n = n, .m = m, .p = p, .job = job, .njobs = 1, .dl = dl, .nedges = ne,
				      .edge = (const int(*)[2])edge, .gamma = 0.5};
		struct dsp_plan ilp, h1;
		cr_assert_eq(dsp_plan_alloc(&ilp, n), 0);
		cr_assert_eq(dsp_plan_alloc(&h1, n), 0);
		cr_assert_eq(dsp_ilp(&in, &ilp_opts, &ilp), 0, "trial %d optimal", trial);
		cr_assert_eq(dsp_h1(&in, &h1), 0);
		double opt = brute(&in);
		cr_assert_float_eq(ilp.makespan, opt, 1e-6, "trial %d: ILP %.3f, brute force %.3f", trial, ilp.makespan, opt);
		assert_feasible(&in, &ilp);
		assert_feasible(&in, &h1);
		cr_assert_geq(h1.makespan, opt - 1e-6);
		cr_assert_leq(h1.makespan, 1.3 * opt + 1e-6, "trial %d: H1 %.3f, optimum %.3f", trial, h1.makespan, opt);
		worst = fmax(worst, h1.makespan / opt);
		dsp_plan_free(&ilp);
		dsp_plan_free(&h1);
	}
	cr_log_info("H1 / optimum, worst of 12: %.3f", worst);
	/* a chain: nothing to choose, both its sum */
	double p[] = {2, 2, 3, 3, 1, 1};
	int job[3] = {0};
	double dl[1] = {INFINITY};
	const int edge[][2] = {{0, 1}, {1, 2}};
	struct dsp_inst in = {.n = 3, .m = 2, .p = p, .job = job, .njobs = 1, .dl = dl, .nedges = 2, .edge = edge,
			      .gamma = 0.5};
	struct dsp_plan a, b;
	cr_assert_eq(dsp_plan_alloc(&a, 3), 0);
	cr_assert_eq(dsp_plan_alloc(&b, 3), 0);
	cr_assert_eq(dsp_ilp(&in, &ilp_opts, &a), 0);
	cr_assert_eq(dsp_h1(&in, &b), 0);
	cr_assert_float_eq(a.makespan, 6, 1e-6);
	cr_assert_float_eq(b.makespan, 6, 1e-6);
	dsp_plan_free(&a);
	dsp_plan_free(&b);
}

/* A batch of the quick study (seed 3, 30 servers, 100 jobs) planned behind
 * an hour of earlier plans: 17 tasks of one late job on the 17 slots free
 * first.  With its origin at the planning instant the root LP stalled
 * without end (GLPK's primal simplex on one degenerate vertex).  An alarm
 * stands for "ends": 10 s, and the test dies (the suite's own timeout is
 * 120 s; a test of another timeout leaves criterion's runner a leak). */
Test(dsp, the_ilp_plans_a_batch_behind_an_hour_of_earlier_work)
{
	alarm(10);
	static const double work[17] = {2.0318097772644013, 7.7604708067308295, 6.334731367831925, 0.3969250487372237,
					3.4590409156982234, 2.811068221583835, 12.756816650418505, 9.246522690709012,
					0.6204406185098085, 4.359112655285159, 11.14395685336834, 0.6038265648082428,
					18.244007799981294, 0.5402470365379547, 15.008705818928902, 4.463899844399188,
					72.6771211442936};
	static const double rel[17] = {3521.3889437456819, 3521.5212909919533, 3522.1495865608094, 3522.6893430361688,
				       3522.7138348066933, 3522.7686431284201, 3522.8719325963752, 3522.878796466588,
				       3523.1407926191323, 3523.1508367847755, 3523.2345595512343, 3523.3857131265086,
				       3523.8436115267868, 3524.2343078710032, 3524.8621682451039, 3525.2662645654186,
				       3525.5661791204457};
	static const int edge[][2] = {{6, 9}, {7, 9}, {4, 10}, {6, 11}, {2, 12}, {6, 12},
				      {2, 13}, {3, 13}, {1, 14}, {7, 15}, {1, 16}, {6, 16}};
	double p[17 * 17], dl[1] = {228.49960836469077};
	int job[17] = {0};
	for (int v = 0; v < 17; v++)
		for (int k = 0; k < 17; k++)
			p[v * 17 + k] = work[v];
	struct dsp_inst in = {.n = 17, .m = 17, .p = p, .rel_m = rel, .job = job, .njobs = 1, .dl = dl,
			      .nedges = 12, .edge = edge, .gamma = 0.5};
	struct dsp_ilp_opts o = {.time_limit_s = 30, .node_limit = 2000, .gap = 0.01, .late_weight = 1e3};
	struct dsp_plan ilp, h1;
	cr_assert_eq(dsp_plan_alloc(&ilp, 17), 0);
	cr_assert_eq(dsp_plan_alloc(&h1, 17), 0);
	cr_assert_geq(dsp_ilp(&in, &o, &ilp), 0, "a plan");
	cr_assert_eq(dsp_h1(&in, &h1), 0);
	assert_feasible(&in, &ilp);
	for (int v = 0; v < 17; v++)
		cr_assert_geq(ilp.start[v], rel[ilp.machine[v]] - 1e-6, "task %d before its slot is free", v);
	/* the longest chain, 1 -> 16, from the earliest slot is a bound */
	cr_assert_geq(ilp.makespan, rel[0] + work[1] + work[16] - 1e-6);
	cr_assert_leq(ilp.makespan, h1.makespan + 1e-6, "ILP %.3f, H1 %.3f", ilp.makespan, h1.makespan);
	cr_assert_float_eq(ilp.late, ilp.makespan - dl[0], 1e-6);
	alarm(0);
	dsp_plan_free(&ilp);
	dsp_plan_free(&h1);
}

/* ---- priority ---------------------------------------------------------------- */

/* The seed's Fig. 2: T1 -> T2, T3; T2 -> T4, T5; T3 -> T6, T7. */
static const char fig2[] =
	"{\"scaled\": true, \"jobs\": [{\"name\": \"fig2\", \"input\": \"1MB\", \"deadline\": 20, \"stages\": [\n"
	" {\"name\": \"l1\", \"tasks\": 1, \"work\": 2, \"output\": \"1MB\"},\n"
	" {\"name\": \"l2\", \"tasks\": 2, \"work\": [3, 1], \"output\": \"1MB\", \"parents\": {\"l1\": \"tasks\"},\n"
	"  \"task_parents\": [{\"l1\": [0]}, {\"l1\": [0]}]},\n"
	" {\"name\": \"l3\", \"tasks\": 4, \"work\": [1, 4, 2, 1], \"output\": \"1MB\", \"parents\": {\"l2\": \"tasks\"},\n"
	"  \"task_parents\": [{\"l2\": [0]}, {\"l2\": [0]}, {\"l2\": [1]}, {\"l2\": [1]}]}]}]}\n";

Test(dsp, a_task_with_more_dependents_on_more_levels_comes_first)
{
	struct workload w;
	struct cluster c;
	sr_workload(root, &w, fig2);
	cr_assert_eq(cluster_init(&c, 1, 2, 2, &w, 0.05), 0);
	c.arrived[0] = true;
	int *cfirst, *child;
	cr_assert_eq(dsp_children(&w, &cfirst, &child), 0);
	double leaf[7], P[7];
	for (int v = 0; v < 7; v++)
		leaf[v] = 1;
	dsp_prio_job(&c, &w.jobs[0], cfirst, child, leaf, 0.5, P);
	/* P(T2) = P(T3) = 1.5 x 2 = 3, P(T1) = 1.5 x 6 = 9, the leaves 1 */
	cr_assert_float_eq(P[0], 9, 1e-9);
	cr_assert_float_eq(P[1], 3, 1e-9);
	cr_assert_float_eq(P[2], 3, 1e-9);
	for (int v = 3; v < 7; v++)
		cr_assert_float_eq(P[v], 1, 1e-9);
	/* a finished child no longer counts: T4 done, T2 = 1.5 x 1 */
	w.tasks[3].state = TASK_DONE;
	dsp_prio_job(&c, &w.jobs[0], cfirst, child, leaf, 0.5, P);
	cr_assert_float_eq(P[1], 1.5, 1e-9);
	cr_assert_float_eq(P[0], 1.5 * (1.5 + 3), 1e-9);
	/* C2: T6 depends on T1 (two levels up) and T3, not on T2 */
	cr_assert(dsp_depends(&c, &w.tasks[5], &w.tasks[0]));
	cr_assert(dsp_depends(&c, &w.tasks[5], &w.tasks[2]));
	cr_assert(!dsp_depends(&c, &w.tasks[5], &w.tasks[1]));
	cr_assert(!dsp_depends(&c, &w.tasks[0], &w.tasks[5]));
	/* level deadlines: 20, less the longest of every later level (l3: 4, l2: 3) */
	double dl[JOB_MAX_STAGES];
	dsp_level_deadlines(&c, &w.jobs[0], dl);
	cr_assert_float_eq(dl[2], 20, 1e-9);
	cr_assert_float_eq(dl[1], 16, 1e-9);
	cr_assert_float_eq(dl[0], 13, 1e-9);
	free(cfirst);
	free(child);
	cluster_free(&c);
	workload_free(&w);
}

/* The seed's PP example: T1 (1.1) runs; T2 (1.7) preempts it; T3 (2.0)
 * then does not preempt T2: the mean gap over the three is 0.45. */
Test(dsp, pp_stops_a_preemption_that_gains_less_than_the_mean_gap)
{
	double pbar = (2.0 - 1.1) / 2;
	cr_assert(dsp_pp_ok(1.7, 1.1, pbar, 1.2, true));
	cr_assert(!dsp_pp_ok(2.0, 1.7, pbar, 1.2, true));
	cr_assert(dsp_pp_ok(2.0, 1.7, pbar, 1.2, false), "DSPW/oPP: C1 alone");
	cr_assert(!dsp_pp_ok(1.0, 1.7, pbar, 1.2, false), "C1: never a lower priority");
}

/* ---- on the simulator ----------------------------------------------------------- */

/* `servers` servers of `slots` slots. */
static void servers_of(struct topo *t, int servers, int slots)
{
	char path[300], text[400], err[512];
	snprintf(text, sizeof text,
		 "name = \"one\"; racks = 1; servers_per_rack = %d;\n"
		 "server = { rate = \"1Gbit\"; containers = %d; };\n"
		 "eps = { uplink_rate = \"1Gbit\"; };\nocs = { enabled = false; };\n",
		 servers, slots);
	sr_write(root, "one.conf", text, path, sizeof path);
	cr_assert_eq(topo_load(t, path, 0, err), 0, "%s", err);
}

static void one_server(struct topo *t, int slots)
{
	servers_of(t, 1, slots);
}

/* On the simulator; a suspended task resumes after 0.5 s. */
static json_t *run(struct topo *t, struct workload *w, const char *sched, const struct sched_ops *ops,
		   const char **opts, int nopts, const char *name)
{
	struct run_params p;
	sr_params(&p, root, sched, name);
	p.sched_ops = ops;
	p.sched_opts = opts;
	p.nsched_opts = nopts;
	p.recovery_s = 0.5;
	return sr_run(t, w, &p);
}

/* A long task holds the one slot; at 5 s a DAG arrives whose root has four
 * children (priority 1.5 x 4 x 0.5 = 3, against the long task's 0.5/95),
 * alone or with a second long task. */
static const char *preempt_jobs(bool second)
{
	static char text[1200];
	snprintf(text, sizeof text,
		 "{\"scaled\": true, \"jobs\": [\n"
		 " {\"name\": \"long\", \"input\": \"1MB\", \"stages\": [{\"name\": \"l1\", \"tasks\": 1, \"work\": 100, \"output\": \"1MB\"}]},\n"
		 " {\"name\": \"dag\", \"submit\": 5, \"input\": \"1MB\", \"stages\": [\n"
		 "  {\"name\": \"l1\", \"tasks\": 1, \"work\": 1, \"output\": \"1MB\"},\n"
		 "  {\"name\": \"l2\", \"tasks\": 4, \"work\": 1, \"output\": \"1MB\", \"parents\": {\"l1\": \"tasks\"},\n"
		 "   \"task_parents\": [{\"l1\": [0]}, {\"l1\": [0]}, {\"l1\": [0]}, {\"l1\": [0]}]}]}%s\n"
		 "]}\n",
		 second ? ",\n {\"name\": \"long2\", \"submit\": 5, \"input\": \"1MB\", \"stages\": [{\"name\": \"l1\", \"tasks\": 1, "
			  "\"work\": 100, \"output\": \"1MB\"}]}"
			: "");
	return text;
}

/* Without the starving rule (tau off), the root preempts by C1 and PP: with
 * the two tasks alone, the gap is the mean gap (P~ = 1, not above rho),
 * so DSP does not preempt and DSPW/oPP does; with a third task near the
 * long one's priority, the gap is twice the mean and DSP preempts too. */
Test(dsp, dsp_preempts_only_when_the_priority_gap_pays)
{
	const char *opts[] = {"period=0", "tau=1e9"};
	struct topo t;
	one_server(&t, 1);
	struct { bool second; const char *sched; double suspends; } cases[] = {
		{false, "dsp", 0}, {false, "dsp-nopp", 1}, {true, "dsp", 1}};
	for (int i = 0; i < 3; i++) {
		struct workload w;
		sr_workload(root, &w, preempt_jobs(cases[i].second));
		char name[32];
		snprintf(name, sizeof name, "pp%d", i);
		json_t *s = run(&t, &w, cases[i].sched, NULL, opts, 2, name);
		cr_assert_eq(sr_num(s, "jobs_finished"), 2 + cases[i].second);
		cr_assert_eq(sr_num(s, "disorders.starts"), 0, "DSP starts no task before its parents");
		const struct task *lng = &w.tasks[0], *rootT = &w.tasks[1];
		if (cases[i].suspends) {
			cr_assert_geq(lng->suspends, 1, "case %d: the long task is suspended", i);
			cr_assert_lt(rootT->t_end, lng->t_end, "case %d: the root ran first", i);
			cr_assert_lt(rootT->t_start, 7, "case %d: at the first epoch after its plan", i);
		} else {
			cr_assert_eq(sr_num(s, "preemptions.suspends"), 0, "case %d", i);
			cr_assert_geq(rootT->t_start, lng->t_end - 1e-6, "case %d: the root waited", i);
		}
		json_decref(s);
		workload_free(&w);
	}
}

/* The starving rule: a task that waited tau since it could start
 * (wait_mode=runnable) preempts without C1 or PP. */
Test(dsp, a_starving_task_preempts_without_a_priority_advantage)
{
	const char *opts[] = {"period=0", "wait_mode=runnable"};
	struct topo t;
	one_server(&t, 1);
	struct workload w;
	sr_workload(root, &w, preempt_jobs(false));
	json_t *s = run(&t, &w, "dsp", NULL, opts, 2, "starving");
	cr_assert_geq(sr_num(s, "preemptions.suspends"), 1);
	cr_assert_eq(sr_num(s, "preemptions.kills"), 0, "DSP suspends, it never kills");
	cr_assert_lt(w.tasks[1].t_end, w.tasks[0].t_end);
	json_decref(s);
	workload_free(&w);
}

/* A policy that ignores dependencies: the startable pending task of the
 * highest id first (children before parents). */
static int childfirst_init(struct sched *s)
{
	sched_ignore_deps(s);
	return 0;
}

static struct task *childfirst_offer(struct sched *s, int server)
{
	for (int i = s->c->w->ntasks - 1; i >= 0; i--) {
		struct task *t = &s->c->w->tasks[i];
		if (cluster_task_startable(s->c, t) && cluster_task_fits(s->c, t, server))
			return t;
	}
	return NULL;
}

static const struct sched_ops childfirst = {.name = "childfirst", .init = childfirst_init, .offer = childfirst_offer};

static const char chain[] =
	"{\"scaled\": true, \"jobs\": [{\"name\": \"pc\", \"input\": \"1MB\", \"stages\": [\n"
	" {\"name\": \"l1\", \"tasks\": 1, \"work\": 2, \"output\": \"1MB\"},\n"
	" {\"name\": \"l2\", \"tasks\": 1, \"work\": 1, \"output\": \"1MB\", \"parents\": {\"l1\": \"tasks\"},\n"
	"  \"task_parents\": [{\"l1\": [0]}]}]}]}\n";

/* Two slots: the child starts with its parent, holds its slot, waits for
 * the parent's output and then computes its whole work. */
Test(dsp, a_child_started_before_its_parent_waits_for_it)
{
	struct topo t;
	one_server(&t, 2);
	struct workload w;
	sr_workload(root, &w, chain);
	json_t *s = run(&t, &w, "childfirst", &childfirst, NULL, 0, "disorder");
	const struct task *par = &w.tasks[0], *ch = &w.tasks[1];
	cr_assert_eq(sr_num(s, "jobs_finished"), 1);
	cr_assert_eq(sr_num(s, "disorders.starts"), 1);
	cr_assert_eq(sr_num(s, "disorders.tasks"), 1);
	cr_assert_eq(sr_num(s, "disorders.deadlock_breaks"), 0);
	cr_assert(ch->disordered && ch->disorders == 1 && ch->attempts == 1);
	cr_assert_lt(ch->t_start, par->t_end, "started before its parent ended");
	cr_assert_geq(ch->t_end, par->t_end + ch->duration_s - 1e-6, "computed after the parent's output was there");
	/* Its one core, held from its start to its parent's end, as the
	 * heartbeats (0.2 s apart) see it. */
	double held = par->t_end - ch->t_start;
	cr_assert_gt(held, 1);
	cr_assert_leq(fabs(sr_num(s, "disorders.hold_core_s") - held), 0.2 + 1e-6, "held %.3f core-s, waited %.3f s",
		      sr_num(s, "disorders.hold_core_s"), held);
	cr_assert_float_eq(sr_num(s, "disorders.hold_share") * 2 * sr_num(s, "run_s"), sr_num(s, "disorders.hold_core_s"),
			   1e-6, "a share of the two slots' core-seconds over the run");
	json_decref(s);
	workload_free(&w);
}

/* One slot: the child holds it and its parent cannot start; the breaker
 * kills the child, the parent runs, then the child, in order. */
Test(dsp, the_deadlock_breaker_kills_a_waiting_child_that_holds_every_slot)
{
	struct topo t;
	one_server(&t, 1);
	struct workload w;
	sr_workload(root, &w, chain);
	json_t *s = run(&t, &w, "childfirst", &childfirst, NULL, 0, "deadlock");
	const struct task *par = &w.tasks[0], *ch = &w.tasks[1];
	cr_assert_eq(sr_num(s, "jobs_finished"), 1);
	cr_assert_eq(sr_num(s, "disorders.starts"), 1, "the first attempt only");
	cr_assert_eq(sr_num(s, "disorders.deadlock_breaks"), 1);
	cr_assert_eq(sr_num(s, "preemptions.kills"), 1);
	cr_assert(ch->kills == 1 && ch->attempts == 2 && !ch->disordered);
	cr_assert_geq(ch->t_start, par->t_end - 1e-6, "its second attempt after the parent");
	cr_assert_lt(par->t_start, 1, "the parent started within two heartbeats of the deadlock");
	json_decref(s);
	workload_free(&w);
}

/* Two slots, a chain of three: the child and the grandchild start first
 * and hold both; the grandchild waits through the child, which waits for
 * the pending root: the server is stuck, and the breaker frees it. */
Test(dsp, a_task_waiting_through_a_waiting_parent_counts_as_stuck)
{
	static const char chain3[] =
		"{\"scaled\": true, \"jobs\": [{\"name\": \"c3\", \"input\": \"1MB\", \"stages\": [\n"
		" {\"name\": \"l1\", \"tasks\": 1, \"work\": 2, \"output\": \"1MB\"},\n"
		" {\"name\": \"l2\", \"tasks\": 1, \"work\": 1, \"output\": \"1MB\", \"parents\": {\"l1\": \"tasks\"},\n"
		"  \"task_parents\": [{\"l1\": [0]}]},\n"
		" {\"name\": \"l3\", \"tasks\": 1, \"work\": 1, \"output\": \"1MB\", \"parents\": {\"l2\": \"tasks\"},\n"
		"  \"task_parents\": [{\"l2\": [0]}]}]}]}\n";
	struct topo t;
	one_server(&t, 2);
	struct workload w;
	sr_workload(root, &w, chain3);
	json_t *s = run(&t, &w, "childfirst", &childfirst, NULL, 0, "chain3");
	cr_assert_eq(sr_num(s, "jobs_finished"), 1);
	cr_assert_eq(sr_num(s, "disorders.starts"), 2);
	cr_assert_geq(sr_num(s, "disorders.deadlock_breaks"), 1);
	cr_assert_geq(w.tasks[1].t_end, w.tasks[0].t_end + 1 - 1e-6);
	cr_assert_geq(w.tasks[2].t_end, w.tasks[1].t_end + 1 - 1e-6);
	cr_assert_lt(w.tasks[0].t_start, 1, "the root started within two heartbeats");
	json_decref(s);
	workload_free(&w);
}

/* SRPT: a 1 s task arriving at 5 s kills the 100 s task holding the slot,
 * which then restarts from zero. */
Test(dsp, srpt_kills_a_longer_task_for_a_shorter_one)
{
	static const char jobs[] =
		"{\"scaled\": true, \"jobs\": [\n"
		" {\"name\": \"long\", \"input\": \"1MB\", \"stages\": [{\"name\": \"l1\", \"tasks\": 1, \"work\": 100, \"output\": \"1MB\"}]},\n"
		" {\"name\": \"short\", \"submit\": 5, \"input\": \"1MB\", \"stages\": [{\"name\": \"l1\", \"tasks\": 1, \"work\": 1, \"output\": \"1MB\"}]}\n"
		"]}\n";
	struct topo t;
	one_server(&t, 1);
	struct workload w;
	sr_workload(root, &w, jobs);
	json_t *s = run(&t, &w, "srpt", NULL, NULL, 0, "srpt");
	const struct task *lng = &w.tasks[0], *sh = &w.tasks[1];
	cr_assert_eq(sr_num(s, "jobs_finished"), 2);
	cr_assert_eq(sr_num(s, "preemptions.kills"), 1);
	cr_assert(lng->kills == 1 && lng->attempts == 2 && sh->kills == 0);
	cr_assert_lt(sh->t_end, 7.5, "the short task ran within an epoch of its arrival");
	cr_assert_geq(lng->t_start, sh->t_end - 1e-6);
	cr_assert_geq(lng->t_end, sh->t_end + 100 - 1e-6, "the long task computed all of its work again");
	json_decref(s);
	workload_free(&w);
}

/* The generator's DAGs (dsp-dag, small) on 3 servers of 4 slots: DSP and
 * SRPT with dep=respect start every task after its parents (0 disorders,
 * checked task by task), SRPT as the seed's (dep=none) does not; every job
 * finishes under each. */
Test(dsp, only_the_dependency_ignoring_baseline_disorders_the_generated_dags)
{
	struct { const char *sched; const char *opt; bool disorders; } cases[] = {
		{"dsp", "period=300", false}, {"srpt", "dep=respect", false}, {"srpt", "dep=none", true}};
	struct topo t;
	servers_of(&t, 3, 4);
	for (int i = 0; i < 3; i++) {
		struct workload w;
		char name[16];
		sr_generate(&w, "dsp-dag:scale=0.02", 3, 6, 0.1);   /* emu run's time scale: median tasks of 6 s */
		const char *opts[] = {cases[i].opt};
		snprintf(name, sizeof name, "gen%d", i);
		json_t *s = run(&t, &w, cases[i].sched, NULL, opts, 1, name);
		cr_assert_eq(sr_num(s, "jobs_finished"), 6, "%s %s", cases[i].sched, cases[i].opt);
		double starts = sr_num(s, "disorders.starts");
		if (cases[i].disorders) {
			cr_assert_gt(starts, 0, "%s %s", cases[i].sched, cases[i].opt);
		} else {
			cr_assert_eq(starts, 0, "%s %s", cases[i].sched, cases[i].opt);
			sr_assert_in_order(&w, cases[i].sched);
		}
		json_decref(s);
		workload_free(&w);
	}
}
