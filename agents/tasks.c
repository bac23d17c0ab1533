/* tasks.c — map and reduce tasks.
 *
 *   map     [fetch the input (remote input_src)] -> compute `duration`
 *           (a timer) -> task_done; the output is then "stored" (served on
 *           request: the data port answers any request).
 *   reduce  fetch messages queue transfers; at most `copiers` fetches
 *           move at once, each taking a holder's queued transfers together
 *           as Hadoop does (emu/copiers.c), in arrival order among those
 *           that can move.  In hold
 *           mode a circuit transfer can move only while its circuit is
 *           lit: one whose circuit is dark is not started (a copier on it
 *           would idle while other holders' bytes could move) and is
 *           reported as queued demand (demand.c), so the OCS controller
 *           sees every byte waiting for a circuit (a started one stays
 *           queued demand until its first byte arrives); a running one whose
 *           circuit goes dark waits at its sender and gives up its copier
 *           until the circuit is back.  Starting every held transfer at
 *           once instead would, when its circuit lights, put all of a
 *           reduce's senders on its port together (incast on real TCP).
 *           Each finished transfer is reported (flow_done).  When the final
 *           fetch message has come and every transfer is done: compute,
 *           task_done with bytes_in = bytes fetched.  A failed transfer
 *           fails the task (task_done ok=false naming the transfer) and
 *           aborts its other transfers.
 *   kill    aborts a task (sockets closed, timer cancelled) and answers
 *           task_done ok=false error="killed".
 *   suspend stops a task keeping its progress: the compute timer with
 *           what was left, each fetch with the bytes it still had to
 *           receive (its connection closed); transfers not started stay
 *           queued.  resume, after its delay (the recovery delay), computes
 *           what was left or asks each holder for the rest of its fetch (a
 *           fetch's transfers are reported once, with their sizes, when it
 *           ends), as the simulator does. */
#include "agents/agent.h"
#include "emu/copiers.h"
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INPUT_XFER 0xffffffffu   /* data_req.xfer of a map's input read */

enum tstate { T_INPUT, T_SHUFFLE, T_COMPUTE, T_READ, T_WRITE };   /* read: local input; write: output */

struct task {
	int id, job;
	bool reduce;
	enum tstate state;
	double duration, t_start;
	uint64_t output_bytes, bytes_in;
	int copiers;
	bool final;
	bool suspended, resuming;     /* preempted; its timer counts the recovery delay */
	double compute_end, compute_left;   /* monotonic; left when suspended in T_COMPUTE */
	uint64_t input_want, input_left;    /* T_INPUT: bytes asked for; suspended: still to read */
	struct sockaddr_in input_addr;
	struct xfer *queue;           /* transfers not started yet */
	int nq, qhead, capq;
	struct running {                /* running fetches: one holder's transfers each */
		struct fetch *f;        /* NULL while suspended */
		uint64_t want, left;    /* bytes it asked for; suspended: still to receive */
		int n;
		struct xfer x[FETCH_MAX_XFERS];
	} *act;
	int nact, capact;
	struct fetch *input;          /* map input fetch */
	struct disk_io io;            /* T_READ, T_WRITE: on the disk (disk.c) */
	struct ev timer;              /* compute */
	struct task *next;
};

static struct task *tasks;
static uint64_t stored_bytes;     /* map outputs held (accounting only) */

static struct task *find(int id)
{
	for (struct task *t = tasks; t; t = t->next)
		if (t->id == id)
			return t;
	return NULL;
}

static bool dark(const struct xfer *x) { return serve_held(x->circuit, x->src_rack, x->dst_rack); }

/* Queued circuit transfers (hold mode) are demand the senders cannot see. */
static void count_queued(const struct xfer *x, int sign)
{
	if (x->circuit && agent.hold)
		demand_queued_add(x->src_rack, sign * (int64_t)x->bytes);
}

