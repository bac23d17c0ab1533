/* The live view's snapshot: a pure function of the run's state (live.c,
 * view.c), and the replay of a results directory (replay.c) made by a
 * simulated run, checked against its own files. */
#include "emu/run_int.h"
#include "emu/web/live.h"
#include "emu/web/replay.h"
#include "web_fixture.h"
#include "simrun_fixture.h"
#include "tree_fixture.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[64], repo[512];
static void setup(void) { tf_setup(root, sizeof root, "/tmp/emu-web-XXXXXX", repo, sizeof repo, NULL, 0); }
static void teardown(void) { tf_teardown(root); }
TestSuite(web, .init = setup, .fini = teardown);

static void synth(struct workload *w, int njobs)
{
	struct synth_params sp;
	struct workload_params wp;
	char err[512];
	synth_params_default(&sp);
	workload_params_default(&wp);
	sp.njobs = njobs;
	sp.seed = 4;
	wp.data_scale = 0.01;
	wp.time_scale = 0.1;
	cr_assert_eq(workload_synthetic(w, &sp, &wp, err), 0, "%s", err);
}

static double at_7_5(const struct run *r)
{
	(void)r;
	return 7.5;
}

static const struct backend_ops fake_be = {.name = "fake", .wallclock = false, .now = at_7_5};

/* A run's state set by hand: 3 racks (tiny.conf), two jobs, two links. */
struct fake {
	struct topo t;
	struct workload w;
	struct run r;
	struct link_stats base[2], last[2], cur[2];
	struct web_ocs ocs;
};

static void fake_run(struct fake *f)
{
	char err[TOPO_ERR_LEN];
	memset(f, 0, sizeof *f);
	cr_assert_eq(topo_load(&f->t, "topologies/tiny.conf", 0, err), 0, "%s", err);
	synth(&f->w, 2);
	struct run *r = &f->r;
	run_params_default(&r->p);
	r->t = &f->t;
	r->w = &f->w;
	r->be = &fake_be;
	cr_assert_eq(cluster_init_topo(&r->c, &f->t, &f->w, 0.05), 0);
	r->c.arrived[0] = true;
	/* job 0: every task done at 3 s but its last stage's first task, running on server 2 (rack 1) */
	struct job *j = &f->w.jobs[0];
	for (int i = 0; i < j->nmaps + j->nreduces; i++) {
		struct task *t = &f->w.tasks[j->first_task + i];
		t->state = TASK_DONE;
		t->server = 0;
		t->t_start = 1;
		t->t_end = 3;
	}
	struct task *t = &f->w.tasks[j->first_task + j->stages[j->nstages - 1].first];
	t->state = TASK_RUNNING;
	t->server = 2;
	t->t_start = 4;
	/* an EPS uplink of rack 0 sent 1 MB in the last 2 s, an OCS port 2 MB since the start */
	f->base[0] = (struct link_stats){.cls = LINK_UPLINK, .rack = 0, .port = -1};
	f->base[1] = (struct link_stats){.cls = LINK_OPTICAL, .rack = 1, .port = 0};
	memcpy(f->last, f->base, sizeof f->base);
	memcpy(f->cur, f->base, sizeof f->base);
	f->last[0].tx_bytes = 1000000;
	f->cur[0].tx_bytes = 2000000;
	f->cur[0].backlog = 1500;
	f->cur[1].tx_bytes = 2000000;
	r->base = f->base;
	r->last = f->last;
	r->nlinks = 2;
	r->fid.samples = 7;
	cr_assert_eq(web_ocs_init(&f->ocs, 3, 1), 0);
	f->ocs.lit.out[0][0] = 2;
	f->ocs.chosen.out[0][0] = 2;
	f->ocs.chosen.out[0][2] = 0;
	f->ocs.demand[0 * 3 + 2] = 5000;
	f->ocs.demand[2 * 3 + 0] = 4000;
	web_ocs_dark(&f->ocs, 7.1, 0.001, 0.012, 2);
}

static void fake_free(struct fake *f)
{
	web_ocs_free(&f->ocs);
	cluster_free(&f->r.c);
	workload_free(&f->w);
}

