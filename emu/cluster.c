/* cluster.c — see cluster.h. */
#include "emu/cluster.h"
#include "emu/compute_model.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A slot, as a vector: a core of a server whose cores count its slots. */
static const struct res slot = {{1000, 0, 0}};

/* `containers` and `free`: reference tasks that fit in the capacity, and now. */
static void count_free(struct server *s)
{
	struct res ref = s->slots ? slot : res_reference();
	s->free = res_count(&s->avail, &ref);
}

static void give_slots(struct server *s, int containers)
{
	s->slots = true;
	s->cap = (struct res){{(int64_t)containers * slot.v[RES_CORES], RES_UNLIMITED, RES_UNLIMITED}};
	s->avail = s->cap;
	s->containers = containers;
	count_free(s);
}

/* A class with resources: a resource not given is not limited. */
static struct res class_capacity(const struct topo_class *k)
{
	struct res cap = res_of(k->cores, 0, k->disk_mbps);
	cap.v[RES_MEM] = k->memory ? (int64_t)k->memory : RES_UNLIMITED;
	if (!k->disk_mbps)
		cap.v[RES_DISK] = RES_UNLIMITED;
	return cap;
}

static void give_resources(struct server *s, const struct topo_class *k)
{
	s->slots = false;
	s->cap = class_capacity(k);
	s->avail = s->cap;
	struct res ref = res_reference();
	s->containers = res_count(&s->cap, &ref);
	count_free(s);
}

/* Everything but the servers' own fields: racks of rack_size[r] servers. */
static int cluster_alloc(struct cluster *c, int racks, const int *rack_size, struct workload *w, double slowstart)
{
	memset(c, 0, sizeof *c);
	c->racks = racks;
	for (int r = 0; r < racks; r++)
		c->nservers += rack_size[r];
	c->servers = calloc(c->nservers ? c->nservers : 1, sizeof *c->servers);
	c->rack_first = calloc(racks ? racks : 1, sizeof *c->rack_first);
	c->rack_size = calloc(racks ? racks : 1, sizeof *c->rack_size);
	c->arrived = calloc(w->njobs ? w->njobs : 1, sizeof *c->arrived);
	c->rack_util_out = calloc(racks ? racks : 1, sizeof(double));
	c->rack_util_in = calloc(racks ? racks : 1, sizeof(double));
	c->job_xrack_bytes = calloc(w->njobs ? w->njobs : 1, sizeof(uint64_t));
	c->map_idx = calloc(w->njobs ? w->njobs : 1, sizeof *c->map_idx);
	c->active = calloc(w->njobs ? w->njobs : 1, sizeof *c->active);
	c->running_bits = calloc((size_t)w->ntasks / 64 + 1, sizeof *c->running_bits);
	if (!c->active || !c->running_bits || !c->servers || !c->rack_first || !c->rack_size || !c->arrived ||
	    !c->rack_util_out || !c->rack_util_in || !c->job_xrack_bytes || !c->map_idx) {
		cluster_free(c);
		return -1;
	}
	for (int r = 0, id = 0; r < racks; r++) {
		c->rack_first[r] = id;
		c->rack_size[r] = rack_size[r];
		for (int k = 0; k < rack_size[r]; k++, id++)
			c->servers[id] = (struct server){.id = id, .rack = r, .index = k, .alive = true, .speed = 1};
	}
	for (int i = 0; i < w->njobs; i++)
		w->jobs[i].t_start = w->jobs[i].t_end = -1;
	c->w = w;
	c->slowstart = slowstart;
	return 0;
}

int cluster_init(struct cluster *c, int racks, int per_rack, int containers, struct workload *w,
		 double slowstart)
{
	int *size = calloc(racks ? racks : 1, sizeof *size);
	if (!size)
		return -1;
	for (int r = 0; r < racks; r++)
		size[r] = per_rack;
	int rc = cluster_alloc(c, racks, size, w, slowstart);
	free(size);
	for (int i = 0; !rc && i < c->nservers; i++) {
		give_slots(&c->servers[i], containers);
		c->containers += containers;
	}
	return rc;
}

