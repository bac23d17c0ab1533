/* Unit tests of the control protocol codec (emu/proto.h): every op survives
 * a round trip, and malformed lines are refused with a reason. */
#include "emu/proto.h"
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char buf[PROTO_MAX_LINE + 16];

static struct sockaddr_in addr(const char *ip, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

/* encode -> decode, checking the line is one '\n'-terminated line. */
static void roundtrip(const struct msg *in, struct msg *out)
{
	int n = proto_encode(in, buf, sizeof buf);
	cr_assert_gt(n, 0, "encode failed");
	cr_assert_eq(buf[n - 1], '\n');
	cr_assert_null(memchr(buf, '\n', (size_t)n - 1), "more than one line: %s", buf);
	char err[128];
	cr_assert_eq(proto_decode(buf, (size_t)n, out, err), 0, "decode of %s: %s", buf, err);
	cr_assert_eq(out->op, in->op);
}

static void same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	cr_assert_eq(a->sin_family, AF_INET);
	cr_assert_eq(a->sin_addr.s_addr, b->sin_addr.s_addr);
	cr_assert_eq(a->sin_port, b->sin_port);
}

Test(proto, hello)
{
	struct msg m = {.op = OP_HELLO, .pid = 4242, .data_port = 7000}, o;
	strcpy(m.server, "r12h130");
	roundtrip(&m, &o);
	cr_assert_str_eq(o.server, "r12h130");
	cr_assert_eq(o.pid, 4242);
	cr_assert_eq(o.data_port, 7000);
	proto_free(&o);
}

Test(proto, task_done_ok_and_failed)
{
	struct msg m = {.op = OP_TASK_DONE, .task = 17, .ok = true, .t_start = 1700000000.123456,
			.t_end = 1700000003.654321, .bytes = 123456789012ULL}, o;
	roundtrip(&m, &o);
	cr_assert_eq(o.task, 17);
	cr_assert(o.ok);
	cr_assert_eq(o.t_start, m.t_start, "times must survive exactly: %.9f", o.t_start);
	cr_assert_eq(o.t_end, m.t_end);
	cr_assert_eq(o.bytes, m.bytes);
	cr_assert_str_empty(o.error);
	m.ok = false;
	strcpy(m.error, "xfer 12 from 198.18.1.2:7000: Connection refused \"quoted\"");
	roundtrip(&m, &o);
	cr_assert_not(o.ok);
	cr_assert_str_eq(o.error, m.error);
}

Test(proto, flow_done)
{
	struct msg m = {.op = OP_FLOW_DONE, .xfer = 99, .task = 3, .bytes = 1ULL << 40, .t_start = 1.5,
			.t_end = 2.25, .circuit = true, .src = 7, .dst = 12}, o;
	roundtrip(&m, &o);
	cr_assert_eq(o.xfer, 99);
	cr_assert_eq(o.task, 3);
	cr_assert_eq(o.bytes, 1ULL << 40);
	cr_assert_eq(o.t_start, 1.5);
	cr_assert_eq(o.t_end, 2.25);
	cr_assert(o.circuit);
	cr_assert_eq(o.src, 7);
	cr_assert_eq(o.dst, 12);
}

Test(proto, demand)
{
	struct rack_bytes p[3] = {{1, 500}, {4, 0}, {249, (uint64_t)INT64_MAX}}, q[1] = {{7, 1234}};
	struct msg m = {.op = OP_DEMAND, .pending = p, .npending = 3, .queued = q, .nqueued = 1}, o;
	roundtrip(&m, &o);
	cr_assert_eq(o.npending, 3);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(o.pending[i].rack, p[i].rack);
		cr_assert_eq(o.pending[i].bytes, p[i].bytes);
	}
	cr_assert_eq(o.nqueued, 1);
	cr_assert_eq(o.queued[0].rack, 7);
	cr_assert_eq(o.queued[0].bytes, 1234);
	proto_free(&o);
	cr_assert_null(o.pending);
	cr_assert_null(o.queued);
	m.npending = m.nqueued = 0;
	roundtrip(&m, &o);
	cr_assert_eq(o.npending, 0);
	cr_assert_eq(o.nqueued, 0);
	proto_free(&o);
}

