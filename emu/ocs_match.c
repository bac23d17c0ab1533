/*
 * ocs_match.c — OCS configurations on top of the matching solvers.
 * See ocs_match.h for the modes and the k-port policy.
 */
#include "emu/ocs_match.h"
#include "emu/match.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Check d and return its largest off-diagonal entry, or -1 if invalid. */
static int64_t demand_max(int r, const int64_t *d)
{
	int64_t mx = 0;
	for (int i = 0; i < r; i++)
		for (int j = 0; j < r; j++) {
			int64_t x = d[(size_t)i * r + j];
			if (i == j)
				continue;
			if (x < 0)
				return -1;
			if (x > mx)
				mx = x;
		}
	return mx;
}

/*
 * Maximum-weight perfect assignment on the r x r matrix w (entries >= 0,
 * so a max-weight perfect assignment restricted to its positive entries
 * is a max-weight matching).  Shortest augmenting paths with row/column
 * potentials on costs c = -w, one row at a time (Kuhn-Munkres in the
 * Jonker-Volgenant formulation), after a column-reduction start that
 * assigns each column's best row when that row is still free — on dense
 * demand matrices this settles most rows without any search.
 *
 * Invariant: c[i][j] - u[i] - v[j] >= 0, with equality on assigned pairs.
 * Potentials stay within [-2W, 2W], hence the W <= INT64_MAX/4 bound.
 */
static int assign_max(int r, const int64_t *w, int *out)
{
	size_t n1 = (size_t)r + 1;
	int64_t *u = calloc(n1, sizeof(*u)), *v = calloc(n1, sizeof(*v));
	int64_t *minv = calloc(n1, sizeof(*minv));
	int *p = calloc(n1, sizeof(*p)), *way = calloc(n1, sizeof(*way));
	int *rowcol = calloc(n1, sizeof(*rowcol)), *arg = calloc(n1, sizeof(*arg));
	int *usedl = calloc(n1, sizeof(*usedl));
	char *used = calloc(n1, 1);
	int rc = -ENOMEM;
	if (!u || !v || !minv || !p || !way || !rowcol || !arg || !usedl || !used)
		goto out;

	/* Column reduction: v[j] = min_i c[i][j]; columns are 1-based. */
	for (int j = 1; j <= r; j++)
		v[j] = INT64_MAX;
	for (int i = 1; i <= r; i++) {
		const int64_t *row = w + (size_t)(i - 1) * r - 1;
		for (int j = 1; j <= r; j++)
			if (-row[j] < v[j]) {
				v[j] = -row[j];
				arg[j] = i;
			}
	}
	for (int j = 1; j <= r; j++)
		if (!rowcol[arg[j]]) {
			rowcol[arg[j]] = j;
			p[j] = arg[j];
		}

	for (int i = 1; i <= r; i++) {
		if (rowcol[i])
			continue;
		/* Dijkstra from row i over the reduced costs; column 0 is a
		 * virtual column holding row i. */
		int j0 = 0, nused = 0;
		p[0] = i;
		for (int j = 0; j <= r; j++) {
			minv[j] = INT64_MAX;
			used[j] = 0;
		}
		do {
			used[j0] = 1;
			usedl[nused++] = j0;
			int i0 = p[j0], j1 = 0;
			int64_t delta = INT64_MAX, ui = u[i0];
			const int64_t *row = w + (size_t)(i0 - 1) * r - 1;
			for (int j = 1; j <= r; j++) {
				if (used[j])
					continue;
				int64_t cur = -row[j] - ui - v[j];
				if (cur < minv[j]) {
					minv[j] = cur;
					way[j] = j0;
				}
				if (minv[j] < delta) {
					delta = minv[j];
					j1 = j;
				}
			}
			for (int k = 0; k < nused; k++) {
				int j = usedl[k];
				u[p[j]] += delta;
				v[j] -= delta;
			}
			for (int j = 1; j <= r; j++)
				if (!used[j])
					minv[j] -= delta;
			j0 = j1;
		} while (p[j0]);
		do {
			int j1 = way[j0];
			p[j0] = p[j1];
			j0 = j1;
		} while (j0);
	}
	for (int j = 1; j <= r; j++)
		out[p[j] - 1] = j - 1;
	rc = 0;
out:
	free(u);
	free(v);
	free(minv);
	free(p);
	free(way);
	free(rowcol);
	free(arg);
	free(usedl);
	free(used);
	return rc;
}

