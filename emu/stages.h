/* stages.h — a job's stages: MapReduce as stages, numbering tasks by stage,
 * the edge kinds' names.  The rules that run stages (when a stage may start,
 * what a task fetches) are the cluster's (cluster.c) and the shuffle's
 * (shuffle.c). */
#ifndef EMU_STAGES_H
#define EMU_STAGES_H
#include "emu/job.h"

/* j->nmaps maps and j->nreduces reduces as stages: "map", then "reduce"
 * reading it over a shuffle (no reduce stage when there are none).  Asks
 * are left as they are. */
void stages_mapreduce(struct job *j);
/* Lay out j->stages[].first, has_children, j->nmaps (stage 0) and
 * j->nreduces (the rest) from the stages' task counts and parents. */
void stages_layout(struct job *j);
/* Number the job's tasks (at tasks[j->first_task ..]) by stage: kind,
 * index, stage, sindex. */
void stages_number_tasks(struct task *tasks, const struct job *j);
/* The edge from stage `child` to stage `parent`, or NULL if it reads none. */
const struct stage_edge *stages_edge(const struct job *j, int child, int parent);

/* MapReduce as the maps-and-reduces form says it: a "map" stage, and a
 * "reduce" stage reading it over a shuffle, or none (then no output). */
bool stages_is_mapreduce(const struct job *j);

const char *edge_kind_name(enum edge_kind k);
/* 0 and *k, or -1 for a name that is none of shuffle, one-to-one, broadcast. */
int edge_kind_parse(const char *name, enum edge_kind *k);
#endif
