/* ocs_ctl.c — see ocs_ctl.h. */
#include "emu/ocs_ctl.h"
#include "emu/ocs_match.h"
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

void ocs_params_default(struct ocs_params *p)
{
	p->interval_s = 1.0;
	p->delta_s = 0.010;
	p->guard_s = 0.002;
	p->drain_timeout_s = 0.050;
	p->scope = OCS_DARK_ALL;
	p->early = false;
	p->log_slowdown = 1;
	p->observer = (struct ocs_observer){0};
}

void ocs_params_slow_down(struct ocs_params *p, double k)
{
	p->interval_s *= k;
	p->delta_s *= k;
	p->guard_s *= k;
	p->drain_timeout_s *= k;
	p->log_slowdown = k;
}

double ocs_early_hold_s(const struct ocs_ctl *c)
{
	return 9 * c->p.delta_s;
}

bool ocs_early_due(const struct ocs_ctl *c, double lit_for_s)
{
	if (!c->p.early || lit_for_s < ocs_early_hold_s(c))
		return false;
	int R = c->racks;
	/* Per rack, the ports whose circuit is dark or has served its demand
	 * (out and in side), and which pairs are lit.  Waiting for every lit
	 * circuit kept configurations for their whole interval behind one
	 * circuit whose sender was slow (a 0.1 Gb/s server holding most of its
	 * rack's map output): 60 MB in 1 s on 6 circuits of a GENI batch; GENI
	 * batch makespan (simulator, seeds 4-8) 23.1 -> 22.3 s. */
	int free_out[R], free_in[R];
	bool lit[R * R];
	memset(lit, 0, sizeof lit);
	for (int r = 0; r < R; r++)
		free_out[r] = free_in[r] = c->cur->ports;
	for (int p = 0; p < c->cur->ports; p++)
		for (int s = 0; s < R; s++) {
			int d = c->cur->out[p][s];
			if (d < 0 || d >= R)
				continue;
			lit[s * R + d] = true;
			if (c->demand[s * R + d] > 0) {
				free_out[s]--;
				free_in[d]--;
			}
		}
	for (int x = 0; x < R * R; x++) {
		int s = x / R, d = x % R;
		if (!lit[x] && s != d && c->demand[x] > 0 && free_out[s] > 0 && free_in[d] > 0)
			return true;
	}
	return false;
}

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double ocs_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Absolute: no drift from wake-up latency. */
void ocs_sleep_until(double t)
{
	struct timespec ts = {(time_t)t, (long)((t - (double)(time_t)t) * 1e9)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* LOG_hosts.csv beside LOG.csv (or LOG); beside a LOG.csv.tmp it is
 * LOG_hosts.csv.tmp, renamed when the controller is freed, as a run's
 * results are. */
static FILE *open_host_log(struct ocs_ctl *c, const char *log_path, char err[FABRIC_ERR_LEN])
{
	char path[1024];
	size_t n = strlen(log_path);
	bool tmp = n > 4 && !strcmp(log_path + n - 4, ".tmp");
	if (tmp)
		n -= 4;
	if (n > 4 && !strncmp(log_path + n - 4, ".csv", 4))
		n -= 4;
	snprintf(path, sizeof path, "%.*s_hosts.csv%s", (int)n, log_path, tmp ? ".tmp" : "");
	if (tmp && !(c->host_log_tmp = strdup(path))) {
		snprintf(err, FABRIC_ERR_LEN, "out of memory");
		return NULL;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, FABRIC_ERR_LEN, "%s: %s", path, strerror(errno));
		return NULL;
	}
	fprintf(f, "t_s,host,dark_s\n");
	fflush(f);
	return f;
}

static int ctl_init(struct ocs_ctl *c, const struct topo *t, const struct circuit_cfg *cur,
		    const struct ocs_params *p, const char *log_path, double t0, char err[FABRIC_ERR_LEN])
{
	c->topo = t;
	c->cur = cur;
	c->p = *p;
	c->racks = t->racks;
	c->ports = t->ocs_ports;
	c->demand = calloc((size_t)c->racks * c->racks, sizeof *c->demand);
	c->rack_changes = calloc(c->racks, sizeof *c->rack_changes);
	c->t0 = t0;
	if (!c->demand || !c->rack_changes) {
		snprintf(err, FABRIC_ERR_LEN, "out of memory");
		free(c->demand);
		free(c->rack_changes);
		return -1;
	}
	if (log_path) {
		c->log = fopen(log_path, "w");
		if (!c->log) {
			snprintf(err, FABRIC_ERR_LEN, "%s: %s", log_path, strerror(errno));
			free(c->demand);
			free(c->rack_changes);
			return -1;
		}
		fprintf(c->log, "t_s,t_announce,t_dark,t_switch,t_lit,changed,drain_s,dark_s,apply_ms,"
				"served_bytes,demand_bytes,config\n");
		fflush(c->log);
	}
	return 0;
}

int ocs_ctl_init(struct ocs_ctl *c, struct fabric *f, const struct ocs_params *p,
		 const struct ocs_hooks *hooks, const char *log_path, char err[FABRIC_ERR_LEN])
{
	memset(c, 0, sizeof *c);
	if (!f->topo.ocs) {
		snprintf(err, FABRIC_ERR_LEN, "fabric '%s' has no OCS", f->prefix);
		return -1;
	}
	c->fab = f;
	if (hooks)
		c->hooks = *hooks;
	if (ctl_init(c, &f->topo, &f->circuits, p, log_path, wall(), err))
		return -1;
	if (log_path && fabric_hosts(f) > 1 && !(c->host_log = open_host_log(c, log_path, err))) {
		ocs_ctl_free(c);
		return -1;
	}
	return 0;
}

int ocs_ctl_init_virtual(struct ocs_ctl *c, const struct topo *t, const struct circuit_cfg *cur,
			 const struct ocs_params *p, const char *log_path, char err[FABRIC_ERR_LEN])
{
	memset(c, 0, sizeof *c);
	return ctl_init(c, t, cur, p, log_path, 0, err);
}

void ocs_ctl_free(struct ocs_ctl *c)
{
	if (c->log)
		fclose(c->log);
	if (c->host_log)
		fclose(c->host_log);
	if (c->host_log && c->host_log_tmp) {
		char final[1024];
		snprintf(final, sizeof final, "%.*s", (int)strlen(c->host_log_tmp) - 4, c->host_log_tmp);
		rename(c->host_log_tmp, final);
	}
	free(c->host_log_tmp);
	free(c->demand);
	free(c->rack_changes);
	memset(c, 0, sizeof *c);
}

void ocs_count_reconfig(struct ocs_ctl *c, const struct circuit_cfg *lit, const struct circuit_cfg *next)
{
	bool touched[c->racks];
	memset(touched, 0, sizeof touched);
	for (int p = 0; p < c->ports; p++)
		for (int s = 0; s < c->racks; s++) {
			int old = lit->out[p][s], new = next->out[p][s];
			if (old != new || (old >= 0 && c->p.scope == OCS_DARK_ALL)) {
				touched[s] = true;
				if (old >= 0 && old < c->racks)
					touched[old] = true;
				if (new >= 0 && new < c->racks)
					touched[new] = true;
			}
		}
	/* Atomic: the monitor reads the counters while the controller thread runs. */
	for (int k = 0; k < c->racks; k++)
		if (touched[k])
			__atomic_fetch_add(&c->rack_changes[k], 1, __ATOMIC_RELAXED);
	c->reconfigs++;
}

unsigned long ocs_rack_changes(const struct ocs_ctl *c, int rack)
{
	return rack >= 0 && rack < c->racks && c->rack_changes ? __atomic_load_n(&c->rack_changes[rack], __ATOMIC_RELAXED)
								 : 0;
}

void ocs_demand_set(struct ocs_ctl *c, int src, int dst, int64_t bytes)
{
	if (src >= 0 && src < c->racks && dst >= 0 && dst < c->racks && src != dst)
		c->demand[src * c->racks + dst] = bytes > 0 ? bytes : 0;
}

void ocs_demand_add(struct ocs_ctl *c, int src, int dst, int64_t delta)
{
	if (src >= 0 && src < c->racks && dst >= 0 && dst < c->racks && src != dst)
		ocs_demand_set(c, src, dst, c->demand[src * c->racks + dst] + delta);
}

int64_t ocs_demand_get(const struct ocs_ctl *c, int src, int dst)
{
	return c->demand[src * c->racks + dst];
}

int ocs_decide(struct ocs_ctl *c, struct circuit_cfg *next, int64_t *served)
{
	int r = c->racks, k = c->ports;
	int *prev = calloc((size_t)k * r, sizeof(int)), *out = calloc((size_t)k * r, sizeof(int));
	int rc = -ENOMEM;
	if (prev && out) {
		for (int p = 0; p < k; p++)
			for (int i = 0; i < r; i++)
				prev[p * r + i] = c->cur->out[p][i];
		rc = ocs_match_kport(c->topo->ocs_mode == OCS_BIDIRECTIONAL ? OCS_BIDIR : OCS_DIRECTED_MODE,
				     r, k, c->demand, prev, out, served);
		if (!rc) {
			circuits_clear(next, c->topo);
			for (int p = 0; p < k; p++)
				for (int i = 0; i < r; i++)
					next->out[p][i] = (int16_t)out[p * r + i];
			if (c->p.observer.decided)
				c->p.observer.decided(c->p.observer.arg, c, next, *served);
		}
	}
	free(prev);
	free(out);
	return rc;
}

int ocs_reconfigure(struct ocs_ctl *c, const struct circuit_cfg *next, struct ocs_event *ev,
		    char err[FABRIC_ERR_LEN])
{
	struct fabric *f = c->fab;
	struct ocs_event scratch;
	struct circuit_cfg going, none;
	if (!ev)
		ev = &scratch;
	memset(ev, 0, sizeof *ev);
	ev->cfg = *next;
	ev->changed = circuits_changed(&f->circuits, next);
	if (!ev->changed)
		return 0;
	if (circuits_validate(next, &f->topo, err))
		return -1;

	/* Which circuits go dark: every lit one, or only those that change. */
	circuits_clear(&none, &f->topo);
	const struct circuit_cfg *dark = c->p.scope == OCS_DARK_ALL ? &none : next;
	going = none;
	for (int p = 0; p < c->ports; p++)
		for (int r = 0; r < c->racks; r++)
			if (f->lit.out[p][r] >= 0 && f->lit.out[p][r] != dark->out[p][r])
				going.out[p][r] = f->lit.out[p][r];

	double m0 = ocs_mono();
	ev->t_announce = wall();
	ocs_count_reconfig(c, &f->lit, next);
	if (c->hooks.announce)
		c->hooks.announce(c->hooks.arg, &going);
	ocs_sleep_until(m0 + c->p.guard_s);

	/* One host: host 0 is the whole fabric, and each step is one call. */
	int hosts = ev->hosts = fabric_hosts(f);
	double host_dark[HOSTS_MAX];
	double a0 = ocs_mono();
	ev->t_dark = wall();
	for (int k = 0; k < hosts; k++) {
		if (fabric_circuits_unroute_on(f, k, dark, err))
			return -1;
		host_dark[k] = wall();
	}
	double a1 = ocs_mono();
	ev->drain_s = fabric_circuits_drain(f, next, c->p.drain_timeout_s);
	double a2 = ocs_mono();
	for (int k = 0; k < hosts; k++)
		if (fabric_crossbar_switch_on(f, k, next, err))
			return -1;
	double a3 = ocs_mono();
	ev->t_switch = wall();
	ocs_sleep_until(a3 + c->p.delta_s);
	double a4 = ocs_mono();
	for (int k = 0; k < hosts; k++) {
		if (fabric_circuits_route_on(f, k, next, err))
			return -1;
		ev->host_dark_s[k] = wall() - host_dark[k];
	}
	double a5 = ocs_mono();
	ev->t_lit = wall();
	ev->dark_s = ev->t_lit - ev->t_dark;
	ev->apply_ms = ((a1 - a0) + (a3 - a2) + (a5 - a4)) * 1e3;
	if (c->hooks.lit)
		c->hooks.lit(c->hooks.arg, &f->lit);
	return 0;
}

int ocs_tick(struct ocs_ctl *c, struct ocs_event *ev, char err[FABRIC_ERR_LEN])
{
	struct circuit_cfg next;
	struct ocs_event scratch;
	int64_t served = 0, total = 0;
	if (!ev)
		ev = &scratch;
	c->ticks++;
	int rc = ocs_decide(c, &next, &served);
	if (rc) {
		snprintf(err, FABRIC_ERR_LEN, "matching failed: %s", strerror(-rc));
		return -1;
	}
	if (ocs_reconfigure(c, &next, ev, err))
		return -1;
	for (int i = 0; i < c->racks * c->racks; i++)
		total += c->demand[i];
	ev->served = served;
	ev->demand = total;
	if (ev->changed)
		ocs_log_event(c, ev);
	return 0;
}

void ocs_log_event(struct ocs_ctl *c, const struct ocs_event *ev)
{
	if (c->p.observer.reconfigured)
		c->p.observer.reconfigured(c->p.observer.arg, c, ev);
	if (!c->log)
		return;
	char spec[8192];
	circuits_format(&ev->cfg, spec, sizeof spec);
	for (char *q = spec; *q; q++)   /* keep the CSV's columns: circuits space-separated */
		if (*q == ',')
			*q = ' ';
	double k = c->p.log_slowdown;
	fprintf(c->log, "%.6f,%.6f,%.6f,%.6f,%.6f,%d,%.6f,%.6f,%.3f,%lld,%lld,%s\n", (ev->t_dark - c->t0) / k,
		ev->t_announce, ev->t_dark, ev->t_switch, ev->t_lit, ev->changed,
		ev->drain_s < 0 ? ev->drain_s : ev->drain_s / k, ev->dark_s / k, ev->apply_ms,
		(long long)ev->served, (long long)ev->demand, spec);
	fflush(c->log);
	for (int h = 0; c->host_log && h < ev->hosts; h++)
		fprintf(c->host_log, "%.6f,%s,%.6f\n", (ev->t_dark - c->t0) / k, c->fab->hosts->h[h].name,
			ev->host_dark_s[h] / k);
	if (c->host_log)
		fflush(c->host_log);
}

int ocs_realtime(void)
{
	struct sched_param sp = {.sched_priority = 50};
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		return -1;
	mlockall(MCL_CURRENT | MCL_FUTURE);
	return 0;
}
