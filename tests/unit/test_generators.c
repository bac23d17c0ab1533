/* The workload generators (emu/gen*.c): seeded, shaped as the seed papers
 * and their notes say, written and read back unchanged, and run to the end
 * on the simulator. */
#include "emu/gen.h"
#include "emu/cluster.h"
#include "emu/run.h"
#include "emu/stages.h"
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GiB (1ULL << 30)

/* Small instances of every generator. */
static const char *const small[] = {
	"dawn-ml", "dawn-tpch", "dawn-tez", "dsp-dag:scale=0.01", "cobra:median_tasks=5", "fawkes:wkld=5",
};
static const int small_jobs[] = {2, 5, 5, 6, 10, 5};
#define NSMALL (int)(sizeof small / sizeof *small)

static int generate(struct workload *w, const char *spec, int njobs, unsigned long seed, double ds, double ts,
		    char err[512])
{
	struct synth_params sp;
	struct workload_params wp;
	synth_params_default(&sp);
	workload_params_default(&wp);
	wp.data_scale = ds;
	wp.time_scale = ts;
	sp.seed = seed;
	sp.njobs = njobs;
	struct gen_opts o = {&sp, njobs > 0, false, false};
	return gen_workload(w, spec, &o, &wp, err);
}

/* Unscaled: bytes and seconds as the generators draw them. */
static void gen(struct workload *w, const char *spec, int njobs, unsigned long seed)
{
	char err[512];
	cr_assert_eq(generate(w, spec, njobs, seed, 1, 1, err), 0, "%s: %s", spec, err);
}

/* w as the native writer writes it, parsed, without the comment (which
 * names the source). */
static json_t *native(const struct workload *w)
{
	char path[64] = "/tmp/test-gen-XXXXXX";
	close(mkstemp(path));
	cr_assert_eq(workload_write_native(w, path), 0);
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	cr_assert_not_null(j, "%s", je.text);
	unlink(path);
	json_object_del(j, "comment");
	return j;
}

Test(generators, deterministic_per_seed)
{
	for (int g = 0; g < NSMALL; g++) {
		struct workload a, b, c;
		gen(&a, small[g], small_jobs[g], 7);
		gen(&b, small[g], small_jobs[g], 7);
		gen(&c, small[g], small_jobs[g], 8);
		json_t *ta = native(&a), *tb = native(&b), *tc = native(&c);
		cr_assert(json_equal(ta, tb), "%s: two draws of seed 7 differ", small[g]);
		cr_assert(!json_equal(ta, tc), "%s: seeds 7 and 8 draw the same", small[g]);
		json_decref(ta), json_decref(tb), json_decref(tc);
		workload_free(&a), workload_free(&b), workload_free(&c);
	}
}

/* Written natively and read back: the same jobs, stages and tasks (the
 * writer writes all of them, so equal files are equal workloads). */
Test(generators, round_trip)
{
	for (int g = 0; g < NSMALL; g++) {
		struct workload w, back;
		struct workload_params p;
		char path[64] = "/tmp/test-gen-rt-XXXXXX", err[512];
		gen(&w, small[g], small_jobs[g], 3);
		close(mkstemp(path));
		cr_assert_eq(workload_write_native(&w, path), 0);
		workload_params_default(&p);
		p.data_scale = 0.5;   /* a written file is scaled: other params change nothing */
		cr_assert_eq(workload_read(&back, path, &p, 0, err), 0, "%s: %s", small[g], err);
		unlink(path);
		cr_assert(back.njobs == w.njobs && back.ntasks == w.ntasks && back.ntdeps == w.ntdeps, "%s", small[g]);
		json_t *a = native(&w), *b = native(&back);
		cr_assert(json_equal(a, b), "%s: the read-back workload differs", small[g]);
		json_decref(a), json_decref(b);
		workload_free(&w), workload_free(&back);
	}
}

/* Table I, and the notes' map counts at 128 MiB blocks. */
static const struct {
	const char *label;
	double gib;
	int maps;
} table1[9] = {
	{"B1", 18.5, 148}, {"B2", 37.5, 300}, {"B3", 75, 600}, {"B4", 34.8, 279}, {"B5", 52.8, 423},
	{"B6", 69.9, 560}, {"B7", 32.4, 260}, {"B8", 51.6, 413}, {"B9", 64.8, 519},
};

