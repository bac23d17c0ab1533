/*
 * Integration tests of the traffic library (traffic.h) on a private
 * two-namespace setup:
 *
 *   emutt-a [tt-a 198.18.200.1/24] ==veth== [tt-b 198.18.200.2/24] emutt-b
 *
 * tt-a egress is shaped with TBF 50 Mbit/s.  All traffic stays between
 * these two namespaces; they are deleted after every test (and stale ones
 * from an earlier crashed run are deleted before).
 */
#include "traffic.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define NS_A   "emutt-a"
#define NS_B   "emutt-b"
#define IF_A   "tt-a"
#define IF_B   "tt-b"
#define ADDR_A "198.18.200.1"
#define ADDR_B "198.18.200.2"
#define RATE   50e6

static int sh(int quiet, const char *fmt, ...)
{
    char cmd[512];
    va_list ap;
    int r;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (quiet)
        strncat(cmd, " >/dev/null 2>&1", sizeof cmd - strlen(cmd) - 1);
    r = system(cmd);
    if (r != 0 && !quiet)
        cr_log_error("command failed (%d): %s", r, cmd);
    return r;
}

#define NEED_ROOT()                                                          \
    do {                                                                     \
        if (geteuid() != 0)                                                  \
            cr_skip_test("needs root: creates network namespaces " NS_A      \
                         "/" NS_B " and veth/tc state");                     \
    } while (0)

static void teardown(void)
{
    if (geteuid() != 0)
        return;
    sh(1, "ip netns del " NS_A);
    sh(1, "ip netns del " NS_B);
}

static void setup(void)
{
    if (geteuid() != 0)
        return;
    teardown(); /* stale leftovers of a crashed run */
    cr_assert_eq(sh(0, "ip netns add " NS_A), 0);
    cr_assert_eq(sh(0, "ip netns add " NS_B), 0);
    cr_assert_eq(sh(0, "ip link add " IF_A " netns " NS_A " type veth peer name "
                       IF_B " netns " NS_B), 0);
    cr_assert_eq(sh(0, "ip -n " NS_A " addr add " ADDR_A "/24 dev " IF_A), 0);
    cr_assert_eq(sh(0, "ip -n " NS_B " addr add " ADDR_B "/24 dev " IF_B), 0);
    cr_assert_eq(sh(0, "ip -n " NS_A " link set lo up"), 0);
    cr_assert_eq(sh(0, "ip -n " NS_B " link set lo up"), 0);
    cr_assert_eq(sh(0, "ip -n " NS_A " link set " IF_A " up"), 0);
    cr_assert_eq(sh(0, "ip -n " NS_B " link set " IF_B " up"), 0);
    cr_assert_eq(sh(0, "tc -n " NS_A " qdisc add dev " IF_A
                       " root tbf rate 50mbit burst 32kb latency 20ms"), 0);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

TestSuite(traffic, .init = setup, .fini = teardown, .timeout = 60);

Test(traffic, reach)
{
    NEED_ROOT();
    cr_assert_eq(tr_tcp_reach(NS_A, NS_B, ADDR_B, 2000), 0, "a->b: %s", tr_errmsg());
    cr_assert_eq(tr_tcp_reach(NS_B, NS_A, ADDR_A, 2000), 0, "b->a: %s", tr_errmsg());

    /* An address that is not configured in dst_ns is refused before any
     * packet is sent. */
    cr_assert_eq(tr_tcp_reach(NS_A, NS_B, ADDR_A, 2000), -1);
    cr_assert_eq(errno, EADDRNOTAVAIL, "%s", tr_errmsg());

    cr_assert_eq(tr_tcp_reach(NS_A, "emutt-nonexistent", ADDR_B, 2000), -1);
    cr_assert_eq(errno, ENOENT, "%s", tr_errmsg());
    cr_assert_eq(tr_tcp_reach(NS_A, "../a", ADDR_B, 2000), -1);
    cr_assert_eq(errno, EINVAL, "%s", tr_errmsg());

    /* Blackhole the route: the connect must give up within the timeout. */
    cr_assert_eq(sh(0, "ip -n " NS_A " route add blackhole " ADDR_B "/32"), 0);
    double t = now_s();
    cr_assert_eq(tr_tcp_reach(NS_A, NS_B, ADDR_B, 500), -1);
    double dt = now_s() - t;
    cr_log_info("blackholed reach failed after %.3f s: %s", dt, tr_errmsg());
    cr_assert_lt(dt, 1.0);
    /* Drop SYNs silently instead (a zero-length FIFO drops every packet):
     * exercises the poll timeout path. */
    cr_assert_eq(sh(0, "ip -n " NS_A " route del blackhole " ADDR_B "/32"), 0);
    cr_assert_eq(sh(0, "tc -n " NS_A " qdisc replace dev " IF_A " root pfifo limit 0"), 0);
    t = now_s();
    cr_assert_eq(tr_tcp_reach(NS_A, NS_B, ADDR_B, 500), -1);
    dt = now_s() - t;
    cr_assert_eq(errno, ETIMEDOUT, "%s", tr_errmsg());
    cr_log_info("dropped reach failed after %.3f s: %s", dt, tr_errmsg());
    cr_assert_geq(dt, 0.45);
    cr_assert_lt(dt, 1.0);
    cr_assert_eq(sh(0, "tc -n " NS_A " qdisc del dev " IF_A " root"), 0);
    cr_assert_eq(tr_tcp_reach(NS_A, NS_B, ADDR_B, 2000), 0, "again: %s", tr_errmsg());
}

Test(traffic, in_ns)
{
    NEED_ROOT();
    /* The socket created through tr_socket_in lives in the namespace:
     * binding the namespace's address works there and not in the other. */
    int fd = tr_socket_in(NS_B, AF_INET, SOCK_DGRAM, 0);
    cr_assert_geq(fd, 0, "%s", tr_errmsg());
    struct sockaddr_in sa = { .sin_family = AF_INET };
    inet_pton(AF_INET, ADDR_B, &sa.sin_addr);
    cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0, "%s", strerror(errno));
    close(fd);
    fd = tr_socket_in(NS_A, AF_INET, SOCK_DGRAM, 0);
    cr_assert_geq(fd, 0, "%s", tr_errmsg());
    cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), -1);
    cr_assert_eq(errno, EADDRNOTAVAIL);
    close(fd);
    /* And the calling thread is back where it started. */
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    cr_assert_geq(fd, 0);
    cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), -1);
    close(fd);
}