int cluster_init_topo(struct cluster *c, const struct topo *t, struct workload *w, double slowstart)
{
	int size[TOPO_MAX_RACKS];
	for (int r = 0; r < t->racks; r++)
		size[r] = topo_rack_size(t, r);
	if (cluster_alloc(c, t->racks, size, w, slowstart))
		return -1;
	for (int i = 0; i < c->nservers; i++) {
		struct server *s = &c->servers[i];
		const struct topo_class *k = topo_server_class(t, s->rack, s->index);
		s->cls = topo_class_at(t, s->rack, s->index);
		s->speed = k->speed;
		s->model = k->model;
		if (k->containers)
			give_slots(s, k->containers);
		else
			give_resources(s, k);
		c->containers += s->containers;
	}
	return 0;
}

static void index_free(struct cluster *c, int job);

int cluster_copy(struct cluster *c, int src, int dst, uint64_t bytes)
{
	if (c->ncopies == c->capcopies) {
		int cap = c->capcopies ? 2 * c->capcopies : 16;
		struct cluster_copy *p = realloc(c->copies, (size_t)cap * sizeof *p);
		if (!p)
			return -1;
		c->copies = p;
		c->capcopies = cap;
	}
	c->copies[c->ncopies] = (struct cluster_copy){.src = src, .dst = dst, .bytes = bytes};
	return c->ncopies++;
}

bool cluster_copy_done(const struct cluster *c, int id) { return id >= 0 && id < c->ncopies && c->copies[id].done; }

void cluster_free(struct cluster *c)
{
	free(c->copies);
	for (int i = 0; c->map_idx && c->w && i < c->w->njobs; i++)
		index_free(c, i);
	free(c->map_idx);
	free(c->active);
	free(c->running_bits);
	free(c->servers);
	free(c->rack_first);
	free(c->rack_size);
	free(c->arrived);
	free(c->rack_util_out);
	free(c->rack_util_in);
	free(c->job_xrack_bytes);
	memset(c, 0, sizeof *c);
}

/* The active list stays in id order, so policies see jobs in the order a
 * scan of all jobs would (ties break the same way). */
static void active_add(struct cluster *c, int id)
{
	int i = c->running_jobs++;
	while (i > 0 && c->active[i - 1] > id) {
		c->active[i] = c->active[i - 1];
		i--;
	}
	c->active[i] = id;
}

static void active_remove(struct cluster *c, int id)
{
	int i = 0;
	while (i < c->running_jobs && c->active[i] != id)
		i++;
	if (i == c->running_jobs)
		return;
	memmove(&c->active[i], &c->active[i + 1], (c->running_jobs - i - 1) * sizeof *c->active);
	c->running_jobs--;
}

void cluster_job_arrive(struct cluster *c, struct job *j)
{
	if (c->arrived[j->id])
		return;
	c->arrived[j->id] = true;
	if (!cluster_job_finished(j))
		active_add(c, j->id);
	else
		j->t_start = j->t_end = c->now;   /* an empty job finishes on arrival */
}

bool cluster_job_ready(const struct cluster *c, const struct job *j)
{
	if (c->arrived[j->id] || c->now < j->submit_s)
		return false;
	for (int d = 0; d < j->ndeps; d++)
		if (!cluster_job_finished(&c->w->jobs[j->deps[d]]))
			return false;
	return true;
}

bool cluster_job_finished(const struct job *j)
{
	return j->maps_done == j->nmaps && j->reduces_done == j->nreduces;
}

bool cluster_job_active(const struct cluster *c, const struct job *j)
{
	return c->arrived[j->id] && !cluster_job_finished(j);
}

bool cluster_reduces_allowed(const struct cluster *c, const struct job *j)
{
	return j->maps_done >= c->slowstart * j->nmaps - 1e-9;
}

