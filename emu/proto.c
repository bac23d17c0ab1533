/* proto.c — JSON-lines codec of the controller <-> agent protocol (proto.h).
 *
 * Decoding is strict: the line must be one JSON object (no trailing data,
 * no duplicate keys, no NUL), "op" must be known, every field of that op
 * must be present with the right type and in range, and no other field may
 * appear.  Integers must be JSON integers (1.0 is refused), durations and
 * times may be integers or reals.  Arrays are bounded by PROTO_MAX_XFERS /
 * PROTO_MAX_PAIRS.  On error nothing is left allocated and err says why.
 *
 * Field conventions on the wire (besides proto.h's list):
 *   addresses           "a.b.c.d:port", port 1..65535
 *   task_done.error     present only when ok is false (optional then);
 *                       copy_done.error likewise
 *   map.input_addr      required when input_src >= 0, absent when -1
 *   reduce.copiers      0 = the agent's default (--copiers), else 1..1024
 *   flow_done.dst       -1 = not known to the agent (started without --id):
 *                       the server of the connection it came on
 *   circuits.lit        the complete set of lit circuits (replaces the last)
 *   demand.pending      the sender's complete pending vector: racks absent
 *                       have nothing pending; demand.queued likewise */
#include "emu/proto.h"
#include <arpa/inet.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ID      INT32_MAX            /* task, job, xfer, server ids */
#define MAX_RACK    65535                /* data_req.dst_rack is 16 bits */
#define MAX_BYTES   ((uint64_t)INT64_MAX)/* JSON integers are int64 */
#define MAX_SECONDS 1e7                  /* durations: ~4 months */
#define MAX_EPOCH   1e11                 /* times: epoch seconds, year < 5000 */
#define MAX_COPIERS 1024

static const char *op_names[] = {
	[OP_HELLO] = "hello", [OP_TASK_DONE] = "task_done", [OP_FLOW_DONE] = "flow_done",
	[OP_DEMAND] = "demand", [OP_MAP] = "map", [OP_REDUCE] = "reduce", [OP_FETCH] = "fetch",
	[OP_CIRCUITS] = "circuits", [OP_ANNOUNCE] = "announce", [OP_KILL] = "kill",
	[OP_SHUTDOWN] = "shutdown", [OP_SUSPEND] = "suspend", [OP_RESUME] = "resume",
	[OP_COPY] = "copy", [OP_COPY_DONE] = "copy_done",
};
#define NOPS ((int)(sizeof op_names / sizeof op_names[0]))

/* Fields each op allows (all required unless decoded as optional). */
static const char *const op_fields[][10] = {
	[OP_HELLO] = {"server", "pid", "data_port"},
	[OP_TASK_DONE] = {"task", "ok", "t_start", "t_end", "bytes_in", "error"},
	[OP_FLOW_DONE] = {"xfer", "task", "bytes", "t_start", "t_end", "circuit", "src", "dst"},
	[OP_DEMAND] = {"pending", "queued"},
	[OP_MAP] = {"task", "job", "duration", "input_bytes", "input_src", "input_addr", "output_bytes"},
	[OP_REDUCE] = {"task", "job", "duration", "output_bytes", "copiers"},
	[OP_FETCH] = {"task", "final", "xfers"},
	[OP_CIRCUITS] = {"lit"},
	[OP_ANNOUNCE] = {"going"},
	[OP_KILL] = {"task"},
	[OP_SHUTDOWN] = {NULL},
	[OP_SUSPEND] = {"task"},
	[OP_RESUME] = {"task", "duration"},
	[OP_COPY] = {"copy", "src", "addr", "bytes", "from_disk"},
	[OP_COPY_DONE] = {"copy", "ok", "bytes", "t_start", "t_end", "error"},
};
static const char *const xfer_fields[] = {"xfer", "src", "addr", "bytes", "circuit", "src_rack", "dst_rack", NULL};

static const char *proto_op_name(enum msg_op op)
{
	return (int)op >= 0 && (int)op < NOPS ? op_names[op] : "?";
}

/* ---------------------------------------------------------------- encode */

static void addr_format(const struct sockaddr_in *a, char *buf, size_t len)
{
	char ip[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
	snprintf(buf, len, "%s:%u", ip, ntohs(a->sin_port));
}

static json_t *jaddr(const struct sockaddr_in *a)
{
	char buf[32];
	addr_format(a, buf, sizeof buf);
	return json_string(buf);
}

static json_t *jpairs(const struct rack_pair *p, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_pack("[ii]", p[i].src, p[i].dst));
	return a;
}