Test(proto, map_local_and_remote)
{
	struct msg m = {.op = OP_MAP, .task = 5, .job = 2, .duration = 2.5, .input_bytes = 64000000,
			.input_src = -1, .output_bytes = 1000}, o;
	roundtrip(&m, &o);
	cr_assert_eq(o.task, 5);
	cr_assert_eq(o.job, 2);
	cr_assert_eq(o.duration, 2.5);
	cr_assert_eq(o.input_bytes, 64000000);
	cr_assert_eq(o.input_src, -1);
	cr_assert_eq(o.output_bytes, 1000);
	cr_assert_null(strstr(buf, "input_addr"), "local input carries no address: %s", buf);
	m.input_src = 31;
	m.input_addr = addr("198.18.3.2", 7001);
	roundtrip(&m, &o);
	cr_assert_eq(o.input_src, 31);
	cr_assert_not_null(strstr(buf, "\"198.18.3.2:7001\""), "%s", buf);
	same_addr(&o.input_addr, &m.input_addr);
}

Test(proto, reduce)
{
	struct msg m = {.op = OP_REDUCE, .task = 8, .job = 1, .duration = 0, .output_bytes = 77, .copiers = 5}, o;
	roundtrip(&m, &o);
	cr_assert_eq(o.task, 8);
	cr_assert_eq(o.job, 1);
	cr_assert_eq(o.duration, 0);
	cr_assert_eq(o.output_bytes, 77);
	cr_assert_eq(o.copiers, 5);
}

Test(proto, fetch)
{
	struct xfer x[2] = {
		{.id = 1, .src = 0, .addr = addr("198.18.0.1", 7000), .bytes = 1000, .circuit = false, .src_rack = 0, .dst_rack = 1},
		{.id = 2, .src = 3, .addr = addr("198.18.1.2", 65535), .bytes = 0, .circuit = true, .src_rack = 1, .dst_rack = 1},
	};
	struct msg m = {.op = OP_FETCH, .task = 4, .final = true, .xfers = x, .nxfers = 2}, o;
	roundtrip(&m, &o);
	cr_assert_eq(o.task, 4);
	cr_assert(o.final);
	cr_assert_eq(o.nxfers, 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(o.xfers[i].id, x[i].id);
		cr_assert_eq(o.xfers[i].src, x[i].src);
		same_addr(&o.xfers[i].addr, &x[i].addr);
		cr_assert_eq(o.xfers[i].bytes, x[i].bytes);
		cr_assert_eq(o.xfers[i].circuit, x[i].circuit);
		cr_assert_eq(o.xfers[i].src_rack, x[i].src_rack);
		cr_assert_eq(o.xfers[i].dst_rack, x[i].dst_rack);
	}
	proto_free(&o);
}

Test(proto, fetch_of_max_size_fits_or_is_refused_cleanly)
{
	/* PROTO_MAX_XFERS transfers with long fields do not fit in one line:
	 * encode refuses (the controller splits them into several fetches). */
	struct xfer *x = calloc(PROTO_MAX_XFERS, sizeof *x);
	for (int i = 0; i < PROTO_MAX_XFERS; i++)
		x[i] = (struct xfer){.id = 1000000 + i, .src = 1000, .addr = addr("198.18.200.200", 65000),
				     .bytes = 1000000000000ULL, .circuit = true, .src_rack = 200, .dst_rack = 201};
	struct msg m = {.op = OP_FETCH, .task = 1, .xfers = x, .nxfers = PROTO_MAX_XFERS}, o;
	cr_assert_eq(proto_encode(&m, buf, sizeof buf), -1);
	m.nxfers = 1000;   /* ~120 B each */
	roundtrip(&m, &o);
	cr_assert_eq(o.nxfers, 1000);
	cr_assert_eq(o.xfers[999].id, 1000999);
	proto_free(&o);
	m.nxfers = PROTO_MAX_XFERS + 1;
	cr_assert_eq(proto_encode(&m, buf, sizeof buf), -1);
	free(x);
}

