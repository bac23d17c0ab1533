/* Unit tests: workloads — SWIM and native readers, task derivation, the
 * native writer (round trip), the synthetic generator and arrival modes. */
#include "emu/stages.h"
#include "emu/workload.h"
#include <criterion/criterion.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

/* Where the FB-2010 SWIM trace would be: beside the repository, in
 * ../shared/data/swim/ from its root, the parent of the test binary's
 * directory (build-san/test-unit).  Tests use it only when it is there:
 * false when it is absent. */
static bool fb2010_path(char path[1024])
{
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	cr_assert_gt(n, 0);
	self[n] = '\0';
	char *dir = dirname(self);
	snprintf(path, 1024, "%s/../shared/data/swim/FB-2010_samples_24_times_1hr_0.tsv", dirname(dir));
	return access(path, R_OK) == 0;
}

/* Write text to a fresh file under /tmp; path receives its name. */
static void write_tmp(char path[64], const char *text)
{
	snprintf(path, 64, "/tmp/test-workload-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *f = fdopen(fd, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* Expect reading text (SWIM or native by content) to fail with a message
 * that starts "PATH:LINE: " and contains what. */
static void expect_error(const char *text, int line, const char *what)
{
	char path[64], err[512] = "", prefix[96];
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	write_tmp(path, text);
	cr_assert_eq(workload_read(&w, path, &p, 0, err), -1, "accepted: %s", text);
	snprintf(prefix, sizeof(prefix), "%s:%d: ", path, line);
	cr_assert(!strncmp(err, prefix, strlen(prefix)), "expected '%s...', got '%s'", prefix, err);
	cr_assert_not_null(strstr(err, what), "expected '%s' in '%s'", what, err);
	unlink(path);
}

/* Every job's tasks: ids, kinds, order, defaults, and byte sums equal to
 * the job's totals exactly. */
static void check_tasks(const struct workload *w)
{
	int next = 0;
	for (int j = 0; j < w->njobs; j++) {
		const struct job *jb = &w->jobs[j];
		cr_assert_eq(jb->id, j);
		cr_assert_eq(jb->first_task, next);
		uint64_t in = 0, mout = 0, rin = 0, rout = 0;
		for (int i = 0; i < jb->nmaps + jb->nreduces; i++) {
			const struct task *t = &w->tasks[jb->first_task + i];
			bool map = i < jb->nmaps;
			cr_assert_eq(t->id, jb->first_task + i);
			cr_assert_eq(t->job, j);
			cr_assert_eq(t->kind, map ? TASK_MAP : TASK_REDUCE);
			cr_assert_eq(t->index, map ? i : i - jb->nmaps);
			cr_assert_eq(t->state, TASK_PENDING);
			cr_assert_eq(t->server, -1);
			cr_assert(t->replicas[0] == -1 && t->replicas[1] == -1 && t->replicas[2] == -1);
			cr_assert_geq(t->work_s, w->params.time_floor_s);
			if (map) {
				in += t->input_bytes;
				mout += t->output_bytes;
			} else {
				rin += t->input_bytes;
				rout += t->output_bytes;
			}
		}
		cr_assert_eq(in, jb->input_bytes, "job %d", j);
		next += jb->nmaps + jb->nreduces;
		if (!stages_is_mapreduce(jb))
			continue;   /* stages: native_stages checks what their tasks read */
		cr_assert_eq(mout, jb->shuffle_bytes, "job %d", j);
		if (jb->nreduces) {
			cr_assert_eq(rin, jb->shuffle_bytes, "job %d", j);
			cr_assert_eq(rout, jb->output_bytes, "job %d", j);
		} else {
			cr_assert(jb->shuffle_bytes == 0 && jb->output_bytes == 0);
		}
	}
	cr_assert_eq(next, w->ntasks);
}

/* Two workloads describe the same jobs and tasks, exactly. */
static void expect_same(const struct workload *a, const struct workload *b)
{
	cr_assert_eq(a->njobs, b->njobs);
	cr_assert_eq(a->ntasks, b->ntasks);
	for (int j = 0; j < a->njobs; j++) {
		const struct job *x = &a->jobs[j], *y = &b->jobs[j];
		cr_assert_str_eq(x->name, y->name);
		cr_assert(x->submit_s == y->submit_s && x->pred_submit_s == y->pred_submit_s, "job %d", j);
		cr_assert(x->input_bytes == y->input_bytes && x->shuffle_bytes == y->shuffle_bytes &&
			  x->output_bytes == y->output_bytes && x->pred_shuffle_bytes == y->pred_shuffle_bytes,
			  "job %d", j);
		cr_assert(x->nmaps == y->nmaps && x->nreduces == y->nreduces && x->first_task == y->first_task);
		cr_assert_eq(x->recurring, y->recurring);
		cr_assert_eq(x->ndeps, y->ndeps);
		for (int d = 0; d < x->ndeps; d++)
			cr_assert_eq(x->deps[d], y->deps[d]);
		cr_assert(x->deadline_s == y->deadline_s && x->nstages == y->nstages, "job %d", j);
		cr_assert_eq(x->lineage_bytes, y->lineage_bytes, "job %d", j);
		for (int s = 0; s < x->nstages; s++) {
			const struct stage *a = &x->stages[s], *b = &y->stages[s];
			cr_assert(!strcmp(a->name, b->name) && a->first == b->first && a->ntasks == b->ntasks &&
				  a->nparents == b->nparents && a->has_children == b->has_children &&
				  !memcmp(&a->ask, &b->ask, sizeof a->ask), "job %d stage %d", j, s);
			for (int p = 0; p < a->nparents; p++)
				cr_assert(a->parent[p].stage == b->parent[p].stage && a->parent[p].kind == b->parent[p].kind);
		}
	}
	for (int i = 0; i < a->ntasks; i++) {
		const struct task *x = &a->tasks[i], *y = &b->tasks[i];
		cr_assert(x->id == y->id && x->job == y->job && x->kind == y->kind && x->index == y->index, "task %d", i);
		cr_assert(x->work_s == y->work_s, "task %d: %.17g vs %.17g", i, x->work_s, y->work_s);
		cr_assert(x->input_bytes == y->input_bytes && x->output_bytes == y->output_bytes, "task %d", i);
		cr_assert(x->ntdeps == y->ntdeps && x->nchildren == y->nchildren && x->stage == y->stage, "task %d", i);
		for (int d = 0; d < x->ntdeps; d++)
			cr_assert(!memcmp(&a->tdeps[x->tdep_first + d], &b->tdeps[y->tdep_first + d], sizeof(struct task_dep)));
	}
}

static bool differs(const struct workload *a, const struct workload *b)
{
	if (a->njobs != b->njobs || a->ntasks != b->ntasks)
		return true;
	for (int j = 0; j < a->njobs; j++)
		if (a->jobs[j].input_bytes != b->jobs[j].input_bytes ||
		    a->jobs[j].shuffle_bytes != b->jobs[j].shuffle_bytes ||
		    a->jobs[j].output_bytes != b->jobs[j].output_bytes)
			return true;
	return false;
}

/* ------------------------------------------------------------------ SWIM */

Test(workload, swim_parse)
{
	char path[64], err[512];
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	write_tmp(path, "job0\t100\t100\t314572800\t2684354560\t536870912\n"
			"\n"
			"job1\t130\t30\t1\t0\t0\r\n"
			"  \n"
			"job2\t130\t0\t0\t0\t14347\n");
	cr_assert_eq(workload_read_swim(&w, path, &p, 0, err), 0, "%s", err);
	cr_assert_eq(w.njobs, 3);
	cr_assert_str_eq(w.jobs[0].name, "job0");
	cr_assert_str_eq(w.jobs[2].name, "job2");
	cr_assert_str_eq(w.source, path);
	/* Arrivals relative to the first job. */
	cr_assert_float_eq(w.jobs[0].submit_s, 0, 1e-12);
	cr_assert_float_eq(w.jobs[1].submit_s, 30, 1e-12);
	cr_assert_float_eq(w.jobs[2].submit_s, 30, 1e-12);
	cr_assert_eq(w.jobs[0].input_bytes, 314572800);
	cr_assert_eq(w.jobs[0].shuffle_bytes, 2684354560);
	cr_assert_eq(w.jobs[0].output_bytes, 536870912);
	/* Predictions = actual; not recurring; default resources. */
	cr_assert_eq(w.jobs[0].pred_shuffle_bytes, w.jobs[0].shuffle_bytes);
	cr_assert(w.jobs[1].pred_submit_s == w.jobs[1].submit_s);
	cr_assert(!w.jobs[0].recurring);
	struct res dflt = res_of(1, 1, 0);
	cr_assert(!memcmp(&w.jobs[0].stages[0].ask, &dflt, sizeof dflt) &&
		  !memcmp(&w.jobs[0].stages[1].ask, &dflt, sizeof dflt));
	cr_assert(w.jobs[0].deadline_s == 0 && w.jobs[0].ndeps == 0);
	/* 3 maps + 3 reduces, 1 map, 1 map + 1 reduce (output only). */
	cr_assert_eq(w.jobs[0].nmaps, 3);
	cr_assert_eq(w.jobs[0].nreduces, 3);
	cr_assert_eq(w.jobs[1].nmaps, 1);
	cr_assert_eq(w.jobs[1].nreduces, 0);
	cr_assert_eq(w.jobs[2].nmaps, 1);
	cr_assert_eq(w.jobs[2].nreduces, 1);
	cr_assert_eq(w.ntasks, 9);
	check_tasks(&w);
	workload_free(&w);

	/* max_jobs reads the first N, through workload_read too. */
	cr_assert_eq(workload_read(&w, path, &p, 2, err), 0, "%s", err);
	cr_assert_eq(w.njobs, 2);
	cr_assert_str_eq(w.jobs[1].name, "job1");
	workload_free(&w);
	unlink(path);
}

Test(workload, swim_errors)
{
	expect_error("job0\t0\t0\t1\t2\t3\njob1\t1\t1\t1\t2\n", 2, "expected 6 tab-separated columns");
	expect_error("job0\t0\t0\t1\t2\t3\n\njob1\t1\t1\tabc\t2\t3\n", 3, "column 4 (input bytes): 'abc' is not a number");
	expect_error("job0\t0\t0\t1\t-5\t3\n", 1, "column 5 (shuffle bytes): '-5' is negative");
	expect_error("job0\t0\t0\t1\t2\t3\njob1\t1\tx\t1\t2\t3\n", 2, "column 3 (gap)");
	expect_error("job0\t9\t0\t1\t2\t3\njob1\t5\t0\t1\t2\t3\n", 2, "submit time 5 is before the previous job's 9");
	expect_error("job0 0 0 1 2 3\n", 1, "found 1");
	expect_error("job0\t0\t0\t1\t2\t3\t4\n", 1, "found 7");
	expect_error("\t0\t0\t1\t2\t3\n", 1, "column 1 (job id)");
	expect_error("job0\t0\t0\t1\t2\t99999999999999999999\n", 1, "too large");

	char err[512];
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	cr_assert_eq(workload_read(&w, "/nonexistent/w.tsv", &p, 0, err), -1);
	cr_assert_str_eq(err, "/nonexistent/w.tsv: No such file or directory");
	char path[64];
	write_tmp(path, "\n\n");
	cr_assert_eq(workload_read_swim(&w, path, &p, 0, err), -1);
	cr_assert_not_null(strstr(err, "no jobs"));
	cr_assert_null(w.jobs);
	unlink(path);
}

Test(workload, swim_fb2010)
{
	char fb[1024];
	if (!fb2010_path(fb))
		cr_skip_test("the FB-2010 trace is not at %s", fb);
	char err[512];
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	cr_assert_eq(workload_read(&w, fb, &p, 1000, err), 0, "%s", err);
	cr_assert_eq(w.njobs, 1000);
	uint64_t in = 0, sh = 0, out = 0;
	int maponly = 0;
	for (int j = 0; j < w.njobs; j++) {
		in += w.jobs[j].input_bytes;
		sh += w.jobs[j].shuffle_bytes;
		out += w.jobs[j].output_bytes;
		maponly += w.jobs[j].nreduces == 0;
	}
	/* Sums computed independently (python) from the first 1000 lines. */
	cr_assert_eq(in, 33706633952094ULL);
	cr_assert_eq(sh, 12779337953897ULL);
	cr_assert_eq(out, 8789092311967ULL);
	cr_assert_eq(w.ntasks, 257828);         /* 251925 maps + 5903 reduces */
	cr_assert_eq(maponly, 8);
	cr_assert_str_eq(w.jobs[999].name, "job999");
	cr_assert_float_eq(w.jobs[999].submit_s, 3672 - 9, 1e-9);
	check_tasks(&w);
	workload_free(&w);
}

/* ------------------------------------------------------------ derivation */

/* Read one SWIM job with params p. */
static void one_job(struct workload *w, const struct workload_params *p, uint64_t in, uint64_t sh, uint64_t out)
{
	char path[64], line[128], err[512];
	snprintf(line, sizeof(line), "j\t0\t0\t%llu\t%llu\t%llu\n", (unsigned long long)in, (unsigned long long)sh,
		 (unsigned long long)out);
	write_tmp(path, line);
	cr_assert_eq(workload_read_swim(w, path, p, 0, err), 0, "%s", err);
	unlink(path);
	cr_assert_eq(w->njobs, 1);
	check_tasks(w);
}

Test(workload, derive_hand_computed)
{
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	/* 300 MiB in 128 MiB blocks: 128 + 128 + 44 MiB.  2.5 GiB shuffle +
	 * 0.5 GiB output = 3 GiB: 3 reduces. */
	one_job(&w, &p, 300 * MiB, 2 * GiB + GiB / 2, GiB / 2);
	struct job *j = &w.jobs[0];
	cr_assert_eq(j->nmaps, 3);
	cr_assert_eq(j->nreduces, 3);
	struct task *m = job_map(w.tasks, j, 0), *r = job_reduce(w.tasks, j, 0);
	cr_assert_eq(m[0].input_bytes, 134217728);
	cr_assert_eq(m[1].input_bytes, 134217728);
	cr_assert_eq(m[2].input_bytes, 46137344);
	cr_assert_float_eq(m[0].work_s, 2 + 134217728 / 50e6, 1e-9);    /* 4.68435456 */
	cr_assert_float_eq(m[1].work_s, 4.68435456, 1e-9);
	cr_assert_float_eq(m[2].work_s, 2.92274688, 1e-9);               /* remainder block */
	/* 2684354560 / 3 = 894784853 r 1;  536870912 / 3 = 178956970 r 2. */
	cr_assert_eq(m[0].output_bytes, 894784853);
	cr_assert_eq(m[2].output_bytes, 894784854);
	cr_assert_eq(r[0].input_bytes, 894784853);
	cr_assert_eq(r[1].input_bytes, 894784853);
	cr_assert_eq(r[2].input_bytes, 894784854);
	cr_assert_eq(r[0].output_bytes, 178956970);
	cr_assert_eq(r[2].output_bytes, 178956972);
	cr_assert_float_eq(r[0].work_s, 2 + 1073741823 / 50e6, 1e-9);   /* 23.47483646 */
	cr_assert_float_eq(r[2].work_s, 2 + 1073741826 / 50e6, 1e-9);   /* 23.47483652 */
	cr_assert_eq(r[0].kind, TASK_REDUCE);
	cr_assert_eq(r[0].id, 3);
	workload_free(&w);

	/* Exactly one block: one map. One byte more: two. */
	one_job(&w, &p, 128 * MiB, 0, 0);
	cr_assert_eq(w.jobs[0].nmaps, 1);
	workload_free(&w);
	one_job(&w, &p, 128 * MiB + 1, 0, 0);
	cr_assert_eq(w.jobs[0].nmaps, 2);
	cr_assert_eq(w.tasks[1].input_bytes, 1);
	cr_assert_float_eq(w.tasks[1].work_s, 2 + 1 / 50e6, 1e-12);
	workload_free(&w);
}

Test(workload, derive_reduce_rule)
{
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	/* Map-only: nothing to shuffle or write. */
	one_job(&w, &p, 10 * GiB, 0, 0);
	cr_assert_eq(w.jobs[0].nmaps, 80);
	cr_assert_eq(w.jobs[0].nreduces, 0);
	cr_assert_eq(w.ntasks, 80);
	workload_free(&w);
	/* round(0.4) = 0, but there is something to reduce: 1. */
	one_job(&w, &p, GiB, 2 * GiB / 5, 0);
	cr_assert_eq(w.jobs[0].nreduces, 1);
	workload_free(&w);
	/* Output only (shuffle 0) still needs a reduce. */
	one_job(&w, &p, GiB, 0, 1);
	cr_assert_eq(w.jobs[0].nreduces, 1);
	cr_assert_eq(w.tasks[w.jobs[0].nmaps].input_bytes, 0);
	cr_assert_eq(w.tasks[w.jobs[0].nmaps].output_bytes, 1);
	workload_free(&w);
	/* round(1.5) = 2, round(2.49..) = 2. */
	one_job(&w, &p, GiB, GiB, GiB / 2);
	cr_assert_eq(w.jobs[0].nreduces, 2);
	workload_free(&w);
	one_job(&w, &p, GiB, 2 * GiB + GiB / 2 - 1, 0);
	cr_assert_eq(w.jobs[0].nreduces, 2);
	workload_free(&w);
	/* Capped at max_reduces. */
	one_job(&w, &p, GiB, 250 * GiB, 0);
	cr_assert_eq(w.jobs[0].nreduces, 100);
	workload_free(&w);
	p.max_reduces = 7;
	one_job(&w, &p, GiB, 250 * GiB, 0);
	cr_assert_eq(w.jobs[0].nreduces, 7);
	cr_assert_eq(job_reduce(w.tasks, &w.jobs[0], 6)->input_bytes, 250 * GiB / 7 + 250 * GiB % 7);
	workload_free(&w);
}

Test(workload, derive_empty_input)
{
	/* 0 bytes of input: one map of 0 bytes that lasts the overhead. */
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	one_job(&w, &p, 0, 0, 0);
	cr_assert_eq(w.jobs[0].nmaps, 1);
	cr_assert_eq(w.jobs[0].nreduces, 0);
	cr_assert_eq(w.tasks[0].input_bytes, 0);
	cr_assert_float_eq(w.tasks[0].work_s, 2, 1e-12);
	workload_free(&w);
}

Test(workload, derive_scaling_and_floor)
{
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	p.data_scale = 0.01;
	p.time_scale = 0.5;
	one_job(&w, &p, 300 * MiB, 2 * GiB + GiB / 2, GiB / 2);
	struct job *j = &w.jobs[0];
	/* Counts from unscaled bytes. */
	cr_assert_eq(j->nmaps, 3);
	cr_assert_eq(j->nreduces, 3);
	cr_assert_eq(j->input_bytes, 3145728);              /* 314572800 * 0.01 */
	cr_assert_eq(j->shuffle_bytes, 26843546);           /* 26843545.6 rounded */
	cr_assert_eq(j->output_bytes, 5368709);             /* 5368709.12 */
	/* Blocks scaled down (1342177.28 -> 1342177), the last map the rest. */
	cr_assert_eq(w.tasks[0].input_bytes, 1342177);
	cr_assert_eq(w.tasks[1].input_bytes, 1342177);
	cr_assert_eq(w.tasks[2].input_bytes, 3145728 - 2 * 1342177);
	/* Shuffle split after scaling: 26843546 / 3 = 8947848 r 2. */
	cr_assert_eq(w.tasks[0].output_bytes, 8947848);
	cr_assert_eq(w.tasks[2].output_bytes, 8947850);
	/* Durations from unscaled bytes, times time_scale. */
	cr_assert_float_eq(w.tasks[0].work_s, 4.68435456 * 0.5, 1e-9);
	cr_assert_float_eq(w.tasks[3].work_s, 23.47483646 * 0.5, 1e-9);
	check_tasks(&w);
	workload_free(&w);

	/* A 2 s map at time_scale 0.05 would last 0.1 s: floored to 0.2. */
	p.time_scale = 0.05;
	one_job(&w, &p, 1000, 0, 0);
	cr_assert_float_eq(w.tasks[0].work_s, 0.2, 1e-12);
	workload_free(&w);
	p.time_floor_s = 0;
	one_job(&w, &p, 1000, 0, 0);
	cr_assert_float_eq(w.tasks[0].work_s, (2 + 1000 / 50e6) * 0.05, 1e-12);
	workload_free(&w);

	/* Arrival times scale too. */
	char path[64], err[512];
	write_tmp(path, "a\t10\t0\t1\t0\t0\nb\t30\t20\t1\t0\t0\n");
	cr_assert_eq(workload_read_swim(&w, path, &p, 0, err), 0, "%s", err);
	cr_assert_float_eq(w.jobs[1].submit_s, 20 * 0.05, 1e-12);
	workload_free(&w);
	unlink(path);

	/* Bad knots are refused. */
	p.block_size = 0;
	write_tmp(path, "a\t10\t0\t1\t0\t0\n");
	cr_assert_eq(workload_read_swim(&w, path, &p, 0, err), -1);
	cr_assert_not_null(strstr(err, "block_size"));
	unlink(path);
}

/* ---------------------------------------------------------------- native */

Test(workload, native_parse)
{
	char path[64], err[512];
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	write_tmp(path,
		  "  {\"comment\": \"test\", \"jobs\": [\n"
		  "  {\"name\": \"sort1\", \"submit\": 0.0, \"input\": \"10GB\", \"shuffle\": \"10GB\", \"output\": \"10GB\",\n"
		  "   \"maps\": 80, \"reduces\": 20, \"map_duration\": 12.5, \"reduce_duration\": 30},\n"
		  "  {\"name\": \"rec\", \"submit\": \"2min\", \"input\": 4000000000, \"shuffle\": \"2GB\", \"output\": \"100MB\",\n"
		  "   \"recurring\": true, \"predicted\": {\"submit\": 118, \"shuffle\": \"1.9GB\"}, \"deadline\": 600},\n"
		  "  {\"name\": \"after\", \"submit\": 130, \"input\": \"64KiB\", \"shuffle\": 1e6,\n"
		  "   \"deps\": [\"sort1\", \"rec\"], \"cpu\": 2, \"mem_gb\": 0.5, \"comment\": \"x\",\n"
		  "   \"reduce_resources\": {\"mem_gb\": 6, \"disk_mbps\": 40}, \"map_resources\": {\"cpu\": 0.25}},\n"
		  "  {\"input\": 0, \"maps\": 3, \"map_duration\": [1, 2, 3], \"map_input\": [0, 0, 0]},\n"
		  "  {\"input\": 10, \"maps\": 4, \"map_duration\": [[1.5, 3], 0.5], \"map_input\": [1, [3, 3]],\n"
		  "   \"output\": 5, \"reduces\": 2, \"reduce_duration\": [[7, 2]]}\n"
		  "]}\n");
	cr_assert_eq(workload_read(&w, path, &p, 0, err), 0, "%s", err);
	cr_assert_eq(w.njobs, 5);
	struct job *s = &w.jobs[0], *r = &w.jobs[1], *a = &w.jobs[2], *u = &w.jobs[3], *v = &w.jobs[4];
	/* Explicit counts and durations. */
	cr_assert_eq(s->input_bytes, 10000000000ULL);
	cr_assert_eq(s->nmaps, 80);
	cr_assert_eq(s->nreduces, 20);
	for (int i = 0; i < 80; i++) {
		cr_assert_float_eq(job_map(w.tasks, s, i)->work_s, 12.5, 1e-12);
		cr_assert_eq(job_map(w.tasks, s, i)->input_bytes, 125000000);     /* even split */
	}
	cr_assert_float_eq(job_reduce(w.tasks, s, 19)->work_s, 30, 1e-12);
	cr_assert(!s->recurring);
	/* Derived counts, predictions, deadline. */
	cr_assert_float_eq(r->submit_s, 120, 1e-12);
	cr_assert_eq(r->nmaps, 30);             /* ceil(4e9 / 128 MiB) = ceil(29.8) */
	cr_assert_eq(r->nreduces, 2);           /* round(2.1e9 / 1 GiB) = round(1.96) */
	cr_assert(r->recurring);
	cr_assert_float_eq(r->pred_submit_s, 118, 1e-12);
	cr_assert_eq(r->pred_shuffle_bytes, 1900000000ULL);
	cr_assert_eq(r->shuffle_bytes, 2000000000ULL);
	cr_assert_float_eq(r->deadline_s, 600, 1e-12);
	cr_assert_eq(job_map(w.tasks, r, 0)->input_bytes, 134217728);     /* blocks */
	/* Dependencies by name, resources. */
	cr_assert_eq(a->input_bytes, 65536);
	cr_assert_eq(a->shuffle_bytes, 1000000);
	cr_assert_eq(a->ndeps, 2);
	cr_assert_eq(a->deps[0], 0);
	cr_assert_eq(a->deps[1], 1);
	/* A stage's resources over the job's, the job's over the defaults. */
	struct res am = res_of(0.25, 0.5, 0), ar = res_of(2, 6, 40);
	cr_assert(!memcmp(&a->stages[0].ask, &am, sizeof am));
	cr_assert(!memcmp(&a->stages[1].ask, &ar, sizeof ar));
	cr_assert_eq(ar.v[RES_DISK], 40000000);
	cr_assert(a->pred_submit_s == a->submit_s && a->pred_shuffle_bytes == a->shuffle_bytes);
	/* Default name, per-task durations. */
	cr_assert_str_eq(u->name, "job3");
	cr_assert_eq(u->nmaps, 3);
	cr_assert_float_eq(job_map(w.tasks, u, 2)->work_s, 3, 1e-12);
	cr_assert_float_eq(job_map(w.tasks, u, 0)->work_s, 1, 1e-12);
	/* [value, count] runs. */
	cr_assert_eq(v->nmaps, 4);
	cr_assert_float_eq(job_map(w.tasks, v, 2)->work_s, 1.5, 1e-12);
	cr_assert_float_eq(job_map(w.tasks, v, 3)->work_s, 0.5, 1e-12);
	cr_assert_eq(job_map(w.tasks, v, 0)->input_bytes, 1);
	cr_assert_eq(job_map(w.tasks, v, 3)->input_bytes, 3);
	cr_assert_float_eq(job_reduce(w.tasks, v, 1)->work_s, 7, 1e-12);
	check_tasks(&w);
	workload_free(&w);
	unlink(path);
}

Test(workload, native_errors)
{
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1},\n"
		     "  {\"name\": \"b\",\n"
		     "   \"input\": 1, \"shufle\": 5}\n"
		     "]}\n", 4, "job 'b': unknown key 'shufle' (expected one of: name, submit, input, shuffle");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1,\n"
		     "   \"predicted\": {\n"
		     "     \"shufle\": 5}}\n"
		     "]}\n", 4, "unknown key 'shufle' in 'predicted'");
	expect_error("{\"jobs\": [],\n \"scale\": true}\n", 2, "unknown key 'scale' (expected one of: jobs, scaled, comment)");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1, \"deps\": [\"b\"]},\n"
		     "  {\"name\": \"b\", \"input\": 1}\n"
		     "]}\n", 2, "dependency 'b' is not the name of an earlier job");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1},\n"
		     "  {\"name\": \"a\", \"input\": 2}\n"
		     "]}\n", 3, "another job is already called 'a'");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1,\n"
		     "   \"output\": \"10 parsecs\"}\n"
		     "]}\n", 3, "'output' must be a size");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\",\n"
		     "   \"shuffle\": 5}\n"
		     "]}\n", 2, "missing 'input'");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1,\n"
		     "   \"map_duration\": [1, 2]}\n"
		     "]}\n", 3, "needs 'maps'");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1, \"maps\": 2,\n"
		     "   \"map_input\": [1, 1]}\n"
		     "]}\n", 3, "sums to 2 bytes, not the input's 1");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1, \"shuffle\": 9,\n"
		     "   \"reduces\": 0}\n"
		     "]}\n", 3, "0 reduces");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1, \"maps\": 1.5}\n"
		     "]}\n", 2, "'maps' must be an integer");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1, \"submit\": -3}\n"
		     "]}\n", 2, "'submit' must be a non-negative time");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1}\n"
		     "  {\"name\": \"b\", \"input\": 1}\n"
		     "]}\n", 3, "expected");                  /* jansson: missing comma */
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1,\n"
		     "   \"input\": 2}\n"
		     "]}\n", 3, "duplicate object key");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1, \"maps\": 3,\n"
		     "   \"map_duration\": [1,\n"
		     "                    [2, 0]]}\n"
		     "]}\n", 4, "a run in 'map_duration' must be [value, count]");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1, \"maps\": 3,\n"
		     "   \"map_duration\": [[1, 2], [2, 2]]}\n"
		     "]}\n", 3, "one value per map (4 values)");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1,\n"
		     "   \"cpu\": 0}\n"
		     "]}\n", 3, "'cpu' must be a number of at least 0.001");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1, \"reduce_resources\": {\n"
		     "     \"cores\": 2}}\n"
		     "]}\n", 3, "unknown key 'cores' in 'reduce_resources' (expected one of: cpu, mem_gb, disk_mbps)");
	expect_error("{\"jobs\": [\n"
		     "  {\"name\": \"a\", \"input\": 1, \"map_resources\": {\n"
		     "     \"disk_mbps\": -1}}\n"
		     "]}\n", 3, "'disk_mbps' must be a non-negative number");
	expect_error("{\"jobs\": {}}\n", 1, "\"jobs\" must be a list");
	expect_error("{\"jobz\": []}\n", 1, "unknown key 'jobz'");
}

