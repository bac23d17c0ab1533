#!/bin/sh
# Matching benchmark: our blossom and assignment solvers vs LEMON (speed
# reference and oracle: the optimum weights must be equal).  Run by
# `make bench` with BUILD set to the build directory; extra arguments are
# passed on (the first is the number of repetitions, default 5).
set -e
BUILD=${BUILD:-build}
bin="$BUILD/bench/match_bench"
if [ ! -x "$bin" ]; then
	echo "match.sh: $bin not built (make $bin)" >&2
	exit 1
fi
echo "== matching: ours vs LEMON ($bin) =="
exec "$bin" "$@"
