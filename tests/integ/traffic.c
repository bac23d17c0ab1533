/*
 * traffic — real-traffic helpers for the integration tests (see traffic.h).
 */
#include "traffic.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ errors */

static __thread char tr_err[320];

const char *tr_errmsg(void)
{
    return tr_err[0] ? tr_err : "no error";
}

/* Record "<context>: strerror(err)" and leave errno == err. */
__attribute__((format(printf, 2, 3)))
static void seterr(int err, const char *fmt, ...)
{
    char ctx[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);
    snprintf(tr_err, sizeof tr_err, "%s: %s", ctx, strerror(err));
    errno = err;
}

/* -------------------------------------------------------------------- time */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    struct timespec ts;
    if (t <= 0)
        return;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* Milliseconds left until deadline, clamped to [0, INT_MAX-ish]. */
static int ms_left(double deadline)
{
    double l = (deadline - now_s()) * 1000.0;
    if (l <= 0)
        return 0;
    if (l > 3600e3)
        return 3600 * 1000;
    return (int)l + 1;
}

/* -------------------------------------------------------------- namespaces */

static int valid_ns_name(const char *name)
{
    if (!name || !name[0] || strchr(name, '/') || strlen(name) > 200 ||
        !strcmp(name, ".") || !strcmp(name, ".."))
        return 0;
    return 1;
}

int tr_ns_open(const char *name)
{
    char path[256];
    int fd;

    if (!valid_ns_name(name)) {
        seterr(EINVAL, "bad namespace name '%s'", name ? name : "(null)");
        return -1;
    }
    snprintf(path, sizeof path, "/run/netns/%s", name);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        seterr(errno, "open %s", path);
    return fd;
}

int tr_in_ns(const char *name, int (*fn)(void *), void *arg)
{
    int self, target, rc, saved;

    target = tr_ns_open(name);
    if (target < 0)
        return -1;
    /* /proc/thread-self, not /proc/self: the latter is the thread-group
     * leader, which may sit in a different namespace than this thread. */
    self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (self < 0) {
        seterr(errno, "open /proc/thread-self/ns/net");
        saved = errno;
        close(target);
        errno = saved;
        return -1;
    }
    if (setns(target, CLONE_NEWNET) < 0) {
        seterr(errno, "setns into %s", name);
        saved = errno;
        close(target);
        close(self);
        errno = saved;
        return -1;
    }
    rc = fn(arg);
    saved = errno;
    if (setns(self, CLONE_NEWNET) < 0) {
        /* Never leave a thread in the wrong namespace: anything it did next
         * could touch interfaces that are not ours. */
        fprintf(stderr, "traffic: FATAL: cannot switch back from netns %s: %s\n",
                name, strerror(errno));
        abort();
    }
    close(target);
    close(self);
    errno = saved;
    return rc;
}

struct sock_args {
    int domain, type, protocol;
};

static int sock_fn(void *p)
{
    struct sock_args *a = p;
    int fd = socket(a->domain, a->type | SOCK_CLOEXEC, a->protocol);
    if (fd < 0)
        seterr(errno, "socket");
    return fd;
}

int tr_socket_in(const char *name, int domain, int type, int protocol)
{
    struct sock_args a = { domain, type, protocol };
    return tr_in_ns(name, sock_fn, &a);
}

/* -------------------------------------------------------------- TCP pairs */

static int set_nonblock(int fd, int on)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -1;
    fl = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
    return fcntl(fd, F_SETFL, fl);
}

static int set_timeo(int fd, int ms)
{
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0)
        return -1;
    return 0;
}

static int set_int(int fd, int level, int opt, int v)
{
    return setsockopt(fd, level, opt, &v, sizeof v);
}

/* Congestion control for every new connection ("" = namespace default).
 * A fabric pins its servers' congestion control, but the host may not let a
 * namespace default to it; sockets can always ask for it as root. */
static char congestion[16];

void tr_set_congestion(const char *name)
{
    snprintf(congestion, sizeof congestion, "%s", name ? name : "");
}

/* A connected TCP pair: *cli created in src_ns, *srv accepted from a
 * listener bound to dst_addr:<ephemeral> in dst_ns.  Both fds are left
 * blocking.  tos is applied to the client (and the server if tos_both). */