Test(workload, native_example_file)
{
	char err[512];
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	p.data_scale = 0.01;
	cr_assert_eq(workload_read(&w, "workloads/example.json", &p, 0, err), 0, "%s", err);
	cr_assert_eq(w.njobs, 5);
	int recurring = 0, deps = 0, predicted = 0;
	for (int j = 0; j < w.njobs; j++) {
		recurring += w.jobs[j].recurring;
		deps += w.jobs[j].ndeps;
		predicted += w.jobs[j].pred_shuffle_bytes != w.jobs[j].shuffle_bytes;
	}
	cr_assert(recurring >= 1 && deps >= 1 && predicted >= 1);
	check_tasks(&w);
	workload_free(&w);
}

/* Write w, read it back with other params: the same jobs and tasks. */
static void round_trip(const struct workload *w)
{
	char path[64] = "/tmp/test-workload-rt-XXXXXX", err[512];
	close(mkstemp(path));
	cr_assert_eq(workload_write_native(w, path), 0);
	struct workload back;
	struct workload_params other;
	workload_params_default(&other);
	other.data_scale = 0.5;
	other.time_scale = 3;
	other.block_size = 1000;
	cr_assert_eq(workload_read(&back, path, &other, 0, err), 0, "%s", err);
	expect_same(w, &back);
	check_tasks(&back);
	workload_free(&back);
	unlink(path);
}

