/* gen_dsp.c — DSP's workload (seed 004 §V): jobs whose tasks form a DAG
 * of at most 5 levels, each task with at most 15 children, tasks with the
 * CPU, memory and duration of Google's 2011 trace.
 *
 * From the paper: large jobs of 2000 tasks, medium of 1000, small of
 * "several hundreds", in equal numbers; <= 5 levels and <= 15 dependent
 * tasks per task; x jobs a minute, x from [2, 5]; per task 0.02 MB of disk
 * and 0.02 MB/s of bandwidth.  The trace is not used (no download): its
 * draws are assumed, after the notes (shared/notes/004_dsp.md §9):
 *   - Small jobs: U[100, 500] tasks (OPEN-31); `scale` multiplies every
 *     count (0.1 is the notes' emulation mode); the classes come in a
 *     seeded order, every class once per three jobs.
 *   - Duration (the task's work on the reference server): lognormal,
 *     median `median` (60 s), sigma `sigma` (1.5), within [1 s, 2 h].
 *   - CPU and memory, the trace's requests normalised to the largest
 *     machine, taken as DSP's Palmetto server (4 cores, 16 GB): per level,
 *     as a trace job's tasks ask alike, lognormal of median 0.03 (sigma
 *     0.8) within [0.005, 0.25] of 4 cores, and of median 0.015 (sigma 0.9)
 *     within [0.001, 0.125] of 16 GB: 0.02..1 core, 16 MB..2 GB.
 *   - The DAG (the notes' builder on synthetic waves, OPEN-32): L levels,
 *     uniform in 2..`levels` (1 if `levels` is 1); tasks spread over the
 *     levels by weights U[0.5, 1.5], then any level of more than 15 x the
 *     tasks of the one before gives the excess to the first level; each
 *     task of level l > 1 lists one parent of level l-1 with fewer than
 *     `children` children, drawn uniformly, and with probability 1/2 a
 *     second one (the notes' k_extra = 1).  A level is a stage read over
 *     "tasks" edges.
 *   - Bytes: a first-level task reads 0.02 MB; a task sends 0.02 MB/s x its
 *     duration to its children (its level's output is the sum, split
 *     evenly, as emu splits a stage's output); the last level writes
 *     0.02 MB a task.
 *   - Deadline (OPEN-25): f x the critical path (the sum over levels of the
 *     longest task), f ~ U[1.5, 3]: T_est without the cluster's share.
 *   - Arrivals: each minute x ~ U{rate_min..rate_max} jobs, uniform within
 *     the minute (OPEN-30: x drawn anew every minute). */
#include "emu/gen_int.h"
#include <math.h>
#include <stdlib.h>

enum { K_SCALE, K_LEVELS, K_CHILDREN, K_MEDIAN, K_SIGMA, K_RATE_MIN, K_RATE_MAX };
enum { ST_SIZES = 1, ST_DAG, ST_ARRIVALS };

#define MAX_LEVELS 5
#define DISK_BYTES 20000.0       /* 0.02 MB */
#define SHUFFLE_RATE 20000.0     /* 0.02 MB/s */
#define REF_CORES 4.0
#define REF_MEM_GB 16.0

/* Task counts per level: weighted, at most max_children x the level before. */
static void level_sizes(struct rng *r, int n, int L, int max_children, int *size)
{
	double wt[MAX_LEVELS], sum = 0;
	for (int l = 0; l < L; l++)
		sum += wt[l] = gen_uniform(r, 0.5, 1.5);
	int given = 0;
	for (int l = 0; l < L; l++)
		given += size[l] = 1 + (int)((n - L) * wt[l] / sum);
	size[0] += n - given;
	for (int l = 1; l < L; l++)
		if (size[l] > max_children * size[l - 1]) {
			int excess = size[l] - max_children * size[l - 1];
			size[l] -= excess;
			size[0] += excess;
		}
}

/* A task of [first, first + n) with room for a child, not `not`: from a uniform start, the next with room. */
static int pick_parent(struct rng *r, const int *nchildren, int first, int n, int max_children, int not)
{
	int start = rng_below(r, n);
	for (int i = 0; i < n; i++) {
		int k = (start + i) % n;
		if (nchildren[first + k] < max_children && first + k != not)
			return first + k;
	}
	return -1;
}

