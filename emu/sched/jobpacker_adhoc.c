/* jobpacker_adhoc.c — the trial §4.2.5 made and dropped (Fig. 4.18):
 * ad-hoc jobs' input, maps and reduces on a few racks, so that their
 * shuffles, too, gather into rack pairs big enough for circuits.
 *
 * Off by default (option adhoc_agg=on turns it on): the dissertation
 * found that it makes recurring and ad-hoc jobs slower alike, since without
 * the shuffle size nothing says how many racks an ad-hoc job should get.
 * It is here so that Fig. 4.18 can be run.  The recipe, in the text's
 * order:
 *  - a width per task: the mean, over the recurring jobs, of best
 *    map-width ÷ maps (and reduce-width ÷ reduces);
 *  - an ad-hoc job's W_map = ⌈maps × that⌉ (1..R), W_reduce likewise;
 *  - its blocks' first replicas on W_map random racks, the second and
 *    third on W_map other random racks;
 *  - its maps only on the W_map racks "available the earliest" that hold
 *    its data, its reduces only on the W_reduce racks available the
 *    earliest.
 * What the text leaves open, and what we chose:
 *  - "best map-width" exists for shuffle-heavy jobs only (the profiler's
 *    pairs); the ratios are over the planned shuffle-heavy jobs, and 1
 *    (one rack per task: no aggregation) when there are none;
 *  - "available the earliest" is decided when the job's first map (first
 *    reduce) may start: the racks with the most free containers then,
 *    ties in random order;
 *  - the first replicas go round-robin over the W_map racks (as the
 *    planned jobs' blocks over their racks), the second and third of a
 *    block on two servers of one rack of the other set (HDFS's rule);
 *  - a set whose racks have all failed no longer restricts the job. */
#include "emu/sched/jobpacker.h"
#include <math.h>
#include <stdlib.h>

enum { AH_DATA1 = 1, AH_DATA23 = 2, AH_MAPS = 4, AH_REDS = 8 };

struct jp_adhoc {
	double map_ratio, red_ratio;   /* best width ÷ tasks, mean over the planned shuffle-heavy jobs */
	uint8_t *racks;                /* njobs × racks: AH_* */
	uint8_t *chosen;               /* per job: the AH_* sets chosen so far */
};

int jp_adhoc_width(double ratio, int tasks, int racks)
{
	if (tasks <= 0)
		return 0;
	int w = (int)ceil(tasks * ratio - 1e-9);
	return w < 1 ? 1 : w > racks ? racks : w;
}

int jp_adhoc_init(struct jp_rt *rt, const struct cluster *c)
{
	const struct jp_plan *p = &rt->plan;
	int n = c->w->njobs ? c->w->njobs : 1;
	struct jp_adhoc *a = calloc(1, sizeof *a);
	if (!a)
		return -1;
	a->racks = calloc((size_t)n * c->racks, 1);
	a->chosen = calloc(n, 1);
	if (!a->racks || !a->chosen) {
		free(a->racks);
		free(a->chosen);
		free(a);
		return -1;
	}
	double sm = 0, sr = 0;
	int nm = 0, nr = 0;
	for (int i = 0; i < c->w->njobs; i++) {
		const struct job *j = &c->w->jobs[i];
		if (!p->planned[i] || !p->sh[i])
			continue;
		if (j->nmaps > 0 && p->rm[i] > 0) {
			sm += (double)p->rm[i] / j->nmaps;
			nm++;
		}
		if (j->nreduces > 0 && p->rr[i] > 0) {
			sr += (double)p->rr[i] / j->nreduces;
			nr++;
		}
	}
	a->map_ratio = nm ? sm / nm : 1;
	a->red_ratio = nr ? sr / nr : 1;
	rt->adhoc = a;
	return 0;
}

void jp_adhoc_free(struct jp_rt *rt)
{
	if (!rt->adhoc)
		return;
	free(rt->adhoc->racks);
	free(rt->adhoc->chosen);
	free(rt->adhoc);
	rt->adhoc = NULL;
}

static bool applies(const struct jp_rt *rt, const struct job *j)
{
	return rt->adhoc && !rt->plan.planned[j->id];
}