static uint64_t base_input(const struct job *j)
{
	return j->input_bytes - j->lineage_bytes;
}

Test(generators, dawn_ml_chains)
{
	for (int b = 0; b < 9; b++) {
		char spec[32];
		snprintf(spec, sizeof spec, "dawn-ml:bench=%d", b + 1);
		struct workload w;
		gen(&w, spec, 1, 1);
		cr_assert_eq(w.njobs, 11, "%s: %d jobs", table1[b].label, w.njobs);
		const struct job *first = &w.jobs[0];
		uint64_t size = (uint64_t)(table1[b].gib * GiB);
		cr_assert(!strncmp(first->name, table1[b].label, 2), "%s", first->name);
		cr_assert_eq(first->input_bytes, size, "%s", table1[b].label);
		cr_assert_eq(first->nmaps, table1[b].maps, "%s: %d maps", table1[b].label, first->nmaps);
		cr_assert(first->ndeps == 0 && first->lineage_bytes == 0);
		for (int i = 1; i < w.njobs; i++) {
			const struct job *j = &w.jobs[i];
			cr_assert(j->ndeps >= 1 && j->deps[0] == i - 1, "%s: not its parent's child", j->name);
			uint64_t lineage = 0;
			for (int d = 0; d < j->ndeps; d++)
				lineage += w.jobs[j->deps[d]].output_bytes;
			cr_assert(lineage > 0 && j->lineage_bytes == lineage, "%s", j->name);
			cr_assert_eq(j->submit_s, first->submit_s);
		}
		/* The base input re-read: K-means' samples every iteration and
		 * by the clustering, PageRank's edges every iteration's join. */
		int reread = 0;
		for (int i = 1; i < w.njobs; i++)
			if (base_input(&w.jobs[i])) {
				cr_assert_eq(base_input(&w.jobs[i]), size, "%s", w.jobs[i].name);
				reread++;
			}
		cr_assert_eq(reread, b < 3 ? 10 : b < 6 ? 0 : 4, "%s: %d jobs re-read the base", table1[b].label, reread);
		workload_free(&w);
	}
	/* By default one chain of each, in a seeded order. */
	struct workload w;
	gen(&w, "dawn-ml", 0, 5);
	cr_assert_eq(w.njobs, 99);
	bool seen[9] = {false};
	for (int i = 0; i < w.njobs; i += 11)
		seen[w.jobs[i].name[1] - '1'] = true;
	for (int b = 0; b < 9; b++)
		cr_assert(seen[b], "no chain of B%d", b + 1);
	workload_free(&w);
}

/* The job's query: its name before the first '.'. */
static int query_of(const struct job *j)
{
	return atoi(j->name + 1);
}

Test(generators, dawn_tpch_trees)
{
	struct workload w;
	gen(&w, "dawn-tpch", 0, 2);
	cr_assert_eq(w.njobs, 132, "%d jobs: not a mean of 6 per query", w.njobs);
	int jobs[23] = {0}, roots = 0;
	for (int i = 0; i < w.njobs; i++) {
		const struct job *j = &w.jobs[i];
		int q = query_of(j);
		cr_assert(q >= 1 && q <= 22, "%s", j->name);
		jobs[q]++;
		cr_assert(j->submit_s >= 0 && j->submit_s <= 1500, "%s at %g", j->name, j->submit_s);
		roots += !j->ndeps;
		for (int d = 0; d < j->ndeps; d++) {
			const struct job *p = &w.jobs[j->deps[d]];
			cr_assert(query_of(p) == q && p->submit_s == j->submit_s, "%s reads %s", j->name, p->name);
		}
		if (j->ndeps)
			cr_assert_gt(j->lineage_bytes, 0, "%s", j->name);
		if (strstr(j->name, ".orderby"))   /* the root of the tree: ORDER BY, one reduce */
			cr_assert_eq(j->nreduces, 1);
	}
	for (int q = 1; q <= 22; q++)
		cr_assert(jobs[q] >= 3 && jobs[q] <= 10, "Q%d: %d jobs", q, jobs[q]);
	cr_assert_eq(roots, 52, "scans of large tables: %d", roots);
	workload_free(&w);
}

