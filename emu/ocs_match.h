/*
 * ocs_match.h — optical circuit switch configuration from a demand matrix.
 *
 * d is an r x r row-major matrix of non-negative demands: d[i*r+j] is the
 * number of bytes pending from rack i to rack j (the diagonal is ignored).
 * Every function picks circuits maximising the total demand they serve;
 * racks (or pairs) without demand are never connected.
 *
 * Modes:
 *   directed (default, Helios style): every rack has one transmit and one
 *     receive port, so a configuration is a bipartite matching senders x
 *     receivers: out[i] = j means circuit i -> j, -1 = port dark.
 *     ocs_match_directed() solves it as an assignment problem (shortest
 *     augmenting paths with potentials, Jonker-Volgenant style, O(r^3));
 *     ocs_match_directed_blossom() solves the same problem with the
 *     general blossom algorithm on 2r nodes and serves as a cross-check.
 *     Both return the same optimum weight.
 *   bidirectional (c-Through style): a circuit joins two racks both ways,
 *     so it is a matching on the rack graph with w(i,j) = d[i][j] + d[j][i]
 *     (mate[i] = j and mate[j] = i).
 *
 * k > 1 optical ports per rack: ocs_match_kport() computes k successive
 * matchings; round t runs on the demand that remains after zeroing the
 * pairs matched in rounds < t (in bidirectional mode both directions of a
 * pair).  A pair therefore gets at most one circuit, and round 1 alone is
 * optimal.  This greedy is not a maximum-weight k-matching in general
 * (that is a b-matching problem), but each round is optimal given the
 * earlier ones, it reuses the 1-port solvers, and it mirrors how ports
 * are reconfigured one OCS at a time.
 *
 * Tie-breaking: prev (may be NULL) is the previous configuration in the
 * same format as the output.  Among optimal configurations the one that
 * keeps the most previously lit circuits is chosen (weights scaled by
 * K = r + 1 in directed mode, K = r/2 + 1 in bidirectional mode, +1 for
 * lit pairs with demand; see emu/match.h), so equal demand never causes
 * needless reconfiguration.  For ocs_match_kport(), a pair counts as lit
 * if it was lit on any port.  Overflow bound: with prev, the largest
 * weight w (directed: d[i][j]; bidir: d[i][j] + d[j][i]) must satisfy
 * w * K + 1 <= INT64_MAX / 4, i.e. about 2.3e15 bytes at r = 1000;
 * otherwise -ERANGE.  Without prev only r * w <= INT64_MAX is needed.
 *
 * Return 0 or a negative errno.  total (may be NULL) receives the served
 * demand (sum over all rounds for k-port).
 */
#ifndef EMU_OCS_MATCH_H
#define EMU_OCS_MATCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Named apart from netctl/topo.h's enum ocs_mode (the topology setting),
 * which callers map onto this one. */
enum ocs_match_mode {
	OCS_DIRECTED_MODE = 0,
	OCS_BIDIR = 1,
};

int ocs_match_directed(int r, const int64_t *d, const int *prev_out,
		       int *out, int64_t *total);
int ocs_match_directed_blossom(int r, const int64_t *d, const int *prev_out,
			       int *out, int64_t *total);
int ocs_match_bidir(int r, const int64_t *d, const int *prev_mate,
		    int *mate, int64_t *total);

/* out and prev (optional) are k*r: out[t*r + i] is rack i's port-t peer. */
int ocs_match_kport(enum ocs_match_mode mode, int r, int k, const int64_t *d,
		    const int *prev, int *out, int64_t *total);

#ifdef __cplusplus
}
#endif

#endif /* EMU_OCS_MATCH_H */
