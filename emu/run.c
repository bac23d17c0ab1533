/* run.c — the core of a run, the same on every backend: setup and
 * teardown, the loop (arrivals, heartbeats with offers and shuffle pumping,
 * monitor samples), task dispatch and what happens when tasks, transfers or
 * servers end.  The backend (run_int.h) carries it out.  See run.h. */
#include "emu/run_int.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile int run_stop_requested;

void run_params_default(struct run_params *p)
{
	memset(p, 0, sizeof *p);
	p->backend = "emu";
	p->prefix = "emu";
	p->scheduler = "fair";
	p->results_root = "results";
	p->experiment = "default";
	p->slowstart = 0.05;
	p->elephant_bytes = 1125000000ULL;
	p->hold = true;
	ocs_params_default(&p->ocs);
	p->heartbeat_s = 0.2;
	p->monitor_s = 1.0;
	p->sim_quantum_s = 0.01;
	p->node_wait_s = 1.0;
	p->rack_wait_s = 1.0;
	p->copiers = 5;
	p->output_replicas = 1;
	p->recovery_s = 1;
	p->stall_timeout_s = DATA_STALL_TIMEOUT_S;
	p->stall_retries = DATA_STALL_RETRIES;
	p->timeout_s = 3600;
	p->slowdown = 1;
	p->capture_snaplen = RUN_CAPTURE_SNAPLEN;
	p->seed = 1;
}

