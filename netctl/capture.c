/* capture.c — see capture.h. */
#include "netctl/capture.h"
#include "netctl/ns.h"
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct capture {
	pcap_t *p;
	pthread_t thread;
	atomic_int stop;
	struct cap_pkt *pkts;
	size_t n, cap;
};

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct capture *c = (struct capture *)user;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4096;
		struct cap_pkt *p = realloc(c->pkts, cap * sizeof *p);
		if (!p)
			return;
		c->pkts = p;
		c->cap = cap;
	}
	struct cap_pkt *k = &c->pkts[c->n++];
	k->ts = (double)h->ts.tv_sec + h->ts.tv_usec * 1e-6;
	k->len = h->len;
	memcpy(k->dst, bytes, h->caplen >= 6 ? 6 : 0);
	/* Ethernet type 0x0800, then the TOS byte of the IPv4 header. */
	k->tos = h->caplen >= 16 && bytes[12] == 0x08 && bytes[13] == 0x00 ? bytes[15] : 0;
}

static void *run(void *arg)
{
	struct capture *c = arg;
	while (!atomic_load(&c->stop))
		if (pcap_dispatch(c->p, -1, on_packet, (u_char *)c) < 0)
			break;
	return NULL;
}

struct capture *capture_start(int ns_fd, int root_fd, const char *ifname, int inbound, char err[256])
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	struct capture *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	/* The packet socket belongs to the namespace it is opened in. */
	if (ns_enter(ns_fd)) {
		snprintf(err, 256, "setns: %m");
		free(c);
		return NULL;
	}
	c->p = pcap_create(ifname, perr);
	int ok = c->p && !pcap_set_snaplen(c->p, 64) && !pcap_set_immediate_mode(c->p, 1) &&
		 !pcap_set_buffer_size(c->p, 8 << 20) && !pcap_set_timeout(c->p, 5) && pcap_activate(c->p) >= 0 &&
		 !pcap_setdirection(c->p, inbound ? PCAP_D_IN : PCAP_D_OUT);
	ns_enter(root_fd);
	if (!ok) {
		snprintf(err, 256, "capture on %s: %s", ifname, c->p ? pcap_geterr(c->p) : perr);
		if (c->p)
			pcap_close(c->p);
		free(c);
		return NULL;
	}
	if (pthread_create(&c->thread, NULL, run, c)) {
		snprintf(err, 256, "capture thread: %m");
		pcap_close(c->p);
		free(c);
		return NULL;
	}
	return c;
}

int capture_stop(struct capture *c, struct cap_pkt **pkts, size_t *n)
{
	atomic_store(&c->stop, 1);
	pcap_breakloop(c->p);
	pthread_join(c->thread, NULL);
	/* Frames still in the ring buffer. */
	pcap_setnonblock(c->p, 1, NULL);
	while (pcap_dispatch(c->p, -1, on_packet, (u_char *)c) > 0)
		;
	pcap_close(c->p);
	*pkts = c->pkts;
	*n = c->n;
	free(c);
	return 0;
}
