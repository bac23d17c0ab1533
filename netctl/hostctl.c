/* hostctl.c — see hostctl.h. */
#include "netctl/hostctl.h"
#include "netctl/hostfab.h"
#include "netctl/launch.h"
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PART_MAX (1 << 20)

/* ---- the controller's side ---------------------------------------------- */

static int read_line(struct host_chan *c, char *line, size_t len, char err[FABRIC_ERR_LEN])
{
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->have);
		if (nl) {
			size_t n = (size_t)(nl - c->buf);
			if (n >= len)
				return fabric_errf(err, "host %s: an answer longer than %zu bytes", c->host, len - 1);
			memcpy(line, c->buf, n);
			line[n] = 0;
			c->have -= n + 1;
			memmove(c->buf, nl + 1, c->have);
			return 0;
		}
		if (c->have == sizeof c->buf)
			return fabric_errf(err, "host %s: an answer longer than %zu bytes", c->host, sizeof c->buf);
		struct pollfd pf = {.fd = c->out, .events = POLLIN};
		int pr = poll(&pf, 1, HOSTCTL_WAIT_MS);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0)
			return fabric_errf(err, "host %s: no answer within %d s", c->host, HOSTCTL_WAIT_MS / 1000);
		ssize_t r = read(c->out, c->buf + c->have, sizeof c->buf - c->have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return fabric_errf(err, "host %s: its netctl host-ctl ended (its messages are above)", c->host);
		c->have += (size_t)r;
	}
}

/* One answer: "ok[ REST]" (REST into reply, 64 bytes) or "error MESSAGE". */
static int answer(struct host_chan *c, char *reply, char err[FABRIC_ERR_LEN])
{
	char line[512];
	if (read_line(c, line, sizeof line, err))
		return -1;
	if (!strncmp(line, "ok", 2) && (!line[2] || line[2] == ' ')) {
		if (reply)
			snprintf(reply, 64, "%s", line[2] ? line + 3 : "");
		return 0;
	}
	if (!strncmp(line, "error ", 6))
		return fabric_errf(err, "host %s: %s", c->host, line + 6);
	return fabric_errf(err, "host %s: a malformed answer '%.60s'", c->host, line);
}

/* Said once: from now on its steps are left out. */
static int lose(struct host_chan *c, const char *why)
{
	if (!c->lost)
		fprintf(stderr, "netctl: host %s is lost (%s): its racks are left out of reconfigurations from now on, "
				"their counters stay at their last values\n", c->host, why);
	c->lost = true;
	return 1;
}

