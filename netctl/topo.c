/* topo.c — load, validate and save topology files (libconfig): the fabric
 * around the servers (EPS, OCS, TCP, addresses) and the checked getters;
 * the servers themselves, classes and racks, are topo_servers.c's.
 *
 * The schema is small and strict: unknown keys are errors, because a typo in
 * a rate silently falling back to a default would invalidate an experiment. */
#include "netctl/topo_parse.h"
#include "netctl/units.h"
#include <arpa/inet.h>
#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_QUEUE_S   TOPO_DEFAULT_QUEUE_S
#define MIN_GSO           3028    /* two full-size frames */
#define MAX_GSO           65536

#define ctx topo_ctx

int topo_fail(struct ctx *c, const config_setting_t *s, const char *fmt, ...)
{
	char msg[TOPO_ERR_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	int line = s ? config_setting_source_line(s) : 0;
	if (line > 0)
		snprintf(c->err, TOPO_ERR_LEN, "%s:%d: %s", c->file, line, msg);
	else
		snprintf(c->err, TOPO_ERR_LEN, "%s: %s", c->file, msg);
	return -1;
}

/* Reject keys a group does not know, naming the closest thing to a schema. */
int topo_check_keys(struct ctx *c, const config_setting_t *g, const char *const *allowed)
{
	int n = config_setting_length(g);
	for (int i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(g, i);
		const char *name = config_setting_name(s);
		const char *const *a;
		for (a = allowed; *a; a++)
			if (!strcmp(*a, name))
				break;
		if (!*a) {
			char list[256] = "";
			for (a = allowed; *a; a++)
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
					 a == allowed ? "" : ", ", *a);
			return topo_fail(c, s, "unknown key '%s' (expected one of: %s)", name, list);
		}
	}
	return 0;
}

const config_setting_t *topo_group(struct ctx *c, const config_setting_t *parent, const char *key,
				   bool required, int *rc)
{
	const config_setting_t *g = config_setting_get_member(parent, key);
	*rc = 0;
	if (!g) {
		if (required)
			*rc = topo_fail(c, parent, "missing group '%s'", key);
		return NULL;
	}
	if (!config_setting_is_group(g)) {
		*rc = topo_fail(c, g, "'%s' must be a group: %s = { ... };", key, key);
		return NULL;
	}
	return g;
}

int topo_get_int(struct ctx *c, const config_setting_t *g, const char *key, bool required, long lo,
		 long hi, int *out)
{
	const config_setting_t *s = g ? config_setting_get_member(g, key) : NULL;
	if (!s) {
		if (required)
			return topo_fail(c, g, "missing '%s'", key);
		return 0;
	}
	int type = config_setting_type(s);
	if (type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64)
		return topo_fail(c, s, "'%s' must be an integer", key);
	long long v = config_setting_get_int64(s);
	if (v < lo || v > hi)
		return topo_fail(c, s, "'%s' = %lld is out of range [%ld, %ld]", key, v, lo, hi);
	*out = (int)v;
	return 0;
}

