#!/bin/sh
# Makes the expected results of the scheduler regression test
# (tests/unit/test_regress.c): every case of cases.txt on the simulator, with
# the fabric of topo.conf; of each run its summary.json, jobs.csv and ocs.csv,
# and tasks.csv and flows.csv gzipped.  Run it only when a change of results is
# intended, and say in the commit which numbers moved and why.
#
#   tests/data/regress/make.sh      (from anywhere; needs build/bin/emu)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
EMU=${EMU:-$ROOT/build/bin/emu}
[ -x "$EMU" ] || { echo "make.sh: $EMU missing: run make first" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
grep -v '^#' "$HERE/cases.txt" | while read -r name args; do
    [ -n "$name" ] || continue
    # shellcheck disable=SC2086 # the case's options are words
    (cd "$ROOT" && "$EMU" run --backend sim --topology tests/data/regress/topo.conf --results "$TMP" \
        --experiment regress --run "$name" --quiet $args)
    run=$(echo "$TMP"/regress/*/"$name")
    rm -rf "${HERE:?}/$name"
    mkdir -p "$HERE/$name"
    cp "$run/summary.json" "$run/jobs.csv" "$run/ocs.csv" "$HERE/$name/"
    for f in tasks flows; do gzip -n -9 < "$run/$f.csv" > "$HERE/$name/$f.csv.gz"; done
done
echo "make.sh: expected results in $HERE"
