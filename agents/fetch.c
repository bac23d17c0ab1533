/* fetch.c — one fetch, the receiver side of a transfer: connect to the
 * sender's data port, write a struct data_req, read to EOF, and check that
 * exactly the requested bytes arrived.  Received data is discarded in the
 * kernel (MSG_TRUNC), never copied to user space.
 *
 * A connection that receives nothing for agent.stall_timeout seconds (not
 * counting time a held circuit transfer waits for its circuit), or that
 * breaks once established (a reset, an EOF before all bytes), is closed and
 * replaced by a new one asking for the bytes still missing, after
 * stall_backoff(); after agent.stall_retries of those the fetch fails
 * (stall.h).  A fetch whose bytes are written to this server's disk
 * (fetch_to_disk: a copy) receives no more than the disk's write side has
 * granted it, so a slow disk holds its sender back through TCP as the
 * simulator's filling does.  One timerfd serves every fetch: it is armed for the earliest
 * deadline, and deadlines only move later as bytes arrive, so a fire finds
 * them all up to date. */
#include "agents/agent.h"
#include "agents/stall.h"
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

enum fstate { F_CONNECT, F_READ, F_WAIT };

struct fetch {
	struct ev ev;                 /* first */
	struct fetch *prev, *next;    /* every live fetch */
	enum fstate state;
	bool dead;                    /* finished or aborted (freed at the end of the batch) */
	struct sockaddr_in addr;
	uint64_t want;
	uint32_t xfer;
	bool circuit;
	int src_rack, dst_rack;
	int early_errno;              /* connect failed synchronously */
	bool queued;                  /* still counted as the receiver's queued demand */
	struct stall_watch watch;     /* F_READ: last time bytes arrived */
	double retry_at;              /* F_WAIT: when to reconnect (monotonic) */
	fetch_done_fn done;
	void *arg;
	struct fetch_result res;
	bool nodisk;                  /* the sender sends from memory (data_req.nodisk) */
	bool to_disk;                 /* received bytes are written to this disk */
	struct disk_io io;            /* to_disk on a limited disk: its write grants */
	uint64_t credit;              /* bytes granted, not received yet */
	uint32_t events;              /* what epoll watches now */
};

static struct fetch *all;
static struct ev tmr = {.fd = -1};
static double armed_for;          /* monotonic deadline the timer is set for, 0 = none */

static const char *addr_str(const struct sockaddr_in *a, char *buf, size_t len)
{
	char ip[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
	snprintf(buf, len, "%s:%u", ip, ntohs(a->sin_port));
	return buf;
}

static void unlink_fetch(struct fetch *f)
{
	f->dead = true;
	if (f->prev)
		f->prev->next = f->next;
	else if (all == f)
		all = f->next;
	if (f->next)
		f->next->prev = f->prev;
	f->prev = f->next = NULL;
}

/* A circuit transfer in hold mode is the receiver's queued demand
 * (tasks.c) until its first byte: only then has its sender certainly
 * counted it (demand.c), so the controller never sees the pair without it. */
static void unqueue(struct fetch *f)
{
	if (f->queued)
		demand_queued_add(f->src_rack, -(int64_t)f->want);
	f->queued = false;
}

static void finish(struct fetch *f, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void finish(struct fetch *f, bool ok, const char *fmt, ...)
{
	f->res.ok = ok;
	f->res.t_end = now_real();
	if (fmt) {
		char what[96], a[32];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(what, sizeof what, fmt, ap);
		va_end(ap);
		snprintf(f->res.error, sizeof f->res.error, "xfer %u from %s: %s", f->xfer,
			 addr_str(&f->addr, a, sizeof a), what);
	}
	unqueue(f);
	disk_io_stop(&f->io);
	loop_close(&f->ev);
	unlink_fetch(f);
	f->done(f, f->arg);
	loop_defer_free(f);
}

static int sock_error(int fd)
{
	int e = 0;
	socklen_t l = sizeof e;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l))
		e = errno;
	return e;
}

/* The sender is holding this transfer for its circuit: nothing may arrive. */
static bool held(const struct fetch *f)
{
	return serve_held(f->circuit, f->src_rack, f->dst_rack);
}

static void on_timer(struct ev *e, uint32_t events);

/* Make sure the timer fires by `when` (monotonic). */
static void arm_by(double when)
{
	if (when >= 1e299 || (armed_for > 0 && armed_for <= when))
		return;
	if (tmr.fd < 0 && timer_open(&tmr, on_timer)) {
		alog("fetch timer: %s (no stall timeouts)", strerror(errno));
		return;
	}
	timer_arm(&tmr, when - now_mono());
	armed_for = when;
}

static void on_fetch(struct ev *e, uint32_t events);

/* What it may receive now: all of it (and the EOF after it), or within
 * the disk's grants when it writes to a limited disk. */
static size_t receivable(const struct fetch *f)
{
	static const size_t all_of_it = 1 << 20;
	if (!f->to_disk || !disk_limited(DISK_WRITE) || f->res.bytes >= f->want)
		return all_of_it;
	return f->credit < all_of_it ? (size_t)f->credit : all_of_it;
}

