/* agent.h — the task agent (emu-agent): one per emulated server, started by
 * the controller inside the server's network namespace.
 *
 *   main.c     arguments, setup (parent-death signal, control connection,
 *              data port), message dispatch
 *   loop.c     the event loop: epoll, timerfd timers, deferred frees, log
 *   control.c  the control connection: JSON lines in and out (emu/proto.h)
 *   serve.c    the data port: answers data requests with synthetic bytes,
 *              holds circuit transfers while their circuit is dark
 *   demand.c   the circuit demand reported to the controller: bytes still
 *              to send (serve.c) and transfers held back (tasks.c)
 *   fetch.c    one fetch: connect, send a data_req, read to EOF, count;
 *              resume a stalled one on a new connection (stall.h)
 *   tasks.c    map and reduce tasks: input fetch, shuffle with at most
 *              `copiers` moving fetches at once, compute timers, kill
 *   disk.c     the server's disk: read and write rates shared by local
 *              reads and writes and the transfers it serves (emu/disk.h)
 *   copy.c     copies: bytes fetched from another server onto this disk
 *   spawn.c    --spawn: start a host's agents from a list, for the controller
 *
 * Single-threaded; every socket is non-blocking. */
#ifndef AGENTS_AGENT_H
#define AGENTS_AGENT_H
#include "emu/disk.h"
#include "emu/proto.h"
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#define AGENT_MAX_RACKS 256        /* data_req.dst_rack accepted below this */

struct agent_cfg {
	char server[16];               /* "r0h1" */
	int rack;                      /* own rack */
	int id;                        /* global server id (flow_done.dst), -1 unknown */
	struct in_addr addr;           /* own data address */
	int data_port;
	const char *control;           /* Unix socket path, or tcp:A.B.C.D:PORT */
	const char *netns;             /* joined once connected (--netns), or NULL */
	bool hold;                     /* hold circuit transfers while dark (default) */
	char cc[16];                   /* TCP_CONGESTION of data sockets ("" = default) */
	int copiers;                   /* default parallel fetches of a reduce */
	bool use_sendfile;             /* sendfile from a memfd (default) or send() */
	double stall_timeout;          /* s without progress on a data connection (0 = never) */
	int stall_retries;             /* resumptions of a stalled fetch before it fails */
	double disk_read_Bps, disk_write_Bps;   /* the disk's rates (0: not limited) */
};
extern struct agent_cfg agent;

/* --- loop.c --------------------------------------------------------------- */
struct ev {
	int fd;                        /* -1 once closed: pending events are skipped */
	void (*cb)(struct ev *e, uint32_t events);
};
int loop_init(void);
int loop_add(struct ev *e, uint32_t events);
int loop_mod(struct ev *e, uint32_t events);
/* Remove from epoll, close the fd, mark e dead. */
void loop_close(struct ev *e);
/* free(p) after the current batch of events (p may still be referenced by
 * events of this batch: their ev is dead, so they are skipped). */
void loop_defer_free(void *p);
void loop_run(void);               /* never returns */
/* One-shot CLOCK_MONOTONIC timers on timerfds. */
int timer_open(struct ev *e, void (*cb)(struct ev *, uint32_t));
void timer_arm(struct ev *e, double seconds);   /* <= 0: fire at once */
void timer_disarm(struct ev *e);
void timer_ack(struct ev *e);      /* read the expiration count */
double now_real(void);             /* CLOCK_REALTIME, epoch seconds */
double now_mono(void);
void alog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Socket options of every data socket: TCP_CONGESTION; for circuit
 * transfers IP_TOS 0x08 and a small TCP_NOTSENT_LOWAT.  -1 with errno. */
int data_sockopts(int fd, bool circuit);

/* --- control.c ------------------------------------------------------------ */
int control_connect(const char *path);          /* blocking connect + peer check or secret */
void control_send(const struct msg *m);         /* queued, never blocks */
/* Called for each well-formed message received. */
void agent_dispatch(struct msg *m);

