/* topo_parse.h — private to the topology parser (topo.c, topo_servers.c):
 * reading checked values out of a libconfig tree, every error as
 * "FILE:LINE: problem". */
#ifndef NETCTL_TOPO_PARSE_H
#define NETCTL_TOPO_PARSE_H
#include "netctl/topo.h"
#include <libconfig.h>

#define TOPO_DEFAULT_QUEUE_S 0.004   /* 4 ms of line rate: switch-like, keeps RTT bounded */

struct topo_ctx {
	const char *file;
	char *err;
	struct topo *t;
};

int topo_fail(struct topo_ctx *c, const config_setting_t *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reject keys a group does not know, naming what it knows. */
int topo_check_keys(struct topo_ctx *c, const config_setting_t *g, const char *const *allowed);
/* group / value getters: 0 (a missing optional value leaves *out alone), or
 * -1 with the error set; a missing required group sets *rc = -1. */
const config_setting_t *topo_group(struct topo_ctx *c, const config_setting_t *parent, const char *key,
				   bool required, int *rc);
int topo_get_int(struct topo_ctx *c, const config_setting_t *g, const char *key, bool required, long lo,
		 long hi, int *out);
int topo_get_str(struct topo_ctx *c, const config_setting_t *g, const char *key, bool required, const char **out);
int topo_get_rate(struct topo_ctx *c, const config_setting_t *g, const char *key, bool required, uint64_t *out);
/* A positive number (an integer or a float) at most hi. */
int topo_get_number(struct topo_ctx *c, const config_setting_t *g, const char *key, double hi, double *out);
/* A queue limit: a size ("100KB") or a time at line rate ("4ms", *qtime). */
int topo_get_queue(struct topo_ctx *c, const config_setting_t *g, struct topo_link *l, double *qtime);
/* Rate scaling, the queue's bytes and the GSO cap of one link. */
int topo_finish_link(struct topo_ctx *c, const config_setting_t *where, const char *what, struct topo_link *l,
		     double scale, double qtime);

/* The servers (topo_servers.c): the uniform form (`servers_per_rack` and a
 * `server` group) or classes and a list of racks, into t->cls and t->rack,
 * rates finished. */
int topo_parse_uniform(struct topo_ctx *c, const config_setting_t *root);
int topo_parse_classes(struct topo_ctx *c, const config_setting_t *root);
/* Write them back in the form they fit. */
void topo_save_servers(const struct topo *t, config_setting_t *root);
void topo_put_str(config_setting_t *g, const char *key, const char *v);
void topo_put_rate(config_setting_t *g, const char *key, uint64_t rate);
/* `rate_key` = the link's rate, and its queue in bytes. */
void topo_put_link(config_setting_t *g, const char *rate_key, const struct topo_link *l);
#endif