Test(traffic, goodput)
{
    NEED_ROOT();
    struct tr_flow f = { .src_ns = NS_A, .dst_ns = NS_B, .dst_addr = ADDR_B };
    cr_assert_eq(tr_run_flows(&f, 1, 1.0, 3.0), 0, "%s", tr_errmsg());
    double exp = tr_expected_goodput(RATE);
    cr_log_info("goodput %.2f Mb/s (expected %.2f), %llu B in %.3f s",
                f.goodput_bps / 1e6, exp / 1e6, (unsigned long long)f.bytes, f.seconds);
    cr_assert_gt(f.goodput_bps, exp * 0.9, "%.2f Mb/s", f.goodput_bps / 1e6);
    cr_assert_lt(f.goodput_bps, exp * 1.1, "%.2f Mb/s", f.goodput_bps / 1e6);
    cr_assert_geq(f.total_bytes, f.bytes);

    /* The reverse direction is not shaped: much faster. */
    struct tr_flow r = { .src_ns = NS_B, .dst_ns = NS_A, .dst_addr = ADDR_A };
    cr_assert_eq(tr_run_flows(&r, 1, 0.2, 0.5), 0, "%s", tr_errmsg());
    cr_log_info("unshaped goodput %.0f Mb/s", r.goodput_bps / 1e6);
    cr_assert_gt(r.goodput_bps, 2 * exp);
}

Test(traffic, parallel)
{
    NEED_ROOT();
    struct tr_flow f[3] = {
        { .src_ns = NS_A, .dst_ns = NS_B, .dst_addr = ADDR_B },
        { .src_ns = NS_A, .dst_ns = NS_B, .dst_addr = ADDR_B, .tos = 0x08 },
        { .src_ns = NS_A, .dst_ns = NS_B, .dst_addr = ADDR_B, .tos = 0x10 },
    };
    cr_assert_eq(tr_run_flows(f, 3, 1.0, 3.0), 0, "%s", tr_errmsg());
    double sum = 0, exp = tr_expected_goodput(RATE);
    for (int i = 0; i < 3; i++) {
        cr_log_info("flow %d: %.2f Mb/s", i, f[i].goodput_bps / 1e6);
        cr_assert_gt(f[i].goodput_bps, exp / 3 * 0.3, "flow %d starved", i);
        sum += f[i].goodput_bps;
    }
    cr_log_info("sum %.2f Mb/s (expected %.2f)", sum / 1e6, exp / 1e6);
    cr_assert_gt(sum, exp * 0.9);
    cr_assert_lt(sum, exp * 1.1);
}