static int dsp_job(struct specs *a, const struct gen_ctx *g, int id, int n, double submit, struct rng *rs,
		   struct rng *rd)
{
	int maxl = (int)g->key[K_LEVELS], maxc = (int)g->key[K_CHILDREN];
	int L = maxl == 1 || n < 2 ? 1 : gen_int(rd, 2, maxl < n ? maxl : n), size[MAX_LEVELS] = {0};
	level_sizes(rd, n, L, maxc, size);
	struct job_spec *s = gen_job(a, "dsp%d", id);
	int *nch = calloc((size_t)n, sizeof *nch), first = 0;
	if (!s || !nch) {
		free(nch);
		return -1;
	}
	s->submit = submit;
	s->input = (uint64_t)(size[0] * DISK_BYTES);
	double cp = 0;
	for (int l = 0; l < L; l++, first += size[l - 1]) {
		char name[8];
		snprintf(name, sizeof name, "l%d", l + 1);
		struct stage_spec *st = gen_stage(s, name, size[l], 0);
		gen_google_ask(rs, st, REF_CORES, REF_MEM_GB);
		st->works = malloc((size_t)size[l] * sizeof *st->works);
		if (!st->works)
			goto oom;
		double longest = 0, out = 0;
		for (int i = 0; i < size[l]; i++) {
			double d = gen_lognormal(rs, g->key[K_MEDIAN], g->key[K_SIGMA], 1, 7200);
			st->works[i] = d;
			longest = fmax(longest, d);
			out += l < L - 1 ? SHUFFLE_RATE * d : DISK_BYTES;
		}
		st->output = (uint64_t)out;
		cp += longest;
		if (!l)
			continue;
		gen_edge(st, l - 1, EDGE_TASKS);
		st->tp_first = malloc((size_t)(size[l] + 1) * sizeof *st->tp_first);
		st->tp = malloc((size_t)size[l] * 2 * sizeof *st->tp);
		if (!st->tp_first || !st->tp)
			goto oom;
		/* room: children the parents can still take; a second parent
		 * only while every later task still finds a first one */
		int ntp = 0, pfirst = first - size[l - 1], room = maxc * size[l - 1];
		for (int i = 0; i < size[l]; i++) {
			st->tp_first[i] = ntp;
			int p1 = pick_parent(rd, nch, pfirst, size[l - 1], maxc, -1), p2 = -1;
			nch[p1]++;
			room--;
			if (gen_u01(rd) < 0.5 && room > size[l] - i - 1 &&
			    (p2 = pick_parent(rd, nch, pfirst, size[l - 1], maxc, p1)) >= 0) {
				nch[p2]++;
				room--;
			}
			int lo = p2 >= 0 && p2 < p1 ? p2 : p1, hi = lo == p1 ? p2 : p1;   /* in index order */
			st->tp[ntp++] = (struct stage_task_ref){l - 1, lo - pfirst};
			if (hi >= 0)
				st->tp[ntp++] = (struct stage_task_ref){l - 1, hi - pfirst};
		}
		st->tp_first[size[l]] = ntp;
	}
	free(nch);
	s->deadline = gen_uniform(rd, 1.5, 3) * cp;
	return 0;
oom:
	free(nch);
	return -1;
}

/* Submit times: x ~ U{lo..hi} jobs in each minute, uniform within it
 * (hi below 1: all at 0). */
static void dsp_times(struct rng *r, double *t, int n, double lo, double hi)
{
	if ((int)hi < 1) {
		gen_uniform_times(r, t, n, 0);
		return;
	}
	for (int i = 0, minute = 0; i < n; minute++) {
		int x = gen_int(r, (int)lo, (int)hi);
		double m[1000];
		gen_uniform_times(r, m, x, 60);
		for (int k = 0; k < x && i < n; k++)
			t[i++] = 60.0 * minute + m[k];
	}
}

int gen_dsp_dag(struct workload *w, const struct gen_ctx *g, char *err)
{
	struct specs a = {0};
	struct rng rs = gen_rng(g->seed, ST_SIZES), rd = gen_rng(g->seed, ST_DAG), ra = gen_rng(g->seed, ST_ARRIVALS);
	if (g->key[K_RATE_MIN] > g->key[K_RATE_MAX])
		return workload_fail(err, "generator %s: rate_min must not exceed rate_max", g->name);
	double *t = malloc((size_t)g->njobs * sizeof *t);
	if (!t)
		return gen_oom(&a, g, err);
	dsp_times(&ra, t, g->njobs, g->key[K_RATE_MIN], g->key[K_RATE_MAX]);
	int classes[3];
	for (int i = 0; i < g->njobs; i++) {
		if (i % 3 == 0)
			gen_permute(&rs, classes, 3);
		int c = classes[i % 3], base = c == 0 ? gen_int(&rs, 100, 500) : c == 1 ? 1000 : 2000;
		int n = (int)fmax(1, round(base * g->key[K_SCALE]));
		if (dsp_job(&a, g, i, n, t[i], &rs, &rd)) {
			free(t);
			return gen_oom(&a, g, err);
		}
	}
	free(t);
	return gen_build(w, &a, g, err);
}
