/* copy.c — a copy onto this server's disk (emu/disk.h, DISK_COPY; the
 * controller's copy message): one fetch from the source's data port, read
 * off its disk (or sent from its memory: a task's output), written here at
 * this disk's write rate (fetch_disks), so it moves at min(source read,
 * network, this write) as the simulator's copy.  copy_done reports it once
 * every byte is written; a failed fetch is reported with its error. */
#include "agents/agent.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct copy {
	int id;
};

static void on_done(struct fetch *f, void *arg)
{
	struct copy *c = arg;
	const struct fetch_result *r = fetch_result(f);
	struct msg m = {.op = OP_COPY_DONE, .copy = c->id, .ok = r->ok, .bytes = r->bytes, .t_start = r->t_start,
			.t_end = r->t_end};
	if (!r->ok)
		snprintf(m.error, sizeof m.error, "%s", r->error);
	control_send(&m);
	free(c);
}

void copy_start(const struct msg *m)
{
	struct copy *c = malloc(sizeof *c);
	struct fetch *f = NULL;
	if (c) {
		c->id = m->copy;
		f = fetch_start(&m->src_addr, (uint32_t)m->copy, m->bytes, false, -1, agent.rack, on_done, c);
	}
	if (!f) {
		double now = now_real();
		struct msg d = {.op = OP_COPY_DONE, .copy = m->copy, .ok = false, .t_start = now, .t_end = now};
		snprintf(d.error, sizeof d.error, "copy %d: out of memory", m->copy);
		control_send(&d);
		free(c);
		return;
	}
	fetch_disks(f, m->from_disk, true);
}
