/* view.c — one struct web_view to the snapshot's JSON: the same for a live
 * run and a replay.  Pure: it reads the view and nothing else. */
#include "emu/web/view.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int web_ocs_init(struct web_ocs *o, int racks, int ports)
{
	memset(o, 0, sizeof *o);
	o->racks = racks;
	o->ports = ports;
	memset(o->lit.out, 0xff, sizeof o->lit.out);   /* every entry -1: dark */
	o->lit.racks = racks;
	o->lit.ports = ports;
	o->chosen = o->lit;
	o->demand = calloc((size_t)(racks > 0 ? racks : 1) * (racks > 0 ? racks : 1), sizeof *o->demand);
	return o->demand ? 0 : -1;
}

void web_ocs_free(struct web_ocs *o)
{
	free(o->demand);
	o->demand = NULL;
}

void web_ocs_copy(struct web_ocs *dst, const struct web_ocs *src)
{
	int64_t *d = dst->demand;
	*dst = *src;
	dst->demand = d;
	memcpy(d, src->demand, (size_t)src->racks * src->racks * sizeof *d);
}

void web_ocs_dark(struct web_ocs *o, double t, double drain_s, double dark_s, int changed)
{
	if (o->ndark == WEB_DARK_KEEP) {
		memmove(o->dark, o->dark + 1, (WEB_DARK_KEEP - 1) * sizeof *o->dark);
		o->ndark--;
	}
	o->dark[o->ndark++] = (struct web_dark){t, drain_s, dark_s, changed};
}

static json_t *num_or_null(double x)
{
	return x >= 0 && isfinite(x) ? json_real(x) : json_null();
}

static json_t *circuits_json(const struct circuit_cfg *c)
{
	json_t *a = json_array();
	for (int p = 0; p < c->ports; p++)
		for (int s = 0; s < c->racks; s++)
			if (c->out[p][s] >= 0)
				json_array_append_new(a, json_pack("{s:i,s:i,s:i}", "port", p, "src", s, "dst", c->out[p][s]));
	return a;
}

static json_t *ocs_json(const struct web_ocs *o)
{
	json_t *m = json_array(), *dark = json_array();
	for (int s = 0; s < o->racks; s++) {
		json_t *row = json_array();
		for (int d = 0; d < o->racks; d++)
			json_array_append_new(row, json_integer(o->demand[(size_t)s * o->racks + d]));
		json_array_append_new(m, row);
	}
	for (int i = 0; i < o->ndark; i++)
		json_array_append_new(dark, json_pack("{s:f,s:f,s:f,s:i}", "t", o->dark[i].t, "drain_s", o->dark[i].drain_s,
						      "dark_s", o->dark[i].dark_s, "changed", o->dark[i].changed));
	return json_pack("{s:i,s:o,s:o,s:o,s:I,s:I,s:I,s:I,s:o}", "ports", o->ports, "circuits", circuits_json(&o->lit),
			 "matching", circuits_json(&o->chosen), "demand", m, "served_bytes", (json_int_t)o->served,
			 "demand_bytes", (json_int_t)o->total, "decisions", (json_int_t)o->decisions, "reconfigurations",
			 (json_int_t)o->reconfigs, "dark", dark);
}

static json_t *links_json(const struct web_link *l, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s,s:s,s:i,s:i,s:i,s:f,s:f,s:I,s:I}", "link", l[i].name, "class",
						   l[i].cls, "rack", l[i].rack, "server", l[i].server, "port", l[i].port,
						   "tx_mbps", l[i].tx_mbps, "rx_mbps", l[i].rx_mbps, "drops",
						   (json_int_t)l[i].drops, "backlog", (json_int_t)l[i].backlog));
	return a;
}

/* Per job and stage: tasks, done, running, first start and last end;
 * per rack: tasks running. */
struct stage_acc { int tasks, done, running; double start, end; };