/* NULL (encoding fails) past the decoder's limit */
static json_t *encode_rack_bytes(const struct rack_bytes *rb, int n)
{
	if (n < 0 || n > PROTO_MAX_PAIRS)
		return NULL;
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_pack("[iI]", rb[i].rack, (json_int_t)rb[i].bytes));
	return a;
}

static int set(json_t *o, const char *k, json_t *v)
{
	return v ? json_object_set_new(o, k, v) : -1;
}

static json_t *encode_obj(const struct msg *m)
{
	json_t *o = json_object();
	int rc = set(o, "op", json_string(proto_op_name(m->op)));
	switch (m->op) {
	case OP_HELLO:
		rc |= set(o, "server", json_string(m->server));
		rc |= set(o, "pid", json_integer(m->pid));
		rc |= set(o, "data_port", json_integer(m->data_port));
		break;
	case OP_TASK_DONE:
		rc |= set(o, "task", json_integer(m->task));
		rc |= set(o, "ok", json_boolean(m->ok));
		rc |= set(o, "t_start", json_real(m->t_start));
		rc |= set(o, "t_end", json_real(m->t_end));
		rc |= set(o, "bytes_in", json_integer((json_int_t)m->bytes));
		if (!m->ok)
			rc |= set(o, "error", json_string(m->error));
		break;
	case OP_FLOW_DONE:
		rc |= set(o, "xfer", json_integer(m->xfer));
		rc |= set(o, "task", json_integer(m->task));
		rc |= set(o, "bytes", json_integer((json_int_t)m->bytes));
		rc |= set(o, "t_start", json_real(m->t_start));
		rc |= set(o, "t_end", json_real(m->t_end));
		rc |= set(o, "circuit", json_boolean(m->circuit));
		rc |= set(o, "src", json_integer(m->src));
		rc |= set(o, "dst", json_integer(m->dst));
		break;
	case OP_DEMAND:
		rc |= set(o, "pending", encode_rack_bytes(m->pending, m->npending));
		rc |= set(o, "queued", encode_rack_bytes(m->queued, m->nqueued));
		break;
	case OP_MAP:
		rc |= set(o, "task", json_integer(m->task));
		rc |= set(o, "job", json_integer(m->job));
		rc |= set(o, "duration", json_real(m->duration));
		rc |= set(o, "input_bytes", json_integer((json_int_t)m->input_bytes));
		rc |= set(o, "input_src", json_integer(m->input_src));
		if (m->input_src >= 0)
			rc |= set(o, "input_addr", jaddr(&m->input_addr));
		rc |= set(o, "output_bytes", json_integer((json_int_t)m->output_bytes));
		break;
	case OP_REDUCE:
		rc |= set(o, "task", json_integer(m->task));
		rc |= set(o, "job", json_integer(m->job));
		rc |= set(o, "duration", json_real(m->duration));
		rc |= set(o, "output_bytes", json_integer((json_int_t)m->output_bytes));
		rc |= set(o, "copiers", json_integer(m->copiers));
		break;
	case OP_FETCH: {
		if (m->nxfers < 0 || m->nxfers > PROTO_MAX_XFERS)
			rc = -1;
		json_t *a = json_array();
		for (int i = 0; rc == 0 && i < m->nxfers; i++) {
			const struct xfer *x = &m->xfers[i];
			json_t *e = json_object();
			rc |= set(e, "xfer", json_integer(x->id));
			rc |= set(e, "src", json_integer(x->src));
			rc |= set(e, "addr", jaddr(&x->addr));
			rc |= set(e, "bytes", json_integer((json_int_t)x->bytes));
			rc |= set(e, "circuit", json_boolean(x->circuit));
			rc |= set(e, "src_rack", json_integer(x->src_rack));
			rc |= set(e, "dst_rack", json_integer(x->dst_rack));
			json_array_append_new(a, e);
		}
		rc |= set(o, "task", json_integer(m->task));
		rc |= set(o, "final", json_boolean(m->final));
		rc |= set(o, "xfers", a);
		break;
	}
	case OP_CIRCUITS:
	case OP_ANNOUNCE:
		if (m->npairs < 0 || m->npairs > PROTO_MAX_PAIRS)
			rc = -1;
		else
			rc |= set(o, m->op == OP_CIRCUITS ? "lit" : "going", jpairs(m->pairs, m->npairs));
		break;
	case OP_KILL:
	case OP_SUSPEND:
		rc |= set(o, "task", json_integer(m->task));
		break;
	case OP_RESUME:
		rc |= set(o, "task", json_integer(m->task));
		rc |= set(o, "duration", json_real(m->duration));
		break;
	case OP_COPY:
		rc |= set(o, "copy", json_integer(m->copy));
		rc |= set(o, "src", json_integer(m->src));
		rc |= set(o, "addr", jaddr(&m->src_addr));
		rc |= set(o, "bytes", json_integer((json_int_t)m->bytes));
		rc |= set(o, "from_disk", json_boolean(m->from_disk));
		break;
	case OP_COPY_DONE:
		rc |= set(o, "copy", json_integer(m->copy));
		rc |= set(o, "ok", json_boolean(m->ok));
		rc |= set(o, "bytes", json_integer((json_int_t)m->bytes));
		rc |= set(o, "t_start", json_real(m->t_start));
		rc |= set(o, "t_end", json_real(m->t_end));
		if (!m->ok)
			rc |= set(o, "error", json_string(m->error));
		break;
	case OP_SHUTDOWN:
		break;
	default:
		rc = -1;
	}
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int proto_encode(const struct msg *m, char *buf, size_t len)
{
	json_t *o = encode_obj(m);
	if (!o)
		return -1;
	/* JSON_REAL_PRECISION 17 keeps doubles exact (epoch times to the µs). */
	size_t n = json_dumpb(o, buf, len, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(o);
	if (n == 0 || n + 1 > len || n + 1 > PROTO_MAX_LINE)
		return -1;
	buf[n] = '\n';
	if (n + 1 < len)
		buf[n + 1] = 0;
	return (int)n + 1;
}

/* ---------------------------------------------------------------- decode */

struct dec {
	char *err;
	const char *ctx;   /* "" or "xfers[3]." for messages */
};

static int fail(struct dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct dec *d, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	snprintf(d->err, 128, "%s%s", d->ctx, tmp);
	return -1;
}

static json_t *need(struct dec *d, json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (!v)
		fail(d, "missing field '%s'", k);
	return v;
}

static int get_int(struct dec *d, json_t *o, const char *k, long long lo, long long hi, long long *out)
{
	json_t *v = need(d, o, k);
	if (!v)
		return -1;
	if (!json_is_integer(v))
		return fail(d, "field '%s' must be an integer", k);
	long long x = json_integer_value(v);
	if (x < lo || x > hi)
		return fail(d, "field '%s' out of range (%lld not in %lld..%lld)", k, x, lo, hi);
	*out = x;
	return 0;
}

static int get_i(struct dec *d, json_t *o, const char *k, long long lo, long long hi, int *out)
{
	long long x;
	if (get_int(d, o, k, lo, hi, &x))
		return -1;
	*out = (int)x;
	return 0;
}

static int get_u64(struct dec *d, json_t *o, const char *k, uint64_t *out)
{
	long long x;
	if (get_int(d, o, k, 0, (long long)MAX_BYTES, &x))
		return -1;
	*out = (uint64_t)x;
	return 0;
}

static int get_num(struct dec *d, json_t *o, const char *k, double hi, double *out)
{
	json_t *v = need(d, o, k);
	if (!v)
		return -1;
	if (!json_is_number(v))
		return fail(d, "field '%s' must be a number", k);
	double x = json_number_value(v);
	if (!isfinite(x) || x < 0 || x > hi)
		return fail(d, "field '%s' out of range (%g not in 0..%g)", k, x, hi);
	*out = x;
	return 0;
}

static int get_bool(struct dec *d, json_t *o, const char *k, bool *out)
{
	json_t *v = need(d, o, k);
	if (!v)
		return -1;
	if (!json_is_boolean(v))
		return fail(d, "field '%s' must be true or false", k);
	*out = json_is_true(v);
	return 0;
}

static int get_str(struct dec *d, json_t *o, const char *k, char *out, size_t cap)
{
	json_t *v = need(d, o, k);
	if (!v)
		return -1;
	if (!json_is_string(v))
		return fail(d, "field '%s' must be a string", k);
	size_t n = json_string_length(v);
	if (n >= cap)
		return fail(d, "field '%s' too long (%zu bytes, at most %zu)", k, n, cap - 1);
	memcpy(out, json_string_value(v), n + 1);
	return 0;
}

/* "a.b.c.d:port" -> sockaddr_in; strict: dotted quad, decimal port 1..65535. */
static int parse_addr(const char *s, struct sockaddr_in *a)
{
	const char *colon = strrchr(s, ':');
	if (!colon || colon == s || colon - s >= INET_ADDRSTRLEN)
		return -1;
	char ip[INET_ADDRSTRLEN];
	memcpy(ip, s, (size_t)(colon - s));
	ip[colon - s] = 0;
	const char *p = colon + 1;
	if (!*p || strlen(p) > 5)
		return -1;
	unsigned port = 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		port = port * 10 + (unsigned)(*p - '0');
	}
	if (port < 1 || port > 65535)
		return -1;
	memset(a, 0, sizeof *a);
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, ip, &a->sin_addr) == 1 ? 0 : -1;
}

