/* nlbatch.c — see nlbatch.h. */
#include "netctl/nlbatch.h"
#include <errno.h>
#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Stay well under the socket's default send buffer (212992 bytes): the
 * kernel processes a sendmsg as one skb.  It also queues every ACK before
 * we read any, and each ACK costs ~1 KB of receive buffer (skb truesize),
 * so a chunk also has a message limit. */
#define BATCH_FLUSH_AT (96 * 1024)
#define BATCH_MAX_MSGS 256
#define RCVBUF         (4 << 20)
#define MSG_MAX        4096

int nlbatch_init(struct nlbatch *b)
{
	int one = 1;
	memset(b, 0, sizeof *b);
	b->sock = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!b->sock)
		return -1;
	if (mnl_socket_bind(b->sock, 0, MNL_SOCKET_AUTOPID)) {
		mnl_socket_close(b->sock);
		b->sock = NULL;
		return -1;
	}
	/* Room for a chunk's ACKs (FORCE: root may exceed rmem_max). */
	int rcvbuf = RCVBUF;
	if (setsockopt(mnl_socket_get_fd(b->sock), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf))
		setsockopt(mnl_socket_get_fd(b->sock), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	/* Short ACKs (no echo of the request) and the kernel's error text. */
	mnl_socket_setsockopt(b->sock, NETLINK_CAP_ACK, &one, sizeof one);
	mnl_socket_setsockopt(b->sock, NETLINK_EXT_ACK, &one, sizeof one);
	b->seq0 = b->seq = (uint32_t)time(NULL) << 8;
	return 0;
}

static void reset(struct nlbatch *b)
{
	for (int i = 0; i < b->n; i++)
		free(b->what[i]);
	b->n = 0;
	b->len = 0;
	b->seq0 = b->seq;
}

void nlbatch_discard(struct nlbatch *b)
{
	reset(b);
}

void nlbatch_free(struct nlbatch *b)
{
	reset(b);
	free(b->what);
	free(b->buf);
	if (b->sock)
		mnl_socket_close(b->sock);
	memset(b, 0, sizeof *b);
}

static void note(struct nlbatch *b, const char *fmt, va_list ap)
{
	if ((b->n & 63) == 0) {
		b->what = realloc(b->what, (b->n + 64) * sizeof *b->what);
		if (!b->what)
			abort();
	}
	if (vasprintf(&b->what[b->n], fmt, ap) < 0)
		b->what[b->n] = NULL;
	b->n++;
}

static void *reserve(struct nlbatch *b, size_t len)
{
	if (b->len + len > b->cap) {
		b->cap = b->cap ? 2 * b->cap : BATCH_FLUSH_AT + 2 * MSG_MAX;
		while (b->cap < b->len + len)
			b->cap *= 2;
		b->buf = realloc(b->buf, b->cap);
		if (!b->buf)
			abort();
	}
	return b->buf + b->len;
}

/* Close the previous request (its length is final only once the caller has
 * added its attributes) and reserve room for the next one. */
static struct nlmsghdr *start(struct nlbatch *b, size_t room)
{
	if (b->n) {
		struct nlmsghdr *prev = (struct nlmsghdr *)(b->buf + b->len);
		b->len += NLMSG_ALIGN(prev->nlmsg_len);
	}
	void *p = reserve(b, room);
	memset(p, 0, room);
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(p);
	nlh->nlmsg_seq = b->seq++;
	return nlh;
}

struct nlmsghdr *nlbatch_msg(struct nlbatch *b, uint16_t type, uint16_t flags, const char *what, ...)
{
	va_list ap;
	struct nlmsghdr *nlh = start(b, MSG_MAX);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	va_start(ap, what);
	note(b, what, ap);
	va_end(ap);
	return nlh;
}

