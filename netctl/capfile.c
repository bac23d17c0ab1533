/* capfile.c — see capfile.h. */
#include "netctl/capfile.h"
#include "netctl/ns.h"
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kernel hands packets over in blocks (TPACKET_V3), a block at the
 * latest this long after its first packet: one wakeup per block, not per
 * packet, which matters while a run moves gigabytes beside it. */
#define BLOCK_TIMEOUT_MS 100
#define BUFFER_BYTES     (4 << 20)

struct capfile {
	pcap_t *p;
	pcap_dumper_t *d;
	uint64_t limit, packets;
	int failed;
	char err[CAPFILE_ERR_LEN];
};

static void fail(struct capfile *c, const char *fmt, const char *detail)
{
	c->failed = 1;
	snprintf(c->err, sizeof c->err, fmt, detail);
}

/* The namespace's interfaces, for an error message (the calling thread
 * must be inside it: the netlink socket behind if_nameindex follows it). */
static void list_ifaces(char *buf, size_t len)
{
	struct if_nameindex *ifs = if_nameindex();
	size_t off = 0;
	buf[0] = 0;
	for (struct if_nameindex *i = ifs; i && i->if_index && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "", i->if_name);
	if (ifs)
		if_freenameindex(ifs);
}

/* Everything that needs the namespace, done inside it.  The filter is
 * compiled there too: a host name in it is looked up from inside the
 * fabric, which has no route to any resolver, so no query leaves the
 * machine. */
static int open_inside(struct capfile *c, const char *ifname, int snaplen, const char *filter, int *bad_input)
{
	char perr[PCAP_ERRBUF_SIZE] = "", names[256];
	c->p = pcap_create(ifname, perr);
	if (!c->p) {
		fail(c, "%s", perr);
		return -1;
	}
	pcap_set_snaplen(c->p, snaplen);
	pcap_set_timeout(c->p, BLOCK_TIMEOUT_MS);
	pcap_set_buffer_size(c->p, BUFFER_BYTES);
	int rc = pcap_activate(c->p);
	if (rc == PCAP_ERROR_NO_SUCH_DEVICE) {
		list_ifaces(names, sizeof names);
		snprintf(c->err, sizeof c->err, "no interface '%s' there (interfaces: %s; or any)", ifname, names);
		*bad_input = 1;
		return -1;
	}
	if (rc < 0) {
		snprintf(c->err, sizeof c->err, "capture on %s: %s", ifname, pcap_geterr(c->p));
		return -1;
	}
	struct bpf_program prog;
	if (filter && *filter) {
		if (pcap_compile(c->p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN)) {
			snprintf(c->err, sizeof c->err, "filter '%s': %s", filter, pcap_geterr(c->p));
			*bad_input = 1;
			return -1;
		}
		rc = pcap_setfilter(c->p, &prog);
		pcap_freecode(&prog);
		if (rc) {
			snprintf(c->err, sizeof c->err, "filter '%s': %s", filter, pcap_geterr(c->p));
			return -1;
		}
	}
	if (pcap_setnonblock(c->p, 1, perr)) {
		fail(c, "%s", perr);
		return -1;
	}
	return 0;
}

struct capfile *capfile_open(int ns_fd, int root_fd, const char *ifname, int snaplen, const char *filter,
			     uint64_t limit, int *bad_input, char err[CAPFILE_ERR_LEN])
{
	struct capfile *c = calloc(1, sizeof *c);
	*bad_input = 0;
	if (!c) {
		snprintf(err, CAPFILE_ERR_LEN, "out of memory");
		return NULL;
	}
	c->limit = limit;
	if (ns_enter(ns_fd)) {
		snprintf(err, CAPFILE_ERR_LEN, "cannot enter the namespace: %s", strerror(errno));
		free(c);
		return NULL;
	}
	int rc = open_inside(c, ifname, snaplen, filter, bad_input);
	if (ns_enter(root_fd))
		abort();   /* a thread stranded in the fabric would build sockets there */
	if (rc) {
		snprintf(err, CAPFILE_ERR_LEN, "%s", c->err);
		if (c->p)
			pcap_close(c->p);
		free(c);
		return NULL;
	}
	return c;
}

int capfile_write_to(struct capfile *c, const char *path, char err[CAPFILE_ERR_LEN])
{
	c->d = pcap_dump_open(c->p, path);
	if (!c->d) {
		snprintf(err, CAPFILE_ERR_LEN, "%s", pcap_geterr(c->p));   /* names the path */
		return -1;
	}
	if (pcap_dump_flush(c->d)) {
		snprintf(err, CAPFILE_ERR_LEN, "%s: %s", path, strerror(errno));
		pcap_dump_close(c->d);
		c->d = NULL;
		if (strcmp(path, "-"))
			unlink(path);   /* not even a header made it: leave nothing */
		return -1;
	}
	return 0;
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct capfile *c = (struct capfile *)user;
	pcap_dump((u_char *)c->d, h, bytes);
	c->packets++;
}

