/* control.c — the control connection: a Unix stream socket to the
 * controller, JSON lines each way (emu/proto.h).  Output is queued and
 * flushed as the socket allows; input is split into lines, decoded, and
 * dispatched.  A malformed line is logged and ignored.  The agent exits when
 * the controller closes the connection. */
#include "agents/agent.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define OUT_MAX (64u << 20)   /* the controller is not reading: give up */

static struct ev cev = {.fd = -1};
static char *in;              /* PROTO_MAX_LINE + 1 */
static size_t inlen;
static bool discarding;       /* inside an overlong line */
static char *out;
static size_t outlen, outcap;
static char *enc;             /* encode buffer */

static void update_events(void)
{
	loop_mod(&cev, EPOLLIN | (outlen ? EPOLLOUT : 0));
}

static void flush(void)
{
	size_t off = 0;
	while (off < outlen) {
		ssize_t n = send(cev.fd, out + off, outlen - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			alog("control connection: %s; exiting", strerror(errno));
			exit(1);
		}
		off += (size_t)n;
	}
	memmove(out, out + off, outlen - off);
	outlen -= off;
}

void control_send(const struct msg *m)
{
	int n = proto_encode(m, enc, PROTO_MAX_LINE + 1);
	if (n < 0) {
		alog("cannot encode a message (op %d)", (int)m->op);
		return;
	}
	if (outlen + (size_t)n > outcap) {
		size_t cap = outcap ? outcap : 65536;
		while (cap < outlen + (size_t)n)
			cap *= 2;
		if (cap > OUT_MAX) {
			alog("controller is not reading (%zu bytes queued); exiting", outlen);
			exit(1);
		}
		char *p = realloc(out, cap);
		if (!p) {
			alog("out of memory");
			exit(1);
		}
		out = p;
		outcap = cap;
	}
	bool was_empty = outlen == 0;
	memcpy(out + outlen, enc, (size_t)n);
	outlen += (size_t)n;
	flush();
	if (was_empty != (outlen == 0))
		update_events();
}

static void handle_line(const char *line, size_t len)
{
	struct msg m;
	char err[128];
	if (proto_decode(line, len, &m, err)) {
		alog("ignoring a malformed control message: %s", err);
		return;
	}
	agent_dispatch(&m);
	proto_free(&m);
}

static void on_readable(void)
{
	for (;;) {
		ssize_t n = recv(cev.fd, in + inlen, PROTO_MAX_LINE + 1 - inlen, MSG_DONTWAIT);
		if (n == 0) {
			alog("control connection closed; exiting");
			exit(0);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			alog("control connection: %s; exiting", strerror(errno));
			exit(1);
		}
		inlen += (size_t)n;
		size_t start = 0;
		for (;;) {
			char *nl = memchr(in + start, '\n', inlen - start);
			if (!nl)
				break;
			size_t len = (size_t)(nl - (in + start)) + 1;
			if (!discarding)
				handle_line(in + start, len);
			discarding = false;
			start += len;
		}
		memmove(in, in + start, inlen - start);
		inlen -= start;
		if (inlen == PROTO_MAX_LINE + 1) {   /* no newline within the limit */
			if (!discarding)
				alog("ignoring a control message longer than %d bytes", PROTO_MAX_LINE);
			discarding = true;
			inlen = 0;
		}
	}
}

static void on_control(struct ev *e, uint32_t events)
{
	(void)e;
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		on_readable();
	if ((events & EPOLLOUT) && outlen) {
		flush();
		if (!outlen)
			update_events();
	}
}

int control_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path) {
		alog("control path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	in = malloc(PROTO_MAX_LINE + 1);
	enc = malloc(PROTO_MAX_LINE + 1);
	if (!in || !enc)
		return -1;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
		alog("connect %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct ucred cred;
	socklen_t cl = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl)) {
		alog("SO_PEERCRED on %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (cred.uid != 0) {
		alog("refusing the controller at %s: its uid is %u, not root (pid %d)", path, (unsigned)cred.uid,
		     (int)cred.pid);
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	cev.fd = fd;
	cev.cb = on_control;
	return loop_add(&cev, EPOLLIN);
}