/* Jobs given by their stages: layout, edges, what each task reads. */
Test(workload, native_stages)
{
	char err[512];
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	p.data_scale = 1;
	p.time_scale = 1;
	cr_assert_eq(workload_read(&w, "workloads/dag.json", &p, 0, err), 0, "%s", err);
	const struct job *etl = &w.jobs[0], *join = &w.jobs[1], *rep = &w.jobs[2];
	cr_assert(etl->nstages == 4 && etl->nmaps == 32 && etl->nreduces == 20);
	cr_assert_str_eq(etl->stages[2].name, "enrich");
	cr_assert(etl->stages[2].first == 40 && etl->stages[2].parent[0].stage == 1 &&
		  etl->stages[2].parent[0].kind == EDGE_ONE_TO_ONE);
	cr_assert(etl->stages[1].has_children && !etl->stages[3].has_children);
	struct res two = res_of(2, 1, 0);
	cr_assert(!memcmp(&etl->stages[2].ask, &two, sizeof two), "the stage's cpu over the defaults");
	cr_assert_eq(etl->shuffle_bytes, 3000000000ULL + 2000000000ULL + 2000000000ULL);
	cr_assert_eq(etl->output_bytes, 500000000ULL);
	for (int i = 0; i < 8; i++) {
		const struct task *clean = stage_task(w.tasks, etl, 1, i), *enrich = stage_task(w.tasks, etl, 2, i);
		cr_assert(clean->kind == TASK_REDUCE && clean->stage == 1 && clean->sindex == i && clean->index == i);
		cr_assert_eq(enrich->index, 8 + i);
		cr_assert_eq(clean->input_bytes, 3000000000ULL / 8, "a shuffle: its share of every extract task");
		cr_assert_eq(enrich->input_bytes, clean->output_bytes, "one-to-one: its parent task's output");
		cr_assert_float_eq(enrich->work_s, 3, 1e-12);
	}
	cr_assert_eq(stage_task(w.tasks, join, 1, 0)->input_bytes, 200000000ULL, "a broadcast: all of it");
	cr_assert_eq(stage_task(w.tasks, join, 0, 15)->input_bytes, 2000000000ULL / 16);
	cr_assert(rep->nstages == 2 && stages_is_mapreduce(rep) && rep->ndeps == 2);
	cr_assert(!stages_is_mapreduce(etl));
	round_trip(&w);
	workload_free(&w);

	/* Listed parent tasks: each reads its share of each parent's output. */
	cr_assert_eq(workload_read(&w, "workloads/taskdag.json", &p, 0, err), 0, "%s", err);
	const struct job *d = &w.jobs[0];
	const struct task *l1_0 = stage_task(w.tasks, d, 0, 0), *l2_1 = stage_task(w.tasks, d, 1, 1);
	cr_assert_eq(l1_0->nchildren, 2);
	cr_assert_eq(l2_1->ntdeps, 2);
	cr_assert_eq(w.tdeps[l2_1->tdep_first].task, 0);
	cr_assert_eq(w.tdeps[l2_1->tdep_first].rank, 1, "the second child of l1[0]");
	cr_assert_eq(l2_1->input_bytes, 50000000ULL + 50000000ULL, "half of l1[0]'s 100 MB and half of l1[1]'s");
	const struct task *l3_1 = stage_task(w.tasks, d, 2, 1);
	cr_assert_eq(l3_1->input_bytes, 40000000ULL + 40000000ULL + 50000000ULL, "all of l2[2], l2[3]; half of l1[3]");
	round_trip(&w);
	workload_free(&w);
}