Test(web, snapshot_is_a_pure_function_of_the_run)
{
	struct fake f;
	fake_run(&f);
	json_t *a = web_snapshot_live(&f.r, f.cur, 2.0, &f.ocs, false);
	json_t *b = web_snapshot_live(&f.r, f.cur, 2.0, &f.ocs, false);
	cr_assert(json_equal(a, b), "the same state gave two snapshots");
	char *s = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS);
	json_t *back = json_loads(s, 0, NULL);
	cr_assert(json_equal(a, back), "the snapshot does not survive its own JSON");
	free(s);
	json_decref(back);

	cr_assert_str_eq(json_string_value(sr_get(a, "mode")), "live");
	cr_assert_float_eq(sr_num(a, "t"), 7.5, 1e-9);
	cr_assert_str_eq(json_string_value(sr_get(a, "backend")), "fake");
	cr_assert_str_eq(json_string_value(sr_get(a, "topology")), "tiny");
	cr_assert_eq(sr_num(a, "racks"), 3);
	/* OCS: what the mirror holds */
	cr_assert_eq(json_array_size(sr_get(a, "ocs.circuits")), 1);
	cr_assert_eq(sr_num(a, "ocs.circuits.0.src"), 0);
	cr_assert_eq(sr_num(a, "ocs.circuits.0.dst"), 2);
	cr_assert_eq(json_array_size(sr_get(a, "ocs.matching")), 2);
	cr_assert_eq(sr_num(a, "ocs.demand.0.2"), 5000);
	cr_assert_eq(sr_num(a, "ocs.demand.2.0"), 4000);
	cr_assert_eq(sr_num(a, "ocs.demand.1.1"), 0);
	cr_assert_float_eq(sr_num(a, "ocs.dark.0.dark_s"), 0.012, 1e-9);
	/* links: rates over the sample, names as links.csv's */
	cr_assert_str_eq(json_string_value(sr_get(a, "links.0.link")), "tor0-up0");
	cr_assert_str_eq(json_string_value(sr_get(a, "links.0.class")), "eps");
	cr_assert_float_eq(sr_num(a, "links.0.tx_mbps"), 4.0, 1e-9);   /* 1 MB in 2 s */
	cr_assert_eq(sr_num(a, "links.0.backlog"), 1500);
	cr_assert_str_eq(json_string_value(sr_get(a, "links.1.link")), "tor1-o0");
	cr_assert_eq(sr_num(a, "summary.eps_bytes"), 2000000);
	cr_assert_eq(sr_num(a, "summary.ocs_bytes"), 2000000);
	cr_assert_float_eq(sr_num(a, "summary.ocs_share"), 0.5, 1e-9);
	/* jobs: job 0 runs its last stage's one task in rack 1; job 1 has not arrived */
	const struct job *j = &f.w.jobs[0];
	int last = j->nstages - 1;
	char key[64];
	snprintf(key, sizeof key, "jobs.0.stages.%d.running", last);
	cr_assert_eq(sr_num(a, key), 1);
	snprintf(key, sizeof key, "jobs.0.stages.%d.done", last);
	cr_assert_eq(sr_num(a, key), j->stages[last].ntasks - 1);
	cr_assert(json_is_null(sr_get(a, "jobs.0.end")));
	cr_assert_float_eq(sr_num(a, "jobs.0.start"), 1, 1e-9);
	cr_assert(json_is_null(sr_get(a, "jobs.1.start")));
	cr_assert_eq(sr_num(a, "running_per_rack.1"), 1);
	cr_assert_eq(sr_num(a, "running_per_rack.0"), 0);
	cr_assert_eq(sr_num(a, "summary.jobs"), 2);
	cr_assert_eq(sr_num(a, "summary.jobs_finished"), 0);
	cr_assert_eq(sr_num(a, "summary.tasks_done"), j->nmaps + j->nreduces - 1);
	cr_assert_eq(sr_num(a, "fidelity.samples"), 7);
	cr_assert_str_eq(json_string_value(sr_get(a, "fidelity.verdict")), "simulated");
	json_decref(a);
	json_decref(b);

	fake_free(&f);
}

static void sim_fixture(char *dir, size_t len)
{
	json_decref(web_fx_sim(root, "jp", 12, NULL, dir, len));
}

/* ocs.csv's configuration at t, as "src>dst" sorted: read here on its own. */
static void circuits_in_log(const char *dir, double t, char *out, size_t len)
{
	char path[600], line[8192];
	snprintf(path, sizeof path, "%s/ocs.csv", dir);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	snprintf(out, len, "none");
	cr_assert_not_null(fgets(line, sizeof line, f));
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (atof(line) > t)
			break;
		snprintf(out, len, "%s", strrchr(line, ',') + 1);
	}
	fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The same circuits from a snapshot, in ocs.csv's form (one port: "0>3 1>2"). */
