/* monitor.c — the network monitor: link counters every sample (1 s by
 * default, links.csv), each rack's cross-rack utilisation for the
 * schedulers (cluster.rack_util_*) and congestion counts, the fidelity
 * check's samples (fidelity.c), and the progress line. */
#include "emu/csv_num.h"
#include "emu/run_int.h"
#include "emu/web/live.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A rack whose uplink ran at this share of its rate in either direction
 * over a sample is congested (the dissertation's CongestionThreshold). */
#define CONGESTED 0.8

static const char *class_name(enum link_class c)
{
	return c == LINK_SERVER ? "server" : c == LINK_UPLINK ? "eps" : "ocs";
}

/* What the ToR sends at on the link: a server link's is its class's rate. */
/* A links.csv line: a line per link and sample, millions at paper scale. */
static void write_link(FILE *f, double now, const struct link_stats *l, const struct link_stats *base, double tx,
		       double rx)
{
	char line[256], *p = line;
	p = csv_fixed3(p, now);
	p = csv_str(p, ",tor");
	p = csv_int(p, l->rack);
	p = csv_str(p, l->cls == LINK_SERVER ? "-h" : l->cls == LINK_UPLINK ? "-up" : "-o");
	p = csv_int(p, l->cls == LINK_SERVER ? l->server : l->cls == LINK_OPTICAL ? l->port : 0);
	*p++ = ',';
	p = csv_str(p, class_name(l->cls));
	const long long ints[] = {l->rack, l->cls == LINK_SERVER ? l->server : -1, l->cls == LINK_OPTICAL ? l->port : -1,
				  (long long)(l->tx_bytes - base->tx_bytes), (long long)(l->rx_bytes - base->rx_bytes)};
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		*p++ = ',';
		p = csv_int(p, ints[i]);
	}
	*p++ = ',';
	p = csv_fixed3(p, tx / 1e6);
	*p++ = ',';
	p = csv_fixed3(p, rx / 1e6);
	const long long tail[] = {(long long)l->drops, l->backlog, (long long)l->marked_tx_bytes};
	for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++) {
		*p++ = ',';
		p = csv_int(p, tail[i]);
	}
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), f);
}

static uint64_t capacity(const struct run *r, const struct link_stats *l)
{
	if (l->cls == LINK_SERVER)
		return topo_server_class(r->t, l->rack, l->server)->rx.rate;
	return l->cls == LINK_UPLINK ? r->t->uplink.rate : r->t->optical.rate;
}

/* Busy share of all CPUs since the last call, from /proc/stat.  Time of
 * niced processes (nice > 0, /proc/stat's second column) counts as free:
 * they give way to the emulator's, which run at nice 0 or below, so a
 * niced build beside a run does not make it machine-limited. */
static double cpu_busy(struct run *r)
{
	FILE *f = fopen("/proc/stat", "r");
	unsigned long long v[10] = {0};
	if (!f)
		return 0;
	int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		       &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	fclose(f);
	if (n < 4)
		return 0;
	unsigned long long total = 0, idle = v[3] + v[4] + v[1];
	for (int i = 0; i < 8; i++)
		total += v[i];
	unsigned long long busy = total - idle;
	double share = 0;
	if (r->cpu_prev_total && total > r->cpu_prev_total)
		share = (double)(busy - r->cpu_prev_busy) / (double)(total - r->cpu_prev_total);
	r->cpu_prev_busy = busy;
	r->cpu_prev_total = total;
	return share;
}

int monitor_open(struct run *r)
{
	char path[600];
	snprintf(path, sizeof path, "%s/links.csv.tmp", r->dir);
	r->links_csv = fopen(path, "w");
	if (r->links_csv)
		setvbuf(r->links_csv, NULL, _IOFBF, 1 << 20);   /* few large writes */
	if (!r->links_csv)
		return -1;
	fprintf(r->links_csv, "t_s,link,class,rack,server,port,tx_bytes,rx_bytes,tx_mbps,rx_mbps,drops,backlog,"
			      "marked_tx_bytes\n");
	if (r->be->stats(r, &r->base, &r->nlinks))
		return -1;
	r->last = malloc(r->nlinks * sizeof *r->last);
	r->drops_before = malloc(r->nlinks * sizeof *r->drops_before);
	r->changes_seen = calloc(r->c.racks, sizeof *r->changes_seen);
	r->recheck = malloc(r->nlinks * sizeof *r->recheck);
	if (!r->last || !r->drops_before || !r->changes_seen || !r->recheck)
		return -1;
	memcpy(r->last, r->base, r->nlinks * sizeof *r->last);
	for (int i = 0; i < r->nlinks; i++)
		r->drops_before[i] = r->base[i].drops;
	r->last_sample = run_now(r);
	if (r->be->wallclock) {
		cpu_busy(r);
		r->fid.softnet_base = fidelity_softnet_drops(SOFTNET_STAT);
	}
	return 0;
}