/* Lineage: a job's input is its dependencies' output, then its own. */
Test(workload, native_lineage)
{
	char err[512];
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	p.data_scale = 0.01;
	cr_assert_eq(workload_read(&w, "workloads/chain.json", &p, 0, err), 0, "%s", err);
	cr_assert_eq(w.jobs[0].lineage_bytes, 0);
	cr_assert_eq(w.jobs[1].lineage_bytes, w.jobs[0].output_bytes);
	cr_assert_eq(w.jobs[1].input_bytes, w.jobs[1].lineage_bytes, "no base input");
	cr_assert_eq(w.jobs[3].input_bytes, w.jobs[2].output_bytes + w.jobs[0].output_bytes + 5000000);
	cr_assert_eq(w.jobs[1].nmaps, 1 + (10000000 - 1) / (134217728 / 100), "counted on the bytes it reads");
	round_trip(&w);
	workload_free(&w);
	expect_error("{\"jobs\": [\n  {\"name\": \"a\",\n   \"lineage\": true}\n]}\n", 3, "'lineage' reads the output of the job's 'deps': it has none");
	expect_error("{\"jobs\": [\n  {\"name\": \"a\", \"input\": 1},\n  {\"name\": \"b\", \"deps\": [\"a\"],\n"
		     "   \"lineage\": 1}\n]}\n", 4, "'lineage' must be true or false");
}