/* --- serve.c -------------------------------------------------------------- */
int serve_init(void);                           /* listen on addr:data_port */
void serve_circuits(const struct rack_pair *lit, int n);   /* the lit set */
void serve_announce(const struct rack_pair *going, int n);
/* Whether the circuit src_rack -> dst_rack is lit (from the last circuits
 * and announce messages: every agent gets the whole set). */
bool serve_lit(int src_rack, int dst_rack);
/* Whether a transfer src_rack -> dst_rack waits for its circuit now: a
 * circuit transfer in hold mode whose circuit is dark. */
bool serve_held(bool circuit, int src_rack, int dst_rack);

/* --- demand.c ------------------------------------------------------------- */
/* Circuit bytes this server still has to send to dst_rack (sender side) or
 * holds back from src_rack (receiver side, hold mode) change by delta. */
void demand_pending_add(int dst_rack, int64_t delta);
void demand_queued_add(int src_rack, int64_t delta);

/* --- fetch.c -------------------------------------------------------------- */
struct fetch;
typedef void (*fetch_done_fn)(struct fetch *f, void *arg);
struct fetch_result {
	bool ok;
	uint64_t bytes;                /* received */
	double t_start, t_end;         /* epoch seconds */
	int retries;                   /* connections resumed after a stall or reset */
	char error[128];
};
/* Start fetching `bytes` of transfer xfer from addr (held by a server of
 * src_rack, for this server's dst_rack).  done(f, arg) is called once, from
 * the loop (never from fetch_start); the fetch is freed right after.  A
 * circuit fetch in hold mode takes over its bytes' queued demand (tasks.c)
 * and gives it up at its first byte or its end.  NULL
 * only if out of memory.  A connection that makes no progress for
 * agent.stall_timeout (not counting time a held circuit transfer waits for
 * its circuit), or that breaks after it was established, is replaced by one
 * asking for the missing bytes, at most agent.stall_retries times. */
struct fetch *fetch_start(const struct sockaddr_in *addr, uint32_t xfer, uint64_t bytes, bool circuit,
			  int src_rack, int dst_rack, fetch_done_fn done, void *arg);
/* The lit circuits are about to change or just changed: restart the stall
 * clocks of fetches whose circuit is dark. */
void fetch_circuits_changed(void);
/* Where its bytes are read and written (before the loop runs again; by
 * default read off the sender's disk, not written here): from_disk false =
 * the sender sends from memory; to_disk = written to this server's disk at
 * its write rate (a copy, a task's output sent here). */
void fetch_disks(struct fetch *f, bool from_disk, bool to_disk);
const struct fetch_result *fetch_result(const struct fetch *f);
/* Close and free without calling done. */
void fetch_abort(struct fetch *f);

/* --- disk.c --------------------------------------------------------------- */
/* A stream of one side of the disk: it wants `want` more bytes; each tick
 * grant(io, bytes) gives it its share (want already counted down). */
struct disk_io {
	struct disk_io *prev, *next;
	int side;                      /* DISK_READ or DISK_WRITE */
	uint64_t want;
	void (*grant)(struct disk_io *io, uint64_t bytes);
	bool on;
};
bool disk_limited(int side);
/* What the side gives in one tick, all to one stream. */
uint64_t disk_tick_bytes(int side);
/* Join the side's streams (leaving them first if on). */
void disk_io_start(struct disk_io *io, int side, uint64_t want, void (*grant)(struct disk_io *, uint64_t));
void disk_io_stop(struct disk_io *io);   /* keeps io->want: what it still wanted */

/* --- copy.c --------------------------------------------------------------- */
/* Fetch a copy's bytes (copy message) and write them to this disk; report
 * copy_done when all are written. */
void copy_start(const struct msg *m);

/* --- spawn.c -------------------------------------------------------------- */
/* emu-agent --spawn ...: its exit status. */
int spawn_main(int argc, char **argv);

/* --- tasks.c -------------------------------------------------------------- */
void tasks_map(const struct msg *m);
void tasks_reduce(const struct msg *m);
void tasks_fetch(const struct msg *m);
void tasks_kill(int task);
void tasks_suspend(int task);
void tasks_resume(int task, double delay);
/* The lit circuits changed: reduces start what can move now. */
void tasks_circuits_changed(void);
#endif
