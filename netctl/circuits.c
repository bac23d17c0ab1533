/* circuits.c — see circuits.h. */
#include "netctl/circuits.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void circuits_clear(struct circuit_cfg *c, const struct topo *t)
{
	memset(c->out, 0xff, sizeof c->out);   /* every entry -1 (not from c: racks and ports come first) */
	c->racks = t->racks;
	c->ports = t->ocs ? t->ocs_ports : 0;
}

static int num(const char **p, long *v)
{
	char *end;
	if (**p < '0' || **p > '9')
		return -1;
	*v = strtol(*p, &end, 10);
	*p = end;
	return 0;
}

int circuits_validate(const struct circuit_cfg *c, const struct topo *t, char err[256])
{
	/* One circuit per ordered pair of racks: the ToR's circuit table holds
	 * one route per destination rack (a second port to the same rack could
	 * not be routed: "File exists" halfway through a reconfiguration). */
	for (int r = 0; r < c->racks; r++)
		for (int p = 0; p < c->ports; p++)
			for (int q = 0; q < p; q++)
				if (c->out[p][r] >= 0 && c->out[p][r] == c->out[q][r]) {
					snprintf(err, 256, "circuits %d>%d@%d and %d>%d@%d: a rack can reach another "
						 "over one optical port at a time", r, c->out[q][r], q, r, c->out[p][r], p);
					return -1;
				}
	for (int p = 0; p < c->ports; p++) {
		int16_t in[TOPO_MAX_RACKS];
		memset(in, 0xff, sizeof in);
		for (int r = 0; r < c->racks; r++) {
			int d = c->out[p][r];
			if (d < 0)
				continue;
			if (d == r || d >= c->racks) {
				snprintf(err, 256, "circuit %d>%d@%d: no such peer rack", r, d, p);
				return -1;
			}
			if (in[d] >= 0) {
				snprintf(err, 256, "rack %d port %d would receive from both rack %d and rack %d",
					 d, p, in[d], r);
				return -1;
			}
			in[d] = (int16_t)r;
			if (t->ocs_mode == OCS_BIDIRECTIONAL && c->out[p][d] != r) {
				snprintf(err, 256, "the OCS is bidirectional: circuit %d>%d@%d needs %d>%d too (write %d-%d)",
					 r, d, p, d, r, r, d);
				return -1;
			}
		}
	}
	return 0;
}

int circuits_parse(const char *spec, const struct topo *t, struct circuit_cfg *c, char err[256])
{
	const char *p = spec;
	circuits_clear(c, t);
	if (!t->ocs) {
		snprintf(err, 256, "topology '%s' has no OCS", t->name);
		return -1;
	}
	if (!*spec || !strcmp(spec, "none"))
		return 0;
	for (;;) {
		const char *start = p;
		long a, b, port = 0;
		char kind;
		if (num(&p, &a) || (*p != '>' && *p != '-'))
			goto bad;
		kind = *p++;
		if (num(&p, &b))
			goto bad;
		if (*p == '@') {
			p++;
			if (num(&p, &port))
				goto bad;
		}
		if (*p && *p != ',')
			goto bad;
		if (a >= t->racks || b >= t->racks || a == b) {
			snprintf(err, 256, "circuit '%.*s': racks must differ and be below %d",
				 (int)(p - start), start, t->racks);
			return -1;
		}
		if (port >= t->ocs_ports) {
			snprintf(err, 256, "circuit '%.*s': port %ld, but racks have %d optical port(s)",
				 (int)(p - start), start, port, t->ocs_ports);
			return -1;
		}
		if ((c->out[port][a] >= 0 && c->out[port][a] != b) ||
		    (kind == '-' && c->out[port][b] >= 0 && c->out[port][b] != a)) {
			snprintf(err, 256, "circuit '%.*s': rack already has a circuit on port %ld",
				 (int)(p - start), start, port);
			return -1;
		}
		c->out[port][a] = (int16_t)b;
		if (kind == '-')
			c->out[port][b] = (int16_t)a;
		if (!*p)
			break;
		p++;
		continue;
bad:
		snprintf(err, 256, "bad circuit at '%s' (expected e.g. 0>3, 1-2 or 0>3@1)", start);
		return -1;
	}
	return circuits_validate(c, t, err);
}

void circuits_format(const struct circuit_cfg *c, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int p = 0; p < c->ports; p++)
		for (int r = 0; r < c->racks; r++) {
			if (c->out[p][r] < 0)
				continue;
			int w = p ? snprintf(buf + n, len - n, "%s%d>%d@%d", n ? "," : "", r, c->out[p][r], p)
				  : snprintf(buf + n, len - n, "%s%d>%d", n ? "," : "", r, c->out[p][r]);
			if (w < 0 || (size_t)w >= len - n)
				return;
			n += (size_t)w;
		}
	if (!n)
		snprintf(buf, len, "none");
}

int circuits_changed(const struct circuit_cfg *a, const struct circuit_cfg *b)
{
	int n = 0;
	for (int p = 0; p < a->ports; p++)
		for (int r = 0; r < a->racks; r++)
			n += a->out[p][r] != b->out[p][r];
	return n;
}