static int send_all(struct host_chan *c, const char *text, char err[FABRIC_ERR_LEN])
{
	for (size_t off = 0, len = strlen(text); off < len;) {
		ssize_t w = write(c->in, text + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return fabric_errf(err, "host %s: its netctl host-ctl ended (its messages are above)", c->host);
		off += (size_t)w;
	}
	return 0;
}

static void chan_end(struct host_chan *c)
{
	if (!c)
		return;
	free(c->last);
	close(c->in);
	close(c->out);
	/* It ends at the end of its input; a stuck one is not waited for long. */
	for (int i = 0; i < 200; i++) {
		if (waitpid(c->pid, NULL, WNOHANG) != 0)
			goto done;
		usleep(10000);
	}
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
done:
	free(c);
}

void fabric_detach_hosts(struct fabric *f)
{
	for (int k = 0; k < HOSTS_MAX; k++) {
		chan_end(f->chan[k]);
		f->chan[k] = NULL;
	}
}

int fabric_attach_hosts(struct fabric *f, const char *netctl, char err[FABRIC_ERR_LEN])
{
	if (!f->hosts || f->hosts->n < 2)
		return 0;
	char spec[8192], *input = NULL, *part = hostfab_encode(&f->topo, f->hosts), lerr[LAUNCH_ERR_LEN];
	circuits_format(&f->circuits, spec, sizeof spec);
	/* The crossbar's state, if there is a crossbar. */
	if (!part || asprintf(&input, "part %zu\n%s%s%s%s", strlen(part), part, f->topo.ocs ? "circuits " : "",
			      f->topo.ocs ? spec : "", f->topo.ocs ? "\n" : "") < 0) {
		free(part);
		return fabric_errf(err, "cannot write the topology for the hosts: %s", strerror(errno));
	}
	free(part);
	int rc = 0;
	for (int k = 1; k < f->hosts->n && !rc; k++) {
		const struct fabric_host *h = &f->hosts->h[k];
		const char *args[] = {"--prefix", f->prefix, "host-ctl", "--host", h->name, NULL};
		struct host_chan *c = calloc(1, sizeof *c);
		if (!c) {
			rc = fabric_errf(err, "out of memory");
			break;
		}
		snprintf(c->host, sizeof c->host, "%s", h->name);
		c->pid = launch_start(netctl, "netctl", f->prefix, h, args, input, &c->in, &c->out, lerr);
		if (c->pid < 0) {
			free(c);
			rc = fabric_errf(err, "%s", lerr);
			break;
		}
		f->chan[k] = c;
		rc = answer(c, NULL, err) || (f->topo.ocs && answer(c, NULL, err)) ? -1 : 0;
	}
	free(input);
	if (rc)
		fabric_detach_hosts(f);
	return rc;
}

/* 0, 1 (lost), or -1 (its answer was an error). */
static int request(struct fabric *f, int host, const char *op, const struct circuit_cfg *cfg, char *reply,
		   char err[FABRIC_ERR_LEN])
{
	struct host_chan *c = f->chan[host];
	char line[8300];
	if (reply)
		snprintf(reply, 64, "0");
	if (c->lost)
		return 1;
	if (cfg) {
		char spec[8192];
		circuits_format(cfg, spec, sizeof spec);
		snprintf(line, sizeof line, "%s %s\n", op, spec);
	} else
		snprintf(line, sizeof line, "%s\n", op);
	/* A lost host is no error: err stays untouched (callers take any text
	 * in it for a failure). */
	char got[512], why[FABRIC_ERR_LEN];
	if (send_all(c, line, why))
		return lose(c, "its host-ctl ended");
	if (read_line(c, got, sizeof got, why))
		return lose(c, strchr(why, ':') ? strchr(why, ':') + 2 : why);
	if (!strncmp(got, "ok", 2) && (!got[2] || got[2] == ' ')) {
		if (reply)
			snprintf(reply, 64, "%s", got[2] ? got + 3 : "");
		return 0;
	}
	if (!strncmp(got, "error ", 6))
		return fabric_errf(err, "host %s: %s", c->host, got + 6);
	return fabric_errf(err, "host %s: a malformed answer '%.60s'", c->host, got);
}

int hostctl_call(struct fabric *f, int host, const char *op, const struct circuit_cfg *cfg, char *reply,
		 char err[FABRIC_ERR_LEN])
{
	return request(f, host, op, cfg, reply, err);
}

int hostctl_stats(struct fabric *f, int host, struct link_stats *out, int *n, char err[FABRIC_ERR_LEN])
{
	const struct topo *t = &f->topo;
	struct host_chan *c = f->chan[host];
	char reply[64], line[512], *end;
	int max = t->nservers + t->racks * (1 + (t->ocs ? t->ocs_ports : 0));
	int rc = request(f, host, "stats", NULL, reply, err);
	if (rc > 0) {
		if (!c->last)
			return fabric_errf(err, "host %s is lost and never gave its counters", c->host);
		memcpy(out, c->last, (size_t)c->nlast * sizeof *out);
		*n = c->nlast;
		return 0;
	}
	if (rc < 0)
		return -1;
	long count = strtol(reply, &end, 10);
	if (*end || !*reply || count < 0 || count > max)
		return fabric_errf(err, "host %s: a malformed count of counters '%s'", c->host, reply);
	for (int i = 0; i < count; i++) {
		struct link_stats *l = &out[i];
		int cls, used = 0;
		if (read_line(c, line, sizeof line, err)) {
			lose(c, "its counters stopped half-way");
			return -1;   /* this once; its last counters from the next call */
		}
		if (sscanf(line, "%d %d %d %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu32
				 " %" SCNu64 "%n", &l->rack, &cls, &l->server, &l->port, &l->tx_bytes, &l->rx_bytes,
			   &l->tx_packets, &l->rx_packets, &l->drops, &l->backlog, &l->marked_tx_bytes, &used) != 11 ||
		    line[used] || cls < LINK_SERVER || cls > LINK_OPTICAL || l->rack < 0 || l->rack >= t->racks)
			return fabric_errf(err, "host %s: malformed counters '%.60s'", c->host, line);
		l->cls = (enum link_class)cls;
	}
	*n = (int)count;
	struct link_stats *keep = realloc(c->last, (size_t)(count ? count : 1) * sizeof *keep);
	if (keep) {
		memcpy(keep, out, (size_t)count * sizeof *keep);
		c->last = keep;
		c->nlast = (int)count;
	}
	return 0;
}

/* ---- the host's side ----------------------------------------------------- */

static void say(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(FILE *out, const char *fmt, ...)
{
	char line[FABRIC_ERR_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	for (char *p = line; *p; p++)
		if (*p == '\n')
			*p = ' ';   /* one answer, one line */
	fprintf(out, "%s\n", line);
	fflush(out);
}

static void serve_stats(struct fabric *f, FILE *out)
{
	struct link_stats *s;
	int n;
	if (fabric_stats_on(f, f->part, &s, &n)) {
		say(out, "error cannot read the counters of its racks");
		return;
	}
	fprintf(out, "ok %d\n", n);
	for (int i = 0; i < n; i++)
		fprintf(out, "%d %d %d %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu64 "\n",
			s[i].rack, (int)s[i].cls, s[i].server, s[i].port, s[i].tx_bytes, s[i].rx_bytes, s[i].tx_packets,
			s[i].rx_packets, s[i].drops, s[i].backlog, s[i].marked_tx_bytes);
	fflush(out);
	free(s);
}

static void serve_one(struct fabric *f, char *op, char *arg, FILE *out)
{
	struct circuit_cfg cfg;
	char cerr[256], err[FABRIC_ERR_LEN];
	if (!strcmp(op, "stats") && !arg) {
		serve_stats(f, out);
		return;
	}
	if (!arg || (strcmp(op, "circuits") && strcmp(op, "unroute") && strcmp(op, "route") && strcmp(op, "switch") &&
		     strcmp(op, "queued"))) {
		say(out, "error unknown request '%.40s'", op);
		return;
	}
	if (circuits_parse(arg, &f->topo, &cfg, cerr)) {
		say(out, "error %s: %s", op, cerr);
		return;
	}
	int rc = 0;
	if (!strcmp(op, "circuits")) {
		f->circuits = cfg;
	} else if (!strcmp(op, "queued")) {
		long n = fabric_circuits_queued_on(f, f->part, &cfg);
		if (n < 0)
			say(out, "error queued: cannot read its queues");
		else
			say(out, "ok %ld", n);
		return;
	} else if (!strcmp(op, "switch")) {
		rc = fabric_crossbar_switch_on(f, f->part, &cfg, err);
		/* Every slice goes to cfg in this step: the peers' ports too. */
		if (!rc)
			f->circuits = cfg;
	} else {
		rc = !strcmp(op, "unroute") ? fabric_circuits_unroute_on(f, f->part, &cfg, err)
					     : fabric_circuits_route_on(f, f->part, &cfg, err);
	}
	if (rc)
		say(out, "error %s: %s", op, err);
	else
		say(out, "ok");
}

int hostctl_serve(const char *prefix, const char *host, FILE *in, FILE *out)
{
	static struct topo t;
	struct hosts hs;
	char *line = NULL, *end, err[FABRIC_ERR_LEN];
	size_t cap = 0, len = 0;
	ssize_t n = getline(&line, &cap, in);
	if (n > 5 && !strncmp(line, "part ", 5))
		len = strtoul(line + 5, &end, 10);
	if (n <= 5 || strncmp(line, "part ", 5) || *end != '\n' || !len || len > PART_MAX) {
		say(out, "error expected 'part LEN' first (the controller sends it)");
		free(line);
		return 2;
	}
	char *text = malloc(len + 1);
	if (!text || fread(text, 1, len, in) != len) {
		say(out, "error the part ends early");
		free(text);
		free(line);
		return 2;
	}
	text[len] = 0;
	int rc = hostfab_decode(text, &t, &hs, err);
	free(text);
	int self = rc ? -1 : hosts_find(&hs, host);
	if (rc || self < 0) {
		say(out, "error %s", rc ? err : "no such host in the hosts file");
		free(line);
		return 2;
	}
	struct fabric *f = fabric_open_part(prefix, &t, &hs, self, err);
	if (!f) {
		say(out, "error %s", err);
		free(line);
		return 1;
	}
	say(out, "ok");
	while ((n = getline(&line, &cap, in)) > 0) {
		if (line[n - 1] != '\n') {
			say(out, "error a request without its end of line");
			break;
		}
		line[n - 1] = 0;
		char *arg = strchr(line, ' ');
		if (arg)
			*arg++ = 0;
		serve_one(f, line, arg, out);
	}
	free(line);
	fabric_close(f);
	return 0;
}
