#!/bin/sh
# Reproduce FAWKES's evaluation (seed 003): the weighting policies on WKLD-D
# (Fig. 9: per-cluster average slowdown, reconfigurations), TD against EQ on
# WKLD-E (Fig. 11's reconfigurations), None, EQ and TD growing with TR or TC
# on WKLD-B and C (Fig. 7: per-cluster makespans), the cluster sizes of
# WKLD-A under JD (Fig. 6), and the node types' overhead for Sort (Fig. 3a:
# 10 core + 10 TR or TC servers against 20 core).
#
#   experiments/fawkes/run.sh [--quick] [--backend emu|sim] [--seeds "1 2 ..."]
#
#   --backend sim   (default) the flow-level simulator, no root
#   --backend emu   the emulator (root), one seed, WKLD-D at 10% of its jobs
#   --quick         one seed, WKLD-D and E at 25% of their jobs: RES/fawkesquick-*
#   --seeds LIST    workload seeds (default 1..10)
#   -j N            simulator runs at once (default PAR, or one per core)
#   --slurm[=ARGS]  the simulator's runs on a Slurm cluster: each a task of a job array
#                   (at most -j at once), the report a job after them; ARGS go to sbatch
#
# Environment: RES (results root, default results/; given, the report goes to
# RES/<exp>-report instead of experiments/fawkes/out), OUT, EMU.
#
# Runs: RES/<exp>/fawkes/<policy>-<backend>-s<seed>/ with the policy's log
# beside it (<run>-periods.csv, <run>-jobs.csv; docs/reproduction.md, FAWKES);
# exp fawkes-d (WKLD-D), fawkes-e (WKLD-E), fawkes-{b,c}-{tr,tc} (Fig. 7),
# fawkes-a (Fig. 6), fawkes-sort (Fig. 3a).
set -eu
. "$(dirname "$0")/../lib.sh"
BACKEND=sim; QUICK=0; SEEDS="1 2 3 4 5 6 7 8 9 10"
study_args "$@"
study_check "$BACKEND"

# ---- parameters (docs/reproduction.md, "FAWKES") ------------------------------
TOPO48=$ROOT/topologies/fawkes-48.conf
TOPO20=$ROOT/topologies/fawkes-20.conf
# Every duration x 0.1: bytes x 0.01 (GENI's scale) over links at 0.1 of their
# rates, compute and arrivals x 0.1.  T = 120 s becomes 12 s, and tau = 10 (D
# in seconds, squared) becomes 10 x 0.1^2 (for T = 60 s too).
SCALE="--data-scale 0.01 --time-scale 0.1 --rate-scale 0.1"; T=12; TAU=0.1; TAU60=0.1; PCT=100
POLICIES="none eq jd dd td pu du ru js jt tt"
X=fawkes
if [ $QUICK -eq 1 ]; then
    X=fawkesquick; PCT=25; SEEDS=$(echo "$SEEDS" | cut -d' ' -f1)
fi
if [ "$BACKEND" = emu ]; then
    X=${X}emu; PCT=10; SEEDS=$(echo "$SEEDS" | cut -d' ' -f1)
fi
if [ -z "${OUT:-}" ]; then
    OUT=$HERE/out
    [ "$X" = fawkes ] && [ -z "$RES_GIVEN" ] || OUT=$RES/$X-report
fi
mkdir -p "$OUT" "$RES"

# run EXP NAME SEED TOPOLOGY GENERATOR [--sched-opt ...]: results in
# RES/EXP/fawkes/NAME-BACKEND-sSEED/, the policy's log beside them.
run() {
    exp=$1 name=$2 seed=$3 topo=$4 gen=$5; shift 5
    log=$RES/$exp/fawkes/$name-$BACKEND-s$seed
    [ -f "$log/summary.json" ] && [ -f "$log-jobs.csv" ] && return 0
    mkdir -p "$RES/$exp/fawkes"
    # shellcheck disable=SC2086 # SCALE is words
    "$EMU" run --backend "$BACKEND" --topology "$topo" --generator "$gen" --jobs "$PCT" --seed "$seed" \
        $SCALE --scheduler fawkes --sched-opt period=$T --sched-opt tau=$TAU --sched-opt "log=$log" "$@" \
        --results "$RES" --experiment "$exp" --run "$name-$BACKEND-s$seed" --timeout 100000 --no-flows --quiet
    rm -f "$log/links.csv"
    echo "  $exp $name seed $seed"
}

