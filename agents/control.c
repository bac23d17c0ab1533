/* control.c — the control connection: a Unix stream socket to the
 * controller, or TCP from another host (emu/ctl_auth.h: the run's secret
 * from standard input goes first), JSON lines each way (emu/proto.h).  Output is queued and
 * flushed as the socket allows; input is split into lines, decoded, and
 * dispatched.  A malformed line is logged and ignored.  The agent exits when
 * the controller closes the connection. */
#include "agents/agent.h"
#include "emu/ctl_auth.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/in.h>
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

/* "tcp:A.B.C.D:PORT": connect, then the handshake with the secret read
 * from standard input.  The fd, or -1. */
static int connect_tcp(const char *spec)
{
	char ip[INET_ADDRSTRLEN], *end;
	const char *colon = strrchr(spec, ':');
	struct sockaddr_in sa = {.sin_family = AF_INET};
	long port = colon ? strtol(colon + 1, &end, 10) : 0;
	if (!colon || colon - spec >= (long)sizeof ip || !colon[1] || *end || port < 1 || port > 65535) {
		alog("bad control address '%s' (tcp:A.B.C.D:PORT)", spec);
		return -1;
	}
	memcpy(ip, spec, (size_t)(colon - spec));
	ip[colon - spec] = 0;
	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1) {
		alog("bad control address '%s' (tcp:A.B.C.D:PORT)", spec);
		return -1;
	}
	sa.sin_port = htons((uint16_t)port);
	char secret[CTL_SECRET_HEX + 1], line[CTL_AUTH_LINE_LEN + 1];
	if (ctl_secret_read(0, secret)) {
		alog("no run secret on standard input (64 hex digits and a newline)");
		return -1;
	}
	ctl_auth_line(secret, line);
	explicit_bzero(secret, sizeof secret);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int rc = fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof sa) &&
			 send(fd, line, CTL_AUTH_LINE_LEN, MSG_NOSIGNAL) == (ssize_t)CTL_AUTH_LINE_LEN
		 ? 0
		 : -1;
	explicit_bzero(line, sizeof line);
	if (rc) {
		alog("connect tcp:%s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int connect_unix(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path) {
		alog("control path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
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
	return fd;
}

int control_connect(const char *path)
{
	in = malloc(PROTO_MAX_LINE + 1);
	enc = malloc(PROTO_MAX_LINE + 1);
	if (!in || !enc)
		return -1;
	int fd = strncmp(path, "tcp:", 4) ? connect_unix(path) : connect_tcp(path + 4);
	if (fd < 0)
		return -1;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	cev.fd = fd;
	cev.cb = on_control;
	return loop_add(&cev, EPOLLIN);
}