int capfile_done(const struct capfile *c)
{
	return c->limit && c->packets >= c->limit;
}

const char *capfile_error(const struct capfile *c)
{
	return c->failed ? c->err : NULL;
}

const char *capfile_linktype(const struct capfile *c)
{
	const char *name = pcap_datalink_val_to_name(pcap_datalink(c->p));
	return name ? name : "?";
}

/* Write what the kernel has handed over; 1 if the capture failed. */
static int drain(struct capfile *c)
{
	if (c->failed || capfile_done(c))
		return 0;
	uint64_t left = c->limit ? c->limit - c->packets : 0;
	int n = pcap_dispatch(c->p, c->limit ? (int)(left < INT_MAX ? left : INT_MAX) : -1, on_packet, (u_char *)c);
	if (n < 0) {
		fail(c, "capture: %s", pcap_geterr(c->p));
		return 1;
	}
	/* Flushed as it goes: a reader sees the packets, a kill loses little. */
	if (n > 0 && pcap_dump_flush(c->d)) {
		fail(c, "writing the file: %s", strerror(errno));
		return 1;
	}
	return 0;
}

int capfile_poll(struct capfile *const *cs, int n, int timeout_ms)
{
	struct pollfd pfd[n > 0 ? n : 1];
	int m = 0, failed = 0;
	for (int i = 0; i < n; i++)
		if (!cs[i]->failed && !capfile_done(cs[i]))
			pfd[m++] = (struct pollfd){.fd = pcap_get_selectable_fd(cs[i]->p), .events = POLLIN};
	poll(pfd, m, timeout_ms);   /* EINTR: the caller looks at its flags */
	/* Every capture, readable or not: a block may have been retired in the
	 * meantime, and reading an empty ring costs nothing. */
	for (int i = 0; i < n; i++)
		failed += drain(cs[i]);
	return failed;
}

/* Packets the kernel kept for us that are not in the file yet. */
static uint64_t pending(struct capfile *c)
{
	struct pcap_stat st;
	if (pcap_stats(c->p, &st))
		return 0;
	uint64_t kept = st.ps_recv >= st.ps_drop ? st.ps_recv - st.ps_drop : 0;
	return kept > c->packets ? kept - c->packets : 0;
}

int capfile_close(struct capfile *c, struct capfile_result *res)
{
	/* The kernel's last block reaches us once its timeout expires: wait for
	 * it when it holds packets, so the file ends where the capture did. */
	if (!c->failed && !capfile_done(c) && pending(c)) {
		struct pollfd pfd = {.fd = pcap_get_selectable_fd(c->p), .events = POLLIN};
		poll(&pfd, 1, BLOCK_TIMEOUT_MS + 20);
		drain(c);
	}
	struct pcap_stat st;
	memset(res, 0, sizeof *res);
	res->packets = c->packets;
	if (!pcap_stats(c->p, &st))
		res->dropped = st.ps_drop;
	if (c->d) {
		if (pcap_dump_flush(c->d) && !c->failed)
			fail(c, "writing the file: %s", strerror(errno));
		pcap_dump_close(c->d);
	}
	pcap_close(c->p);
	res->failed = c->failed;
	snprintf(res->err, sizeof res->err, "%s", c->failed ? c->err : "");
	int rc = c->failed ? -1 : 0;
	free(c);
	return rc;
}

int capfile_filter_check(const char *filter, const char *ifname, int snaplen, char err[CAPFILE_ERR_LEN])
{
	if (!filter || !*filter)
		return 0;
	/* In a fresh, empty network namespace, for the reason open_inside
	 * compiles inside the fabric: a host name in the filter must not send
	 * a query out of the machine.  The namespace goes when we leave it. */
	int self = ns_self(), rc = -1;
	if (self < 0 || unshare(CLONE_NEWNET)) {
		snprintf(err, CAPFILE_ERR_LEN, "cannot check the capture filter: %s", strerror(errno));
		if (self >= 0)
			close(self);
		return -1;
	}
	pcap_t *p = pcap_open_dead(strcmp(ifname, "any") ? DLT_EN10MB : DLT_LINUX_SLL, snaplen);
	struct bpf_program prog;
	if (!p)
		snprintf(err, CAPFILE_ERR_LEN, "out of memory");
	else if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN))
		snprintf(err, CAPFILE_ERR_LEN, "filter '%s': %s", filter, pcap_geterr(p));
	else {
		pcap_freecode(&prog);
		rc = 0;
	}
	if (p)
		pcap_close(p);
	if (ns_enter(self))
		abort();   /* never carry on inside the scratch namespace */
	close(self);
	return rc;
}
