/* disk.c — this server's disk (emu/disk.h): a read and a write side, each
 * at its rate (--disk-read-mbps, --disk-write-mbps; 0: not limited).
 * Every tick (TICK s, while any stream waits) a side's bytes since the last
 * tick are split among its streams by disk_split, over what each still
 * wants, and granted: a local read or write counts them off until it is
 * done, a served transfer (serve.c) may send that much more.  A side the
 * stream does not need, or one not limited, is no wait at all (the caller
 * asks disk_limited first). */
#include "agents/agent.h"
#include <stdlib.h>

#define TICK 0.01
#define MAXN 1024   /* streams granted per side and tick; more wait a tick */

static struct disk_io *head[3];   /* per side (DISK_READ, DISK_WRITE) */
static struct ev timer = {.fd = -1};
static bool armed;
static double last;

static double rate(int side) { return side == DISK_READ ? agent.disk_read_Bps : agent.disk_write_Bps; }

bool disk_limited(int side) { return rate(side) > 0; }

uint64_t disk_tick_bytes(int side) { return (uint64_t)(rate(side) * TICK) + 1; }

static void on_tick(struct ev *e, uint32_t events);

static void arm(void)
{
	if (armed)
		return;
	if (timer.fd < 0 && timer_open(&timer, on_tick))
		return;
	armed = true;
	timer_arm(&timer, TICK);
}

void disk_io_start(struct disk_io *io, int side, uint64_t want, void (*grant)(struct disk_io *, uint64_t))
{
	if (io->on)
		disk_io_stop(io);
	io->side = side;
	io->want = want;
	io->grant = grant;
	io->on = true;
	io->prev = NULL;
	io->next = head[side];
	if (head[side])
		head[side]->prev = io;
	head[side] = io;
	if (!armed)
		last = now_mono();
	arm();
}

void disk_io_stop(struct disk_io *io)
{
	if (!io->on)
		return;
	if (io->prev)
		io->prev->next = io->next;
	else
		head[io->side] = io->next;
	if (io->next)
		io->next->prev = io->prev;
	io->on = false;
}

static void grant_side(int side, double seconds)
{
	struct disk_io *io[MAXN];
	double want[MAXN], out[MAXN];
	int n = 0;
	for (struct disk_io *p = head[side]; p && n < MAXN; p = p->next) {
		io[n] = p;
		want[n++] = (double)p->want;
	}
	if (!n)
		return;
	disk_split(rate(side) * seconds, want, n, out);
	/* A grant may stop or start streams (a read done: compute; a served
	 * transfer done: closed), so each is made from the list taken above,
	 * and only to one still on. */
	for (int i = 0; i < n; i++) {
		uint64_t g = (uint64_t)out[i];
		if (!g || !io[i]->on || io[i]->side != side)
			continue;
		if (g > io[i]->want)
			g = io[i]->want;
		io[i]->want -= g;
		io[i]->grant(io[i], g);
	}
}

static void on_tick(struct ev *e, uint32_t events)
{
	(void)events;
	timer_ack(e);
	armed = false;
	double now = now_mono(), dt = now - last;
	last = now;
	if (dt > 4 * TICK)   /* the loop was held up: no burst of what could not be used */
		dt = 4 * TICK;
	grant_side(DISK_READ, dt);
	grant_side(DISK_WRITE, dt);
	if (head[DISK_READ] || head[DISK_WRITE])
		arm();
}
