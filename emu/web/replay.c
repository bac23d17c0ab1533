/* replay.c — a results directory to snapshots (replay.h). */
#include "emu/web/replay.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rp_event { double t, drain_s, dark_s; int changed; int64_t served, demand; struct circuit_cfg cfg; };
struct rp_link { int link; double t; uint64_t tx_bytes; struct web_link v; };
struct rp_task { int job, stage, rack; double start, end; bool done; };
struct rp_flow { int src, dst; double start, end; uint64_t bytes; };

/* ---- a CSV file with a header ------------------------------------------- */

#define CSV_MAX 32
struct csv {
	FILE *f;
	char path[600], *line, *head, *hf[CSV_MAX], *fld[CSV_MAX];
	size_t cap;
	int nh, n;
	long lineno;
};

static int split(char *s, char **out)
{
	int n = 0;
	s[strcspn(s, "\r\n")] = 0;
	for (char *p = s; n < CSV_MAX; p++) {
		out[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p = 0;
	}
	return n;
}

/* 1 opened, 0 absent, -1 error */
static int csv_open(struct csv *c, const char *dir, const char *name, char err[512])
{
	memset(c, 0, sizeof *c);
	snprintf(c->path, sizeof c->path, "%s/%s", dir, name);
	if (!(c->f = fopen(c->path, "r"))) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, 512, "%s: %s", c->path, strerror(errno));
		return -1;
	}
	if (getline(&c->line, &c->cap, c->f) <= 0 || !(c->head = strdup(c->line))) {
		snprintf(err, 512, "%s: empty, no header", c->path);
		return -1;
	}
	c->nh = split(c->head, c->hf);
	c->lineno = 1;
	return 1;
}

static int csv_col(const struct csv *c, const char *name, char err[512])
{
	for (int i = 0; i < c->nh; i++)
		if (!strcmp(c->hf[i], name))
			return i;
	snprintf(err, 512, "%s: no column '%s'", c->path, name);
	return -1;
}

static int csv_next(struct csv *c)
{
	while (getline(&c->line, &c->cap, c->f) > 0) {
		c->lineno++;
		if (c->line[0] == '\n')
			continue;
		c->n = split(c->line, c->fld);
		return 1;
	}
	return 0;
}

static void csv_close(struct csv *c)
{
	if (c->f)
		fclose(c->f);
	free(c->line);
	free(c->head);
}

/* A field as a number; -1 with err naming the file and line. */
static int num(struct csv *c, int col, double *out, char err[512])
{
	char *end;
	if (col >= c->n || !*c->fld[col]) {
		snprintf(err, 512, "%s:%ld: missing column %d", c->path, c->lineno, col + 1);
		return -1;
	}
	*out = strtod(c->fld[col], &end);
	if (*end || !isfinite(*out)) {
		snprintf(err, 512, "%s:%ld: '%s' is not a number", c->path, c->lineno, c->fld[col]);
		return -1;
	}
	return 0;
}

static int nums(struct csv *c, const int *col, double *v, int n, char err[512])
{
	for (int i = 0; i < n; i++)
		if (num(c, col[i], &v[i], err))
			return -1;
	return 0;
}

/* One row of a file: 0, or -1 with err (col: the columns asked for, in order). */
typedef int row_fn(struct web_replay *r, struct csv *c, const int *col, char err[512]);

/* Every row of dir/name through row; names: the columns it needs, a
 * leading '?' for one it can do without (col -1).  1 read, 0 absent (an
 * error when required: -1), -1 with err. */
static int load_csv(struct web_replay *r, const char *name, bool required, const char *const *names, int n,
		    row_fn *row, char err[512])
{
	struct csv c;
	int col[CSV_MAX], rc = csv_open(&c, r->dir, name, err);
	if (rc == 0 && required)
		snprintf(err, 512, "%s: missing (is %s a run's results directory?)", c.path, r->dir);
	for (int i = 0; rc > 0 && i < n; i++)
		if (names[i][0] == '?')
			col[i] = csv_col(&c, names[i] + 1, err);
		else if ((col[i] = csv_col(&c, names[i], err)) < 0)
			rc = -1;
	while (rc > 0 && csv_next(&c))
		if (row(r, &c, col, err))
			rc = -1;
	csv_close(&c);
	return rc < 0 || (rc == 0 && required) ? -1 : rc;
}

/* Room for one more of arr's n: capacities are 64, then powers of two, so n
 * alone says when to grow. */
