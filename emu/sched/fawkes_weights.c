/* fawkes_weights.c — FAWKES's weighting policies (seed 003 §4.3, Eqs. 3-6)
 * and the target allocation: pure functions of what the clusters showed. */
#include "emu/sched/fawkes.h"
#include <math.h>
#include <stdlib.h>

double fawkes_throughput_weight(double done, double waiting, double a)
{
	if (waiting <= 0)
		return 0;
	return pow(a, -done / waiting);
}

/* Each active cluster's x over the active ones' sum (0 when it is 0). */
static double share(const struct fawkes_obs *o, int k, int i, double (*x)(const struct fawkes_obs *))
{
	double sum = 0;
	for (int q = 0; q < k; q++)
		sum += o[q].active ? x(&o[q]) : 0;
	return sum > 0 ? x(&o[i]) / sum : 0;
}

static double pu(const struct fawkes_obs *o) { return o->proc_usage; }
static double du(const struct fawkes_obs *o) { return o->disk_usage; }

void fawkes_raw_weights(enum fawkes_policy p, const struct fawkes_obs *o, int k, double psi, double a, double *y)
{
	for (int i = 0; i < k; i++) {
		const struct fawkes_obs *x = &o[i];
		double v = 0;
		switch (p) {
		case FW_NONE:
		case FW_EQ: v = 1; break;
		case FW_JD: v = x->jobs_waiting; break;
		case FW_DD: v = x->bytes_waiting; break;
		case FW_TD: v = x->tasks_waiting; break;
		case FW_PU: v = x->proc_usage; break;
		case FW_DU: v = x->disk_usage; break;
		case FW_RU: v = psi * share(o, k, i, pu) + (1 - psi) * share(o, k, i, du); break;
		case FW_JS: v = x->slowdown; break;
		case FW_JT: v = fawkes_throughput_weight(x->jobs_done, x->jobs_waiting, a); break;
		case FW_TT: v = fawkes_throughput_weight(x->tasks_done, x->tasks_waiting, a); break;
		}
		y[i] = x->active && v > 0 ? v : 0;
	}
}

double fawkes_normalize(double *w, int k)
{
	double sum = 0;
	for (int i = 0; i < k; i++)
		sum += w[i];
	for (int i = 0; sum > 0 && i < k; i++)
		w[i] /= sum;
	return sum;
}

double fawkes_discrimination(const int *size, const double *w, int k, int total, double period)
{
	double v = 0;
	for (int i = 0; i < k; i++) {
		double d = ((double)size[i] / total - w[i]) * period;
		v += d * d;
	}
	return k ? v / k : 0;
}

void fawkes_targets(const double *w, const int *lo, int k, int total, int *x)
{
	double *real = calloc(k, sizeof *real);
	bool *pinned = calloc(k, sizeof *pinned);
	for (int i = 0; i < k; i++)
		x[i] = lo[i];
	if (!real || !pinned) {
		free(real);
		free(pinned);
		return;
	}
	/* Water-filling: a cluster whose share falls below its floor is
	 * pinned there, and the others share what is left. */
	double wsum = 0;
	for (bool again = true; again;) {
		again = false;
		double rest = total;
		wsum = 0;
		for (int i = 0; i < k; i++) {
			if (pinned[i])
				rest -= lo[i];
			else
				wsum += w[i];
		}
		for (int i = 0; i < k && wsum > 0; i++) {
			real[i] = pinned[i] ? lo[i] : w[i] / wsum * rest;
			if (!pinned[i] && real[i] < lo[i] - 1e-9)
				pinned[i] = again = true;
		}
	}
	if (wsum > 0) {
		/* Whole servers: the integer parts, then one more each to the
		 * largest remainders until the total is reached. */
		int sum = 0;
		for (int i = 0; i < k; i++)
			sum += x[i] = (int)floor(real[i] + 1e-9);
		for (; sum < total; sum++) {
			int best = -1;
			for (int i = 0; i < k; i++)
				if (!pinned[i] && (best < 0 || real[i] - x[i] > real[best] - x[best] + 1e-12))
					best = i;
			if (best < 0)
				break;
			x[best]++;
			real[best] = x[best];   /* served */
		}
	}
	free(real);
	free(pinned);
}

double fawkes_ref_runtime(const struct job *j, const struct task *tasks, int servers, int map_slots,
			  int reduce_slots)
{
	double ref = 0;
	for (int st = 0; st < j->nstages; st++) {
		int n = j->stages[st].ntasks, slots = servers * (st ? reduce_slots : map_slots);
		if (!n || slots < 1)
			continue;
		double work = 0;
		for (int i = 0; i < n; i++)
			work += tasks[j->first_task + j->stages[st].first + i].work_s;
		ref += ceil((double)n / slots) * work / n;
	}
	return ref > 0 ? ref : 1e-3;
}
