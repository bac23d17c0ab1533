/* server.c — the web page's HTTP side (server.h). */
#include "emu/web/server.h"
#include <arpa/inet.h>
#include <errno.h>
#include <libgen.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct page_file {
	const char *url, *file, *type;
} page_files[] = {
	{"/", "index.html", "text/html; charset=utf-8"},
	{"/app.js", "app.js", "text/javascript; charset=utf-8"},
	{"/style.css", "style.css", "text/css; charset=utf-8"},
};
#define NFILES (sizeof page_files / sizeof *page_files)

struct web_server {
	struct MHD_Daemon *d;
	struct web_server_cfg cfg;
	char *body[NFILES];
	size_t len[NFILES];
	volatile int stopping;
};

int web_parse_listen(const char *spec, char addr[64], int *port, char err[256])
{
	const char *colon = strrchr(spec, ':'), *p = colon ? colon + 1 : spec;
	char *end;
	snprintf(addr, 64, "127.0.0.1");
	if (colon) {
		if (colon - spec >= 64 || colon == spec) {
			snprintf(err, 256, "'%s': expected [ADDR:]PORT, ADDR an IPv4 address", spec);
			return -1;
		}
		memcpy(addr, spec, colon - spec);
		addr[colon - spec] = 0;
	}
	struct in_addr a;
	long v = strtol(p, &end, 10);
	if (!*p || *end || v < 1 || v > 65535) {
		snprintf(err, 256, "'%s': the port must be a number in [1, 65535]", spec);
		return -1;
	}
	if (inet_pton(AF_INET, addr, &a) != 1) {
		snprintf(err, 256, "'%s': '%s' is not an IPv4 address", spec, addr);
		return -1;
	}
	*port = (int)v;
	return 0;
}

static bool has_page(const char *dir)
{
	char f[4200];
	snprintf(f, sizeof f, "%s/index.html", dir);
	return access(f, R_OK) == 0;
}

int web_find_root(char *out, size_t len)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return -1;
	exe[n] = 0;
	const char *bin = dirname(exe);
	static const char *const rel[] = {"../share/emu/web", "../../web"};   /* installed, build tree */
	for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
		snprintf(out, len, "%s/%s", bin, rel[i]);
		if (has_page(out))
			return 0;
	}
	return -1;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END)) {
		long n = ftell(f);
		if (n >= 0 && n < (1 << 24) && !fseek(f, 0, SEEK_SET) && (b = malloc(n + 1)) &&
		    fread(b, 1, n, f) != (size_t)n) {
			free(b);
			b = NULL;
		}
		*len = n;
	}
	fclose(f);
	return b;
}

static enum MHD_Result send_buf(struct MHD_Connection *c, unsigned status, const char *type, const void *b, size_t len,
				enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)b, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free((void *)b);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Content-Security-Policy", "default-src 'self'");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET");
	enum MHD_Result ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *text)
{
	return send_buf(c, status, "text/plain; charset=utf-8", text, strlen(text), MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result send_json(struct MHD_Connection *c, char *json)
{
	if (!json)
		return send_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no snapshot\n");
	return send_buf(c, MHD_HTTP_OK, "application/json", json, strlen(json), MHD_RESPMEM_MUST_FREE);
}

/* ---- Server-Sent Events ------------------------------------------------- */

struct sse {
	struct web_server *srv;
	struct web_snap *snap;    /* being sent, from off in "data: JSON\n\n" */
	size_t off;
	unsigned long seq;        /* the last one begun */
	double idle;              /* s without a new snapshot */
};

/* Copy the frame "data: " JSON "\n\n" from s->off on into buf. */
static size_t frame_copy(struct sse *s, char *buf, size_t max)
{
	static const char head[] = "data: ", tail[] = "\n\n";
	size_t hl = sizeof head - 1, jl = s->snap->len, n = 0;
	while (n < max && s->off < hl + jl + 2) {
		size_t o = s->off, k;
		const char *src;
		if (o < hl)
			src = head + o, k = hl - o;
		else if (o < hl + jl)
			src = s->snap->json + (o - hl), k = jl - (o - hl);
		else
			src = tail + (o - hl - jl), k = hl + jl + 2 - o;
		k = k < max - n ? k : max - n;
		memcpy(buf + n, src, k);
		n += k;
		s->off += k;
	}
	if (s->off == hl + jl + 2) {
		web_snap_unref(s->snap);
		s->snap = NULL;
	}
	return n;
}

/* On the connection's own thread: it may wait here, for the next snapshot. */
static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	struct sse *s = cls;
	struct web_pub *p = s->srv->cfg.pub;
	while (!s->snap) {
		if (s->srv->stopping)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (web_pub_seq(p) != s->seq) {
			s->snap = web_pub_get(p);
			s->seq = s->snap ? s->snap->seq : s->seq;
			s->off = 0;
			s->idle = 0;
			break;
		}
		if (s->idle >= 1) {   /* a comment each idle second: a vanished client shows as a failed write */
			s->idle = 0;
			static const char ping[] = ": ping\n\n";
			size_t n = sizeof ping - 1 < max ? sizeof ping - 1 : max;
			memcpy(buf, ping, n);
			return (ssize_t)n;
		}
		nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
		s->idle += 0.05;
	}
	return (ssize_t)frame_copy(s, buf, max);
}

static void sse_free(void *cls)
{
	struct sse *s = cls;
	web_snap_unref(s->snap);
	free(s);
}

static enum MHD_Result send_events(struct web_server *srv, struct MHD_Connection *c)
{
	struct sse *s = calloc(1, sizeof *s);
	if (!s)
		return MHD_NO;
	s->srv = srv;
	/* 16 KB blocks: what one connection holds besides its reference to a snapshot */
	struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, sse_read, s, sse_free);
	if (!r) {
		free(s);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "text/event-stream");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ok;
}