Test(proto, circuits_announce_kill_shutdown)
{
	struct rack_pair p[2] = {{0, 3}, {3, 0}};
	struct msg m = {.op = OP_CIRCUITS, .pairs = p, .npairs = 2}, o;
	roundtrip(&m, &o);
	cr_assert_eq(o.npairs, 2);
	cr_assert_eq(o.pairs[1].src, 3);
	cr_assert_eq(o.pairs[1].dst, 0);
	proto_free(&o);
	m.op = OP_ANNOUNCE;
	m.npairs = 1;
	roundtrip(&m, &o);
	cr_assert_eq(o.npairs, 1);
	cr_assert_eq(o.pairs[0].src, 0);
	cr_assert_eq(o.pairs[0].dst, 3);
	proto_free(&o);
	m.op = OP_CIRCUITS;
	m.npairs = 0;
	roundtrip(&m, &o);
	cr_assert_eq(o.npairs, 0);
	proto_free(&o);
	struct msg k = {.op = OP_KILL, .task = 9};
	roundtrip(&k, &o);
	cr_assert_eq(o.task, 9);
	k.op = OP_SUSPEND;
	roundtrip(&k, &o);
	cr_assert(o.op == OP_SUSPEND && o.task == 9);
	struct msg re = {.op = OP_RESUME, .task = 7, .duration = 0.75};
	roundtrip(&re, &o);
	cr_assert(o.op == OP_RESUME && o.task == 7 && o.duration == 0.75);
	cr_assert_neq(proto_decode("{\"op\":\"resume\",\"task\":7}", 25, &o, buf), 0, "resume needs its duration");
	struct msg s = {.op = OP_SHUTDOWN};
	roundtrip(&s, &o);
	cr_assert_str_eq(buf, "{\"op\":\"shutdown\"}\n");
}

Test(proto, copy_and_copy_done)
{
	struct msg m = {.op = OP_COPY, .copy = 7, .src = 12, .src_addr = addr("198.18.3.4", 7000),
			.bytes = 5000000000ULL, .from_disk = true}, o;
	roundtrip(&m, &o);
	cr_assert_eq(o.copy, 7);
	cr_assert_eq(o.src, 12);
	same_addr(&o.src_addr, &m.src_addr);
	cr_assert_eq(o.bytes, m.bytes);
	cr_assert(o.from_disk);
	m.from_disk = false;
	roundtrip(&m, &o);
	cr_assert_not(o.from_disk);

	struct msg d = {.op = OP_COPY_DONE, .copy = 3, .ok = true, .bytes = 1234, .t_start = 1700000000.25,
			.t_end = 1700000002.5};
	roundtrip(&d, &o);
	cr_assert_eq(o.copy, 3);
	cr_assert(o.ok);
	cr_assert_eq(o.bytes, 1234);
	cr_assert_eq(o.t_start, d.t_start);
	cr_assert_eq(o.t_end, d.t_end);
	cr_assert_str_empty(o.error);
	d.ok = false;
	strcpy(d.error, "xfer 3 from 198.18.0.2:7000: connect: Connection refused");
	roundtrip(&d, &o);
	cr_assert_not(o.ok);
	cr_assert_str_eq(o.error, d.error);
}

Test(proto, encode_refuses_a_small_buffer)
{
	struct msg m = {.op = OP_KILL, .task = 9};
	char small[8];
	cr_assert_eq(proto_encode(&m, small, sizeof small), -1);
	cr_assert_gt(proto_encode(&m, buf, sizeof buf), 0);
}

