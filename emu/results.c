/* results.c — results/<experiment>/<scheduler>/<run>/: summary.json,
 * jobs.csv, tasks.csv, flows.csv, ocs.csv, links.csv.  Every file is
 * written as NAME.tmp and renamed, so a crash never leaves a half-written
 * one; a run that stopped early says "partial": true. */
#include "emu/run_int.h"
#include "netctl/hosts.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int mkdirs(const char *path)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

static FILE *open_tmp(struct run *r, const char *name);

/* flows.csv (unless --no-flows) and preemptions.csv are written as things happen. */
static int open_flows(struct run *r, char err[512])
{
	r->preemptions_csv = open_tmp(r, "preemptions.csv");
	if (r->preemptions_csv && !r->p.no_flows)
		r->flows_csv = open_tmp(r, "flows.csv");
	if (!r->preemptions_csv || (!r->p.no_flows && !r->flows_csv)) {
		snprintf(err, 512, "%s/%s.tmp: %s", r->dir, r->preemptions_csv ? "flows.csv" : "preemptions.csv", strerror(errno));
		return -1;
	}
	fprintf(r->preemptions_csv, "t_s,task,job,stage,index,server,op\n");
	if (r->flows_csv) {
		setvbuf(r->flows_csv, NULL, _IOFBF, 1 << 20);   /* a line per transfer, gigabytes at paper scale: few large writes */
		fprintf(r->flows_csv, "flow,kind,job,task,src,dst,src_rack,dst_rack,bytes,start_s,moved_s,end_s,circuit_eligible,done\n");
		if (!(r->flow_log = flow_log_open(r->flows_csv))) {
			snprintf(err, 512, "%s/flows.csv.tmp: out of memory", r->dir);
			return -1;
		}
	}
	return 0;
}

int results_prepare(struct run *r, char err[512])
{
	char name[64], parent[512];
	snprintf(parent, sizeof parent, "%s/%s/%s", r->p.results_root, r->p.experiment, r->p.scheduler);
	if (mkdirs(parent)) {
		snprintf(err, 512, "%s: %s", parent, strerror(errno));
		return -1;
	}
	if (r->p.run_name) {
		/* An explicit name is the caller's: reuse the directory. */
		snprintf(r->dir, sizeof r->dir, "%s/%s", parent, r->p.run_name);
		if (mkdir(r->dir, 0755) && errno != EEXIST) {
			snprintf(err, 512, "%s: %s", r->dir, strerror(errno));
			return -1;
		}
		return open_flows(r, err);
	}
	/* A timestamp, made unique: two runs started in the same second (two
	 * prefixes side by side) must never share a directory. */
	time_t now = time(NULL);
	strftime(name, sizeof name, "%Y%m%d-%H%M%S", localtime(&now));
	for (int k = 1; k < 1000; k++) {
		if (k == 1)
			snprintf(r->dir, sizeof r->dir, "%s/%s", parent, name);
		else
			snprintf(r->dir, sizeof r->dir, "%s/%s-%d", parent, name, k);
		if (!mkdir(r->dir, 0755))
			return open_flows(r, err);
		if (errno != EEXIST)
			break;
	}
	snprintf(err, 512, "%s: %s", r->dir, strerror(errno));
	return -1;
}

static FILE *open_tmp(struct run *r, const char *name)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s.tmp", r->dir, name);
	return fopen(path, "w");
}

static int commit(struct run *r, const char *name, FILE *f)
{
	char tmp[600], path[600];
	int bad = f ? (ferror(f) | fclose(f)) : -1;
	snprintf(tmp, sizeof tmp, "%s/%s.tmp", r->dir, name);
	snprintf(path, sizeof path, "%s/%s", r->dir, name);
	if (bad || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double quantile(const double *sorted, int n, double q)
{
	if (!n)
		return 0;
	double pos = q * (n - 1);
	int i = (int)pos;
	return i + 1 < n ? sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]) : sorted[i];
}