Test(traffic, tos_classes)
{
    NEED_ROOT();
    /* HTB on tt-a: TOS 0x08 -> 10 Mbit class, everything else -> 30 Mbit
     * class (no borrowing).  Checks that tr_flow.tos really marks packets.
     * An explicit quantum: HTB's default (rate / 10) warns above 16 Mbit. */
    cr_assert_eq(sh(0, "tc -n " NS_A " qdisc del dev " IF_A " root"), 0);
    cr_assert_eq(sh(0, "tc -n " NS_A " qdisc add dev " IF_A " root handle 1: htb default 20"), 0);
    cr_assert_eq(sh(0, "tc -n " NS_A " class add dev " IF_A
                       " parent 1: classid 1:10 htb rate 10mbit ceil 10mbit quantum 60000"), 0);
    cr_assert_eq(sh(0, "tc -n " NS_A " class add dev " IF_A
                       " parent 1: classid 1:20 htb rate 30mbit ceil 30mbit quantum 60000"), 0);
    cr_assert_eq(sh(0, "tc -n " NS_A " filter add dev " IF_A " parent 1: protocol ip"
                       " u32 match ip tos 0x08 0xfc flowid 1:10"), 0);
    struct tr_flow f[2] = {
        { .src_ns = NS_A, .dst_ns = NS_B, .dst_addr = ADDR_B, .tos = 0x08 },
        { .src_ns = NS_A, .dst_ns = NS_B, .dst_addr = ADDR_B },
    };
    cr_assert_eq(tr_run_flows(f, 2, 1.0, 3.0), 0, "%s", tr_errmsg());
    double e0 = tr_expected_goodput(10e6), e1 = tr_expected_goodput(30e6);
    cr_log_info("tos 0x08: %.2f Mb/s (exp %.2f), tos 0: %.2f Mb/s (exp %.2f)",
                f[0].goodput_bps / 1e6, e0 / 1e6, f[1].goodput_bps / 1e6, e1 / 1e6);
    cr_assert_gt(f[0].goodput_bps, e0 * 0.9);
    cr_assert_lt(f[0].goodput_bps, e0 * 1.1);
    cr_assert_gt(f[1].goodput_bps, e1 * 0.9);
    cr_assert_lt(f[1].goodput_bps, e1 * 1.1);
}

/* /proc/thread-self/net/dev follows the calling thread's namespace (unlike
 * /sys/class/net and /proc/self/net): used as a cross-check of netlink. */
static void assert_between(const char *what, unsigned long long v, uint64_t lo, uint64_t hi)
{
    cr_assert(v >= lo && v <= hi, "%s %llu not in [%llu, %llu]", what, v, (unsigned long long)lo,
              (unsigned long long)hi);
}

struct procdev {
    const char *ifname;
    unsigned long long rxb, rxp, txb, txp;
    int found;
};

static int read_procdev(void *p)
{
    struct procdev *d = p;
    char line[512];
    FILE *f = fopen("/proc/thread-self/net/dev", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        char *c = line, *colon;
        while (*c == ' ')
            c++;
        colon = strchr(c, ':');
        if (!colon)
            continue;
        *colon = 0;
        if (strcmp(c, d->ifname))
            continue;
        if (sscanf(colon + 1, "%llu %llu %*u %*u %*u %*u %*u %*u %llu %llu",
                   &d->rxb, &d->rxp, &d->txb, &d->txp) == 4)
            d->found = 1;
    }
    fclose(f);
    return d->found ? 0 : -1;
}