static int tcp_pair(const char *src_ns, const char *dst_ns, const char *dst_addr,
                    int tos, int tos_both, int nodelay, double deadline,
                    int *cli_out, int *srv_out)
{
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t slen = sizeof sa;
    struct pollfd pfd;
    int lfd = -1, cfd = -1, sfd = -1, err, r;
    socklen_t elen = sizeof err;

    *cli_out = *srv_out = -1;
    if (!dst_addr || inet_pton(AF_INET, dst_addr, &sa.sin_addr) != 1) {
        seterr(EINVAL, "bad IPv4 address '%s'", dst_addr ? dst_addr : "(null)");
        return -1;
    }
    if (!valid_ns_name(src_ns) || !valid_ns_name(dst_ns)) {
        seterr(EINVAL, "bad namespace name '%s' / '%s'",
               src_ns ? src_ns : "(null)", dst_ns ? dst_ns : "(null)");
        return -1;
    }

    lfd = tr_socket_in(dst_ns, AF_INET, SOCK_STREAM, 0);
    if (lfd < 0)
        goto fail;
    set_int(lfd, SOL_SOCKET, SO_REUSEADDR, 1);
    /* Bind the exact address: fails (EADDRNOTAVAIL) unless dst_addr really
     * lives in dst_ns, so nothing is ever sent towards a foreign host. */
    if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        seterr(errno, "bind %s:0 in %s", dst_addr, dst_ns);
        goto fail;
    }
    if (listen(lfd, 4) < 0) {
        seterr(errno, "listen in %s", dst_ns);
        goto fail;
    }
    if (getsockname(lfd, (struct sockaddr *)&sa, &slen) < 0) {
        seterr(errno, "getsockname");
        goto fail;
    }

    cfd = tr_socket_in(src_ns, AF_INET, SOCK_STREAM, 0);
    if (cfd < 0)
        goto fail;
    if (congestion[0] &&
        (setsockopt(cfd, IPPROTO_TCP, TCP_CONGESTION, congestion, strlen(congestion)) < 0 ||
         setsockopt(lfd, IPPROTO_TCP, TCP_CONGESTION, congestion, strlen(congestion)) < 0)) {
        seterr(errno, "TCP_CONGESTION %s", congestion);
        goto fail;
    }
    if (tos && set_int(cfd, IPPROTO_IP, IP_TOS, tos) < 0) {
        seterr(errno, "IP_TOS 0x%x", tos);
        goto fail;
    }
    if (nodelay)
        set_int(cfd, IPPROTO_TCP, TCP_NODELAY, 1);
    if (set_nonblock(cfd, 1) < 0) {
        seterr(errno, "fcntl");
        goto fail;
    }
    r = connect(cfd, (struct sockaddr *)&sa, sizeof sa);
    if (r < 0 && errno != EINPROGRESS) {
        seterr(errno, "connect %s -> %s:%u", src_ns, dst_addr, ntohs(sa.sin_port));
        goto fail;
    }
    if (r < 0) {
        pfd = (struct pollfd){ .fd = cfd, .events = POLLOUT };
        do
            r = poll(&pfd, 1, ms_left(deadline));
        while (r < 0 && errno == EINTR);
        if (r <= 0) {
            seterr(r == 0 ? ETIMEDOUT : errno, "connect %s -> %s:%u", src_ns,
                   dst_addr, ntohs(sa.sin_port));
            goto fail;
        }
        if (getsockopt(cfd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
            err = errno;
        if (err) {
            seterr(err, "connect %s -> %s:%u", src_ns, dst_addr, ntohs(sa.sin_port));
            goto fail;
        }
    }
    set_nonblock(cfd, 0);

    pfd = (struct pollfd){ .fd = lfd, .events = POLLIN };
    do
        r = poll(&pfd, 1, ms_left(deadline));
    while (r < 0 && errno == EINTR);
    if (r <= 0) {
        seterr(r == 0 ? ETIMEDOUT : errno, "accept in %s", dst_ns);
        goto fail;
    }
    sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (sfd < 0) {
        seterr(errno, "accept in %s", dst_ns);
        goto fail;
    }
    if (tos && tos_both)
        set_int(sfd, IPPROTO_IP, IP_TOS, tos);
    if (nodelay)
        set_int(sfd, IPPROTO_TCP, TCP_NODELAY, 1);
    close(lfd);
    *cli_out = cfd;
    *srv_out = sfd;
    return 0;

fail:
    err = errno;
    if (lfd >= 0)
        close(lfd);
    if (cfd >= 0)
        close(cfd);
    if (sfd >= 0)
        close(sfd);
    errno = err;
    return -1;
}

/* Read/write exactly len bytes before deadline (fd may be blocking). */
static int io_full(int fd, void *buf, size_t len, int wr, double deadline)
{
    size_t done = 0;
    while (done < len) {
        struct pollfd pfd = { .fd = fd, .events = wr ? POLLOUT : POLLIN };
        ssize_t n;
        int r = poll(&pfd, 1, ms_left(deadline));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (wr)
            n = send(fd, (char *)buf + done, len - done, MSG_DONTWAIT | MSG_NOSIGNAL);
        else
            n = recv(fd, (char *)buf + done, len - done, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            errno = ECONNRESET;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

int tr_tcp_reach(const char *src_ns, const char *dst_ns, const char *dst_addr,
                 int timeout_ms)
{
    static const char msg[16] = "emu-traffic-hi!";
    char in[sizeof msg], back[sizeof msg];
    double deadline;
    int cli, srv, rc = -1;

    if (timeout_ms <= 0)
        timeout_ms = TR_CONNECT_TIMEOUT_MS;
    deadline = now_s() + timeout_ms / 1000.0;
    if (tcp_pair(src_ns, dst_ns, dst_addr, 0, 0, 1, deadline, &cli, &srv) < 0)
        return -1;
    if (io_full(cli, (void *)msg, sizeof msg, 1, deadline) < 0)
        seterr(errno, "send %s -> %s", src_ns, dst_addr);
    else if (io_full(srv, in, sizeof in, 0, deadline) < 0)
        seterr(errno, "recv in %s", dst_ns);
    else if (io_full(srv, in, sizeof in, 1, deadline) < 0)
        seterr(errno, "echo from %s", dst_ns);
    else if (io_full(cli, back, sizeof back, 0, deadline) < 0)
        seterr(errno, "recv echo in %s", src_ns);
    else if (memcmp(back, msg, sizeof msg))
        seterr(EBADMSG, "echo mismatch %s <-> %s", src_ns, dst_ns);
    else
        rc = 0;
    {
        int e = errno;
        close(cli);
        close(srv);
        errno = e;
    }
    return rc;
}

/* ------------------------------------------------------------- bulk flows */

#define FLOW_BUF (128 * 1024)

struct fl {
    struct tr_flow *f;
    int cli, srv;
    pthread_t snd, rcv;
    int snd_started, rcv_started;
    _Atomic uint64_t rx;
    atomic_int err;
    atomic_int *stop;
};

struct flowset {
    struct fl *v;
    int n;
    atomic_int stop;
};

static void fl_err(struct fl *x, int e)
{
    int zero = 0;
    atomic_compare_exchange_strong(&x->err, &zero, e);
}

static void *sender(void *p)
{
    struct fl *x = p;
    char *buf = malloc(FLOW_BUF);
    if (!buf) {
        fl_err(x, ENOMEM);
        return NULL;
    }
    for (size_t i = 0; i < FLOW_BUF; i++)
        buf[i] = (char)('a' + i % 26);
    while (!atomic_load(x->stop)) {
        ssize_t n = send(x->cli, buf, FLOW_BUF, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            continue;
        if (n < 0) {
            if (!atomic_load(x->stop))
                fl_err(x, errno);
            break;
        }
    }
    free(buf);
    return NULL;
}

static void *receiver(void *p)
{
    struct fl *x = p;
    char *buf = malloc(FLOW_BUF);
    if (!buf) {
        fl_err(x, ENOMEM);
        return NULL;
    }
    while (!atomic_load(x->stop)) {
        ssize_t n = recv(x->srv, buf, FLOW_BUF, 0);
        if (n > 0) {
            atomic_fetch_add(&x->rx, (uint64_t)n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            continue;
        if (!atomic_load(x->stop))
            fl_err(x, n == 0 ? ECONNRESET : errno);
        break;
    }
    free(buf);
    return NULL;
}

static void flows_stop(struct flowset *s)
{
    atomic_store(&s->stop, 1);
    for (int i = 0; i < s->n; i++) {
        struct fl *x = &s->v[i];
        if (x->snd_started)
            pthread_join(x->snd, NULL);
        if (x->rcv_started)
            pthread_join(x->rcv, NULL);
        x->snd_started = x->rcv_started = 0;
        if (x->f) {
            x->f->total_bytes = atomic_load(&x->rx);
            if (!x->f->err)
                x->f->err = atomic_load(&x->err);
        }
        if (x->cli >= 0)
            close(x->cli);
        if (x->srv >= 0)
            close(x->srv);
        x->cli = x->srv = -1;
    }
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

static int check_duration(double warm_s, double seconds)
{
    if (!(seconds > 0) || !(warm_s >= 0) || warm_s + seconds > TR_MAX_SECONDS) {
        seterr(EINVAL, "bad duration warm=%g s, run=%g s", warm_s, seconds);
        return -1;
    }
    return 0;
}

/* Connect every flow, then start its sender and receiver threads. */
static int flows_start(struct flowset *s, struct tr_flow *flows, int n)
{
    atomic_init(&s->stop, 0);
    s->n = 0;
    s->v = NULL;
    if (n < 1 || n > TR_MAX_FLOWS || !flows) {
        seterr(EINVAL, "bad flow count %d", n);
        return -1;
    }
    s->v = calloc((size_t)n, sizeof *s->v);
    if (!s->v) {
        seterr(ENOMEM, "calloc");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        struct tr_flow *f = &flows[i];
        f->goodput_bps = 0;
        f->bytes = f->total_bytes = 0;
        f->seconds = 0;
        f->err = 0;
        s->v[i].f = f;
        s->v[i].cli = s->v[i].srv = -1;
        atomic_init(&s->v[i].rx, 0);
        atomic_init(&s->v[i].err, 0);
        s->v[i].stop = &s->stop;
    }
    s->n = n;
    for (int i = 0; i < n; i++) {
        struct fl *x = &s->v[i];
        double dl = now_s() + TR_CONNECT_TIMEOUT_MS / 1000.0;
        if (tcp_pair(x->f->src_ns, x->f->dst_ns, x->f->dst_addr, x->f->tos, 0, 0,
                     dl, &x->cli, &x->srv) < 0) {
            int e = errno;
            x->f->err = e;
            flows_stop(s);
            errno = e;
            return -1;
        }
        /* Bounded blocking I/O: threads notice `stop` within 100 ms. */
        if (set_timeo(x->cli, 100) < 0 || set_timeo(x->srv, 100) < 0) {
            int e = errno;
            seterr(e, "SO_RCVTIMEO/SO_SNDTIMEO");
            flows_stop(s);
            errno = e;
            return -1;
        }
    }
    for (int i = 0; i < n; i++) {
        struct fl *x = &s->v[i];
        int e = pthread_create(&x->rcv, NULL, receiver, x);
        if (!e) {
            x->rcv_started = 1;
            e = pthread_create(&x->snd, NULL, sender, x);
            if (!e)
                x->snd_started = 1;
        }
        if (e) {
            seterr(e, "pthread_create");
            flows_stop(s);
            errno = e;
            return -1;
        }
    }
    return 0;
}

static void flows_snapshot(struct flowset *s, uint64_t *out)
{
    for (int i = 0; i < s->n; i++)
        out[i] = atomic_load(&s->v[i].rx);
}

/* Fill the measured-window fields; 0 if every flow moved data without error. */
static int flows_report(struct tr_flow *flows, int n, const uint64_t *b0,
                        const uint64_t *b1, double dt)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        struct tr_flow *f = &flows[i];
        f->bytes = b1[i] - b0[i];
        f->seconds = dt;
        f->goodput_bps = dt > 0 ? (double)f->bytes * 8.0 / dt : 0;
        if (f->err && rc == 0) {
            seterr(f->err, "flow %d %s -> %s (%s)", i, f->src_ns, f->dst_ns, f->dst_addr);
            rc = -1;
        } else if (f->bytes == 0 && rc == 0) {
            seterr(EIO, "flow %d %s -> %s (%s) moved no data", i, f->src_ns,
                   f->dst_ns, f->dst_addr);
            rc = -1;
        }
    }
    return rc;
}

int tr_run_flows(struct tr_flow *flows, int n, double warm_s, double seconds)
{
    struct flowset s;
    uint64_t *b0, *b1;
    double t0, t1;
    int rc;

    if (check_duration(warm_s, seconds) < 0)
        return -1;
    if (flows_start(&s, flows, n) < 0)
        return -1;
    b0 = calloc((size_t)n, sizeof *b0);
    b1 = calloc((size_t)n, sizeof *b1);
    if (!b0 || !b1) {
        flows_stop(&s);
        free(b0);
        free(b1);
        seterr(ENOMEM, "calloc");
        return -1;
    }
    sleep_until(now_s() + warm_s);
    t0 = now_s();
    flows_snapshot(&s, b0);
    sleep_until(t0 + seconds);
    t1 = now_s();
    flows_snapshot(&s, b1);
    flows_stop(&s);
    rc = flows_report(flows, n, b0, b1, t1 - t0);
    free(b0);
    free(b1);
    return rc;
}

/* ------------------------------------------------------------------- RTT */

#define RTT_MSG      64
#define RTT_INTERVAL 0.010
#define RTT_TIMEOUT  2.0
#define LOAD_WARM    1.0

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Request/response loop on an established NODELAY pair, one thread, both
 * ends: client sends 64 B, server end reads and echoes, client reads. */
static int rtt_loop(int cli, int srv, double seconds, double *samples, int max,
                    int *n_out)
{
    char req[RTT_MSG], buf[RTT_MSG];
    double end = now_s() + seconds;
    int n = 0;

    memset(req, 'r', sizeof req);
    while (n < max) {
        double t = now_s(), dl = t + RTT_TIMEOUT;
        if (t >= end)
            break;
        if (io_full(cli, req, sizeof req, 1, dl) < 0 ||
            io_full(srv, buf, sizeof buf, 0, dl) < 0 ||
            io_full(srv, buf, sizeof buf, 1, dl) < 0 ||
            io_full(cli, buf, sizeof buf, 0, dl) < 0) {
            seterr(errno, "rtt probe sample %d", n);
            *n_out = n;
            return -1;
        }
        samples[n++] = (now_s() - t) * 1000.0;
        sleep_until(t + RTT_INTERVAL);
    }
    *n_out = n;
    return 0;
}

int tr_rtt_stats(const char *src_ns, const char *dst_ns, const char *dst_addr,
                 int tos, struct tr_flow *load, int nload, double seconds,
                 struct tr_rtt *out)
{
    struct flowset s = { 0 };
    uint64_t *b0 = NULL, *b1 = NULL;
    double *samples = NULL, t0 = 0, t1 = 0;
    int cli = -1, srv = -1, n = 0, max, rc = -1, loaded = 0, e;

    if (out)
        memset(out, 0, sizeof *out);
    if (check_duration(nload > 0 ? LOAD_WARM : 0, seconds) < 0)
        return -1;
    if (nload < 0 || nload > TR_MAX_FLOWS || (nload > 0 && !load)) {
        seterr(EINVAL, "bad load count %d", nload);
        return -1;
    }
    max = (int)(seconds / RTT_INTERVAL) + 16;
    samples = calloc((size_t)max, sizeof *samples);
    if (nload > 0) {
        b0 = calloc((size_t)nload, sizeof *b0);
        b1 = calloc((size_t)nload, sizeof *b1);
    }
    if (!samples || (nload > 0 && (!b0 || !b1))) {
        seterr(ENOMEM, "calloc");
        goto out;
    }
    /* Probe connection first, while the path is idle. */
    if (tcp_pair(src_ns, dst_ns, dst_addr, tos, 1, 1,
                 now_s() + TR_CONNECT_TIMEOUT_MS / 1000.0, &cli, &srv) < 0)
        goto out;
    if (nload > 0) {
        if (flows_start(&s, load, nload) < 0)
            goto out;
        loaded = 1;
        sleep_until(now_s() + LOAD_WARM);
        t0 = now_s();
        flows_snapshot(&s, b0);
    }
    rc = rtt_loop(cli, srv, seconds, samples, max, &n);
    if (loaded) {
        t1 = now_s();
        flows_snapshot(&s, b1);
        e = errno;
        flows_stop(&s);
        loaded = 0;
        if (flows_report(load, nload, b0, b1, t1 - t0) < 0)
            rc = -1;
        else
            errno = e;
    }
    if (n == 0 && rc == 0) {
        seterr(EIO, "no RTT samples");
        rc = -1;
    }
    if (n > 0 && out) {
        qsort(samples, (size_t)n, sizeof *samples, cmp_double);
        out->n = n;
        out->min_ms = samples[0];
        out->max_ms = samples[n - 1];
        out->median_ms = (n % 2) ? samples[n / 2]
                                 : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
        {
            int k = (int)(0.95 * n + 0.999999) - 1; /* nearest-rank */
            if (k < 0)
                k = 0;
            if (k >= n)
                k = n - 1;
            out->p95_ms = samples[k];
        }
    }
out:
    e = errno;
    if (loaded)
        flows_stop(&s);
    if (cli >= 0)
        close(cli);
    if (srv >= 0)
        close(srv);
    free(samples);
    free(b0);
    free(b1);
    errno = e;
    return rc;
}

int tr_rtt_under_load(const char *src_ns, const char *dst_ns, const char *dst_addr,
                      int tos, struct tr_flow *load, int nload, double seconds,
                      double *median_ms, double *p95_ms)
{
    struct tr_rtt r;
    int rc = tr_rtt_stats(src_ns, dst_ns, dst_addr, tos, load, nload, seconds, &r);
    if (median_ms)
        *median_ms = r.median_ms;
    if (p95_ms)
        *p95_ms = r.p95_ms;
    return rc;
}

/* --------------------------------------------------------- link counters */

struct lc_arg {
    const char *ifname;
    struct rtnl_link_stats64 st;
    int found;
};

static int lc_attr_cb(const struct nlattr *attr, void *data)
{
    struct lc_arg *a = data;
    if (mnl_attr_get_type(attr) == IFLA_STATS64) {
        size_t len = mnl_attr_get_payload_len(attr);
        if (len > sizeof a->st)
            len = sizeof a->st;
        memcpy(&a->st, mnl_attr_get_payload(attr), len);
        a->found = 1;
    }
    return MNL_CB_OK;
}

static int lc_msg_cb(const struct nlmsghdr *nlh, void *data)
{
    if (nlh->nlmsg_type != RTM_NEWLINK)
        return MNL_CB_OK;
    return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), lc_attr_cb, data);
}

/* Runs inside the target namespace: the netlink socket is created here. */
static int lc_fn(void *p)
{
    struct lc_arg *a = p;
    char *buf = malloc(32768);
    struct mnl_socket *nl = NULL;
    struct nlmsghdr *nlh;
    struct ifinfomsg *ifm;
    unsigned seq = (unsigned)time(NULL), portid;
    ssize_t r;
    int rc = -1, e;

    if (!buf) {
        seterr(ENOMEM, "malloc");
        return -1;
    }
    nl = mnl_socket_open(NETLINK_ROUTE);
    if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
        seterr(errno, "netlink socket");
        goto out;
    }
    portid = mnl_socket_get_portid(nl);
    {
        struct timeval tv = { 2, 0 };
        setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
    nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RTM_GETLINK;
    nlh->nlmsg_flags = NLM_F_REQUEST;
    nlh->nlmsg_seq = seq;
    ifm = mnl_nlmsg_put_extra_header(nlh, sizeof *ifm);
    ifm->ifi_family = AF_UNSPEC;
    mnl_attr_put_strz(nlh, IFLA_IFNAME, a->ifname);
    if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
        seterr(errno, "RTM_GETLINK %s: send", a->ifname);
        goto out;
    }
    r = mnl_socket_recvfrom(nl, buf, 32768);
    if (r < 0) {
        seterr(errno, "RTM_GETLINK %s: recv", a->ifname);
        goto out;
    }
    if (mnl_cb_run(buf, (size_t)r, seq, portid, lc_msg_cb, a) < 0) {
        seterr(errno, "RTM_GETLINK %s", a->ifname);
        goto out;
    }
    if (!a->found) {
        seterr(ENODATA, "RTM_GETLINK %s: no IFLA_STATS64", a->ifname);
        goto out;
    }
    rc = 0;
out:
    e = errno;
    if (nl)
        mnl_socket_close(nl);
    free(buf);
    errno = e;
    return rc;
}

int tr_link_counters(const char *ns, const char *ifname,
                     uint64_t *tx_bytes, uint64_t *rx_bytes,
                     uint64_t *tx_packets, uint64_t *rx_packets)
{
    struct lc_arg a = { .ifname = ifname };

    if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ) {
        seterr(EINVAL, "bad interface name");
        return -1;
    }
    if (tr_in_ns(ns, lc_fn, &a) < 0)
        return -1;
    if (tx_bytes)
        *tx_bytes = a.st.tx_bytes;
    if (rx_bytes)
        *rx_bytes = a.st.rx_bytes;
    if (tx_packets)
        *tx_packets = a.st.tx_packets;
    if (rx_packets)
        *rx_packets = a.st.rx_packets;
    return 0;
}