static void task_free(struct task *t)
{
	for (struct task **p = &tasks; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			break;
		}
	for (int i = 0; i < t->nact; i++)
		if (t->act[i].f)
			fetch_abort(t->act[i].f);
	for (int i = t->qhead; i < t->nq; i++)
		count_queued(&t->queue[i], -1);
	if (t->input)
		fetch_abort(t->input);
	disk_io_stop(&t->io);
	loop_close(&t->timer);
	free(t->queue);
	free(t->act);
	free(t);
}

static void task_done(struct task *t, bool ok, const char *error)
{
	if (!ok) {   /* count what the aborted fetches received so far */
		for (int i = 0; i < t->nact; i++)
			t->bytes_in += t->act[i].f ? fetch_result(t->act[i].f)->bytes : 0;
		if (t->input)
			t->bytes_in += fetch_result(t->input)->bytes;
	}
	struct msg m = {.op = OP_TASK_DONE, .task = t->id, .ok = ok, .t_start = t->t_start, .t_end = now_real(),
			.bytes = t->bytes_in};
	if (!ok)
		snprintf(m.error, sizeof m.error, "%s", error);
	control_send(&m);
	if (ok && !t->reduce)
		stored_bytes += t->output_bytes;
	task_free(t);
}

static void resumed(struct task *t);
static void compute(struct task *t);

/* Its disk share: a local input read done computes, an output written is done. */
static void on_io(struct disk_io *io, uint64_t bytes)
{
	(void)bytes;
	struct task *t = (struct task *)((char *)io - offsetof(struct task, io));
	if (io->want)
		return;
	disk_io_stop(io);
	if (t->state == T_READ)
		compute(t);
	else
		task_done(t, true, NULL);
}

static void on_compute_done(struct ev *e, uint32_t events)
{
	(void)events;
	struct task *t = (struct task *)((char *)e - offsetof(struct task, timer));
	timer_ack(e);
	if (t->resuming) {
		resumed(t);
	} else if (t->output_bytes && disk_limited(DISK_WRITE)) {
		/* A map spills its output to this disk, a reduce writes its own here. */
		t->state = T_WRITE;
		disk_io_start(&t->io, DISK_WRITE, t->output_bytes, on_io);
	} else {
		task_done(t, true, NULL);
	}
}

static void compute_for(struct task *t, double seconds)
{
	t->state = T_COMPUTE;
	t->compute_end = now_mono() + seconds;
	timer_arm(&t->timer, seconds);
}

static void compute(struct task *t) { compute_for(t, t->duration); }

static struct task *task_new(const struct msg *m, bool reduce)
{
	if (find(m->task)) {
		alog("ignoring %s task %d: already running", reduce ? "reduce" : "map", m->task);
		return NULL;
	}
	struct task *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->id = m->task;
	t->job = m->job;
	t->reduce = reduce;
	t->duration = m->duration;
	t->output_bytes = m->output_bytes;
	t->t_start = now_real();
	t->timer.fd = -1;
	if (timer_open(&t->timer, on_compute_done)) {
		alog("task %d: timerfd failed", m->task);
		free(t);
		return NULL;
	}
	t->next = tasks;
	tasks = t;
	return t;
}

static void on_input(struct fetch *f, void *arg)
{
	struct task *t = arg;
	const struct fetch_result *r = fetch_result(f);
	t->input = NULL;
	t->bytes_in += r->bytes;
	if (!r->ok) {
		char err[128];
		snprintf(err, sizeof err, "input %s", r->error);
		task_done(t, false, err);
		return;
	}
	compute(t);
}

void tasks_map(const struct msg *m)
{
	struct task *t = task_new(m, false);
	if (!t)
		return;
	if (m->input_src < 0) {
		t->bytes_in = m->input_bytes;   /* read locally: no network */
		if (m->input_bytes && disk_limited(DISK_READ)) {
			t->state = T_READ;
			disk_io_start(&t->io, DISK_READ, m->input_bytes, on_io);
		} else {
			compute(t);
		}
		return;
	}
	t->state = T_INPUT;
	t->input_addr = m->input_addr;
	t->input_want = m->input_bytes;
	t->input = fetch_start(&m->input_addr, INPUT_XFER, m->input_bytes, false, -1, agent.rack, on_input, t);
	if (!t->input)
		task_done(t, false, "input fetch: out of memory");
}

