/* topo_servers.c — a topology's servers: classes and racks, read from either
 * form of the file, written back, and the questions the rest asks of them
 * (a server's class and rack, the racks' oversubscription).
 *
 *   racks = 10; servers_per_rack = 10; server = { ... };       uniform form
 *
 *   classes = { small = { ... }; big = { ... }; };             classes form
 *   racks = ( { repeat = 4; servers = { small = 10; }; },
 *             { servers = { big = 2; }; } );
 *
 * The uniform form is one class called "server"; it keeps the meaning it
 * always had: `containers` slots (default 1), `cores` and `memory` recorded
 * beside them.  A class of the classes form has slots or resources, not
 * both, so that nobody wonders which of the two a scheduler counts. */
#include "netctl/topo_parse.h"
#include "netctl/units.h"
#include <math.h>
#include <string.h>

#define MAX_CONTAINERS 1024
#define MAX_CORES      1024.0
#define MAX_MEM_GB     1e6     /* a petabyte of memory: beyond it, a typo */
#define MAX_DISK_MBPS  1e7
#define MAX_SPEED      1000.0
#define LEGACY_MEMORY  4000000000ULL   /* the uniform form's recorded default */

static const char *const model_names[] = TOPO_MODEL_NAMES;

static int parse_model(struct topo_ctx *c, const config_setting_t *g, struct topo_class *k)
{
	const char *s = NULL;
	k->model = TOPO_MODEL_SPEED;
	if (topo_get_str(c, g, "model", false, &s))
		return -1;
	if (!s)
		return 0;
	for (int i = 0; model_names[i]; i++)
		if (!strcmp(s, model_names[i])) {
			k->model = (enum topo_model)i;
			return 0;
		}
	return topo_fail(c, config_setting_get_member(g, "model"), "bad model '%s' (speed or crosspoint)", s);
}

/* A class's own keys (not its link's), checked for the form it is in. */
static int parse_holding(struct topo_ctx *c, const config_setting_t *g, struct topo_class *k, bool uniform)
{
	const char *s = NULL;
	const config_setting_t *mem = config_setting_get_member(g, "memory");
	k->speed = 1;
	if (topo_get_number(c, g, "speed", MAX_SPEED, &k->speed) || parse_model(c, g, k) ||
	    topo_get_number(c, g, "disk_read_mbps", MAX_DISK_MBPS, &k->disk_read_mbps) ||
	    topo_get_number(c, g, "disk_write_mbps", MAX_DISK_MBPS, &k->disk_write_mbps))
		return -1;
	/* Rates, scaled like the links' (rate_scale slows the whole run down). */
	k->disk_read_mbps *= c->t->rate_scale;
	k->disk_write_mbps *= c->t->rate_scale;
	if (mem) {
		if (topo_get_str(c, g, "memory", false, &s))
			return -1;
		if (units_parse_size(s, &k->memory) || !k->memory || k->memory > (uint64_t)(MAX_MEM_GB * 1e9))
			return topo_fail(c, mem, "bad memory size '%s' (e.g. \"8GB\")", s);
	}
	if (uniform) {
		/* Slots always; cores and memory only recorded (as they always were). */
		int cores = 1;
		k->containers = 1;
		if (topo_get_int(c, g, "containers", false, 1, MAX_CONTAINERS, &k->containers) ||
		    topo_get_int(c, g, "cores", false, 1, (long)MAX_CORES, &cores))
			return -1;
		k->cores = cores;
		if (!mem)
			k->memory = LEGACY_MEMORY;
		return 0;
	}
	double mem_gb = 0;
	if (topo_get_int(c, g, "containers", false, 1, MAX_CONTAINERS, &k->containers) ||
	    topo_get_number(c, g, "cores", MAX_CORES, &k->cores) ||
	    topo_get_number(c, g, "mem_gb", MAX_MEM_GB, &mem_gb) ||
	    topo_get_number(c, g, "disk_mbps", MAX_DISK_MBPS, &k->disk_mbps))
		return -1;
	if (mem_gb > 0 && mem)
		return topo_fail(c, mem, "'memory' and 'mem_gb' say the same: give one");
	if (mem_gb > 0)
		k->memory = (uint64_t)llround(mem_gb * 1e9);
	static const char *const resources[] = {"cores", "mem_gb", "memory", "disk_mbps"};
	for (size_t i = 0; i < sizeof resources / sizeof *resources; i++) {
		const config_setting_t *r = config_setting_get_member(g, resources[i]);
		if (r && k->containers)
			return topo_fail(c, r, "a class has 'containers' (task slots) or resources ('cores', "
					 "'mem_gb', 'disk_mbps'), not both");
		if (r && !k->cores)
			return topo_fail(c, r, "resources need 'cores' (every task asks for some)");
	}
	if (!k->containers && !k->cores)
		k->containers = 1;   /* the uniform form's default: one slot */
	return 0;
}

