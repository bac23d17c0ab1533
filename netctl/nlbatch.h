/* nlbatch.h — batched rtnetlink requests on one namespace's socket.
 *
 * Building a fabric is thousands of small requests; sending them one by one
 * and waiting for each ACK costs a round trip each.  A batch packs many
 * requests into one sendmsg() and then reads all the ACKs, reporting the
 * first failure with the kernel's extended-ACK text and a description of the
 * request that failed ("tor3: route 198.18.5.0/24 via ..."). */
#ifndef NETCTL_NLBATCH_H
#define NETCTL_NLBATCH_H
#include <libmnl/libmnl.h>
#include <stddef.h>
#include <stdint.h>

struct nl_msg;  /* libnl, for requests built with libnl-route's builders */

struct nlbatch {
	struct mnl_socket *sock;  /* bound in the target namespace */
	char *buf;
	size_t len, cap;
	uint32_t seq0, seq;       /* sequence numbers of this batch */
	char **what;              /* description per request */
	int n;
	char err[512];            /* first error of the last commit */
};

/* Open a NETLINK_ROUTE socket in the calling thread's namespace. */
int nlbatch_init(struct nlbatch *b);
void nlbatch_free(struct nlbatch *b);

/* Start a request of `type` with `flags` (NLM_F_REQUEST|NLM_F_ACK added);
 * returns the header to fill with mnl_attr_put*().  `what` describes it for
 * error messages (printf-style). */
struct nlmsghdr *nlbatch_msg(struct nlbatch *b, uint16_t type, uint16_t flags,
			     const char *what, ...) __attribute__((format(printf, 4, 5)));
/* Append a request built by libnl (the nl_msg is not freed). */
void nlbatch_add_nl(struct nlbatch *b, struct nl_msg *msg, const char *what, ...)
	__attribute__((format(printf, 3, 4)));

/* Send everything queued and collect the ACKs.  Returns 0, or -1 with
 * b->err set and errno the kernel's error of the first failed request.
 * The batch is empty afterwards either way. */
int nlbatch_commit(struct nlbatch *b);

/* Drop everything queued without sending it. */
void nlbatch_discard(struct nlbatch *b);

/* One request, answered by a dump: fn is called for each reply message.
 * Used for stats and state reads, outside batches. */
int nlbatch_dump(struct nlbatch *b, struct nlmsghdr *req,
		 int (*fn)(const struct nlmsghdr *, void *), void *arg);
#endif
