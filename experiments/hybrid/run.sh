#!/bin/sh
# Reproduce the dissertation's Chapter 5: the hybrid scale-up/scale-out
# cluster (H-FS, H-DS) against the equal-cost scale-out cluster (FS, DS), the
# hybrid cluster without the strategies (H-FS-w/o, H-DS-w/o: fair and delay on
# it), the ablations (H-w/o-P, H-w/o-JS, H-w/o-DPS) and the SVM's accuracy.
#
#   experiments/hybrid/run.sh --backend sim [--quick] [--seeds "1 2 .."] [--jobs N]
#   sudo experiments/hybrid/run.sh [--quick] ...        the emulator (reduced scale)
#
#   --backend sim   the simulation of §5.3.1: 19 x 30 scale-out + 1 x 6 scale-up
#                   servers against 20 x 30 scale-out, no root
#   --backend emu   (default; root) the real cluster of §5.3.1 at reduced rates:
#                   4 x 10 + 1 x 2 against 5 x 10, one emulated run at a time
#   --quick         one seed, fewer jobs: runs and report under RES/hybridquick-*,
#                   the committed report is left alone
#   --seeds LIST    workload seeds (default 1 to 10; the emulator runs the first --reps)
#   --reps N        emulator: repetitions (default 1)
#   --jobs N        jobs per run (simulator 200, emulator 40; --quick 60 and 20)
#   -j N            simulator runs at once (default PAR, or 2)
#   --slurm[=ARGS]  the simulator's runs on a Slurm cluster: each a task of a job array
#                   (at most -j at once), the report a job after them; ARGS go to sbatch.
#                   The labels' solo runs come first, made by the submitting call
#
# Environment: RES (results root, default results/; given, the report goes to
# RES/hybrid-report instead of experiments/hybrid/out), OUT (the report
# directory), EMU (the emu binary), PAR (simulator runs at a time, 2),
# ABL_SEEDS (how many seeds the ablations run, 5).
#
# Steps (docs/reproduction.md, "Chapter 5"):
#   labels    each job of a training workload (generator seed 1000) and of every
#             evaluation workload run alone on one scale-up server and on five
#             scale-out ones (solo.py; solo-up.conf, solo-out.conf): the label is
#             the faster platform (§5.2.2)
#   runs      RES/<X>-trad/<sched>/<scenario>-s<seed>  fair, delay on the scale-out cluster
#             RES/<X>-hyb/<sched>/<scenario>-s<seed>   h-fs, h-ds, fair, delay and the
#                                                     ablations on the hybrid cluster
#             scenario batch (all at 0) or online (uniform arrivals); half the jobs recurring
#   accuracy  the SVM's class of every job with all of them recurring (h-fs cut at 1 s:
#             every batch job is classified on arrival) and half (the runs above)
# then report.py writes REPORT.md and the CSVs.
set -eu
. "$(dirname "$0")/../lib.sh"
BACKEND=emu; QUICK=0; SEEDS="1 2 3 4 5 6 7 8 9 10"; REPS=1; JOBS=""
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) QUICK=1 ;;
    --backend|--seeds|--reps|--jobs)
        [ $# -ge 2 ] || die "$1 needs a value (see --help)"
        case "$1" in
        --backend) BACKEND=$2 ;;
        --seeds) SEEDS=$2 ;;
        --reps) REPS=$2 ;;
        --jobs) JOBS=$2 ;;
        esac
        shift ;;
    -j) [ $# -ge 2 ] || die "-j needs a value (see --help)"; PAR=$2; shift ;;
    --slurm|--slurm=*) slurm_opt "$1" ;;
    -h|--help) study_help ;;
    *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done
study_check "$BACKEND"
for n in $SEEDS $REPS ${JOBS:-1}; do
    case $n in ''|*[!0-9]*) die "seeds, --reps and --jobs are non-negative integers, not '$n'" ;; esac
done