static int get_addr(struct dec *d, json_t *o, const char *k, struct sockaddr_in *a)
{
	char s[32];
	if (get_str(d, o, k, s, sizeof s))
		return -1;
	if (parse_addr(s, a))
		return fail(d, "field '%s' is not an IPv4 address a.b.c.d:port (\"%s\")", k, s);
	return 0;
}

static int only_fields(struct dec *d, json_t *o, const char *const *allowed)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		int ok = 0;
		for (int i = 0; allowed[i]; i++)
			if (!strcmp(k, allowed[i]))
				ok = 1;
		if (!ok)
			return fail(d, "unknown field '%.40s'", k);
	}
	return 0;
}

static json_t *get_array(struct dec *d, json_t *o, const char *k, size_t max)
{
	json_t *v = need(d, o, k);
	if (!v)
		return NULL;
	if (!json_is_array(v))
		return fail(d, "field '%s' must be an array", k), NULL;
	if (json_array_size(v) > max)
		return fail(d, "field '%s' has %zu entries (at most %zu)", k, json_array_size(v), max), NULL;
	return v;
}

/* [[a, b], ...] of two non-negative integers each; b's upper bound is bhi. */
static int get_pairs(struct dec *d, json_t *o, const char *k, long long bhi, long long *out, int *n)
{
	json_t *a = get_array(d, o, k, PROTO_MAX_PAIRS);
	if (!a)
		return -1;
	size_t i;
	json_t *e;
	json_array_foreach(a, i, e) {
		json_t *x, *y;
		if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_integer(x = json_array_get(e, 0)) ||
		    !json_is_integer(y = json_array_get(e, 1)))
			return fail(d, "%s[%zu] must be a pair of integers", k, i);
		long long xv = json_integer_value(x), yv = json_integer_value(y);
		if (xv < 0 || xv > MAX_RACK || yv < 0 || yv > bhi)
			return fail(d, "%s[%zu] out of range ([%lld, %lld])", k, i, xv, yv);
		out[2 * i] = xv;
		out[2 * i + 1] = yv;
	}
	*n = (int)json_array_size(a);
	return 0;
}