void nlbatch_add_nl(struct nlbatch *b, struct nl_msg *msg, const char *what, ...)
{
	va_list ap;
	struct nlmsghdr *src = nlmsg_hdr(msg);
	struct nlmsghdr *nlh = start(b, NLMSG_ALIGN(src->nlmsg_len));
	uint32_t seq = nlh->nlmsg_seq;
	memcpy(nlh, src, src->nlmsg_len);
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = 0;
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	va_start(ap, what);
	note(b, what, ap);
	va_end(ap);
}

/* Extract the kernel's extended-ACK message, if any. */
static const char *ext_ack_msg(const struct nlmsghdr *nlh)
{
	struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof *e;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	const struct nlattr *attr;
	void *tlvs = (char *)e + off;
	mnl_attr_for_each_payload(tlvs, mnl_nlmsg_get_payload_len(nlh) - off) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG)
			return mnl_attr_get_str(attr);
	}
	return NULL;
}

int nlbatch_commit(struct nlbatch *b)
{
	char rbuf[64 * 1024];
	int rc = 0, first_err = 0;

	if (!b->n)
		return 0;
	struct nlmsghdr *last = (struct nlmsghdr *)(b->buf + b->len);
	size_t total = b->len + NLMSG_ALIGN(last->nlmsg_len);
	b->err[0] = 0;

	/* Send in chunks that fit the socket buffer, each ending on a message. */
	size_t off = 0;
	while (off < total) {
		size_t end = off;
		int msgs = 0;
		while (end < total && end - off < BATCH_FLUSH_AT && msgs < BATCH_MAX_MSGS) {
			struct nlmsghdr *h = (struct nlmsghdr *)(b->buf + end);
			end += NLMSG_ALIGN(h->nlmsg_len);
			msgs++;
		}
		if (mnl_socket_sendto(b->sock, b->buf + off, end - off) < 0) {
			snprintf(b->err, sizeof b->err, "netlink send: %s", strerror(errno));
			reset(b);
			return -1;
		}
		/* Read the ACKs of this chunk before sending more, so the
		 * receive buffer cannot overflow. */
		int chunk = msgs;
		while (chunk > 0) {
			ssize_t r = mnl_socket_recvfrom(b->sock, rbuf, sizeof rbuf);
			if (r < 0) {
				snprintf(b->err, sizeof b->err, "netlink receive: %s", strerror(errno));
				reset(b);
				return -1;
			}
			const struct nlmsghdr *h = (const struct nlmsghdr *)rbuf;
			int left = (int)r;
			for (; mnl_nlmsg_ok(h, left); h = mnl_nlmsg_next(h, &left)) {
				if (h->nlmsg_type != NLMSG_ERROR)
					continue;
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(h);
				chunk--;
				if (e->error && !first_err) {
					uint32_t i = h->nlmsg_seq - b->seq0;
					const char *ext = ext_ack_msg(h);
					first_err = -e->error;
					snprintf(b->err, sizeof b->err, "%s: %s%s%s",
						 i < (uint32_t)b->n && b->what[i] ? b->what[i] : "request",
						 strerror(-e->error), ext ? " — " : "", ext ? ext : "");
				}
			}
		}
		off = end;
	}
	reset(b);
	if (first_err) {
		errno = first_err;
		rc = -1;
	}
	return rc;
}

int nlbatch_dump(struct nlbatch *b, struct nlmsghdr *req,
		 int (*fn)(const struct nlmsghdr *, void *), void *arg)
{
	char rbuf[64 * 1024];
	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req->nlmsg_seq = b->seq++;
	if (mnl_socket_sendto(b->sock, req, req->nlmsg_len) < 0)
		return -1;
	for (;;) {
		ssize_t r = mnl_socket_recvfrom(b->sock, rbuf, sizeof rbuf);
		if (r < 0)
			return -1;
		const struct nlmsghdr *h = (const struct nlmsghdr *)rbuf;
		int left = (int)r;
		for (; mnl_nlmsg_ok(h, left); h = mnl_nlmsg_next(h, &left)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(h);
				errno = -e->error;
				return e->error ? -1 : 0;
			}
			if (fn(h, arg) < 0)
				return -1;
		}
	}
}