static void circuits_shown(json_t *snap, char *out, size_t len)
{
	json_t *cs = sr_get(snap, "ocs.circuits");
	char *items[256], bufs[256][16];
	size_t n = json_array_size(cs);
	cr_assert_leq(n, 256);
	for (size_t i = 0; i < n; i++) {
		json_t *c = json_array_get(cs, i);
		snprintf(bufs[i], 16, "%d>%d", (int)json_integer_value(json_object_get(c, "src")),
			 (int)json_integer_value(json_object_get(c, "dst")));
		items[i] = bufs[i];
	}
	qsort(items, n, sizeof *items, cmp_str);
	snprintf(out, len, "%s", n ? "" : "none");
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", items[i]);
}

static void sort_words(char *s)
{
	char *items[256], copy[4096], *save;
	int n = 0;
	snprintf(copy, sizeof copy, "%s", s);
	for (char *w = strtok_r(copy, " ", &save); w && n < 256; w = strtok_r(NULL, " ", &save))
		items[n++] = w;
	qsort(items, n, sizeof *items, cmp_str);
	s[0] = 0;
	for (int i = 0; i < n; i++)
		sprintf(s + strlen(s), "%s%s", i ? " " : "", items[i]);
}

Test(web, replay_shows_what_the_files_hold)
{
	char dir[256], err[512], path[300];
	sim_fixture(dir, sizeof dir);
	struct web_replay r;
	cr_assert_eq(web_replay_load(&r, dir, err), 0, "%s", err);
	snprintf(path, sizeof path, "%s/summary.json", dir);
	json_t *sum = json_load_file(path, 0, NULL);
	cr_assert_not_null(sum);
	cr_assert_float_eq(r.t_end, json_number_value(json_object_get(sum, "run_s")), 1e-6);
	cr_assert_eq(r.racks, 10);
	cr_assert(r.nev >= 3, "the fixture should reconfigure (%d)", r.nev);
	int changes = 0;
	char prev[4096] = "";
	for (double t = 0; t <= r.t_end + 0.01; t += r.t_end / 40) {
		json_t *s = web_replay_at(&r, t);
		char shown[4096], logged[4096];
		cr_assert_str_eq(json_string_value(sr_get(s, "mode")), "replay");
		circuits_shown(s, shown, sizeof shown);
		circuits_in_log(dir, fmin(t, r.t_end), logged, sizeof logged);
		sort_words(logged);
		cr_assert_str_eq(shown, logged, "at %.2f s", t);
		changes += strcmp(prev, shown) != 0;
		snprintf(prev, sizeof prev, "%s", shown);
		/* jobs finished by t, from jobs.csv */
		int fin = 0;
		for (int j = 0; j < r.njobs; j++)
			fin += r.jobs[j].end >= 0 && r.jobs[j].end <= t;
		cr_assert_eq(sr_num(s, "summary.jobs_finished"), fin, "at %.2f s", t);
		json_decref(s);
	}
	cr_assert_gt(changes, 2, "the circuits shown never changed");
	json_t *end = web_replay_at(&r, 1e9);   /* clamped to the end */
	cr_assert_eq(sr_num(end, "summary.jobs_finished"), json_integer_value(json_object_get(sum, "jobs_finished")));
	cr_assert_eq(sr_num(end, "summary.jobs"), json_integer_value(json_object_get(sum, "jobs")));
	cr_assert_eq(json_is_true(sr_get(end, "final")), true);
	cr_assert_str_eq(json_string_value(sr_get(end, "fidelity.verdict")), "simulated");
	cr_assert_eq(sr_num(end, "summary.tasks_done"), sr_num(end, "summary.tasks"));
	json_t *start = web_replay_at(&r, 0);
	cr_assert_eq(sr_num(start, "summary.jobs_finished"), 0);
	json_decref(end);
	json_decref(start);
	json_decref(sum);
	web_replay_free(&r);
}

Test(web, replay_refuses_bad_directories)
{
	char dir[256], err[512], cmd[700];
	struct web_replay r;
	cr_assert_eq(web_replay_load(&r, "/nonexistent/run", err), -1);
	cr_assert(strstr(err, "summary.json"), "%s", err);
	sim_fixture(dir, sizeof dir);
	snprintf(cmd, sizeof cmd, "sed -i '3s/^[^,]*,/x1,/' '%s/links.csv'", dir);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(web_replay_load(&r, dir, err), -1);
	cr_assert(strstr(err, "links.csv:3: 'x1' is not a number"), "%s", err);
	snprintf(cmd, sizeof cmd, "rm '%s/jobs.csv'", dir);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(web_replay_load(&r, dir, err), -1);
	cr_assert(strstr(err, "jobs.csv: missing"), "%s", err);
}
