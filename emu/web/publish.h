/* publish.h — where the controller leaves snapshots for the web server.
 *
 * The controller's loop builds an immutable JSON snapshot once a sample and
 * swaps it in (web_pub_put: a pointer swap under a mutex held for that
 * alone); HTTP threads take a reference to the current one (web_pub_get)
 * and never touch the run.  The OCS controller's thread mirrors its
 * decisions into a copy of its own (web_pub_observer), which the loop reads
 * under a second short lock. */
#ifndef EMU_WEB_PUBLISH_H
#define EMU_WEB_PUBLISH_H
#include "emu/ocs_ctl.h"
#include "emu/web/view.h"
#include <pthread.h>
#include <stddef.h>

struct web_snap {
	int refs;                 /* atomic */
	unsigned long seq;        /* 1, 2, ... in order of publication */
	size_t len;
	char json[];
};

struct web_pub {
	pthread_mutex_t mu;       /* cur; seq is written under it, read without */
	struct web_snap *cur;
	unsigned long seq;
	pthread_mutex_t ocs_mu;   /* ocs and ocs_on */
	struct web_ocs ocs;
	bool ocs_on;
	double last_wall;         /* when the loop last published (wall s) */
};

struct web_pub *web_pub_new(void);
void web_pub_free(struct web_pub *p);
/* Publish a snapshot (json: a string of len bytes, copied). 0 or -1. */
int web_pub_put(struct web_pub *p, const char *json, size_t len);
/* The current snapshot with a reference (web_snap_unref it), or NULL. */
struct web_snap *web_pub_get(struct web_pub *p);
unsigned long web_pub_seq(struct web_pub *p);
void web_snap_unref(struct web_snap *s);
/* The observer that mirrors the OCS controller into p (emu run sets it in
 * its OCS parameters). */
struct ocs_observer web_pub_observer(struct web_pub *p);
/* A copy of the mirror into o (web_ocs_init'ed by the caller with the same
 * racks): false when the OCS has not decided anything yet. */
bool web_pub_ocs(struct web_pub *p, struct web_ocs *o);
#endif