int cluster_pending_maps(const struct cluster *c, const struct job *j)
{
	return cluster_job_active(c, j) ? j->nmaps - j->maps_done - j->maps_running - j->stages[0].suspended : 0;
}

/* Stage st may start its tasks: every parent read over a shuffle or a
 * broadcast has done its slowstart share (MapReduce's rule, per edge);
 * one-to-one and listed tasks are checked per task (cluster_task_runnable). */
static bool stage_allowed(const struct cluster *c, const struct job *j, int st)
{
	const struct stage *s = &j->stages[st];
	for (int p = 0; p < s->nparents; p++) {
		const struct stage *ps = &j->stages[s->parent[p].stage];
		if ((s->parent[p].kind == EDGE_SHUFFLE || s->parent[p].kind == EDGE_BROADCAST) &&
		    ps->done < c->slowstart * ps->ntasks - 1e-9)
			return false;
	}
	return true;
}

/* Its own parent tasks are done: a one-to-one edge's, and those it lists. */
static bool task_parents_done(const struct cluster *c, const struct job *j, const struct task *t)
{
	const struct stage *s = &j->stages[t->stage];
	for (int p = 0; p < s->nparents; p++)
		if (s->parent[p].kind == EDGE_ONE_TO_ONE &&
		    stage_task(c->w->tasks, j, s->parent[p].stage, t->sindex)->state != TASK_DONE)
			return false;
	for (int d = 0; d < t->ntdeps; d++)
		if (c->w->tasks[j->first_task + c->w->tdeps[t->tdep_first + d].task].state != TASK_DONE)
			return false;
	return true;
}

bool cluster_sizes_known(const struct cluster *c, const struct task *t)
{
	const struct job *j = &c->w->jobs[t->job];
	if (!c->semi_clairvoyant || t->state != TASK_PENDING)
		return true;
	if (!cluster_job_active(c, j))
		return false;
	const struct stage *s = &j->stages[t->stage];
	for (int p = 0; p < s->nparents; p++)
		if (j->stages[s->parent[p].stage].done < j->stages[s->parent[p].stage].ntasks)
			return false;
	return true;
}

bool cluster_task_runnable(const struct cluster *c, const struct task *t)
{
	const struct job *j = &c->w->jobs[t->job];
	return t->state == TASK_PENDING && cluster_job_active(c, j) &&
	       (t->kind == TASK_MAP || (stage_allowed(c, j, t->stage) && task_parents_done(c, j, t)));
}

bool cluster_stage_allowed(const struct cluster *c, const struct job *j, int st)
{
	return stage_allowed(c, j, st);
}

bool cluster_task_deps_done(const struct cluster *c, const struct task *t)
{
	const struct job *j = &c->w->jobs[t->job];
	return t->kind == TASK_MAP || (stage_allowed(c, j, t->stage) && task_parents_done(c, j, t));
}

bool cluster_task_startable(const struct cluster *c, const struct task *t)
{
	if (!c->ignore_deps || c->deps_barred)
		return cluster_task_runnable(c, t);
	return t->state == TASK_PENDING && cluster_job_active(c, &c->w->jobs[t->job]);
}

/* Its tasks wait on their own parent tasks (one-to-one, listed). */
static bool per_task_parents(const struct stage *s)
{
	for (int p = 0; p < s->nparents; p++)
		if (s->parent[p].kind == EDGE_ONE_TO_ONE || s->parent[p].kind == EDGE_TASKS)
			return true;
	return false;
}

int cluster_pending_reduces(const struct cluster *c, const struct job *j)
{
	if (!cluster_job_active(c, j))
		return 0;
	int n = 0;
	for (int st = 1; st < j->nstages; st++) {
		const struct stage *s = &j->stages[st];
		if (!stage_allowed(c, j, st))
			continue;
		if (!per_task_parents(s)) {
			n += s->ntasks - s->done - s->running - s->suspended;
			continue;
		}
		for (int i = 0; i < s->ntasks; i++) {
			const struct task *t = stage_task(c->w->tasks, j, st, i);
			n += t->state == TASK_PENDING && task_parents_done(c, j, t);
		}
	}
	return n;
}