/* One class from its group: link, queue, holding, speed. */
static int parse_class(struct topo_ctx *c, const config_setting_t *g, struct topo_class *k, bool uniform)
{
	static const char *const uniform_keys[] = {"rate", "tx_rate", "queue", "containers", "cores", "memory",
						   "speed", "model", "disk_read_mbps", "disk_write_mbps", NULL};
	static const char *const class_keys[] = {"rate", "tx_rate", "queue", "containers", "cores", "mem_gb",
						 "memory", "disk_mbps", "speed", "model", "disk_read_mbps",
						 "disk_write_mbps", NULL};
	double qtime;
	if (topo_check_keys(c, g, uniform ? uniform_keys : class_keys) ||
	    topo_get_rate(c, g, "rate", true, &k->rx.rate) || topo_get_queue(c, g, &k->rx, &qtime))
		return -1;
	/* A server's egress may be faster than its ingress: on GENI each task
	 * was capped, while a rack's map output was served by its VM. */
	if (topo_get_rate(c, g, "tx_rate", false, &k->tx.rate))
		return -1;
	if (!k->tx.rate)
		k->tx.rate = k->rx.rate;
	if (parse_holding(c, g, k, uniform))
		return -1;
	char what[TOPO_CLASS_NAME + 16], what_tx[TOPO_CLASS_NAME + 24];
	snprintf(what, sizeof what, uniform ? "server" : "class '%s'", k->name);
	snprintf(what_tx, sizeof what_tx, "%s tx", what);
	if (topo_finish_link(c, g, what, &k->rx, c->t->rate_scale, qtime))
		return -1;
	/* The same bytes both ways (one `queue` key; what topo_save writes). */
	k->tx.queue_bytes = k->rx.queue_bytes;
	return topo_finish_link(c, g, what_tx, &k->tx, c->t->rate_scale, qtime);
}

static void add_rack(struct topo *t, int cls, int count)
{
	struct topo_rack *r = &t->rack[t->racks];
	r->first = t->nservers;
	r->servers = count;
	r->nruns = 1;
	r->run[0] = (struct topo_run){cls, count};
	t->nservers += count;
	t->racks++;
}

int topo_parse_uniform(struct topo_ctx *c, const config_setting_t *root)
{
	struct topo *t = c->t;
	int racks, per_rack, rc;
	const config_setting_t *g;
	if (topo_get_int(c, root, "racks", true, 1, TOPO_MAX_RACKS, &racks) ||
	    topo_get_int(c, root, "servers_per_rack", true, 1, TOPO_MAX_SERVERS, &per_rack))
		return -1;
	if ((g = config_setting_get_member(root, "classes")))
		return topo_fail(c, g, "'classes' go with a list of racks (racks = ( { servers = { ... }; }, ... );), "
				 "not with servers_per_rack");
	if (!(g = topo_group(c, root, "server", true, &rc)))
		return -1;
	t->nclasses = 1;
	snprintf(t->cls[0].name, sizeof t->cls[0].name, "server");
	if (parse_class(c, g, &t->cls[0], true))
		return -1;
	for (int r = 0; r < racks; r++)
		add_rack(t, 0, per_rack);
	return 0;
}