Test(proto, decode_accepts_without_newline_and_with_crlf)
{
	struct msg o;
	char err[128];
	cr_assert_eq(proto_decode("{\"op\":\"kill\",\"task\":3}", 22, &o, err), 0, "%s", err);
	cr_assert_eq(o.task, 3);
	const char *l = "{\"op\":\"kill\",\"task\":4}\r\n";
	cr_assert_eq(proto_decode(l, strlen(l), &o, err), 0, "%s", err);
	cr_assert_eq(o.task, 4);
}

/* ------------------------------------------------------------ malformed */

struct bad {
	const char *line;
	const char *reason;   /* substring the error must contain */
};

static const struct bad bad_lines[] = {
	{"", "bad JSON"},
	{"   ", "bad JSON"},
	{"not json", "bad JSON"},
	{"{\"op\":\"kill\",\"task\":1", "bad JSON"},
	{"{\"op\":\"kill\",\"task\":1} {}", "bad JSON"},
	{"[1,2]", "not a JSON object"},
	{"\"kill\"", "not a JSON object"},
	{"null", "not a JSON object"},
	{"{}", "missing field 'op'"},
	{"{\"op\":7}", "'op' must be a string"},
	{"{\"op\":\"reboot\"}", "unknown op 'reboot'"},
	{"{\"op\":\"KILL\",\"task\":1}", "unknown op"},
	{"{\"op\":\"kill\"}", "missing field 'task'"},
	{"{\"op\":\"kill\",\"task\":\"1\"}", "'task' must be an integer"},
	{"{\"op\":\"kill\",\"task\":1.0}", "'task' must be an integer"},
	{"{\"op\":\"kill\",\"task\":-1}", "'task' out of range"},
	{"{\"op\":\"kill\",\"task\":4294967296}", "'task' out of range"},
	{"{\"op\":\"kill\",\"task\":99999999999999999999999}", "bad JSON"},
	{"{\"op\":\"kill\",\"task\":1,\"task\":2}", "bad JSON"},
	{"{\"op\":\"kill\",\"task\":1,\"extra\":0}", "unknown field 'extra'"},
	{"{\"op\":\"shutdown\",\"now\":true}", "unknown field 'now'"},
	{"{\"op\":\"hello\",\"server\":\"r0h1\",\"pid\":1}", "missing field 'data_port'"},
	{"{\"op\":\"hello\",\"server\":\"r0h1\",\"pid\":0,\"data_port\":7000}", "'pid' out of range"},
	{"{\"op\":\"hello\",\"server\":\"r0h1\",\"pid\":5,\"data_port\":70000}", "'data_port' out of range"},
	{"{\"op\":\"hello\",\"server\":\"\",\"pid\":5,\"data_port\":7000}", "'server' is empty"},
	{"{\"op\":\"hello\",\"server\":\"a-very-long-server-name\",\"pid\":5,\"data_port\":7000}", "'server' too long"},
	{"{\"op\":\"hello\",\"server\":\"r0 h1\",\"pid\":5,\"data_port\":7000}", "non-printable"},
	{"{\"op\":\"hello\",\"server\":\"r0\\u0000\",\"pid\":5,\"data_port\":7000}", "bad JSON"},
	{"{\"op\":\"hello\",\"server\":5,\"pid\":5,\"data_port\":7000}", "'server' must be a string"},
	{"{\"op\":\"task_done\",\"task\":1,\"ok\":1,\"t_start\":0,\"t_end\":1,\"bytes_in\":0}", "'ok' must be true or false"},
	{"{\"op\":\"task_done\",\"task\":1,\"ok\":true,\"t_start\":-1,\"t_end\":1,\"bytes_in\":0}", "'t_start' out of range"},
	{"{\"op\":\"task_done\",\"task\":1,\"ok\":true,\"t_start\":0,\"t_end\":\"1\",\"bytes_in\":0}", "'t_end' must be a number"},
	{"{\"op\":\"task_done\",\"task\":1,\"ok\":true,\"t_start\":0,\"t_end\":1e300,\"bytes_in\":0}", "'t_end' out of range"},
	{"{\"op\":\"task_done\",\"task\":1,\"ok\":true,\"t_start\":0,\"t_end\":1,\"bytes_in\":-5}", "'bytes_in' out of range"},
	{"{\"op\":\"task_done\",\"task\":1,\"ok\":true,\"t_start\":0,\"t_end\":1,\"bytes_in\":0,\"error\":\"x\"}", "'error' with ok = true"},
	{"{\"op\":\"flow_done\",\"xfer\":1,\"task\":1,\"bytes\":1,\"t_start\":0,\"t_end\":1,\"circuit\":false,\"src\":1}", "missing field 'dst'"},
	{"{\"op\":\"demand\",\"pending\":{}}", "'pending' must be an array"},
	{"{\"op\":\"demand\",\"pending\":[[1]]}", "pending[0] must be a pair"},
	{"{\"op\":\"demand\",\"pending\":[[1,2,3]]}", "pending[0] must be a pair"},
	{"{\"op\":\"demand\",\"pending\":[[1,-2]]}", "pending[0] out of range"},
	{"{\"op\":\"demand\",\"pending\":[[70000,2]]}", "pending[0] out of range"},
	{"{\"op\":\"demand\",\"pending\":[[1,2],[\"a\",2]]}", "pending[1] must be a pair"},
	{"{\"op\":\"demand\",\"pending\":[]}", "missing field 'queued'"},
	{"{\"op\":\"demand\",\"pending\":[],\"queued\":[[1,-2]]}", "queued[0] out of range"},
	{"{\"op\":\"map\",\"task\":1,\"job\":0,\"duration\":1,\"input_bytes\":5,\"input_src\":3,\"output_bytes\":0}", "missing field 'input_addr'"},
	{"{\"op\":\"map\",\"task\":1,\"job\":0,\"duration\":1,\"input_bytes\":5,\"input_src\":-2,\"output_bytes\":0}", "'input_src' out of range"},
	{"{\"op\":\"map\",\"task\":1,\"job\":0,\"duration\":1,\"input_bytes\":5,\"input_src\":-1,\"input_addr\":\"1.2.3.4:5\",\"output_bytes\":0}", "'input_addr' with a local input"},
	{"{\"op\":\"map\",\"task\":1,\"job\":0,\"duration\":-0.5,\"input_bytes\":5,\"input_src\":-1,\"output_bytes\":0}", "'duration' out of range"},
	{"{\"op\":\"map\",\"task\":1,\"job\":0,\"duration\":1e9,\"input_bytes\":5,\"input_src\":-1,\"output_bytes\":0}", "'duration' out of range"},
	{"{\"op\":\"map\",\"task\":1,\"job\":0,\"duration\":1,\"input_bytes\":5,\"input_src\":2,\"input_addr\":\"198.18.0.1\",\"output_bytes\":0}", "not an IPv4 address"},
	{"{\"op\":\"map\",\"task\":1,\"job\":0,\"duration\":1,\"input_bytes\":5,\"input_src\":2,\"input_addr\":\"198.18.0.1:0\",\"output_bytes\":0}", "not an IPv4 address"},
	{"{\"op\":\"map\",\"task\":1,\"job\":0,\"duration\":1,\"input_bytes\":5,\"input_src\":2,\"input_addr\":\"198.18.0.1:65536\",\"output_bytes\":0}", "not an IPv4 address"},
	{"{\"op\":\"map\",\"task\":1,\"job\":0,\"duration\":1,\"input_bytes\":5,\"input_src\":2,\"input_addr\":\"198.18.0.1:+80\",\"output_bytes\":0}", "not an IPv4 address"},
	{"{\"op\":\"map\",\"task\":1,\"job\":0,\"duration\":1,\"input_bytes\":5,\"input_src\":2,\"input_addr\":\"198.18.0.256:80\",\"output_bytes\":0}", "not an IPv4 address"},
	{"{\"op\":\"map\",\"task\":1,\"job\":0,\"duration\":1,\"input_bytes\":5,\"input_src\":2,\"input_addr\":\"host:80\",\"output_bytes\":0}", "not an IPv4 address"},
	{"{\"op\":\"map\",\"task\":1,\"job\":0,\"duration\":1,\"input_bytes\":5,\"input_src\":2,\"input_addr\":\"[::1]:80\",\"output_bytes\":0}", "not an IPv4 address"},
	{"{\"op\":\"reduce\",\"task\":1,\"job\":0,\"duration\":1,\"output_bytes\":0,\"copiers\":-1}", "'copiers' out of range"},
	{"{\"op\":\"reduce\",\"task\":1,\"job\":0,\"duration\":1,\"output_bytes\":0,\"copiers\":100000}", "'copiers' out of range"},
	{"{\"op\":\"reduce\",\"task\":1,\"job\":0,\"duration\":1,\"output_bytes\":0}", "missing field 'copiers'"},
	{"{\"op\":\"fetch\",\"task\":1,\"final\":true}", "missing field 'xfers'"},
	{"{\"op\":\"fetch\",\"task\":1,\"final\":true,\"xfers\":[5]}", "xfers[0] must be an object"},
	{"{\"op\":\"fetch\",\"task\":1,\"final\":true,\"xfers\":[{\"xfer\":1,\"src\":0,\"addr\":\"1.2.3.4:5\",\"bytes\":1,\"circuit\":false,\"src_rack\":0}]}", "xfers[0]: missing field 'dst_rack'"},
	{"{\"op\":\"fetch\",\"task\":1,\"final\":true,\"xfers\":[{\"xfer\":1,\"src\":0,\"addr\":\"1.2.3.4:5\",\"bytes\":1,\"circuit\":false,\"src_rack\":0,\"dst_rack\":0,\"tos\":8}]}", "xfers[0]: unknown field 'tos'"},
	{"{\"op\":\"fetch\",\"task\":1,\"final\":true,\"xfers\":[{\"xfer\":1,\"src\":0,\"addr\":\"1.2.3.4:5\",\"bytes\":-1,\"circuit\":false,\"src_rack\":0,\"dst_rack\":0}]}", "xfers[0]: field 'bytes' out of range"},
	{"{\"op\":\"fetch\",\"task\":1,\"final\":\"yes\",\"xfers\":[]}", "'final' must be true or false"},
	{"{\"op\":\"circuits\",\"lit\":[[0,1],[1]]}", "lit[1] must be a pair"},
	{"{\"op\":\"circuits\",\"lit\":[[0,-1]]}", "lit[0] out of range"},
	{"{\"op\":\"circuits\"}", "missing field 'lit'"},
	{"{\"op\":\"announce\",\"lit\":[]}", "unknown field 'lit'"},
	{"{\"op\":\"announce\",\"going\":null}", "'going' must be an array"},
	{"{\"op\":\"copy\",\"copy\":1,\"src\":2,\"addr\":\"1.2.3.4:5\",\"bytes\":9}", "missing field 'from_disk'"},
	{"{\"op\":\"copy\",\"copy\":-1,\"src\":2,\"addr\":\"1.2.3.4:5\",\"bytes\":9,\"from_disk\":true}", "'copy' out of range"},
	{"{\"op\":\"copy\",\"copy\":1,\"src\":-1,\"addr\":\"1.2.3.4:5\",\"bytes\":9,\"from_disk\":true}", "'src' out of range"},
	{"{\"op\":\"copy\",\"copy\":1,\"src\":2,\"addr\":\"1.2.3.4\",\"bytes\":9,\"from_disk\":true}", "not an IPv4 address"},
	{"{\"op\":\"copy\",\"copy\":1,\"src\":2,\"addr\":\"1.2.3.4:5\",\"bytes\":-9,\"from_disk\":true}", "'bytes' out of range"},
	{"{\"op\":\"copy\",\"copy\":1,\"src\":2,\"addr\":\"1.2.3.4:5\",\"bytes\":9,\"from_disk\":1}", "'from_disk' must be true or false"},
	{"{\"op\":\"copy\",\"copy\":1,\"src\":2,\"addr\":\"1.2.3.4:5\",\"bytes\":9,\"from_disk\":true,\"task\":4}", "unknown field 'task'"},
	{"{\"op\":\"copy_done\",\"copy\":1,\"ok\":true,\"bytes\":9,\"t_start\":0}", "missing field 't_end'"},
	{"{\"op\":\"copy_done\",\"copy\":1,\"ok\":true,\"bytes\":9,\"t_start\":0,\"t_end\":1,\"error\":\"x\"}", "'error' with ok = true"},
	{"{\"op\":\"copy_done\",\"copy\":1,\"ok\":false,\"bytes\":9,\"t_start\":0,\"t_end\":1,\"error\":5}", "'error' must be a string"},
};