Test(workload, native_stages_errors)
{
#define JOB(stages) "{\"jobs\": [\n  {\"name\": \"a\", \"input\": 1, \"stages\": [\n" stages "]}\n]}\n"
	expect_error(JOB("    {\"name\": \"x\", \"tasks\": 2},\n"
			 "    {\"name\": \"y\", \"tasks\": 2, \"parents\": {\"z\": \"shuffle\"}},\n"
			 "    {\"name\": \"z\", \"tasks\": 2, \"parents\": [\"y\"]}\n"),
		     4, "stage 'y': parent 'z' is not an earlier stage");
	expect_error(JOB("    {\"name\": \"x\", \"tasks\": 2},\n"
			 "    {\"name\": \"y\", \"tasks\": 3, \"parents\": {\"x\": \"one-to-one\"}}\n"),
		     4, "one-to-one from 'x' needs as many tasks (2, not 3)");
	expect_error(JOB("    {\"name\": \"x\", \"tasks\": 2},\n"
			 "    {\"name\": \"y\", \"tasks\": 1, \"parents\": {\"x\": \"all-to-all\"}}\n"),
		     4, "the edge must be \"shuffle\", \"one-to-one\", \"broadcast\" or \"tasks\"");
	expect_error(JOB("    {\"name\": \"x\", \"tasks\": 2, \"taks\": 3}\n"), 3, "stage 'x': unknown key 'taks'");
	expect_error(JOB("    {\"name\": \"x\"}\n"), 3, "'tasks' (required)");
	expect_error(JOB("    {\"name\": \"x\", \"tasks\": 2},\n    {\"name\": \"y\", \"tasks\": 2}\n"), 4,
		     "stage 'y': 'parents' (required after the first stage)");
	expect_error(JOB("    {\"name\": \"x\", \"tasks\": 2, \"work\": [1, 2, 3]}\n"), 3, "'work' lists 3 values for 2 tasks");
	expect_error("{\"jobs\": [\n  {\"name\": \"a\", \"input\": 1, \"stages\": [{\"tasks\": 1}],\n"
		     "   \"maps\": 3}\n]}\n", 3, "'maps' does not go with 'stages'");
	expect_error(JOB("    {\"name\": \"x\", \"tasks\": 2},\n"
			 "    {\"name\": \"y\", \"tasks\": 1, \"parents\": {\"x\": \"tasks\"}, \"task_parents\": [{\"x\": [2]}]}\n"),
		     4, "task 0: parent index in 'x' must be an integer in 0..1");
	expect_error(JOB("    {\"name\": \"x\", \"tasks\": 2},\n"
			 "    {\"name\": \"y\", \"tasks\": 1, \"parents\": {\"x\": \"shuffle\"}, \"task_parents\": [{\"x\": [1]}]}\n"),
		     4, "'task_parents' needs a parent read over a \"tasks\" edge");
	expect_error(JOB("    {\"name\": \"x\", \"tasks\": 2},\n"
			 "    {\"name\": \"y\", \"tasks\": 1, \"parents\": {\"x\": \"tasks\"}}\n"),
		     4, "a \"tasks\" edge needs 'task_parents'");
#undef JOB
}