int topo_get_str(struct ctx *c, const config_setting_t *g, const char *key, bool required, const char **out)
{
	const config_setting_t *s = g ? config_setting_get_member(g, key) : NULL;
	if (!s) {
		if (required)
			return topo_fail(c, g, "missing '%s'", key);
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return topo_fail(c, s, "'%s' must be a string in double quotes", key);
	*out = config_setting_get_string(s);
	return 0;
}

int topo_get_rate(struct ctx *c, const config_setting_t *g, const char *key, bool required, uint64_t *out)
{
	const char *v = NULL;
	if (topo_get_str(c, g, key, required, &v))
		return -1;
	if (!v)
		return 0;
	if (units_parse_rate(v, out))
		return topo_fail(c, config_setting_get_member(g, key),
			    "bad rate '%s' for '%s' (e.g. \"100Mbit\", \"1Gbit\", \"10Gbps\"; bits/s)", v, key);
	return 0;
}

/* A queue limit is a size ("100KB") or a time at line rate ("4ms"). */
int topo_get_queue(struct ctx *c, const config_setting_t *g, struct topo_link *l, double *qtime)
{
	const config_setting_t *s = g ? config_setting_get_member(g, "queue") : NULL;
	*qtime = DEFAULT_QUEUE_S;
	l->queue_bytes = 0;
	if (!s)
		return 0;
	if (config_setting_type(s) == CONFIG_TYPE_INT || config_setting_type(s) == CONFIG_TYPE_INT64) {
		long long v = config_setting_get_int64(s);
		if (v < 1)
			return topo_fail(c, s, "'queue' must be positive");
		l->queue_bytes = (uint64_t)v;
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return topo_fail(c, s, "'queue' must be a size (\"100KB\") or a time (\"4ms\")");
	const char *v = config_setting_get_string(s);
	double t;
	if (!units_parse_time(v, &t) && t > 0 && t <= 10) {
		*qtime = t;
		return 0;
	}
	if (!units_parse_size(v, &l->queue_bytes) && l->queue_bytes > 0)
		return 0;
	return topo_fail(c, s, "bad queue limit '%s' (a size like \"100KB\" or a time like \"4ms\", at most 10s)", v);
}

static int get_addr16(struct ctx *c, const config_setting_t *g, const char *key, const char *dflt,
		      struct in_addr *out)
{
	const char *v = dflt;
	if (topo_get_str(c, g, key, false, &v))
		return -1;
	char buf[32];
	snprintf(buf, sizeof buf, "%s", v);
	char *slash = strchr(buf, '/');
	if (!slash || strcmp(slash, "/16") || (*slash = 0, inet_pton(AF_INET, buf, out) != 1) ||
	    (ntohl(out->s_addr) & 0xffff))
		return topo_fail(c, g ? config_setting_get_member(g, key) : NULL,
			    "'%s' = \"%s\" must be an IPv4 /16 network, e.g. \"%s\"", key, v, dflt);
	return 0;
}

/* Resolve rate scaling, queue times, and the GSO cap of one link class. */
int topo_finish_link(struct ctx *c, const config_setting_t *where, const char *what, struct topo_link *l,
		     double scale, double qtime)
{
	double r = (double)l->rate * scale;
	if (r < 1e3)
		return topo_fail(c, where, "%s rate is below 1 kbit/s after rate_scale %g", what, scale);
	if (r > 1e13)
		return topo_fail(c, where, "%s rate is above 10 Tbit/s after rate_scale %g", what, scale);
	if (r > (double)TOPO_MAX_RATE && !c->t->unshapeable[0]) {
		/* Fine for the flow-level simulator; the emulator refuses it
		 * (fabric_up).  --rate-scale replaces the file's scale: suggest
		 * the one that brings this link's nominal rate to 1 Gbit/s. */
		char b[32], line[TOPO_ERR_LEN];
		units_fmt_rate((uint64_t)r, b, sizeof b);
		char *saved = c->err;
		c->err = line;
		topo_fail(c, where,
		     "%s rate %s exceeds what HTB can shape (34 Gbit/s) and what one machine can carry; "
		     "scale it down with rate_scale (e.g. --rate-scale %g), or use the simulator (--backend sim)",
		     what, b, 1e9 / (double)l->rate);
		c->err = saved;
		snprintf(c->t->unshapeable, sizeof c->t->unshapeable, "%s", line);
	}
	l->rate = (uint64_t)llround(r);
	double bytes_per_ms = (double)l->rate / 8 / 1000;
	l->gso_max = (uint32_t)fmin(MAX_GSO, fmax(MIN_GSO, bytes_per_ms));
	if (!l->queue_bytes)
		l->queue_bytes = (uint64_t)((double)l->rate / 8 * qtime);
	return 0;
}

/* Packets keep the size their sender's GSO gave them all the way through the
 * fabric, so the slowest link sets the largest packet anywhere: a 12.5 KB
 * packet could never enter a 10 KB queue.  Every queue then holds at least
 * two of the largest packets, or TCP cannot fill its link. */
static void finish_gso(struct topo *t)
{
	struct topo_link *links[2 * TOPO_MAX_CLASSES + 2];
	int n = 0;
	for (int k = 0; k < t->nclasses; k++) {
		links[n++] = &t->cls[k].rx;
		links[n++] = &t->cls[k].tx;
	}
	links[n++] = &t->uplink;
	if (t->ocs)
		links[n++] = &t->optical;
	uint32_t g = links[0]->gso_max;
	for (int i = 1; i < n; i++)
		if (links[i]->gso_max < g)
			g = links[i]->gso_max;
	for (int i = 0; i < n; i++) {
		links[i]->gso_max = g;
		if (links[i]->queue_bytes < 2ULL * g)
			links[i]->queue_bytes = 2ULL * g;
	}
}

int topo_get_number(struct ctx *c, const config_setting_t *g, const char *key, double hi, double *out)
{
	const config_setting_t *s = g ? config_setting_get_member(g, key) : NULL;
	if (!s)
		return 0;
	double v = config_setting_type(s) == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
		 : config_setting_is_number(s)			  ? (double)config_setting_get_int64(s)
								  : -1;
	if (!config_setting_is_number(s) || !(v > 0) || v > hi)
		return topo_fail(c, s, "'%s' must be a positive number, at most %g", key, hi);
	*out = v;
	return 0;
}

/* The servers: `racks` a number (with servers_per_rack and server) or a list
 * (with classes). */
static int parse_servers(struct ctx *c, const config_setting_t *root)
{
	const config_setting_t *racks = config_setting_get_member(root, "racks");
	if (!racks)
		return topo_fail(c, root, "missing 'racks'");
	int type = config_setting_type(racks);
	if (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64)
		return topo_parse_uniform(c, root);
	if (type == CONFIG_TYPE_LIST)
		return topo_parse_classes(c, root);
	return topo_fail(c, racks, "'racks' must be an integer (with servers_per_rack and server) or a list of "
			 "racks (with classes)");
}

static int parse(struct ctx *c, config_t *cfg, struct topo *t, double rate_scale)
{
	static const char *const top_keys[] = {"name", "racks", "servers_per_rack", "rate_scale", "server",
		"classes", "eps", "ocs", "tcp", "addressing", NULL};
	static const char *const eps_keys[] = {"uplink_rate", "queue", NULL};
	static const char *const ocs_keys[] = {"enabled", "ports_per_rack", "rate", "mode", "queue", NULL};
	static const char *const tcp_keys[] = {"congestion_control", NULL};
	static const char *const addr_keys[] = {"servers", "fabric", NULL};
	const config_setting_t *root = config_root_setting(cfg), *g;
	const char *s;
	double q_uplink, q_optical = DEFAULT_QUEUE_S;
	int rc;

	memset(t, 0, sizeof *t);
	snprintf(t->source, sizeof t->source, "%s", c->file);
	if (topo_check_keys(c, root, top_keys))
		return -1;
	s = "";
	if (topo_get_str(c, root, "name", false, &s))
		return -1;
	snprintf(t->name, sizeof t->name, "%s", s);

	t->rate_scale = 1.0;
	const config_setting_t *rs = config_setting_get_member(root, "rate_scale");
	if (rs) {
		if (!config_setting_is_number(rs) || config_setting_get_float(rs) + config_setting_get_int64(rs) <= 0)
			return topo_fail(c, rs, "'rate_scale' must be a positive number, e.g. 0.1");
		t->rate_scale = config_setting_type(rs) == CONFIG_TYPE_FLOAT ? config_setting_get_float(rs)
									     : (double)config_setting_get_int64(rs);
	}
	if (rate_scale > 0)
		t->rate_scale = rate_scale;
	if (parse_servers(c, root))
		return -1;

	if (!(g = topo_group(c, root, "eps", true, &rc)) || topo_check_keys(c, g, eps_keys) ||
	    topo_get_rate(c, g, "uplink_rate", true, &t->uplink.rate) || topo_get_queue(c, g, &t->uplink, &q_uplink))
		return -1;
	const config_setting_t *eps_g = g;

	g = topo_group(c, root, "ocs", false, &rc);
	if (rc)
		return -1;
	const config_setting_t *ocs_g = g;
	if (g) {
		if (topo_check_keys(c, g, ocs_keys))
			return -1;
		const config_setting_t *en = config_setting_get_member(g, "enabled");
		t->ocs = true;
		if (en) {
			if (config_setting_type(en) != CONFIG_TYPE_BOOL)
				return topo_fail(c, en, "'enabled' must be true or false");
			t->ocs = config_setting_get_bool(en);
		}
	}
	if (t->ocs) {
		t->ocs_ports = 1;
		if (topo_get_int(c, g, "ports_per_rack", false, 1, TOPO_MAX_PORTS, &t->ocs_ports) ||
		    topo_get_rate(c, g, "rate", true, &t->optical.rate) || topo_get_queue(c, g, &t->optical, &q_optical))
			return -1;
		s = "directed";
		if (topo_get_str(c, g, "mode", false, &s))
			return -1;
		if (!strcmp(s, "directed"))
			t->ocs_mode = OCS_DIRECTED;
		else if (!strcmp(s, "bidirectional"))
			t->ocs_mode = OCS_BIDIRECTIONAL;
		else
			return topo_fail(c, config_setting_get_member(g, "mode"),
				    "ocs mode '%s' is neither \"directed\" nor \"bidirectional\"", s);
		if (t->racks < 2)
			return topo_fail(c, g, "an OCS needs at least 2 racks");
	}

	g = topo_group(c, root, "tcp", false, &rc);
	if (rc || (g && topo_check_keys(c, g, tcp_keys)))
		return -1;
	s = "cubic";
	if (topo_get_str(c, g, "congestion_control", false, &s))
		return -1;
	if (!*s || strlen(s) >= sizeof t->tcp_cc || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(s))
		return topo_fail(c, config_setting_get_member(g, "congestion_control"),
			    "bad congestion control name '%s'", s);
	snprintf(t->tcp_cc, sizeof t->tcp_cc, "%s", s);

	g = topo_group(c, root, "addressing", false, &rc);
	if (rc || (g && topo_check_keys(c, g, addr_keys)) ||
	    get_addr16(c, g, "servers", "198.18.0.0/16", &t->server_net) ||
	    get_addr16(c, g, "fabric", "198.19.0.0/16", &t->fabric_net))
		return -1;
	if (t->server_net.s_addr == t->fabric_net.s_addr)
		return topo_fail(c, g, "the server and fabric networks must differ");

	if (topo_finish_link(c, eps_g, "EPS uplink", &t->uplink, t->rate_scale, q_uplink) ||
	    (t->ocs && topo_finish_link(c, ocs_g, "OCS port", &t->optical, t->rate_scale, q_optical)))
		return -1;
	finish_gso(t);
	return 0;
}

static int load(struct topo *t, config_t *cfg, int read_rc, const char *name, double rate_scale,
		char err[TOPO_ERR_LEN])
{
	struct ctx c = {.file = name, .err = err, .t = t};
	int rc;
	if (read_rc != CONFIG_TRUE) {
		if (config_error_type(cfg) == CONFIG_ERR_FILE_IO)
			snprintf(err, TOPO_ERR_LEN, "%s: cannot read: %s", name, config_error_text(cfg));
		else
			snprintf(err, TOPO_ERR_LEN, "%s:%d: %s", config_error_file(cfg) ? config_error_file(cfg) : name,
				 config_error_line(cfg), config_error_text(cfg));
		rc = -1;
	} else {
		rc = parse(&c, cfg, t, rate_scale);
	}
	config_destroy(cfg);
	return rc;
}

int topo_load(struct topo *t, const char *path, double rate_scale, char err[TOPO_ERR_LEN])
{
	config_t cfg;
	config_init(&cfg);
	return load(t, &cfg, config_read_file(&cfg, path), path, rate_scale, err);
}

int topo_load_string(struct topo *t, const char *text, const char *name, double rate_scale,
		     char err[TOPO_ERR_LEN])
{
	config_t cfg;
	config_init(&cfg);
	return load(t, &cfg, config_read_string(&cfg, text), name, rate_scale, err);
}

void topo_put_str(config_setting_t *g, const char *key, const char *v)
{
	config_setting_set_string(config_setting_add(g, key, CONFIG_TYPE_STRING), v);
}

void topo_put_rate(config_setting_t *g, const char *key, uint64_t rate)
{
	char b[32];
	snprintf(b, sizeof b, "%llubit", (unsigned long long)rate);
	topo_put_str(g, key, b);
}

void topo_put_link(config_setting_t *g, const char *rate_key, const struct topo_link *l)
{
	char b[32];
	topo_put_rate(g, rate_key, l->rate);
	snprintf(b, sizeof b, "%lluB", (unsigned long long)l->queue_bytes);
	topo_put_str(g, "queue", b);
}

int topo_save(const struct topo *t, const char *path)
{
	config_t cfg;
	config_setting_t *root, *g;
	char b[64];
	config_init(&cfg);
	root = config_root_setting(&cfg);
	topo_put_str(root, "name", t->name);
	topo_save_servers(t, root);
	topo_put_link(config_setting_add(root, "eps", CONFIG_TYPE_GROUP), "uplink_rate", &t->uplink);
	g = config_setting_add(root, "ocs", CONFIG_TYPE_GROUP);
	config_setting_set_bool(config_setting_add(g, "enabled", CONFIG_TYPE_BOOL), t->ocs);
	if (t->ocs) {
		config_setting_set_int(config_setting_add(g, "ports_per_rack", CONFIG_TYPE_INT), t->ocs_ports);
		topo_put_link(g, "rate", &t->optical);
		topo_put_str(g, "mode", t->ocs_mode == OCS_DIRECTED ? "directed" : "bidirectional");
	}
	topo_put_str(config_setting_add(root, "tcp", CONFIG_TYPE_GROUP), "congestion_control", t->tcp_cc);
	g = config_setting_add(root, "addressing", CONFIG_TYPE_GROUP);
	snprintf(b, sizeof b, "%s/16", inet_ntoa(t->server_net));
	topo_put_str(g, "servers", b);
	snprintf(b, sizeof b, "%s/16", inet_ntoa(t->fabric_net));
	topo_put_str(g, "fabric", b);
	int rc = config_write_file(&cfg, path) == CONFIG_TRUE ? 0 : -1;
	config_destroy(&cfg);
	return rc;
}

void topo_slow_down(struct topo *t, double k)
{
	struct topo_link *links[2 * TOPO_MAX_CLASSES + 2];
	int n = 0;
	for (int i = 0; i < t->nclasses; i++) {
		links[n++] = &t->cls[i].rx;
		links[n++] = &t->cls[i].tx;
		t->cls[i].disk_read_mbps /= k;   /* the disks too: the same bytes, k times slower */
		t->cls[i].disk_write_mbps /= k;
	}
	links[n++] = &t->uplink;
	links[n++] = &t->optical;
	for (int i = 0; i < n; i++)
		links[i]->rate = (uint64_t)llround((double)links[i]->rate / k);
	if (k > 1)
		t->rto_min_ms = (uint32_t)lround(TOPO_KERNEL_RTO_MIN_MS * k);
}
