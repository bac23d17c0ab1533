/* loop.c — the agent's event loop: one epoll set, timerfd timers, frees
 * deferred to the end of a batch, and the log. */
#include "agents/agent.h"
#include <errno.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static int epfd = -1;
static void **deferred;
static size_t ndeferred, capdeferred;

int loop_init(void)
{
	epfd = epoll_create1(EPOLL_CLOEXEC);
	return epfd < 0 ? -1 : 0;
}

int loop_add(struct ev *e, uint32_t events)
{
	struct epoll_event ee = {.events = events, .data.ptr = e};
	return epoll_ctl(epfd, EPOLL_CTL_ADD, e->fd, &ee);
}

int loop_mod(struct ev *e, uint32_t events)
{
	struct epoll_event ee = {.events = events, .data.ptr = e};
	return epoll_ctl(epfd, EPOLL_CTL_MOD, e->fd, &ee);
}

void loop_close(struct ev *e)
{
	if (e->fd < 0)
		return;
	epoll_ctl(epfd, EPOLL_CTL_DEL, e->fd, NULL);
	close(e->fd);
	e->fd = -1;
}

void loop_defer_free(void *p)
{
	if (ndeferred == capdeferred) {
		size_t cap = capdeferred ? 2 * capdeferred : 64;
		void **n = realloc(deferred, cap * sizeof *n);
		if (!n) {   /* leak rather than risk a use-after-free */
			alog("out of memory (deferred free)");
			return;
		}
		deferred = n;
		capdeferred = cap;
	}
	deferred[ndeferred++] = p;
}

void loop_run(void)
{
	struct epoll_event evs[64];
	for (;;) {
		int n = epoll_wait(epfd, evs, 64, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			alog("epoll_wait: %s", strerror(errno));
			exit(1);
		}
		for (int i = 0; i < n; i++) {
			struct ev *e = evs[i].data.ptr;
			if (e->fd >= 0)
				e->cb(e, evs[i].events);
		}
		for (size_t i = 0; i < ndeferred; i++)
			free(deferred[i]);
		ndeferred = 0;
	}
}

int timer_open(struct ev *e, void (*cb)(struct ev *, uint32_t))
{
	e->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	e->cb = cb;
	if (e->fd < 0)
		return -1;
	if (loop_add(e, EPOLLIN)) {
		close(e->fd);
		e->fd = -1;
		return -1;
	}
	return 0;
}

void timer_arm(struct ev *e, double seconds)
{
	struct itimerspec its = {0};
	if (!(seconds > 1e-9))
		seconds = 1e-9;   /* zero would disarm */
	its.it_value.tv_sec = (time_t)seconds;
	its.it_value.tv_nsec = (long)((seconds - (double)its.it_value.tv_sec) * 1e9);
	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;
	timerfd_settime(e->fd, 0, &its, NULL);
}

void timer_disarm(struct ev *e)
{
	struct itimerspec its = {0};
	timerfd_settime(e->fd, 0, &its, NULL);
}

void timer_ack(struct ev *e)
{
	uint64_t n;
	if (read(e->fd, &n, sizeof n) < 0 && errno != EAGAIN)
		alog("timerfd read: %s", strerror(errno));
}

static double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
double now_real(void) { return clock_s(CLOCK_REALTIME); }
double now_mono(void) { return clock_s(CLOCK_MONOTONIC); }

void alog(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "emu-agent %s: %s\n", agent.server[0] ? agent.server : "?", line);
}

int data_sockopts(int fd, bool circuit)
{
	if (agent.cc[0] && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, agent.cc, (socklen_t)strlen(agent.cc)))
		return -1;
	if (circuit) {
		int tos = IPTOS_THROUGHPUT, lowat = 32 * 1024;
		if (setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos) ||
		    setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof lowat))
			return -1;
	}
	return 0;
}