static int decode_pairs(struct dec *d, json_t *o, const char *k, struct msg *m)
{
	long long tmp[2 * PROTO_MAX_PAIRS];
	int n;
	if (get_pairs(d, o, k, MAX_RACK, tmp, &n))
		return -1;
	m->pairs = calloc((size_t)n + 1, sizeof *m->pairs);
	if (!m->pairs)
		return fail(d, "out of memory");
	for (int i = 0; i < n; i++)
		m->pairs[i] = (struct rack_pair){(int)tmp[2 * i], (int)tmp[2 * i + 1]};
	m->npairs = n;
	return 0;
}

static int decode_rack_bytes(struct dec *d, json_t *o, const char *k, struct rack_bytes **out, int *nout)
{
	long long tmp[2 * PROTO_MAX_PAIRS];
	int n;
	if (get_pairs(d, o, k, (long long)MAX_BYTES, tmp, &n))
		return -1;
	*out = calloc((size_t)n + 1, sizeof **out);
	if (!*out)
		return fail(d, "out of memory");
	for (int i = 0; i < n; i++)
		(*out)[i] = (struct rack_bytes){(int)tmp[2 * i], (uint64_t)tmp[2 * i + 1]};
	*nout = n;
	return 0;
}

static int decode_xfers(struct dec *d, json_t *o, struct msg *m)
{
	json_t *a = get_array(d, o, "xfers", PROTO_MAX_XFERS);
	if (!a)
		return -1;
	m->xfers = calloc(json_array_size(a) + 1, sizeof *m->xfers);
	if (!m->xfers)
		return fail(d, "out of memory");
	size_t i;
	json_t *e;
	char ctx[32];
	json_array_foreach(a, i, e) {
		if (!json_is_object(e))
			return fail(d, "xfers[%zu] must be an object", i);
		snprintf(ctx, sizeof ctx, "xfers[%zu]: ", i);
		struct dec sub = {d->err, ctx};
		struct xfer *x = &m->xfers[i];
		if (get_i(&sub, e, "xfer", 0, MAX_ID, &x->id) || get_i(&sub, e, "src", 0, MAX_ID, &x->src) ||
		    get_addr(&sub, e, "addr", &x->addr) || get_u64(&sub, e, "bytes", &x->bytes) ||
		    get_bool(&sub, e, "circuit", &x->circuit) || get_i(&sub, e, "src_rack", 0, MAX_RACK, &x->src_rack) ||
		    get_i(&sub, e, "dst_rack", 0, MAX_RACK, &x->dst_rack) || only_fields(&sub, e, xfer_fields))
			return -1;
		m->nxfers = (int)i + 1;
	}
	return 0;
}