enum locality cluster_locality(const struct cluster *c, const struct task *t, int server)
{
	enum locality best = LOCAL_NONE;
	for (int i = 0; i < 3; i++) {
		int r = t->replicas[i];
		if (r < 0 || !c->servers[r].alive)
			continue;
		if (r == server)
			return LOCAL_NODE;
		if (c->servers[r].rack == c->servers[server].rack)
			best = LOCAL_RACK;
	}
	return best;
}

/* A job's maps by the servers and racks holding their blocks (CSR, in map
 * order), with cursors past entries that are no longer pending.  A map
 * re-queued to pending (cluster_requeue_task) moves the cursors of its
 * lists back to it (index_requeued). */
struct map_index {
	int *srv_start, *srv_maps, *srv_cur;     /* nservers + 1, entries, nservers */
	int *rack_start, *rack_maps, *rack_cur;  /* racks + 1, entries, racks */
	int any_cur;
};

static void index_free(struct cluster *c, int job)
{
	struct map_index *x = c->map_idx[job];
	if (!x)
		return;
	free(x->srv_start);
	free(x->srv_maps);
	free(x->srv_cur);
	free(x->rack_start);
	free(x->rack_maps);
	free(x->rack_cur);
	free(x);
	c->map_idx[job] = NULL;
}

/* Counting sort of (holder, map) pairs into start/maps. */
static int csr(const struct cluster *c, const struct job *j, int n, bool racks, int **start, int **maps)
{
	*start = calloc(n + 1, sizeof **start);
	*maps = malloc((3 * (size_t)j->nmaps + 1) * sizeof **maps);
	if (!*start || !*maps)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < j->nmaps; i++) {
			const struct task *t = job_map(c->w->tasks, j, i);
			for (int k = 0; k < 3; k++) {
				int s = t->replicas[k];
				if (s < 0 || s >= c->nservers)
					continue;
				int key = racks ? c->servers[s].rack : s;
				bool dup = false;   /* two replicas in one rack: list the map once */
				for (int q = 0; q < k && racks; q++)
					dup |= t->replicas[q] >= 0 && t->replicas[q] < c->nservers &&
					       c->servers[t->replicas[q]].rack == key;
				if (dup)
					continue;
				if (pass == 0)
					(*start)[key + 1]++;
				else
					(*maps)[(*start)[key]++] = i;
			}
		}
		if (pass == 0)
			for (int k = 0; k < n; k++)
				(*start)[k + 1] += (*start)[k];
		else   /* the fill moved every start one bucket on: shift back */
			for (int k = n; k > 0; k--)
				(*start)[k] = (*start)[k - 1];
		if (pass == 1)
			(*start)[0] = 0;
	}
	return 0;
}

static struct map_index *index_of(struct cluster *c, const struct job *j)
{
	struct map_index *x = c->map_idx[j->id];
	if (x)
		return x;
	if (!(x = calloc(1, sizeof *x)))
		return NULL;
	c->map_idx[j->id] = x;
	if (csr(c, j, c->nservers, false, &x->srv_start, &x->srv_maps) ||
	    csr(c, j, c->racks, true, &x->rack_start, &x->rack_maps) ||
	    !(x->srv_cur = malloc(c->nservers * sizeof *x->srv_cur)) ||
	    !(x->rack_cur = malloc(c->racks * sizeof *x->rack_cur))) {
		index_free(c, j->id);
		return NULL;
	}
	memcpy(x->srv_cur, x->srv_start, c->nservers * sizeof *x->srv_cur);
	memcpy(x->rack_cur, x->rack_start, c->racks * sizeof *x->rack_cur);
	return x;
}

