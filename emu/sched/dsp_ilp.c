/* dsp_ilp.c — DSP's offline plan solved exactly: the seed's ILP (Eqs. 3-11)
 * as the notes linearise it (§2.3), with GLPK.
 *
 *   min L + W sum_i s_i
 *   (A) sum_k x_vk = 1                       every task somewhere (the seed omits it)
 *   (B) C_v = S_v + sum_k p_vk x_vk          its end
 *   (C) L >= C_v                             (4)
 *   (D) C_v <= D_i + s_i                     (6), soft: W large (OPEN-3)
 *   (E) S_w >= C_u  for u -> w               (7)
 *   (F) one order per pair on a shared machine, big-M:      (5), (8)
 *       S_v >= C_u - M (3 - x_uk - x_vk - y_uv),  S_u >= C_v - M (2 - x_uk - x_vk + y_uv)
 *   (G) S_v >= sum_k r_k x_vk                machine k busy with earlier plans until r_k
 *
 * One order variable per pair instead of the seed's per machine, and none
 * for a pair the DAG already orders.  H1's plan is the first incumbent, so
 * a time limit still gives a plan at least as good as H1's.
 *
 * Numerics: the model is solved with its origin at the earliest release
 * and scaled.  With the origin at the planning instant, a batch planned
 * behind an hour of earlier work had big-M and releases of 3500 s against
 * tasks of 1-70 s; the root LP's basis was ill-conditioned (cond 1e13) and
 * GLPK's primal simplex stalled on one degenerate vertex without end.  The
 * root LP also has an iteration limit (5 per row and column; a sound solve
 * takes fewer than one): beyond it there is no plan here and the caller
 * takes H1's. */
#include "emu/sched/dsp.h"
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct model {
	const struct dsp_inst *in;
	int n, m, npairs;
	int *pu, *pv;            /* the pairs needing an order */
	const struct dsp_plan *seed;
	double M;
	bool seeded;
	long nodes, node_limit;   /* subproblems selected, and at most */
};

/* Column numbers (GLPK's are 1-based). */
static int col_x(const struct model *d, int v, int k) { return 1 + v * d->m + k; }
static int col_S(const struct model *d, int v) { return 1 + d->n * d->m + v; }
static int col_C(const struct model *d, int v) { return 1 + d->n * d->m + d->n + v; }
static int col_L(const struct model *d) { return 1 + d->n * d->m + 2 * d->n; }
static int col_s(const struct model *d, int i) { return 2 + d->n * d->m + 2 * d->n + i; }
static int col_y(const struct model *d, int q) { return 2 + d->n * d->m + 2 * d->n + d->in->njobs + q; }

double dsp_ilp_size(int n, int m)
{
	return (double)n * m + (double)n * n / 2 + (double)n * (n - 1) * m + 4.0 * n;
}

/* Rows are added one at a time from a small buffer. */
struct row { int n, ind[8]; double val[8]; };

static void add_row(glp_prob *lp, struct row *r, int type, double lo, double hi)
{
	int i = glp_add_rows(lp, 1);
	glp_set_row_bnds(lp, i, type, lo, hi);
	glp_set_mat_row(lp, i, r->n, r->ind, r->val);
	r->n = 0;
}

static void put(struct row *r, int col, double v)
{
	r->n++;
	r->ind[r->n] = col;
	r->val[r->n] = v;
}

/* Pairs the DAG does not order (reach[u][w]: w after u). */
static int pairs(struct model *d)
{
	int n = d->n;
	bool *reach = calloc((size_t)n * n + 1, 1);
	d->pu = malloc(((size_t)n * n / 2 + 1) * sizeof *d->pu);
	d->pv = malloc(((size_t)n * n / 2 + 1) * sizeof *d->pv);
	if (!reach || !d->pu || !d->pv) {
		free(reach);
		return -1;
	}
	for (int u = n - 1; u >= 0; u--)   /* edges go forward in index order */
		for (int e = 0; e < d->in->nedges; e++)
			if (d->in->edge[e][0] == u) {
				int w = d->in->edge[e][1];
				reach[(size_t)u * n + w] = true;
				for (int x = 0; x < n; x++)
					reach[(size_t)u * n + x] |= reach[(size_t)w * n + x];
			}
	d->npairs = 0;
	for (int u = 0; u < n; u++)
		for (int v = u + 1; v < n; v++)
			if (!reach[(size_t)u * n + v]) {
				d->pu[d->npairs] = u;
				d->pv[d->npairs++] = v;
			}
	free(reach);
	return 0;
}