static int parse_class_list(struct topo_ctx *c, const config_setting_t *root)
{
	struct topo *t = c->t;
	int rc;
	const config_setting_t *g = topo_group(c, root, "classes", true, &rc);
	if (!g)
		return -1;
	int n = config_setting_length(g);
	if (n < 1 || n > TOPO_MAX_CLASSES)
		return topo_fail(c, g, "'classes' must name 1 to %d classes of server, e.g. "
				 "classes = { small = { rate = \"1Gbit\"; containers = 8; }; };", TOPO_MAX_CLASSES);
	for (int i = 0; i < n; i++) {
		const config_setting_t *k = config_setting_get_elem(g, i);
		const char *name = config_setting_name(k);
		if (!config_setting_is_group(k))
			return topo_fail(c, k, "class '%s' must be a group: %s = { rate = ...; };", name, name);
		if (strlen(name) >= TOPO_CLASS_NAME)
			return topo_fail(c, k, "class name '%s' is longer than %d characters", name, TOPO_CLASS_NAME - 1);
		snprintf(t->cls[i].name, sizeof t->cls[i].name, "%s", name);
		t->nclasses = i + 1;
		if (parse_class(c, k, &t->cls[i], false))
			return -1;
	}
	return 0;
}

static int class_named(const struct topo *t, const char *name)
{
	for (int k = 0; k < t->nclasses; k++)
		if (!strcmp(t->cls[k].name, name))
			return k;
	return -1;
}

/* One element of the racks list: `repeat` racks of the servers it lists. */
static int parse_rack(struct topo_ctx *c, const config_setting_t *e, int index)
{
	static const char *const rack_keys[] = {"servers", "repeat", NULL};
	struct topo *t = c->t;
	struct topo_rack one = {0};
	int repeat = 1, rc;
	if (!config_setting_is_group(e))
		return topo_fail(c, e, "rack %d must be a group: { servers = { CLASS = COUNT; ... }; }", index);
	if (topo_check_keys(c, e, rack_keys) || topo_get_int(c, e, "repeat", false, 1, TOPO_MAX_RACKS, &repeat))
		return -1;
	const config_setting_t *g = topo_group(c, e, "servers", true, &rc);
	if (!g)
		return -1;
	int n = config_setting_length(g);
	if (n < 1)
		return topo_fail(c, g, "rack %d lists no servers (servers = { CLASS = COUNT; };)", index);
	for (int i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(g, i);
		const char *name = config_setting_name(s);
		int cls = class_named(t, name), count;
		if (cls < 0) {
			char list[TOPO_MAX_CLASSES * TOPO_CLASS_NAME] = "";
			for (int k = 0; k < t->nclasses; k++)
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", t->cls[k].name);
			return topo_fail(c, s, "rack %d: no class '%s' (classes: %s)", index, name, list);
		}
		if (topo_get_int(c, g, name, true, 1, TOPO_MAX_SERVERS, &count))
			return -1;
		one.run[one.nruns++] = (struct topo_run){cls, count};
		one.servers += count;
	}
	if (one.servers > TOPO_MAX_SERVERS)
		return topo_fail(c, g, "rack %d has %d servers (at most %d: one /24 each)", index, one.servers,
				 TOPO_MAX_SERVERS);
	if (t->racks + repeat > TOPO_MAX_RACKS)
		return topo_fail(c, e, "more than %d racks", TOPO_MAX_RACKS);
	for (int r = 0; r < repeat; r++) {
		one.first = t->nservers;
		t->rack[t->racks++] = one;
		t->nservers += one.servers;
	}
	return 0;
}

int topo_parse_classes(struct topo_ctx *c, const config_setting_t *root)
{
	const config_setting_t *racks = config_setting_get_member(root, "racks"), *g;
	if ((g = config_setting_get_member(root, "servers_per_rack")))
		return topo_fail(c, g, "'servers_per_rack' goes with racks = N; a list of racks says each rack's servers");
	if ((g = config_setting_get_member(root, "server")))
		return topo_fail(c, g, "'server' goes with racks = N; a list of racks takes its servers from 'classes'");
	if (parse_class_list(c, root))
		return -1;
	int n = config_setting_length(racks);
	if (n < 1)
		return topo_fail(c, racks, "'racks' lists no rack");
	for (int i = 0; i < n; i++)
		if (parse_rack(c, config_setting_get_elem(racks, i), c->t->racks))
			return -1;
	return 0;
}

/* ---- writing ------------------------------------------------------------ */