static void progress(struct run *r, bool final)
{
	double now = run_now(r);
	int jobs_done = 0, running = 0;
	for (int i = 0; i < r->w->njobs; i++) {
		struct job *j = &r->w->jobs[i];
		jobs_done += cluster_job_finished(j) && r->c.arrived[i];
		running += j->maps_running + j->reduces_running;
	}
	uint64_t eps = 0, ocs = 0;
	for (int i = 0; i < r->nlinks; i++) {
		if (r->last[i].cls == LINK_UPLINK)
			eps += r->last[i].tx_bytes - r->base[i].tx_bytes;
		else if (r->last[i].cls == LINK_OPTICAL)
			ocs += r->last[i].tx_bytes - r->base[i].tx_bytes;
	}
	/* Paced and estimated in wall time: a simulated second takes far less. */
	double wall = run_wall(), spent = wall - r->wall_start;
	char eta[32] = "--";
	if (r->tasks_done > 0 && r->tasks_done < r->w->ntasks)
		snprintf(eta, sizeof eta, "%.0fs", spent * (r->w->ntasks - r->tasks_done) / r->tasks_done);
	bool tty = isatty(2);
	if (!final && wall - r->last_progress < (tty ? 0.5 : 10))
		return;
	r->last_progress = wall;
	fprintf(stderr, "%s[%5.0fs] jobs %d/%d  tasks %d/%d (running %d)  cross-rack EPS %.1f MB, OCS %.1f MB  ETA %s%s",
		tty ? "\r\033[K" : "", now, jobs_done, r->w->njobs, r->tasks_done, r->w->ntasks, running, eps / 1e6,
		ocs / 1e6, final ? "0s" : eta, tty && !final ? "" : "\n");
}

/* Whether the network paused link i's senders since the last sample: its
 * queue dropped in the interval before (RTOs run into this one), or its
 * rack's circuits were reconfigured (server and optical links; hold mode
 * pauses the senders for the dark time).  See fidelity.c. */
static bool senders_paused(const struct run *r, int i, const struct link_stats *l, const unsigned long *changes)
{
	if (r->last[i].drops != r->drops_before[i])
		return true;
	return r->ocs_on && l->cls != LINK_UPLINK && l->rack >= 0 && l->rack < r->c.racks &&
	       changes[l->rack] != r->changes_seen[l->rack];
}

void monitor_sample(struct run *r, bool final)
{
	struct link_stats *cur;
	int n;
	double now = run_now(r), dt = now - r->last_sample, wait = 0;
	if (dt <= 0 || r->be->stats(r, &cur, &n) || n != r->nlinks)
		return;
	r->nrecheck = 0;   /* a recheck the loop did not reach in time (it is due well before this sample) */
	r->recheck_at = 0;
	r->fid.samples++;
	/* One snapshot of the controller's per-rack counts for every link of
	 * this sample, and the baseline for the next one. */
	unsigned long changes[r->c.racks > 0 ? r->c.racks : 1];
	for (int k = 0; k < r->c.racks; k++)
		changes[k] = r->ocs_on ? ocs_rack_changes(&r->ocs, k) : 0;
	if (r->be->wallclock) {
		fidelity_cpu(&r->fid, cpu_busy(r));
		fidelity_softnet(&r->fid, fidelity_softnet_drops(SOFTNET_STAT));
	}
	for (int i = 0; i < n; i++) {
		const struct link_stats *l = &cur[i], *p = &r->last[i];
		double tx = (double)(l->tx_bytes - p->tx_bytes) * 8 / dt, rx = (double)(l->rx_bytes - p->rx_bytes) * 8 / dt;
		if (l->cls == LINK_UPLINK && l->rack < r->c.racks) {
			/* The EPS uplink carries the rack's cross-rack traffic: tx
			 * leaves the rack, rx enters it. */
			double cap = (double)capacity(r, l);
			r->c.rack_util_out[l->rack] = tx / cap;
			r->c.rack_util_in[l->rack] = rx / cap;
			if (!final && fmax(tx, rx) >= CONGESTED * cap)
				r->congested_samples++;
		}
		double again = fidelity_link(&r->fid, p, l, tx, (double)capacity(r, l), senders_paused(r, i, l, changes));
		if (again > 0) {
			r->recheck[r->nrecheck++] = i;
			wait = fmax(wait, again);
		}
		r->drops_before[i] = p->drops;
		if (r->links_csv && (l->tx_bytes != p->tx_bytes || l->rx_bytes != p->rx_bytes))
			write_link(r->links_csv, now, l, &r->base[i], tx, rx);
	}
	memcpy(r->changes_seen, changes, r->c.racks * sizeof *changes);
	if (r->p.web)
		web_publish_sample(r->p.web, r, cur, dt, final);
	memcpy(r->last, cur, n * sizeof *cur);
	free(cur);
	r->last_sample = now;
	if (r->nrecheck) {
		r->recheck_at = now + wait;
		if (final) {   /* no loop left to come back: wait here */
			usleep((useconds_t)(wait * r->p.slowdown * 1e6));   /* run seconds, in wall time */
			monitor_recheck(r);
		}
	}
	if (!r->p.quiet)
		progress(r, final);
}

/* The second look at the links whose queue seemed to stand while they sent
 * slowly (fidelity.c): after they could have sent what they held. */
void monitor_recheck(struct run *r)
{
	struct link_stats *cur;
	int n;
	double elapsed = run_now(r) - r->last_sample;
	if (r->nrecheck && !r->be->stats(r, &cur, &n)) {
		if (n == r->nlinks)
			for (int k = 0; k < r->nrecheck; k++) {
				const struct link_stats *then = &r->last[r->recheck[k]];
				fidelity_recheck(&r->fid, then, &cur[r->recheck[k]], elapsed, (double)capacity(r, then));
			}
		free(cur);
	}
	r->nrecheck = 0;
	r->recheck_at = 0;
}

void monitor_close(struct run *r)
{
	if (r->links_csv)
		fclose(r->links_csv);
	r->links_csv = NULL;
	free(r->base);
	free(r->last);
	free(r->drops_before);
	free(r->changes_seen);
	free(r->recheck);
	r->recheck = NULL;
	r->base = r->last = NULL;
	r->drops_before = NULL;
	r->changes_seen = NULL;
}