void tasks_reduce(const struct msg *m)
{
	struct task *t = task_new(m, true);
	if (!t)
		return;
	t->state = T_SHUFFLE;
	t->copiers = m->copiers > 0 ? m->copiers : agent.copiers;
}

static void on_xfer(struct fetch *f, void *arg);

/* Start one fetch of the transfers xs[0..n), all from one holder (of
 * `left` bytes when it resumes one, else all of theirs).  Returns false if
 * t was freed. */
static bool start(struct task *t, const struct xfer *xs, int n, uint64_t left)
{
	if (t->nact == t->capact) {
		int cap = t->capact ? 2 * t->capact : 8;
		struct running *a = realloc(t->act, (size_t)cap * sizeof *a);
		if (!a) {
			task_done(t, false, "fetch: out of memory");
			return false;
		}
		t->act = a;
		t->capact = cap;
	}
	uint64_t bytes = 0;
	for (int i = 0; i < n; i++)
		bytes += xs[i].bytes;
	bytes = left ? left : bytes;
	const struct xfer *x = &xs[0];
	struct fetch *f = fetch_start(&x->addr, (uint32_t)x->id, bytes, x->circuit, x->src_rack, x->dst_rack, on_xfer, t);
	if (!f) {   /* out of memory or of descriptors */
		for (int i = 0; i < n; i++)
			count_queued(&xs[i], -1);
		char err[96];
		snprintf(err, sizeof err, "fetch: %s", strerror(errno));
		task_done(t, false, err);
		return false;
	}
	struct running *a = &t->act[t->nact++];
	a->f = f;
	a->want = bytes;
	a->left = 0;
	a->n = n;
	memcpy(a->x, xs, (size_t)n * sizeof *xs);
	return true;
}

static bool movable(const struct xfer *x, void *arg)
{
	(void)arg;
	return !dark(x);
}

static bool holder_busy(int src, void *arg)
{
	const struct task *t = arg;
	for (int i = 0; i < t->nact; i++)
		if (t->act[i].x[0].src == src)
			return true;
	return false;
}

/* Start fetches of queued transfers into free copiers, the oldest first;
 * compute when all is done.  Returns false if t was freed. */
static bool pump(struct task *t)
{
	if (t->suspended)
		return true;
	int busy = 0;
	for (int i = 0; i < t->nact; i++)
		busy += !dark(&t->act[i].x[0]);
	const struct copier_rules rules = {movable, holder_busy, t};
	struct xfer xs[FETCH_MAX_XFERS];
	/* A started fetch's transfers stay queued demand until its first byte
	 * (fetch.c): the sender counts them only once the request arrives. */
	for (int n; busy < t->copiers && (n = copiers_take(t->queue, &t->qhead, t->nq, &rules, xs)); busy++)
		if (!start(t, xs, n, 0))
			return false;
	if (t->final && t->qhead == t->nq && t->nact == 0 && t->state == T_SHUFFLE)
		compute(t);
	return true;
}

static void on_xfer(struct fetch *f, void *arg)
{
	struct task *t = arg;
	const struct fetch_result *r = fetch_result(f);
	int i;
	for (i = 0; i < t->nact && t->act[i].f != f; i++)
		;
	if (i == t->nact) {
		alog("task %d: a fetch finished that it does not own", t->id);
		return;
	}
	struct running done = t->act[i];
	t->act[i] = t->act[--t->nact];
	t->bytes_in += r->bytes;
	if (!r->ok) {
		task_done(t, false, r->error);
		return;
	}
	/* Every transfer of the fetch is reported, as having moved together. */
	for (int k = 0; k < done.n; k++) {
		const struct xfer *x = &done.x[k];
		struct msg m = {.op = OP_FLOW_DONE, .xfer = x->id, .task = t->id, .bytes = x->bytes, .t_start = r->t_start,
				.t_end = r->t_end, .circuit = x->circuit, .src = x->src, .dst = agent.id};
		control_send(&m);
	}
	pump(t);
}