/* Preferred pairs from a previous configuration in output format. */
static unsigned char *pref_from(int r, int k, const int *prev)
{
	unsigned char *pref = calloc((size_t)r * r + 1, 1);
	if (!pref || !prev)
		return pref;
	for (size_t t = 0; t < (size_t)k * r; t++) {
		int i = (int)(t % r), j = prev[t];
		if (j >= 0 && j < r && j != i)
			pref[(size_t)i * r + j] = 1;
	}
	return pref;
}

/* The solvers below take pref (r*r, may be NULL): pairs to keep on ties. */

static int directed(int r, const int64_t *d, const unsigned char *pref,
		    int *out, int64_t *total)
{
	if (total)
		*total = 0;
	int64_t mx = demand_max(r, d);
	if (mx < 0)
		return -EINVAL;
	for (int i = 0; i < r; i++)
		out[i] = -1;
	if (mx == 0)
		return 0;
	/* an assignment has <= r pairs, so bonus sums stay below r + 1 */
	int64_t k = pref ? (int64_t)r + 1 : 1;
	if (mx > (INT64_MAX / 4 - 1) / k || mx > INT64_MAX / r)
		return -ERANGE;

	int64_t *w = malloc((size_t)r * r * sizeof(*w));
	int *col = malloc((size_t)r * sizeof(*col));
	if (!w || !col) {
		free(w);
		free(col);
		return -ENOMEM;
	}
	for (int i = 0; i < r; i++)
		for (int j = 0; j < r; j++) {
			size_t ij = (size_t)i * r + j;
			int64_t x = i == j ? 0 : d[ij] * k;
			if (x && pref && pref[ij])
				x++;
			w[ij] = x;
		}
	int rc = assign_max(r, w, col);
	if (!rc) {
		int64_t sum = 0;
		for (int i = 0; i < r; i++) {
			int j = col[i];
			/* zero-weight pairs only complete the permutation */
			if (w[(size_t)i * r + j]) {
				out[i] = j;
				sum += d[(size_t)i * r + j];
			}
		}
		if (total)
			*total = sum;
	}
	free(w);
	free(col);
	return rc;
}

static int directed_blossom(int r, const int64_t *d, const unsigned char *pref,
			    int *out, int64_t *total)
{
	if (total)
		*total = 0;
	if (demand_max(r, d) < 0)
		return -EINVAL;
	/* Node i is rack i's transmitter, node r + j rack j's receiver. */
	size_t n = 2 * (size_t)r;
	int64_t *w = calloc(n * n + 1, sizeof(*w));
	unsigned char *p2 = pref ? calloc(n * n + 1, 1) : NULL;
	int *mate = malloc((n + 1) * sizeof(*mate));
	int rc = -ENOMEM;
	if (!w || !mate || (pref && !p2))
		goto out;
	for (int i = 0; i < r; i++)
		for (int j = 0; j < r; j++) {
			size_t ij = (size_t)i * r + j, x = i * n + r + j;
			if (i == j)
				continue;
			w[x] = d[ij];
			if (p2)
				p2[x] = pref[ij];
		}
	rc = match_max_weight_dense_pref((int)n, w, p2, mate, total);
	if (!rc)
		for (int i = 0; i < r; i++)
			out[i] = mate[i] >= 0 ? mate[i] - r : -1;
out:
	free(w);
	free(p2);
	free(mate);
	return rc;
}

