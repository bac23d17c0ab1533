/* capspec.c — see capspec.h. */
#include "netctl/capspec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *capspec_default_iface(enum host_kind kind)
{
	return kind == HOST_SERVER ? "eth0" : "any";
}

/* Interface names also become file names (capture-HOST-IFACE.pcap): keep
 * them to characters that need no quoting anywhere. */
static int ifname_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > CAPSPEC_IFNAME_MAX || !strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-' || *s == '.'))
			return 0;
	return 1;
}

int capspec_parse(const char *spec, const struct topo *t, struct cap_target *out, char err[CAPSPEC_ERR_LEN])
{
	char host[32];
	const char *colon = strchr(spec, ':');
	size_t hlen = colon ? (size_t)(colon - spec) : strlen(spec);
	memset(out, 0, sizeof *out);
	if (!hlen) {
		snprintf(err, CAPSPEC_ERR_LEN, "capture target '%s': expected HOST[:IFACE], e.g. r0h0 or tor1:up", spec);
		return -1;
	}
	snprintf(host, sizeof host, "%.*s", (int)(hlen < sizeof host - 1 ? hlen : sizeof host - 1), spec);
	if (hlen >= sizeof out->host_name || plan_host_parse(host, t, &out->host)) {
		char servers[160];
		plan_server_span(t, servers, sizeof servers);
		snprintf(err, CAPSPEC_ERR_LEN, "no host '%.*s' in the fabric (hosts: %s, tor0..tor%d, eps%s)",
			 (int)hlen, spec, servers, t->racks - 1, t->ocs ? ", ocs" : "");
		return -1;
	}
	plan_host_name(&out->host, out->host_name, sizeof out->host_name);
	const char *ifname = colon ? colon + 1 : capspec_default_iface(out->host.kind);
	if (!ifname_ok(ifname)) {
		snprintf(err, CAPSPEC_ERR_LEN, "capture target '%s': '%s' is not an interface name (1-%d letters, "
			 "digits, '_', '-', '.')", spec, ifname, CAPSPEC_IFNAME_MAX);
		return -1;
	}
	snprintf(out->ifname, sizeof out->ifname, "%s", ifname);
	return 0;
}

/* name == PRE followed by an index below n. */
static int indexed(const char *name, const char *pre, int n)
{
	size_t len = strlen(pre);
	int i;
	if (strncmp(name, pre, len))
		return 0;
	name += len;
	return !plan_parse_index(&name, &i) && !*name && i < n;
}

static int planned(const struct topo *t, const struct cap_target *c)
{
	const char *s = c->ifname;
	int rack, port;
	if (!strcmp(s, "any") || !strcmp(s, "lo"))
		return 1;
	switch (c->host.kind) {
	case HOST_SERVER: return !strcmp(s, "eth0");
	case HOST_TOR: return !strcmp(s, "up") || indexed(s, "h", topo_rack_size(t, c->host.rack)) ||
			      (t->ocs && indexed(s, "o", t->ocs_ports));
	case HOST_EPS: return indexed(s, "r", t->racks);
	case HOST_OCS:
		return *s++ == 'r' && !plan_parse_index(&s, &rack) && rack < t->racks && *s++ == 'p' &&
		       !plan_parse_index(&s, &port) && port < t->ocs_ports && !*s;
	}
	return 0;
}

/* "h0..h3", or "h0" alone. */
static char *span(char *buf, size_t len, const char *pre, int n)
{
	if (n > 1)
		snprintf(buf, len, "%s0..%s%d", pre, pre, n - 1);
	else
		snprintf(buf, len, "%s0", pre);
	return buf;
}

int capspec_iface_planned(const struct topo *t, const struct cap_target *c, char err[CAPSPEC_ERR_LEN])
{
	char list[128], a[32], b[32];
	if (planned(t, c))
		return 0;
	switch (c->host.kind) {
	case HOST_SERVER: snprintf(list, sizeof list, "eth0"); break;
	case HOST_TOR:
		snprintf(list, sizeof list, "up, %s", span(a, sizeof a, "h", topo_rack_size(t, c->host.rack)));
		if (t->ocs)
			snprintf(list + strlen(list), sizeof list - strlen(list), ", %s", span(b, sizeof b, "o", t->ocs_ports));
		break;
	case HOST_EPS: snprintf(list, sizeof list, "%s", span(a, sizeof a, "r", t->racks)); break;
	case HOST_OCS: snprintf(list, sizeof list, "rXpP for racks 0..%d, ports 0..%d", t->racks - 1, t->ocs_ports - 1); break;
	}
	snprintf(err, CAPSPEC_ERR_LEN, "%s has no interface '%s' (its interfaces: %s, lo; or any)", c->host_name,
		 c->ifname, list);
	return -1;
}

int capspec_same(const struct cap_target *a, const struct cap_target *b)
{
	return !strcmp(a->host_name, b->host_name) && !strcmp(a->ifname, b->ifname);
}

void capspec_file_name(const struct cap_target *c, char *buf, size_t len)
{
	snprintf(buf, len, "capture-%s-%s.pcap", c->host_name, c->ifname);
}

int capspec_snaplen(const char *s, int *out)
{
	char *end;
	if (*s < '0' || *s > '9')   /* no sign, no space: strtol would take them */
		return -1;
	long v = strtol(s, &end, 10);
	if (*end || v < 1 || v > CAPSPEC_SNAPLEN_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

char *capspec_join(char *const *argv, int n)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(argv[i]) + 1;
	char *s = malloc(len), *p = s;
	if (!s)
		return NULL;
	*p = 0;
	for (int i = 0; i < n; i++)
		p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
	return s;
}