static json_t *jobs_json(const struct web_view *v, json_t *per_rack)
{
	int njobs = v->njobs > 0 ? v->njobs : 1;
	struct stage_acc *acc = calloc((size_t)njobs * JOB_MAX_STAGES, sizeof *acc);
	int *running = calloc(v->racks > 0 ? v->racks : 1, sizeof *running);
	json_t *a = json_array();
	if (!acc || !running) {
		free(acc);
		free(running);
		return a;
	}
	for (int i = 0; i < njobs * JOB_MAX_STAGES; i++)
		acc[i].start = acc[i].end = -1;
	for (int i = 0; i < v->ntasks; i++) {
		const struct web_task *t = &v->tasks[i];
		if (t->job < 0 || t->job >= v->njobs || t->stage < 0 || t->stage >= JOB_MAX_STAGES)
			continue;
		struct stage_acc *s = &acc[t->job * JOB_MAX_STAGES + t->stage];
		s->tasks++;
		if (t->state == WEB_PENDING)
			continue;
		if (s->start < 0 || t->start < s->start)
			s->start = t->start;
		if (t->state == WEB_DONE) {
			s->done++;
			s->end = fmax(s->end, t->end);
		} else {
			s->running++;
			if (t->rack >= 0 && t->rack < v->racks)
				running[t->rack]++;
		}
	}
	for (int j = 0; j < v->njobs; j++) {
		const struct web_job *jb = &v->jobs[j];
		json_t *stages = json_array();
		double start = -1;
		for (int s = 0; s < jb->nstages && s < JOB_MAX_STAGES; s++) {
			const struct stage_acc *x = &acc[j * JOB_MAX_STAGES + s];
			if (x->start >= 0 && (start < 0 || x->start < start))
				start = x->start;
			json_array_append_new(stages, json_pack("{s:s,s:i,s:i,s:i,s:o,s:o}", "name", jb->stage_name[s],
								"tasks", x->tasks, "done", x->done, "running", x->running,
								"start", num_or_null(x->start),
								"end", x->done == x->tasks ? num_or_null(x->end) : json_null()));
		}
		json_array_append_new(a, json_pack("{s:i,s:s,s:f,s:o,s:o,s:o}", "id", j, "name", jb->name, "submit",
						   jb->submit, "start", num_or_null(start), "end", num_or_null(jb->end),
						   "stages", stages));
	}
	for (int k = 0; k < v->racks; k++)
		json_array_append_new(per_rack, json_integer(running[k]));
	free(acc);
	free(running);
	return a;
}

/* The summary as results.c will write it, so far. */
static json_t *summary_json(const struct web_view *v)
{
	int fin = 0, done = 0;
	double first = INFINITY, last = 0, sum = 0;
	for (int j = 0; j < v->njobs; j++) {
		const struct web_job *jb = &v->jobs[j];
		first = fmin(first, jb->submit);
		if (jb->end < 0)
			continue;
		fin++;
		sum += jb->end - jb->submit;
		last = fmax(last, jb->end);
	}
	for (int i = 0; i < v->ntasks; i++)
		done += v->tasks[i].state == WEB_DONE;
	double makespan = fin ? last - (first == INFINITY ? 0 : first) : 0;
	uint64_t x = v->eps_bytes + v->ocs_bytes;
	return json_pack("{s:i,s:i,s:i,s:i,s:f,s:f,s:I,s:I,s:I,s:f}", "jobs", v->njobs, "jobs_finished", fin, "tasks",
			 v->ntasks, "tasks_done", done, "makespan_s", makespan, "jct_mean_s", fin ? sum / fin : 0.0,
			 "cross_rack_bytes", (json_int_t)x, "eps_bytes", (json_int_t)v->eps_bytes, "ocs_bytes",
			 (json_int_t)v->ocs_bytes, "ocs_share", x ? (double)v->ocs_bytes / (double)x : 0.0);
}

static json_t *fidelity_json(const struct web_view *v)
{
	static const struct fidelity none;
	const struct fidelity *f = v->fid ? v->fid : &none;
	return json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "verdict", v->verdict ? v->verdict : "",
			 "detail", v->detail ? v->detail : "", "samples", (json_int_t)f->samples, "standing",
			 (json_int_t)f->standing, "slow", (json_int_t)f->slow, "bursts", (json_int_t)f->bursts,
			 "dropping", (json_int_t)f->dropping, "paused", (json_int_t)f->paused, "cpu_saturated",
			 (json_int_t)f->cpu_hot, "late_reconfigurations", (json_int_t)f->late);
}

json_t *web_view_json(const struct web_view *v)
{
	json_t *per_rack = json_array();
	json_t *o = json_pack("{s:s,s:f,s:f,s:b,s:s,s:s,s:s,s:i}", "mode", v->mode, "t", v->t, "t_end", v->t_end,
			      "final", v->final, "scheduler", v->scheduler ? v->scheduler : "", "topology",
			      v->topology ? v->topology : "", "backend", v->backend ? v->backend : "", "racks", v->racks);
	json_object_set_new(o, "ocs", v->ocs ? ocs_json(v->ocs) : json_null());
	json_object_set_new(o, "links", links_json(v->links, v->nlinks));
	json_object_set_new(o, "jobs", jobs_json(v, per_rack));
	json_object_set_new(o, "running_per_rack", per_rack);
	json_object_set_new(o, "fidelity", fidelity_json(v));
	json_object_set_new(o, "summary", summary_json(v));
	return o;
}
