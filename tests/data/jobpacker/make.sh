#!/bin/sh
# Makes the small results trees that tests/unit/test_experiments.c runs
# experiments/jobpacker/report.py over, with run.sh itself on the flow-level simulator:
#
#   geni/   run.sh --backend sim --scale geni: seeds 4 and 5, 8 jobs fitted to 40 maps, the
#           batch, online and mixed scenarios of the four systems; JobPacker's and F-EPS's
#           online runs at twice GENI's arrival rate (load2, seed 4); JobPacker's batch at
#           delta 0.02 (sens-delta0.02, seed 4).  JobPacker's batch plans in geni/plans/.
#   paper/  run.sh --backend sim (paper scale): seeds 4 and 5, 20 jobs, the main scenarios
#           and Fig. 4.18's adhocagg runs; plans and provenance in jobpacker-sim/plans/.
#
# Only the files the reports read are kept: summary.json and jobs.csv of every run;
# tasks.csv (gzipped) of the GENI batch, online and load runs; flows.csv.gz of JobPacker's
# and Corral's GENI batch runs.  The other systems' batch runs have no flows, so the report's
# columns from flows show "–" for them.
#
#   tests/data/jobpacker/make.sh      (from anywhere; needs build/bin/emu)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
EMU=${EMU:-$ROOT/build/bin/emu}
[ -x "$EMU" ] || { echo "make.sh: $EMU missing: run make first" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
RUN="env EMU=$EMU $ROOT/experiments/jobpacker/run.sh"

RES=$TMP/g LOAD_RATES=2 ONLY='^(batch|online|mixed)-|^load2-(JobPacker|F-EPS)-s4$|^sens-delta0.02-' \
    $RUN --backend sim --scale geni --reps 2 --sens-reps 1 --seeds "4 5" --jobs 8 --max-maps 40 > "$TMP/g.log"
RES=$TMP/p $RUN --backend sim --reps 2 --seeds "4 5" --jobs 20 --no-sens > "$TMP/p.log"

rm -rf "$HERE/geni" "$HERE/paper"
mkdir -p "$HERE/geni/plans" "$HERE/paper"
mv "$TMP/g/jobpacker-sim-geni" "$HERE/geni/"
cp "$TMP/g/out-sim-geni"/batch-JobPacker-s*.plan "$HERE/geni/plans/"
mv "$TMP/p/jobpacker-sim" "$HERE/paper/"
find "$HERE/paper/jobpacker-sim/plans" -type f ! -name 'batch-JobPacker-*.plan' ! -name '*.bin' -delete
for d in "$HERE"/geni/jobpacker-sim-geni/*/* "$HERE"/paper/jobpacker-sim/*/*-s*; do
    [ -f "$d/summary.json" ] || continue
    run=$(basename "$d")
    keep="summary.json jobs.csv"
    case $d in
    */geni/*/batch-JobPacker-s*|*/geni/*/batch-Corral-s*) keep="$keep tasks.csv flows.csv.gz" ;;
    */geni/*/batch-*|*/geni/*/online-*|*/geni/*/load2-*) keep="$keep tasks.csv" ;;
    esac
    for f in "$d"/*; do
        case " $keep " in *" $(basename "$f") "*) ;; *) rm -f "$f" ;; esac
    done
    [ ! -f "$d/tasks.csv" ] || gzip -n -9 "$d/tasks.csv"
    : "$run"
done
du -sh "$HERE/geni" "$HERE/paper"
