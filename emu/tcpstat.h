/* tcpstat.h — TCP's timer events in the servers' network namespaces.
 *
 * Slow motion (--slowdown K) stretches every rate, queue drain and task by K,
 * and the minimum RTO through the servers' routes, but not TCP's first-SYN
 * timeout (1 s) nor its delayed-ACK timers (40-200 ms): in run seconds those
 * shrink to 1/K.  How often a run met them says how much that can matter. */
#ifndef EMU_TCPSTAT_H
#define EMU_TCPSTAT_H

struct tcpstat {
	unsigned long long syn_retrans;    /* TcpExt TCPSynRetrans: SYNs sent again after the 1 s timeout */
	unsigned long long timeouts;       /* TcpExt TCPTimeouts: retransmission timeouts */
	unsigned long long delayed_acks;   /* TcpExt DelayedACKs: ACKs the delayed-ACK timer sent */
};

/* Add the TcpExt counters of a netstat file (/proc/PID/net/netstat: the
 * namespace PID is in) to *st.  0, or -1 if it cannot be read or has no
 * TcpExt lines. */
int tcpstat_add(const char *path, struct tcpstat *st);

/* Add now - then to *sum, field by field (a counter that went back adds 0). */
void tcpstat_add_since(struct tcpstat *sum, const struct tcpstat *now, const struct tcpstat *then);

#endif
