/* proto.h — the control protocol between the emu controller and its agents.
 *
 * Messages are single-line JSON objects ending in '\n' (at most
 * PROTO_MAX_LINE bytes), so the protocol does not depend on its transport:
 * today a Unix stream socket (a path in /run/emu/PREFIX/, checked with
 * SO_PEERCRED), later TCP across machines.  Every message has "op"; the
 * fields of each op are listed below.  Times are epoch seconds
 * (CLOCK_REALTIME) so all processes share one clock.
 *
 *   agent -> controller
 *     hello      server (e.g. "r0h1"), pid, data_port
 *     task_done  task, ok, t_start, t_end, bytes_in (input or shuffle bytes
 *                received), error (when !ok)
 *     flow_done  xfer, task, bytes, t_start, t_end, circuit, src, dst
 *                (global server ids): one finished transfer, reported by
 *                the receiver
 *     demand     pending: array of [dst_rack, bytes] — circuit-eligible bytes
 *                this server still has to send, per destination rack;
 *                queued: array of [src_rack, bytes] — circuit transfers its
 *                reduces hold back while their circuit is dark, per
 *                source rack
 *     copy_done  copy, ok, bytes, t_start, t_end, error (when !ok): a copy's
 *                bytes are all written to this server's disk
 *   controller -> agent
 *     map        task, job, duration, input_bytes, input_src (server id, -1
 *                = local), input_addr, output_bytes
 *     reduce     task, job, duration, output_bytes, copiers
 *     fetch      task, final, xfers: array of {xfer, src, addr, bytes,
 *                circuit, src_rack, dst_rack} — transfers a running reduce
 *                task must fetch; final = no more will follow
 *     circuits   lit: array of [src_rack, dst_rack] now usable
 *     announce   going: array of [src_rack, dst_rack] about to go dark
 *     kill       task
 *     suspend    task: stop its compute and fetches, keeping what is done
 *     resume     task, duration: go on after `duration` s (the recovery delay)
 *     copy       copy, src, addr, bytes, from_disk: fetch `bytes` from src's
 *                data port (read off its disk if from_disk, else from its
 *                memory: a task's output) and write them to this disk
 *     shutdown
 *
 * Data plane (agent to agent, real TCP over the emulated network): the
 * fetching agent connects to addr (IPv4 "a.b.c.d:port" of the sender's data
 * port) and writes one struct data_req; the sender answers with exactly
 * `bytes` bytes of synthetic data and closes.  A circuit-eligible transfer
 * is sent with IP TOS 0x08; in "hold" mode the sender writes it only while
 * the circuit from its rack to dst_rack is lit.  nodisk = 1: the sender
 * sends from memory, not reading its disk (a task's output on its way). */
#ifndef EMU_PROTO_H
#define EMU_PROTO_H
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define PROTO_MAX_LINE  (256 * 1024)
#define PROTO_MAX_XFERS 4096
#define PROTO_MAX_PAIRS 1024
#define DATA_REQ_MAGIC  0x656d7531u   /* "emu1" */
/* Data connections: seconds without progress before one is given up
 * (emu-agent --stall-timeout, emu run --stall-timeout; docs/model.md,
 * *Shuffle*, says why 120: congested TCP at low emulated rates goes silent for over a minute and
 * recovers), and how often a fetch resumes on a new connection before it
 * fails. */
#define DATA_STALL_TIMEOUT_S 120.0
#define DATA_STALL_RETRIES   3

enum msg_op {
	OP_HELLO, OP_TASK_DONE, OP_FLOW_DONE, OP_DEMAND,
	OP_MAP, OP_REDUCE, OP_FETCH, OP_CIRCUITS, OP_ANNOUNCE, OP_KILL, OP_SHUTDOWN,
	OP_SUSPEND, OP_RESUME, OP_COPY, OP_COPY_DONE,
};

struct xfer {
	int id;                 /* controller-assigned, unique in a run */
	int src;                /* sending server (global id) */
	struct sockaddr_in addr;/* its data port */
	uint64_t bytes;
	bool circuit;           /* circuit-eligible (marked, maybe held) */
	int src_rack, dst_rack;
};

struct rack_pair { int src, dst; };
struct rack_bytes { int rack; uint64_t bytes; };

struct msg {
	enum msg_op op;
	int task, job;
	/* hello */
	char server[16];
	int pid;
	int data_port;
	/* map / reduce */
	double duration;
	uint64_t input_bytes, output_bytes;
	int input_src;          /* -1 = local */
	struct sockaddr_in input_addr;
	int copiers;
	/* fetch */
	bool final;
	struct xfer *xfers;     /* owned by the message (malloc'd by decode) */
	int nxfers;
	/* circuits / announce */
	struct rack_pair *pairs;
	int npairs;
	/* demand */
	struct rack_bytes *pending, *queued;
	int npending, nqueued;
	/* task_done / flow_done */
	bool ok;
	double t_start, t_end;
	uint64_t bytes;         /* task_done: bytes_in; flow_done: bytes */
	int xfer, src, dst;
	bool circuit;
	char error[128];
	/* copy / copy_done (src: the server read from) */
	int copy;
	struct sockaddr_in src_addr;
	bool from_disk;
};

/* Encode m as one line (with '\n') into buf; returns its length, or -1 if it
 * does not fit. */
int proto_encode(const struct msg *m, char *buf, size_t len);
/* Decode one line (without or with the trailing '\n').  Returns 0, or -1
 * with a reason in err (unknown op, missing or mistyped field, out-of-range
 * value, oversized arrays): malformed control messages must never crash or
 * be half-applied. */
int proto_decode(const char *line, size_t len, struct msg *m, char err[128]);
/* Free the arrays a decoded message owns. */
void proto_free(struct msg *m);

/* Data-plane request, network byte order on the wire. */
struct data_req {
	uint32_t magic;         /* DATA_REQ_MAGIC */
	uint32_t xfer;          /* transfer id (for the sender's accounting) */
	uint64_t bytes;
	uint16_t dst_rack;
	uint8_t circuit;        /* 1 = mark TOS 0x08 (and hold if the sender holds) */
	uint8_t nodisk;         /* 1 = not read off the sender's disk */
	uint8_t pad[4];
} __attribute__((packed));
#endif
