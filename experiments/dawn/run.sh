#!/bin/sh
# Reproduce Dawn's evaluation (seed 000, §IV): Dawn against Fair with delay
# scheduling (delay) and ShuffleWatcher (sw-delay) on the ML chains and the
# TPC-H queries on MapReduce, and Dawn against Fair on Tez.
#
#   sudo experiments/dawn/run.sh [--quick] [--backend emu|sim] [--seeds "1 2 ..."] [-j N]
#
#   --backend emu   (default; root) 3 seeds of a lighter setup on the emulator
#                   (prefix dawn), one run at a time, then the same on the simulator
#   --backend sim   the full setup on the flow-level simulator, 10 seeds, no root
#   --quick         one seed, lighter workloads: runs and report under RES/dawnquick-*
#   --seeds LIST    workload seeds (default 1..10; the emulator takes the first 3)
#   -j N            simulator runs at once (default PAR, or one per core)
#   --slurm[=ARGS]  the simulator's runs on a Slurm cluster: each a task of a job array
#                   (at most -j at once), the report a job after them; ARGS go to sbatch
#
# Environment: RES (results root, default results/; given, the report goes to
# RES/<exp>-report instead of experiments/dawn/out), OUT (the report directory),
# EMU (the emu binary), PAR.
#
# Runs: RES/<exp>/<scheduler>/<backend>-s<seed>/ with exp dawn-ml, dawn-tpch,
# dawn-tez (dawnquick-* with --quick, dawnemu-* for the emulator's setup); each
# keeps xrack.csv (cross-rack bytes by kind and reading stage, from flows.csv,
# which is then deleted) and dawn's log line (where its offers went).
set -eu
. "$(dirname "$0")/../lib.sh"
BACKEND=emu; QUICK=0; SEEDS="1 2 3 4 5 6 7 8 9 10"; REPS=3
study_args "$@"
study_check "$BACKEND"

# ---- parameters (docs/reproduction.md, "Dawn") --------------------------------
# The emulator runs the 6x6 cluster 20x faster than real time at 1/40 of its
# rates (25 Mb/s servers, 12.5 Mb/s uplinks), bytes scaled by their product, as
# experiments/nas: every transfer keeps its duration relative to the tasks.
TOPO=${TOPO:-$ROOT/topologies/dawn-6x6.conf}
DATA=0.00125; TIME=0.05; RATE=0.025
ML_CHAINS=9; QUERIES=22               # one of each of B1..B9; the 22 queries once
SLOW_BASE=0.05                        # Hadoop's slowstart for Fair and Dawn (Dawn waits for its maps itself)
SLOW_SW=0.2                           # ShuffleWatcher's (sw-delay's help)
X=dawn; PREFIX=dawn
if [ $QUICK -eq 1 ]; then
    X=dawnquick; ML_CHAINS=3; QUERIES=8; SEEDS=$(echo "$SEEDS" | cut -d' ' -f1); REPS=1
fi
# The emulator: the same cluster, fewer chains and queries (each run a few minutes).
EMU_ML=3; EMU_Q=8
if [ -z "${OUT:-}" ]; then
    OUT=$HERE/out
    [ "$X" = dawn ] && [ -z "$RES_GIVEN" ] || OUT=$RES/$X-report
