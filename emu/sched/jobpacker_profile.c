/* jobpacker_profile.c — what JobPacker knows before it plans (the
 * dissertation's §4.2.3.1): its knobs, the model of the
 * fabric, each job's description, the job profiler (Eq. 4.1's latency
 * response function and the feasible (map-width, reduce-width) pairs) and
 * Fig. 4.3's demand matrix.  jobpacker_plan.c plans with them. */
#include "emu/sched/jobpacker.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- knobs */

void jp_conf_default(struct jp_conf *k)
{
	*k = (struct jp_conf){
		.subbatches = 5,
		.orders = 120,
		.rho = -1,
		.interval_s = 1.0,
		.delta_s = 0.010,
		.util = 0.9,
		.piece_margin = 1.25,
		.bw_ocs = 0,
		.bw_ratio = 10,
		.eps_jobs = 1,
		.lrf = JP_LRF_PERIODIC,
		.scenario = JP_SCEN_AUTO,
		.adhoc_sh_input = 1e9,
		.early_reduce_cap = 0.5,
		.postpone = true,
		.ports = true,
		.sparsity = true,
	};
}

void jp_conf_fabric(struct jp_conf *k, const struct sched_params *p)
{
	/* 0 = not known (a unit test's cluster): keep the defaults. */
	if (p->ocs_interval_s > 0)
		k->interval_s = p->ocs_interval_s;
	if (p->ocs_delta_s > 0)
		k->delta_s = p->ocs_delta_s;
	if (p->ocs_Bps > 0) {
		k->bw_ocs = p->ocs_Bps;
		if (p->uplink_Bps > 0)
			k->bw_ratio = p->ocs_Bps / p->uplink_Bps;
		/* Eq. 4.1's OCS term as the fabric behaves: configurations that give
		 * way once served are Fig 4.6's continuous circuits; configurations
		 * held for whole intervals are the periodic model. */
		k->lrf = p->ocs_early ? JP_LRF_FIG46 : JP_LRF_PERIODIC;
	}
}

/* In enum jp_scenario's order; lrf's after auto and seq's in jp_conf_opts'. */
const char *const jp_scenario_names[] = {"auto", "batch", "online", NULL};
const char *const jp_lrf_names[] = {"auto", "periodic", "fig46", "literal", NULL};
const char *const jp_seq_names[] = {"list", "time", NULL};

void jp_conf_shared(struct jp_conf *k, const struct jp_shared_opts *o)
{
	k->scenario = (enum jp_scenario)o->scenario;
	if (!isnan(o->bw_ocs))
		k->bw_ocs = o->bw_ocs;
	if (!isnan(o->bw_ratio))
		k->bw_ratio = o->bw_ratio;
	k->early_reduce_cap = o->early_reduce_cap;
}

void jp_conf_opts(struct jp_conf *k, const struct jp_opts *o)
{
	static const enum jp_lrf lrf[] = {JP_LRF_PERIODIC, JP_LRF_PERIODIC, JP_LRF_FIG46, JP_LRF_LITERAL};
	jp_conf_shared(k, &o->sh);
	k->subbatches = o->subbatches;
	k->orders = o->orders;
	k->plan_threads = o->plan_threads;
	k->rho = isnan(o->rho) ? -1 : o->rho;
	k->eps_jobs = o->eps_jobs;
	k->piece_margin = o->piece_margin;
	if (o->lrf > 0)   /* not auto */
		k->lrf = lrf[o->lrf];
	k->seq_by_time = o->seq == 1;
	k->ports = o->ports;
	k->postpone = o->postpone;
	k->sparsity = o->sparsity;
	k->adhoc_agg = o->adhoc_agg;
}

void jp_model_make(struct jp_model *m, const struct cluster *c, const struct jp_conf *k, uint64_t elephant)
{
	m->racks = c->racks;
	int first, n;
	cluster_rack_servers(c, 0, &first, &n);
	m->containers = 0;
	for (int i = first; i < first + n; i++)
		m->containers += c->servers[i].containers;
	if (m->containers < 1)
		m->containers = 1;
	m->E = (double)elephant;
	/* The plan's pieces are the planned map share of each rack; at run time
	 * a rack runs more or fewer maps (busy containers, locality: 12–27 of a
	 * planned 20 in a GENI batch), and a piece planned just over E falls
	 * under it and crosses the 10× slower EPS.  Seed 4, online: a 100-map
	 * job planned 7 × 7 (11.6 MB pieces, E 11.25 MB) sent 131 MB from two
	 * racks that ran 13 and 12 maps over the EPS, 6 s of a 4 s plan.  A 25%
	 * margin: GENI online median JCT ÷ F-Hybrid 0.73 -> 0.64 (seeds 4–8),
	 * 1.00 -> 0.89 (9–14); batch makespan 0.64 -> 0.63; 1.5 and 2 are worse
	 * (0.68, 0.84: too few OCS pairs left). */
	m->piece_min = m->E * (k->piece_margin > 0 ? k->piece_margin : 1);
	/* E = bw_o · δ · u/(1−u) (§4.1.2: 9δ at 90% utilisation): the OCS rate
	 * the threshold was derived from.  1.125 GB ↔ 100 Gb/s, 11.25 MB ↔ 1 Gb/s. */
	double bw = k->bw_ocs;
	if (bw <= 0) {
		double t = k->delta_s * k->util / (1 - k->util);
		bw = t > 0 && m->E > 0 ? m->E / t : 125e6;
	}
	/* No traffic on the OCS during δ of every interval. */
	double duty = k->interval_s > k->delta_s ? 1 - k->delta_s / k->interval_s : 1;
	m->bw_ocs = bw * duty;
	m->bw_eps = bw / (k->bw_ratio > 0 ? k->bw_ratio : 10) / (k->eps_jobs > 1 ? k->eps_jobs : 1);
	m->lrf = k->lrf;
	m->interval = k->interval_s;
}

