/* targets.h — the fuzz targets, one per parser/decoder, shared by the
 * libFuzzer harnesses (fuzz/fuzz_*.c) and by the regression test that
 * replays every file of fuzz/regress/<harness>/ (tests/unit/test_fuzz_regress.c).
 *
 * Each target takes arbitrary bytes and returns 0, or a non-zero code when
 * a property the parser promises does not hold (the harnesses abort on it,
 * the regression test fails).  Crashes and sanitizer reports are found by
 * the sanitizers themselves.
 *
 *   topo       topo_load_string on the bytes as a topology file; on success
 *              the result must satisfy the documented bounds
 *   workload   workload_read on the bytes as a file (SWIM or native JSON, by
 *              content), through a memfd's /proc/self/fd path; a workload
 *              read must write natively and read back to the same tasks
 *   proto      proto_decode; a decoded message must hold no NUL byte, must
 *              encode, and decode again to an equal message that encodes to
 *              the same line
 *   demand     demand_schedule_read (emu ocs --demand) on the bytes as a file;
 *              the first byte picks the rack count
 *   circuits   circuits_parse; the first three bytes pick racks, ports and
 *              mode; a parsed configuration must format and parse back equal
 *   hosts      hosts_load_string (netctl --hosts); a hosts file read must
 *              format and read back equal, and its partition of a fabric of
 *              1..64 racks (the input's length picks) must give every rack a
 *              host, every host a rack, and fixed counts exactly
 */