void tasks_fetch(const struct msg *m)
{
	struct task *t = find(m->task);
	if (!t || !t->reduce) {
		alog("ignoring fetch for task %d: no such reduce task here", m->task);
		return;
	}
	if (t->final) {
		alog("ignoring fetch for task %d: its final fetch came already", m->task);
		return;
	}
	if (t->nq + m->nxfers > t->capq) {
		int cap = t->capq ? t->capq : 16;
		while (cap < t->nq + m->nxfers)
			cap *= 2;
		struct xfer *q = realloc(t->queue, (size_t)cap * sizeof *q);
		if (!q) {
			task_done(t, false, "out of memory");
			return;
		}
		t->queue = q;
		t->capq = cap;
	}
	for (int i = 0; i < m->nxfers; i++) {
		t->queue[t->nq++] = m->xfers[i];
		count_queued(&m->xfers[i], +1);
	}
	t->final = m->final;
	pump(t);
}

void tasks_circuits_changed(void)
{
	for (struct task *t = tasks, *next; t; t = next) {
		next = t->next;   /* pump may free t */
		if (t->reduce && t->state == T_SHUFFLE)
			pump(t);
	}
}

void tasks_suspend(int id)
{
	struct task *t = find(id);
	if (!t || t->suspended) {
		alog("suspend: no running task %d here", id);
		return;
	}
	t->suspended = true;
	if (t->resuming) {   /* suspended again within its recovery delay */
		t->resuming = false;
		timer_disarm(&t->timer);
		return;
	}
	if (t->state == T_COMPUTE) {
		timer_disarm(&t->timer);
		t->compute_left = t->compute_end - now_mono();
		if (t->compute_left < 0)
			t->compute_left = 0;
	}
	disk_io_stop(&t->io);   /* keeps what it still wanted */
	if (t->input) {
		const struct fetch_result *r = fetch_result(t->input);
		t->input_left = t->input_want > r->bytes ? t->input_want - r->bytes : 1;
		t->bytes_in += r->bytes;
		fetch_abort(t->input);
		t->input = NULL;
	}
	for (int i = 0; i < t->nact; i++) {
		struct running *a = &t->act[i];
		if (!a->f)
			continue;
		const struct fetch_result *r = fetch_result(a->f);
		a->left = a->want > r->bytes ? a->want - r->bytes : 1;   /* at least a byte: it did not end */
		t->bytes_in += r->bytes;
		fetch_abort(a->f);
		a->f = NULL;
	}
}

void tasks_resume(int id, double delay)
{
	struct task *t = find(id);
	if (!t || !t->suspended) {
		alog("resume: no suspended task %d here", id);
		return;
	}
	t->resuming = true;
	timer_arm(&t->timer, delay);
}

/* The recovery delay is over: go on from where it stopped. */
static void resumed(struct task *t)
{
	t->resuming = t->suspended = false;
	if (t->state == T_COMPUTE) {
		compute_for(t, t->compute_left);
		return;
	}
	if (t->state == T_READ || t->state == T_WRITE) {
		disk_io_start(&t->io, t->state == T_READ ? DISK_READ : DISK_WRITE, t->io.want, on_io);
		return;
	}
	if (t->state == T_INPUT) {
		t->input_want = t->input_left;
		t->input = fetch_start(&t->input_addr, INPUT_XFER, t->input_left, false, -1, agent.rack, on_input, t);
		if (!t->input)
			task_done(t, false, "input fetch: out of memory");
		return;
	}
	/* Restart the stopped fetches (each takes its slot back), then pump. */
	int n = t->nact;
	struct running stopped[n ? n : 1];
	memcpy(stopped, t->act, (size_t)n * sizeof *stopped);
	t->nact = 0;
	for (int i = 0; i < n; i++)
		if (!start(t, stopped[i].x, stopped[i].n, stopped[i].left))
			return;
	pump(t);
}

void tasks_kill(int id)
{
	struct task *t = find(id);
	if (!t) {
		alog("kill: no task %d here", id);
		return;
	}
	task_done(t, false, "killed");
}