Test(generators, dawn_tez_one_job_per_query)
{
	struct workload mr, tez;
	gen(&mr, "dawn-tpch", 0, 2);
	gen(&tez, "dawn-tez", 0, 2);
	cr_assert_eq(tez.njobs, 22);
	bool seen[23] = {false};
	int edges[4] = {0};
	for (int i = 0; i < tez.njobs; i++) {
		const struct job *j = &tez.jobs[i];
		int q = query_of(j);
		cr_assert(!seen[q], "Q%d twice", q);
		seen[q] = true;
		cr_assert(j->nstages >= 3 && !stages_is_mapreduce(j) && !j->ndeps, "%s", j->name);
		for (int s = 1; s < j->nstages; s++)
			for (int p = 0; p < j->stages[s].nparents; p++)
				edges[j->stages[s].parent[p].kind]++;
		/* The same tables as the query's MapReduce jobs read. */
		uint64_t base = 0;
		for (int k = 0; k < mr.njobs; k++)
			if (query_of(&mr.jobs[k]) == q)
				base += base_input(&mr.jobs[k]);
		cr_assert_eq(j->input_bytes, base, "%s", j->name);
	}
	cr_assert(edges[EDGE_SHUFFLE] > 0 && edges[EDGE_BROADCAST] == 6 && edges[EDGE_ONE_TO_ONE] == 6);
	workload_free(&mr);
	workload_free(&tez);
}

Test(generators, dsp_dags)
{
	const char *specs[] = {"dsp-dag:scale=0.1", "dsp-dag:scale=0.05,levels=3,children=2"};
	const int maxl[] = {5, 3}, maxc[] = {15, 2};
	const double scale[] = {0.1, 0.05};
	for (int v = 0; v < 2; v++) {
		struct workload w;
		gen(&w, specs[v], 12, 9);
		int large = 0, medium = 0;
		for (int i = 0; i < w.njobs; i++) {
			const struct job *j = &w.jobs[i];
			int n = j->nmaps + j->nreduces;
			large += n == (int)(2000 * scale[v]);
			medium += n == (int)(1000 * scale[v]);
			cr_assert(j->nstages >= 1 && j->nstages <= maxl[v], "%s: %d levels", j->name, j->nstages);
			cr_assert_gt(j->deadline_s, 0);
			for (int s = 0; s < j->nstages; s++) {
				const struct res *a = &j->stages[s].ask;
				cr_assert(a->v[RES_CORES] >= 20 && a->v[RES_CORES] <= 1000, "cpu %lld", (long long)a->v[RES_CORES]);
				cr_assert(a->v[RES_MEM] >= 16000000 && a->v[RES_MEM] <= 2000000000, "mem %lld",
					  (long long)a->v[RES_MEM]);
				if (s)
					cr_assert(j->stages[s].nparents == 1 && j->stages[s].parent[0].kind == EDGE_TASKS);
			}
			for (int k = 0; k < n; k++) {
				const struct task *t = &w.tasks[j->first_task + k];
				cr_assert(t->work_s >= 1 && t->work_s <= 7200, "work %g", t->work_s);
				cr_assert_leq(t->nchildren, maxc[v], "%s: a task of %d children", j->name, t->nchildren);
				cr_assert(t->stage == 0 ? t->ntdeps == 0 : t->ntdeps >= 1 && t->ntdeps <= 2);
				for (int d = 0; d < t->ntdeps; d++) {
					const struct task *p = &w.tasks[j->first_task + w.tdeps[t->tdep_first + d].task];
					cr_assert_lt(p->stage, t->stage, "%s: a parent not at a lower level", j->name);
				}
			}
		}
		cr_assert(large == 4 && medium == 4, "%s: %d large, %d medium of 12", specs[v], large, medium);
		workload_free(&w);
	}
}

