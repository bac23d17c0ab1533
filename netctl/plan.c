/* plan.c — see plan.h. */
#include "netctl/plan.h"
#include "netctl/hosts.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

int plan_prefix_valid(const char *p)
{
	size_t n = strlen(p);
	return n >= 1 && n <= PREFIX_MAX &&
	       strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n ? 0 : -1;
}

void plan_host_name(const struct host_id *h, char *buf, size_t len)
{
	switch (h->kind) {
	case HOST_SERVER: snprintf(buf, len, "r%dh%d", h->rack, h->server); break;
	case HOST_TOR:    snprintf(buf, len, "tor%d", h->rack); break;
	case HOST_EPS:    snprintf(buf, len, "eps"); break;
	case HOST_OCS:    /* a fabric over several hosts has one crossbar slice per host */
		if (h->rack > 0)
			snprintf(buf, len, "ocs%d", h->rack);
		else
			snprintf(buf, len, "ocs");
		break;
	}
}

int plan_parse_index(const char **s, int *out)
{
	const char *p = *s;
	long v = 0;
	if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return -1;
	while (*p >= '0' && *p <= '9' && v < 100000)
		v = v * 10 + (*p++ - '0');
	*out = (int)v;
	*s = p;
	return 0;
}

int plan_host_parse(const char *name, const struct topo *t, struct host_id *h)
{
	const char *p = name;
	memset(h, 0, sizeof *h);
	if (!strcmp(name, "eps")) {
		h->kind = HOST_EPS;
		return 0;
	}
	if (!strcmp(name, "ocs")) {
		h->kind = HOST_OCS;
		return t && !t->ocs ? -1 : 0;
	}
	if (!strncmp(p, "ocs", 3)) {
		/* ocsK, K >= 1: host K's slice of a fabric over several hosts (the
		 * hosts file bounds K: the caller checks it) */
		p += 3;
		h->kind = HOST_OCS;
		return plan_parse_index(&p, &h->rack) || *p || h->rack < 1 || h->rack >= HOSTS_MAX || (t && !t->ocs) ? -1 : 0;
	}
	if (!strncmp(p, "tor", 3)) {
		p += 3;
		h->kind = HOST_TOR;
		if (plan_parse_index(&p, &h->rack) || *p)
			return -1;
	} else if (*p == 'r') {
		p++;
		h->kind = HOST_SERVER;
		if (plan_parse_index(&p, &h->rack) || *p++ != 'h' || plan_parse_index(&p, &h->server) || *p)
			return -1;
	} else {
		return -1;
	}
	if (t && (h->rack >= t->racks || (h->kind == HOST_SERVER && h->server >= topo_rack_size(t, h->rack))))
		return -1;
	return 0;
}

void plan_ns_name(const char *prefix, const struct host_id *h, char *buf, size_t len)
{
	char host[24];
	plan_host_name(h, host, sizeof host);
	snprintf(buf, len, "%s-%s", prefix, host);
}

void plan_server_span(const struct topo *t, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	for (int r = 0; r < t->racks && at < len;) {
		int n = topo_rack_size(t, r), last = r;
		while (last + 1 < t->racks && topo_rack_size(t, last + 1) == n)
			last++;
		at += (size_t)snprintf(buf + at, len - at, "%sr%dh0..r%dh%d", r ? ", " : "", r, last, n - 1);
		r = last + 1;
	}
}

int plan_ns_count(const struct topo *t)
{
	return topo_servers(t) + t->racks + 1 + (t->ocs ? 1 : 0);
}

void plan_ns_host(const struct topo *t, int idx, struct host_id *h)
{
	int servers = topo_servers(t);
	memset(h, 0, sizeof *h);
	if (idx < servers) {
		h->kind = HOST_SERVER;
		h->rack = topo_rack_of(t, idx);
		h->server = idx - t->rack[h->rack].first;
	} else if (idx < servers + t->racks) {
		h->kind = HOST_TOR;
		h->rack = idx - servers;
	} else {
		h->kind = idx == servers + t->racks ? HOST_EPS : HOST_OCS;
	}
}

int plan_ns_index(const struct topo *t, const struct host_id *h)
{
	switch (h->kind) {
	case HOST_SERVER: return t->rack[h->rack].first + h->server;
	case HOST_TOR:    return topo_servers(t) + h->rack;
	case HOST_EPS:    return topo_servers(t) + t->racks;
	case HOST_OCS:    return topo_servers(t) + t->racks + 1;
	}
	return -1;
}

static struct in_addr at(struct in_addr net, int third, int fourth)
{
	struct in_addr a = {htonl(ntohl(net.s_addr) | (uint32_t)third << 8 | (uint32_t)fourth)};
	return a;
}

struct in_addr plan_server_ip(const struct topo *t, int rack, int server) { return at(t->server_net, rack, server + 1); }
struct in_addr plan_gateway_ip(const struct topo *t, int rack) { return at(t->server_net, rack, 254); }
struct in_addr plan_rack_net(const struct topo *t, int rack) { return at(t->server_net, rack, 0); }
struct in_addr plan_core_ip(const struct topo *t) { return at(t->fabric_net, 0, 1); }
struct in_addr plan_uplink_ip(const struct topo *t, int rack) { return at(t->fabric_net, 1, rack + 1); }
struct in_addr plan_optical_ip(const struct topo *t, int rack, int port) { return at(t->fabric_net, 16 + port, rack + 1); }

void plan_mac(enum mac_role role, int rack, int server, int port, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = (uint8_t)role;
	mac[2] = (uint8_t)rack;
	mac[3] = (uint8_t)server;
	mac[4] = (uint8_t)port;
	mac[5] = 0;
}