# ---- parameters (docs/reproduction.md, "Chapter 5") ---------------------------
# Sizes and times as on the real cluster (data and time scale 1) on the
# simulator; the dissertation's 1 s heartbeat; half of the jobs recurring
# (§5.3.2); online arrivals at FB-2010's rate (a mean gap of 3.54 s).
if [ "$BACKEND" = sim ]; then
    HYB=$ROOT/topologies/hybrid-ch5-sim-crosspoint.conf; TRAD=$ROOT/topologies/scaleout-ch5-sim.conf
    : "${JOBS:=200}"; [ $QUICK -eq 1 ] && JOBS=60
    SCALE="--data-scale 1 --time-scale 1"
else
    # The real cluster's 42 and 50 servers at a tenth of their rates, bytes and
    # times scaled alike (docs/reproduction.md).
    HYB=$ROOT/topologies/hybrid-ch5-crosspoint.conf; TRAD=$ROOT/topologies/scaleout-ch5.conf
    : "${JOBS:=40}"; [ $QUICK -eq 1 ] && JOBS=20
    SCALE="--data-scale 0.01 --time-scale 0.1 --rate-scale 0.1"
fi
GAP=3.54
WINDOW=$(awk -v n="$JOBS" -v g=$GAP 'BEGIN { printf "%d", n * g }')
COMMON="--heartbeat 1 --recurring 0.5"
TRAIN_SEED=1000; TRAIN_JOBS=1000
X=hybrid
[ "$BACKEND" = emu ] && X=hybridemu
if [ $QUICK -eq 1 ]; then
    X=${X}quick; SEEDS=$(echo "$SEEDS" | cut -d' ' -f1); TRAIN_JOBS=300
fi
[ "$BACKEND" = emu ] && SEEDS=$(echo "$SEEDS" | tr ' ' '\n' | grep . | head -n "$REPS" | tr '\n' ' ')
ABL_SEEDS=$(echo "$SEEDS" | tr ' ' '\n' | grep . | head -n "${ABL_SEEDS:-5}" | tr '\n' ' ')
if [ -z "${OUT:-}" ]; then
    OUT=$HERE/out
    [ "$X" = hybrid ] && [ -z "$RES_GIVEN" ] || OUT=$RES/$X-report