Test(generators, cobra_stages)
{
	struct workload w;
	gen(&w, "cobra", 200, 4);
	int big = 0, nst[5] = {0};
	for (int i = 0; i < w.njobs; i++) {
		const struct job *j = &w.jobs[i];
		cr_assert(j->nstages >= 1 && j->nstages <= 4);
		nst[j->nstages]++;
		big += j->nmaps > 300;
		for (int s = 0; s < j->nstages; s++) {
			const struct stage *st = &j->stages[s];
			const struct task *t0 = stage_task(w.tasks, j, s, 0);
			for (int k = 1; k < st->ntasks; k++)   /* a stage's tasks alike */
				cr_assert_eq(stage_task(w.tasks, j, s, k)->work_s, t0->work_s);
			cr_assert(t0->work_s >= 1 && t0->work_s <= 3600);
			cr_assert(st->ask.v[RES_CORES] >= 40 && st->ask.v[RES_CORES] <= 2000);
			cr_assert(st->ask.v[RES_MEM] >= 16000000 && st->ask.v[RES_MEM] <= 2000000000);
		}
	}
	for (int s = 1; s <= 4; s++)
		cr_assert_gt(nst[s], 20, "%d jobs of %d stages", nst[s], s);
	cr_assert(big > 0 && big < 20, "%d jobs of over 300 maps: not heavy-tailed", big);
	workload_free(&w);
}

Test(generators, errors)
{
	const char *bad[][2] = {
		{"nope", "unknown generator 'nope'"},
		{"dawn-ml:foo=1", "unknown key 'foo'"},
		{"dawn-ml:gap", "wants a value"},
		{"dsp-dag:levels=6", "levels='6': expected a number in [1, 5]"},
		{"dsp-dag:children=16", "children='16'"},
		{"cobra:gap=1,gap=2", "given twice"},
		{"synthetic:x=1", "it takes none"},
		{"dsp-dag:rate_min=5,rate_max=2", "rate_min must not exceed rate_max"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct workload w;
		char err[512] = "";
		cr_assert_eq(generate(&w, bad[i][0], 2, 1, 1, 1, err), -1, "%s accepted", bad[i][0]);
		cr_assert(strstr(err, bad[i][1]), "%s: '%s'", bad[i][0], err);
	}
	struct synth_params sp;
	struct workload_params wp;
	synth_params_default(&sp);
	workload_params_default(&wp);
	struct gen_opts o = {&sp, false, true, false};
	struct workload w;
	char err[512];
	cr_assert_eq(gen_workload(&w, "cobra", &o, &wp, err), -1);
	cr_assert(strstr(err, "--arrivals"), "%s", err);
	o.arrivals_given = false;
	wp.max_maps = 10;
	cr_assert_eq(gen_workload(&w, "dawn-ml", &o, &wp, err), -1);
	cr_assert(strstr(err, "--max-maps"), "%s", err);
}

/* Every generator's small instance runs to the end on the simulator. */
Test(generators, run_on_simulator)
{
	char root[64] = "/tmp/emu-gen-XXXXXX", err[512];
	cr_assert_not_null(mkdtemp(root));
	struct topo t;
	cr_assert_eq(topo_load(&t, "topologies/geni-10rack.conf", 0, err), 0, "%s", err);
	for (int g = 0; g < NSMALL; g++) {
		struct workload w;
		cr_assert_eq(generate(&w, small[g], small_jobs[g], 4, 0.01, 0.1, err), 0, "%s", err);
		cr_assert_eq(cluster_check_asks(&t, &w, err), 0, "%s", err);
		struct run_params p;
		run_params_default(&p);
		char name[16];
		snprintf(name, sizeof name, "g%d", g);
		p.backend = "sim";
		p.results_root = root;
		p.run_name = name;
		p.quiet = true;
		p.elephant_bytes = (uint64_t)(1.125e9 * 0.01);
		cr_assert_eq(run_experiment(&t, &w, &p, err), 0, "%s: %s", small[g], err);
		char path[300];
		snprintf(path, sizeof path, "%s/default/fair/%s/summary.json", root, name);
		json_error_t je;
		json_t *s = json_load_file(path, 0, &je);
		cr_assert_not_null(s, "%s: %s", path, je.text);
		cr_assert_eq(json_number_value(json_object_get(s, "jobs_finished")), w.njobs, "%s", small[g]);
		json_decref(s);
		workload_free(&w);
	}
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}