static int write_jobs(struct run *r)
{
	FILE *f = open_tmp(r, "jobs.csv");
	if (!f)
		return -1;
	fprintf(f, "job,name,submit_s,start_s,end_s,jct_s,maps,reduces,input_bytes,shuffle_bytes,output_bytes,"
		   "recurring,finished,cross_rack_bytes\n");
	for (int i = 0; i < r->w->njobs; i++) {
		const struct job *j = &r->w->jobs[i];
		bool fin = r->c.arrived[i] && cluster_job_finished(j);
		fprintf(f, "%d,%s,%.3f,%.3f,%.3f,%.3f,%d,%d,%llu,%llu,%llu,%d,%d,%llu\n", i, j->name, j->submit_s,
			j->t_start, fin ? j->t_end : -1.0, fin ? j->t_end - j->submit_s : -1.0, j->nmaps, j->nreduces,
			(unsigned long long)j->input_bytes, (unsigned long long)j->shuffle_bytes,
			(unsigned long long)j->output_bytes, j->recurring, fin,
			(unsigned long long)r->c.job_xrack_bytes[i]);
	}
	return commit(r, "jobs.csv", f);
}

static int write_tasks(struct run *r)
{
	FILE *f = open_tmp(r, "tasks.csv");
	if (!f)
		return -1;
	fprintf(f, "task,job,kind,index,server,rack,attempts,start_s,end_s,duration_s,data_local,rack_local,state,stage,"
		   "kills,suspends\n");
	for (int i = 0; i < r->w->ntasks; i++) {
		const struct task *t = &r->w->tasks[i];
		fprintf(f, "%d,%d,%s,%d,%d,%d,%d,%.3f,%.3f,%.3f,%d,%d,%s,%s,%d,%d\n", i, t->job,
			t->kind == TASK_MAP ? "map" : "reduce",
			t->index, t->server, t->server >= 0 ? cluster_rack_of(&r->c, t->server) : -1, t->attempts, t->t_start,
			t->t_end, t->duration_s, t->data_local, t->rack_local,
			t->state == TASK_DONE ? "done" : t->state == TASK_RUNNING ? "running" :
			t->state == TASK_SUSPENDED ? "suspended" : "pending",
			r->w->jobs[t->job].stages[t->stage].name, t->kills, t->suspends);
	}
	return commit(r, "tasks.csv", f);
}

/* Each fetch class's key in summary.json and its label in the printed summary. */
static const char *const fetch_class_names[FETCH_CLASSES][2] = {
	[FETCH_IN_RACK] = {"in_rack", "fetch, in a rack"},
	[FETCH_EPS] = {"eps", "fetch, over the EPS"},
	[FETCH_CIRCUIT] = {"circuit_eligible", "fetch, circuit-eligible"},
};