/* Held back by its disk: wait for the next grant (not for the sender's
 * close, which comes once its bytes are in the kernel; errors still wake it). */
static void watch_read(struct fetch *f)
{
	uint32_t ev = receivable(f) ? EPOLLIN | EPOLLRDHUP : 0;
	if (f->events != ev && loop_mod(&f->ev, ev) == 0)
		f->events = ev;
}

/* What it asks of the disk's write side: the bytes not granted yet, at
 * most two ticks of the whole disk ahead of what has arrived (as serve.c's
 * reads), so a fetch the network holds back leaves its share to others. */
static void rewant(struct fetch *f)
{
	if (!f->io.on)
		return;
	uint64_t got = f->res.bytes + f->credit, owed = f->want > got ? f->want - got : 0;
	uint64_t cap = 2 * disk_tick_bytes(DISK_WRITE), room = cap > f->credit ? cap - f->credit : 0;
	f->io.want = owed < room ? owed : room;
	if (!owed)
		disk_io_stop(&f->io);
}

static void on_disk(struct disk_io *io, uint64_t bytes)
{
	struct fetch *f = (struct fetch *)((char *)io - offsetof(struct fetch, io));
	f->credit += bytes;
	rewant(f);
	if (f->state == F_READ && !f->dead)
		watch_read(f);
}

/* Open the connection for what is still missing.  0, or -1 with errno. */
static int conn_open(struct fetch *f)
{
	f->state = F_CONNECT;
	f->early_errno = 0;
	f->ev.cb = on_fetch;
	f->ev.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->ev.fd < 0)
		return -1;
	int syncnt = 3;   /* an unreachable peer fails in ~15 s, not ~2 min */
	if (data_sockopts(f->ev.fd, false) ||
	    setsockopt(f->ev.fd, IPPROTO_TCP, TCP_SYNCNT, &syncnt, sizeof syncnt))
		f->early_errno = errno;
	else if (connect(f->ev.fd, (const struct sockaddr *)&f->addr, sizeof f->addr) && errno != EINPROGRESS)
		f->early_errno = errno;
	/* A failed socket reports EPOLLHUP at once: the error is delivered
	 * from the loop, never from here. */
	f->events = EPOLLOUT;
	if (loop_add(&f->ev, EPOLLOUT)) {
		int err = errno;
		close(f->ev.fd);
		f->ev.fd = -1;
		errno = err;
		return -1;
	}
	return 0;
}

/* The connection failed after `what`: resume on a new one, or fail. */
static void broke(struct fetch *f, enum stall_why why, const char *what)
{
	unsigned long long got = f->res.bytes, want = f->want;
	if (!stall_may_retry(why, f->res.retries, agent.stall_retries)) {
		if (f->res.retries)
			finish(f, false, "%s, %llu of %llu bytes, after %d retries", what, got, want, f->res.retries);
		else
			finish(f, false, "%s, %llu of %llu bytes", what, got, want);
		return;
	}
	char a[32];
	f->res.retries++;
	double wait = stall_backoff(f->res.retries);
	alog("xfer %u from %s: %s at %llu of %llu bytes; asking for the rest again in %.1f s (retry %d of %d)",
	     f->xfer, addr_str(&f->addr, a, sizeof a), what, got, want, wait, f->res.retries, agent.stall_retries);
	loop_close(&f->ev);
	f->state = F_WAIT;
	f->retry_at = now_mono() + wait;
	arm_by(f->retry_at);
}