static void put_int(config_setting_t *g, const char *key, int v)
{
	config_setting_set_int(config_setting_add(g, key, CONFIG_TYPE_INT), v);
}

static void put_float(config_setting_t *g, const char *key, double v)
{
	config_setting_set_float(config_setting_add(g, key, CONFIG_TYPE_FLOAT), v);
}

static void put_class(const struct topo_class *k, config_setting_t *g, bool uniform)
{
	char b[32];
	topo_put_link(g, "rate", &k->rx);
	if (k->tx.rate != k->rx.rate)
		topo_put_rate(g, "tx_rate", k->tx.rate);
	if (k->containers)
		put_int(g, "containers", k->containers);
	if (uniform)
		put_int(g, "cores", (int)lround(k->cores));
	else if (!k->containers)
		put_float(g, "cores", k->cores);
	if (k->memory && (uniform || !k->containers)) {
		snprintf(b, sizeof b, "%lluB", (unsigned long long)k->memory);
		topo_put_str(g, "memory", b);
	}
	if (k->disk_mbps > 0 && !k->containers)
		put_float(g, "disk_mbps", k->disk_mbps);
	if (k->disk_read_mbps > 0)
		put_float(g, "disk_read_mbps", k->disk_read_mbps);
	if (k->disk_write_mbps > 0)
		put_float(g, "disk_write_mbps", k->disk_write_mbps);
	if (k->speed != 1)
		put_float(g, "speed", k->speed);
	if (k->model != TOPO_MODEL_SPEED)
		topo_put_str(g, "model", model_names[k->model]);
}

void topo_save_servers(const struct topo *t, config_setting_t *root)
{
	if (topo_uniform(t) && t->cls[0].containers && !strcmp(t->cls[0].name, "server")) {
		put_int(root, "racks", t->racks);
		put_int(root, "servers_per_rack", t->rack[0].servers);
		put_class(&t->cls[0], config_setting_add(root, "server", CONFIG_TYPE_GROUP), true);
		return;
	}
	config_setting_t *classes = config_setting_add(root, "classes", CONFIG_TYPE_GROUP);
	for (int k = 0; k < t->nclasses; k++)
		put_class(&t->cls[k], config_setting_add(classes, t->cls[k].name, CONFIG_TYPE_GROUP), false);
	config_setting_t *racks = config_setting_add(root, "racks", CONFIG_TYPE_LIST);
	for (int r = 0; r < t->racks; r++) {
		config_setting_t *servers = config_setting_add(config_setting_add(racks, NULL, CONFIG_TYPE_GROUP),
							       "servers", CONFIG_TYPE_GROUP);
		for (int i = 0; i < t->rack[r].nruns; i++)
			put_int(servers, t->cls[t->rack[r].run[i].cls].name, t->rack[r].run[i].count);
	}
}

/* ---- questions ---------------------------------------------------------- */

int topo_class_at(const struct topo *t, int rack, int index)
{
	const struct topo_rack *r = &t->rack[rack];
	for (int i = 0; i < r->nruns; i++) {
		if (index < r->run[i].count)
			return r->run[i].cls;
		index -= r->run[i].count;
	}
	return r->nruns ? r->run[r->nruns - 1].cls : 0;
}

int topo_rack_of(const struct topo *t, int server)
{
	int lo = 0, hi = t->racks - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (t->rack[mid].first <= server)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

bool topo_uniform(const struct topo *t)
{
	for (int r = 1; r < t->racks; r++)
		if (t->rack[r].servers != t->rack[0].servers)
			return false;
	return t->nclasses == 1;
}

int topo_class_servers(const struct topo *t, int cls)
{
	int n = 0;
	for (int r = 0; r < t->racks; r++)
		for (int i = 0; i < t->rack[r].nruns; i++)
			n += t->rack[r].run[i].cls == cls ? t->rack[r].run[i].count : 0;
	return n;
}

double topo_oversubscription(const struct topo *t)
{
	double most = 0;
	for (int r = 0; r < t->racks; r++) {
		double rx = 0;
		for (int i = 0; i < t->rack[r].nruns; i++)
			rx += (double)t->cls[t->rack[r].run[i].cls].rx.rate * t->rack[r].run[i].count;
		most = fmax(most, rx / (double)t->uplink.rate);
	}
	return most;
}