#ifndef FUZZ_TARGETS_H
#define FUZZ_TARGETS_H
#include "emu/demand.h"
#include "emu/proto.h"
#include "emu/workload.h"
#include "netctl/circuits.h"
#include "netctl/hosts.h"
#include "netctl/topo.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* NUL-terminated copy of the input (the parsers take C strings). */
static inline char *fz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* The bytes as a file: a memfd, named by its /proc/self/fd path.  -1 on error. */
static inline int fz_memfile(const uint8_t *data, size_t size, char path[64])
{
	int fd = memfd_create("fuzz-input", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t off = 0;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

/* ------------------------------------------------------------- topology */

/* Rates above HTB's ceiling load only for the simulator, flagged unshapeable
 * (the emulator refuses such a topology with that message). */
static inline int fz_rate_ok(const struct topo *t, uint64_t rate)
{
	return rate >= 1000 && rate <= 10000000000000ULL && (rate <= TOPO_MAX_RATE || t->unshapeable[0]);
}

/* What every loaded topology must satisfy; 0 or the broken rule. */
static inline int fz_topo_bad(const struct topo *t)
{
	int servers = 0;
	if (t->racks < 1 || t->racks > TOPO_MAX_RACKS || t->nclasses < 1 || t->nclasses > TOPO_MAX_CLASSES)
		return 1;
	for (int r = 0; r < t->racks; r++) {
		if (t->rack[r].first != servers || t->rack[r].servers < 1 || t->rack[r].servers > TOPO_MAX_SERVERS)
			return 1;
		servers += t->rack[r].servers;
	}
	if (servers != t->nservers)
		return 1;
	if (t->ocs && (t->ocs_ports < 1 || t->ocs_ports > TOPO_MAX_PORTS || t->racks < 2))
		return 2;
	for (int k = 0; k < t->nclasses; k++) {
		const struct topo_class *c = &t->cls[k];
		if (!fz_rate_ok(t, c->rx.rate) || !fz_rate_ok(t, c->tx.rate))
			return 3;
		if (!c->rx.queue_bytes || !c->rx.gso_max || c->rx.queue_bytes < 2ULL * c->rx.gso_max ||
		    c->tx.queue_bytes != c->rx.queue_bytes || c->tx.gso_max != c->rx.gso_max)
			return 4;
		if (!(c->speed > 0) || (!c->containers && !(c->cores > 0)))
			return 6;
	}
	if (!fz_rate_ok(t, t->uplink.rate) || (t->ocs && !fz_rate_ok(t, t->optical.rate)))
		return 3;
	if (!t->uplink.queue_bytes || t->uplink.gso_max != t->cls[0].rx.gso_max)
		return 4;
	if (!t->tcp_cc[0] || t->server_net.s_addr == t->fabric_net.s_addr)
		return 5;
	return 0;
}

static inline int fuzz_topo(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size), err[TOPO_ERR_LEN];
	struct topo t;
	int bad = 0;
	/* Twice: the file's own rate scale, and an override (as --rate-scale). */
	for (int pass = 0; pass < 2 && !bad; pass++)
		if (!topo_load_string(&t, text, "fuzz.conf", pass ? 0.01 : 0, err))
			bad = fz_topo_bad(&t);
	free(text);
	return bad;
}

/* ------------------------------------------------------------- workload */

static inline int fz_same_tasks(const struct workload *a, const struct workload *b)
{
	if (a->njobs != b->njobs || a->ntasks != b->ntasks)
		return 0;
	for (int i = 0; i < a->njobs; i++) {
		const struct job *x = &a->jobs[i], *y = &b->jobs[i];
		if (strcmp(x->name, y->name) || x->nmaps != y->nmaps || x->nreduces != y->nreduces ||
		    x->input_bytes != y->input_bytes || x->shuffle_bytes != y->shuffle_bytes ||
		    x->output_bytes != y->output_bytes || x->ndeps != y->ndeps)
			return 0;
	}
	for (int i = 0; i < a->ntasks; i++) {
		const struct task *x = &a->tasks[i], *y = &b->tasks[i];
		if (x->kind != y->kind || x->job != y->job || x->input_bytes != y->input_bytes ||
		    x->output_bytes != y->output_bytes || x->work_s != y->work_s)
			return 0;
	}
	return 1;
}

static inline int fuzz_workload(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	int fd = fz_memfile(data, size, path);
	if (fd < 0)
		return 0;   /* out of file descriptors or memory: not the parser's fault */
	struct workload_params p;
	workload_params_default(&p);
	p.data_scale = 0.01;   /* the GENI defaults: exercises scaling */
	p.time_scale = 0.1;
	struct workload w;
	int bad = 0;
	if (workload_read(&w, path, &p, 0, err) == 0) {
		/* Written natively and read back: the same tasks (workload.h). */
		char path2[64];
		int fd2 = memfd_create("fuzz-output", MFD_CLOEXEC);
		if (fd2 >= 0) {
			struct workload w2;
			snprintf(path2, sizeof path2, "/proc/self/fd/%d", fd2);
			if (workload_write_native(&w, path2))
				bad = 10;
			else if (workload_read(&w2, path2, &p, 0, err))
				bad = 11;
			else {
				if (!fz_same_tasks(&w, &w2))
					bad = 12;
				workload_free(&w2);
			}
			close(fd2);
		}
		workload_free(&w);
	}
	close(fd);
	return bad;
}

/* ---------------------------------------------------------------- proto */

static inline int fz_same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_family == b->sin_family && a->sin_port == b->sin_port && a->sin_addr.s_addr == b->sin_addr.s_addr;
}