/* Parameters cross into a fresh process (criterion may exec, not fork): pass
 * indexes, not pointers. */
#define NBAD ((int)(sizeof bad_lines / sizeof bad_lines[0]))
static int bad_index[NBAD];

ParameterizedTestParameters(proto, malformed_lines_are_refused)
{
	for (int i = 0; i < NBAD; i++)
		bad_index[i] = i;
	return cr_make_param_array(int, bad_index, NBAD);
}

ParameterizedTest(int *idx, proto, malformed_lines_are_refused)
{
	const struct bad *b = &bad_lines[*idx];
	struct msg m;
	char err[128];
	cr_assert_eq(proto_decode(b->line, strlen(b->line), &m, err), -1, "accepted: %s", b->line);
	cr_assert_not_null(strstr(err, b->reason), "%s: reason \"%s\", expected \"%s\"", b->line, err, b->reason);
	cr_assert_null(m.xfers);
	cr_assert_null(m.pairs);
	cr_assert_null(m.pending);
}

static char *big_array(const char *head, const char *elem, int n)
{
	size_t cap = strlen(head) + (strlen(elem) + 1) * (size_t)n + 8;
	char *s = malloc(cap), *p = s;
	p += sprintf(p, "%s", head);
	for (int i = 0; i < n; i++)
		p += sprintf(p, "%s%s", i ? "," : "", elem);
	strcpy(p, "]}");
	return s;
}

