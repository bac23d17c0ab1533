/* capture.h — packet timestamps on one interface of a fabric namespace
 * (libpcap, in a thread), for measuring what the network really did: the
 * dark gap of a reconfiguration, which peer a circuit reached. */
#ifndef NETCTL_CAPTURE_H
#define NETCTL_CAPTURE_H
#include <stddef.h>
#include <stdint.h>

struct cap_pkt {
	double ts;          /* epoch seconds (the kernel's timestamp) */
	uint32_t len;       /* frame length on the wire */
	uint8_t dst[6];     /* destination MAC */
	uint8_t tos;        /* IPv4 TOS, 0 for other frames */
};

struct capture;

/* Capture frames received (PCAP_D_IN) or sent on `ifname` inside the
 * namespace ns_fd; returns to root_fd before returning.  NULL with err. */
struct capture *capture_start(int ns_fd, int root_fd, const char *ifname, int inbound, char err[256]);
/* Stop, and hand over the packets seen (malloc'd; caller frees). */
int capture_stop(struct capture *c, struct cap_pkt **pkts, size_t *n);
#endif