void jp_jobdesc_of(struct jp_jobdesc *d, const struct workload *w, const struct job *j)
{
	double tm = 0, tr = 0;
	for (int i = 0; i < j->nmaps; i++)
		tm += w->tasks[j->first_task + i].work_s;
	for (int i = 0; i < j->nreduces; i++)
		tr += w->tasks[j->first_task + j->nmaps + i].work_s;
	*d = (struct jp_jobdesc){
		.id = j->id,
		.nmaps = j->nmaps,
		.nreduces = j->nreduces,
		.t_map = j->nmaps ? tm / j->nmaps : 0,
		.t_red = j->nreduces ? tr / j->nreduces : 0,
		.shuffle = (double)j->pred_shuffle_bytes,
		.arrival = j->pred_submit_s,
	};
}

/* ---------------------------------------------------------- profiler */

int jp_waves(int n, int r, int C)
{
	if (n <= 0)
		return 0;
	int per = (n + r - 1) / r;
	return (per + C - 1) / C;
}

double jp_lrf_shuffle(const struct jp_model *m, const struct jp_jobdesc *j, int rm, int rr, bool *ocs)
{
	double D = j->shuffle;
	bool o = j->nreduces > 0 && D / ((double)rm * rr) > (m->piece_min > 0 ? m->piece_min : m->E);
	if (ocs)
		*ocs = o;
	if (j->nreduces <= 0 || D <= 0)
		return 0;
	if (m->lrf == JP_LRF_LITERAL)
		return D / ((double)rm * rr) * (rr - 1) / (o ? m->bw_ocs : m->bw_eps);
	/* Fig 4.6's model (ours, fitted to the figure: it reproduces 224 of its
	 * 225 cells, Eq. 4.1 as printed 85): the job's data crosses min(rm, rr)
	 * circuits at once (one OCS port per rack), or leaves the rm map racks
	 * through their EPS uplinks. */
	if (!o)
		return D / (m->bw_eps * rm);
	double t = D / (m->bw_ocs * (rm < rr ? rm : rr));
	if (m->lrf != JP_LRF_PERIODIC || m->interval <= 0)
		return t;
	/* Periodic circuits (§4.1.3: "reconfigured periodically with a fixed
	 * reconfiguration interval"; §4.1.2: a rack sends via the OCS to one
	 * rack at a time).  A map rack's port carries its D/(rm·rr) to each of
	 * the other reduce racks one configuration after another, and a reduce
	 * rack's port receives from each other map rack likewise (Eq. 4.1's
	 * (r − 1) pieces of D/(rm·rr)); a circuit is lit for whole intervals,
	 * so each piece takes ⌈piece / (bw_o·(I − δ))⌉ intervals however
	 * small it is.  Fig 4.6's continuous-circuit term is the limit I → 0.
	 * Without this the OCS looks 10× faster than the EPS for any piece
	 * over E (the job-25 case of seed 6: 3 map × 2 reduce racks, 16 MB
	 * pieces, planned at 0.4 s of shuffle, took 6 s over 3 configurations,
	 * where the EPS takes 2.5 s), when a piece just over E = bw_o·9δ moves
	 * at E/I — about bw_e on GENI (9δ·bw_o per second, bw_o = 10 bw_e). */
	int k = (rm > rr ? rm : rr) - 1;
	double per = m->bw_ocs * m->interval;   /* bytes a circuit carries in one configuration */
	double piece = D / ((double)rm * rr);
	double rounds = k * ceil(piece / per - 1e-9) * m->interval;
	return rounds > t ? rounds : t;
}

double jp_lrf(const struct jp_model *m, const struct jp_jobdesc *j, int rm, int rr, bool *ocs)
{
	/* Stage latency = waves × task duration (ours: the text defers l_map and
	 * l_red to Corral's paper; input is local by design). */
	return j->t_map * jp_waves(j->nmaps, rm, m->containers) + jp_lrf_shuffle(m, j, rm, rr, ocs) +
	       j->t_red * jp_waves(j->nreduces, rr, m->containers);
}

