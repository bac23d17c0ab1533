/* jobpacker_plan.c — JobPacker's job manager and the Corral baseline's
 * planner (the dissertation's §4.2.3), on the profiles of
 * jobpacker_profile.c; jobpacker_follow.c runs the plan.
 *
 * Everything is planned once, in init, over the whole workload (ours: the
 * text does not say how long its "unit period" is):
 * recurring jobs are known a priori (predicted shuffle bytes and arrival,
 * task counts and durations); ad-hoc jobs are not planned and get the
 * containers the plan leaves (Fair order, sparsity rule).
 *
 * Choices the text leaves open are marked "ours" where they are made; and:
 *  - task durations: the planner uses the mean duration of the job's maps
 *    (reduces) for every map (reduce) — the workload's durations are the
 *    "known a priori" characteristics (zero prediction error, §4.3.2);
 *  - a plan assigns every task of a recurring job to one rack (JobPacker)
 *    so the even split over r_map/r_red racks (balance-skewness, §4.2.3) holds
 *    at run time too, and a re-run task goes back to its rack;
 *  - early-reduce guard: a reduce of a job that still has unlaunched maps may
 *    take a container only while such reduces hold fewer than
 *    early_reduce_cap × C containers of the rack.  With racks reserved for a
 *    job's maps and reduces (Corral always, JobPacker when r_map and r_red
 *    overlap) reduces launched at slowstart could otherwise fill the very
 *    racks the job's remaining maps are planned on, and wait forever for
 *    them (Hadoop avoids it by preempting reduces);
 *  - a non-shuffle-heavy job's reduces, among equally early containers, go
 *    to the rack with the fewest of them (rack_before). */
#include "emu/sched/jobpacker.h"
#include "emu/helper_thread.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ----------------------------------------------- sub-batches (§4.2.3.2) */

double jp_tetris_score(const double avail[3], const double demand[3])
{
	return avail[0] * demand[0] + avail[1] * demand[1] + avail[2] * demand[2];
}

static int by_total_desc(const void *a, const void *b, void *arg)
{
	const double (*sb_norm)[3] = arg;
	int x = *(const int *)a, y = *(const int *)b;
	double sx = sb_norm[x][0] + sb_norm[x][1] + sb_norm[x][2];
	double sy = sb_norm[y][0] + sb_norm[y][1] + sb_norm[y][2];
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return x - y;
}

int jp_subbatch(int n, const double (*demand)[3], int B, int *sub)
{
	if (n <= 0)
		return 0;
	if (B < 1)
		B = 1;
	double (*d)[3] = malloc(n * sizeof *d);
	double (*avail)[3] = malloc(B * sizeof *avail);
	int *U = malloc(n * sizeof *U);
	if (!d || !avail || !U) {
		free(d);
		free(avail);
		free(U);
		return -1;
	}
	double tot[3] = {0, 0, 0};
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			tot[k] += demand[i][k];
	/* Demand as a share of the batch total; each sub-batch can hold 1/B. */
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			d[i][k] = tot[k] > 0 ? demand[i][k] / tot[k] : 0;
	for (int b = 0; b < B; b++)
		avail[b][0] = avail[b][1] = avail[b][2] = 1.0 / B;
	for (int i = 0; i < n; i++)
		U[i] = i;
	qsort_r(U, n, sizeof *U, by_total_desc, d);
	for (int left = n; left > 0; left--) {
		int b = 0;   /* the sub-batch with the most room */
		for (int x = 1; x < B; x++)
			if (avail[x][0] + avail[x][1] + avail[x][2] > avail[b][0] + avail[b][1] + avail[b][2])
				b = x;
		int pick = -1;
		double best = 0;
		for (int pass = 0; pass < 2 && pick < 0; pass++)   /* fitting jobs, else any (overflow) */
			for (int u = 0; u < left; u++) {
				const double *dj = d[U[u]];
				if (pass == 0 && (dj[0] > avail[b][0] + 1e-12 || dj[1] > avail[b][1] + 1e-12 ||
						  dj[2] > avail[b][2] + 1e-12))
					continue;
				double sc = jp_tetris_score(avail[b], dj);
				if (pick < 0 || sc > best || (sc == best && U[u] < U[pick])) {
					pick = u;
					best = sc;
				}
			}
		int j = U[pick];
		sub[j] = b;
		for (int k = 0; k < 3; k++)
			avail[b][k] -= d[j][k];
		memmove(&U[pick], &U[pick + 1], (left - pick - 1) * sizeof *U);
	}
	free(d);
	free(avail);
	free(U);
	return 0;
}

/* --------------------------------------------------------------- plan */

void jp_plan_free(struct jp_plan *p)
{
	free(p->planned);
	free(p->sh);
	free(p->rm);
	free(p->rr);
	free(p->map_rack);
	free(p->red_rack);
	free(p->task_rack);
	free(p->start);
	free(p->end);
	free(p->sub);
	free(p->order);
	for (int i = 0; p->seq && i < p->racks; i++)
		free(p->seq[i]);
	free(p->seq);
	free(p->nseq);
	free(p->capseq);
	memset(p, 0, sizeof *p);
}

static int plan_alloc(struct jp_plan *p, const struct cluster *c)
{
	int n = c->w->njobs ? c->w->njobs : 1, R = c->racks, nt = c->w->ntasks ? c->w->ntasks : 1;
	memset(p, 0, sizeof *p);
	p->racks = R;
	p->njobs = c->w->njobs;
	p->ntasks = c->w->ntasks;
	p->planned = calloc(n, sizeof *p->planned);
	p->sh = calloc(n, sizeof *p->sh);
	p->rm = calloc(n, sizeof *p->rm);
	p->rr = calloc(n, sizeof *p->rr);
	p->map_rack = calloc((size_t)n * R, 1);
	p->red_rack = calloc((size_t)n * R, 1);
	p->task_rack = malloc(nt * sizeof *p->task_rack);
	p->start = calloc(n, sizeof *p->start);
	p->end = calloc(n, sizeof *p->end);
	p->sub = malloc(n * sizeof *p->sub);
	p->order = malloc(n * sizeof *p->order);
	p->seq = calloc(R, sizeof *p->seq);
	p->nseq = calloc(R, sizeof *p->nseq);
	p->capseq = calloc(R, sizeof *p->capseq);
	if (!p->planned || !p->sh || !p->rm || !p->rr || !p->map_rack || !p->red_rack || !p->task_rack ||
	    !p->start || !p->end || !p->sub || !p->order || !p->seq || !p->nseq || !p->capseq) {
		jp_plan_free(p);
		return -1;
	}
	for (int i = 0; i < nt; i++)
		p->task_rack[i] = -1;
	for (int i = 0; i < n; i++)
		p->sub[i] = -1;
	return 0;
}