fi
first() { n=$1; shift; echo "$@" | tr ' ' '\n' | grep . | head -n "$n" | tr '\n' ' '; }
mkdir -p "$OUT" "$RES"
LOGS=$RES/$X-logs; mkdir -p "$LOGS"
T0=$(date +%s)
elapsed() { s=$(( $(date +%s) - T0 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

done_run() { [ -f "$1/summary.json" ] && ! grep -q '"partial": true' "$1/summary.json"; }

# Cross-rack bytes by flow kind and by the stage of the task that read them.
xrack() {   # dir
    python3 - "$1" <<'PY'
import csv, collections, sys
d = sys.argv[1]
stage = {r["task"]: r["stage"] for r in csv.DictReader(open(d + "/tasks.csv"))}
acc = collections.Counter()
for r in csv.DictReader(open(d + "/flows.csv")):
    if r["src_rack"] != r["dst_rack"] and r["kind"] in ("input", "shuffle"):
        acc[(r["kind"], stage.get(r["task"], "?"))] += int(r["bytes"])
with open(d + "/xrack.csv.tmp", "w") as f:
    f.write("kind,stage,bytes\n")
    for (k, s), b in sorted(acc.items()):
        f.write("%s,%s,%d\n" % (k, s, b))
PY
    mv "$1/xrack.csv.tmp" "$1/xrack.csv"
    rm -f "$1/flows.csv"
}

# run EXP BACKEND SCHED SEED [emu run args...]
run() {
    exp=$1; be=$2; sc=$3; seed=$4; shift 4
    name=$be-s$seed; dir=$RES/$exp/$sc/$name
    if done_run "$dir" && [ -f "$dir/xrack.csv" ]; then echo "  $exp/$sc/$name: done already"; return 0; fi
    rm -rf "$dir"
    log=$LOGS/$exp-$sc-$name.log
    slow=$SLOW_BASE; [ "$sc" = sw-delay ] && slow=$SLOW_SW
    opts=""; [ "$sc" = dawn ] && opts="--sched-opt report=on"
    if [ "$be" = emu ]; then
        printf '  [%s] %s/%s/%s ... ' "$(elapsed)" "$exp" "$sc" "$name"
        # shellcheck disable=SC2086
        made_again_if_machine_limited "$dir" "$EMU" run --backend emu --prefix "$PREFIX" --experiment "$exp" \
            --run "$name" --results "$RES" --scheduler "$sc" --seed "$seed" --slowstart $slow --quiet \
            --timeout 3600 $opts "$@" > "$log" 2>&1 || true
        [ -f "$dir/flows.csv" ] && xrack "$dir"
        if [ -f "$dir/summary.json" ]; then echo "$(grep -o '"verdict": *"[^"]*"' "$dir/summary.json" | head -n 1)"; else echo "no results"; fi
    else
        # shellcheck disable=SC2086
        "$EMU" run --backend sim --experiment "$exp" --run "$name" --results "$RES" --scheduler "$sc" \
            --seed "$seed" --slowstart $slow --quiet --timeout 10000000 $opts "$@" > "$log" 2>&1 || true
        [ -f "$dir/flows.csv" ] && xrack "$dir"
        par_done "$exp/$sc/$name"
    fi
    grep '^dawn:' "$log" > "$dir/dawn.txt" 2>/dev/null || true
}

SCALE="--topology $TOPO --data-scale $DATA --time-scale $TIME --rate-scale $RATE"
study() {   # backend prefix seeds chains queries
    be=$1; px=$2; seeds=$3; chains=$4; queries=$5
    for seed in $seeds; do
        for sc in delay sw-delay dawn; do
            # shellcheck disable=SC2086
            par run "$px-ml" "$be" "$sc" "$seed" $SCALE --generator dawn-ml --jobs "$chains"
            # shellcheck disable=SC2086
            par run "$px-tpch" "$be" "$sc" "$seed" $SCALE --generator dawn-tpch --jobs "$queries"
        done
        for sc in delay dawn; do
            # shellcheck disable=SC2086
            par run "$px-tez" "$be" "$sc" "$seed" $SCALE --generator dawn-tez --jobs "$queries"
        done
    done
    par_wait
}

echo "Dawn experiments: backend $BACKEND, results in $RES/$X-*"
if [ "$BACKEND" = emu ]; then
    "$EMU" cleanup --prefix "$PREFIX" >/dev/null 2>&1 || true
    trap '"$EMU" cleanup --prefix "$PREFIX" >/dev/null 2>&1 || true' EXIT
    ES=$(first "$REPS" $SEEDS)
    [ $QUICK -eq 1 ] && { EMU_ML=2; EMU_Q=4; }
    echo "emulator: seeds $ES, $EMU_ML chains, $EMU_Q queries"
    par_start 1 0
    study emu "${X}emu" "$ES" "$EMU_ML" "$EMU_Q"
    echo "simulator: the same runs"
    par_start "${PAR:-}" 0
    study sim "${X}emu" "$ES" "$EMU_ML" "$EMU_Q"
else
    echo "simulator: seeds $SEEDS, $ML_CHAINS chains, $QUERIES queries"
    par_start "${PAR:-}" 0
    study sim "$X" "$SEEDS" "$ML_CHAINS" "$QUERIES"
fi
par_end
echo "[$(elapsed)] report"
python3 "$HERE/report.py" "$RES" "$OUT" "$X"
echo "report: $OUT/REPORT.md ($(elapsed))"