static int grow(void **arr, int n, size_t size)
{
	if (n && (n < 64 || (n & (n - 1))))
		return 0;
	void *a = reallocarray(*arr, n ? 2 * (size_t)n : 64, size);
	if (!a)
		return -1;
	*arr = a;
	return 0;
}
#define GROW(arr, n) grow((void **)&(arr), (n), sizeof *(arr))

static int oom(char err[512])
{
	snprintf(err, 512, "out of memory");
	return -1;
}

static int racks_seen(struct web_replay *r, int rack)
{
	if (rack >= 0 && rack < TOPO_MAX_RACKS && rack + 1 > r->racks)
		r->racks = rack + 1;
	return rack >= 0 && rack < TOPO_MAX_RACKS ? 0 : -1;
}

/* ---- ocs.csv ------------------------------------------------------------- */

/* "0>3 3>0 1-2@1" or "none" (ocs_log_event, circuits_format) */
static int parse_config(const char *s, struct circuit_cfg *cfg, int *ports)
{
	memset(cfg->out, 0xff, sizeof cfg->out);
	cfg->racks = TOPO_MAX_RACKS;
	cfg->ports = TOPO_MAX_PORTS;
	if (!strcmp(s, "none") || !*s)
		return 0;
	for (const char *p = s; *p;) {
		char *end, op;
		long a = strtol(p, &end, 10), b, port = 0;
		if (end == p || (*end != '>' && *end != '-'))
			return -1;
		op = *end;
		p = end + 1;
		b = strtol(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
		if (*p == '@') {
			port = strtol(p + 1, &end, 10);
			if (end == p + 1)
				return -1;
			p = end;
		}
		if (a < 0 || b < 0 || a >= TOPO_MAX_RACKS || b >= TOPO_MAX_RACKS || port < 0 || port >= TOPO_MAX_PORTS)
			return -1;
		cfg->out[port][a] = (int16_t)b;
		if (op == '-')
			cfg->out[port][b] = (int16_t)a;
		if (port + 1 > *ports)
			*ports = (int)port + 1;
		while (*p == ' ')
			p++;
	}
	return 0;
}

static int ocs_row(struct web_replay *r, struct csv *c, const int *col, char err[512])
{
	double v[6];
	if (nums(c, col, v, 6, err))
		return -1;
	if (GROW(r->ev, r->nev))
		return oom(err);
	struct rp_event *e = &r->ev[r->nev];
	*e = (struct rp_event){v[0], v[2], v[3], (int)v[1], (int64_t)v[4], (int64_t)v[5], {0, 0, {{0}}}};
	if (col[6] >= c->n || parse_config(c->fld[col[6]], &e->cfg, &r->ports)) {
		snprintf(err, 512, "%s:%ld: bad configuration", c->path, c->lineno);
		return -1;
	}
	for (int p = 0; p < TOPO_MAX_PORTS; p++)
		for (int k = 0; k < TOPO_MAX_RACKS; k++)
			if (e->cfg.out[p][k] >= 0) {
				racks_seen(r, k);
				racks_seen(r, e->cfg.out[p][k]);
			}
	r->nev++;
	return 0;
}

/* ---- links.csv ----------------------------------------------------------- */

static int link_id(struct web_replay *r, const struct web_link *l)
{
	for (int i = r->nlinks - 1; i >= 0; i--)   /* rows come in the links' order: a hit is near the end */
		if (r->links[i].rack == l->rack && r->links[i].server == l->server && r->links[i].port == l->port &&
		    !strcmp(r->links[i].cls, l->cls))
			return i;
	if (GROW(r->links, r->nlinks))
		return -1;
	r->links[r->nlinks] = *l;
	return r->nlinks++;
}

static int links_row(struct web_replay *r, struct csv *c, const int *col, char err[512])
{
	double v[9];
	if (nums(c, col, v, 9, err))
		return -1;
	const char *cls = c->fld[col[10]];
	struct web_link l = {.cls = !strcmp(cls, "server") ? "server" : !strcmp(cls, "eps") ? "eps" : "ocs",
			     .rack = (int)v[1], .server = (int)v[2], .port = (int)v[3], .tx_mbps = v[5],
			     .rx_mbps = v[6], .drops = (unsigned long long)v[7], .backlog = (unsigned long long)v[8]};
	snprintf(l.name, sizeof l.name, "%s", c->fld[col[9]]);
	if (racks_seen(r, l.rack)) {
		snprintf(err, 512, "%s:%ld: rack %d out of range", c->path, c->lineno, l.rack);
		return -1;
	}
	if (l.port + 1 > r->ports && l.port < TOPO_MAX_PORTS)
		r->ports = l.port + 1;
	int id = link_id(r, &l);
	if (id < 0 || GROW(r->rows, r->nrows))
		return oom(err);
	r->rows[r->nrows++] = (struct rp_link){id, v[0], (uint64_t)v[4], l};
	if (!r->nsamples || r->samples[r->nsamples - 1] < v[0]) {
		if (GROW(r->samples, r->nsamples))
			return oom(err);
		r->samples[r->nsamples++] = v[0];
	}
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct rp_link *x = a, *y = b;
	return x->link != y->link ? (x->link > y->link) - (x->link < y->link) : (x->t > y->t) - (x->t < y->t);
}

/* Each link's rows together, in time order. */
static int index_links(struct web_replay *r, char err[512])
{
	qsort(r->rows, r->nrows, sizeof *r->rows, cmp_row);
	if (!(r->first_row = calloc(r->nlinks + 1, sizeof *r->first_row)))
		return oom(err);
	for (int i = 0, k = 0; i <= r->nlinks; i++) {
		while (k < r->nrows && r->rows[k].link < i)
			k++;
		r->first_row[i] = k;
	}
	return 0;
}

/* ---- jobs.csv, tasks.csv, flows.csv ------------------------------------- */

static int jobs_row(struct web_replay *r, struct csv *c, const int *col, char err[512])
{
	double v[4];
	int n = r->njobs;
	if (nums(c, col, v, 4, err))
		return -1;
	if ((int)v[0] != n) {
		snprintf(err, 512, "%s:%ld: job %d out of order", c->path, c->lineno, (int)v[0]);
		return -1;
	}
	if (GROW(r->jobs, n) || GROW(r->job_names, n) || GROW(r->stage_names, n))
		return oom(err);
	snprintf(r->job_names[n], 32, "%s", c->fld[col[4]]);
	r->jobs[n] = (struct web_job){.submit = v[1], .end = v[3] ? v[2] : -1};
	r->njobs++;
	return 0;
}

/* A stage's index in its job by name, in order of first appearance (tasks
 * are numbered by stage); -1 when a job has too many. */
static int stage_index(struct web_replay *r, int job, const char *name)
{
	struct web_job *j = &r->jobs[job];
	for (int s = 0; s < j->nstages; s++)
		if (!strcmp(r->stage_names[job][s], name))
			return s;
	if (j->nstages == JOB_MAX_STAGES)
		return -1;
	snprintf(r->stage_names[job][j->nstages], 24, "%s", name);
	return j->nstages++;
}

static int tasks_row(struct web_replay *r, struct csv *c, const int *col, char err[512])
{
	double v[4];
	if (nums(c, col, v, 4, err))
		return -1;
	/* older results have no stage: map and reduce by kind */
	const char *state = col[4] < c->n ? c->fld[col[4]] : "",
		   *stage = c->fld[col[6] >= 0 && col[6] < c->n ? col[6] : col[5] < c->n ? col[5] : 0];
	int job = (int)v[0];
	if (job < 0 || job >= r->njobs || racks_seen(r, (int)v[1] < 0 ? 0 : (int)v[1])) {
		snprintf(err, 512, "%s:%ld: job or rack out of range", c->path, c->lineno);
		return -1;
	}
	if (GROW(r->tasks, r->ntasks))
		return oom(err);
	bool never = !strcmp(state, "pending");
	r->tasks[r->ntasks++] = (struct rp_task){job, stage_index(r, job, stage), (int)v[1], never ? -1 : v[2], v[3],
						 !strcmp(state, "done")};
	return 0;
}

static int flows_row(struct web_replay *r, struct csv *c, const int *col, char err[512])
{
	double v[7];
	if (nums(c, col, v, 7, err))
		return -1;
	if (!v[5] || v[0] == v[1] || v[0] < 0 || v[1] < 0 || v[0] >= TOPO_MAX_RACKS || v[1] >= TOPO_MAX_RACKS)
		return 0;
	if (GROW(r->flows, r->nflows))
		return oom(err);
	r->flows[r->nflows++] = (struct rp_flow){(int)v[0], (int)v[1], v[3], v[6] ? v[4] : INFINITY, (uint64_t)v[2]};
	return 0;
}

static int load_files(struct web_replay *r, char err[512])
{
	static const char *const jobs[] = {"job", "submit_s", "end_s", "finished", "name"},
				 *const tasks[] = {"job", "rack", "start_s", "end_s", "state", "kind", "?stage"},
				 *const links[] = {"t_s", "rack", "server", "port", "tx_bytes", "tx_mbps", "rx_mbps",
						   "drops", "backlog", "link", "class"},
				 *const ocs[] = {"t_s", "changed", "drain_s", "dark_s", "served_bytes", "demand_bytes",
						 "config"},
				 *const flows[] = {"src_rack", "dst_rack", "bytes", "start_s", "end_s", "circuit_eligible",
						   "done"};
	if (load_csv(r, "jobs.csv", true, jobs, 5, jobs_row, err) < 0)
		return -1;
	for (int j = 0; j < r->njobs; j++) {   /* the arrays have moved while they grew */
		r->jobs[j].name = r->job_names[j];
		for (int s = 0; s < JOB_MAX_STAGES; s++)
			r->jobs[j].stage_name[s] = r->stage_names[j][s];
	}
	if (load_csv(r, "tasks.csv", true, tasks, 7, tasks_row, err) < 0 ||
	    load_csv(r, "links.csv", true, links, 11, links_row, err) < 0 || index_links(r, err))
		return -1;
	int rc = load_csv(r, "ocs.csv", false, ocs, 7, ocs_row, err);
	r->ocs_on = rc > 0;
	return rc < 0 || load_csv(r, "flows.csv", false, flows, 7, flows_row, err) < 0 ? -1 : 0;
}

/* ---- summary.json -------------------------------------------------------- */

static int load_summary(struct web_replay *r, char err[512])
{
	char path[600];
	json_error_t je;
	snprintf(path, sizeof path, "%s/summary.json", r->dir);
	json_t *s = json_load_file(path, 0, &je);
	if (!s) {
		if (je.line > 0)
			snprintf(err, 512, "%s:%d: %s", path, je.line, je.text);
		else   /* not there: jansson's text names the path and the reason */
			snprintf(err, 512, "%s (is %s a run's results directory?)", je.text, r->dir);
		return -1;
	}
	json_t *f = json_object_get(s, "fidelity"), *p = json_object_get(s, "parameters");
	snprintf(r->scheduler, sizeof r->scheduler, "%s", json_string_value(json_object_get(s, "scheduler")) ?: "");
	snprintf(r->backend, sizeof r->backend, "%s", json_string_value(json_object_get(s, "backend")) ?: "");
	snprintf(r->topology, sizeof r->topology, "%s", json_string_value(json_object_get(p, "topology")) ?: "");
	snprintf(r->verdict, sizeof r->verdict, "%s", json_string_value(json_object_get(f, "verdict")) ?: "");
	snprintf(r->detail, sizeof r->detail, "%s", json_string_value(json_object_get(f, "detail")) ?: "");
	r->t_end = json_number_value(json_object_get(s, "run_s"));
	static const struct { const char *key; size_t off; } fid[] = {
		{"samples", offsetof(struct fidelity, samples)},
		{"standing_queue_link_samples", offsetof(struct fidelity, standing)},
		{"slow_link_samples", offsetof(struct fidelity, slow)},
		{"burst_link_samples", offsetof(struct fidelity, bursts)},
		{"dropping_link_samples", offsetof(struct fidelity, dropping)},
		{"paused_link_samples", offsetof(struct fidelity, paused)},
		{"cpu_saturated_samples", offsetof(struct fidelity, cpu_hot)},
		{"late_reconfigurations", offsetof(struct fidelity, late)},
	};
	for (size_t i = 0; i < sizeof fid / sizeof *fid; i++)
		*(unsigned long *)((char *)&r->fid + fid[i].off) =
			(unsigned long)json_integer_value(json_object_get(f, fid[i].key));
	json_decref(s);
	return 0;
}

int web_replay_load(struct web_replay *r, const char *dir, char err[512])
{
	memset(r, 0, sizeof *r);
	snprintf(r->dir, sizeof r->dir, "%s", dir);
	if (load_summary(r, err) || load_files(r, err)) {
		web_replay_free(r);
		return -1;
	}
	for (int i = 0; i < r->njobs; i++)   /* a run killed before summary.json's run_s: its last event */
		r->t_end = fmax(r->t_end, r->jobs[i].end);
	if (r->nsamples)
		r->t_end = fmax(r->t_end, r->samples[r->nsamples - 1]);
	return 0;
}

void web_replay_free(struct web_replay *r)
{
	free(r->ev);
	free(r->links);
	free(r->rows);
	free(r->first_row);
	free(r->samples);
	free(r->jobs);
	free(r->job_names);
	free(r->stage_names);
	free(r->tasks);
	free(r->flows);
	memset(r, 0, sizeof *r);
}

/* ---- the snapshot at t --------------------------------------------------- */

/* The last of n ascending values <= t, or -1 (stride: bytes between them). */
static int last_at(const void *base, int n, size_t stride, double t)
{
	int lo = 0, hi = n - 1, at = -1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (*(const double *)((const char *)base + (size_t)mid * stride) <= t)
			at = mid, lo = mid + 1;
		else
			hi = mid - 1;
	}
	return at;
}

