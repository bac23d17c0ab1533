/* replay.h — a finished run's results directory (emu-results(5)) as the
 * live view's snapshots at any run time (emu view).
 *
 * What the files do not hold is approximated, and the page says so: the
 * demand the matching saw is the circuit-eligible transfers in flight
 * (flows.csv), links without a row at a sample sent nothing then. */
#ifndef EMU_WEB_REPLAY_H
#define EMU_WEB_REPLAY_H
#include "emu/web/view.h"

struct rp_link;
struct rp_event;
struct rp_task;
struct rp_flow;

struct web_replay {
	char dir[512], scheduler[64], topology[128], backend[16], verdict[32], detail[256];
	int racks, ports;
	double t_end;
	struct fidelity fid;
	struct rp_event *ev;          /* ocs.csv, in time order */
	int nev;
	bool ocs_on;
	struct web_link *links;       /* distinct links, first seen first */
	int nlinks;
	struct rp_link *rows;         /* links.csv rows, grouped by link, each group in time order */
	int *first_row, nrows;        /* per link: its rows from first_row[i] to first_row[i + 1] */
	double *samples;              /* distinct sample times */
	int nsamples;
	struct web_job *jobs;
	char (*job_names)[32], (*stage_names)[JOB_MAX_STAGES][24];
	int njobs;
	struct rp_task *tasks;
	int ntasks;
	struct rp_flow *flows;        /* circuit-eligible cross-rack transfers */
	int nflows;
};

/* Read dir's result files: 0, or -1 with err naming the file and line. */
int web_replay_load(struct web_replay *r, const char *dir, char err[512]);
void web_replay_free(struct web_replay *r);
/* The snapshot at run time t (clamped to [0, t_end]): pure. */
json_t *web_replay_at(const struct web_replay *r, double t);
/* The same as a string, for the server (arg: the replay). */
char *web_replay_json(void *arg, double t);
#endif