/* Every field of the op equal (doubles bit for bit). */
static inline int fz_same_msg(const struct msg *a, const struct msg *b)
{
#define SAME(f) (memcmp(&a->f, &b->f, sizeof a->f) == 0)
	if (a->op != b->op)
		return 0;
	switch (a->op) {
	case OP_HELLO:
		return !strcmp(a->server, b->server) && SAME(pid) && SAME(data_port);
	case OP_TASK_DONE:
		return SAME(task) && SAME(ok) && SAME(t_start) && SAME(t_end) && SAME(bytes) &&
		       (a->ok || !strcmp(a->error, b->error));
	case OP_FLOW_DONE:
		return SAME(xfer) && SAME(task) && SAME(bytes) && SAME(t_start) && SAME(t_end) && SAME(circuit) &&
		       SAME(src) && SAME(dst);
	case OP_DEMAND:
		if (a->npending != b->npending)
			return 0;
		for (int i = 0; i < a->npending; i++)
			if (a->pending[i].rack != b->pending[i].rack || a->pending[i].bytes != b->pending[i].bytes)
				return 0;
		return 1;
	case OP_MAP:
		return SAME(task) && SAME(job) && SAME(duration) && SAME(input_bytes) && SAME(input_src) &&
		       SAME(output_bytes) && (a->input_src < 0 || fz_same_addr(&a->input_addr, &b->input_addr));
	case OP_REDUCE:
		return SAME(task) && SAME(job) && SAME(duration) && SAME(output_bytes) && SAME(copiers);
	case OP_FETCH:
		if (!SAME(task) || !SAME(final) || a->nxfers != b->nxfers)
			return 0;
		for (int i = 0; i < a->nxfers; i++) {
			const struct xfer *x = &a->xfers[i], *y = &b->xfers[i];
			if (x->id != y->id || x->src != y->src || !fz_same_addr(&x->addr, &y->addr) ||
			    x->bytes != y->bytes || x->circuit != y->circuit || x->src_rack != y->src_rack ||
			    x->dst_rack != y->dst_rack)
				return 0;
		}
		return 1;
	case OP_CIRCUITS:
	case OP_ANNOUNCE:
		if (a->npairs != b->npairs)
			return 0;
		for (int i = 0; i < a->npairs; i++)
			if (a->pairs[i].src != b->pairs[i].src || a->pairs[i].dst != b->pairs[i].dst)
				return 0;
		return 1;
	case OP_COPY:
		return SAME(copy) && SAME(src) && fz_same_addr(&a->src_addr, &b->src_addr) && SAME(bytes) &&
		       SAME(from_disk);
	case OP_COPY_DONE:
		return SAME(copy) && SAME(ok) && SAME(bytes) && SAME(t_start) && SAME(t_end) &&
		       (a->ok || !strcmp(a->error, b->error));
	case OP_KILL:
	case OP_SUSPEND:
		return SAME(task);
	case OP_RESUME:
		return SAME(task) && SAME(duration);
	case OP_SHUTDOWN:
		return 1;
	}
	return 0;
#undef SAME
}

static inline int fuzz_proto(const uint8_t *data, size_t size)
{
	static char buf1[PROTO_MAX_LINE + 1], buf2[PROTO_MAX_LINE + 1];
	char err[128];
	struct msg m1, m2;
	int bad = 0;
	if (proto_decode((const char *)data, size, &m1, err))
		return 0;
	if (memchr(data, 0, size)) {
		proto_free(&m1);
		return 24;   /* proto.c promises: no NUL */
	}
	int n1 = proto_encode(&m1, buf1, sizeof buf1);
	if (n1 < 0)
		bad = 20;   /* a decodable message must be encodable */
	else if (proto_decode(buf1, (size_t)n1, &m2, err))
		bad = 21;   /* and what we encode must decode */
	else {
		if (!fz_same_msg(&m1, &m2))
			bad = 22;
		else {
			int n2 = proto_encode(&m2, buf2, sizeof buf2);
			if (n2 != n1 || memcmp(buf1, buf2, (size_t)n1))
				bad = 23;
		}
		proto_free(&m2);
	}
	proto_free(&m1);
	return bad;
}

/* --------------------------------------------------------------- demand */

static inline int fuzz_demand(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int racks = 1 + data[0] % TOPO_MAX_RACKS;
	char path[64], err[256] = "";
	int fd = fz_memfile(data + 1, size - 1, path);
	if (fd < 0)
		return 0;
	struct demand_step *steps;
	int n, bad = 0;
	if (demand_schedule_read(path, racks, &steps, &n, err) == 0) {
		for (int i = 0; i < n && !bad; i++)
			if (steps[i].src < 0 || steps[i].src >= racks || steps[i].dst < 0 || steps[i].dst >= racks ||
			    steps[i].src == steps[i].dst || steps[i].bytes < 0 || !(steps[i].t >= 0) ||
			    (i && steps[i].t < steps[i - 1].t))
				bad = 30;
		free(steps);
	} else if (!err[0]) {
		bad = 31;   /* an error must say why */
	}
	close(fd);
	return bad;
}