/* The topology's kinds of server: how many, link, what each holds, speed. */
static json_t *classes_json(const struct topo *t)
{
	json_t *a = json_array();
	for (int i = 0; i < t->nclasses; i++) {
		const struct topo_class *k = &t->cls[i];
		json_t *o = json_pack("{s:s,s:i,s:f,s:f,s:f}", "name", k->name, "servers", topo_class_servers(t, i),
				      "rate_bps", (double)k->rx.rate, "tx_rate_bps", (double)k->tx.rate, "speed", k->speed);
		if (k->containers)
			json_object_set_new(o, "containers", json_integer(k->containers));
		else
			json_object_update_new(o, json_pack("{s:f,s:I,s:f}", "cores", k->cores, "memory_bytes",
							     (json_int_t)k->memory, "disk_mbps", k->disk_mbps));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *params_json(const struct run *r)
{
	const struct workload_params *w = &r->w->params;
	json_t *o = json_pack("{s:s,s:s,s:f,s:I,s:s,s:f,s:f,s:f,s:s,s:f,s:i,s:I,s:f,s:f,s:f,s:I,s:I,s:f,s:s,s:f,s:f,s:f}",
			 "topology", r->t->name, "scheduler", r->p.scheduler, "slowstart", r->p.slowstart,
			 "elephant_bytes", (json_int_t)r->p.elephant_bytes, "ocs_mode", r->p.hold ? "hold" : "fallback",
			 "ocs_interval_s", r->p.ocs.interval_s, "ocs_delta_s", r->p.ocs.delta_s, "ocs_guard_s",
			 r->p.ocs.guard_s, "ocs_dark_scope", r->p.ocs.scope == OCS_DARK_ALL ? "all" : "changed",
			 "heartbeat_s", r->p.heartbeat_s, "copiers", r->p.copiers, "seed", (json_int_t)r->p.seed,
			 "data_scale", w->data_scale, "time_scale", w->time_scale, "rate_scale", r->t->rate_scale,
			 "block_size", (json_int_t)w->block_size, "bytes_per_reduce", (json_int_t)w->bytes_per_reduce,
			 "time_floor_s", w->time_floor_s, "workload", r->w->source, "server_rate_bps",
			 (double)r->t->cls[0].rx.rate, "uplink_rate_bps", (double)r->t->uplink.rate, "ocs_rate_bps",
			 r->t->ocs ? (double)r->t->optical.rate : 0.0);
	json_object_set_new(o, "server_tx_rate_bps", json_real((double)r->t->cls[0].tx.rate));
	json_object_set_new(o, "server_classes", classes_json(r->t));
	json_object_set_new(o, "backend", json_string(r->be->name));
	json_object_set_new(o, "ocs_reconfig", json_string(r->p.ocs.early ? "early" : "periodic"));
	json_object_set_new(o, "min_shuffle_bytes", json_integer((json_int_t)w->min_shuffle));
	json_object_set_new(o, "max_maps", json_integer(w->max_maps));
	json_object_set_new(o, "monitor_s", json_real(r->p.monitor_s));
	json_object_set_new(o, "visibility", json_string(r->p.semi_clairvoyant ? "semi-clairvoyant" : "clairvoyant"));
	json_object_set_new(o, "output_replicas", json_integer(r->p.output_replicas));
	json_object_set_new(o, "recovery_s", json_real(r->p.recovery_s));
	json_object_set_new(o, "flows_csv", json_boolean(!r->p.no_flows));
	if (!r->be->wallclock)
		json_object_set_new(o, "sim_quantum_s", json_real(r->p.sim_quantum_s));
	else {
		json_object_set_new(o, "stall_timeout_s", json_real(r->p.stall_timeout_s));
		json_object_set_new(o, "stall_retries", json_integer(r->p.stall_retries));
		json_object_set_new(o, "slowdown", json_real(r->p.slowdown));
		if (r->p.hosts) {   /* the fabric over emulated hosts: their names, in the file's order */
			json_t *h = json_array();
			for (int i = 0; i < r->p.hosts->n; i++)
				json_array_append_new(h, json_string(r->p.hosts->h[i].name));
			json_object_set_new(o, "hosts", h);
		}
	}
	return o;
}

/* How late the machine ended the tasks that are all compute (node-local
 * maps, first attempts, on a server without disk rates: emu/disk.h): their
 * time from start to end past their compute duration.  No network or disk
 * moves their bytes, so this is the lag of the agents and the controller,
 * woken late to start the task, to fire its timer and to take its report.
 * Two busy cores left a JobPacker batch's maps ~50 ms late on average, 11%
 * of their compute, and ~20 ms at --slowdown 2.  NULL on a simulated run
 * (on time by construction) or one without such a task. */
static json_t *task_lateness_json(const struct run *r)
{
	if (!r->be->wallclock)
		return NULL;
	double *late = malloc((r->w->ntasks ? r->w->ntasks : 1) * sizeof *late), compute = 0, sum = 0;
	int n = 0;
	if (!late)
		return NULL;
	for (int i = 0; i < r->w->ntasks; i++) {
		const struct task *t = &r->w->tasks[i];
		const struct topo_class *k = t->server >= 0 ? &r->t->cls[r->c.servers[t->server].cls] : NULL;
		bool disk = k && (k->disk_read_mbps > 0 || k->disk_write_mbps > 0);
		if (t->kind == TASK_MAP && t->state == TASK_DONE && t->data_local && t->attempts == 1 && !disk) {
			late[n] = t->t_end - t->t_start - t->duration_s;
			sum += late[n++];
			compute += t->duration_s;
		}
	}
	json_t *o = NULL;
	if (n) {
		qsort(late, n, sizeof *late, cmp_double);
		o = json_pack("{s:i,s:f,s:f,s:f,s:f}", "tasks", n, "mean_s", sum / n, "p90_s", quantile(late, n, 0.9),
			      "max_s", late[n - 1], "share_of_compute", compute > 0 ? sum / compute : 0.0);
	}
	free(late);
	return o;
}

int results_write(struct run *r)
{
	int n = r->w->njobs, fin = 0, maps = 0, node_local = 0, rack_local = 0;
	double *jct = calloc(n ? n : 1, sizeof *jct), first = INFINITY, last = 0, sum = 0;
	if (!jct)
		return -1;
	for (int i = 0; i < n; i++) {
		const struct job *j = &r->w->jobs[i];
		if (j->submit_s < first)
			first = j->submit_s;
		if (!r->c.arrived[i] || !cluster_job_finished(j))
			continue;
		jct[fin++] = j->t_end - j->submit_s;
		sum += j->t_end - j->submit_s;
		if (j->t_end > last)
			last = j->t_end;
	}
	qsort(jct, fin, sizeof *jct, cmp_double);
	double jct_med = quantile(jct, fin, 0.5), jct_p95 = quantile(jct, fin, 0.95);
	free(jct);
	for (int i = 0; i < r->w->ntasks; i++) {
		const struct task *t = &r->w->tasks[i];
		if (t->kind != TASK_MAP || t->state != TASK_DONE)
			continue;
		maps++;
		node_local += t->data_local;
		rack_local += t->rack_local && !t->data_local;
	}
	/* Measured on the fabric (link layer, seen at the ToRs). */
	uint64_t eps = 0, ocs = 0, marked = 0, intra = 0;
	for (int i = 0; i < r->nlinks; i++) {
		const struct link_stats *b = &r->base[i], *l = &r->last[i];
		if (l->cls == LINK_UPLINK) {
			eps += l->tx_bytes - b->tx_bytes;
			marked += l->marked_tx_bytes - b->marked_tx_bytes;
		} else if (l->cls == LINK_OPTICAL) {
			ocs += l->tx_bytes - b->tx_bytes;
		} else {
			intra += l->rx_bytes - b->rx_bytes;   /* everything servers sent */
		}
	}
	/* What the agents moved (payload), recorded as transfers finished. */
	xfer_flush(r);
	const struct xfer_totals *tt = &r->totals;
	uint64_t shuffle_net = tt->shuffle_net, shuffle_xrack = tt->shuffle_xrack, shuffle_local = tt->shuffle_local,
		 input_net = tt->input_net, input_xrack = tt->input_xrack, circuit = tt->circuit_xrack;
	uint64_t reported_xrack = shuffle_xrack + input_xrack;
	/* Account for what the fabric carries besides payload: every 1448-byte
	 * segment travels in a 1514-byte frame (Ethernet + IP + TCP with
	 * timestamps), and the reverse direction's ACKs (one 66-byte frame per
	 * two segments, delayed ACKs) cross the uplinks too.  What remains is
	 * retransmissions and connection setup. */
	double headers = (double)reported_xrack * (1514.0 / 1448.0 - 1.0);
	double acks = (double)reported_xrack / (2.0 * 1448.0) * 66.0;
	double residual = (double)(eps + ocs) - (double)reported_xrack - headers - acks;
	struct rusage self, kids;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);   /* the agents, once reaped */
	double ctl_cpu = self.ru_utime.tv_sec + self.ru_utime.tv_usec * 1e-6 + self.ru_stime.tv_sec +
			 self.ru_stime.tv_usec * 1e-6;
	double agent_cpu = kids.ru_utime.tv_sec + kids.ru_utime.tv_usec * 1e-6 + kids.ru_stime.tv_sec +
			   kids.ru_stime.tv_usec * 1e-6;
	double moved_gbit = (double)(shuffle_net + input_net) * 8 / 1e9;
	double makespan = fin ? last - (first == INFINITY ? 0 : first) : 0;
	char why[256] = "";
	const char *verdict = r->be->wallclock ? fidelity_verdict(&r->fid, why, sizeof why) : "simulated";
	json_t *sum_j = json_pack(
		"{s:s,s:s,s:s,s:b,s:s,s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:I,s:I,s:I,s:f,s:I,s:I,s:o,s:f,s:o,s:o,s:o,s:i,s:o,s:o,s:o}",
		"experiment", r->p.experiment, "scheduler", r->p.scheduler, "results", r->dir, "partial", r->partial,
		"stop_reason", r->stop_reason ? r->stop_reason : "", "jobs", n, "jobs_finished", fin, "makespan_s",
		makespan, "jct_mean_s", fin ? sum / fin : 0.0, "jct_median_s", jct_med, "jct_p95_s", jct_p95, "throughput_jobs_per_s", makespan > 0 ? fin / makespan : 0.0,
		"wall_s", run_wall() - r->wall_start, "cross_rack_bytes", (json_int_t)(eps + ocs), "eps_bytes", (json_int_t)eps,
		"ocs_bytes", (json_int_t)ocs, "ocs_share", eps + ocs ? (double)ocs / (double)(eps + ocs) : 0.0,
		"marked_eps_bytes", (json_int_t)marked, "server_tx_bytes", (json_int_t)intra, "agent_bytes",
		json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "shuffle_network", (json_int_t)shuffle_net, "shuffle_cross_rack",
			  (json_int_t)shuffle_xrack, "shuffle_local", (json_int_t)shuffle_local, "input_network",
			  (json_int_t)input_net, "input_cross_rack", (json_int_t)input_xrack, "circuit_eligible_cross_rack",
			  (json_int_t)circuit, "shuffle_discarded", (json_int_t)tt->shuffle_discarded),
		"measured_over_reported_cross_rack", reported_xrack ? (double)(eps + ocs) / (double)reported_xrack : 0.0,
		"cross_rack_accounting",
		json_pack("{s:I,s:f,s:f,s:f,s:f}", "payload", (json_int_t)reported_xrack, "headers", headers, "acks", acks,
			  "residual", residual, "residual_share", reported_xrack ? residual / (double)reported_xrack : 0.0),
		"cpu", json_pack("{s:f,s:f,s:f}", "controller_s", ctl_cpu, "agents_s", agent_cpu, "per_gbit_moved_s",
				 moved_gbit > 0 ? (ctl_cpu + agent_cpu) / moved_gbit : 0.0),
		"locality", json_pack("{s:i,s:f,s:f}", "maps", maps, "node_local", maps ? (double)node_local / maps : 0.0,
				      "rack_local", maps ? (double)rack_local / maps : 0.0),
		"task_reruns", r->reruns,
		"fidelity", json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "verdict", verdict, "detail", why, "samples",
				      (json_int_t)r->fid.samples, "standing_queue_link_samples", (json_int_t)r->fid.standing,
				      "slow_link_samples", (json_int_t)r->fid.slow, "burst_link_samples",
				      (json_int_t)r->fid.bursts, "dropping_link_samples",
				      (json_int_t)r->fid.dropping, "paused_link_samples", (json_int_t)r->fid.paused,
				      "cpu_saturated_samples", (json_int_t)r->fid.cpu_hot,
				      "softnet_dropped", (json_int_t)r->fid.softnet_dropped, "late_reconfigurations",
				      (json_int_t)r->fid.late),
		"ocs", json_pack("{s:b,s:I}", "enabled", r->ocs_on, "reconfigurations",
				 (json_int_t)(r->ocs_on ? r->ocs.reconfigs : 0)),
		"parameters", params_json(r));
	json_t *fetch_j = json_object();
	for (int k = 0; k < FETCH_CLASSES; k++) {
		const struct fetch_time *f = &tt->fetch[k];
		json_object_set_new(fetch_j, fetch_class_names[k][0],
				    json_pack("{s:I,s:f,s:f}", "fetches", (json_int_t)f->n, "wait_mean_s",
					      f->n ? f->wait_s / f->n : 0.0, "move_mean_s", f->n ? f->move_s / f->n : 0.0));
	}
	json_object_set_new(sum_j, "fetch_time", fetch_j);
	json_t *late_j = task_lateness_json(r);
	if (late_j)
		json_object_set_new(json_object_get(sum_j, "fidelity"), "task_lateness", late_j);
	json_object_set_new(sum_j, "backend", json_string(r->be->name));
	/* "scheduler" is the name given, perhaps an alias: the policy it ran and every option's value. */
	json_object_set_new(sum_j, "scheduler_policy", json_string(r->s.ops->name));
	json_object_set_new(sum_j, "scheduler_options", sched_opts_json(r->s.ops, r->s.opts));
	json_object_set_new(sum_j, "run_s", json_real(run_now(r)));
	if (r->be->summary)
		json_object_set_new(sum_j, r->be->name, r->be->summary(r));
	json_object_set_new(sum_j, "congestion",
			    json_pack("{s:f,s:I}", "threshold", 0.8, "rack_samples", (json_int_t)r->congested_samples));
	json_object_set_new(sum_j, "preemptions", json_pack("{s:I,s:I}", "kills", (json_int_t)r->kills, "suspends",
								 (json_int_t)r->suspends));
	int disordered = 0;
	for (int i = 0; i < r->w->ntasks; i++)
		disordered += r->w->tasks[i].disorders > 0;
	/* The core-seconds held by tasks waiting for their parents, and their
	 * share of the cluster's over the run (what disorder costs a policy). */
	double cores = 0;
	for (int s = 0; s < r->c.nservers; s++)
		cores += r->c.servers[s].cap.v[RES_CORES] == RES_UNLIMITED ? INFINITY
									  : r->c.servers[s].cap.v[RES_CORES] / 1000.0;
	double held_of = cores * run_now(r);
	json_object_set_new(sum_j, "disorders",
			    json_pack("{s:I,s:i,s:I,s:f,s:f}", "starts", (json_int_t)r->disorders, "tasks", disordered,
				      "deadlock_breaks", (json_int_t)r->deadlock_breaks, "hold_core_s", r->hold_core_s,
				      "hold_share", held_of > 0 && isfinite(held_of) ? r->hold_core_s / held_of : 0.0));
	int rc = write_jobs(r) | write_tasks(r);
	flow_log_close(r->flow_log);   /* its last lines into flows_csv */
	r->flow_log = NULL;
	rc |= (r->flows_csv && commit(r, "flows.csv", r->flows_csv)) | commit(r, "preemptions.csv", r->preemptions_csv);
	r->flows_csv = r->preemptions_csv = NULL;
	/* summary.json says the run's results are there: not when one is missing
	 * (a full disk once left runs with a summary and no jobs.csv, which the
	 * experiment scripts took for complete). */
	FILE *f = rc ? NULL : open_tmp(r, "summary.json");
	if (f && sum_j)
		json_dumpf(sum_j, f, JSON_INDENT(2));
	if (f)
		fputc('\n', f);
	rc |= commit(r, "summary.json", f);
	if (!r->p.quiet && sum_j) {
		printf("\n%-28s %s%s\n", "results", r->dir, r->partial ? "  (PARTIAL)" : "");
		printf("%-28s %d / %d\n", "jobs finished", fin, n);
		printf("%-28s %.2f s\n", "makespan", makespan);
		printf("%-28s %.2f / %.2f / %.2f s\n", "JCT mean / median / p95", fin ? sum / fin : 0.0, jct_med,
		       jct_p95);
		printf("%-28s %.1f MB (EPS %.1f MB, OCS %.1f MB: %.1f%% on circuits)\n", "cross-rack bytes",
		       (eps + ocs) / 1e6, eps / 1e6, ocs / 1e6, eps + ocs ? 100.0 * ocs / (eps + ocs) : 0.0);
		if (r->ocs_on) {
			printf("%-28s %.1f MB of cross-rack shuffle (transfers over %.2f MB)\n", "circuit-eligible",
			       circuit / 1e6, r->p.elephant_bytes / 1e6);
			printf("%-28s %llu (every %g s, %s)\n", "OCS reconfigurations", (unsigned long long)r->ocs.reconfigs,
			       r->p.ocs.interval_s, r->p.ocs.early ? "or early once a waiting pair can be lit" : "periodic");
		}
		for (int k = 0; k < FETCH_CLASSES; k++)
			if (tt->fetch[k].n)
				printf("%-28s %.3f s waiting, %.3f s moving (mean of %llu)\n", fetch_class_names[k][1],
				       tt->fetch[k].wait_s / tt->fetch[k].n, tt->fetch[k].move_s / tt->fetch[k].n,
				       (unsigned long long)tt->fetch[k].n);
		printf("%-28s %.1f%% node-local, %.1f%% rack-local\n", "map locality",
		       maps ? 100.0 * node_local / maps : 0.0, maps ? 100.0 * rack_local / maps : 0.0);
		printf("%-28s %s%s%s\n", "fidelity", verdict, *why ? ": " : "", why);
		if (late_j)
			printf("%-28s %.0f ms past their compute, mean (%.1f%% of it)\n", "node-local maps ended",
			       1e3 * json_real_value(json_object_get(late_j, "mean_s")),
			       100 * json_real_value(json_object_get(late_j, "share_of_compute")));
		json_t *tcp_j = json_object_get(json_object_get(sum_j, r->be->name), "tcp");
		if (tcp_j)
			printf("%-28s %lld SYNs sent again, %lld retransmission timeouts, %lld delayed ACKs\n",
			       "TCP on the servers", (long long)json_integer_value(json_object_get(tcp_j, "syn_retransmits")),
			       (long long)json_integer_value(json_object_get(tcp_j, "timeouts")),
			       (long long)json_integer_value(json_object_get(tcp_j, "delayed_acks")));
		json_t *caps_j = json_object_get(json_object_get(sum_j, r->be->name), "captures");
		for (size_t i = 0; i < json_array_size(caps_j); i++) {
			json_t *c = json_array_get(caps_j, i);
			const char *file = json_string_value(json_object_get(c, "file"));
			char label[64];
			snprintf(label, sizeof label, "capture %s:%s", json_string_value(json_object_get(c, "host")),
				 json_string_value(json_object_get(c, "iface")));
			if (file && *file)
				printf("%-28s %s: %lld packets, %lld dropped by the kernel\n", label, file,
				       (long long)json_integer_value(json_object_get(c, "packets")),
				       (long long)json_integer_value(json_object_get(c, "dropped")));
			else
				printf("%-28s failed, no file: %s\n", label, json_string_value(json_object_get(c, "error")));
		}
	}
	json_decref(sum_j);
	return rc ? -1 : 0;
}