static int seq_add(struct jp_plan *p, int rack, int job, int stage, double t, int rank)
{
	if (p->nseq[rack] == p->capseq[rack]) {
		int cap = p->capseq[rack] ? 2 * p->capseq[rack] : 16;
		struct jp_entry *e = realloc(p->seq[rack], cap * sizeof *e);
		if (!e)
			return -1;
		p->seq[rack] = e;
		p->capseq[rack] = cap;
	}
	p->seq[rack][p->nseq[rack]++] = (struct jp_entry){job, stage, t, rank};
	return 0;
}

static int by_entry(const void *a, const void *b)
{
	const struct jp_entry *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return x->stage - y->stage;
}

/* The planning list's order: the jobs' priority (a job's maps before its
 * reduces).  The batch sort is "the priority of each job in scheduling"
 * (§4.2.3.2; Fig 4.7 "Priority determination based on sub-batches"), the
 * list is "for sequential offline scheduling" (ibid.), each job's planning
 * "updates the sequences of those racks" (ibid.), and a free container
 * takes "a map/reduce task of the first job in the sequence" (§4.2.4).
 * Ordering by planned start instead put the map entry of a job planned on
 * a rack's containers as they free up ahead of the reduce entry of an
 * earlier job planned a little later on one of them; the entry stands for
 * all the first job's maps on the rack, so the earlier job's reduce waited
 * for every one of them (default batch, seed 4: job 0, one map and one
 * reduce, planned to end at 1.8 s, waited behind job 6's 3712 maps until
 * 20.8 s).  Option seq=time keeps the planned-start order. */
static int by_rank(const void *a, const void *b)
{
	const struct jp_entry *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return x->stage - y->stage;
}

/* Sequence order inside a rack: planned start, ties by list order
 * (by_entry), or the planning list's order (by_rank). */
static void seq_sort(struct jp_plan *p, int (*cmp)(const void *, const void *))
{
	for (int i = 0; i < p->racks; i++)
		if (p->nseq[i] > 1)
			qsort(p->seq[i], p->nseq[i], sizeof **p->seq, cmp);
}

static bool all_same_arrival(const struct workload *w)
{
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < w->njobs; i++)
		if (w->jobs[i].recurring) {
			lo = fmin(lo, w->jobs[i].pred_submit_s);
			hi = fmax(hi, w->jobs[i].pred_submit_s);
		}
	return !(hi - lo > 1e-9);
}

/* The planner's state: container availability times T_ik, kept sorted per rack. */
struct planner {
	const struct cluster *c;
	const struct jp_model *m;
	struct jp_plan *p;
	int R, C;
	double rho;
	bool ports;                  /* book the OCS ports (k->ports) */
	double *T, *scratch, *merge; /* T: R × C container times, then R port-out and R port-in times */
	bool *heaped;                /* per rack: its times are a heap, not sorted (place_nsh; sorted when read in order) */
	struct jp_jobdesc *desc;     /* per job */
	struct jp_profile *prof;     /* per job */
};

static size_t plan_times(const struct planner *P) { return (size_t)P->R * P->C + 2 * (size_t)P->R; }

/* n containers' worth of tasks of duration d on a rack with sorted times t,
 * none starting before `floor`; each takes the earliest container.  The
 * first `real` are the job's tasks: returns when the last of them ends, and
 * *first = the earliest time one of them holds a container (from `hold`). */
/* fmax/fmin without the library call (no NaNs here): the planner's inner loops. */
static inline double dmax(double a, double b) { return a > b ? a : b; }
static inline double dmin(double a, double b) { return a < b ? a : b; }

static double rack_assign(struct planner *P, double *t, int n, int real, double floor, double hold, double d,
			  double *first)
{
	int C = P->C, q = n / C, rem = n % C, rq = real / C, rrem = real % C;
	int used = q > 0 ? C : rem;   /* containers that get a task (real <= n) */
	double cmp = floor;
	*first = INFINITY;
	for (int k = 0; k < used; k++) {
		double base = dmax(t[k], floor);
		int cnt = q + (k < rem), rcnt = rq + (k < rrem);
		if (rcnt > 0) {
			cmp = dmax(cmp, base + rcnt * d);
			*first = dmin(*first, dmax(t[k], hold));
		}
		if (cnt > 0)
			t[k] = base + cnt * d;
	}
	/* [0, rem) and [rem, C) are each still sorted: merge them. */
	if (rem > 0 && q >= 0) {
		int a = 0, b = rem, o = 0;
		while (a < rem || b < C)
			P->merge[o++] = b >= C || (a < rem && t[a] <= t[b]) ? t[a++] : t[b++];
		memcpy(t, P->merge, C * sizeof *t);
	}
	return cmp;
}

static int ceil_rho(double rho, int n)
{
	return n > 0 ? (int)ceil((1 + rho) * n - 1e-9) : 0;
}

struct rack_key { double t; int rack; };

static int by_rack_key(const void *a, const void *b)
{
	const struct rack_key *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->rack - y->rack;
}

/* The `want` racks whose `need`-th earliest container is free first
 * (§4.2.3.2; ties to the lower rack id: ours). */
static void earliest_racks(struct planner *P, const double *T, int need, double floor, int want, int *out)
{
	struct rack_key key[P->R];
	int idx = (need < P->C ? need : P->C) - 1;
	if (idx < 0)
		idx = 0;
	for (int i = 0; i < P->R; i++)
		key[i] = (struct rack_key){fmax(T[i * P->C + idx], floor), i};
	qsort(key, P->R, sizeof *key, by_rack_key);
	for (int i = 0; i < want; i++)
		out[i] = key[i].rack;
}

/* One (rm, rr) pair of a shuffle-heavy job on times T (modified): returns
 * its completion; racks in RM/RR, per-rack shares and first starts. */