fi
LOGS=$RES/$X-logs; LAB=$RES/$X-labels; CLS=$RES/$X-classes
mkdir -p "$OUT" "$LOGS" "$LAB" "$CLS"
T0=$(date +%s)
elapsed() { s=$(( $(date +%s) - T0 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

done_run() { [ -f "$1/summary.json" ] && ! grep -q '"partial": true' "$1/summary.json"; }
show() {
    python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
print("makespan %.0f s, JCT mean %.1f s, median %.1f s, %s" % (
    s["makespan_s"], s["jct_mean_s"], s["jct_median_s"], s["fidelity"]["verdict"]))
PY
}

cleanup() { [ "$BACKEND" = sim ] || "$EMU" cleanup --prefix hyb >/dev/null 2>&1 || true; }
trap cleanup EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT TERM

# ---- labels: solo runs on each platform -------------------------------------
# label NAME [workload args]: every job of that workload alone on each platform
label() {
    name=$1; shift
    [ -s "$LAB/$name.csv" ] && return 0
    # shellcheck disable=SC2068
    "$EMU" run --backend sim --data-scale 1 --time-scale 1 --dry-run $@ > "$LAB/$name.txt"
    python3 "$HERE/solo.py" chain "$LAB/$name.txt" "$LAB/$name.json"
    for p in up out; do
        "$EMU" run --backend sim --topology "$HERE/solo-$p.conf" --workload "$LAB/$name.json" --jobs 1000000 \
            --data-scale 1 --time-scale 1 --heartbeat 1 --scheduler fifo --results "$LAB" --experiment solo \
            --run "$name-$p" --quiet --timeout 10000000 > "$LOGS/solo-$name-$p.log" 2>&1
    done
    python3 "$HERE/solo.py" labels "$LAB/$name.json" "$LAB/solo/fifo/$name-up" "$LAB/solo/fifo/$name-out" \
        "$LAB/$name.csv"
    rm -rf "$LAB/solo/fifo/$name-up" "$LAB/solo/fifo/$name-out"
    printf '  [%s] labels %s: %s\n' "$(elapsed)" "$name" "$(awk -F, 'NR > 1 { n[$NF]++ }
        END { printf "%d jobs, %d scale-up, %d scale-out", n["up"] + n["out"], n["up"], n["out"] }' "$LAB/$name.csv")"
}

# ---- one run ----------------------------------------------------------------
# run EXP TOPO SCHED SCENARIO SEED [emu run args...]
run() {
    exp=$1; topo=$2; sc=$3; scen=$4; seed=$5; shift 5
    name=$scen-s$seed; dir=$RES/$exp/$sc/$name; log=$LOGS/$exp-$sc-$name.log
    if done_run "$dir"; then echo "  $exp/$sc/$name: done already"; return 0; fi
    rm -rf "$dir"
    arr=""; [ "$scen" = online ] && arr="--arrivals uniform:$WINDOW"
    case $sc in h-*) set -- "$@" --sched-opt "svm_train=$LAB/train.csv" --sched-opt "class_log=$CLS/$exp-$sc-$name.csv" ;; esac
    extra="--timeout 10000000 --no-flows"; [ "$BACKEND" = emu ] && extra="--prefix hyb --timeout 3600"
    # shellcheck disable=SC2086
    made_again_if_machine_limited "$dir" "$EMU" run --backend "$BACKEND" --topology "$topo" --jobs "$JOBS" \
        --seed "$seed" $SCALE $COMMON $arr --scheduler "$sc" --experiment "$exp" --run "$name" --results "$RES" \
        --quiet $extra "$@" > "$log" 2>&1 || true
    if [ -f "$dir/summary.json" ]; then
        printf '  [%s] %s/%s/%s: %s%s\n' "$(elapsed)" "$exp" "$sc" "$name" "$(show "$dir")" "$MADE_AGAIN"
    else
        printf '  [%s] %s/%s/%s: no results: %s\n' "$(elapsed)" "$exp" "$sc" "$name" "$(tail -n 1 "$log")"
    fi
}

echo "Chapter 5 (hybrid scale-up/out): backend $BACKEND, $JOBS jobs, seeds $SEEDS, results in $RES/$X-*"
echo "labels: solo runs on one scale-up server and on five scale-out servers"
label train --jobs "$TRAIN_JOBS" --seed $TRAIN_SEED
for seed in $SEEDS; do
    label "eval-s$seed" --jobs "$JOBS" --seed "$seed"
done
# Simulator runs, PAR at a time (../parallel.sh; the simulator is single-threaded);
# emulated runs one at a time, with the prefix hyb.
if [ "$BACKEND" = emu ]; then par_start 1 0; else par_start "${PAR:-2}" 0; fi
# Every job recurring: its class with its predicted shuffle (classified on arrival, all
# at 0: a run cut at 1 s has them all).
allrec() {   # seed
    f=$CLS/allrec-s$1.csv
    # shellcheck disable=SC2086
    [ -s "$f" ] || "$EMU" run --backend sim --topology "$HYB" --jobs "$JOBS" --seed "$1" $SCALE --heartbeat 1 \
        --recurring 1 --scheduler h-fs --sched-opt "svm_train=$LAB/train.csv" --sched-opt "class_log=$f" \
        --experiment "$X-allrec" --run "s$1" --results "$RES" --quiet --timeout 1 > "$LOGS/allrec-s$1.log" 2>&1 || true
}
for seed in $SEEDS; do
    echo "seed $seed"
    for scen in batch online; do
        for sc in fair delay; do par run "$X-trad" "$TRAD" "$sc" "$scen" "$seed"; done
        for sc in h-fs h-ds fair delay; do par run "$X-hyb" "$HYB" "$sc" "$scen" "$seed"; done
        case " $ABL_SEEDS " in *" $seed "*)
            for sc in h-wo-p h-wo-js h-wo-dps; do par run "$X-hyb" "$HYB" "$sc" "$scen" "$seed"; done ;;
        esac
    done
    par allrec "$seed"
done
par_wait
par_end
echo "[$(elapsed)] report"
python3 "$HERE/report.py" "$RES" "$OUT" "$X" "$SEEDS"
echo "report: $OUT/REPORT.md ($(elapsed))"