/* A list's cursor back to map m's entry, if m is before it (a list is in
 * map order, and what comes before the cursor is not pending). */
static void cursor_back(const int *maps, int start, int *cur, int m)
{
	int lo = start, hi = *cur;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (maps[mid] < m)
			lo = mid + 1;
		else
			hi = mid;
	}
	*cur = lo;
}

/* Map t is pending again: the cursors of the lists holding it go back to
 * it (rewinding them to the start made every offer walk the job's maps
 * again after each kill). */
static void index_requeued(struct cluster *c, const struct job *j, const struct task *t)
{
	struct map_index *x = c->map_idx[j->id];
	for (int k = 0; k < 3; k++) {
		int s = t->replicas[k];
		if (s < 0 || s >= c->nservers)
			continue;
		int rack = c->servers[s].rack;
		cursor_back(x->srv_maps, x->srv_start[s], &x->srv_cur[s], t->index);
		cursor_back(x->rack_maps, x->rack_start[rack], &x->rack_cur[rack], t->index);
	}
	if (t->index < x->any_cur)
		x->any_cur = t->index;
}

/* The first pending map in maps[*cur .. end) whose locality on `server`
 * is `want`; the cursor moves past maps that are not pending any more. */
static struct task *first_pending(struct cluster *c, const struct job *j, const int *maps, int *cur, int end,
				  int server, enum locality want)
{
	for (int i = *cur; i < end; i++) {
		struct task *t = job_map(c->w->tasks, j, maps[i]);
		if (t->state != TASK_PENDING) {
			if (i == *cur)
				(*cur)++;
			continue;
		}
		if (cluster_locality(c, t, server) == want)   /* a dead replica no longer counts */
			return t;
	}
	return NULL;
}

struct task *cluster_best_map(const struct cluster *cc, const struct job *j, int server, enum locality *loc)
{
	struct cluster *c = (struct cluster *)cc;   /* the index is a cache */
	if (loc)
		*loc = LOCAL_NONE;
	if (!cluster_job_active(c, j) || j->maps_done + j->maps_running >= j->nmaps)
		return NULL;
	struct map_index *x = index_of(c, j);
	if (!x)
		return NULL;
	int rack = c->servers[server].rack;
	struct task *t = first_pending(c, j, x->srv_maps, &x->srv_cur[server], x->srv_start[server + 1], server,
				       LOCAL_NODE);
	enum locality l = LOCAL_NODE;
	if (!t) {
		t = first_pending(c, j, x->rack_maps, &x->rack_cur[rack], x->rack_start[rack + 1], server, LOCAL_RACK);
		l = LOCAL_RACK;
	}
	if (!t) {
		for (; x->any_cur < j->nmaps; x->any_cur++)
			if (job_map(c->w->tasks, j, x->any_cur)->state == TASK_PENDING)
				break;
		/* The first pending map in order: what the scan before the index
		 * returned when nothing was local (its locality may still be
		 * node or rack through a replica the lists above skipped). */
		t = x->any_cur < j->nmaps ? job_map(c->w->tasks, j, x->any_cur) : NULL;
		l = t ? cluster_locality(c, t, server) : LOCAL_NONE;
	}
	if (loc)
		*loc = l;
	return t;
}

/* Its one-to-one parent's output is on `server`. */
static bool parent_output_on(const struct cluster *c, const struct job *j, const struct task *t, int server)
{
	const struct stage *s = &j->stages[t->stage];
	for (int p = 0; p < s->nparents; p++)
		if (s->parent[p].kind == EDGE_ONE_TO_ONE &&
		    stage_task(c->w->tasks, j, s->parent[p].stage, t->sindex)->server == server)
			return true;
	return false;
}