Test(proto, oversized_arrays_are_refused)
{
	struct msg m;
	char err[128];
	char *s = big_array("{\"op\":\"circuits\",\"lit\":[", "[0,1]", PROTO_MAX_PAIRS + 1);
	cr_assert_eq(proto_decode(s, strlen(s), &m, err), -1);
	cr_assert_not_null(strstr(err, "at most 1024"), "%s", err);
	free(s);
	s = big_array("{\"op\":\"circuits\",\"lit\":[", "[0,1]", PROTO_MAX_PAIRS);
	cr_assert_eq(proto_decode(s, strlen(s), &m, err), 0, "%s", err);
	cr_assert_eq(m.npairs, PROTO_MAX_PAIRS);
	proto_free(&m);
	free(s);
	s = big_array("{\"op\":\"fetch\",\"task\":1,\"final\":true,\"xfers\":[",
		      "{\"xfer\":1,\"src\":0,\"addr\":\"1.2.3.4:5\",\"bytes\":1,\"circuit\":false,\"src_rack\":0,\"dst_rack\":0}",
		      PROTO_MAX_XFERS + 1);
	/* Too long for one line anyway; the length check comes first. */
	cr_assert_eq(proto_decode(s, strlen(s), &m, err), -1);
	cr_assert_not_null(strstr(err, "too long"), "%s", err);
	free(s);
	s = big_array("{\"op\":\"fetch\",\"task\":1,\"final\":true,\"xfers\":[", "{}", PROTO_MAX_XFERS + 1);
	cr_assert_eq(proto_decode(s, strlen(s), &m, err), -1);
	cr_assert_not_null(strstr(err, "at most 4096"), "%s", err);
	cr_assert_null(m.xfers);
	free(s);
}