const struct backend_ops *backend_find(const char *name)
{
	static const struct backend_ops *const all[] = {&backend_emu, &backend_sim};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

double run_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double run_now(const struct run *r)
{
	return r->be->now(r);
}

void run_say(const struct run *r, const char *fmt, ...)
{
	va_list ap;
	if (r->p.quiet)
		return;
	va_start(ap, fmt);
	fputs("emu: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- tasks -------------------------------------------------------------- */

/* A map reads its block locally if this server holds it, else from a
 * replica in the same rack, else from any live replica; -1 = local. */
static int input_source(struct run *r, struct task *t, int server)
{
	int src = -1, rack = cluster_rack_of(&r->c, server);
	t->data_local = t->rack_local = false;
	for (int k = 0; k < 3; k++) {
		int s = t->replicas[k];
		if (s < 0 || !r->c.servers[s].alive)
			continue;
		if (s == server) {
			t->data_local = t->rack_local = true;
			return -1;
		}
		if (src < 0 || (cluster_rack_of(&r->c, s) == rack && cluster_rack_of(&r->c, src) != rack))
			src = s;
	}
	if (src < 0) {
		t->data_local = true;   /* no replica left: regenerate it locally */
		return -1;
	}
	t->rack_local = cluster_rack_of(&r->c, src) == rack;
	return src;
}

static void preempt_log(struct run *r, const struct task *t, const char *op);

/* t waits for its parents' outputs: the deadlock breaker watches it. */
static void list_waiting(struct run *r, struct task *t)
{
	for (int i = 0; i < r->nwaiting; i++)   /* from an earlier attempt or run, not pruned yet */
		if (r->waiting[i] == t->id)
			return;
	r->waiting[r->nwaiting++] = t->id;
}

static void start_task(struct run *r, struct task *t, int server)
{
	/* Out of order (a policy that ignores dependencies): it holds its
	 * resources and waits for its parents' outputs (shuffle.c). */
	t->disordered = !cluster_task_deps_done(&r->c, t);
	cluster_start_task(&r->c, t, server);
	if (t->disordered) {
		t->disorders++;
		r->disorders++;
		list_waiting(r, t);
		preempt_log(r, t, "disorder");
	}
	if (t->attempts > 1)
		r->reruns++;
	if (t->kind == TASK_MAP) {
		r->be->start_task(r, t, server, input_source(r, t, server));
	} else {
		shuffle_reset_reduce(r, t);
		r->be->start_task(r, t, server, -1);
		shuffle_pump(r, &r->w->jobs[t->job]);
	}
}

/* ---- preemption ---------------------------------------------------------- */

static void preempt_log(struct run *r, const struct task *t, const char *op)
{
	if (r->preemptions_csv)
		fprintf(r->preemptions_csv, "%.3f,%d,%d,%s,%d,%d,%s\n", r->c.now, t->id, t->job,
			r->w->jobs[t->job].stages[t->stage].name, t->sindex, t->server, op);
}

static void forget_suspended(struct run *r, const struct task *t)
{
	for (int i = 0; i < r->nsuspended; i++)
		if (r->suspended[i] == t->id) {
			memmove(&r->suspended[i], &r->suspended[i + 1], (r->nsuspended - i - 1) * sizeof *r->suspended);
			r->nsuspended--;
			return;
		}
}

static void resume_task(struct run *r, struct task *t)
{
	cluster_resume_task(&r->c, t);
	r->be->resume(r, t, r->p.recovery_s);
	preempt_log(r, t, "resume");
	forget_suspended(r, t);
	/* Suspended while it waited (the breaker pruned it then): it waits again. */
	if (t->disordered && !cluster_task_deps_done(&r->c, t))
		list_waiting(r, t);
}

/* A running task back to pending, to restart from zero (`why`: the log's op). */
static void kill_task(struct run *r, struct task *t, const char *why)
{
	r->be->preempt(r, t, PREEMPT_KILL);
	preempt_log(r, t, why);
	xfer_drop_task(r, t->id, r->c.now);
	t->kills++;
	r->kills++;
	cluster_requeue_task(&r->c, t);
	if (t->kind == TASK_REDUCE)
		shuffle_reset_reduce(r, t);
}

/* The scheduler's preemptions: only of running tasks. */
static void preemptions(struct run *r)
{
	struct preemption out[64];
	int n = r->s.ops->preempt ? r->s.ops->preempt(&r->s, out, 64) : 0;
	for (int i = 0; i < n && i < 64; i++) {
		struct task *t = out[i].t;
		if (!t || t->state != TASK_RUNNING)
			continue;
		if (out[i].op == PREEMPT_KILL) {
			kill_task(r, t, "kill");
		} else {
			r->be->preempt(r, t, out[i].op);
			preempt_log(r, t, "suspend");
			cluster_suspend_task(&r->c, t);
			r->suspended[r->nsuspended++] = t->id;
			r->suspends++;
		}
	}
}

static bool stuck(const struct run *r, const struct task *t);

/* Whether parent task p will not end unless something else starts first:
 * pending, suspended, or itself started out of order and stuck. */
static bool idle_parent(const struct run *r, const struct task *p)
{
	return p->state == TASK_PENDING || p->state == TASK_SUSPENDED ||
	       (p->state == TASK_RUNNING && p->disordered && !cluster_task_deps_done(&r->c, p) && stuck(r, p));
}

/* A task started out of order that waits for a parent no one computes
 * (directly, or through parents that wait so too): it cannot end before
 * something else starts.  A stage read whole counts while it has tasks
 * not running. */
static bool stuck(const struct run *r, const struct task *t)
{
	const struct job *j = &r->w->jobs[t->job];
	const struct stage *s = &j->stages[t->stage];
	for (int q = 0; q < t->ntdeps; q++)
		if (idle_parent(r, &r->w->tasks[j->first_task + r->w->tdeps[t->tdep_first + q].task]))
			return true;
	for (int p = 0; p < s->nparents; p++) {
		const struct stage *ps = &j->stages[s->parent[p].stage];
		if (s->parent[p].kind == EDGE_ONE_TO_ONE) {
			if (idle_parent(r, stage_task(r->w->tasks, j, s->parent[p].stage, t->sindex)))
				return true;
		} else if (s->parent[p].kind != EDGE_TASKS && ps->done + ps->running < ps->ntasks) {
			return true;
		}
	}
	return false;
}

/* The deadlock breaker of disorder.  A server whose every running task
 * started out of order and waits for a parent no one computes gets nothing
 * done.  While some server is so, the core starts only runnable tasks, so
 * that what frees goes to tasks that can end (the parents); when it was so
 * at the heartbeat before too (the policy had a round of offers), its
 * waiting task started last (the least work lost) is killed and pending
 * again.  When nothing else runs, that is the whole cluster's deadlock. */
static void break_deadlock(struct run *r)
{
	int w = 0, ns = r->c.nservers;
	double since = r->c.now - r->hold_seen_at;
	r->hold_seen_at = r->c.now;
	memset(r->stuck, 0, ns * sizeof *r->stuck);
	for (int i = 0; i < r->nwaiting; i++) {
		struct task *t = &r->w->tasks[r->waiting[i]];
		if (t->state != TASK_RUNNING || !t->disordered || cluster_task_deps_done(&r->c, t))
			continue;   /* ended, preempted, or its inputs are there: it can end */
		r->waiting[w++] = t->id;
		r->stuck[t->server] += stuck(r, t);
		r->hold_core_s += since * t->held.v[RES_CORES] / 1000.0;
	}
	r->nwaiting = w;
	bool any = false;
	for (int s = 0; s < ns; s++) {
		bool all = r->stuck[s] && r->stuck[s] == r->c.servers[s].running;
		any |= all;
		if (all && r->stuck_seen[s]) {
			struct task *last = NULL;
			for (int i = 0; i < r->nwaiting; i++) {
				struct task *t = &r->w->tasks[r->waiting[i]];
				if (t->state == TASK_RUNNING && t->server == s && (!last || t->t_start >= last->t_start))
					last = t;
			}
			run_say(r, "deadlock on server %d: its tasks wait for parents not running; killing task %d", s,
				last->id);
			kill_task(r, last, "deadlock");
			r->deadlock_breaks++;
			all = false;
		}
		r->stuck_seen[s] = all;
	}
	r->c.deps_barred = any;
}

/* Nothing else for `server`: its suspended tasks resume as they fit, in
 * the order they were suspended. */
static void resume_waiting(struct run *r, int server)
{
	for (int i = 0; i < r->nsuspended; i++) {
		struct task *t = &r->w->tasks[r->suspended[i]];
		if (cluster_resume_fits(&r->c, t, server)) {
			resume_task(r, t);
			i--;
		}
	}
}

/* Offers while the server has room; a task that does not fit there stays
 * pending (a slot-minded policy may offer one on a server with resources). */
static void offer(struct run *r, int server)
{
	while (cluster_server_has_room(&r->c, server)) {
		struct task *t = r->s.ops->offer(&r->s, server);
		if (t && t->state == TASK_SUSPENDED) {
			if (!cluster_resume_fits(&r->c, t, server))
				break;
			resume_task(r, t);
			continue;
		}
		if (!t && r->nsuspended)
			resume_waiting(r, server);
		if (!t || !cluster_task_startable(&r->c, t) || !cluster_task_fits(&r->c, t, server))
			break;
		start_task(r, t, server);
	}
}

/* Where a last-stage task's output lives: the policy's output server (its
 * own by default), and with output_replicas 3 two servers of another rack
 * (HDFS's rule). */
static void place_output(struct run *r, struct task *t)
{
	t->out_replicas[0] = sched_output_server(&r->s, t);
	t->out_replicas[1] = t->out_replicas[2] = -1;
	if (r->p.output_replicas < 3 || r->c.racks < 2)
		return;
	int rack = cluster_rack_of(&r->c, t->server), other, first, n;
	while ((other = rng_below(&r->out_rng, r->c.racks)) == rack)
		;
	cluster_rack_servers(&r->c, other, &first, &n);
	t->out_replicas[1] = first + rng_below(&r->out_rng, n);
	if (n > 1)
		while ((t->out_replicas[2] = first + rng_below(&r->out_rng, n)) == t->out_replicas[1])
			;
}

/* Where byte `at` of job j's lineage input lives: with the last-stage task
 * of its dependencies (in deps order, tasks in order) that wrote it. */
static void lineage_replicas(const struct run *r, const struct job *j, uint64_t at, int out[3])
{
	for (int d = 0; d < j->ndeps; d++) {
		const struct job *p = &r->w->jobs[j->deps[d]];
		for (int s = 0; s < p->nstages; s++)
			for (int i = 0; !p->stages[s].has_children && i < p->stages[s].ntasks; i++) {
				const struct task *t = stage_task(r->w->tasks, p, s, i);
				if (at < t->output_bytes) {
					memcpy(out, t->out_replicas, sizeof t->out_replicas);
					return;
				}
				at -= t->output_bytes;
			}
	}
}

/* A map reads its job's lineage (a block its dependencies wrote, where it
 * was written) or new data (placed by the scheduler's hook). */
static void place_input(struct run *r, struct job *j)
{
	uint64_t at = 0;
	for (int m = 0; m < j->nmaps; m++) {
		struct task *t = job_map(r->w->tasks, j, m);
		uint64_t mid = at + t->input_bytes / 2;
		if (mid < j->lineage_bytes)
			lineage_replicas(r, j, mid, t->replicas);
		else
			sched_place_input(&r->s, j, t, t->replicas);
		at += t->input_bytes;
	}
}

void run_task_done(struct run *r, int server, int task, bool ok, uint64_t bytes, const char *error)
{
	if (task < 0 || task >= r->w->ntasks)
		return;
	struct task *t = &r->w->tasks[task];
	if (t->state != TASK_RUNNING || t->server != server)
		return;   /* stale: killed or re-run elsewhere meanwhile */
	struct job *j = &r->w->jobs[t->job];
	r->c.now = run_now(r);
	if (!ok && error && !strcmp(error, "killed"))
		return;   /* the answer to a kill (preemption): the task was requeued then */
	if (!ok) {
		run_say(r, "task %d (job %d %s) failed on server %d: %s; re-running it", t->id, j->id,
			t->kind == TASK_MAP ? "map" : "reduce", server, error ? error : "?");
		cluster_requeue_task(&r->c, t);
		if (t->kind == TASK_REDUCE)
			shuffle_reset_reduce(r, t);
		offer(r, server);
		return;
	}
	if (t->kind == TASK_MAP && !t->data_local) {
		struct xfer_rec x = {.job = j->id, .task = t->id, .dst = server, .bytes = bytes, .input = true,
				     .done = true, .t_start = t->t_start, .t_moved = t->t_start,
				     .t_end = r->c.now - t->duration_s};
		for (int k = 0; k < 3; k++)   /* the replica it read from, for the record */
			if (t->replicas[k] >= 0 && t->replicas[k] != server) {
				x.src = t->replicas[k];
				if (cluster_rack_of(&r->c, x.src) == cluster_rack_of(&r->c, server) || !t->rack_local)
					break;
			}
		xfer_new(r, &x);
	}
	cluster_finish_task(&r->c, t);
	r->tasks_done++;
	if (!j->stages[t->stage].has_children)
		place_output(r, t);
	r->job_ended |= cluster_job_finished(j);
	bool read_on = j->stages[t->stage].has_children;
	if (read_on)
		shuffle_output_done(r, t);
	if (r->s.ops->task_finished)
		r->s.ops->task_finished(&r->s, t);
	if (read_on)
		shuffle_pump(r, j);
	offer(r, server);
}

void run_flow_done(struct run *r, int xfer, uint64_t bytes, double t_end)
{
	xfer_finish(r, xfer, bytes, t_end);
}

void run_copy_done(struct run *r, int id)
{
	if (id >= 0 && id < r->c.ncopies)
		r->c.copies[id].done = true;
}

/* The copies the policy asked for since the last heartbeat, to the backend. */
static void send_copies(struct run *r)
{
	for (int i = 0; i < r->c.ncopies; i++) {
		struct cluster_copy *k = &r->c.copies[i];
		if (k->sent)
			continue;
		k->sent = true;
		if (r->be->copy)
			r->be->copy(r, i, k->src, k->dst, k->bytes);
		else
			k->done = true;
	}
}

/* A server is gone: what ran there runs again elsewhere, and outputs kept
 * there (of maps, or of any stage that others read) are lost for jobs that
 * still need them. */
void run_server_lost(struct run *r, int server)
{
	struct server *s = &r->c.servers[server];
	if (!s->alive)
		return;
	s->alive = false;
	run_say(r, "server %d is gone; re-running its tasks elsewhere", server);
	for (int i = 0; i < r->w->ntasks; i++) {
		struct task *t = &r->w->tasks[i];
		if (t->server != server)
			continue;
		const struct job *j = &r->w->jobs[t->job];
		if (t->state == TASK_SUSPENDED)
			forget_suspended(r, t);
		if (t->state == TASK_RUNNING || t->state == TASK_SUSPENDED ||
		    (t->state == TASK_DONE && j->stages[t->stage].has_children && !cluster_job_finished(j))) {
			if (t->state == TASK_DONE) {
				r->tasks_done--;
				shuffle_output_lost(r, t);
			}
			cluster_requeue_task(&r->c, t);
			if (t->kind == TASK_REDUCE)
				shuffle_reset_reduce(r, t);
		}
	}
}

/* ---- the loop ----------------------------------------------------------- */

static void arrivals(struct run *r)
{
	for (int i = 0; i < r->w->njobs; i++) {
		struct job *j = &r->w->jobs[i];
		if (!cluster_job_ready(&r->c, j))
			continue;
		place_input(r, j);
		cluster_job_arrive(&r->c, j);
		if (r->s.ops->job_arrived)
			r->s.ops->job_arrived(&r->s, j);
	}
}

/* The next submit time still ahead (a virtual clock must stop there). */
static double next_arrival(const struct run *r)
{
	double next = INFINITY;
	for (int i = 0; i < r->w->njobs; i++)
		if (!r->c.arrived[i] && r->w->jobs[i].submit_s > r->c.now && r->w->jobs[i].submit_s < next)
			next = r->w->jobs[i].submit_s;
	return next;
}

static bool all_done(const struct run *r)
{
	for (int i = 0; i < r->w->njobs; i++)
		if (!r->c.arrived[i] || !cluster_job_finished(&r->w->jobs[i]))
			return false;
	return true;
}

static bool any_alive(const struct run *r)
{
	for (int i = 0; i < r->c.nservers; i++)
		if (r->c.servers[i].alive)
			return true;
	return false;
}

static void loop(struct run *r)
{
	double next_hb = 0, next_sample = r->p.monitor_s, next_arr = 0;
	while (!run_stop_requested) {
		double deadline = fmin(fmin(next_hb, next_sample), fmin(next_arr, r->p.timeout_s));
		if (r->recheck_at > 0)
			deadline = fmin(deadline, r->recheck_at);
		r->be->poll(r, deadline);
		r->c.now = run_now(r);
		if (r->c.now >= next_arr || r->job_ended) {
			r->job_ended = false;
			arrivals(r);
			next_arr = next_arrival(r);
		}
		if (r->c.now >= next_hb) {
			next_hb = r->c.now + r->p.heartbeat_s;
			if (r->s.ops->tick)
				r->s.ops->tick(&r->s);
			send_copies(r);
			preemptions(r);
			if (r->c.ignore_deps)
				break_deadlock(r);
			for (int s = 0; s < r->c.nservers; s++)
				offer(r, s);
			for (int j = 0; j < r->w->njobs; j++)
				if (r->c.arrived[j] && !cluster_job_finished(&r->w->jobs[j]))
					shuffle_pump(r, &r->w->jobs[j]);
		}
		if (r->c.now >= next_sample) {
			next_sample += r->p.monitor_s;
			monitor_sample(r, false);
		}
		if (r->recheck_at > 0 && r->c.now >= r->recheck_at)
			monitor_recheck(r);
		if (all_done(r))
			break;
		const char *why = r->be->failure(r);
		if (why || !any_alive(r)) {
			r->stop_reason = why ? why : "every server was lost";
			break;
		}
		if (r->c.now >= r->p.timeout_s) {
			r->stop_reason = "timeout";
			break;
		}
	}
	if (run_stop_requested)
		r->stop_reason = "interrupted";
	r->partial = !all_done(r);
}

static void rename_tmp(struct run *r, const char *name)
{
	char tmp[600], path[600];
	snprintf(tmp, sizeof tmp, "%s/%s.tmp", r->dir, name);
	snprintf(path, sizeof path, "%s/%s", r->dir, name);
	rename(tmp, path);
}

int run_experiment(const struct topo *t, struct workload *w, const struct run_params *p, char err[512])
{
	struct run *r = calloc(1, sizeof *r);
	int rc = -1;
	bool set_up = false;
	if (!r) {
		snprintf(err, 512, "out of memory");
		return -1;
	}
	r->p = *p;
	r->out_rng.s = p->seed ^ 0x6f7574707574ULL;   /* "output" */
	r->t = t;
	r->w = w;
	r->wall_start = run_wall();
	r->be = backend_find(p->backend ? p->backend : "emu");
	const struct sched_ops *ops = p->sched_ops ? p->sched_ops : sched_find(p->scheduler);
	if (!r->be) {
		snprintf(err, 512, "unknown backend '%s' (emu or sim)", p->backend);
		free(r);
		return -1;
	}
	if (!ops) {
		snprintf(err, 512, "unknown scheduler '%s'", p->scheduler);
		free(r);
		return -1;
	}
	if (cluster_init_topo(&r->c, t, w, p->slowstart)) {
		snprintf(err, 512, "out of memory");
		free(r);
		return -1;
	}
	r->c.semi_clairvoyant = p->semi_clairvoyant;
	struct sched_params sp = {.elephant_bytes = p->elephant_bytes, .node_wait_s = p->node_wait_s,
				  .rack_wait_s = p->rack_wait_s, .seed = p->seed,
				  .uplink_Bps = (double)t->uplink.rate / 8, .ocs_Bps = t->ocs ? (double)t->optical.rate / 8 : 0,
				  .ocs_interval_s = p->ocs.interval_s, .ocs_delta_s = p->ocs.delta_s,
				  .ocs_early = p->ocs.early, .opts = p->sched_opts, .nopts = p->nsched_opts};
	if (sched_opts_check(ops, p->sched_opts, p->nsched_opts, err, 512))
		goto out;
	if (sched_init(&r->s, ops, &r->c, &sp)) {
		snprintf(err, 512, "scheduler %s failed to initialise", p->scheduler);
		goto out;
	}
	int nj = w->njobs ? w->njobs : 1, nt = w->ntasks ? w->ntasks : 1, ns = r->c.nservers;
	r->requested = calloc(nj, sizeof *r->requested);
	r->done_maps = calloc(nj, sizeof *r->done_maps);
	r->cursor = calloc(nt, sizeof *r->cursor);
	r->final_sent = calloc(nt, sizeof *r->final_sent);
	r->scratch_bytes = calloc(ns, sizeof *r->scratch_bytes);
	r->scratch_holders = calloc(ns, sizeof *r->scratch_holders);
	r->scratch_seen = calloc(ns, sizeof *r->scratch_seen);
	r->scratch_xfers = calloc(ns, sizeof *r->scratch_xfers);
	r->attempt_fetched = calloc(nt, sizeof *r->attempt_fetched);
	r->suspended = calloc(nt, sizeof *r->suspended);
	r->waiting = calloc(nt, sizeof *r->waiting);
	r->stuck = calloc(ns, sizeof *r->stuck);
	r->stuck_seen = calloc(ns, sizeof *r->stuck_seen);
	if (!r->requested || !r->done_maps || !r->cursor || !r->final_sent || !r->scratch_bytes ||
	    !r->scratch_holders || !r->scratch_seen || !r->scratch_xfers || !r->attempt_fetched || !r->suspended ||
	    !r->waiting || !r->stuck || !r->stuck_seen) {
		snprintf(err, 512, "out of memory");
		goto out;
	}
	if (results_prepare(r, err))
		goto out;
	if (p->dir_out)
		snprintf(p->dir_out, 512, "%s", r->dir);
	set_up = true;
	if (r->be->setup(r, err))
		goto out;
	if (monitor_open(r)) {
		snprintf(err, 512, "cannot read the network's counters or write links.csv: %s", strerror(errno));
		goto out;
	}
	run_say(r, "running %d jobs (%d tasks) under %s on the %s backend", w->njobs, w->ntasks, p->scheduler,
		r->be->name);
	loop(r);
	rc = r->partial ? 1 : 0;
	r->be->stop(r);
	monitor_sample(r, true);
	if (results_write(r)) {
		fprintf(stderr, "emu: could not write every result file in %s (disk full?); no summary.json\n", r->dir);
		rc = 1;
	}
out:
	if (set_up)
		r->be->teardown(r);   /* closes ocs.csv.tmp */
	if (rc >= 0 && r->ocs_on)
		rename_tmp(r, "ocs.csv");
	if (rc >= 0 && r->links_csv) {
		monitor_close(r);
		rename_tmp(r, "links.csv");
	}
	monitor_close(r);
	if (rc < 0 && r->dir[0]) {
		/* Setup failed: nothing was measured, leave no half-made results. */
		static const char *const files[] = {"links.csv.tmp", "ocs.csv.tmp", "flows.csv.tmp", NULL};
		for (int i = 0; files[i]; i++) {
			char path[600];
			snprintf(path, sizeof path, "%s/%s", r->dir, files[i]);
			unlink(path);
		}
		rmdir(r->dir);
	}
	sched_destroy(&r->s);
	for (int j = 0; r->requested && j < w->njobs; j++)
		free(r->requested[j]);
	for (int j = 0; r->done_maps && j < w->njobs; j++) {
		free(r->done_maps[j].map);
		free(r->done_maps[j].on_rack);
	}
	free(r->requested);
	free(r->done_maps);
	free(r->cursor);
	free(r->final_sent);
	free(r->scratch_bytes);
	free(r->scratch_holders);
	free(r->scratch_seen);
	free(r->scratch_xfers);
	xfer_flush(r);
	free(r->attempt_fetched);
	free(r->suspended);
	free(r->waiting);
	free(r->stuck);
	free(r->stuck_seen);
	flow_log_close(r->flow_log);
	if (r->flows_csv)
		fclose(r->flows_csv);
	if (r->preemptions_csv)
		fclose(r->preemptions_csv);
	cluster_free(&r->c);
	free(r);
	return rc;
}