/* task_done's and copy_done's error: only with ok = false, optional then. */
static int decode_error(struct dec *d, json_t *o, struct msg *m)
{
	if (!json_object_get(o, "error"))
		return 0;
	if (m->ok)
		return fail(d, "field 'error' with ok = true");
	return get_str(d, o, "error", m->error, sizeof m->error);
}

static int decode_obj(struct dec *d, json_t *o, struct msg *m)
{
	json_t *op = json_object_get(o, "op");
	if (!op)
		return fail(d, "missing field 'op'");
	if (!json_is_string(op))
		return fail(d, "field 'op' must be a string");
	int k;
	for (k = 0; k < NOPS; k++)
		if (!strcmp(json_string_value(op), op_names[k]))
			break;
	if (k == NOPS)
		return fail(d, "unknown op '%.40s'", json_string_value(op));
	m->op = (enum msg_op)k;
	const char *allowed[12] = {"op"};
	for (int i = 0; i < 10 && op_fields[k][i]; i++)
		allowed[i + 1] = op_fields[k][i];
	if (only_fields(d, o, allowed))
		return -1;

	switch (m->op) {
	case OP_HELLO:
		if (get_str(d, o, "server", m->server, sizeof m->server) || get_i(d, o, "pid", 1, INT32_MAX, &m->pid) ||
		    get_i(d, o, "data_port", 1, 65535, &m->data_port))
			return -1;
		if (!m->server[0])
			return fail(d, "field 'server' is empty");
		for (const char *p = m->server; *p; p++)
			if (*p <= ' ' || *p > '~')
				return fail(d, "field 'server' has a non-printable character");
		return 0;
	case OP_TASK_DONE:
		if (get_i(d, o, "task", 0, MAX_ID, &m->task) || get_bool(d, o, "ok", &m->ok) ||
		    get_num(d, o, "t_start", MAX_EPOCH, &m->t_start) || get_num(d, o, "t_end", MAX_EPOCH, &m->t_end) ||
		    get_u64(d, o, "bytes_in", &m->bytes))
			return -1;
		return decode_error(d, o, m);
	case OP_FLOW_DONE:
		return get_i(d, o, "xfer", 0, MAX_ID, &m->xfer) || get_i(d, o, "task", 0, MAX_ID, &m->task) ||
		       get_u64(d, o, "bytes", &m->bytes) || get_num(d, o, "t_start", MAX_EPOCH, &m->t_start) ||
		       get_num(d, o, "t_end", MAX_EPOCH, &m->t_end) || get_bool(d, o, "circuit", &m->circuit) ||
		       get_i(d, o, "src", 0, MAX_ID, &m->src) || get_i(d, o, "dst", -1, MAX_ID, &m->dst) ? -1 : 0;
	case OP_DEMAND:
		return decode_rack_bytes(d, o, "pending", &m->pending, &m->npending) ||
		       decode_rack_bytes(d, o, "queued", &m->queued, &m->nqueued) ? -1 : 0;
	case OP_MAP:
		if (get_i(d, o, "task", 0, MAX_ID, &m->task) || get_i(d, o, "job", 0, MAX_ID, &m->job) ||
		    get_num(d, o, "duration", MAX_SECONDS, &m->duration) || get_u64(d, o, "input_bytes", &m->input_bytes) ||
		    get_i(d, o, "input_src", -1, MAX_ID, &m->input_src) || get_u64(d, o, "output_bytes", &m->output_bytes))
			return -1;
		if (m->input_src >= 0)
			return get_addr(d, o, "input_addr", &m->input_addr);
		if (json_object_get(o, "input_addr"))
			return fail(d, "field 'input_addr' with a local input (input_src -1)");
		return 0;
	case OP_REDUCE:
		return get_i(d, o, "task", 0, MAX_ID, &m->task) || get_i(d, o, "job", 0, MAX_ID, &m->job) ||
		       get_num(d, o, "duration", MAX_SECONDS, &m->duration) ||
		       get_u64(d, o, "output_bytes", &m->output_bytes) ||
		       get_i(d, o, "copiers", 0, MAX_COPIERS, &m->copiers) ? -1 : 0;
	case OP_FETCH:
		return get_i(d, o, "task", 0, MAX_ID, &m->task) || get_bool(d, o, "final", &m->final) ||
		       decode_xfers(d, o, m) ? -1 : 0;
	case OP_CIRCUITS:
		return decode_pairs(d, o, "lit", m);
	case OP_ANNOUNCE:
		return decode_pairs(d, o, "going", m);
	case OP_KILL:
	case OP_SUSPEND:
		return get_i(d, o, "task", 0, MAX_ID, &m->task);
	case OP_RESUME:
		return get_i(d, o, "task", 0, MAX_ID, &m->task) || get_num(d, o, "duration", MAX_SECONDS, &m->duration) ? -1 : 0;
	case OP_COPY:
		return get_i(d, o, "copy", 0, MAX_ID, &m->copy) || get_i(d, o, "src", 0, MAX_ID, &m->src) ||
		       get_addr(d, o, "addr", &m->src_addr) || get_u64(d, o, "bytes", &m->bytes) ||
		       get_bool(d, o, "from_disk", &m->from_disk) ? -1 : 0;
	case OP_COPY_DONE:
		if (get_i(d, o, "copy", 0, MAX_ID, &m->copy) || get_bool(d, o, "ok", &m->ok) ||
		    get_u64(d, o, "bytes", &m->bytes) || get_num(d, o, "t_start", MAX_EPOCH, &m->t_start) ||
		    get_num(d, o, "t_end", MAX_EPOCH, &m->t_end))
			return -1;
		return decode_error(d, o, m);
	case OP_SHUTDOWN:
		return 0;
	}
	return fail(d, "unknown op");
}

