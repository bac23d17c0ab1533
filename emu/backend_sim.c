/* backend_sim.c — the flow-level simulator backend: a virtual clock, an
 * event queue, tasks modelled as the agents run them (a map reads its input
 * then computes; a reduce fetches its transfers, at most `copiers` fetches
 * moving at once, each one holder's queued transfers (emu/copiers.c), in
 * hold mode circuit transfers only while their circuit is lit
 * (agents/tasks.c), then computes; a last-stage task then writes its
 * output to the policy's output server), fetches as flows of sim_net.c,
 * disk I/O too (emu/disk.h: a map's input read off its holder's disk, an
 * output written to its server's, a copy read and written), and the OCS controller's decisions (the same
 * matching, emu/ocs_ctl.c) applied in virtual time.
 *
 * A reconfiguration at time T that changes anything: the circuits that go
 * (every lit one with the "all" dark scope) stop carrying traffic at T (the
 * announce), the crossbar switches, and the new circuits light at
 * T + guard + δ — the emulator's sequence without its drain and netlink
 * time (sub-millisecond; its ocs.csv shows them). */
#include "emu/fetch_queue.h"
#include "emu/grow.h"
#include "emu/run_int.h"
#include "emu/sim_net.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum ev_kind { EV_COMPUTED, EV_OCS_TICK, EV_OCS_LIGHT, EV_OCS_CHECK, EV_RESUME };

struct event {
	double t;
	uint64_t seq;          /* FIFO among equal times: runs are deterministic */
	enum ev_kind kind;
	int task, attempt;
};

/* What a running task is doing (the agent's side). */
struct sim_task {
	int attempt;           /* events of an earlier attempt are stale */
	bool computing;
	double compute_end;    /* computing: when it ends */
	bool suspended;        /* preempted, keeping its progress: nothing moves or computes */
	double compute_left;   /* suspended while computing: what was left */
	int input_flow;        /* a map reading its input: its flow (-1: none) */
	int input_src;         /* where it reads it from (its own server: local) */
	uint64_t input_left;   /* suspended while reading it: what was left (0: nothing) */
	int output_flow;       /* writing its output: its flow (-1: none) */
	int output_dst;        /* where */
	uint64_t output_left;  /* suspended while writing it: what was left (0: nothing) */
	bool writing;          /* computed, writing its output */
	uint64_t bytes_in;
	struct fetch_queue queue;   /* reduce: transfers not started yet (their records: keeps_xfers) */
	/* reduce: running fetches, a flow each.  Small: a fetch's end finds
	 * its own among them, and the last takes its place. */
	struct sim_fetch {
		int n;         /* its transfers */
		int id0;       /* the first's id: its flow's tag */
		int src;       /* their holder */
		bool circuit;  /* and flag (they are one lane's) */
		bool held;     /* a circuit fetch in hold mode: it moves only while lit */
		int flow;      /* its flow (-1 while suspended) */
		uint64_t left; /* suspended: bytes it still had to move */
		double t_moved;   /* when it started */
		struct fetch_item { int id; uint64_t bytes; double t_start; } *item;   /* n of them */
	} *run;
	int nrun, caprun;
	bool final;
	bool listed;           /* in sim_be.waiting */
};

struct sim_be {
	double now;
	struct simnet *net;
	struct event *ev;
	int nev, capev;
	uint64_t seq;
	struct sim_task *tasks;
	double last_alloc;
	/* OCS */
	struct circuit_cfg crossbar, lit, next;
	bool lighting;         /* a reconfiguration is under way */
	int tick_gen;          /* the periodic tick that counts (an early reconfiguration restarts the period) */
	double t_lit;          /* when the lit configuration was lit */
	bool check_queued;     /* an EV_OCS_CHECK is pending (early reconfiguration) */
	int64_t *demand;
	/* Reduces with transfers not started, looked at when circuits change;
	 * the circuit transfers among those (hold mode), per rack pair
	 * [src * racks + dst]: OCS demand that is not a flow yet. */
	int *waiting, nwaiting, capwaiting;
	int64_t *queued_bytes;
	int *queued_n, nqueued;
	int computing;         /* EV_COMPUTED events queued (stale ones too) */
	double idle_since;     /* sim_failure: nothing in flight since (-1: something is) */
	unsigned long long events, allocations, flows;
};

