/* serve.c — the data port: the sender side of every transfer.
 *
 * A peer connects, writes one struct data_req, and gets exactly req.bytes of
 * synthetic data before the close.  The bytes come from a memfd of zeros
 * with sendfile (no copy through user space), or from a static zero buffer
 * with send() (--send send).  Each socket is written while it is writable,
 * a bounded amount per wakeup so transfers share the agent fairly.
 *
 * Circuit-eligible transfers (req.circuit) are marked (IP_TOS 0x08) with a
 * small TCP_NOTSENT_LOWAT, and in hold mode written only while the circuit
 * own rack -> req.dst_rack is lit: `announce` stops them at once, a
 * `circuits` message that lists the pair resumes them.  Their bytes not yet
 * handed to the kernel are the pending demand per destination rack
 * (demand.c).
 *
 * With a disk read rate (disk.c) every transfer is read off this server's
 * disk: it sends no more than the disk has granted it; one asked for with
 * nodisk (a task's output on its way to another disk) is sent from memory.
 *
 * Once every byte is handed to the kernel the sender shuts its side down
 * and waits for the fetcher to close (or for the kernel to report the bytes
 * acknowledged): the socket is never orphaned, so the kernel keeps
 * retransmitting its tail as long as for an open socket (an orphan gives up
 * after tcp_orphan_retries, leaving the fetcher without its last bytes).
 * A connection whose peer acknowledges nothing for agent.stall_timeout
 * seconds while it may send (not while a held circuit transfer waits for
 * its circuit), or that never sends its request, is aborted with a reset:
 * the fetcher, if it still lives, asks for the rest on a new one. */
#include "agents/agent.h"
#include "agents/stall.h"
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHUNK        (1u << 20)    /* bytes per write call */
#define BUDGET       (8u << 20)    /* bytes per socket per wakeup */

enum sstate { S_REQ, S_SEND, S_DRAIN };   /* drain: all handed to the kernel, FIN sent */

struct sconn {
	struct ev ev;                  /* first: the loop hands us this pointer */
	struct sconn *prev, *next;
	enum sstate state;
	uint8_t req[sizeof(struct data_req)];
	size_t got;
	uint32_t xfer;
	uint64_t bytes, left;
	int dst_rack;
	bool circuit;
	uint32_t events;               /* what epoll watches now */
	struct disk_io io;             /* read off the disk (disk.c), when limited */
	uint64_t credit;               /* bytes the disk has granted, not sent yet */
	struct stall_watch watch;      /* progress: request bytes, then bytes acknowledged */
};

static struct ev lev = {.fd = -1};
static struct sconn *conns;
static int memfd = -1;
static char zeros[CHUNK];
static bool lit[AGENT_MAX_RACKS];
static uint8_t lit_all[AGENT_MAX_RACKS][AGENT_MAX_RACKS / 8];   /* every lit pair, for fetch.c */
static struct ev stimer = {.fd = -1};   /* stall sweep, while there are connections */
static bool sarmed;

static void pend_sub(struct sconn *c, uint64_t n)
{
	if (c->circuit && n)
		demand_pending_add(c->dst_rack, -(int64_t)n);
}

static bool may_write(const struct sconn *c)
{
	return !c->circuit || !agent.hold || lit[c->dst_rack];
}

static void set_events(struct sconn *c, uint32_t ev)
{
	if (c->events != ev && loop_mod(&c->ev, ev) == 0)
		c->events = ev;
}

static void conn_close(struct sconn *c, const char *why)
{
	if (why)
		alog("data connection (xfer %u): %s", c->xfer, why);
	if (c->state == S_SEND)
		pend_sub(c, c->left);
	disk_io_stop(&c->io);
	loop_close(&c->ev);
	if (c->prev)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	loop_defer_free(c);
}

/* Every byte is in the kernel: send the FIN after them and wait for the
 * fetcher's close. */
static void drain(struct sconn *c)
{
	shutdown(c->ev.fd, SHUT_WR);
	c->state = S_DRAIN;
	set_events(c, EPOLLIN | EPOLLRDHUP);
}

/* What a served transfer asks of the disk: the bytes not granted yet, but
 * no more than two ticks of the whole disk ahead of what it has sent, so
 * that one the network holds back leaves its share to the others (max-min,
 * as the simulator's filling); all granted, it leaves the disk. */
static void rewant(struct sconn *c)
{
	if (!c->io.on)
		return;
	uint64_t owed = c->left > c->credit ? c->left - c->credit : 0, cap = 2 * disk_tick_bytes(DISK_READ);
	uint64_t room = cap > c->credit ? cap - c->credit : 0;
	c->io.want = owed < room ? owed : room;
	if (!owed)
		disk_io_stop(&c->io);
}

/* What the connection may send now: what is left, within the disk's grants. */
static uint64_t sendable(const struct sconn *c) { return c->credit < c->left ? c->credit : c->left; }