static double place_pair(struct planner *P, const struct jp_jobdesc *j, int rm, int rr, double *T, int *RM, int *RR,
			 double *mfirst, double *rfirst)
{
	double a = j->arrival;
	earliest_racks(P, T, ceil_rho(P->rho, j->nmaps) / rm + (ceil_rho(P->rho, j->nmaps) % rm != 0), a, rm, RM);
	double cmp_map = a;
	for (int x = 0; x < rm; x++) {
		int share = j->nmaps / rm + (x < j->nmaps % rm);   /* ⌈N/r⌉ on the first N mod r: ours */
		double f = rack_assign(P, T + RM[x] * P->C, ceil_rho(P->rho, share), share, a, a, j->t_map,
				       &mfirst[x]);
		cmp_map = fmax(cmp_map, f);
	}
	if (j->nreduces <= 0)
		return cmp_map;
	int nr = ceil_rho(P->rho, j->nreduces);
	earliest_racks(P, T, nr / rr + (nr % rr != 0), 0, rr, RR);
	/* Reduce stage starts after the last map plus the shuffle (§4.2.3.2);
	 * the container is held from the shuffle's start (ours: the text only
	 * says when the reduce stage starts). */
	bool ocs;
	double shuffle = jp_lrf_shuffle(P->m, j, rm, rr, &ocs), s_shu = cmp_map;
	if (ocs && P->ports) {
		/* Eq. 4.1 gives the job its racks' OCS ports to itself; two jobs
		 * whose shuffles share a port take turns on it (the OCS serves a
		 * port from one rack per configuration).  Without this, seed 4's
		 * batch (simulator) planned jobs 19 and 20 at once on the same
		 * four map racks, 4.4 s and 4.7 s long; they took 16 s and 14 s. */
		double *out = T + P->R * P->C, *in = out + P->R;
		for (int x = 0; x < rm; x++)
			s_shu = fmax(s_shu, out[RM[x]]);
		for (int x = 0; x < rr; x++)
			s_shu = fmax(s_shu, in[RR[x]]);
		for (int x = 0; x < rm; x++)
			out[RM[x]] = s_shu + shuffle;
		for (int x = 0; x < rr; x++)
			in[RR[x]] = s_shu + shuffle;
	}
	double s_red = s_shu + shuffle, comp = s_red;
	for (int x = 0; x < rr; x++) {
		int share = j->nreduces / rr + (x < j->nreduces % rr);
		double f = rack_assign(P, T + RR[x] * P->C, ceil_rho(P->rho, share), share, s_red, cmp_map, j->t_red,
				       &rfirst[x]);
		comp = fmax(comp, f);
	}
	return comp;
}

/* A rack's heap of n times back to sorted, by taking its earliest n times (out: n scratch times). */
static void heap_sort(double *t, int n, double *out)
{
	for (int m = n, o = 0; m > 0; m--) {
		out[o++] = t[0];
		double v = t[m - 1];
		int i = 0;
		for (;;) {
			int c = 2 * i + 1;
			if (c >= m - 1)
				break;
			if (c + 1 < m - 1 && t[c + 1] < t[c])
				c++;
			if (!(t[c] < v))
				break;
			t[i] = t[c];
			i = c;
		}
		t[i] = v;
	}
	memcpy(t, out, n * sizeof *t);
}

/* ---- a pair's completion without placing it
 *
 * place_sh tries every feasible (rm, rr) pair on a copy of the times; only
 * the completion is kept.  The same numbers come from a few of the times:
 * a rack's times stay sorted, so rack_assign's latest end in each run of
 * equal task counts is its last container's, its first start the first
 * container's, and a map rack's new times (two sorted runs, merged) are
 * read through the update by order statistic instead of being written:
 * O((rm + rr) log C + R log R) a pair, not O(R C). */

/* A map rack's update by rack_assign: the first `rem` containers got q + 1
 * tasks, the others q (none: unchanged), none starting before `floor`. */
struct lazy { bool on; int q, rem; double floor, d; };

static double lazy_a(const struct lazy *z, double x) { return dmax(x, z->floor) + (z->q + 1) * z->d; }
static double lazy_b(const struct lazy *z, double x) { return z->q > 0 ? dmax(x, z->floor) + z->q * z->d : x; }

/* The idx-th earliest time of `rack` (0-based), through its update if any. */
static double lazy_at(const struct planner *P, const struct lazy *Z, int rack, int idx)
{
	const double *t = P->T + (size_t)rack * P->C;
	const struct lazy *z = &Z[rack];
	if (!z->on)
		return t[idx];
	const double *b = t + z->rem;
	int na = z->rem, nb = P->C - z->rem, k = idx + 1;
	/* The fewest i of run a among the k earliest such that b's part ends first. */
	int lo = k - nb > 0 ? k - nb : 0, hi = k < na ? k : na;
	while (lo < hi) {
		int i = lo + (hi - lo) / 2, j = k - i;
		if (j == 0 || lazy_b(z, b[j - 1]) <= lazy_a(z, t[i]))
			hi = i;
		else
			lo = i + 1;
	}
	int i = lo, j = k - i;
	double v = -INFINITY;
	if (i > 0)
		v = lazy_a(z, t[i - 1]);
	if (j > 0)
		v = dmax(v, lazy_b(z, b[j - 1]));
	return v;
}

/* rack_assign's return on the rack's times (through Z), without the assignment. */
static double assign_end(const struct planner *P, const struct lazy *Z, int rack, int n, int real, double floor,
			 double d)
{
	int C = P->C, rq = real / C, rrem = real % C;
	double cmp = floor;
	(void)n;   /* real <= n: every container with a real task gets one */
	if (rrem > 0)
		cmp = dmax(cmp, dmax(lazy_at(P, Z, rack, rrem - 1), floor) + (rq + 1) * d);
	if (rq > 0)
		cmp = dmax(cmp, dmax(lazy_at(P, Z, rack, C - 1), floor) + rq * d);
	return cmp;
}

static void lazy_earliest(struct planner *P, const struct lazy *Z, int need, double floor, int want, int *out)
{
	struct rack_key key[P->R];
	int idx = (need < P->C ? need : P->C) - 1;
	if (idx < 0)
		idx = 0;
	for (int i = 0; i < P->R; i++)
		key[i] = (struct rack_key){fmax(lazy_at(P, Z, i, idx), floor), i};
	qsort(key, P->R, sizeof *key, by_rack_key);
	for (int i = 0; i < want; i++)
		out[i] = key[i].rack;
}

/* place_pair's return, T unchanged. */
static double pair_end(struct planner *P, const struct jp_jobdesc *j, int rm, int rr, int *RM, int *RR)
{
	int R = P->R, C = P->C;
	struct lazy Z[R];
	memset(Z, 0, sizeof Z);
	double a = j->arrival;
	lazy_earliest(P, Z, ceil_rho(P->rho, j->nmaps) / rm + (ceil_rho(P->rho, j->nmaps) % rm != 0), a, rm, RM);
	double cmp_map = a;
	for (int x = 0; x < rm; x++) {
		int share = j->nmaps / rm + (x < j->nmaps % rm), n = ceil_rho(P->rho, share);
		cmp_map = fmax(cmp_map, assign_end(P, Z, RM[x], n, share, a, j->t_map));
		Z[RM[x]] = (struct lazy){true, n / C, n % C, a, j->t_map};
	}
	if (j->nreduces <= 0)
		return cmp_map;
	int nr = ceil_rho(P->rho, j->nreduces);
	lazy_earliest(P, Z, nr / rr + (nr % rr != 0), 0, rr, RR);
	bool ocs;
	double shuffle = jp_lrf_shuffle(P->m, j, rm, rr, &ocs), s_shu = cmp_map;
	if (ocs && P->ports) {   /* as place_pair, without booking the ports */
		const double *out = P->T + (size_t)R * C, *in = out + R;
		for (int x = 0; x < rm; x++)
			s_shu = fmax(s_shu, out[RM[x]]);
		for (int x = 0; x < rr; x++)
			s_shu = fmax(s_shu, in[RR[x]]);
	}
	double s_red = s_shu + shuffle, comp = s_red;
	for (int x = 0; x < rr; x++) {
		int share = j->nreduces / rr + (x < j->nreduces % rr);
		comp = fmax(comp, assign_end(P, Z, RR[x], ceil_rho(P->rho, share), share, s_red, j->t_red));
	}
	return comp;
}