struct task *cluster_next_reduce_on(const struct cluster *c, const struct job *j, int server)
{
	if (!cluster_job_active(c, j))
		return NULL;
	for (int st = 1; st < j->nstages; st++) {
		if (!stage_allowed(c, j, st))
			continue;
		bool local = server >= 0 && per_task_parents(&j->stages[st]);
		struct task *first = NULL;
		for (int i = 0; i < j->stages[st].ntasks; i++) {
			struct task *t = stage_task(c->w->tasks, j, st, i);
			if (t->state != TASK_PENDING || !task_parents_done(c, j, t))
				continue;
			if (!local || parent_output_on(c, j, t, server))
				return t;
			first = first ? first : t;
		}
		if (first)
			return first;
	}
	return NULL;
}

struct task *cluster_next_reduce(const struct cluster *c, const struct job *j)
{
	return cluster_next_reduce_on(c, j, -1);
}

uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void placement_default(const struct cluster *c, struct rng *r, int replicas[3])
{
	int first, n;
	replicas[0] = replicas[1] = replicas[2] = -1;
	int ra = rng_below(r, c->racks);
	cluster_rack_servers(c, ra, &first, &n);
	replicas[0] = first + rng_below(r, n);
	int rb = ra;
	if (c->racks > 1)
		while ((rb = rng_below(r, c->racks)) == ra)
			;
	/* Two different servers of rack B, never the first replica's server. */
	cluster_rack_servers(c, rb, &first, &n);
	for (int k = 1; k < 3; k++) {
		int tries = 0, s;
		do {
			s = first + rng_below(r, n);
		} while ((s == replicas[0] || s == replicas[1]) && ++tries < 64);
		if (s != replicas[0] && s != replicas[1])
			replicas[k] = s;
	}
}

static struct job *job_of(struct cluster *c, const struct task *t)
{
	return &c->w->jobs[t->job];
}

/* What a task of stage st asks of a server with resources. */
static struct res stage_ask(const struct stage *st)
{
	return st->ask.v[RES_CORES] > 0 ? st->ask : res_reference();   /* a task asks for some CPU */
}

struct res cluster_task_ask(const struct cluster *c, const struct task *t, int server)
{
	if (c->servers[server].slots)
		return slot;
	return stage_ask(&c->w->jobs[t->job].stages[t->stage]);
}

int cluster_check_asks(const struct topo *t, const struct workload *w, char err[512])
{
	for (int k = 0; k < t->nclasses; k++)
		if (t->cls[k].containers && topo_class_servers(t, k))
			return 0;   /* a slot takes any task */
	for (int i = 0; i < w->njobs; i++)
		for (int s = 0; s < w->jobs[i].nstages; s++) {
			const struct stage *st = &w->jobs[i].stages[s];
			struct res ask = stage_ask(st);
			bool fits = !st->ntasks;
			for (int k = 0; k < t->nclasses && !fits; k++) {
				struct res cap = class_capacity(&t->cls[k]);
				fits = topo_class_servers(t, k) && res_fits(&ask, &cap);
			}
			if (!fits) {
				char at[16] = "";
				if (w->jobs[i].line > 0)
					snprintf(at, sizeof at, ":%d", w->jobs[i].line);
				return snprintf(err, 512, "%s%s: job '%s', stage '%s': a task asks for %g core(s), %g GB "
						"and %g MB/s of disk, more than any server of %s has", w->source, at,
						w->jobs[i].name, st->name, ask.v[RES_CORES] / 1e3, ask.v[RES_MEM] / 1e9,
						ask.v[RES_DISK] / 1e6, t->name[0] ? t->name : "the topology"), -1;
			}
		}
	return 0;
}

double cluster_task_duration(const struct cluster *c, const struct task *t, int server)
{
	const struct server *s = &c->servers[server];
	return t->work_s / compute_speed(s->model, s->speed, &c->w->jobs[t->job], c->w->params.data_scale);
}

bool cluster_task_fits(const struct cluster *c, const struct task *t, int server)
{
	struct res ask = cluster_task_ask(c, t, server);
	return c->servers[server].alive && res_fits(&ask, &c->servers[server].avail);
}

