// match_bench — our matching solvers against LEMON as speed reference and
// oracle (the optimum weights must be equal).
//
//   general:  complete graphs on n nodes, uniform random weights, our
//             match_max_weight_dense() vs lemon::MaxWeightedMatching.
//   directed: dense R x R random demand, our ocs_match_directed()
//             (assignment solver) vs lemon::NetworkSimplex on the
//             min-cost perfect assignment (zero-demand pairs included as
//             cost-0 arcs, which makes it equivalent), plus our blossom
//             solver on the 2R-node bipartite graph where it is cheap.
//
// Times are medians over `reps` runs (argv[1], default 5; 3 at the largest
// size, 1 for the 2R-node blossom cross-check at R=1000).  Our times include copying the input into the solver; LEMON's
// exclude building its graph.  Exit status 1 if any optimum differs.

// LEMON's INVALID constant lives in liblemon unless templates-only is set;
// this keeps the bench linkable without -lemon.
#define LEMON_ONLY_TEMPLATES
#include <lemon/matching.h>
#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include "emu/match.h"
#include "emu/ocs_match.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

using Clock = std::chrono::steady_clock;

// Median wall time in ms of fn() over reps runs.
static double median_ms(int reps, const std::function<void()> &fn)
{
	std::vector<double> t;
	for (int i = 0; i < reps; i++) {
		auto a = Clock::now();
		fn();
		t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
	}
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

static bool bench_general(int n, long long wmax, int reps, std::mt19937_64 &rng)
{
	std::uniform_int_distribution<long long> dist(wmax > 10 ? 1 : 0, wmax);
	std::vector<int64_t> w((size_t)n * n, 0);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			w[(size_t)i * n + j] = w[(size_t)j * n + i] = dist(rng);

	std::vector<int> mate(n);
	int64_t ours = -1;
	double t_ours = median_ms(reps, [&] {
		if (match_max_weight_dense(n, w.data(), nullptr, mate.data(), &ours))
			std::abort();
	});

	lemon::SmartGraph g;
	g.reserveNode(n);
	g.reserveEdge(n * (n - 1) / 2);
	std::vector<lemon::SmartGraph::Node> v;
	for (int i = 0; i < n; i++)
		v.push_back(g.addNode());
	lemon::SmartGraph::EdgeMap<long long> lw(g);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			lw[g.addEdge(v[i], v[j])] = w[(size_t)i * n + j];
	long long theirs = -1;
	double t_lemon = median_ms(reps, [&] {
		lemon::MaxWeightedMatching<lemon::SmartGraph,
					   lemon::SmartGraph::EdgeMap<long long>> m(g, lw);
		m.run();
		theirs = m.matchingWeight();
	});

	bool eq = ours == theirs;
	char name[32];
	std::snprintf(name, sizeof name, "%s n=%d", wmax > 10 ? "general" : "ties", n);
	std::printf("%-17s %10.2f %10.2f %8.2f   %s (%lld)\n", name, t_ours,
		    t_lemon, t_ours / t_lemon, eq ? "equal" : "DIFFERENT",
		    (long long)ours);
	if (!eq)
		std::printf("  ours %lld lemon %lld\n", (long long)ours, theirs);
	return eq;
}

static bool bench_directed(int r, int reps, std::mt19937_64 &rng)
{
	std::uniform_int_distribution<long long> dist(0, 1000000000000LL); // 1 TB
	std::vector<int64_t> d((size_t)r * r, 0);
	for (int i = 0; i < r; i++)
		for (int j = 0; j < r; j++)
			d[(size_t)i * r + j] = i == j ? 0 : dist(rng);

	std::vector<int> out(r);
	int64_t ours = -1;
	double t_ours = median_ms(reps, [&] {
		if (ocs_match_directed(r, d.data(), nullptr, out.data(), &ours))
			std::abort();
	});

	// Blossom on 2R nodes: a cross-check, slow on dense bipartite graphs
	// (~2.5 s at R=1000), so run once there.
	int64_t blossom = -1;
	double t_blossom = median_ms(r >= 1000 ? 1 : reps, [&] {
			if (ocs_match_directed_blossom(r, d.data(), nullptr, out.data(),
						       &blossom))
				std::abort();
		});

	lemon::SmartDigraph g;
	g.reserveNode(2 * r);
	g.reserveArc(r * r);
	std::vector<lemon::SmartDigraph::Node> v;
	for (int i = 0; i < 2 * r; i++)
		v.push_back(g.addNode());
	lemon::SmartDigraph::ArcMap<long long> cost(g);
	lemon::SmartDigraph::NodeMap<long long> sup(g);
	for (int i = 0; i < r; i++) {
		sup[v[i]] = 1;
		sup[v[r + i]] = -1;
		for (int j = 0; j < r; j++)
			cost[g.addArc(v[i], v[r + j])] = -d[(size_t)i * r + j];
	}
	long long theirs = -1;
	double t_lemon = median_ms(reps, [&] {
		lemon::NetworkSimplex<lemon::SmartDigraph, long long, long long> ns(g);
		ns.costMap(cost).supplyMap(sup);
		if (ns.run() != ns.OPTIMAL)
			std::abort();
		theirs = -ns.totalCost();
	});

	bool eq = ours == theirs && blossom == ours;
	char name[32];
	std::snprintf(name, sizeof name, "directed R=%d", r);
	std::printf("%-17s %10.2f %10.2f %8.2f   %s (%lld)  blossom(2R) %.2f ms\n",
		    name, t_ours, t_lemon, t_ours / t_lemon, eq ? "equal" : "DIFFERENT",
		    (long long)ours, t_blossom);
	if (!eq)
		std::printf("  ours %lld lemon %lld blossom %lld\n", (long long)ours,
			    theirs, (long long)blossom);
	return eq;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? std::atoi(argv[1]) : 5;
	if (reps < 1)
		reps = 1;
	std::mt19937_64 rng(20240601);
	bool ok = true;
	std::printf("# median of %d runs (3 at the largest size); times in ms\n", reps);
	std::printf("# general: vs lemon::MaxWeightedMatching, complete graph, w in [1,1e6]\n");
	std::printf("# ties: the same with w in [0,10] (many equal optima, zero edges)\n");
	std::printf("# directed: ours = assignment solver; vs lemon::NetworkSimplex; d in [0,1e12]\n");
	std::printf("%-17s %10s %10s %8s   %s\n", "case", "ours", "lemon", "ratio", "optimum");
	for (int n : { 100, 300, 1000 })
		ok &= bench_general(n, 1000000, n >= 1000 ? std::min(reps, 3) : reps, rng);
	ok &= bench_general(300, 10, reps, rng);  // many equal weights
	for (int r : { 100, 300, 1000 })
		ok &= bench_directed(r, r >= 1000 ? std::min(reps, 3) : reps, rng);
	return ok ? 0 : 1;
}