static int place_sh(struct planner *P, int id, int rank)
{
	const struct jp_jobdesc *j = &P->desc[id];
	const struct jp_profile *pr = &P->prof[id];
	int R = P->R;
	int RM[R], RR[R], brm = -1, brr = -1;
	double mfirst[R], rfirst[R], best = INFINITY;
	for (int i = 0; i < R; i++)
		if (P->heaped[i]) {   /* every rack is read in order below */
			heap_sort(P->T + (size_t)i * P->C, P->C, P->merge);
			P->heaped[i] = false;
		}
	for (int k = 0; k < pr->n; k++) {
		double comp = pair_end(P, j, pr->rm[k], pr->rr[k], RM, RR);
		/* Earliest completion (§4.2.3.2); ties (ours): fewer racks, then
		 * fewer map racks. */
		if (brm < 0 || comp < best - 1e-9 ||
		    (comp <= best + 1e-9 && (pr->rm[k] + pr->rr[k] < brm + brr ||
					     (pr->rm[k] + pr->rr[k] == brm + brr && pr->rm[k] < brm)))) {
			best = comp;
			brm = pr->rm[k];
			brr = pr->rr[k];
		}
	}
	double comp = place_pair(P, j, brm, brr, P->T, RM, RR, mfirst, rfirst);
	struct jp_plan *p = P->p;
	const struct job *jb = &P->c->w->jobs[id];
	p->rm[id] = brm;
	p->rr[id] = brr;
	p->end[id] = comp;
	p->start[id] = INFINITY;
	int t = 0;
	for (int x = 0; x < brm; x++) {
		int share = j->nmaps / brm + (x < j->nmaps % brm);
		for (int s = 0; s < share; s++)
			p->task_rack[jb->first_task + t++] = RM[x];
		if (share > 0) {
			p->map_rack[(size_t)id * R + RM[x]] = 1;
			p->start[id] = fmin(p->start[id], mfirst[x]);
			if (seq_add(p, RM[x], id, JP_MAP, mfirst[x], rank))
				return -1;
		}
	}
	t = 0;
	for (int x = 0; x < brr && j->nreduces > 0; x++) {
		int share = j->nreduces / brr + (x < j->nreduces % brr);
		for (int s = 0; s < share; s++)
			p->task_rack[jb->first_task + jb->nmaps + t++] = RR[x];
		if (share > 0) {
			p->red_rack[(size_t)id * R + RR[x]] = 1;
			if (seq_add(p, RR[x], id, JP_RED, rfirst[x], rank))
				return -1;
		}
	}
	return 0;
}

/* ---- non-shuffle-heavy: the first available containers (§4.2.3.2)
 *
 * Each rack's container times are a min-heap here (a sorted array is one;
 * they are sorted again only when a shuffle-heavy job reads them in
 * order), and the racks a heap by their earliest container: a task takes
 * its container in O(log C + log R), not a scan of every container.  Which
 * of a rack's equally early containers it takes makes no difference (only
 * racks and times are kept). */

struct take {
	double **t;            /* per rack, its C times, a min-heap */
	double *copy;          /* tentative: a rack's times are copied here (R × C) before they change */
	int C, *racks, nr;     /* the racks, a heap by rack_before */
	int *cnt;              /* the job's tasks of this stage per rack so far */
	bool spread;           /* reduces of a non-shuffle-heavy job: see take() */
	double floor;          /* no task starts before */
};

/* Maps: the earliest container, ties to the lower rack.  Reduces
 * (spread): the container where the task starts first, and among equally
 * early ones the rack with the fewest of the job's reduces so far (cnt),
 * then the earliest container, the lower rack.  Such a job's shuffle
 * crosses the EPS, where each reduce rack receives through one uplink: ten
 * reduces packed on the first free rack took 47 MB through one 0.1 Gb/s
 * link (GENI online, seed 5, job 6: 7.1 s; Fair spread them, 5.4 s). */
static bool rack_before(const struct take *k, int a, int b)
{
	double ta = k->t[a][0], tb = k->t[b][0];
	if (k->spread) {
		double fa = dmax(ta, k->floor), fb = dmax(tb, k->floor);
		if (fa != fb)
			return fa < fb;
		if (k->cnt[a] != k->cnt[b])
			return k->cnt[a] < k->cnt[b];
	}
	if (ta != tb)
		return ta < tb;
	return a < b;
}

