/* capfile.h — what one interface of a fabric namespace sees, written to a
 * pcap file as `tcpdump -w` writes it (libpcap's savefile format, which
 * tcpdump and Wireshark read): for `netctl capture` and `emu run --capture`.
 *
 * The packet socket is opened inside the namespace (a socket belongs to the
 * namespace of the thread that creates it) and the thread returns to the
 * root namespace at once; the capture then runs from any thread, and no
 * process of ours stays inside the fabric. */
#ifndef NETCTL_CAPFILE_H
#define NETCTL_CAPFILE_H
#include <stdint.h>

#define CAPFILE_ERR_LEN 512

struct capfile;

/* Open a capture of `ifname` in namespace ns_fd (returning the thread to
 * root_fd) with a filter in tcpdump's syntax (NULL or "" = every packet),
 * stopping by itself after `limit` packets (0 = never).  NULL with err on
 * failure; *bad_input is then 1 if the user's input is at fault (no such
 * interface there: err lists the namespace's interfaces; a filter that does
 * not compile: err says why), 0 if the system is. */
struct capfile *capfile_open(int ns_fd, int root_fd, const char *ifname, int snaplen, const char *filter,
			     uint64_t limit, int *bad_input, char err[CAPFILE_ERR_LEN]);

/* Start the file at `path` ("-" = standard output); its header is on disk
 * when this returns, so a reader can tell the capture is live. */
int capfile_write_to(struct capfile *c, const char *path, char err[CAPFILE_ERR_LEN]);

/* Wait up to timeout_ms for packets on any of the n captures and write them
 * (a capture that failed before is skipped).  Returns the number of
 * captures that failed in this call (capfile_error says why). */
int capfile_poll(struct capfile *const *cs, int n, int timeout_ms);

int capfile_done(const struct capfile *c);          /* its limit is reached */
const char *capfile_error(const struct capfile *c); /* NULL while it works */
const char *capfile_linktype(const struct capfile *c);  /* "EN10MB", "LINUX_SLL", ... */

struct capfile_result {
	uint64_t packets;     /* written to the file */
	uint64_t dropped;     /* dropped by the kernel: the capture buffer was full */
	int failed;           /* capturing or writing failed: see err */
	char err[CAPFILE_ERR_LEN];
};

/* Write what is still buffered (up to the limit), flush and close the file
 * and the capture.  Returns 0, or -1 if the capture or the file failed
 * (res->err), the file then possibly incomplete.  Frees c. */
int capfile_close(struct capfile *c, struct capfile_result *res);

/* Does `filter` compile for interface `ifname`'s link type, before any
 * capture is open (emu run checks before it builds the fabric)?  0, or -1
 * with err. */
int capfile_filter_check(const char *filter, const char *ifname, int snaplen, char err[CAPFILE_ERR_LEN]);
#endif