int proto_decode(const char *line, size_t len, struct msg *m, char err[128])
{
	struct dec d = {err, ""};
	memset(m, 0, sizeof *m);
	m->input_src = -1;
	m->task = m->job = m->xfer = m->src = m->dst = m->copy = -1;
	err[0] = 0;
	if (!line)
		return fail(&d, "no line");
	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len + 1 > PROTO_MAX_LINE)
		return fail(&d, "line too long (%zu bytes, at most %d)", len + 1, PROTO_MAX_LINE);
	if (memchr(line, '\n', len))
		return fail(&d, "more than one line");
	/* jansson accepts a raw NUL after a number ({"task":3\0}): refuse it here */
	if (memchr(line, 0, len))
		return fail(&d, "NUL byte in the line");
	json_error_t je;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
	if (!o)
		return fail(&d, "bad JSON at column %d: %.80s", je.column, je.text);
	int rc = json_is_object(o) ? decode_obj(&d, o, m) : fail(&d, "not a JSON object");
	json_decref(o);
	if (rc) {
		proto_free(m);
		if (!err[0])
			fail(&d, "malformed message");
	}
	return rc;
}

void proto_free(struct msg *m)
{
	free(m->xfers);
	free(m->pairs);
	free(m->pending);
	free(m->queued);
	m->xfers = NULL;
	m->pairs = NULL;
	m->pending = m->queued = NULL;
	m->nxfers = m->npairs = m->npending = m->nqueued = 0;
}