# Simulator runs side by side (../parallel.sh); emulated runs one at a time.
if [ "$BACKEND" = emu ]; then par_start 1 0; else par_start "${PAR:-}" 0; fi
echo "Fig. 9: WKLD-D, every policy ($BACKEND)"
for s in $SEEDS; do
    for p in $POLICIES; do
        par run $X-d "$p" "$s" "$TOPO48" "fawkes:wkld=4" --sched-opt "policy=$p"
    done
done
echo "Fig. 11: WKLD-E, TD and EQ"
for s in $SEEDS; do
    for p in td eq none; do
        par run $X-e "$p" "$s" "$TOPO48" "fawkes:wkld=5" --sched-opt "policy=$p"
    done
done
echo "Fig. 7: WKLD-B (WC) and WKLD-C (ST), None, EQ and TD, growing with TR or TC (T = 60 s)"
for s in $SEEDS; do
    for w in b:2 c:3; do
        for g in tr tc; do
            for p in none eq td; do
                par run $X-${w%%:*}-$g "$p" "$s" "$TOPO48" "fawkes:wkld=${w#*:}" --sched-opt "policy=$p" \
                    --sched-opt "grow=$g" --sched-opt period=$((T / 2)) --sched-opt tau=$TAU60
            done
        done
    done
done
echo "Fig. 6: WKLD-A, JD, TR (T = 60 s)"
par run $X-a jd 1 "$TOPO48" "fawkes:wkld=1" --sched-opt policy=jd --sched-opt grow=tr --sched-opt period=$((T / 2)) \
    --sched-opt tau=$TAU60
# Fig. 3a: one 200 GB Sort on 20 servers: all core, or 10 core grown at
# once (EQ, one cluster, a period of 0.1 s, tau 0) by 10 TR or TC servers.
echo "Fig. 3a: Sort on 20 core, 10 core + 10 TR, 10 core + 10 TC"
SORT=$RES/$X-sort.json
# Whole or not at all (a temporary, then mv): on Slurm every task writes it while others read.
printf '{"jobs": [{"name": "c1-st-200g", "cluster": 1, "input": "200GiB", "shuffle": "200GiB", "output": "200GiB", "reduces": 36, "map_duration": 15}]}\n' > "$SORT.$$"
mv "$SORT.$$" "$SORT"
sort_run() {   # name core grow
    log=$RES/$X-sort/fawkes/$1-$BACKEND-s1
    if [ ! -f "$log-jobs.csv" ]; then
        mkdir -p "$RES/$X-sort/fawkes"
        # shellcheck disable=SC2086 # SCALE is words
        "$EMU" run --backend "$BACKEND" --topology "$TOPO20" --workload "$SORT" $SCALE --scheduler fawkes \
            --sched-opt policy=eq --sched-opt clusters=1 --sched-opt "core=$2" --sched-opt "grow=$3" \
            --sched-opt period=0.1 --sched-opt sample=0.1 --sched-opt tau=0 --sched-opt "log=$log" \
            --results "$RES" --experiment "$X-sort" --run "$1-$BACKEND-s1" --timeout 100000 --no-flows --quiet
        rm -f "$log/links.csv"
    fi
    echo "  sort $1"
}
for cfg in core:20:tc tr:10:tr tc:10:tc; do
    name=${cfg%%:*}; rest=${cfg#*:}
    par sort_run "$name" "${rest%%:*}" "${rest#*:}"
done

par_wait
par_end
python3 "$HERE/report.py" "$RES" "$X" "$BACKEND" "$OUT"
echo "report: $OUT/REPORT.md"