bool cluster_server_has_room(const struct cluster *c, int server)
{
	const struct server *s = &c->servers[server];
	struct res least = {{1, 0, 0}};   /* a thousandth of a core */
	return s->alive && (s->slots ? s->free > 0 : res_fits(&least, &s->avail));
}

/* A task starts (or resumes) running on its server: it takes what it
 * holds there and counts as running. */
static void start_running(struct cluster *c, struct job *j, struct task *t)
{
	struct server *s = &c->servers[t->server];
	res_take(&s->avail, &t->held);
	count_free(s);
	s->running++;
	j->changes++;
	c->running_bits[t->id / 64] |= 1ULL << (t->id % 64);
	j->stages[t->stage].running++;
	if (t->kind == TASK_MAP)
		j->maps_running++;
	else
		j->reduces_running++;
}

void cluster_start_task(struct cluster *c, struct task *t, int server)
{
	struct job *j = job_of(c, t);
	t->state = TASK_RUNNING;
	t->server = server;
	t->t_start = c->now;
	t->attempts++;
	t->duration_s = cluster_task_duration(c, t, server);
	t->held = cluster_task_ask(c, t, server);
	start_running(c, j, t);
	if (j->t_start < 0)
		j->t_start = c->now;
}

/* A running task's resources go back to its server and its counts down
 * (it stops running: finished, requeued or suspended). */
static void stop_running(struct cluster *c, struct job *j, struct task *t)
{
	if (c->servers[t->server].alive) {
		res_give(&c->servers[t->server].avail, &t->held);
		count_free(&c->servers[t->server]);
	}
	c->servers[t->server].running--;
	j->changes++;
	c->running_bits[t->id / 64] &= ~(1ULL << (t->id % 64));
	j->stages[t->stage].running--;
	if (t->kind == TASK_MAP)
		j->maps_running--;
	else
		j->reduces_running--;
}

void cluster_suspend_task(struct cluster *c, struct task *t)
{
	struct job *j = job_of(c, t);
	stop_running(c, j, t);
	j->stages[t->stage].suspended++;
	t->state = TASK_SUSPENDED;
	t->suspends++;
}

void cluster_resume_task(struct cluster *c, struct task *t)
{
	struct job *j = job_of(c, t);
	t->state = TASK_RUNNING;
	j->stages[t->stage].suspended--;
	start_running(c, j, t);
}

bool cluster_resume_fits(const struct cluster *c, const struct task *t, int server)
{
	return t->state == TASK_SUSPENDED && t->server == server && c->servers[server].alive &&
	       res_fits(&t->held, &c->servers[server].avail);
}

void cluster_finish_task(struct cluster *c, struct task *t)
{
	struct job *j = job_of(c, t);
	stop_running(c, j, t);
	t->state = TASK_DONE;
	t->t_end = c->now;
	j->stages[t->stage].done++;
	if (t->kind == TASK_MAP)
		j->maps_done++;
	else
		j->reduces_done++;
	if (cluster_job_finished(j)) {
		j->t_end = c->now;
		active_remove(c, j->id);
		index_free(c, j->id);
	}
}

void cluster_requeue_task(struct cluster *c, struct task *t)
{
	struct job *j = job_of(c, t);
	bool was_finished = cluster_job_finished(j);
	if (t->state == TASK_RUNNING) {
		stop_running(c, j, t);
	} else if (t->state == TASK_SUSPENDED) {
		j->stages[t->stage].suspended--;
	} else if (t->state == TASK_DONE) {
		j->stages[t->stage].done--;
		if (t->kind == TASK_MAP)
			j->maps_done--;
		else
			j->reduces_done--;
		if (was_finished)
			active_add(c, j->id);
	}
	t->state = TASK_PENDING;
	j->requeues++;
	j->changes++;
	if (t->kind == TASK_MAP && c->map_idx[j->id])
		index_requeued(c, j, t);
	t->server = -1;
}
