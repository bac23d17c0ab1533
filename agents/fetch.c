/* fetch.c — one fetch, the receiver side of a transfer: connect to the
 * sender's data port, write a struct data_req, read to EOF, and check that
 * exactly the requested bytes arrived.  Received data is discarded in the
 * kernel (MSG_TRUNC), never copied to user space. */
#include "agents/agent.h"
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

enum fstate { F_CONNECT, F_READ };

struct fetch {
	struct ev ev;                 /* first */
	enum fstate state;
	struct sockaddr_in addr;
	struct data_req req;
	uint64_t want;
	uint32_t xfer;
	int early_errno;              /* connect failed synchronously */
	fetch_done_fn done;
	void *arg;
	struct fetch_result res;
};

static const char *addr_str(const struct sockaddr_in *a, char *buf, size_t len)
{
	char ip[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
	snprintf(buf, len, "%s:%u", ip, ntohs(a->sin_port));
	return buf;
}

static void finish(struct fetch *f, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void finish(struct fetch *f, bool ok, const char *fmt, ...)
{
	f->res.ok = ok;
	f->res.t_end = now_real();
	if (fmt) {
		char what[80], a[32];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(what, sizeof what, fmt, ap);
		va_end(ap);
		snprintf(f->res.error, sizeof f->res.error, "xfer %u from %s: %s", f->xfer,
			 addr_str(&f->addr, a, sizeof a), what);
	}
	loop_close(&f->ev);
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

static void on_fetch(struct ev *e, uint32_t events)
{
	struct fetch *f = (struct fetch *)e;
	if (f->state == F_CONNECT) {
		int err = f->early_errno ? f->early_errno : sock_error(e->fd);
		if (err) {
			finish(f, false, "connect: %s", strerror(err));
			return;
		}
		if (!(events & EPOLLOUT))
			return;
		/* 24 bytes into an empty socket buffer: never partial */
		ssize_t n = send(e->fd, &f->req, sizeof f->req, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n != (ssize_t)sizeof f->req) {
			finish(f, false, "sending the request: %s", n < 0 ? strerror(errno) : "short write");
			return;
		}
		f->state = F_READ;
		loop_mod(e, EPOLLIN | EPOLLRDHUP);
		return;
	}
	static char sink[1 << 20];   /* never written: MSG_TRUNC */
	for (int i = 0; i < 64; i++) {
		/* MSG_TRUNC on TCP: the kernel drops the data without copying */
		ssize_t n = recv(e->fd, sink, sizeof sink, MSG_TRUNC | MSG_DONTWAIT);
		if (n > 0) {
			f->res.bytes += (uint64_t)n;
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
				finish(f, false, "short read: %llu of %llu bytes", (unsigned long long)f->res.bytes,
				       (unsigned long long)f->want);
			return;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN)
			return;
		finish(f, false, "after %llu of %llu bytes: %s", (unsigned long long)f->res.bytes,
		       (unsigned long long)f->want, strerror(errno));
		return;
	}
}

struct fetch *fetch_start(const struct sockaddr_in *addr, uint32_t xfer, uint64_t bytes, bool circuit,
			  int dst_rack, fetch_done_fn done, void *arg)
{
	struct fetch *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->addr = *addr;
	f->want = bytes;
	f->xfer = xfer;
	f->done = done;
	f->arg = arg;
	f->res.t_start = now_real();
	f->req.magic = htonl(DATA_REQ_MAGIC);
	f->req.xfer = htonl(xfer);
	f->req.bytes = htobe64(bytes);
	f->req.dst_rack = htons((uint16_t)dst_rack);
	f->req.circuit = circuit ? 1 : 0;
	f->ev.cb = on_fetch;
	f->ev.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->ev.fd < 0) {
		free(f);
		return NULL;
	}
	int syncnt = 3;   /* an unreachable peer fails in ~15 s, not ~2 min */
	if (data_sockopts(f->ev.fd, false) ||
	    setsockopt(f->ev.fd, IPPROTO_TCP, TCP_SYNCNT, &syncnt, sizeof syncnt))
		f->early_errno = errno;
	else if (connect(f->ev.fd, (const struct sockaddr *)addr, sizeof *addr) && errno != EINPROGRESS)
		f->early_errno = errno;
	/* A failed socket reports EPOLLHUP at once: the error is delivered
	 * from the loop, never from here. */
	if (loop_add(&f->ev, EPOLLOUT)) {
		close(f->ev.fd);
		free(f);
		return NULL;
	}
	return f;
}

const struct fetch_result *fetch_result(const struct fetch *f) { return &f->res; }

void fetch_abort(struct fetch *f)
{
	loop_close(&f->ev);
	loop_defer_free(f);
}