static void build(glp_prob *lp, const struct model *d, double W)
{
	const struct dsp_inst *in = d->in;
	int n = d->n, m = d->m, ncols = col_y(d, d->npairs) - 1;
	glp_set_obj_dir(lp, GLP_MIN);
	glp_add_cols(lp, ncols);
	for (int c = 1; c <= ncols; c++)
		glp_set_col_bnds(lp, c, GLP_LO, 0, 0);
	for (int v = 0; v < n; v++)
		for (int k = 0; k < m; k++)
			glp_set_col_kind(lp, col_x(d, v, k), GLP_BV);
	for (int q = 0; q < d->npairs; q++)
		glp_set_col_kind(lp, col_y(d, q), GLP_BV);
	glp_set_obj_coef(lp, col_L(d), 1);
	for (int i = 0; i < in->njobs; i++)
		glp_set_obj_coef(lp, col_s(d, i), W);
	struct row r = {0};
	for (int v = 0; v < n; v++) {
		/* (A) and (B) need m + 2 entries: built straight into GLPK's arrays */
		int ind[m + 3];
		double val[m + 3];
		for (int k = 0; k < m; k++) {
			ind[k + 1] = col_x(d, v, k);
			val[k + 1] = 1;
		}
		int i = glp_add_rows(lp, 1);
		glp_set_row_bnds(lp, i, GLP_FX, 1, 1);
		glp_set_mat_row(lp, i, m, ind, val);
		for (int k = 0; k < m; k++)
			val[k + 1] = -in->p[(size_t)v * m + k];
		ind[m + 1] = col_C(d, v);
		val[m + 1] = 1;
		ind[m + 2] = col_S(d, v);
		val[m + 2] = -1;
		i = glp_add_rows(lp, 1);
		glp_set_row_bnds(lp, i, GLP_FX, 0, 0);
		glp_set_mat_row(lp, i, m + 2, ind, val);
		if (in->rel_m) {   /* (G) */
			for (int k = 0; k < m; k++)
				val[k + 1] = -in->rel_m[k];
			ind[m + 1] = col_S(d, v);
			val[m + 1] = 1;
			i = glp_add_rows(lp, 1);
			glp_set_row_bnds(lp, i, GLP_LO, 0, 0);
			glp_set_mat_row(lp, i, m + 1, ind, val);
		}
		put(&r, col_L(d), 1);   /* (C) */
		put(&r, col_C(d, v), -1);
		add_row(lp, &r, GLP_LO, 0, 0);
		double dl = in->dl ? in->dl[in->job[v]] : INFINITY;
		if (isfinite(dl)) {   /* (D) */
			put(&r, col_C(d, v), 1);
			put(&r, col_s(d, in->job[v]), -1);
			add_row(lp, &r, GLP_UP, 0, dl);
		}
	}
	for (int e = 0; e < in->nedges; e++) {   /* (E) */
		put(&r, col_S(d, in->edge[e][1]), 1);
		put(&r, col_C(d, in->edge[e][0]), -1);
		add_row(lp, &r, GLP_LO, 0, 0);
	}
	for (int q = 0; q < d->npairs; q++)   /* (F) */
		for (int k = 0; k < m; k++) {
			int u = d->pu[q], v = d->pv[q];
			put(&r, col_S(d, v), 1);
			put(&r, col_C(d, u), -1);
			put(&r, col_x(d, u, k), -d->M);
			put(&r, col_x(d, v, k), -d->M);
			put(&r, col_y(d, q), -d->M);
			add_row(lp, &r, GLP_LO, -3 * d->M, 0);
			put(&r, col_S(d, u), 1);
			put(&r, col_C(d, v), -1);
			put(&r, col_x(d, u, k), -d->M);
			put(&r, col_x(d, v, k), -d->M);
			put(&r, col_y(d, q), d->M);
			add_row(lp, &r, GLP_LO, -2 * d->M, 0);
		}
}

/* H1's plan as GLPK's first integer solution; the node limit. */
static void callback(glp_tree *tree, void *info)
{
	struct model *d = info;
	if (glp_ios_reason(tree) == GLP_ISELECT && d->node_limit > 0 && ++d->nodes > d->node_limit)
		glp_ios_terminate(tree);
	if (glp_ios_reason(tree) != GLP_IHEUR || d->seeded || !d->seed)
		return;
	d->seeded = true;
	const struct dsp_plan *pl = d->seed;
	int ncols = col_y(d, d->npairs) - 1;
	double *x = calloc(ncols + 1, sizeof *x);
	if (!x)
		return;
	for (int v = 0; v < d->n; v++) {
		x[col_x(d, v, pl->machine[v])] = 1;
		x[col_S(d, v)] = pl->start[v];
		x[col_C(d, v)] = pl->end[v];
		x[col_L(d)] = fmax(x[col_L(d)], pl->end[v]);
		double dl = d->in->dl ? d->in->dl[d->in->job[v]] : INFINITY;
		if (isfinite(dl))
			x[col_s(d, d->in->job[v])] = fmax(x[col_s(d, d->in->job[v])], pl->end[v] - dl);
	}
	for (int q = 0; q < d->npairs; q++)
		x[col_y(d, q)] = pl->start[d->pu[q]] <= pl->start[d->pv[q]];
	glp_ios_heur_sol(tree, x);
	free(x);
}

