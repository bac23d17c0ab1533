/* run_int.h — the state of a run, shared by run.c (loop, agents),
 * shuffle.c (transfers), monitor.c (links, fidelity, progress) and
 * results.c (files).  Not for schedulers: they see emu/cluster.h. */
#ifndef EMU_RUN_INT_H
#define EMU_RUN_INT_H
#include "emu/cluster.h"
#include "emu/ocs_ctl.h"
#include "emu/proto.h"
#include "emu/run.h"
#include "emu/sched.h"
#include <pthread.h>
#include <stdio.h>

#define DATA_PORT 7000

struct agent {
	int fd;                  /* control connection, -1 until hello */
	pid_t pid;
	bool up;                 /* said hello and still connected */
	char *rbuf;
	size_t rlen;
	uint64_t *pending;       /* circuit-eligible bytes to send, per destination rack */
};

/* One transfer: what a reduce fetches from one map-output holder in one
 * request (all the outputs available there), or a map's remote input. */
struct xfer_rec {
	int id;                  /* -1 = free slot of the in-flight table */
	int job, task, src, dst;
	uint64_t bytes;
	bool circuit, input, local, done;
	double t_start, t_end;   /* s since the run started (start = when requested) */
};

struct link_sample;

struct run {
	struct run_params p;
	const struct topo *t;
	struct fabric *fab;
	struct workload *w;
	struct cluster c;
	struct sched s;
	double t0;               /* epoch seconds at start */
	int epfd, listen_fd, timer_fd;
	char sock_path[256];
	struct agent *agents;    /* per server */
	int agents_up;
	pthread_mutex_t send_mu; /* writes to agents: main loop and OCS thread */

	/* shuffle: per job, a reduces x maps matrix of "already requested" */
	uint8_t **requested;
	bool *final_sent;        /* per task (reduces) */
	struct xfer_rec *inflight;   /* transfers not finished yet (xfers.c) */
	int ninflight, cap_inflight, next_xfer;
	FILE *flows_csv;             /* finished ones, as they finish */
	struct xfer_totals {
		uint64_t shuffle_net, shuffle_xrack, shuffle_local, input_net, input_xrack, circuit_xrack;
	} totals;

	/* OCS */
	bool ocs_on;
	struct ocs_ctl ocs;
	pthread_t ocs_thread;
	pthread_mutex_t demand_mu;
	volatile int ocs_stop;
	char ocs_err[FABRIC_ERR_LEN];

	/* monitoring */
	FILE *links_csv;
	struct link_stats *base, *last;   /* counters at start and at the last sample */
	int nlinks;
	double last_sample;
	unsigned long samples, busy_samples, slow_samples, cpu_hot_samples;
	unsigned long long cpu_prev_busy, cpu_prev_total;
	double last_progress;
	char dir[512];           /* results directory */
	bool partial;
	const char *stop_reason;
	int tasks_done;
	int reruns;
};

double run_now(const struct run *r);
int run_send(struct run *r, int server, const struct msg *m);

/* shuffle.c */
void shuffle_pump(struct run *r, struct job *j);
void shuffle_reset_reduce(struct run *r, struct task *reduce);
/* xfers.c: returns the transfer's id; a done one is recorded at once. */
int xfer_new(struct run *r, const struct xfer_rec *x);
void xfer_finish(struct run *r, int id, uint64_t bytes, double t_end);
void xfer_flush(struct run *r);   /* record what is still in flight (end of run) */

/* monitor.c */
int monitor_open(struct run *r);
void monitor_sample(struct run *r, bool final);
void monitor_close(struct run *r);

/* results.c */
int results_prepare(struct run *r, char err[512]);
int results_write(struct run *r);
#endif