Test(proto, overlong_line_and_embedded_newline_are_refused)
{
	struct msg m;
	char err[128];
	size_t n = PROTO_MAX_LINE + 10;
	char *s = malloc(n);
	memset(s, ' ', n);
	memcpy(s, "{\"op\":\"shutdown\"}", 17);
	cr_assert_eq(proto_decode(s, n, &m, err), -1);
	cr_assert_not_null(strstr(err, "line too long"), "%s", err);
	/* The same within the limit is fine (whitespace is JSON). */
	cr_assert_eq(proto_decode(s, PROTO_MAX_LINE - 1, &m, err), 0, "%s", err);
	free(s);
	const char *two = "{\"op\":\"shutdown\"}\n{\"op\":\"shutdown\"}\n";
	cr_assert_eq(proto_decode(two, strlen(two), &m, err), -1);
	cr_assert_not_null(strstr(err, "more than one line"), "%s", err);
	cr_assert_eq(proto_decode(NULL, 0, &m, err), -1);
}

Test(proto, deep_nesting_does_not_crash)
{
	struct msg m;
	char err[128];
	size_t n = 100000;
	char *s = malloc(2 * n + 1);
	memset(s, '[', n);
	memset(s + n, ']', n);
	s[2 * n] = 0;
	cr_assert_eq(proto_decode(s, 2 * n, &m, err), -1);
	free(s);
}