/* Mark `want` random racks of those without an `avoid` bit with `bit`. */
static void pick_random(struct sched *s, uint8_t *racks, int R, int avoid, int want, int bit)
{
	int ids[R], n = 0;
	for (int i = 0; i < R; i++)
		if (!(racks[i] & avoid))
			ids[n++] = i;
	for (int k = 0; k < want && k < n; k++) {   /* partial Fisher–Yates */
		int x = k + rng_below(&s->rng, n - k), t = ids[k];
		ids[k] = ids[x];
		ids[x] = t;
		racks[ids[k]] |= bit;
	}
}

/* The k-th (mod their number) rack with `bit`, at random if k < 0; -1 = none. */
static int rack_with(struct sched *s, const uint8_t *racks, int R, int bit, int k)
{
	int n = 0;
	for (int i = 0; i < R; i++)
		n += (racks[i] & bit) != 0;
	if (!n)
		return -1;
	k = k < 0 ? rng_below(&s->rng, n) : k % n;
	for (int i = 0; i < R; i++)
		if ((racks[i] & bit) && !k--)
			return i;
	return -1;
}

bool jp_adhoc_input_racks(struct sched *s, struct jp_rt *rt, const struct job *j, const struct task *map, int *first,
			  int *other)
{
	if (!applies(rt, j))
		return false;
	int R = s->c->racks;
	uint8_t *racks = rt->adhoc->racks + (size_t)j->id * R;
	if (!(rt->adhoc->chosen[j->id] & AH_DATA1)) {
		int w = jp_adhoc_width(rt->adhoc->map_ratio, j->nmaps, R);
		pick_random(s, racks, R, 0, w, AH_DATA1);
		pick_random(s, racks, R, AH_DATA1, w, AH_DATA23);
		rt->adhoc->chosen[j->id] |= AH_DATA1 | AH_DATA23;
	}
	*first = rack_with(s, racks, R, AH_DATA1, map->index);
	*other = rack_with(s, racks, R, AH_DATA23, -1);   /* -1 (all racks hold first replicas): any other */
	return true;
}

struct rack_room { int free, tie, rack; };

static int by_room(const void *a, const void *b)
{
	const struct rack_room *x = a, *y = b;
	if (x->free != y->free)
		return y->free - x->free;
	return x->tie - y->tie;
}

/* The `want` racks (of those marked `from`, or all) with the most free containers now. */
static void choose(struct sched *s, uint8_t *racks, int from, int want, int bit)
{
	const struct cluster *c = s->c;
	int R = c->racks, n = 0;
	bool any = false;
	for (int i = 0; i < R && from; i++)
		any |= (racks[i] & from) != 0;
	struct rack_room room[R];
	for (int i = 0; i < R; i++) {
		if (any && !(racks[i] & from))
			continue;
		room[n++] = (struct rack_room){cluster_rack_free(c, i), rng_below(&s->rng, 1 << 20), i};
	}
	qsort(room, n, sizeof *room, by_room);
	for (int k = 0; k < want && k < n; k++)
		racks[room[k].rack] |= bit;
}

bool jp_adhoc_allows(struct sched *s, struct jp_rt *rt, const struct job *j, enum jp_stage stage, int rack)
{
	const struct cluster *c = s->c;
	if (!applies(rt, j) || (stage == JP_MAP && !cluster_pending_maps(c, j)))
		return true;   /* (no map to place: choose the racks when there is one) */
	int R = c->racks, bit = stage == JP_MAP ? AH_MAPS : AH_REDS;
	uint8_t *racks = rt->adhoc->racks + (size_t)j->id * R;
	if (!(rt->adhoc->chosen[j->id] & bit)) {
		if (stage == JP_MAP)
			choose(s, racks, AH_DATA1 | AH_DATA23, jp_adhoc_width(rt->adhoc->map_ratio, j->nmaps, R), bit);
		else
			choose(s, racks, 0, jp_adhoc_width(rt->adhoc->red_ratio, j->nreduces, R), bit);
		rt->adhoc->chosen[j->id] |= bit;
	}
	if (racks[rack] & bit)
		return true;
	for (int i = 0; i < R; i++)
		if ((racks[i] & bit) && !rt->rack_dead[i])
			return false;
	return true;   /* every rack of the set failed */
}
