/* compare.h — emu run --compare: the run's jobs again on the flow-level
 * simulator, under this run's scheduler (its simulator twin, when the run
 * was emulated) and under others, each on the run's topology or its own,
 * then side by side: a table on stdout and compare.csv in the run's
 * results directory. */
#ifndef EMU_CLI_COMPARE_H
#define EMU_CLI_COMPARE_H
#include "emu/run.h"

#define COMPARE_MAX 8

struct compare_entry {
	const char *scheduler;
	bool own_topology;        /* SCHED@FILE: topology below, else the run's */
	struct topo topology;
};

struct compare {
	struct compare_entry v[COMPARE_MAX];
	int n;
};

/* "SCHED[@TOPOLOGY_FILE][,...]" (spec is cut up in place); topologies are
 * read with rate_scale as the run's is.  On bad input says why on stderr
 * and returns -1. */
int compare_parse(struct compare *c, char *spec, double rate_scale);


/* After the run `rp` made (its results in dir, its jobs as they were in
 * `jobs`), make the compared runs into results/<experiment>/<scheduler>/
 * <run>-sim[-<topology>]/, print the table unless quiet and write
 * compare.csv.  The run's scheduler (the twin, or an entry naming it) runs
 * with the run's --sched-opt, every other with its defaults.  0, or 1 when a compared run failed or stopped early, or
 * the table could not be written (said on stderr). */
int compare_run(const struct compare *c, const struct topo *t, const struct workload *jobs,
		const struct run_params *rp, const char *dir);
#endif