void jp_profile_free(struct jp_profile *p)
{
	free(p->rm);
	free(p->rr);
	free(p->lat);
	memset(p, 0, sizeof *p);
}

int jp_profile(const struct jp_model *m, const struct jp_jobdesc *j, struct jp_profile *p)
{
	int R = m->racks, C = m->containers;
	memset(p, 0, sizeof *p);
	p->rm = malloc(R * R * sizeof *p->rm);
	p->rr = malloc(R * R * sizeof *p->rr);
	p->lat = malloc(R * R * sizeof *p->lat);
	if (!p->rm || !p->rr || !p->lat) {
		jp_profile_free(p);
		return -1;
	}
	/* Shuffle-heavy: D_s ≥ E (§4.1.2: "no less than" it).  Feasible
	 * ("green") pairs are the ones that "can leverage OCS effectively while
	 * achieving sufficient parallelism" (§4.2.1): Fig 4.6's green zone,
	 * whose latencies "are considerably lower than the latencies in the
	 * other zones" because it neither sacrifices parallelism nor misses the
	 * OCS (§4.2.3.1).  The text gives no formula, so the rule is ours: we
	 * take the zone literally as what it is in the figure: the pairs that
	 * use the OCS (D_s/(rm·rr) > E; here with a margin, piece_min:
	 * jp_model_make) and are faster by Eq. 4.1 than every pair that does
	 * not.  On Fig 4.6 this is exactly the one-wave OCS region (73 cells:
	 * the 2-wave OCS cells, 285–295, are slower than the best EPS cell,
	 * 280), so where one wave is possible it is "OCS and one wave a stage";
	 * where it is not (N > R·C), it admits the OCS pairs whose few extra
	 * waves the OCS pays for, and never ones that trade many waves for a
	 * small shuffle (the earlier relaxation, "the OCS pairs with the fewest
	 * waves", put a 296-map job with a 29 MB shuffle on 2 racks in 15 waves
	 * instead of 3).  No such pair: the OCS would cost the job more than it
	 * saves, and it is planned as non-shuffle-heavy: any containers, no
	 * postponement, its shuffle on the EPS (§4.2.2, Fig. 4.5). */
	if (j->nreduces > 0 && j->shuffle >= m->E && m->E > 0) {
		double eps_best = INFINITY;
		for (int rm = 1; rm <= R; rm++)
			for (int rr = 1; rr <= R; rr++) {
				bool ocs;
				double L = jp_lrf(m, j, rm, rr, &ocs);
				if (!ocs)
					eps_best = fmin(eps_best, L);
			}
		for (int rm = 1; rm <= R; rm++)
			for (int rr = 1; rr <= R; rr++) {
				bool ocs;
				double L = jp_lrf(m, j, rm, rr, &ocs);
				if (!ocs || !(L < eps_best - 1e-9))
					continue;
				p->rm[p->n] = rm;
				p->rr[p->n] = rr;
				p->lat[p->n++] = L;
			}
		p->relaxed = p->n > 0 && (jp_waves(j->nmaps, R, C) > 1 || jp_waves(j->nreduces, R, C) > 1);
	}
	p->sh = p->n > 0;
	if (p->sh) {
		/* Width (§4.2.3.2): max rm + rr over the feasible pairs; latency:
		 * the minimum L (ours: the text does not say which pair's). */
		p->width = 0;
		p->latency = INFINITY;
		for (int i = 0; i < p->n; i++) {
			if (p->rm[i] + p->rr[i] > p->width)
				p->width = p->rm[i] + p->rr[i];
			if (p->lat[i] < p->latency)
				p->latency = p->lat[i];
		}
	} else {
		/* Non-shuffle-heavy: width as §4.2.3.2 defines it; latency ours (the
		 * text gives none): maps, the shuffle through the uplinks of the
		 * racks the maps fill, reduces. */
		int mw = (j->nmaps + C - 1) / C;
		p->width = (double)(j->nmaps + j->nreduces) / C;
		p->latency = j->t_map + (j->nreduces > 0 ? j->shuffle / ((mw > 1 ? mw : 1) * m->bw_eps) : 0) +
			     (j->nreduces > 0 ? j->t_red : 0);
	}
	return 0;
}

/* ------------------------------------------------------------ Fig 4.3 */

void jp_demand_matrix(int R, const int *maps, const int *reds, double shuffle, double *M)
{
	double nm = 0, nr = 0;
	for (int i = 0; i < R; i++) {
		nm += maps[i];
		nr += reds[i];
	}
	for (int i = 0; i < R; i++)
		for (int j = 0; j < R; j++)
			M[i * R + j] = nm > 0 && nr > 0 ? shuffle * maps[i] / nm * reds[j] / nr : 0;
}

double jp_port_bound(int R, const double *M)
{
	double worst = 0;
	for (int i = 0; i < R; i++) {
		double row = 0, col = 0;
		for (int j = 0; j < R; j++)
			if (j != i) {
				row += M[i * R + j];
				col += M[j * R + i];
			}
		worst = fmax(worst, fmax(row, col));
	}
	return worst;
}
