/*
 * traffic — real-traffic helpers for the integration tests.
 *
 * Everything runs inside the calling process: no fork/exec.  A socket
 * belongs to the network namespace of the thread that created it, so the
 * library briefly switches the *calling thread* into a namespace with
 * setns(2) (on /run/netns/NAME, as created by `ip netns add`), creates the
 * socket and switches straight back.  The I/O itself then runs in ordinary
 * pthreads.  Other threads of the process are never moved.
 *
 * Safety: every exchange is between a listener bound to dst_addr inside
 * namespace dst_ns (bind fails with EADDRNOTAVAIL if the address is not
 * configured there, before any packet is sent) and a client socket created
 * inside namespace src_ns.  Namespace names must be plain names (no '/');
 * the root namespace is never used for sockets.  Every call is bounded in
 * time: connects/accepts use TR_CONNECT_TIMEOUT_MS unless a timeout is
 * given, every load stops by itself after warm_s + seconds.
 *
 * Listener ports are ephemeral (bind port 0, read back), so concurrent
 * tests never clash.
 *
 * On failure the functions return -1 with errno set and a human-readable
 * description available from tr_errmsg() (per thread).
 */
#ifndef EMU_TESTS_TRAFFIC_H
#define EMU_TESTS_TRAFFIC_H

#include <stdint.h>

#define TR_CONNECT_TIMEOUT_MS 3000
#define TR_MAX_SECONDS        600.0   /* upper bound accepted for any run */
#define TR_MAX_FLOWS          256

/* Last error of the calling thread, e.g. "connect emu-a -> 198.18.0.2:40123:
 * Connection timed out".  Never NULL. */
const char *tr_errmsg(void);

/* Open /run/netns/NAME (O_RDONLY|O_CLOEXEC); -1 with errno on failure. */
int tr_ns_open(const char *name);

/* Congestion control for connections made from now on (TCP_CONGESTION on
 * both ends; NULL or "" = the namespace default).  Not thread-safe: set it
 * before starting flows. */
void tr_set_congestion(const char *name);

/* Run fn(arg) with the calling thread switched into namespace NAME, then
 * switch back.  Returns fn's return value, or -1 (errno set) if the switch
 * failed (fn not run).  Aborts the process if switching back fails, so a
 * thread can never be left stranded in a foreign namespace. */
int tr_in_ns(const char *name, int (*fn)(void *), void *arg);

/* socket(domain, type|SOCK_CLOEXEC, protocol) created inside namespace NAME. */
int tr_socket_in(const char *name, int domain, int type, int protocol);

/* TCP reachability: a listener on dst_addr:<ephemeral> in ns dst, a client
 * connecting from ns src, a few bytes sent and echoed back.  0 on success,
 * -1 (errno, tr_errmsg) otherwise.  Whole exchange bounded by timeout_ms
 * (<= 0 means TR_CONNECT_TIMEOUT_MS). */
int tr_tcp_reach(const char *src_ns, const char *dst_ns, const char *dst_addr,
                 int timeout_ms);

struct tr_flow {
    const char *src_ns, *dst_ns;   /* namespace names */
    const char *dst_addr;          /* IPv4 literal of the receiver inside dst_ns */
    int tos;                       /* IP_TOS on the sender (0 or e.g. 0x08) */
    /* out: */
    double goodput_bps;            /* bytes received in the window * 8 / window seconds */
    uint64_t bytes;                /* application bytes received in the measured window */
    uint64_t total_bytes;          /* application bytes received overall (warm-up included) */
    double seconds;                /* measured window actually used */
    int err;                       /* 0, or errno of the first send/recv/connect failure */
};

/* Run n (1..TR_MAX_FLOWS) bulk TCP flows in parallel: all connect first,
 * then send for warm_s (not counted) + seconds (counted), each sender
 * writing as fast as the kernel accepts, then everything stops and is
 * closed.  Returns 0 if every flow connected and moved data in the
 * measured window; -1 otherwise (out fields still filled where possible). */
int tr_run_flows(struct tr_flow *flows, int n, double warm_s, double seconds);

struct tr_rtt {
    int n;                         /* samples taken */
    double min_ms, median_ms, p95_ms, max_ms;
};

/* RTT of a small (64 B) request/response on a separate TCP connection
 * (TCP_NODELAY both ends, IP_TOS = tos on both ends) from src to dst.
 * One sample every ~10 ms for `seconds`.  If nload > 0, the `load` flows
 * (same semantics as tr_run_flows) are started first, warmed up for 1 s and
 * kept running throughout the probe window; their out fields are filled
 * for that window.  nload == 0 measures the idle RTT.  Returns 0 if samples
 * were taken (and, with load, the load flows all moved data). */
int tr_rtt_stats(const char *src_ns, const char *dst_ns, const char *dst_addr,
                 int tos, struct tr_flow *load, int nload, double seconds,
                 struct tr_rtt *out);

/* Same, reporting only median and 95th percentile (either pointer may be NULL). */
int tr_rtt_under_load(const char *src_ns, const char *dst_ns, const char *dst_addr,
                      int tos, struct tr_flow *load, int nload, double seconds,
                      double *median_ms, double *p95_ms);

/* An interface's counters inside namespace ns, via rtnetlink RTM_GETLINK
 * (IFLA_STATS64) on a socket created inside ns.  Any out pointer may be NULL.
 * -1 with errno ENODEV if the interface does not exist there.
 * Note: /sys/class/net shows the namespace of whoever mounted sysfs, not of
 * the thread, so it cannot be used for this; /proc/thread-self/net/dev
 * does follow the thread (/proc/self/net follows the thread-group leader). */
int tr_link_counters(const char *ns, const char *ifname,
                     uint64_t *tx_bytes, uint64_t *rx_bytes,
                     uint64_t *tx_packets, uint64_t *rx_packets);

/* Convenience: expected TCP goodput through a shaper of rate_bps that
 * counts full Ethernet frames (1514 B for 1448 B of payload, i.e. MTU 1500
 * with TCP timestamps). */
static inline double tr_expected_goodput(double rate_bps)
{
    return rate_bps * 1448.0 / 1514.0;
}

#endif