Test(traffic, counters)
{
    NEED_ROOT();
    uint64_t tb0, rb0, tp0, rp0, tb1, rb1, tp1, rp1;
    uint64_t btb0, brb0, btb1, brb1;

    cr_assert_eq(tr_link_counters(NS_A, IF_A, &tb0, &rb0, &tp0, &rp0), 0, "%s", tr_errmsg());
    cr_assert_eq(tr_link_counters(NS_B, IF_B, &btb0, &brb0, NULL, NULL), 0, "%s", tr_errmsg());

    /* Netlink agrees with /proc/thread-self/net/dev read in-ns: the proc
     * counters lie between two netlink reads around them.  The link is
     * nearly idle, but a stray frame (IPv6 router solicitation, an earlier
     * test's last FIN) may cross it between two reads (CI, once). */
    struct procdev pd = { .ifname = IF_A };
    uint64_t tb0b, rb0b, tp0b, rp0b;
    cr_assert_eq(tr_in_ns(NS_A, read_procdev, &pd), 0);
    cr_assert_eq(tr_link_counters(NS_A, IF_A, &tb0b, &rb0b, &tp0b, &rp0b), 0, "%s", tr_errmsg());
    assert_between("tx bytes", pd.txb, tb0, tb0b);
    assert_between("rx bytes", pd.rxb, rb0, rb0b);
    assert_between("tx packets", pd.txp, tp0, tp0b);
    assert_between("rx packets", pd.rxp, rp0, rp0b);
    cr_assert_lt(tp0b - tp0, 10, "the link should be nearly idle");

    /* Not visible from the other namespace. */
    cr_assert_eq(tr_link_counters(NS_B, IF_A, &tb1, NULL, NULL, NULL), -1);
    cr_assert_eq(errno, ENODEV, "%s", tr_errmsg());

    struct tr_flow f = { .src_ns = NS_A, .dst_ns = NS_B, .dst_addr = ADDR_B };
    cr_assert_eq(tr_run_flows(&f, 1, 0.5, 1.5), 0, "%s", tr_errmsg());

    cr_assert_eq(tr_link_counters(NS_A, IF_A, &tb1, &rb1, &tp1, &rp1), 0, "%s", tr_errmsg());
    cr_assert_eq(tr_link_counters(NS_B, IF_B, &btb1, &brb1, NULL, NULL), 0, "%s", tr_errmsg());
    cr_log_info("flow moved %llu B; tt-a tx +%llu B +%llu pkts, rx +%llu B; tt-b rx +%llu B",
                (unsigned long long)f.total_bytes, (unsigned long long)(tb1 - tb0),
                (unsigned long long)(tp1 - tp0), (unsigned long long)(rb1 - rb0),
                (unsigned long long)(brb1 - brb0));
    cr_assert_geq(tb1 - tb0, f.total_bytes);
    cr_assert_geq(brb1 - brb0, f.total_bytes);
    cr_assert_gt(tp1 - tp0, 0);
    cr_assert_gt(rb1 - rb0, 0, "ACKs must come back");
    /* Frame overhead is small: at most ~10% over the payload. */
    cr_assert_lt((double)(tb1 - tb0), 1.1 * (double)f.total_bytes + 100000);
}

Test(traffic, rtt)
{
    NEED_ROOT();
    struct tr_rtt idle, loaded;
    cr_assert_eq(tr_rtt_stats(NS_A, NS_B, ADDR_B, 0, NULL, 0, 1.0, &idle), 0,
                 "%s", tr_errmsg());
    struct tr_flow f = { .src_ns = NS_A, .dst_ns = NS_B, .dst_addr = ADDR_B };
    cr_assert_eq(tr_rtt_stats(NS_A, NS_B, ADDR_B, 0, &f, 1, 3.0, &loaded), 0,
                 "%s", tr_errmsg());
    cr_log_info("idle RTT: n=%d min %.3f median %.3f p95 %.3f max %.3f ms",
                idle.n, idle.min_ms, idle.median_ms, idle.p95_ms, idle.max_ms);
    cr_log_info("loaded RTT: n=%d min %.3f median %.3f p95 %.3f max %.3f ms; load %.2f Mb/s",
                loaded.n, loaded.min_ms, loaded.median_ms, loaded.p95_ms, loaded.max_ms,
                f.goodput_bps / 1e6);
    cr_assert_gt(idle.n, 50);
    cr_assert_gt(loaded.n, 50);
    cr_assert_leq(idle.min_ms, idle.median_ms);
    cr_assert_leq(idle.median_ms, idle.p95_ms);
    cr_assert_leq(idle.p95_ms, idle.max_ms);
    /* TBF queue of rate*latency = 125 kB at 50 Mbit/s: up to 20 ms. */
    cr_assert_gt(loaded.median_ms, idle.median_ms + 1.0);
    cr_assert_gt(loaded.median_ms, 2.0);
    cr_assert_lt(loaded.median_ms, 100.0);
    double exp = tr_expected_goodput(RATE);
    cr_assert_gt(f.goodput_bps, exp * 0.85);

    /* Compatibility wrapper. */
    double med = -1, p95 = -1;
    cr_assert_eq(tr_rtt_under_load(NS_A, NS_B, ADDR_B, 0x10, NULL, 0, 0.3, &med, &p95), 0,
                 "%s", tr_errmsg());
    cr_assert_gt(med, 0);
    cr_assert_geq(p95, med);
}
