/* compare.c — emu run --compare: after a run, the same jobs on the
 * flow-level simulator (no root, no new fabric: well under a second a run
 * at GENI scale), under this run's scheduler and the ones listed, then one
 * row per run: makespan, JCTs, cross-rack bytes, their share on circuits,
 * OCS reconfigurations, fidelity.
 *
 * Ratios are to this run's scheduler on the simulator (the run itself on the
 * sim backend, its twin on the emulator): the other schedulers' rows then
 * compare like with like, and the emulated row's ratio says how far the
 * packets were from the flow model.  Every number is read back from the
 * runs' summary.json, so the table says what their results say. */
#include "emu/cli/compare.h"
#include "emu/sched.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int compare_parse(struct compare *c, char *spec, double rate_scale)
{
	char *save = NULL;
	c->n = 0;
	for (char *item = strtok_r(spec, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (c->n == COMPARE_MAX) {
			fprintf(stderr, "emu run: --compare: at most %d runs\n", COMPARE_MAX);
			return -1;
		}
		struct compare_entry *e = &c->v[c->n];
		char *at = strchr(item, '@');
		if (at)
			*at++ = 0;
		if (!sched_find(item)) {
			fprintf(stderr, "emu run: --compare: unknown scheduler '%s'; known:\n", item);
			sched_list(stderr);
			return -1;
		}
		e->scheduler = item;
		e->own_topology = at != NULL;
		char err[TOPO_ERR_LEN];
		if (at && topo_load(&e->topology, at, rate_scale, err)) {
			fprintf(stderr, "emu run: --compare %s@%s: %s\n", item, at, err);
			return -1;
		}
		c->n++;
	}
	if (!c->n) {
		fprintf(stderr, "emu run: --compare wants SCHED[@TOPOLOGY][,...], e.g. fair\n");
		return -1;
	}
	return 0;
}

/* One run of the table, as its summary.json has it. */
struct row {
	char label[128];
	const char *role;          /* run, twin (this run's scheduler on the simulator) or compared */
	const char *backend, *scheduler, *topology;
	char dir[512];
	long long jobs, finished, cross_rack, ocs_bytes, reconfigs;
	bool partial;
	double makespan, jct_mean, jct_median, ocs_share;
	char fidelity[32];
};

static json_t *get(json_t *s, const char *path)
{
	char key[64];
	const char *dot = strchr(path, '.');
	if (!dot)
		return json_object_get(s, path);
	snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
	return get(json_object_get(s, key), dot + 1);
}

static int read_summary(struct row *r)
{
	char path[600];
	json_error_t je;
	snprintf(path, sizeof path, "%s/summary.json", r->dir);
	json_t *s = json_load_file(path, 0, &je);
	if (!s) {
		fprintf(stderr, "emu run: --compare: %s: %s\n", path, je.text);
		return -1;
	}
	r->jobs = json_integer_value(get(s, "jobs"));
	r->finished = json_integer_value(get(s, "jobs_finished"));
	r->partial = json_is_true(get(s, "partial"));
	r->makespan = json_number_value(get(s, "makespan_s"));
	r->jct_mean = json_number_value(get(s, "jct_mean_s"));
	r->jct_median = json_number_value(get(s, "jct_median_s"));
	r->cross_rack = json_integer_value(get(s, "cross_rack_bytes"));
	r->ocs_bytes = json_integer_value(get(s, "ocs_bytes"));
	r->ocs_share = json_number_value(get(s, "ocs_share"));
	r->reconfigs = json_integer_value(get(s, "ocs.reconfigurations"));
	const char *v = json_string_value(get(s, "fidelity.verdict"));
	snprintf(r->fidelity, sizeof r->fidelity, "%s", v ? v : "");
	json_decref(s);
	return 0;
}

/* The child's exit status when the run could not be made at all. */
#define SIMULATE_FAILED 3

/* The run's jobs on the simulator under `sched` on t, into
 * results/<experiment>/<sched>/<name>/ (dir), with the run's scheduler
 * options if `sched` is the run's scheduler, else with its defaults (the
 * run's options are its scheduler's), made by a child process:
 * getrusage counts a process's whole life and its reaped children, so only
 * then are the CPU times in its summary its own and not the emulated run's
 * and its agents'.  run_experiment's status (-1: not made). */
static int simulate(const struct run_params *rp, const struct workload *jobs, const char *sched,
		    const struct topo *t, const char *name, char dir[512])
{
	char *shared = mmap(NULL, 512, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		fprintf(stderr, "emu run: --compare: %s\n", strerror(errno));
		return -1;
	}
	shared[0] = 0;
	fflush(NULL);   /* or the child would write what this process has buffered again */
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "emu run: --compare: fork: %s\n", strerror(errno));
		munmap(shared, 512);
		return -1;
	}
	if (!pid) {
		struct workload w;
		char err[512];
		if (workload_copy(&w, jobs)) {
			fprintf(stderr, "emu run: --compare: out of memory\n");
			_exit(SIMULATE_FAILED);
		}
		struct run_params p = *rp;
		p.backend = "sim";
		p.scheduler = sched;
		if (strcmp(sched, rp->scheduler)) {   /* another scheduler: its defaults */
			p.sched_opts = NULL;
			p.nsched_opts = 0;
		}
		p.run_name = name;
		p.quiet = true;
		p.slowdown = 1;   /* the simulator's clock is virtual */
		p.keep_fabric = false;
		p.captures = NULL;   /* the simulator has no packets */
		p.ncaptures = 0;
		p.capture_filter = NULL;
		p.dir_out = shared;
		int rc = run_experiment(t, &w, &p, err);
		if (rc < 0)
			fprintf(stderr, "emu run: --compare %s on %s: %s\n", sched, t->name, err);
		_exit(rc < 0 ? SIMULATE_FAILED : rc);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;   /* a signal to stop reaches the child too: it ends its run early */
	snprintf(dir, 512, "%s", shared);
	munmap(shared, 512);
	if (!WIFEXITED(st)) {
		fprintf(stderr, "emu run: --compare %s on %s: the simulation died (signal %d)\n", sched, t->name,
			WIFSIGNALED(st) ? WTERMSIG(st) : 0);
		return -1;
	}
	int rc = WEXITSTATUS(st);
	if (rc == 1)
		fprintf(stderr, "emu run: --compare %s on %s stopped early (partial results in %s)\n", sched, t->name, dir);
	return rc == SIMULATE_FAILED ? -1 : rc;
}