static struct sim_be *S(const struct run *r) { return r->be_priv; }

static double sim_now(const struct run *r) { return S(r) ? S(r)->now : 0; }

/* ---- events ------------------------------------------------------------- */

static bool ev_before(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int ev_push(struct sim_be *b, double t, enum ev_kind kind, int task, int attempt)
{
	if (grow(&b->ev, &b->capev, b->nev + 1, sizeof *b->ev, 1024))
		return -1;
	struct event x = {t, b->seq++, kind, task, attempt};
	int i = b->nev++;
	while (i > 0 && ev_before(&x, &b->ev[(i - 1) / 2])) {
		b->ev[i] = b->ev[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	b->ev[i] = x;
	return 0;
}

static struct event ev_pop(struct sim_be *b)
{
	struct event top = b->ev[0], x = b->ev[--b->nev];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= b->nev)
			break;
		if (c + 1 < b->nev && ev_before(&b->ev[c + 1], &b->ev[c]))
			c++;
		if (!ev_before(&b->ev[c], &x))
			break;
		b->ev[i] = b->ev[c];
		i = c;
	}
	if (b->nev)
		b->ev[i] = x;
	return top;
}

/* ---- tasks -------------------------------------------------------------- */

/* A flow's tag: the task, and the transfer id + 1 (0 = a map's input,
 * XFER_OUTPUT + 1 its output); a copy's: -1 - its id. */
#define XFER_OUTPUT (-2)
static int64_t tag_of(int task, int xfer) { return (int64_t)task << 32 | (uint32_t)(xfer + 1); }

static void compute_for(struct run *r, struct task *t, double seconds)
{
	struct sim_be *b = S(r);
	b->tasks[t->id].computing = true;
	b->tasks[t->id].compute_end = b->now + seconds;
	b->computing++;
	ev_push(b, b->now + seconds, EV_COMPUTED, t->id, b->tasks[t->id].attempt);
}

static void compute(struct run *r, struct task *t) { compute_for(r, t, t->duration_s); }

/* A reduce's fetch: served off the holder's disk (emu/disk.h). */
static int start_flow(struct run *r, int src, int dst, uint64_t bytes, bool circuit, int64_t tag)
{
	struct sim_be *b = S(r);
	b->flows++;
	int h = simnet_add_io(b->net, b->now, src, dst, bytes, circuit, disk_sides(DISK_SHUFFLE), tag);
	if (h < 0)
		run_say(r, "simulator: out of memory for a flow");
	return h;
}

static int rack_of(const struct run *r, int server) { return cluster_rack_of(&r->c, server); }

/* Disk I/O (emu/disk.h): a map's input (src = dst: local), an output, a copy. */
static int start_io(struct run *r, int src, int dst, uint64_t bytes, unsigned disks, int64_t tag)
{
	struct sim_be *b = S(r);
	b->flows++;
	int h = simnet_add_io(b->net, b->now, src, dst, bytes, false, disks, tag);
	if (h < 0)
		run_say(r, "simulator: out of memory for a flow");
	return h;
}

/* Does this I/O cost anything?  Local on unlimited disks it does not, and
 * is no flow: runs without disk rates stay as they were. */
static bool io_costs(const struct run *r, int src, int dst, unsigned disks)
{
	return src != dst || simnet_disk_limited(S(r)->net, src, disks & DISK_READ) ||
	       simnet_disk_limited(S(r)->net, dst, disks & DISK_WRITE);
}

/* Held back in hold mode while its circuit is dark; while it waits, a
 * circuit transfer is demand (the agents' rule, agents/tasks.c). */
static bool held_kind(const struct run *r, const struct xfer *x) { return r->p.hold && x->circuit; }

/* Reduce t's transfer x joins (+1) or leaves (-1) its queue. */
static void count_queued(struct run *r, const struct task *t, const struct xfer *x, int sign)
{
	if (!held_kind(r, x))
		return;
	struct sim_be *b = S(r);
	int k = rack_of(r, x->src) * r->c.racks + rack_of(r, t->server);
	b->queued_bytes[k] += sign * (int64_t)x->bytes;
	b->queued_n[k] += sign;
	b->nqueued += sign;
}

struct sim_rules { struct run *r; const struct task *t; };

static bool sim_movable(const struct xfer *x, void *arg)
{
	const struct sim_rules *a = arg;
	return !held_kind(a->r, x) || simnet_lit(S(a->r)->net, rack_of(a->r, x->src), rack_of(a->r, a->t->server));
}

static bool sim_holder_busy(int src, void *arg)
{
	const struct sim_rules *a = arg;
	const struct sim_task *st = &S(a->r)->tasks[a->t->id];
	for (int i = 0; i < st->nrun; i++)
		if (st->run[i].src == src)
			return true;
	return false;
}

static void start_fetches(struct run *r, struct task *t)
{
	struct sim_task *st = &S(r)->tasks[t->id];
	if (st->suspended)
		return;
	int dst = rack_of(r, t->server), busy = 0;
	for (int i = 0; i < st->nrun; i++)
		busy += !st->run[i].held || simnet_lit(S(r)->net, rack_of(r, st->run[i].src), dst);
	struct sim_rules a = {r, t};
	const struct copier_rules rules = {sim_movable, sim_holder_busy, &a};
	while (busy < r->p.copiers) {
		if (grow(&st->run, &st->caprun, st->nrun + 1, sizeof *st->run, 8)) {
			run_say(r, "simulator: out of memory for transfers");
			return;
		}
		struct xfer x[FETCH_MAX_XFERS];
		double t_start[FETCH_MAX_XFERS];
		int n = fq_take(&st->queue, &rules, x, t_start);
		if (!n)
			break;
		struct fetch_item *item = malloc(n * sizeof *item);
		if (!item) {
			run_say(r, "simulator: out of memory for transfers");
			return;
		}
		uint64_t bytes = 0;
		for (int i = 0; i < n; i++) {
			count_queued(r, t, &x[i], -1);
			bytes += x[i].bytes;
			item[i] = (struct fetch_item){x[i].id, x[i].bytes, t_start[i]};
		}
		struct sim_fetch *f = &st->run[st->nrun++];
		*f = (struct sim_fetch){.n = n, .id0 = x[0].id, .src = x[0].src, .circuit = x[0].circuit,
					.held = held_kind(r, &x[0]), .t_moved = S(r)->now, .item = item};
		busy++;
		f->flow = start_flow(r, f->src, t->server, bytes, f->circuit, tag_of(t->id, f->id0));
	}
	if (st->final && !st->nrun && !fq_len(&st->queue) && !st->computing && !st->writing)
		compute(r, t);
}

/* The record of reduce t's transfer x, requested at t_start, moving since
 * t_moved (-1: not yet), ended now (done, or not: killed, the run over). */
static void record(struct run *r, const struct task *t, const struct xfer *x, double t_start, double t_moved, bool done)
{
	xfer_record(r, x->id, &(struct xfer_rec){.job = t->job, .task = t->id, .src = x->src, .dst = t->server,
						  .bytes = x->bytes, .circuit = x->circuit, .done = done,
						  .t_start = t_start, .t_moved = t_moved, .t_end = S(r)->now});
}

/* Transfers that end not done, recorded in id order (as the run's store
 * would: flows.csv stays the same whichever backend kept them).  Such a
 * record is a line of flows.csv and nothing else: without the file they
 * are not kept (millions wait when a paper-scale run stops). */
struct unfinished {
	struct unfinished_rec {
		const struct task *t;
		struct xfer x;
		double t_start, t_moved;
	} *v;
	int n, cap;
	bool keep;
};

static struct unfinished unfinished_new(const struct run *r) { return (struct unfinished){.keep = r->flows_csv}; }

static void unfinished_add(struct unfinished *u, const struct task *t, const struct xfer *x, double t_start,
			   double t_moved)
{
	if (u->keep && !grow(&u->v, &u->cap, u->n + 1, sizeof *u->v, 64))
		u->v[u->n++] = (struct unfinished_rec){t, *x, t_start, t_moved};
}

struct unfinished_arg { struct run *r; const struct task *t; struct unfinished *u; };

static void unfinished_queued(const struct xfer *x, double t_start, void *arg)
{
	struct unfinished_arg *a = arg;
	count_queued(a->r, a->t, x, -1);
	unfinished_add(a->u, a->t, x, t_start, -1);
}

static struct xfer fetch_xfer(const struct sim_fetch *f, int k)
{
	return (struct xfer){.id = f->item[k].id, .src = f->src, .bytes = f->item[k].bytes, .circuit = f->circuit};
}

static void drop_fetches(struct sim_task *st)
{
	for (int i = 0; i < st->nrun; i++)
		free(st->run[i].item);
	st->nrun = 0;
}

/* Task t's transfers, queued and moving, to u (then it has none). */
static void unfinished_of(struct run *r, const struct task *t, struct unfinished *u)
{
	struct sim_task *st = &S(r)->tasks[t->id];
	struct unfinished_arg a = {r, t, u};
	fq_each(&st->queue, unfinished_queued, &a);
	fq_free(&st->queue);
	for (int i = 0; i < st->nrun; i++)
		for (int k = 0; k < st->run[i].n; k++) {
			struct xfer x = fetch_xfer(&st->run[i], k);
			unfinished_add(u, t, &x, st->run[i].item[k].t_start, st->run[i].t_moved);
		}
	drop_fetches(st);
}

static int by_id(const void *a, const void *b)
{
	int x = ((const struct unfinished_rec *)a)->x.id, y = ((const struct unfinished_rec *)b)->x.id;
	return (x > y) - (x < y);
}

static void record_unfinished(struct run *r, struct unfinished *u)
{
	if (u->n)   /* qsort of none: v may be NULL */
		qsort(u->v, u->n, sizeof *u->v, by_id);
	for (int i = 0; i < u->n; i++)
		record(r, u->v[i].t, &u->v[i].x, u->v[i].t_start, u->v[i].t_moved, false);
	free(u->v);
}

/* A task's state back to nothing (a new attempt, or done): what it had
 * not fetched ends not done. */
static void reset_task(struct run *r, struct task *t, int attempt)
{
	struct sim_task *st = &S(r)->tasks[t->id];
	struct unfinished u = unfinished_new(r);
	unfinished_of(r, t, &u);
	record_unfinished(r, &u);
	free(st->run);
	*st = (struct sim_task){.attempt = attempt, .listed = st->listed, .input_flow = -1, .output_flow = -1};
}

/* The lit circuits changed: reduces start what can move now. */
static void pump_waiting(struct run *r)
{
	struct sim_be *b = S(r);
	int keep = 0;
	for (int i = 0; i < b->nwaiting; i++) {
		int id = b->waiting[i];
		struct sim_task *st = &b->tasks[id];
		if (fq_len(&st->queue))
			start_fetches(r, &r->w->tasks[id]);
		if (fq_len(&st->queue))
			b->waiting[keep++] = id;
		else
			st->listed = false;
	}
	b->nwaiting = keep;
}

static void sim_start_task(struct run *r, struct task *t, int server, int input_src)
{
	struct sim_task *st = &S(r)->tasks[t->id];
	reset_task(r, t, st->attempt + 1);
	int src = input_src >= 0 ? input_src : server;
	if (t->kind == TASK_MAP && io_costs(r, src, server, disk_sides(DISK_INPUT))) {
		st->bytes_in = input_src >= 0 ? t->input_bytes : 0;
		st->input_src = src;
		st->input_flow = start_io(r, src, server, t->input_bytes, disk_sides(DISK_INPUT), tag_of(t->id, -1));
	} else if (t->kind == TASK_MAP) {
		compute(r, t);
	}
}

static void sim_fetch(struct run *r, struct task *t, const struct xfer *xs, int n, bool final)
{
	struct sim_be *b = S(r);
	struct sim_task *st = &b->tasks[t->id];
	if (!st->listed && grow(&b->waiting, &b->capwaiting, b->nwaiting + 1, sizeof *b->waiting, 64)) {
		run_say(r, "simulator: out of memory for transfers");
		return;
	}
	for (int i = 0; i < n; i++) {
		if (fq_push(&st->queue, &xs[i], b->now)) {
			run_say(r, "simulator: out of memory for transfers");
			return;
		}
		count_queued(r, t, &xs[i], +1);
	}
	st->final = final;
	start_fetches(r, t);
	if (fq_len(&st->queue) && !st->listed) {   /* looked at again when circuits change */
		b->waiting[b->nwaiting++] = t->id;
		st->listed = true;
	}
}

static void sim_warm(const struct run *r, const struct task *t, int holder)
{
	const struct sim_task *st = &S(r)->tasks[t->id];
	fq_warm(&st->queue, holder, false);
	__builtin_prefetch(st->run);   /* then a fetch may start */
}

/* The task is done, its output written. */
static void task_done(struct run *r, struct task *t)
{
	struct sim_task *st = &S(r)->tasks[t->id];
	uint64_t bytes = st->bytes_in;
	reset_task(r, t, st->attempt);
	run_task_done(r, t->server, t->id, true, bytes, NULL);
}

static void flow_done(struct run *r, int64_t tag, uint64_t bytes)
{
	if (tag < 0) {
		run_copy_done(r, (int)(-1 - tag));
		return;
	}
	int task = (int)(tag >> 32), xfer = (int)(uint32_t)tag - 1;
	struct task *t = &r->w->tasks[task];
	struct sim_task *st = &S(r)->tasks[task];
	if (xfer == XFER_OUTPUT) {
		st->output_flow = -1;
		task_done(r, t);
		return;
	}
	if (xfer < 0) {   /* a map's input has arrived */
		st->input_flow = -1;
		compute(r, t);
		return;
	}
	int i;
	for (i = 0; i < st->nrun && st->run[i].id0 != xfer; i++)
		;
	if (i == st->nrun) {
		run_say(r, "simulator: a flow of task %d ended that it does not run", task);
		return;
	}
	/* Every transfer of the fetch ends with its flow (the last of its
	 * flows, when it was suspended on the way). */
	(void)bytes;
	const struct sim_fetch *f = &st->run[i];
	for (int k = 0; k < f->n; k++) {
		struct xfer x = fetch_xfer(f, k);
		record(r, t, &x, f->item[k].t_start, f->t_moved, true);
		st->bytes_in += x.bytes;
	}
	free(f->item);
	st->run[i] = st->run[--st->nrun];
	start_fetches(r, t);
}

static void computed(struct run *r, const struct event *e)
{
	struct task *t = &r->w->tasks[e->task];
	struct sim_task *st = &S(r)->tasks[e->task];
	if (e->attempt != st->attempt || t->state != TASK_RUNNING)
		return;
	/* A last-stage task writes its output where the policy keeps it; a
	 * task others read spills it to its own disk. */
	bool last = !r->w->jobs[t->job].stages[t->stage].has_children;
	int dst = last ? sched_output_server(&r->s, t) : t->server;
	unsigned sides = disk_sides(last ? DISK_OUTPUT : DISK_SPILL);
	if (t->output_bytes && dst >= 0 && io_costs(r, t->server, dst, sides)) {
		st->writing = true;
		st->output_dst = dst;
		st->output_flow = start_io(r, t->server, dst, t->output_bytes, sides, tag_of(t->id, XFER_OUTPUT));
		return;
	}
	task_done(r, t);
}

/* ---- preemption --------------------------------------------------------- */

/* Stop a flow, returning the bytes it had left. */
static uint64_t stop_flow(struct run *r, int flow)
{
	struct sim_be *b = S(r);
	double left = simnet_remaining(b->net, flow, b->now);
	simnet_remove(b->net, flow, b->now, NULL);
	return left > 0 ? (uint64_t)llround(left) : 0;
}

/* Kill: stop everything of this attempt (its events go stale, its flows
 * go); suspend: the same, keeping what is left to move and compute. */
static void sim_preempt(struct run *r, struct task *t, enum preempt_op op)
{
	struct sim_be *b = S(r);
	struct sim_task *st = &b->tasks[t->id];
	if (!st->suspended) {
		if (st->input_flow >= 0) {
			st->input_left = stop_flow(r, st->input_flow);
			st->input_flow = -1;
		}
		if (st->output_flow >= 0) {
			st->output_left = fmax(1, stop_flow(r, st->output_flow));
			st->output_flow = -1;
		}
		for (int i = 0; i < st->nrun; i++) {
			st->run[i].left = stop_flow(r, st->run[i].flow);
			st->run[i].flow = -1;
		}
		if (st->computing && !st->writing)
			st->compute_left = fmax(0, st->compute_end - b->now);
	}
	st->attempt++;   /* its compute event, if any, is stale */
	st->suspended = true;
	if (op == PREEMPT_KILL)
		reset_task(r, t, st->attempt);
}

static void sim_resume(struct run *r, struct task *t, double delay)
{
	ev_push(S(r), S(r)->now + delay, EV_RESUME, t->id, S(r)->tasks[t->id].attempt);
}

static void resumed(struct run *r, const struct event *e)
{
	struct task *t = &r->w->tasks[e->task];
	struct sim_task *st = &S(r)->tasks[e->task];
	if (e->attempt != st->attempt || !st->suspended || t->state != TASK_RUNNING)
		return;
	st->suspended = false;
	if (st->output_left) {
		st->output_flow = start_io(r, t->server, st->output_dst, st->output_left, DISK_WRITE,
					   tag_of(t->id, XFER_OUTPUT));   /* an output or a spill: the write side */
		st->output_left = 0;
		return;
	}
	if (st->computing) {
		compute_for(r, t, st->compute_left);
		return;
	}
	if (st->input_left)
		st->input_flow = start_io(r, st->input_src, t->server, st->input_left, disk_sides(DISK_INPUT),
					  tag_of(t->id, -1));
	st->input_left = 0;
	for (int i = 0; i < st->nrun; i++) {
		struct sim_fetch *f = &st->run[i];
		f->flow = start_flow(r, f->src, t->server, f->left, f->circuit, tag_of(t->id, f->id0));
	}
	start_fetches(r, t);
}

/* ---- the OCS ------------------------------------------------------------ */

static void ocs_tick_virtual(struct run *r)
{
	struct sim_be *b = S(r);
	ev_push(b, b->now + r->p.ocs.interval_s, EV_OCS_TICK, -1, ++b->tick_gen);
	if (b->lighting)
		return;   /* the last reconfiguration is still under way, as a blocked controller thread would be */
	r->ocs.ticks++;
	simnet_demand(b->net, b->now, b->demand);
	int racks = r->c.racks;
	int64_t served = 0, total = 0;
	for (int s = 0; s < racks; s++)
		for (int d = 0; d < racks; d++) {
			ocs_demand_set(&r->ocs, s, d, b->demand[s * racks + d] + b->queued_bytes[s * racks + d]);
			total += ocs_demand_get(&r->ocs, s, d);
		}
	if (ocs_decide(&r->ocs, &b->next, &served) || !circuits_changed(&b->crossbar, &b->next))
		return;
	struct ocs_event ev = {.changed = circuits_changed(&b->crossbar, &b->next), .cfg = b->next,
			       .served = served, .demand = total};
	ocs_count_reconfig(&r->ocs, &b->lit, &b->next);
	/* Dark now: every lit circuit, or only those that change. */
	for (int p = 0; p < b->lit.ports; p++)
		for (int s = 0; s < b->lit.racks; s++)
			if (r->p.ocs.scope == OCS_DARK_ALL || b->lit.out[p][s] != b->next.out[p][s])
				b->lit.out[p][s] = -1;
	simnet_set_lit(b->net, &b->lit);
	pump_waiting(r);
	b->crossbar = b->next;
	b->lighting = true;
	double t_lit = b->now + r->p.ocs.guard_s + r->p.ocs.delta_s;
	ev_push(b, t_lit, EV_OCS_LIGHT, -1, 0);
	ev.t_announce = b->now;
	ev.t_dark = ev.t_switch = b->now + r->p.ocs.guard_s;
	ev.t_lit = t_lit;
	ev.dark_s = r->p.ocs.delta_s;
	ocs_log_event(&r->ocs, &ev);
}

static void ocs_light(struct run *r)
{
	struct sim_be *b = S(r);
	b->lit = b->crossbar;
	b->lighting = false;
	b->t_lit = b->now;
	simnet_set_lit(b->net, &b->lit);
	pump_waiting(r);
}

/* Circuit transfers from rack s to d, as flows or waiting to start. */
static int circuit_work(const struct sim_be *b, int R, int s, int d)
{
	return simnet_circuit_flows(b->net, s, d) + b->queued_n[s * R + d];
}

/* Early reconfiguration (ocs_early_due): after every event, cheaply, from
 * the counts of circuit transfers per rack pair; a configuration too
 * young to give way is looked at again when it may. */
static void ocs_early_check(struct run *r)
{
	struct sim_be *b = S(r);
	if (!r->ocs_on || !r->p.ocs.early || b->lighting)
		return;
	int R = r->c.racks;
	int busy = 0;   /* the common case: every port carries a busy circuit */
	for (int p = 0; p < b->lit.ports; p++)
		for (int s = 0; s < R; s++)
			busy += b->lit.out[p][s] >= 0 && circuit_work(b, R, s, b->lit.out[p][s]);
	if (busy == b->lit.ports * R)
		return;
	for (int s = 0; s < R; s++)
		for (int d = 0; d < R; d++)
			ocs_demand_set(&r->ocs, s, d, circuit_work(b, R, s, d));
	double hold = b->t_lit + ocs_early_hold_s(&r->ocs);
	if (ocs_early_due(&r->ocs, b->now - b->t_lit))
		ocs_tick_virtual(r);
	else if (b->now < hold && !b->check_queued && ocs_early_due(&r->ocs, INFINITY))
		b->check_queued = ev_push(b, hold, EV_OCS_CHECK, -1, 0) == 0;
}

/* ---- the loop ----------------------------------------------------------- */

/* Run events up to `deadline`.  Bandwidth is reallocated after changes
 * (flows, circuits) at most every quantum q (default 10 ms): a new flow
 * waits up to q for its share and a finished one's share idles up to q.
 * q = 0 reallocates after every change before time moves on (exact, and
 * far slower at paper scale for under 0.5% in makespan and JCT: docs/model.md,
 * *Simulator*). */
static void sim_poll(struct run *r, double deadline)
{
	struct sim_be *b = S(r);
	for (;;) {
		double t_alloc = INFINITY;
		if (simnet_dirty(b->net))
			t_alloc = fmax(b->now, b->last_alloc + r->p.sim_quantum_s);
		int flow = -1;
		double t_flow = simnet_next_done(b->net, &flow);
		double t_ev = b->nev ? b->ev[0].t : INFINITY;
		double t = fmin(t_alloc, fmin(t_flow, t_ev));
		if (t > deadline || run_stop_requested)
			break;
		b->now = r->c.now = fmax(b->now, t);
		b->events++;
		if (t == t_alloc && t_alloc <= t_flow && t_alloc <= t_ev) {
			simnet_allocate(b->net, b->now);
			b->last_alloc = b->now;
			b->allocations++;
		} else if (t == t_flow && t_flow <= t_ev) {
			uint64_t bytes;
			int64_t tag = simnet_remove(b->net, flow, b->now, &bytes);
			flow_done(r, tag, bytes);
		} else {
			struct event e = ev_pop(b);
			if (e.kind == EV_COMPUTED) {
				b->computing--;
				computed(r, &e);
			} else if (e.kind == EV_OCS_TICK) {
				if (e.attempt == b->tick_gen)   /* else superseded by an early reconfiguration */
					ocs_tick_virtual(r);
			} else if (e.kind == EV_RESUME) {
				resumed(r, &e);
			} else if (e.kind == EV_OCS_CHECK)
				b->check_queued = false;
			else
				ocs_light(r);
		}
		ocs_early_check(r);
	}
	if (deadline > b->now && deadline < INFINITY)
		b->now = r->c.now = deadline;
}

/* ---- setup, teardown ---------------------------------------------------- */

static int sim_setup(struct run *r, char err[512])
{
	struct sim_be *b = calloc(1, sizeof *b);
	if (!b) {
		snprintf(err, 512, "out of memory");
		return -1;
	}
	r->be_priv = b;
	b->idle_since = -1;
	b->net = simnet_new(r->t, r->p.hold);
	b->tasks = calloc(r->w->ntasks ? r->w->ntasks : 1, sizeof *b->tasks);
	size_t pairs = (size_t)r->t->racks * r->t->racks;
	b->demand = calloc(pairs, sizeof *b->demand);
	b->queued_bytes = calloc(pairs, sizeof *b->queued_bytes);
	b->queued_n = calloc(pairs, sizeof *b->queued_n);
	if (!b->net || !b->tasks || !b->demand || !b->queued_bytes || !b->queued_n) {
		snprintf(err, 512, "out of memory");
		return -1;
	}
	run_say(r, "simulating %d racks, %d servers (flow level)", r->t->racks, topo_servers(r->t));
	if (r->t->ocs) {
		char path[600], oerr[FABRIC_ERR_LEN];
		circuits_clear(&b->crossbar, r->t);
		b->lit = b->next = b->crossbar;
		snprintf(path, sizeof path, "%s/ocs.csv.tmp", r->dir);
		if (ocs_ctl_init_virtual(&r->ocs, r->t, &b->crossbar, &r->p.ocs, path, oerr)) {
			snprintf(err, 512, "OCS controller: %s", oerr);
			return -1;
		}
		r->ocs_on = true;
		if (ev_push(b, r->p.ocs.interval_s, EV_OCS_TICK, -1, b->tick_gen)) {
			snprintf(err, 512, "out of memory");
			return -1;
		}
	}
	return 0;
}

static void sim_stop(struct run *r)
{
	struct sim_be *b = S(r);
	if (r->flows_csv) {   /* what is left unfinished is a line there, and nothing else now */
		struct unfinished u = unfinished_new(r);
		for (int i = 0; i < r->w->ntasks; i++)
			unfinished_of(r, &r->w->tasks[i], &u);
		record_unfinished(r, &u);
	}
	run_say(r, "simulated %.1f s: %llu events, %llu flows, %llu bandwidth allocations", b->now, b->events,
		b->flows, b->allocations);
}

static void sim_teardown(struct run *r)
{
	struct sim_be *b = S(r);
	if (!b)
		return;
	if (r->ocs_on)
		ocs_ctl_free(&r->ocs);
	for (int i = 0; b->tasks && i < r->w->ntasks; i++) {
		fq_free(&b->tasks[i].queue);
		drop_fetches(&b->tasks[i]);
		free(b->tasks[i].run);
	}
	free(b->tasks);
	free(b->ev);
	free(b->demand);
	free(b->queued_bytes);
	free(b->queued_n);
	free(b->waiting);
	simnet_free(b->net);
	free(b);
	r->be_priv = NULL;
}

static void sim_copy(struct run *r, int id, int src, int dst, uint64_t bytes)
{
	if (!bytes || start_io(r, src, dst, bytes, disk_sides(DISK_COPY), -1 - (int64_t)id) < 0)
		run_copy_done(r, id);
}

static int sim_stats(struct run *r, struct link_stats **out, int *n)
{
	return simnet_stats(S(r)->net, S(r)->now, out, n);
}

static json_t *sim_summary(struct run *r)
{
	struct sim_be *b = S(r);
	double wall = run_wall() - r->wall_start;
	return json_pack("{s:I,s:I,s:I,s:I,s:f,s:f}", "events", (json_int_t)b->events, "flows", (json_int_t)b->flows,
			 "allocations", (json_int_t)b->allocations, "allocations_kept",
			 (json_int_t)(b->net ? simnet_kept(b->net) : 0), "quantum_s", r->p.sim_quantum_s,
			 "events_per_wall_s", wall > 0 ? (double)b->events / wall : 0.0);
}

/* A deadlocked scheduler (every unfinished task waiting on another) would
 * run the virtual clock to --timeout, for hours of wall time at paper
 * scale, with offers as the only work.  Nothing in flight (no flow, no
 * computation), every job's submit time past, jobs unfinished, and that for
 * an hour of virtual time: no scheduler waits that long on purpose. */
#define SIM_STALL_S 3600.0

static const char *sim_failure(struct run *r)
{
	struct sim_be *b = S(r);
	bool idle = !simnet_active(b->net) && !b->nqueued && !b->computing && r->c.running_jobs > 0;
	for (int j = 0; idle && j < r->w->njobs; j++)
		idle = r->c.arrived[j] || r->w->jobs[j].submit_s <= b->now;
	if (!idle) {
		b->idle_since = -1;
		return NULL;
	}
	if (b->idle_since < 0)
		b->idle_since = b->now;
	return b->now - b->idle_since >= SIM_STALL_S ? "stalled: unfinished jobs and nothing in flight for an hour "
						      "of virtual time (a scheduler deadlock)"
						    : NULL;
}

const struct backend_ops backend_sim = {
	.name = "sim",
	.wallclock = false,
	.keeps_xfers = true,
	.setup = sim_setup,
	.stop = sim_stop,
	.teardown = sim_teardown,
	.now = sim_now,
	.poll = sim_poll,
	.start_task = sim_start_task,
	.fetch = sim_fetch,
	.warm = sim_warm,
	.preempt = sim_preempt,
	.resume = sim_resume,
	.copy = sim_copy,
	.stats = sim_stats,
	.failure = sim_failure,
	.summary = sim_summary,
};