static void ocs_at(const struct web_replay *r, double t, struct web_ocs *o)
{
	int e = last_at(&r->ev[0].t, r->nev, sizeof *r->ev, t);
	if (e >= 0) {
		for (int p = 0; p < r->ports; p++)
			for (int k = 0; k < r->racks; k++)
				o->lit.out[p][k] = r->ev[e].cfg.out[p][k];
		o->chosen = o->lit;
		o->served = r->ev[e].served;
		o->total = r->ev[e].demand;
		o->decisions = o->reconfigs = e + 1;
	}
	for (int i = e - WEB_DARK_KEEP + 1 < 0 ? 0 : e - WEB_DARK_KEEP + 1; i <= e; i++)
		web_ocs_dark(o, r->ev[i].t, r->ev[i].drain_s, r->ev[i].dark_s, r->ev[i].changed);
	for (int i = 0; i < r->nflows; i++) {
		const struct rp_flow *f = &r->flows[i];
		if (f->start <= t && t < f->end && f->src < r->racks && f->dst < r->racks)
			o->demand[(size_t)f->src * r->racks + f->dst] += (int64_t)f->bytes;
	}
}

json_t *web_replay_at(const struct web_replay *r, double t)
{
	t = fmin(fmax(t, 0), r->t_end);
	struct web_link *links = calloc(r->nlinks ? r->nlinks : 1, sizeof *links);
	struct web_job *jobs = calloc(r->njobs ? r->njobs : 1, sizeof *jobs);
	struct web_task *tasks = calloc(r->ntasks ? r->ntasks : 1, sizeof *tasks);
	struct web_ocs ocs;
	json_t *o = NULL;
	bool have_ocs = r->ocs_on && !web_ocs_init(&ocs, r->racks, r->ports);
	if (!links || !jobs || !tasks || (r->ocs_on && !have_ocs))
		goto out;
	struct web_view v = {.mode = "replay", .t = t, .t_end = r->t_end, .final = t >= r->t_end,
			     .scheduler = r->scheduler, .topology = r->topology, .backend = r->backend, .racks = r->racks,
			     .ocs = have_ocs ? &ocs : NULL, .links = links, .nlinks = r->nlinks, .jobs = jobs,
			     .njobs = r->njobs, .tasks = tasks, .ntasks = r->ntasks, .fid = &r->fid,
			     .verdict = r->verdict, .detail = r->detail};
	int sample = last_at(r->samples, r->nsamples, sizeof *r->samples, t);
	for (int i = 0; i < r->nlinks; i++) {
		const struct rp_link *rows = &r->rows[r->first_row[i]];
		int k = last_at(&rows[0].t, r->first_row[i + 1] - r->first_row[i], sizeof *rows, t);
		links[i] = r->links[i];
		bool now = k >= 0 && sample >= 0 && rows[k].t == r->samples[sample];
		links[i].tx_mbps = now ? rows[k].v.tx_mbps : 0;   /* no row: it sent nothing in that sample */
		links[i].rx_mbps = now ? rows[k].v.rx_mbps : 0;
		links[i].backlog = now ? rows[k].v.backlog : 0;
		links[i].drops = k >= 0 ? rows[k].v.drops : 0;
		uint64_t sent = k >= 0 ? rows[k].tx_bytes : 0;
		if (!strcmp(links[i].cls, "eps"))
			v.eps_bytes += sent;
		else if (!strcmp(links[i].cls, "ocs"))
			v.ocs_bytes += sent;
	}
	for (int j = 0; j < r->njobs; j++) {
		jobs[j] = r->jobs[j];
		if (jobs[j].end > t)
			jobs[j].end = -1;
	}
	for (int i = 0; i < r->ntasks; i++) {
		const struct rp_task *k = &r->tasks[i];
		enum web_task_state s = k->start < 0 || k->start > t ? WEB_PENDING
					: k->done && k->end <= t   ? WEB_DONE
								   : WEB_RUNNING;
		tasks[i] = (struct web_task){k->job, k->stage, k->rack, k->start, k->end, s};
	}
	if (have_ocs)
		ocs_at(r, t, &ocs);
	o = web_view_json(&v);
out:
	if (have_ocs)
		web_ocs_free(&ocs);
	free(links);
	free(jobs);
	free(tasks);
	return o;
}

char *web_replay_json(void *arg, double t)
{
	json_t *o = web_replay_at(arg, t);
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}