/* A CSV field, quoted when it must be. */
static void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static double ratio(double x, double ref)
{
	return ref > 0 ? x / ref : NAN;
}

static void csv_ratio(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.4f", x);
}

/* dir/compare.csv, written whole or not at all as every result file is. */
static int write_csv(const char *dir, const struct row *rows, int n, const struct row *ref)
{
	char tmp[600], path[600];
	snprintf(tmp, sizeof tmp, "%s/compare.csv.tmp", dir);
	snprintf(path, sizeof path, "%s/compare.csv", dir);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "role,backend,scheduler,topology,results,jobs,jobs_finished,partial,makespan_s,jct_mean_s,"
		   "jct_median_s,cross_rack_bytes,ocs_bytes,ocs_share,ocs_reconfigurations,fidelity,makespan_ratio,"
		   "jct_mean_ratio,jct_median_ratio\n");
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		fprintf(f, "%s,%s,", r->role, r->backend);
		csv_str(f, r->scheduler);
		fputc(',', f);
		csv_str(f, r->topology);
		fputc(',', f);
		csv_str(f, r->dir);
		fprintf(f, ",%lld,%lld,%d,%.3f,%.3f,%.3f,%lld,%lld,%.6f,%lld,", r->jobs, r->finished, r->partial,
			r->makespan, r->jct_mean, r->jct_median, r->cross_rack, r->ocs_bytes, r->ocs_share, r->reconfigs);
		csv_str(f, r->fidelity);
		fputc(',', f);
		csv_ratio(f, ratio(r->makespan, ref->makespan));
		fputc(',', f);
		csv_ratio(f, ratio(r->jct_mean, ref->jct_mean));
		fputc(',', f);
		csv_ratio(f, ratio(r->jct_median, ref->jct_median));
		fputc('\n', f);
	}
	int bad = ferror(f) | fclose(f);
	if (bad || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* "12.34 s 1.05x", or without the ratio where there is none. */
static void cell(double x, double ref)
{
	double q = ratio(x, ref);
	if (isfinite(q))
		printf(" %8.2f s %5.2fx", x, q);
	else
		printf(" %8.2f s %6s", x, "");
}

static void print_table(const struct row *rows, int n, const struct row *ref, const struct run_params *rp,
			const char *dir, const char *run)
{
	int width = 20;
	for (int i = 0; i < n; i++)
		if ((int)strlen(rows[i].label) > width)
			width = (int)strlen(rows[i].label);
	printf("\nThe same %lld jobs, side by side (x: ratio to %s):\n", rows[0].jobs, ref->label);
	printf("%-*s %17s %17s %17s %11s %11s %9s  %s\n", width, "", "makespan", "JCT mean", "JCT median", "cross-rack",
	       "on circuits", "reconfigs", "fidelity");
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		printf("%-*s", width, r->label);
		cell(r->makespan, ref->makespan);
		cell(r->jct_mean, ref->jct_mean);
		cell(r->jct_median, ref->jct_median);
		printf(" %8.0f MB %10.1f%% %9lld  %s%s\n", r->cross_rack / 1e6, 100 * r->ocs_share, r->reconfigs,
		       r->fidelity, r->partial ? " (PARTIAL)" : "");
	}
	printf("%-28s %s/compare.csv\n", "table", dir);
	printf("%-28s %s/%s/<scheduler>/%s-sim*/\n", "simulated runs", rp->results_root, rp->experiment, run);
}