Test(workload, native_round_trip)
{
	char err[512];
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	p.data_scale = 0.01;
	p.time_scale = 0.37;
	cr_assert_eq(workload_read(&w, "workloads/example.json", &p, 0, err), 0, "%s", err);
	round_trip(&w);
	workload_free(&w);

	struct synth_params s;
	synth_params_default(&s);
	s.njobs = 200;
	s.arrivals = ARRIVE_POISSON;
	s.recurring_fraction = 0.5;
	cr_assert_eq(workload_synthetic(&w, &s, &p, err), 0, "%s", err);
	round_trip(&w);
	/* Stages that ask for different things, and disk. */
	cr_assert_eq(w.jobs[0].nstages, 2);
	w.jobs[0].stages[1].ask = res_of(3.5, 0, 12.5);
	for (int s = 0; s < w.jobs[1].nstages; s++)
		w.jobs[1].stages[s].ask = res_of(0.001, 100, 1);
	round_trip(&w);
	workload_free(&w);

	char fb[1024];
	if (fb2010_path(fb)) {   /* the trace too, when present */
		p.time_scale = 0.1;
		cr_assert_eq(workload_read(&w, fb, &p, 300, err), 0, "%s", err);
		round_trip(&w);
		workload_free(&w);
	}
}

/* ------------------------------------------------------------- synthetic */

Test(workload, synth_deterministic)
{
	char err[512];
	struct workload a, b, c;
	struct workload_params p;
	struct synth_params s;
	workload_params_default(&p);
	synth_params_default(&s);
	s.njobs = 300;
	s.seed = 42;
	cr_assert_eq(workload_synthetic(&a, &s, &p, err), 0, "%s", err);
	cr_assert_eq(workload_synthetic(&b, &s, &p, err), 0, "%s", err);
	expect_same(&a, &b);
	cr_assert_str_eq(a.jobs[0].name, "job0");
	cr_assert_str_eq(a.jobs[299].name, "job299");
	cr_assert_str_eq(a.source, "synthetic:seed=42,njobs=300");
	s.seed = 43;
	cr_assert_eq(workload_synthetic(&c, &s, &p, err), 0, "%s", err);
	cr_assert(differs(&a, &c));
	check_tasks(&c);
	workload_free(&c);
	/* Arrival mode and recurring fraction do not change the sizes. */
	s.seed = 42;
	s.arrivals = ARRIVE_UNIFORM;
	s.recurring_fraction = 0.3;
	cr_assert_eq(workload_synthetic(&c, &s, &p, err), 0, "%s", err);
	cr_assert(!differs(&a, &c));
	workload_free(&a);
	workload_free(&b);
	workload_free(&c);
}