/* A cheap fuzz: mutate valid lines at random; decode must never crash and
 * must free what it allocated (ASan checks both). */
Test(proto, random_mutations_never_crash)
{
	struct xfer x[3] = {{.id = 1, .src = 0, .addr = addr("198.18.0.1", 7000), .bytes = 1000, .dst_rack = 1},
			    {.id = 2, .src = 1, .addr = addr("198.18.0.2", 7000), .bytes = 5, .circuit = true}};
	struct rack_pair p[2] = {{0, 1}, {1, 0}};
	struct rack_bytes rb[1] = {{1, 42}};
	struct msg ms[] = {
		{.op = OP_FETCH, .task = 1, .final = true, .xfers = x, .nxfers = 2},
		{.op = OP_CIRCUITS, .pairs = p, .npairs = 2},
		{.op = OP_DEMAND, .pending = rb, .npending = 1},
		{.op = OP_MAP, .task = 1, .input_src = 2, .input_addr = addr("198.18.0.3", 7000), .duration = 1},
		{.op = OP_TASK_DONE, .task = 1, .t_start = 1, .t_end = 2, .error = "boom"},
	};
	unsigned seed = 12345;
	const char alphabet[] = "{}[]\":,0123456789-.eE truefalsnul\\";
	int accepted = 0;
	for (int round = 0; round < 20000; round++) {
		const struct msg *src = &ms[round % 5];
		int n = proto_encode(src, buf, sizeof buf);
		cr_assert_gt(n, 0);
		int muts = 1 + (int)(rand_r(&seed) % 4);
		for (int k = 0; k < muts; k++) {
			int pos = (int)(rand_r(&seed) % (unsigned)n);
			switch (rand_r(&seed) % 3) {
			case 0: buf[pos] = alphabet[rand_r(&seed) % (sizeof alphabet - 1)]; break;
			case 1: buf[pos] = (char)(rand_r(&seed) & 0xff); break;
			case 2: memmove(buf + pos, buf + pos + 1, (size_t)(n - pos)); n--; break;
			}
		}
		struct msg m;
		char err[128];
		if (proto_decode(buf, (size_t)n, &m, err) == 0) {
			accepted++;
			proto_free(&m);
		} else {
			cr_assert(err[0], "no reason given");
		}
	}
	cr_log_info("mutated lines accepted: %d of 20000", accepted);
}