int dsp_ilp(const struct dsp_inst *in, const struct dsp_ilp_opts *o, struct dsp_plan *out)
{
	/* the shifted instance: every time less the earliest release */
	double base = INFINITY, *rel = malloc((in->m ? in->m : 1) * sizeof *rel),
	       *dl = malloc((in->njobs ? in->njobs : 1) * sizeof *dl);
	struct dsp_inst sh = *in;
	struct model d = {.in = &sh, .n = in->n, .m = in->m, .node_limit = o->node_limit};
	struct dsp_plan h1 = {0};
	int rc = -1;
	if (!rel || !dl)
		goto out;
	for (int k = 0; k < in->m; k++)
		base = fmin(base, in->rel_m ? in->rel_m[k] : 0);
	base = isfinite(base) ? base : 0;
	for (int k = 0; k < in->m; k++)
		rel[k] = (in->rel_m ? in->rel_m[k] : 0) - base;
	for (int i = 0; i < in->njobs; i++)
		dl[i] = in->dl ? in->dl[i] - base : INFINITY;
	sh.rel_m = in->rel_m ? rel : NULL;
	sh.dl = in->dl ? dl : NULL;
	if (pairs(&d) || dsp_plan_alloc(&h1, in->n) || dsp_h1(&sh, &h1))
		goto out;
	d.seed = &h1;
	for (int k = 0; k < in->m; k++)
		d.M = fmax(d.M, rel[k]);
	for (int v = 0; v < in->n; v++) {
		double longest = 0;
		for (int k = 0; k < in->m; k++)
			longest = fmax(longest, in->p[(size_t)v * in->m + k]);
		d.M += longest;
	}
	d.M = d.M > 0 ? d.M : 1;
	glp_term_out(GLP_OFF);   /* msg_lev does not silence the initial basis's lines */
	glp_prob *lp = glp_create_prob();
	build(lp, &d, o->late_weight);
	glp_scale_prob(lp, GLP_SF_AUTO);
	glp_smcp sm;
	glp_init_smcp(&sm);
	sm.msg_lev = GLP_MSG_OFF;
	sm.it_lim = 5 * (glp_get_num_rows(lp) + glp_get_num_cols(lp));
	glp_iocp io;
	glp_init_iocp(&io);
	io.msg_lev = GLP_MSG_OFF;
	io.presolve = GLP_OFF;   /* the callback's solution is in the original columns */
	io.tm_lim = (int)fmin(o->time_limit_s * 1000, 1e9);
	io.mip_gap = o->gap;
	io.br_tech = GLP_BR_DTH;
	io.bt_tech = GLP_BT_BLB;
	io.cb_func = callback;
	io.cb_info = &d;
	int ret = glp_simplex(lp, &sm) ? -1 : glp_intopt(lp, &io);
	int st = glp_mip_status(lp);
	if ((ret == 0 || ret == GLP_ETMLIM || ret == GLP_ESTOP || ret == GLP_EMIPGAP) && (st == GLP_OPT || st == GLP_FEAS)) {
		for (int v = 0; v < in->n; v++) {
			out->machine[v] = 0;
			for (int k = 1; k < in->m; k++)
				if (glp_mip_col_val(lp, col_x(&d, v, k)) > glp_mip_col_val(lp, col_x(&d, v, out->machine[v])))
					out->machine[v] = k;
			out->start[v] = base + glp_mip_col_val(lp, col_S(&d, v));
			out->end[v] = base + glp_mip_col_val(lp, col_C(&d, v));
		}
		out->makespan = base + glp_mip_col_val(lp, col_L(&d));
		out->late = dsp_plan_late(in, out);
		rc = st == GLP_OPT && ret == 0 ? 0 : 1;
	}
	glp_delete_prob(lp);
out:
	dsp_plan_free(&h1);
	free(d.pu);
	free(d.pv);
	free(rel);
	free(dl);
	return rc;
}