/* What a run's results directory name gains for a compared run on its own
 * topology: "-sim-NAME", NAME made safe for a path. */
static void suffix_for(const struct compare_entry *e, char *out, size_t size)
{
	if (!e->own_topology) {
		snprintf(out, size, "-sim");
		return;
	}
	snprintf(out, size, "-sim-%s", e->topology.name);
	for (char *p = out; *p; p++)
		if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') || *p == '-' ||
		      *p == '_' || *p == '.'))
			*p = '_';
}

int compare_run(const struct compare *c, const struct topo *t, const struct workload *jobs,
		const struct run_params *rp, const char *dir)
{
	struct row rows[COMPARE_MAX + 2];
	char suffixes[COMPARE_MAX + 2][96];
	const char *run = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	bool emulated = strcmp(rp->backend, "sim") != 0;
	int n = 0, failed = 0;

	struct row *r = &rows[n];
	memset(r, 0, sizeof *r);
	snprintf(r->label, sizeof r->label, "%s, %s", rp->scheduler, emulated ? "emulated" : "simulated");
	r->role = "run";
	r->backend = rp->backend;
	r->scheduler = rp->scheduler;
	r->topology = t->name;
	snprintf(r->dir, sizeof r->dir, "%s", dir);
	snprintf(suffixes[n], sizeof suffixes[n], "%s", emulated ? "" : "-sim");   /* the run is its own twin */
	if (read_summary(r))
		return 1;
	n++;

	/* The twin first, then each entry that is not a row already. */
	for (int i = emulated ? -1 : 0; i < c->n && !run_stop_requested; i++) {
		const struct compare_entry *e = i < 0 ? NULL : &c->v[i];
		const char *sched = e ? e->scheduler : rp->scheduler;
		const struct topo *et = e && e->own_topology ? &e->topology : t;
		char suffix[96], name[600];
		if (e)
			suffix_for(e, suffix, sizeof suffix);
		else
			snprintf(suffix, sizeof suffix, "-sim");
		bool seen = false;
		for (int k = 0; k < n; k++)
			seen |= !strcmp(rows[k].scheduler, sched) && !strcmp(suffixes[k], suffix);
		if (seen)
			continue;
		r = &rows[n];
		memset(r, 0, sizeof *r);
		snprintf(name, sizeof name, "%s%s", run, suffix);
		if (!rp->quiet) {
			fflush(stdout);   /* after the summary above it, when both go to one file */
			fprintf(stderr, "emu: the same jobs on the simulator: %s on %s\n", sched, et->name);
		}
		if (simulate(rp, jobs, sched, et, name, r->dir) < 0 || read_summary(r)) {
			failed = 1;
			continue;
		}
		failed |= r->partial;
		if (e && e->own_topology)
			snprintf(r->label, sizeof r->label, "%s on %s, simulated", sched, et->name);
		else
			snprintf(r->label, sizeof r->label, "%s, simulated", sched);
		r->role = e ? "compared" : "twin";
		r->backend = "sim";
		r->scheduler = sched;
		r->topology = et->name;
		snprintf(suffixes[n], sizeof suffixes[n], "%s", suffix);
		n++;
	}
	const struct row *ref = emulated && n > 1 && !strcmp(rows[1].role, "twin") ? &rows[1] : &rows[0];
	if (write_csv(dir, rows, n, ref)) {
		fprintf(stderr, "emu run: --compare: could not write %s/compare.csv\n", dir);
		failed = 1;
	}
	if (!rp->quiet)
		print_table(rows, n, ref, rp, dir, run);
	return failed;
}