static int bidir(int r, const int64_t *d, const unsigned char *pref,
		 int *mate, int64_t *total)
{
	if (total)
		*total = 0;
	int64_t mx = demand_max(r, d);
	if (mx < 0)
		return -EINVAL;
	if (mx > INT64_MAX / 2)
		return -ERANGE;
	size_t rr = (size_t)r * r;
	int64_t *w = malloc(rr * sizeof(*w) + 1);
	unsigned char *p2 = pref ? calloc(rr + 1, 1) : NULL;
	int rc = -ENOMEM;
	if (!w || (pref && !p2))
		goto out;
	for (int i = 0; i < r; i++)
		for (int j = 0; j < r; j++) {
			size_t ij = (size_t)i * r + j, ji = (size_t)j * r + i;
			w[ij] = i == j ? 0 : d[ij] + d[ji];
			if (p2)
				p2[ij] = pref[ij] | pref[ji];
		}
	rc = match_max_weight_dense_pref(r, w, p2, mate, total);
out:
	free(w);
	free(p2);
	return rc;
}

typedef int (*solver)(int, const int64_t *, const unsigned char *, int *,
		      int64_t *);

/* Common wrapper: validate, turn prev into a pref matrix, solve. */
static int run(solver f, int r, const int64_t *d, const int *prev, int *out,
	       int64_t *total)
{
	if (r < 0 || (r > 0 && (!d || !out)))
		return -EINVAL;
	unsigned char *pref = NULL;
	if (prev && !(pref = pref_from(r, 1, prev)))
		return -ENOMEM;
	int rc = f(r, d, pref, out, total);
	free(pref);
	return rc;
}

int ocs_match_directed(int r, const int64_t *d, const int *prev_out,
		       int *out, int64_t *total)
{
	return run(directed, r, d, prev_out, out, total);
}

int ocs_match_directed_blossom(int r, const int64_t *d, const int *prev_out,
			       int *out, int64_t *total)
{
	return run(directed_blossom, r, d, prev_out, out, total);
}

int ocs_match_bidir(int r, const int64_t *d, const int *prev_mate,
		    int *mate, int64_t *total)
{
	return run(bidir, r, d, prev_mate, mate, total);
}

int ocs_match_kport(enum ocs_match_mode mode, int r, int k, const int64_t *d,
		    const int *prev, int *out, int64_t *total)
{
	if (r < 0 || k < 0 || (r > 0 && k > 0 && (!d || !out)))
		return -EINVAL;
	if (mode != OCS_DIRECTED_MODE && mode != OCS_BIDIR)
		return -EINVAL;
	if (total)
		*total = 0;
	if (!r || !k)
		return 0;
	solver f = mode == OCS_DIRECTED_MODE ? directed : bidir;
	size_t rr = (size_t)r * r;
	int64_t *rem = malloc(rr * sizeof(*rem));
	/* A pair lit on any previous port is preferred on every port. */
	unsigned char *pref = prev ? pref_from(r, k, prev) : NULL;
	int rc = -ENOMEM;
	if (!rem || (prev && !pref))
		goto out;
	memcpy(rem, d, rr * sizeof(*rem));
	int64_t sum = 0;
	for (int t = 0; t < k; t++) {
		int *o = out + (size_t)t * r;
		int64_t tt = 0;
		rc = f(r, rem, pref, o, &tt);
		if (rc)
			goto out;
		sum += tt;
		/* remove matched pairs: a pair gets at most one circuit */
		for (int i = 0; i < r; i++) {
			int j = o[i];
			if (j < 0)
				continue;
			rem[(size_t)i * r + j] = 0;
			if (mode == OCS_BIDIR)
				rem[(size_t)j * r + i] = 0;
		}
	}
	if (total)
		*total = sum;
out:
	free(rem);
	free(pref);
	return rc;
}