Test(workload, synth_distribution)
{
	char err[512];
	struct workload w;
	struct workload_params p;
	struct synth_params s;
	workload_params_default(&p);
	synth_params_default(&s);
	s.njobs = 1000;
	cr_assert_eq(workload_synthetic(&w, &s, &p, err), 0, "%s", err);
	int below_1mb = 0, below_1gb = 0, no_shuffle = 0, huge = 0, recurring = 0;
	for (int j = 0; j < w.njobs; j++) {
		below_1mb += w.jobs[j].input_bytes < 1000000;
		below_1gb += w.jobs[j].input_bytes < 1000000000;
		no_shuffle += w.jobs[j].shuffle_bytes == 0;
		huge += w.jobs[j].input_bytes >= 100000000000ULL;
		recurring += w.jobs[j].recurring;
	}
	/* FB-2010: 40.4% < 1 MB, 72.7% < 1 GB, 34.1% without shuffle, 5.8% >= 100 GB. */
	cr_assert(below_1mb >= 340 && below_1mb <= 470, "%d", below_1mb);
	cr_assert(below_1gb >= 660 && below_1gb <= 790, "%d", below_1gb);
	cr_assert(no_shuffle >= 280 && no_shuffle <= 400, "%d", no_shuffle);
	cr_assert(huge >= 1, "%d", huge);
	cr_assert_eq(recurring, 1000);          /* default fraction 1 */
	check_tasks(&w);
	workload_free(&w);

	s.recurring_fraction = 0.25;
	p.block_size = 1ULL << 40;              /* few tasks: only flags matter here */
	cr_assert_eq(workload_synthetic(&w, &s, &p, err), 0, "%s", err);
	recurring = 0;
	for (int j = 0; j < w.njobs; j++)
		recurring += w.jobs[j].recurring;
	cr_assert_eq(recurring, 250);           /* exactly the fraction, as "half of the jobs" (§4.3.4) */
	workload_free(&w);

	s.njobs = 0;
	cr_assert_eq(workload_synthetic(&w, &s, &p, err), -1);
	cr_assert_not_null(strstr(err, "njobs"));
}

/* -------------------------------------------------------------- arrivals */

static void synth_with(struct workload *w, enum arrival_mode mode, int njobs, double time_scale)
{
	char err[512];
	struct workload_params p;
	struct synth_params s;
	workload_params_default(&p);
	p.block_size = 1ULL << 40;              /* keep the task arrays small */
	p.time_scale = time_scale;
	synth_params_default(&s);
	s.njobs = njobs;
	s.arrivals = mode;
	s.window_s = 100;
	s.mean_gap_s = 5;
	cr_assert_eq(workload_synthetic(w, &s, &p, err), 0, "%s", err);
}

Test(workload, arrivals_batch_and_uniform)
{
	struct workload w;
	synth_with(&w, ARRIVE_BATCH, 50, 1);
	for (int j = 0; j < w.njobs; j++)
		cr_assert(w.jobs[j].submit_s == 0 && w.jobs[j].pred_submit_s == 0);
	workload_free(&w);

	synth_with(&w, ARRIVE_UNIFORM, 500, 1);
	double max = 0;
	for (int j = 0; j < w.njobs; j++) {
		cr_assert(w.jobs[j].submit_s >= 0 && w.jobs[j].submit_s <= 100);
		cr_assert(j == 0 || w.jobs[j].submit_s >= w.jobs[j - 1].submit_s);
		cr_assert(w.jobs[j].pred_submit_s == w.jobs[j].submit_s);
		max = fmax(max, w.jobs[j].submit_s);
	}
	cr_assert_gt(max, 90);
	cr_assert_lt(w.jobs[0].submit_s, 10);
	workload_free(&w);

	/* The window is in unscaled seconds. */
	synth_with(&w, ARRIVE_UNIFORM, 100, 0.1);
	for (int j = 0; j < w.njobs; j++)
		cr_assert(w.jobs[j].submit_s >= 0 && w.jobs[j].submit_s <= 10);
	workload_free(&w);
}

Test(workload, arrivals_poisson)
{
	struct workload w;
	synth_with(&w, ARRIVE_POISSON, 2000, 1);
	cr_assert_eq(w.jobs[0].submit_s, 0);
	for (int j = 1; j < w.njobs; j++)
		cr_assert_geq(w.jobs[j].submit_s, w.jobs[j - 1].submit_s);
	double mean = w.jobs[w.njobs - 1].submit_s / (w.njobs - 1);
	cr_assert(fabs(mean - 5) < 0.75, "mean gap %g", mean);
	/* Not all gaps alike: exponential, so many shorter than the mean. */
	int shorter = 0;
	for (int j = 1; j < w.njobs; j++)
		shorter += w.jobs[j].submit_s - w.jobs[j - 1].submit_s < 5;
	cr_assert(shorter > 1100 && shorter < 1450, "%d", shorter);    /* 1 - 1/e = 63% */
	workload_free(&w);
}

Test(workload, recurring_marks_a_trace_as_the_generator_does)
{
	/* A trace says nothing of recurring jobs: workload_set_recurring marks
	 * the fraction asked, with the generator's seeded draw. */
	char err[512];
	struct workload w;
	struct workload_params p;
	struct synth_params s;
	workload_params_default(&p);
	p.block_size = 1ULL << 40;
	synth_params_default(&s);
	s.njobs = 400;
	s.seed = 9;
	s.recurring_fraction = 0.3;
	cr_assert_eq(workload_synthetic(&w, &s, &p, err), 0, "%s", err);
	bool drawn[400];
	int n = 0;
	for (int j = 0; j < w.njobs; j++) {
		drawn[j] = w.jobs[j].recurring;
		n += drawn[j];
		w.jobs[j].recurring = false;   /* as a SWIM trace reads */
	}
	cr_assert_eq(n, 120, "%d of 400 recurring at 0.3", n);
	int first = 0;   /* a random set, not the first 120 */
	for (int j = 0; j < 120; j++)
		first += drawn[j];
	cr_assert(first > 15 && first < 60, "%d of the first 120", first);
	workload_set_recurring(&w, &s);
	for (int j = 0; j < w.njobs; j++)
		cr_assert_eq(w.jobs[j].recurring, drawn[j], "job %d", j);
	s.recurring_fraction = 1;
	workload_set_recurring(&w, &s);
	for (int j = 0; j < w.njobs; j++)
		cr_assert(w.jobs[j].recurring);
	s.recurring_fraction = 0;
	workload_set_recurring(&w, &s);
	for (int j = 0; j < w.njobs; j++)
		cr_assert(!w.jobs[j].recurring);
	workload_free(&w);
}

Test(workload, arrivals_retime_trace)
{
	char path[64], err[512];
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	write_tmp(path, "{\"jobs\": [{\"name\": \"a\", \"submit\": 10, \"input\": 1},\n"
			" {\"name\": \"b\", \"submit\": 50, \"input\": 1, \"recurring\": true, \"predicted\": {\"submit\": 48}}]}\n");
	cr_assert_eq(workload_read(&w, path, &p, 0, err), 0, "%s", err);
	struct synth_params s;
	synth_params_default(&s);
	s.arrivals = ARRIVE_TRACE;
	workload_set_arrivals(&w, &s);
	cr_assert_float_eq(w.jobs[0].submit_s, 10, 1e-12);
	cr_assert_float_eq(w.jobs[1].submit_s, 50, 1e-12);
	s.arrivals = ARRIVE_BATCH;
	workload_set_arrivals(&w, &s);
	cr_assert_eq(w.jobs[1].submit_s, 0);
	cr_assert_eq(w.jobs[1].pred_submit_s, 0);      /* -2: clamped to the start */
	cr_assert_eq(w.jobs[0].pred_submit_s, 0);
	workload_free(&w);

	cr_assert_eq(workload_read(&w, path, &p, 0, err), 0, "%s", err);
	unlink(path);
	s.arrivals = ARRIVE_UNIFORM;
	s.window_s = 1000;
	workload_set_arrivals(&w, &s);
	cr_assert_gt(w.jobs[1].submit_s, 2);
	cr_assert_float_eq(w.jobs[1].pred_submit_s, w.jobs[1].submit_s - 2, 1e-9);   /* the error stays */
	cr_assert(w.jobs[0].pred_submit_s == w.jobs[0].submit_s);
	workload_free(&w);
}

