/*
 * match.h — maximum-weight matching on general graphs.
 *
 * Edmonds' blossom algorithm in its primal-dual form (Galil 1986), O(n^3)
 * time on a dense n x n weight matrix, O(n^2) memory.  The result is a
 * matching of MAXIMUM WEIGHT, not of maximum cardinality: a vertex stays
 * unmatched when matching it cannot increase the total.
 *
 * Weights are non-negative integers.  A weight of 0 means "no edge": such
 * pairs are never matched (an OCS circuit without demand is useless).
 *
 * Tie-breaking ("keep lit circuits"): when prev_mate is given, every edge
 * {u,v} with prev_mate[u] == v (or prev_mate[v] == u) and w > 0 gets its
 * weight scaled to w*K + 1, all other edges to w*K, with K = n/2 + 1.  A
 * matching has at most n/2 edges, so the bonus sum is < K and can never
 * outweigh a difference of 1 in the true weight: the result is still a
 * maximum-weight matching, and among those it keeps as many previous
 * edges as possible.  Without prev_mate, K = 1 (no scaling).
 *
 * Overflow guard: internally the dual variables stay in [0, 2*W'] where
 * W' is the largest scaled weight, and slacks are sums of two duals minus
 * 2*W', so W' <= INT64_MAX/4 is required; the reported total needs
 * (n/2) * w_max <= INT64_MAX.  Calls that violate either bound fail with
 * -ERANGE instead of overflowing.  E.g. with prev_mate and n = 2000 nodes
 * (1000 racks, directed) weights up to ~2.3e15 are accepted; without it,
 * up to min(INT64_MAX/4, INT64_MAX/(n/2 + 1)), ~9.2e15 at n = 2000.
 *
 * All functions are reentrant: state lives in per-call allocations.
 * Return 0 on success or a negative errno (-EINVAL, -ERANGE, -ENOMEM).
 */
#ifndef EMU_MATCH_H
#define EMU_MATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct match_edge {
	int u, v;       /* endpoints, 0 <= u, v < n, u != v */
	int64_t w;      /* weight >= 0; 0 = edge ignored */
};

/*
 * Dense form: w is n*n, row-major, w[i*n+j] is the weight of {i,j}.  Only
 * the upper triangle (i < j) is read, so a non-symmetric matrix is fine;
 * the diagonal is ignored.  prev_mate may be NULL (no tie-breaking).
 * mate[i] receives the partner of i or -1; total (may be NULL) receives
 * the sum of the true (unscaled) weights of the matched edges.
 */
int match_max_weight_dense(int n, const int64_t *w, const int *prev_mate,
			   int *mate, int64_t *total);

/*
 * Like match_max_weight_dense(), but the preferred edges are given as an
 * n*n matrix (pref[i*n+j] != 0 for i < j; may be NULL) and need not form
 * a matching: the optimum maximises the weight, then the number of
 * preferred edges kept.  The same K = n/2 + 1 scaling applies.
 */
int match_max_weight_dense_pref(int n, const int64_t *w,
				const unsigned char *pref, int *mate,
				int64_t *total);

/*
 * Edge-list form; builds the dense matrix (n*n int64) and calls the dense
 * solver.  Parallel edges keep the largest weight.
 */
int match_max_weight(int n, const struct match_edge *edges, size_t m,
		     const int *prev_mate, int *mate, int64_t *total);

/* Scale factor used for tie-breaking on n nodes (see above). */
static inline int64_t match_tie_factor(int n) { return (int64_t)n / 2 + 1; }

#ifdef __cplusplus
}
#endif

#endif /* EMU_MATCH_H */