static void do_send(struct sconn *c)
{
	uint64_t budget = BUDGET;
	while (sendable(c) && budget) {
		uint64_t may = sendable(c);
		size_t n = may < CHUNK ? (size_t)may : CHUNK;
		ssize_t w;
		if (memfd >= 0) {
			off_t off = 0;
			w = sendfile(c->ev.fd, memfd, &off, n);
		} else {
			w = send(c->ev.fd, zeros, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		}
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			char why[96];
			snprintf(why, sizeof why, "send: %s (%llu bytes unsent)", strerror(errno),
				 (unsigned long long)c->left);
			conn_close(c, why);
			return;
		}
		if (w == 0)
			break;
		c->left -= (uint64_t)w;
		c->credit -= (uint64_t)w < c->credit ? (uint64_t)w : c->credit;
		budget = (uint64_t)w >= budget ? 0 : budget - (uint64_t)w;
		pend_sub(c, (uint64_t)w);
	}
	rewant(c);
	if (!c->left)
		drain(c);
	else if (!sendable(c))
		set_events(c, EPOLLRDHUP);   /* until the disk grants more */
}

static void on_disk(struct disk_io *io, uint64_t bytes)
{
	struct sconn *c = (struct sconn *)((char *)io - offsetof(struct sconn, io));
	c->credit += bytes;
	rewant(c);
	if (c->state == S_SEND && may_write(c)) {
		set_events(c, EPOLLRDHUP | EPOLLOUT);
		do_send(c);
	}
}

static void start_send(struct sconn *c)
{
	struct data_req r;
	memcpy(&r, c->req, sizeof r);
	c->xfer = ntohl(r.xfer);
	if (ntohl(r.magic) != DATA_REQ_MAGIC) {
		conn_close(c, "bad request magic");
		return;
	}
	uint64_t bytes = be64toh(r.bytes);
	c->dst_rack = ntohs(r.dst_rack);
	c->circuit = r.circuit != 0;
	if (c->dst_rack >= AGENT_MAX_RACKS) {
		conn_close(c, "destination rack out of range");
		return;
	}
	if (data_sockopts(c->ev.fd, c->circuit)) {
		char why[96];
		snprintf(why, sizeof why, "socket options: %s", strerror(errno));
		conn_close(c, why);
		return;
	}
	c->bytes = c->left = bytes;
	c->state = S_SEND;
	if (c->circuit)
		demand_pending_add(c->dst_rack, (int64_t)bytes);
	if (!bytes) {
		drain(c);
		return;
	}
	if (disk_limited(DISK_READ) && !r.nodisk) {
		disk_io_start(&c->io, DISK_READ, bytes, on_disk);
		rewant(c);
	} else
		c->credit = bytes;
	set_events(c, EPOLLRDHUP | (may_write(c) ? EPOLLOUT : 0));
	if (may_write(c))
		do_send(c);
}