/* Sensitivity knobs (Fig. 4.20): errors stay within their bounds, hit
 * about the asked fraction of jobs, and zero errors change nothing. */
Test(workload, prediction_errors_bounded_and_seeded)
{
	struct synth_params s;
	struct workload_params p;
	struct workload w;
	char err[512];
	synth_params_default(&s);
	workload_params_default(&p);
	s.njobs = 400;
	s.arrivals = ARRIVE_UNIFORM;
	s.window_s = 3600;
	p.time_scale = 0.5;
	cr_assert_eq(workload_synthetic(&w, &s, &p, err), 0, "%s", err);
	struct prediction_errors none = {0, 0, 0}, e = {0.5, 0.3, 200};
	workload_prediction_errors(&w, &none, 7);
	for (int i = 0; i < w.njobs; i++) {
		cr_assert_eq(w.jobs[i].pred_shuffle_bytes, w.jobs[i].shuffle_bytes);
		cr_assert_eq(w.jobs[i].pred_submit_s, w.jobs[i].submit_s);
	}
	workload_prediction_errors(&w, &e, 7);
	int moved = 0, off = 0, shuffling = 0;
	double worst = 0;
	for (int i = 0; i < w.njobs; i++) {
		const struct job *j = &w.jobs[i];
		if (j->shuffle_bytes > 1000) {
			double rel = fabs((double)j->pred_shuffle_bytes - (double)j->shuffle_bytes) / (double)j->shuffle_bytes;
			cr_assert_leq(rel, 0.5 + 1e-9, "job %d off by %.3f", i, rel);
			worst = fmax(worst, rel);
			off += rel > 0.01;
			shuffling++;
		}
		double dt = fabs(j->pred_submit_s - j->submit_s);
		cr_assert_leq(dt, 200 * 0.5 + 1e-9, "job %d arrival off by %.1f s", i, dt);
		moved += dt > 0;
	}
	cr_assert_gt(worst, 0.4, "errors never come near the bound: %.3f", worst);
	cr_assert_gt(shuffling, 20);
	cr_assert_gt(off, shuffling * 8 / 10, "%d of %d shuffles mispredicted", off, shuffling);
	cr_assert(moved > 0.2 * w.njobs && moved < 0.4 * w.njobs, "%d of %d jobs' arrivals moved", moved, w.njobs);
	workload_free(&w);
}

/* ------------------------------------------------ choosing and fitting jobs */

Test(workload, swim_choose_and_fit)
{
	char path[64], err[512];
	struct workload w;
	struct workload_params p;
	workload_params_default(&p);
	/* 1000 blocks of input with 5 GB shuffle; a job with no shuffle; a
	 * small job with 200 MB of shuffle. */
	write_tmp(path, "big\t0\t0\t134217728000\t5000000000\t1000000\n"
			"none\t1\t1\t1000\t0\t10\n"
			"small\t2\t1\t268435456\t200000000\t0\n");
	p.min_shuffle = 100000000;
	p.max_maps = 100;
	cr_assert_eq(workload_read_swim(&w, path, &p, 0, err), 0, "%s", err);
	cr_assert_eq(w.njobs, 2, "the job without a shuffle is not chosen");
	cr_assert_str_eq(w.jobs[0].name, "big");
	cr_assert_str_eq(w.jobs[1].name, "small");
	/* big: 1000 maps scaled down to 100, every byte count × 1/10. */
	cr_assert_eq(w.jobs[0].nmaps, 100);
	cr_assert_eq(w.jobs[0].input_bytes, 100ULL * 134217728);
	cr_assert_eq(w.jobs[0].shuffle_bytes, 500000000);
	cr_assert_eq(w.jobs[0].output_bytes, 100000);
	/* small fits: untouched; arrivals relative to the first job read. */
	cr_assert_eq(w.jobs[1].nmaps, 2);
	cr_assert_eq(w.jobs[1].shuffle_bytes, 200000000);
	cr_assert_float_eq(w.jobs[1].submit_s, 2, 1e-12);
	check_tasks(&w);
	workload_free(&w);
	/* max_jobs counts chosen jobs. */
	cr_assert_eq(workload_read_swim(&w, path, &p, 1, err), 0, "%s", err);
	cr_assert_eq(w.njobs, 1);
	workload_free(&w);
	/* Nothing chosen: an error that says why. */
	p.min_shuffle = 6000000000;
	cr_assert_eq(workload_read_swim(&w, path, &p, 0, err), -1);
	cr_assert_not_null(strstr(err, "no job with a shuffle of at least 6000000000 bytes"), "%s", err);
	unlink(path);
	/* A native file lists its jobs as they are. */
	p.min_shuffle = 0;
	write_tmp(path, "{\"jobs\": [{\"input\": 1}]}\n");
	cr_assert_eq(workload_read(&w, path, &p, 0, err), -1);
	cr_assert_not_null(strstr(err, "a native workload lists its jobs as they are"), "%s", err);
	unlink(path);
}

Test(workload, synth_choose_and_fit)
{
	char err[512];
	struct workload all, some;
	struct workload_params p;
	struct synth_params s;
	workload_params_default(&p);
	synth_params_default(&s);
	s.njobs = 200;
	s.seed = 7;
	cr_assert_eq(workload_synthetic(&all, &s, &p, err), 0, "%s", err);
	int big = 0;
	for (int j = 0; j < all.njobs; j++)
		big += all.jobs[j].nmaps > 100;
	cr_assert_gt(big, 0, "the seed draws jobs wider than the cap");
	p.min_shuffle = 100000000;
	p.max_maps = 100;
	cr_assert_eq(workload_synthetic(&some, &s, &p, err), 0, "%s", err);
	cr_assert_eq(some.njobs, 200);
	int scaled = 0;
	for (int j = 0; j < some.njobs; j++) {
		const struct job *x = &some.jobs[j];
		cr_assert_leq(x->nmaps, 100, "job %d has %d maps", j, x->nmaps);
		if (x->nmaps == 100 && x->input_bytes == 100 * p.block_size) {
			scaled++;   /* fitted: shuffle per input kept */
			continue;
		}
		cr_assert_geq(x->shuffle_bytes, p.min_shuffle, "job %d shuffles %llu", j,
			      (unsigned long long)x->shuffle_bytes);
	}
	cr_assert_gt(scaled, 0);
	check_tasks(&some);
	/* Reproducible, and without the knobs the draws are the old ones. */
	struct workload again, plain;
	cr_assert_eq(workload_synthetic(&again, &s, &p, err), 0, "%s", err);
	expect_same(&some, &again);
	p.min_shuffle = 0;
	p.max_maps = 0;
	cr_assert_eq(workload_synthetic(&plain, &s, &p, err), 0, "%s", err);
	expect_same(&all, &plain);
	workload_free(&all);
	workload_free(&some);
	workload_free(&again);
	workload_free(&plain);
}