/* ------------------------------------------------------------- circuits */

static inline int fuzz_circuits(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	struct topo t;
	memset(&t, 0, sizeof t);
	snprintf(t.name, sizeof t.name, "fuzz");
	t.racks = 1 + data[0] % TOPO_MAX_RACKS;
	t.ocs = data[1] % 16 != 15;   /* mostly with an OCS */
	t.ocs_ports = 1 + data[1] % TOPO_MAX_PORTS;
	t.ocs_mode = data[2] & 1 ? OCS_BIDIRECTIONAL : OCS_DIRECTED;
	char *spec = fz_cstr(data + 3, size - 3), err[256];
	static char text[TOPO_MAX_PORTS * TOPO_MAX_RACKS * 16];
	struct circuit_cfg c, c2;
	int bad = 0;
	if (circuits_parse(spec, &t, &c, err) == 0) {
		if (circuits_validate(&c, &t, err))
			bad = 40;
		circuits_format(&c, text, sizeof text);
		if (!bad && circuits_parse(text, &t, &c2, err))
			bad = 41;   /* the canonical form must parse */
		else if (!bad && circuits_changed(&c, &c2))
			bad = 42;   /* to the same configuration */
	}
	free(spec);
	return bad;
}
/* ---------------------------------------------------------------- hosts */

static inline int fuzz_hosts_equal(const struct hosts *a, const struct hosts *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++) {
		const struct fabric_host *x = &a->h[i], *y = &b->h[i];
		if (strcmp(x->name, y->name) || strcmp(x->mgmt, y->mgmt) || strcmp(x->ifname, y->ifname) ||
		    x->emulated != y->emulated || x->addr.s_addr != y->addr.s_addr || x->plen != y->plen ||
		    x->racks != y->racks || x->mtu != y->mtu)
			return 0;
	}
	return 1;
}

static inline int fuzz_hosts(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size), err[HOSTS_ERR_LEN];
	static char out[HOSTS_MAX * 256];
	static struct hosts hs, back;
	static struct topo t;
	struct layout l;
	int bad = 0;
	if (hosts_load_string(&hs, text, "fuzz", err) == 0) {
		if (hs.n < 1 || hs.n > HOSTS_MAX)
			bad = 50;
		else if (hosts_format(&hs, out, sizeof out))
			bad = 51;
		else if (hosts_load_string(&back, out, "back", err))
			bad = 52;   /* the written form must read */
		else if (!fuzz_hosts_equal(&hs, &back))
			bad = 53;   /* to the same hosts */
		/* Racks of 1..4 servers at two rates, by index. */
		memset(&t, 0, sizeof t);
		snprintf(t.name, sizeof t.name, "fuzz");
		t.racks = 1 + (int)(size % 64);
		t.nclasses = 2;
		t.cls[0].rx.rate = 100000000;
		t.cls[1].rx.rate = 1000000000;
		t.uplink.rate = 100000000;
		for (int r = 0, first = 0; r < t.racks; r++) {
			int n = 1 + r % 4;
			t.rack[r] = (struct topo_rack){first, n, 1, {{r % 3 == 0, n}}};
			first += n;
			t.nservers = first;
		}
		if (!bad && hosts_partition(&hs, &t, &l, err) == 0) {
			int count[HOSTS_MAX] = {0};
			for (int r = 0; r < t.racks && !bad; r++) {
				if (l.host_of[r] < 0 || l.host_of[r] >= hs.n)
					bad = 54;   /* a rack without a host */
				else
					count[l.host_of[r]]++;
			}
			for (int i = 0; i < hs.n && !bad; i++)
				if (!count[i] || count[i] != l.racks[i] ||
				    (hs.h[i].racks != HOSTS_AUTO && count[i] != hs.h[i].racks))
					bad = 55;   /* a host without a rack, or not its count */
			if (!bad && (l.mtu > FABRIC_MTU_MAX || l.eps_host < 0 || l.eps_host >= hs.n))
				bad = 56;
		}
	}
	free(text);
	return bad;
}
#endif