static void on_conn(struct ev *e, uint32_t events)
{
	struct sconn *c = (struct sconn *)e;
	if (c->state == S_REQ) {
		for (;;) {
			ssize_t n = recv(e->fd, c->req + c->got, sizeof c->req - c->got, MSG_DONTWAIT);
			if (n > 0) {
				c->got += (size_t)n;
				if (c->got == sizeof c->req) {
					start_send(c);
					return;
				}
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				return;
			conn_close(c, n == 0 ? "peer closed before its request" : strerror(errno));
			return;
		}
	}
	if (c->state == S_DRAIN) {
		/* the fetcher closes once it has everything */
		char b[64];
		ssize_t n;
		while ((n = recv(e->fd, b, sizeof b, MSG_DONTWAIT)) > 0)
			;
		if (n == 0 || (errno != EAGAIN && errno != EINTR) || (events & (EPOLLERR | EPOLLHUP)))
			conn_close(c, NULL);
		return;
	}
	if (events & (EPOLLERR | EPOLLHUP | EPOLLRDHUP)) {
		/* The fetcher closes only after EOF: an early close is an abort. */
		char why[96];
		snprintf(why, sizeof why, "peer went away with %llu bytes unsent", (unsigned long long)c->left);
		conn_close(c, why);
		return;
	}
	if (events & EPOLLOUT)
		do_send(c);
}

/* How often the stall sweep looks: a stalled connection goes within
 * timeout + this. */
static double sweep_period(void)
{
	double p = agent.stall_timeout / 4;
	return p < 0.05 ? 0.05 : p > 2 ? 2 : p;
}

/* Progress of c as the kernel sees it: request bytes while it reads the
 * request, then what the peer acknowledged (handed to the kernel minus
 * still in the send queue; the FIN counts one).  *unacked = that queue. */
static uint64_t progress(const struct sconn *c, int *unacked)
{
	*unacked = 0;
	if (c->state == S_REQ)
		return c->got;
	int q = 0;
	if (ioctl(c->ev.fd, SIOCOUTQ, &q) || q < 0)
		q = 0;
	*unacked = q;
	uint64_t handed = c->bytes - c->left + (c->state == S_DRAIN ? 1 : 0);
	return handed - (uint64_t)q;
}

static void abort_conn(struct sconn *c, const char *why)
{
	struct linger l = {.l_onoff = 1, .l_linger = 0};   /* close with a reset */
	setsockopt(c->ev.fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	conn_close(c, why);
}

static void on_stimer(struct ev *e, uint32_t events)
{
	(void)events;
	timer_ack(e);
	sarmed = false;
	double now = now_mono();
	for (struct sconn *c = conns, *next; c; c = next) {
		next = c->next;   /* conn_close unlinks only c */
		int unacked;
		uint64_t mark = progress(c, &unacked);
		if (c->state == S_DRAIN && unacked == 0) {
			conn_close(c, NULL);   /* delivered; the peer's close is still on its way */
			continue;
		}
		bool held = c->state == S_SEND && !may_write(c);
		double idle = stall_idle(&c->watch, mark, held, now);
		if (idle < agent.stall_timeout)
			continue;
		char why[128];
		if (c->state == S_REQ)
			snprintf(why, sizeof why, "no request for %.1f s; closing", idle);
		else
			snprintf(why, sizeof why,
				 "nothing acknowledged for %.1f s (%llu bytes unsent, %d unacknowledged); aborting",
				 idle, (unsigned long long)c->left, unacked);
		abort_conn(c, why);
	}
	if (conns && agent.stall_timeout > 0) {
		timer_arm(&stimer, sweep_period());
		sarmed = true;
	}
}

static void on_listen(struct ev *e, uint32_t events)
{
	(void)events;
	for (int i = 0; i < 64; i++) {
		int fd = accept4(e->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				alog("accept: %s", strerror(errno));
			return;
		}
		struct sconn *c = calloc(1, sizeof *c);
		if (!c) {
			close(fd);
			return;
		}
		c->ev.fd = fd;
		c->ev.cb = on_conn;
		c->state = S_REQ;
		c->events = EPOLLIN;
		if (loop_add(&c->ev, EPOLLIN)) {
			close(fd);
			free(c);
			continue;
		}
		c->next = conns;
		if (conns)
			conns->prev = c;
		conns = c;
		stall_start(&c->watch, 0, now_mono());
		if (!sarmed && agent.stall_timeout > 0) {
			timer_arm(&stimer, sweep_period());
			sarmed = true;
		}
	}
}

static void update_all(void)
{
	for (struct sconn *c = conns; c; c = c->next)
		if (c->state == S_SEND)
			set_events(c, EPOLLRDHUP | (may_write(c) ? EPOLLOUT : 0));
}

static bool in_range(const struct rack_pair *p)
{
	return p->src >= 0 && p->src < AGENT_MAX_RACKS && p->dst >= 0 && p->dst < AGENT_MAX_RACKS;
}

bool serve_lit(int src, int dst)
{
	struct rack_pair p = {src, dst};
	return in_range(&p) && (lit_all[src][dst / 8] >> (dst % 8) & 1);
}

bool serve_held(bool circuit, int src_rack, int dst_rack)
{
	return circuit && agent.hold && src_rack >= 0 && !serve_lit(src_rack, dst_rack);
}

void serve_circuits(const struct rack_pair *p, int n)
{
	fetch_circuits_changed();   /* the dark time until now does not count */
	memset(lit, 0, sizeof lit);
	memset(lit_all, 0, sizeof lit_all);
	for (int i = 0; i < n; i++) {
		if (!in_range(&p[i]))
			continue;
		lit_all[p[i].src][p[i].dst / 8] |= (uint8_t)(1u << (p[i].dst % 8));
		if (p[i].src == agent.rack)
			lit[p[i].dst] = true;
	}
	update_all();
	fetch_circuits_changed();
}

void serve_announce(const struct rack_pair *p, int n)
{
	for (int i = 0; i < n; i++) {
		if (!in_range(&p[i]))
			continue;
		lit_all[p[i].src][p[i].dst / 8] &= (uint8_t)~(1u << (p[i].dst % 8));
		if (p[i].src == agent.rack)
			lit[p[i].dst] = false;
	}
	update_all();
	fetch_circuits_changed();
}

int serve_init(void)
{
	if (agent.use_sendfile) {
		memfd = memfd_create("emu-agent-zeros", MFD_CLOEXEC);
		if (memfd < 0 || ftruncate(memfd, CHUNK) || pwrite(memfd, zeros, CHUNK, 0) != (ssize_t)CHUNK) {
			alog("memfd: %s; using send()", strerror(errno));
			if (memfd >= 0)
				close(memfd);
			memfd = -1;
		}
	}
	if (timer_open(&stimer, on_stimer))
		return -1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)agent.data_port),
				 .sin_addr = agent.addr};
	char ip[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &agent.addr, ip, sizeof ip);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 1024)) {
		alog("data port %s:%d: %s", ip, agent.data_port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* accepted sockets inherit the listener's congestion control */
	if (data_sockopts(fd, false)) {
		alog("TCP_CONGESTION %s: %s", agent.cc, strerror(errno));
		close(fd);
		return -1;
	}
	lev.fd = fd;
	lev.cb = on_listen;
	return loop_add(&lev, EPOLLIN);
}
