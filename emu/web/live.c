/* live.c — a run's state to a struct web_view (live.h). */
#include "emu/web/live.h"
#include <stdlib.h>
#include <string.h>

static const char *class_name(enum link_class c)
{
	return c == LINK_SERVER ? "server" : c == LINK_UPLINK ? "eps" : "ocs";
}

/* links.csv's names and rates (monitor.c) */
static void link_row(struct web_link *w, const struct link_stats *prev, const struct link_stats *l, double dt)
{
	snprintf(w->name, sizeof w->name, "tor%d-%s%d", l->rack,
		 l->cls == LINK_SERVER ? "h" : l->cls == LINK_UPLINK ? "up" : "o",
		 l->cls == LINK_SERVER ? l->server : l->cls == LINK_OPTICAL ? l->port : 0);
	w->cls = class_name(l->cls);
	w->rack = l->rack;
	w->server = l->cls == LINK_SERVER ? l->server : -1;
	w->port = l->cls == LINK_OPTICAL ? l->port : -1;
	w->tx_mbps = dt > 0 ? (double)(l->tx_bytes - prev->tx_bytes) * 8 / dt / 1e6 : 0;
	w->rx_mbps = dt > 0 ? (double)(l->rx_bytes - prev->rx_bytes) * 8 / dt / 1e6 : 0;
	w->drops = l->drops;
	w->backlog = l->backlog;
}

json_t *web_snapshot_live(const struct run *r, const struct link_stats *cur, double dt, const struct web_ocs *ocs,
			  bool final)
{
	const struct workload *w = r->w;
	struct web_link *links = calloc(r->nlinks > 0 ? r->nlinks : 1, sizeof *links);
	struct web_job *jobs = calloc(w->njobs > 0 ? w->njobs : 1, sizeof *jobs);
	struct web_task *tasks = calloc(w->ntasks > 0 ? w->ntasks : 1, sizeof *tasks);
	json_t *o = NULL;
	if (!links || !jobs || !tasks)
		goto out;
	struct web_view v = {.mode = "live", .t = run_now(r), .final = final, .scheduler = r->p.scheduler,
			     .topology = r->t->name, .backend = r->be->name, .racks = r->c.racks, .ocs = ocs,
			     .links = links, .nlinks = r->nlinks, .jobs = jobs, .njobs = w->njobs, .tasks = tasks,
			     .ntasks = w->ntasks};
	for (int i = 0; i < r->nlinks; i++) {
		link_row(&links[i], &r->last[i], &cur[i], dt);
		if (cur[i].cls == LINK_UPLINK)
			v.eps_bytes += cur[i].tx_bytes - r->base[i].tx_bytes;
		else if (cur[i].cls == LINK_OPTICAL)
			v.ocs_bytes += cur[i].tx_bytes - r->base[i].tx_bytes;
	}
	for (int i = 0; i < w->njobs; i++) {
		const struct job *j = &w->jobs[i];
		bool fin = r->c.arrived[i] && cluster_job_finished(j);
		jobs[i] = (struct web_job){.name = j->name, .submit = j->submit_s, .end = fin ? j->t_end : -1,
					   .nstages = j->nstages};
		for (int s = 0; s < j->nstages; s++)
			jobs[i].stage_name[s] = j->stages[s].name;
	}
	for (int i = 0; i < w->ntasks; i++) {
		const struct task *t = &w->tasks[i];
		tasks[i] = (struct web_task){t->job, t->stage, t->server >= 0 ? cluster_rack_of(&r->c, t->server) : -1,
					     t->t_start, t->t_end,
					     t->state == TASK_DONE ? WEB_DONE : t->state == TASK_RUNNING ? WEB_RUNNING : WEB_PENDING};
	}
	/* The OCS thread adds to these two while the run goes: read them whole. */
	struct fidelity f = r->fid;
	f.reconfigs = __atomic_load_n(&r->fid.reconfigs, __ATOMIC_RELAXED);
	f.late = __atomic_load_n(&r->fid.late, __ATOMIC_RELAXED);
	char why[256] = "";
	v.fid = &f;
	v.verdict = r->be->wallclock ? fidelity_verdict(&f, why, sizeof why) : "simulated";
	v.detail = why;
	o = web_view_json(&v);
out:
	free(links);
	free(jobs);
	free(tasks);
	return o;
}

void web_publish_sample(struct web_pub *p, const struct run *r, const struct link_stats *cur, double dt, bool final)
{
	double wall = run_wall();
	if (!final && wall - p->last_wall < 0.5)
		return;
	p->last_wall = wall;
	struct web_ocs ocs;
	bool have_ocs = r->ocs_on && !web_ocs_init(&ocs, r->c.racks, r->ocs.ports);
	if (have_ocs)
		web_pub_ocs(p, &ocs);   /* nothing decided yet: dark, no demand */
	json_t *o = web_snapshot_live(r, cur, dt, have_ocs ? &ocs : NULL, final);
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	if (s)
		web_pub_put(p, s, strlen(s));
	free(s);
	json_decref(o);
	if (have_ocs)
		web_ocs_free(&ocs);
}
