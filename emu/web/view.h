/* view.h — what the live view shows, as one JSON object.  The run (live.c)
 * and a results directory (replay.c) fill the same struct web_view, and one
 * builder turns it into the snapshot, so the page cannot tell them apart
 * (its fields: man/emu-view.8). */
#ifndef EMU_WEB_VIEW_H
#define EMU_WEB_VIEW_H
#include "emu/fidelity.h"
#include "emu/job.h"
#include "netctl/circuits.h"
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* Reconfigurations kept for the page's strip of dark periods. */
#define WEB_DARK_KEEP 16

/* The OCS as its controller last saw it: the demand the matching saw, the
 * configuration it chose, what is lit, and the latest dark periods. */
struct web_ocs {
	int racks, ports;
	struct circuit_cfg lit, chosen;
	int64_t *demand;                 /* racks x racks, row = source */
	int64_t served, total;           /* demand the chosen configuration serves / all of it */
	unsigned long decisions, reconfigs;
	struct web_dark { double t, drain_s, dark_s; int changed; } dark[WEB_DARK_KEEP];
	int ndark;                       /* newest last */
};

/* One link over the last sample (links.csv's columns). */
struct web_link {
	char name[32];
	const char *cls;                 /* "server", "eps", "ocs" */
	int rack, server, port;
	double tx_mbps, rx_mbps;
	unsigned long long drops, backlog;
};

enum web_task_state { WEB_PENDING, WEB_RUNNING, WEB_DONE };
struct web_task { int job, stage, rack; double start, end; enum web_task_state state; };
struct web_job {
	const char *name;
	double submit, end;              /* end < 0: not finished (its start: its first task's) */
	int nstages;
	const char *stage_name[JOB_MAX_STAGES];
};

struct web_view {
	const char *mode;                /* "live" or "replay" */
	double t, t_end;                 /* run seconds; t_end: the replay's last (0 live) */
	bool final;                      /* the run is over */
	const char *scheduler, *topology, *backend;
	int racks;
	const struct web_ocs *ocs;       /* NULL: no OCS */
	const struct web_link *links;
	int nlinks;
	const struct web_job *jobs;
	int njobs;
	const struct web_task *tasks;
	int ntasks;
	uint64_t eps_bytes, ocs_bytes;   /* cross-rack, at the ToRs, so far */
	const struct fidelity *fid;
	const char *verdict, *detail;
};

json_t *web_view_json(const struct web_view *v);
/* The OCS mirror, no circuits and no demand: 0, or -1 out of memory. */
int web_ocs_init(struct web_ocs *o, int racks, int ports);
void web_ocs_free(struct web_ocs *o);
void web_ocs_copy(struct web_ocs *dst, const struct web_ocs *src);   /* same racks */
void web_ocs_dark(struct web_ocs *o, double t, double drain_s, double dark_s, int changed);
#endif