/* ---- requests ----------------------------------------------------------- */

static char *snapshot_at(struct web_server *srv, struct MHD_Connection *c)
{
	if (srv->cfg.replay) {
		const char *ts = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "t");
		char *end;
		double t = ts ? strtod(ts, &end) : 0;
		if (ts && (*end || end == ts || !(t >= 0 && t < 1e9)))
			return NULL;
		return srv->cfg.replay(srv->cfg.replay_arg, t);
	}
	struct web_snap *s = web_pub_get(srv->cfg.pub);
	char *j = s ? strdup(s->json) : strdup("{\"mode\":\"live\",\"waiting\":true}");
	web_snap_unref(s);
	return j;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	struct web_server *srv = cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET))
		return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET\n");
	for (size_t i = 0; i < NFILES; i++)
		if (!strcmp(url, page_files[i].url))
			return send_buf(c, MHD_HTTP_OK, page_files[i].type, srv->body[i], srv->len[i], MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/snapshot.json")) {
		char *j = snapshot_at(srv, c);
		return j ? send_json(c, j) : send_text(c, MHD_HTTP_BAD_REQUEST, "t: a run time in seconds\n");
	}
	if (!strcmp(url, "/events") && srv->cfg.pub)
		return send_events(srv, c);
	return send_text(c, MHD_HTTP_NOT_FOUND, "not found\n");
}

struct web_server *web_server_start(const struct web_server_cfg *cfg, char err[256])
{
	struct web_server *s = calloc(1, sizeof *s);
	char root[4096];
	if (!s) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	s->cfg = *cfg;
	if (cfg->root)
		snprintf(root, sizeof root, "%s", cfg->root);
	else if (web_find_root(root, sizeof root)) {
		snprintf(err, 256, "the page's files (index.html) are neither in PREFIX/share/emu/web nor in web/ "
				   "beside this binary");
		free(s);
		return NULL;
	}
	for (size_t i = 0; i < NFILES; i++) {
		char path[4200];
		snprintf(path, sizeof path, "%s/%s", root, page_files[i].file);
		if (!(s->body[i] = slurp(path, &s->len[i]))) {
			snprintf(err, 256, "%s: %s", path, errno ? strerror(errno) : "unreadable");
			web_server_stop(s);
			return NULL;
		}
	}
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)cfg->port)};
	if (inet_pton(AF_INET, cfg->addr ? cfg->addr : "127.0.0.1", &sa.sin_addr) != 1) {
		snprintf(err, 256, "'%s' is not an IPv4 address", cfg->addr);
		web_server_stop(s);
		return NULL;
	}
	s->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, 0, NULL,
				NULL, handle, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_LIMIT,
				(unsigned)WEB_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)WEB_IDLE_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)WEB_REQUEST_MAX * 2, MHD_OPTION_END);
	if (!s->d) {
		snprintf(err, 256, "cannot listen on %s:%d: %s", cfg->addr ? cfg->addr : "127.0.0.1", cfg->port,
			 errno ? strerror(errno) : "libmicrohttpd failed");
		web_server_stop(s);
		return NULL;
	}
	return s;
}

int web_server_port(const struct web_server *s)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	return i ? i->port : -1;
}

void web_server_stop(struct web_server *s)
{
	if (!s)
		return;
	s->stopping = 1;
	if (s->d)
		MHD_stop_daemon(s->d);
	for (size_t i = 0; i < NFILES; i++)
		free(s->body[i]);
	free(s);
}
