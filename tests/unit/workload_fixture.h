/* Hand-made workloads for scheduler tests: the caller sets each job's
 * fields (at least nmaps and nreduces), this lays out its tasks. */
#ifndef TESTS_WORKLOAD_FIXTURE_H
#define TESTS_WORKLOAD_FIXTURE_H
#include "emu/stages.h"
#include "emu/workload.h"
#include <stdlib.h>

static inline struct workload *fx_workload_new(int njobs)
{
	struct workload *w = calloc(1, sizeof *w);
	w->njobs = njobs;
	w->jobs = calloc(njobs, sizeof *w->jobs);
	for (int j = 0; j < njobs; j++)
		w->jobs[j].id = j;
	return w;
}

/* Allocate and number the tasks of every job: maps first, then reduces
 * (MapReduce's two stages); no server, no replicas yet. */
static inline void fx_workload_layout(struct workload *w)
{
	w->ntasks = 0;
	for (int j = 0; j < w->njobs; j++)
		w->ntasks += w->jobs[j].nmaps + w->jobs[j].nreduces;
	w->tasks = calloc(w->ntasks ? w->ntasks : 1, sizeof *w->tasks);
	int k = 0;
	for (int j = 0; j < w->njobs; j++) {
		struct job *jb = &w->jobs[j];
		jb->first_task = k;
		stages_mapreduce(jb);
		for (int i = 0; i < jb->nmaps + jb->nreduces; i++, k++) {
			struct task *t = &w->tasks[k];
			t->id = k;
			t->job = j;
			t->kind = i < jb->nmaps ? TASK_MAP : TASK_REDUCE;
			t->index = i < jb->nmaps ? i : i - jb->nmaps;
			t->server = -1;
			t->replicas[0] = t->replicas[1] = t->replicas[2] = -1;
		}
		stages_number_tasks(w->tasks, jb);
	}
}

static inline void fx_workload_free(struct workload *w)
{
	free(w->jobs);
	free(w->tasks);
	free(w);
}
#endif
