/* stages.c — see stages.h. */
#include "emu/stages.h"
#include <stdio.h>
#include <string.h>

static const char *const edge_names[] = {
	[EDGE_SHUFFLE] = "shuffle", [EDGE_ONE_TO_ONE] = "one-to-one", [EDGE_BROADCAST] = "broadcast",
	[EDGE_TASKS] = "tasks",
};

const char *edge_kind_name(enum edge_kind k)
{
	return edge_names[k];
}

int edge_kind_parse(const char *name, enum edge_kind *k)
{
	for (size_t i = 0; i < sizeof edge_names / sizeof *edge_names; i++)
		if (!strcmp(name, edge_names[i])) {
			*k = (enum edge_kind)i;
			return 0;
		}
	return -1;
}

void stages_mapreduce(struct job *j)
{
	struct stage *m = &j->stages[0], *r = &j->stages[1];
	snprintf(m->name, sizeof m->name, "map");
	m->ntasks = j->nmaps;
	m->nparents = 0;
	j->nstages = 1;
	if (j->nreduces) {
		snprintf(r->name, sizeof r->name, "reduce");
		r->ntasks = j->nreduces;
		r->nparents = 1;
		r->parent[0] = (struct stage_edge){0, EDGE_SHUFFLE};
		j->nstages = 2;
	}
	stages_layout(j);
}

void stages_layout(struct job *j)
{
	int first = 0;
	for (int s = 0; s < j->nstages; s++) {
		j->stages[s].first = first;
		j->stages[s].has_children = false;
		first += j->stages[s].ntasks;
	}
	for (int s = 0; s < j->nstages; s++)
		for (int p = 0; p < j->stages[s].nparents; p++)
			j->stages[j->stages[s].parent[p].stage].has_children = true;
	j->nmaps = j->stages[0].ntasks;
	j->nreduces = first - j->nmaps;
}

void stages_number_tasks(struct task *tasks, const struct job *j)
{
	for (int s = 0; s < j->nstages; s++)
		for (int i = 0; i < j->stages[s].ntasks; i++) {
			struct task *t = stage_task(tasks, j, s, i);
			t->stage = s;
			t->sindex = i;
			t->kind = s ? TASK_REDUCE : TASK_MAP;
			t->index = s ? j->stages[s].first - j->nmaps + i : i;
		}
}

bool stages_is_mapreduce(const struct job *j)
{
	return !strcmp(j->stages[0].name, "map") &&
	       ((j->nstages == 1 && !j->output_bytes) || (j->nstages == 2 && !strcmp(j->stages[1].name, "reduce") &&
				    j->stages[1].nparents == 1 && j->stages[1].parent[0].kind == EDGE_SHUFFLE));
}

const struct stage_edge *stages_edge(const struct job *j, int child, int parent)
{
	const struct stage *c = &j->stages[child];
	for (int p = 0; p < c->nparents; p++)
		if (c->parent[p].stage == parent)
			return &c->parent[p];
	return NULL;
}