static void on_fetch(struct ev *e, uint32_t events)
{
	struct fetch *f = (struct fetch *)e;
	char what[80];
	if (f->state == F_CONNECT) {
		int err = f->early_errno ? f->early_errno : sock_error(e->fd);
		if (err) {
			snprintf(what, sizeof what, "connect: %s", strerror(err));
			/* refused: nobody listens there any more; the controller
			 * re-runs what that server held.  A timeout may be a
			 * passing black hole on a connection that worked. */
			broke(f, err == ETIMEDOUT && f->res.retries ? STALL_CONN_ERROR : STALL_CONNECT, what);
			return;
		}
		if (!(events & EPOLLOUT))
			return;
		struct data_req req = {.magic = htonl(DATA_REQ_MAGIC), .xfer = htonl(f->xfer),
				       .bytes = htobe64(f->want - f->res.bytes), .dst_rack = htons((uint16_t)f->dst_rack),
				       .circuit = f->circuit ? 1 : 0, .nodisk = f->nodisk ? 1 : 0};
		/* 24 bytes into an empty socket buffer: never partial */
		ssize_t n = send(e->fd, &req, sizeof req, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n != (ssize_t)sizeof req) {
			snprintf(what, sizeof what, "sending the request: %s", n < 0 ? strerror(errno) : "short write");
			broke(f, STALL_CONN_ERROR, what);
			return;
		}
		f->state = F_READ;
		stall_start(&f->watch, f->res.bytes, now_mono());
		arm_by(stall_deadline(&f->watch, agent.stall_timeout));
		watch_read(f);
		return;
	}
	static char sink[1 << 20];   /* never written: MSG_TRUNC */
	uint64_t before = f->res.bytes;
	for (int i = 0; i < 64; i++) {
		size_t may = receivable(f);
		if (!may)
			break;
		/* MSG_TRUNC on TCP: the kernel drops the data without copying */
		ssize_t n = recv(e->fd, sink, may, MSG_TRUNC | MSG_DONTWAIT);
		if (n > 0) {
			unqueue(f);
			f->res.bytes += (uint64_t)n;
			if (f->to_disk) {
				f->credit -= (uint64_t)n < f->credit ? (uint64_t)n : f->credit;
				rewant(f);
			}
			if (f->res.bytes > f->want) {
				finish(f, false, "sender sent more than the %llu bytes asked for",
				       (unsigned long long)f->want);
				return;
			}
			continue;
		}
		if (n == 0) {
			if (f->res.bytes == f->want)
				finish(f, true, NULL);
			else
				broke(f, STALL_SHORT_EOF, "connection closed early");
			return;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN)
			break;
		snprintf(what, sizeof what, "receiving: %s", strerror(errno));
		broke(f, STALL_CONN_ERROR, what);
		return;
	}
	if (f->to_disk && !f->dead && f->state == F_READ)
		watch_read(f);
	if (f->res.bytes != before) {
		double now = now_mono(), gap = now - f->watch.since;
		/* a long silence that ended by itself: worth knowing when
		 * choosing the timeout */
		if (agent.stall_timeout > 0 && gap >= agent.stall_timeout / 2) {
			char a[32];
			alog("xfer %u from %s: data again after %.1f s without any (stall timeout %g s)", f->xfer,
			     addr_str(&f->addr, a, sizeof a), gap, agent.stall_timeout);
		}
		stall_start(&f->watch, f->res.bytes, now);
	}
}

static void on_timer(struct ev *e, uint32_t events)
{
	(void)events;
	timer_ack(e);
	armed_for = 0;
	double now = now_mono(), next = 1e300;
	/* Expiring a fetch may end its task, which aborts the task's other
	 * fetches (unlinked, freed after this batch): collect first. */
	size_t n = 0, cap = 0;
	struct fetch **due = NULL;
	for (struct fetch *f = all; f; f = f->next) {
		double when;
		if (f->state == F_WAIT)
			when = f->retry_at;
		else if (f->state == F_READ) {
			stall_idle(&f->watch, f->res.bytes, held(f), now);
			when = stall_deadline(&f->watch, agent.stall_timeout);
		} else
			continue;
		if (when > now) {
			if (when < next)
				next = when;
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			struct fetch **d = realloc(due, cap * sizeof *d);
			if (!d) {   /* try again shortly */
				next = now + 0.1;
				break;
			}
			due = d;
		}
		due[n++] = f;
	}
	for (size_t i = 0; i < n; i++) {
		struct fetch *f = due[i];
		if (f->dead)
			continue;
		if (f->state == F_WAIT) {
			if (conn_open(f)) {
				char what[80];
				snprintf(what, sizeof what, "reconnecting: %s", strerror(errno));
				broke(f, STALL_CONNECT, what);
			}
		} else {
			char what[80];
			snprintf(what, sizeof what, "no data for %.1f s", now - f->watch.since);
			broke(f, STALL_IDLE, what);
		}
	}
	free(due);
	arm_by(next);
}

void fetch_circuits_changed(void)
{
	double now = now_mono();
	for (struct fetch *f = all; f; f = f->next)
		if (f->state == F_READ && held(f))
			stall_start(&f->watch, f->res.bytes, now);
}

struct fetch *fetch_start(const struct sockaddr_in *addr, uint32_t xfer, uint64_t bytes, bool circuit,
			  int src_rack, int dst_rack, fetch_done_fn done, void *arg)
{
	struct fetch *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->addr = *addr;
	f->want = bytes;
	f->xfer = xfer;
	f->circuit = circuit;
	f->src_rack = src_rack;
	f->dst_rack = dst_rack;
	f->queued = circuit && agent.hold;
	f->done = done;
	f->arg = arg;
	f->res.t_start = now_real();
	if (conn_open(f)) {
		free(f);
		return NULL;
	}
	f->next = all;
	if (all)
		all->prev = f;
	all = f;
	return f;
}

void fetch_disks(struct fetch *f, bool from_disk, bool to_disk)
{
	f->nodisk = !from_disk;
	f->to_disk = to_disk;
	if (to_disk && disk_limited(DISK_WRITE) && f->want) {
		disk_io_start(&f->io, DISK_WRITE, f->want, on_disk);
		rewant(f);
	}
}

const struct fetch_result *fetch_result(const struct fetch *f) { return &f->res; }

void fetch_abort(struct fetch *f)
{
	unqueue(f);
	disk_io_stop(&f->io);
	loop_close(&f->ev);
	unlink_fetch(f);
	loop_defer_free(f);
}
