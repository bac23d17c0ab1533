/* hosts.c — see hosts.h. */
#include "netctl/hosts.h"
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char err[HOSTS_ERR_LEN], const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char err[HOSTS_ERR_LEN], const char *file, int line, const char *fmt, ...)
{
	char msg[HOSTS_ERR_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(err, HOSTS_ERR_LEN, "%s:%d: %s", file, line, msg);
	else
		snprintf(err, HOSTS_ERR_LEN, "%s: %s", file, msg);
	return -1;
}

static bool all_of(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

/* A decimal in [lo, hi], nothing else. */
static int whole(const char *s, long lo, long hi, int *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_line(struct hosts *hs, char *line, int lineno, char err[HOSTS_ERR_LEN])
{
	const char *f = hs->source;
	char *tok[8], *save;
	int n = 0;
	for (char *w = strtok_r(line, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
		if (n == 6)
			return fail(err, f, lineno, "too many fields (NAME MANAGEMENT UNDERLAY_IF UNDERLAY_ADDR RACKS [mtu=N])");
		tok[n++] = w;
	}
	if (!n)
		return 0;
	if (n < 5)
		return fail(err, f, lineno, "expected NAME MANAGEMENT UNDERLAY_IF UNDERLAY_ADDR RACKS [mtu=N], got %d field%s",
			    n, n == 1 ? "" : "s");
	if (hs->n == HOSTS_MAX)
		return fail(err, f, lineno, "more than %d hosts", HOSTS_MAX);
	struct fabric_host *h = &hs->h[hs->n];
	memset(h, 0, sizeof *h);
	h->line = lineno;

	if (strlen(tok[0]) > HOST_NAME_MAX_ || !all_of(tok[0], "abcdefghijklmnopqrstuvwxyz0123456789_"))
		return fail(err, f, lineno, "host name '%s': use 1-%d of a-z, 0-9, '_'", tok[0], HOST_NAME_MAX_);
	snprintf(h->name, sizeof h->name, "%s", tok[0]);
	if (hosts_find(hs, h->name) >= 0)
		return fail(err, f, lineno, "host '%s' is listed twice (first on line %d)", h->name,
			    hs->h[hosts_find(hs, h->name)].line);

	if (!strcmp(tok[1], "emulated")) {
		h->emulated = true;
	} else {
		const char *host = strchr(tok[1], '@') ? strchr(tok[1], '@') + 1 : tok[1];
		if (strlen(tok[1]) >= sizeof h->mgmt || *tok[1] == '-' || *tok[1] == '@' ||
		    !all_of(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:") ||
		    !all_of(tok[1], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:_@"))
			return fail(err, f, lineno, "management address '%s': expected emulated or [USER@]HOST", tok[1]);
		snprintf(h->mgmt, sizeof h->mgmt, "%s", tok[1]);
	}
	if (hs->n && hs->h[0].emulated != h->emulated)
		return fail(err, f, lineno, "host '%s' is %s but '%s' (line %d) is %s: a file is all emulated or all real",
			    h->name, h->emulated ? "emulated" : "real", hs->h[0].name, hs->h[0].line,
			    hs->h[0].emulated ? "emulated" : "real");

	if (strlen(tok[2]) >= sizeof h->ifname || !strcmp(tok[2], ".") || !strcmp(tok[2], "..") ||
	    strpbrk(tok[2], "/:"))
		return fail(err, f, lineno, "underlay interface '%s': 1-15 characters, no '/' or ':'", tok[2]);
	snprintf(h->ifname, sizeof h->ifname, "%s", tok[2]);

	char addr[32];
	char *slash = strchr(tok[3], '/');
	h->plen = 24;
	if (strlen(tok[3]) >= sizeof addr)
		return fail(err, f, lineno, "underlay address '%s': expected IPv4 A.B.C.D[/LEN]", tok[3]);
	snprintf(addr, sizeof addr, "%.*s", slash ? (int)(slash - tok[3]) : (int)strlen(tok[3]), tok[3]);
	if (inet_pton(AF_INET, addr, &h->addr) != 1 || (slash && whole(slash + 1, 8, 30, &h->plen)))
		return fail(err, f, lineno, "underlay address '%s': expected IPv4 A.B.C.D[/LEN], LEN 8..30", tok[3]);
	uint32_t a = ntohl(h->addr.s_addr);
	if (!a || a >> 24 == 127 || a >> 28 >= 14)
		return fail(err, f, lineno, "underlay address '%s': not a unicast host address", addr);
	for (int i = 0; i < hs->n; i++)
		if (hs->h[i].addr.s_addr == h->addr.s_addr)
			return fail(err, f, lineno, "underlay address %s is also host '%s's (line %d)", addr,
				    hs->h[i].name, hs->h[i].line);

	if (!strcmp(tok[4], "auto"))
		h->racks = HOSTS_AUTO;
	else if (whole(tok[4], 1, TOPO_MAX_RACKS, &h->racks))
		return fail(err, f, lineno, "racks '%s': expected a count 1..%d or auto", tok[4], TOPO_MAX_RACKS);

	h->mtu = 1500;
	if (n == 6 && (strncmp(tok[5], "mtu=", 4) || whole(tok[5] + 4, 1280, 65535, &h->mtu)))
		return fail(err, f, lineno, "'%s': expected mtu=N with N in 1280..65535", tok[5]);
	hs->n++;
	return 0;
}

int hosts_load_string(struct hosts *hs, const char *text, const char *name, char err[HOSTS_ERR_LEN])
{
	memset(hs, 0, sizeof *hs);
	snprintf(hs->source, sizeof hs->source, "%s", name);
	int lineno = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];
		lineno++;
		if (len >= sizeof line)
			return fail(err, name, lineno, "line longer than %zu characters", sizeof line - 1);
		memcpy(line, p, len);
		line[len] = 0;
		if (strchr(line, '#'))
			*strchr(line, '#') = 0;
		if (memchr(p, 0, len))
			return fail(err, name, lineno, "NUL byte");
		if (parse_line(hs, line, lineno, err))
			return -1;
		p += len + (nl ? 1 : 0);
	}
	if (!hs->n)
		return fail(err, name, 0, "no hosts (one line per host: NAME MANAGEMENT UNDERLAY_IF UNDERLAY_ADDR RACKS)");
	return 0;
}

int hosts_load(struct hosts *hs, const char *path, char err[HOSTS_ERR_LEN])
{
	FILE *f = fopen(path, "r");
	if (!f)
		return fail(err, path, 0, "%s", strerror(errno));
	char *text = NULL;
	size_t cap = 0;
	ssize_t len = getdelim(&text, &cap, 0, f);
	int bad = ferror(f);
	fclose(f);
	if (bad || (len >= 0 && (size_t)len != strlen(text))) {
		free(text);
		return fail(err, path, 0, bad ? "cannot read" : "NUL byte in the file");
	}
	int rc = hosts_load_string(hs, len > 0 ? text : "", path, err);
	free(text);
	return rc;
}

int hosts_format(const struct hosts *hs, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	for (int i = 0; i < hs->n; i++) {
		const struct fabric_host *h = &hs->h[i];
		char racks[16];
		if (h->racks == HOSTS_AUTO)
			snprintf(racks, sizeof racks, "auto");
		else
			snprintf(racks, sizeof racks, "%d", h->racks);
		int w = snprintf(buf + at, len - at, "%s %s %s %s/%d %s mtu=%d\n", h->name,
				 h->emulated ? "emulated" : h->mgmt, h->ifname, inet_ntoa(h->addr), h->plen, racks, h->mtu);
		if (w < 0 || (size_t)w >= len - at)
			return -1;
		at += (size_t)w;
	}
	return 0;
}

int hosts_find(const struct hosts *hs, const char *name)
{
	for (int i = 0; i < hs->n; i++)
		if (!strcmp(hs->h[i].name, name))
			return i;
	return -1;
}

double hosts_rack_weight(const struct topo *t, int rack)
{
	double w = (double)t->uplink.rate;
	for (int s = 0; s < topo_rack_size(t, rack); s++)
		w += (double)topo_server_class(t, rack, s)->rx.rate;
	if (t->ocs)
		w += (double)t->ocs_ports * (double)t->optical.rate;
	return w;
}

int hosts_partition(const struct hosts *hs, const struct topo *t, struct layout *l, char err[HOSTS_ERR_LEN])
{
	const char *f = hs->source;
	int fixed = 0, autos = 0, order[TOPO_MAX_RACKS];
	double weight[TOPO_MAX_RACKS];
	memset(l, 0, sizeof *l);
	l->nhosts = hs->n;
	for (int i = 0; i < hs->n; i++) {
		if (hs->h[i].racks == HOSTS_AUTO)
			autos++;
		else
			fixed += hs->h[i].racks;
	}
	if (fixed > t->racks || (!autos && fixed != t->racks)) {
		int line = 0;
		for (int i = 0; i < hs->n; i++)
			if (hs->h[i].racks != HOSTS_AUTO)
				line = hs->h[i].line;
		return fail(err, f, line, "the hosts' rack counts add up to %d but %s has %d racks%s", fixed,
			    t->source[0] ? t->source : "the topology", t->racks,
			    autos ? "" : " (write auto to let a host take the rest)");
	}
	if (autos > t->racks - fixed) {
		int line = 0;
		for (int i = hs->n - 1; i >= 0 && !line; i--)
			if (hs->h[i].racks == HOSTS_AUTO)
				line = hs->h[i].line;
		return fail(err, f, line, "%d auto host%s but only %d rack%s left for them: every host needs a rack",
			    autos, autos == 1 ? "" : "s", t->racks - fixed, t->racks - fixed == 1 ? "" : "s");
	}
	/* Heaviest racks first (stable: by index among equals). */
	for (int r = 0; r < t->racks; r++) {
		weight[r] = hosts_rack_weight(t, r);
		int k = r;
		while (k > 0 && weight[order[k - 1]] < weight[r]) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = r;
	}
	int fixed_left = fixed, auto_left = autos;
	for (int k = 0; k < t->racks; k++) {
		int r = order[k], left = t->racks - k, best = -1;
		for (int i = 0; i < hs->n; i++) {
			const struct fabric_host *h = &hs->h[i];
			bool ok;
			if (h->racks == HOSTS_AUTO)
				/* Only if the racks left after this one still cover
				 * the fixed hosts and every auto host without a rack. */
				ok = left - 1 >= fixed_left + auto_left - (l->racks[i] == 0);
			else
				ok = l->racks[i] < h->racks;
			if (!ok)
				continue;
			if (best < 0 || l->load[i] < l->load[best] ||
			    (l->load[i] == l->load[best] && l->racks[i] < l->racks[best]))
				best = i;
		}
		l->host_of[r] = best;
		if (hs->h[best].racks == HOSTS_AUTO) {
			if (!l->racks[best])
				auto_left--;
		} else {
			fixed_left--;
		}
		l->racks[best]++;
		l->load[best] += weight[r];
	}
	l->eps_host = 0;
	l->mtu = FABRIC_MTU_MAX;
	for (int i = 0; i < hs->n; i++) {
		if (l->racks[i] > l->racks[l->eps_host])
			l->eps_host = i;
		if (hs->h[i].mtu - VXLAN_OVERHEAD < l->mtu)
			l->mtu = hs->h[i].mtu - VXLAN_OVERHEAD;
	}
	return 0;
}