static void racks_down(struct take *k, int i)
{
	int *h = k->racks, x = h[i];
	for (;;) {
		int c = 2 * i + 1;
		if (c >= k->nr)
			break;
		if (c + 1 < k->nr && rack_before(k, h[c + 1], h[c]))
			c++;
		if (!rack_before(k, h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* On T itself, or (copy) on copies of the racks it changes. */
static void take_init(struct take *k, double *T, double *copy, double **t, int R, int C, int *racks, int *cnt,
		      bool spread, double floor)
{
	*k = (struct take){t, copy, C, racks, R, cnt, spread, floor};
	for (int i = 0; i < R; i++) {
		t[i] = T + (size_t)i * C;
		racks[i] = i;
		cnt[i] = 0;
	}
	for (int i = R / 2 - 1; i >= 0; i--)
		racks_down(k, i);
}

/* Run a task of duration d on the first container (counted in cnt if
 * `count`); its rack, *start, and *was = when the container was free. */
static int take(struct take *k, double d, bool count, double *start, double *was)
{
	int r = k->racks[0], i = 0;
	if (k->copy && k->t[r] != k->copy + (size_t)r * k->C)
		k->t[r] = memcpy(k->copy + (size_t)r * k->C, k->t[r], k->C * sizeof *k->copy);
	double *t = k->t[r], v;
	*was = t[0];
	*start = dmax(t[0], k->floor);
	v = *start + d;
	for (;;) {   /* the rack's heap: its top replaced by v */
		int c = 2 * i + 1;
		if (c >= k->C)
			break;
		if (c + 1 < k->C && t[c + 1] < t[c])
			c++;
		if (!(t[c] < v))
			break;
		t[i] = t[c];
		i = c;
	}
	t[i] = v;
	k->cnt[r] += count;
	racks_down(k, 0);
	return r;
}

static int place_nsh(struct planner *P, int id, int rank)
{
	const struct jp_jobdesc *j = &P->desc[id];
	const struct job *jb = &P->c->w->jobs[id];
	struct jp_plan *p = P->p;
	int R = P->R, C = P->C;
	int cnt[R], racks[R];
	double first[R], *t[R];
	bool touched[R];   /* racks whose times changed: only they need sorting again */
	struct take k;
	memset(touched, 0, sizeof touched);
	double a = j->arrival, cmp_map = a, st, was;
	for (int i = 0; i < R; i++)
		first[i] = INFINITY;
	take_init(&k, P->T, NULL, t, R, C, racks, cnt, false, a);
	int nm = ceil_rho(P->rho, j->nmaps), rm = 0;
	for (int t = 0; t < nm; t++) {
		int r = take(&k, j->t_map, t < j->nmaps, &st, &was);
		touched[r] = true;
		if (t < j->nmaps) {
			p->task_rack[jb->first_task + t] = r;
			rm += cnt[r] == 1;
			first[r] = fmin(first[r], st);
			cmp_map = fmax(cmp_map, st + j->t_map);
		}
	}
	p->start[id] = INFINITY;
	for (int i = 0; i < R; i++)
		if (cnt[i]) {
			p->map_rack[(size_t)id * R + i] = 1;
			p->start[id] = fmin(p->start[id], first[i]);
			if (seq_add(p, i, id, JP_MAP, first[i], rank))
				return -1;
		}
	double comp = cmp_map;
	int nr = ceil_rho(P->rho, j->nreduces), rr = 0;
	if (j->nreduces > 0) {
		/* Tentatively take the reduce containers to know r_red for l_shu. */
		take_init(&k, P->T, P->scratch, t, R, C, racks, cnt, true, cmp_map);
		for (int t = 0; t < j->nreduces; t++)
			rr += cnt[take(&k, j->t_red, true, &st, &was)] == 1;
		double s_red = cmp_map + jp_lrf_shuffle(P->m, j, rm, rr, NULL);
		for (int i = 0; i < R; i++)
			first[i] = INFINITY;
		take_init(&k, P->T, NULL, t, R, C, racks, cnt, true, s_red);
		for (int t = 0; t < nr; t++) {
			int r = take(&k, j->t_red, t < j->nreduces, &st, &was);
			double hold = fmax(was, cmp_map);
			touched[r] = true;
			if (t < j->nreduces) {
				p->task_rack[jb->first_task + jb->nmaps + t] = r;
				first[r] = fmin(first[r], hold);
				comp = fmax(comp, st + j->t_red);
			}
		}
		rr = 0;
		for (int i = 0; i < R; i++)
			if (cnt[i]) {
				rr++;
				p->red_rack[(size_t)id * R + i] = 1;
				if (seq_add(p, i, id, JP_RED, first[i], rank))
					return -1;
			}
	}
	p->rm[id] = rm;
	p->rr[id] = rr;
	p->end[id] = comp;
	for (int i = 0; i < R; i++)
		P->heaped[i] |= touched[i];
	return 0;
}

/* ---- the planning list */

static int by_width_latency(const void *a, const void *b, void *arg)
{
	const struct planner *P = arg;
	int x = *(const int *)a, y = *(const int *)b;
	const struct jp_profile *px = &P->prof[x], *py = &P->prof[y];
	if (px->width != py->width)
		return px->width > py->width ? -1 : 1;
	if (px->latency != py->latency)
		return px->latency > py->latency ? -1 : 1;
	return x - y;
}

static int by_arrival(const void *a, const void *b, void *arg)
{
	const struct planner *P = arg;
	int x = *(const int *)a, y = *(const int *)b;
	double ax = P->desc[x].arrival, ay = P->desc[y].arrival;
	if (ax != ay)
		return ax < ay ? -1 : 1;
	return by_width_latency(a, b, arg);
}

static void planner_free_times(struct planner *P)
{
	free(P->T);
	free(P->scratch);
	free(P->merge);
	free(P->heaped);
}

static int planner_alloc_times(struct planner *P)
{
	P->T = calloc(plan_times(P), sizeof *P->T);
	P->scratch = malloc(plan_times(P) * sizeof *P->T);
	P->merge = malloc(P->C * sizeof *P->merge);
	P->heaped = calloc(P->R ? P->R : 1, sizeof *P->heaped);
	return P->T && P->scratch && P->merge && P->heaped ? 0 : -1;
}

static void planner_free(struct planner *P)
{
	if (P->prof)
		for (int i = 0; i < P->c->w->njobs; i++)
			jp_profile_free(&P->prof[i]);
	free(P->prof);
	free(P->desc);
	planner_free_times(P);
}

static int planner_init(struct planner *P, struct jp_plan *p, const struct cluster *c, const struct jp_model *m,
			const struct jp_conf *k)
{
	const struct workload *w = c->w;
	int n = w->njobs ? w->njobs : 1;
	memset(P, 0, sizeof *P);
	P->c = c;
	P->m = m;
	P->p = p;
	P->R = m->racks;
	P->C = m->containers;
	if (plan_alloc(p, c))
		return -1;
	bool adhoc = false;
	for (int i = 0; i < w->njobs; i++)
		adhoc |= !w->jobs[i].recurring;
	P->rho = p->rho = k->rho >= 0 ? k->rho : adhoc ? 1.0 : 0.0;
	p->batch = k->scenario == JP_SCEN_BATCH || (k->scenario == JP_SCEN_AUTO && all_same_arrival(w));
	P->ports = k->ports;
	int times = planner_alloc_times(P);
	P->desc = calloc(n, sizeof *P->desc);
	P->prof = calloc(n, sizeof *P->prof);
	if (times || !P->desc || !P->prof) {
		planner_free(P);
		jp_plan_free(p);
		return -1;
	}
	for (int i = 0; i < w->njobs; i++) {
		jp_jobdesc_of(&P->desc[i], w, &w->jobs[i]);
		if (w->jobs[i].recurring) {
			p->planned[i] = true;
			p->sh[i] = w->jobs[i].nreduces > 0 && P->desc[i].shuffle >= m->E;
		}
	}
	return 0;
}

/* Back to an empty cluster before the list is placed (again). */
static void plan_reset(struct planner *P)
{
	struct jp_plan *p = P->p;
	int n = p->njobs, R = P->R;
	memset(P->T, 0, plan_times(P) * sizeof *P->T);
	memset(P->heaped, 0, R * sizeof *P->heaped);
	memset(p->nseq, 0, R * sizeof *p->nseq);
	memset(p->map_rack, 0, (size_t)n * R);
	memset(p->red_rack, 0, (size_t)n * R);
	for (int i = 0; i < p->ntasks; i++)
		p->task_rack[i] = -1;
	for (int i = 0; i < n; i++) {
		p->rm[i] = p->rr[i] = 0;
		p->start[i] = p->end[i] = 0;
	}
}

/* Place the planning list's [from, to) in order; *makespan: the latest
 * end so far.  -1: out of memory. */
static int place_range(struct planner *P, int from, int to, double *makespan)
{
	struct jp_plan *p = P->p;
	for (int x = from; x < to; x++) {
		int id = p->order[x];
		if (P->prof[id].sh ? place_sh(P, id, x) : place_nsh(P, id, x))
			return -1;
		*makespan = fmax(*makespan, p->end[id]);
	}
	return 0;
}

/* Place the planning list in order; returns the planned makespan, < 0 on
 * allocation failure. */
static double place_list(struct planner *P)
{
	double makespan = 0;
	plan_reset(P);
	return place_range(P, 0, P->p->norder, &makespan) ? -1 : makespan;
}

/* What placing an order's first sub-batches left, for the orders that
 * begin with the same ones: in order, B! orders place sum_k B!/(B-k)!
 * sub-batches, not B·B! (325 of 600 for 5).  Only what placing reads is
 * kept (the container and port times); the plan it writes is made again
 * for the order that wins. */
struct prefix { double *T; bool *heaped; int *nseq; double makespan; };

static void prefixes_free(struct prefix *v, int B)
{
	for (int b = 0; v && b < B; b++) {
		free(v[b].T);
		free(v[b].heaped);
		free(v[b].nseq);
	}
	free(v);
}

/* Room for the states after B sub-batches; NULL: out of memory. */
static struct prefix *prefixes_new(const struct planner *P, int B)
{
	struct prefix *v = calloc(B, sizeof *v);
	for (int b = 0; v && b < B; b++) {
		v[b].T = malloc(plan_times(P) * sizeof *v[b].T);
		v[b].heaped = malloc(P->R * sizeof *v[b].heaped);
		v[b].nseq = malloc(P->R * sizeof *v[b].nseq);
		if (!v[b].T || !v[b].heaped || !v[b].nseq) {
			prefixes_free(v, B);
			return NULL;
		}
	}
	return v;
}

static void prefix_copy(const struct planner *P, struct prefix *to, const struct prefix *from)
{
	memcpy(to->T, from->T, plan_times(P) * sizeof *to->T);
	memcpy(to->heaped, from->heaped, P->R * sizeof *to->heaped);
	memcpy(to->nseq, from->nseq, P->R * sizeof *to->nseq);
	to->makespan = from->makespan;
}

/* The makespan of the list of order perm (list_of_order), whose first
 * `same` sub-batches are those of the order placed before: placed from
 * there.  size: the sub-batches' sizes.  < 0: out of memory. */
static double place_order(struct planner *P, struct prefix *pre, const int *size, const int *perm, int B, int same)
{
	struct prefix now = {P->T, P->heaped, P->p->nseq, 0};
	int x = 0;
	if (same)
		prefix_copy(P, &now, &pre[same - 1]);
	else
		plan_reset(P);
	for (int b = 0; b < same; b++)
		x += size[perm[b]];
	for (int b = same; b < B; b++) {
		if (place_range(P, x, x + size[perm[b]], &now.makespan))
			return -1;
		x += size[perm[b]];
		if (b < B - 1)
			prefix_copy(P, &pre[b], &now);
	}
	return now.makespan;
}

/* The list for one order of the sub-batches: each sorted by width then
 * latency (§4.2.3.2), concatenated in perm's order. */
static void list_of_order(struct planner *P, const int *jobs, const int *sub, int n, const int *perm, int B)
{
	struct jp_plan *p = P->p;
	int o = 0;
	for (int b = 0; b < B; b++) {
		int from = o;
		for (int x = 0; x < n; x++)
			if (sub[x] == perm[b]) {
				p->order[o++] = jobs[x];
				p->sub[jobs[x]] = perm[b];
			}
		qsort_r(p->order + from, o - from, sizeof *p->order, by_width_latency, P);
	}
}

static bool next_permutation(int *a, int n)
{
	int i = n - 2;
	while (i >= 0 && a[i] >= a[i + 1])
		i--;
	if (i < 0)
		return false;
	int j = n - 1;
	while (a[j] <= a[i])
		j--;
	int t = a[i];
	a[i] = a[j];
	a[j] = t;
	for (int l = i + 1, r = n - 1; l < r; l++, r--) {
		t = a[l];
		a[l] = a[r];
		a[r] = t;
	}
	return true;
}

static void shuffle_ints(int *a, int n, struct rng *rng)
{
	for (int b = n - 1; b > 0; b--) {
		int r = rng_below(rng, b + 1), t = a[b];
		a[b] = a[r];
		a[r] = t;
	}
}

/* The orders' makespans, from..to of a list of orders (B sub-batches
 * each), on a planner of one's own: each order is placed from the prefix
 * it shares with the one before. */
struct order_work {
	struct planner P;
	struct jp_plan plan;     /* what the thread's placing writes (a worker's own) */
	const int *jobs, *sub, *size, *perms;
	int n, B, from, to;
	double *ms;
	int rc;
};

static void *order_work_run(void *arg)
{
	struct order_work *w = arg;
	int B = w->B;
	struct prefix *pre = prefixes_new(&w->P, B);
	w->rc = -1;
	for (int o = w->from; pre && o < w->to; o++) {
		const int *perm = w->perms + (size_t)o * B;
		int same = 0;
		while (o > w->from && same < B - 1 && perm[same] == perm[same - B])
			same++;
		list_of_order(&w->P, w->jobs, w->sub, w->n, perm, B);
		if ((w->ms[o] = place_order(&w->P, pre, w->size, perm, B, same)) < 0)
			goto out;
	}
	w->rc = pre ? 0 : -1;
out:
	prefixes_free(pre, B);
	return NULL;
}

/* A worker's planner, a copy of the run's: its own times and plan, the
 * jobs' descriptions and profiles shared (read only). */
static int worker_init(struct order_work *w)
{
	int norder = w->P.p->norder;
	w->P.p = &w->plan;
	if (plan_alloc(&w->plan, w->P.c))
		return -1;
	w->plan.norder = norder;
	if (planner_alloc_times(&w->P)) {
		planner_free_times(&w->P);
		jp_plan_free(&w->plan);
		return -1;
	}
	return 0;
}

static void worker_free(struct order_work *w)
{
	planner_free_times(&w->P);
	jp_plan_free(&w->plan);
}

/* The makespans of orders 0..norders of perms, split over the threads in
 * runs of consecutive orders (the first on P itself).  -1: out of memory. */
static int makespans(struct planner *P, int nthreads, const struct order_work *proto, int norders)
{
	if (nthreads > norders)
		nthreads = norders;
	struct order_work w[nthreads];
	pthread_t tid[nthreads];
	bool inited[nthreads], started[nthreads];
	int rc = 0;
	for (int t = 0; t < nthreads; t++) {
		w[t] = *proto;
		w[t].from = (int)((long)norders * t / nthreads);
		w[t].to = (int)((long)norders * (t + 1) / nthreads);
		w[t].P = *P;
		inited[t] = t > 0 && !worker_init(&w[t]);
		started[t] = inited[t] && !helper_thread_start(&tid[t], order_work_run, &w[t]);
		if (t > 0 && !inited[t])
			rc = -1;
	}
	for (int t = 0; t < nthreads; t++)
		if (t == 0 || (inited[t] && !started[t]))   /* no thread: here */
			order_work_run(&w[t]);
	for (int t = 0; t < nthreads; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		if (inited[t])
			worker_free(&w[t]);
		if (t == 0 || inited[t])
			rc |= w[t].rc;
	}
	return rc;
}

/* Batch (§4.2.3.2): B sub-batches by Tetris packing, each sorted by width
 * then latency, "combined in a random order".  The order decides
 * which big jobs meet at the start, so with k->orders > 1 the planner
 * places the list for that many orders (every order when B! is at most
 * that) and keeps the one whose plan ends first; the random order wins
 * ties, and k->orders = 1 is the text's single draw.  The orders are
 * placed on k->plan_threads threads (0: one per core), and the best is
 * picked as one thread would, in the orders' sequence.  Leaves the best
 * order placed in P->p. */
#define ORDERS_AT_ONCE 1024
static int plan_batch(struct planner *P, const struct jp_conf *k, struct rng *rng)
{
	struct jp_plan *p = P->p;
	int n = p->norder, B = k->subbatches < n ? k->subbatches : n;
	double (*dem)[3] = malloc(n * sizeof *dem);
	int *jobs = malloc(n * sizeof *jobs), *sub = malloc(n * sizeof *sub), *size = calloc(B, sizeof *size);
	int *perms = malloc((size_t)ORDERS_AT_ONCE * B * sizeof *perms), *best = malloc(B * sizeof *best);
	int *perm = malloc(B * sizeof *perm), *draw = malloc(B * sizeof *draw);
	double *ms = malloc(ORDERS_AT_ONCE * sizeof *ms);
	int rc = -1;
	if (!dem || !jobs || !sub || !size || !perms || !best || !perm || !draw || !ms)
		goto out;
	for (int x = 0; x < n; x++) {
		const struct jp_jobdesc *d = &P->desc[p->order[x]];
		jobs[x] = p->order[x];
		dem[x][0] = d->shuffle;
		dem[x][1] = d->nmaps;
		dem[x][2] = d->nreduces;
	}
	jp_subbatch(n, (const double (*)[3])dem, B, sub);
	for (int x = 0; x < n; x++)
		size[sub[x]]++;
	for (int b = 0; b < B; b++)
		perm[b] = b;
	shuffle_ints(perm, B, rng);
	memcpy(best, perm, B * sizeof *perm);
	memcpy(draw, perm, B * sizeof *perm);
	double fact = 1;
	for (int b = 2; b <= B && fact <= k->orders; b++)
		fact *= b;
	bool every = fact <= k->orders, more = true;
	int nthreads = k->plan_threads > 0 ? k->plan_threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct order_work proto = {.jobs = jobs, .sub = sub, .size = size, .perms = perms, .n = n, .B = B, .ms = ms};
	double best_ms = INFINITY;
	for (int tried = 1; more;) {
		/* The next orders, as many as are kept at once: the random draw,
		 * then every other order from the sorted one, or more draws. */
		int norders = 0;
		for (; more && norders < ORDERS_AT_ONCE; tried++) {
			memcpy(perms + (size_t)norders++ * B, perm, B * sizeof *perm);
			if (every) {
				if (tried == 1)
					for (int b = 0; b < B; b++)
						perm[b] = b;
				else if (!next_permutation(perm, B))
					more = false;
				if (more && !memcmp(perm, draw, B * sizeof *perm) && !next_permutation(perm, B))
					more = false;
			} else if (tried < k->orders) {
				shuffle_ints(perm, B, rng);
			} else {
				more = false;
			}
		}
		if (makespans(P, nthreads > 0 ? nthreads : 1, &proto, norders))
			goto out;
		for (int o = 0; o < norders; o++)
			if (ms[o] < best_ms - 1e-9) {
				best_ms = ms[o];
				memcpy(best, perms + (size_t)o * B, B * sizeof *best);
			}
	}
	list_of_order(P, jobs, sub, n, best, B);
	if (place_list(P) < 0)
		goto out;
	rc = 0;
out:
	free(dem);
	free(jobs);
	free(sub);
	free(size);
	free(perms);
	free(best);
	free(perm);
	free(draw);
	free(ms);
	return rc;
}

int jp_plan_jobpacker(struct jp_plan *p, const struct cluster *c, const struct jp_model *m,
		      const struct jp_conf *k, struct rng *rng)
{
	struct planner P;
	const struct workload *w = c->w;
	if (planner_init(&P, p, c, m, k))
		return -1;
	int n = 0;
	for (int i = 0; i < w->njobs; i++)
		if (p->planned[i]) {
			if (jp_profile(m, &P.desc[i], &P.prof[i]))
				goto fail;
			p->sh[i] = P.prof[i].sh;   /* D_s ≥ E with an OCS pair (D_s = E has none) */
			p->order[n++] = i;
		}
	p->norder = n;
	if (p->batch && n > 0) {
		if (plan_batch(&P, k, rng))
			goto fail;
	} else {
		/* Online: by predicted arrival; simultaneous ones by the sub-batch sort. */
		qsort_r(p->order, n, sizeof *p->order, by_arrival, &P);
		if (place_list(&P) < 0)
			goto fail;
	}
	seq_sort(p, k->seq_by_time ? by_entry : by_rank);
	planner_free(&P);
	return 0;
fail:
	planner_free(&P);
	jp_plan_free(p);
	return -1;
}

/* -------------------------------------------------------------- Corral */

double jp_corral_lrf(const struct jp_model *m, const struct jp_jobdesc *j, int r)
{
	double shu = j->nreduces > 0 ? j->shuffle * (r - 1) / ((double)r * r * m->bw_eps) : 0;
	return j->t_map * jp_waves(j->nmaps, r, m->containers) + shu +
	       j->t_red * jp_waves(j->nreduces, r, m->containers);
}

struct corral {
	struct planner *P;
	int n, *jobs, *r, *order;
	double *lat;
	bool online;
};

static int corral_cmp(const void *a, const void *b, void *arg)
{
	int x = *(const int *)a, y = *(const int *)b;   /* indices into K->jobs */
	const struct corral *K = arg;
	if (K->online) {
		double ax = K->P->desc[K->jobs[x]].arrival, ay = K->P->desc[K->jobs[y]].arrival;
		if (ax != ay)
			return ax < ay ? -1 : 1;
	}
	if (K->r[x] != K->r[y])   /* widest first */
		return K->r[y] - K->r[x];
	if (K->lat[x] != K->lat[y])   /* longest latency first */
		return K->lat[x] > K->lat[y] ? -1 : 1;
	return K->jobs[x] - K->jobs[y];
}

/* Prioritise and place every job on the r_j racks free first; the objective
 * (batch: makespan, online: mean completion).  With `p`, record the plan. */
static double corral_simulate(struct corral *K, struct jp_plan *p)
{
	int R = K->P->R;
	double F[R], obj = 0;
	struct rack_key key[R];
	for (int i = 0; i < R; i++)
		F[i] = 0;
	for (int x = 0; x < K->n; x++) {
		K->order[x] = x;
		K->lat[x] = jp_corral_lrf(K->P->m, &K->P->desc[K->jobs[x]], K->r[x]);
	}
	qsort_r(K->order, K->n, sizeof *K->order, corral_cmp, K);
	for (int o = 0; o < K->n; o++) {
		int x = K->order[o], id = K->jobs[x];
		for (int i = 0; i < R; i++)
			key[i] = (struct rack_key){F[i], i};
		qsort(key, R, sizeof *key, by_rack_key);
		double a = K->P->desc[id].arrival, start = a;
		for (int q = 0; q < K->r[x]; q++)
			start = fmax(start, key[q].t);
		double end = start + K->lat[x];
		for (int q = 0; q < K->r[x]; q++)
			F[key[q].rack] = end;
		obj = K->online ? obj + (end - a) / K->n : fmax(obj, end);
		if (p) {
			p->order[o] = id;
			p->rm[id] = p->rr[id] = K->r[x];
			p->start[id] = start;
			p->end[id] = end;
			for (int q = 0; q < K->r[x]; q++) {
				p->map_rack[(size_t)id * R + key[q].rack] = 1;
				p->red_rack[(size_t)id * R + key[q].rack] = 1;
				if (seq_add(p, key[q].rack, id, JP_BOTH, start, o))
					return -1;
			}
		}
	}
	return obj;
}

int jp_plan_corral(struct jp_plan *p, const struct cluster *c, const struct jp_model *m, const struct jp_conf *k)
{
	struct planner P;
	struct corral K = {.P = &P};
	const struct workload *w = c->w;
	struct jp_conf k0 = *k;
	k0.rho = 0;   /* Corral has no over-provisioning */
	if (planner_init(&P, p, c, m, &k0))
		return -1;
	int n = w->njobs ? w->njobs : 1;
	K.jobs = malloc(n * sizeof *K.jobs);
	K.r = malloc(n * sizeof *K.r);
	K.order = malloc(n * sizeof *K.order);
	K.lat = malloc(n * sizeof *K.lat);
	int *best = malloc(n * sizeof *best);
	if (!K.jobs || !K.r || !K.order || !K.lat || !best)
		goto fail;
	for (int i = 0; i < w->njobs; i++)
		if (p->planned[i]) {
			K.jobs[K.n] = i;
			K.r[K.n++] = 1;
		}
	K.online = !p->batch;
	/* Provisioning (Corral's heuristic): start every job on one rack;
	 * repeatedly give one more rack to the longest job, keep the best
	 * allocation.  A job that no wider allocation would make faster is not
	 * grown (it would only waste racks; L(r) is not monotone: the shuffle
	 * term is 0 at r = 1), which also bounds the loop. */
	int R = P.R;
	double *faster = malloc((size_t)K.n * (R + 2) * sizeof *faster);   /* min L over r' > r */
	if (!faster)
		goto fail;
	for (int x = 0; x < K.n; x++) {
		double *f = faster + (size_t)x * (R + 2);
		f[R] = f[R + 1] = INFINITY;
		for (int r = R - 1; r >= 1; r--)
			f[r] = fmin(f[r + 1], jp_corral_lrf(m, &P.desc[K.jobs[x]], r + 1));
	}
	double best_obj = corral_simulate(&K, NULL);
	memcpy(best, K.r, K.n * sizeof *best);
	for (int iter = 0; iter < K.n * R; iter++) {
		int g = -1;
		double gl = -1;
		for (int x = 0; x < K.n; x++) {
			double L = jp_corral_lrf(m, &P.desc[K.jobs[x]], K.r[x]);
			if (K.r[x] >= R || faster[(size_t)x * (R + 2) + K.r[x]] >= L - 1e-12)
				continue;
			if (L > gl) {
				gl = L;
				g = x;
			}
		}
		if (g < 0)
			break;
		K.r[g]++;
		double obj = corral_simulate(&K, NULL);
		if (obj < best_obj - 1e-9) {
			best_obj = obj;
			memcpy(best, K.r, K.n * sizeof *best);
		}
	}
	free(faster);
	memcpy(K.r, best, K.n * sizeof *best);
	if (corral_simulate(&K, p) < 0)
		goto fail;
	p->norder = K.n;
	/* Input blocks: round-robin over the job's racks (replica 1; ours). */
	for (int x = 0; x < K.n; x++) {
		const struct job *jb = &w->jobs[K.jobs[x]];
		int q = 0;
		for (int t = 0; t < jb->nmaps + jb->nreduces; t++) {
			while (!p->map_rack[(size_t)jb->id * P.R + q % P.R])
				q++;
			p->task_rack[jb->first_task + t] = q++ % P.R;
		}
	}
	seq_sort(p, by_entry);
	free(K.jobs);
	free(K.r);
	free(K.order);
	free(K.lat);
	free(best);
	planner_free(&P);
	return 0;
fail:
	free(K.jobs);
	free(K.r);
	free(K.order);
	free(K.lat);
	free(best);
	planner_free(&P);
	jp_plan_free(p);
	return -1;
}

/* ----------------------------------------------------------- plan log */

void jp_plan_dump(const struct jp_plan *p, const struct cluster *c, const char *who, const char *path)
{
	if (!path || !*path)
		return;
	FILE *f = !strcmp(path, "-") ? stderr : fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "# %s plan: %s, rho %.2f, %d planned jobs\n", who, p->batch ? "batch" : "online", p->rho, p->norder);
	fprintf(f, "# list: pos job sub sh rm rr start end maps reduces  map-racks / reduce-racks\n");
	for (int x = 0; x < p->norder; x++) {
		int id = p->order[x];
		const struct job *j = &c->w->jobs[id];
		fprintf(f, "%3d job%-4d %2d %d %2d %2d %8.2f %8.2f %5d %4d  ", x, id, p->sub[id], p->sh[id], p->rm[id], p->rr[id],
			p->start[id], p->end[id], j->nmaps, j->nreduces);
		for (int i = 0; i < p->racks; i++)
			fputc(p->map_rack[(size_t)id * p->racks + i] ? '0' + i % 10 : '.', f);
		fputs(" / ", f);
		for (int i = 0; i < p->racks; i++)
			fputc(p->red_rack[(size_t)id * p->racks + i] ? '0' + i % 10 : '.', f);
		fputc('\n', f);
	}
	for (int i = 0; i < p->racks; i++) {
		fprintf(f, "seq %d:", i);
		for (int e = 0; e < p->nseq[i]; e++)
			fprintf(f, " %s%d@%.1f", p->seq[i][e].stage == JP_MAP ? "m" : p->seq[i][e].stage == JP_RED ? "r" : "mr",
				p->seq[i][e].job, p->seq[i][e].t);
		fputc('\n', f);
	}
	if (f != stderr)
		fclose(f);
}
