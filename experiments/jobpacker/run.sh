#!/bin/sh
# Reproduce the dissertation's Chapter 4 emulation (GENI) experiments:
# JobPacker vs F-Hybrid (Fair on the hybrid network), Corral, and F-EPS
# (Fair on an EPS-only network as fast as the OCS).
#
#   sudo experiments/jobpacker/run.sh [--quick] [--reps N] [--trace FILE] [--jobs N]
#        experiments/jobpacker/run.sh --backend sim [...]   (flow-level model, no root, seconds)
#
# Scenarios (each with N seeded repetitions):
#   batch       all jobs at t = 0: makespan (Fig. 4.13), OCS/EPS split (Fig. 4.14)
#   online      arrivals uniform in a window: JCT CDF and median (Figs. 4.15, 4.16)
#   mixed       half recurring, half ad hoc, online (Fig. 4.19)
#   sensitivity JobPacker's batch makespan vs reconfiguration interval and delta
# Results: results/jobpacker/<scenario>-<system>-s<seed>/..., then CSVs,
# gnuplot plots and REPORT.md in experiments/jobpacker/out/ (with --backend
# sim: results/jobpacker-sim/ and experiments/jobpacker/out-sim/).  The
# JobPacker and Corral plans (JOBPACKER_PLAN_LOG) go to out/<run>.plan.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
EMU=${EMU:-$ROOT/build/bin/emu}
OUT=${OUT:-$HERE/out}
RES=${RES:-$ROOT/results}
QUICK=0; REPS=3; TRACE=""; JOBS=""; BACKEND=emu
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) QUICK=1 ;;
    --reps) REPS=$2; shift ;;
    --trace) TRACE=$2; shift ;;
    --jobs) JOBS=$2; shift ;;
    --backend) BACKEND=$2; shift ;;
    -h|--help) sed -n 2,20p "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case $BACKEND in
emu) [ "$(id -u)" -eq 0 ] || { echo "run.sh: needs root (sudo), or --backend sim" >&2; exit 2; } ;;
sim) OUT=${OUT_SIM:-$HERE/out-sim}; EXP=jobpacker-sim ;;
*) echo "run.sh: --backend emu|sim" >&2; exit 2 ;;
esac
EXP=${EXP:-jobpacker}
[ -x "$EMU" ] || { echo "run.sh: $EMU missing: run make first" >&2; exit 2; }
if [ $QUICK -eq 1 ]; then REPS=1; : "${JOBS:=12}"; WINDOW=60; SENS=0; else : "${JOBS:=30}"; WINDOW=120; SENS=1; fi
mkdir -p "$OUT"

# system name -> scheduler, topology
sched_of() { case $1 in F-Hybrid|F-EPS) echo fair ;; JobPacker) echo jobpacker ;; Corral) echo corral ;; esac; }
topo_of() { case $1 in F-EPS) echo "$ROOT/topologies/geni-10rack-eps.conf" ;; *) echo "$ROOT/topologies/geni-10rack.conf" ;; esac; }
# JobPacker's slowstart is 0.7 (the dissertation); the baselines keep Hadoop's 0.05.
slowstart_of() { case $1 in JobPacker) echo 0.7 ;; *) echo 0.05 ;; esac; }
SYSTEMS=${SYSTEMS:-"JobPacker F-Hybrid Corral F-EPS"}

one() {  # scenario system seed [extra emu args...]
    sc=$1; sys=$2; seed=$3; shift 3
    name="$sc-$sys-s$seed"
    dir="$RES/$EXP/$(sched_of "$sys")/$name"
    if [ -f "$dir/summary.json" ]; then echo "  $name: done already"; return; fi
    echo "  $name"
    rm -f "$OUT/$name.plan"
    wl=""
    [ -n "$TRACE" ] && wl="--workload $TRACE"
    # shellcheck disable=SC2086
    JOBPACKER_PLAN_LOG="$OUT/$name.plan" "$EMU" run --backend "$BACKEND" --prefix jp --experiment "$EXP" \
        --run "$name" --results "$RES" --quiet \
        --topology "$(topo_of "$sys")" --scheduler "$(sched_of "$sys")" --seed "$seed" \
        --jobs "$JOBS" --slowstart "$(slowstart_of "$sys")" --recurring 1 $wl "$@" > "$OUT/$name.log" 2>&1 ||
        echo "    (exit $?; see $OUT/$name.log)"
}

# Workload seeds, one per repetition.  The synthetic workload is heavy-tailed
# like SWIM: some seeds draw a job of 10,000 maps that takes the GENI-sized
# cluster many minutes; these draw mixes that fit the emulated cluster.
SEEDS=${SEEDS:-"4 5 6 8 9"}
rep=0
for seed in $SEEDS; do
    rep=$((rep + 1))
    [ $rep -le "$REPS" ] || break
    echo "repetition $rep of $REPS (seed $seed)"
    for sys in $SYSTEMS; do
        one batch "$sys" $seed --arrivals batch
        one online "$sys" $seed --arrivals uniform:$WINDOW
        one mixed "$sys" $seed --arrivals uniform:$WINDOW --recurring 0.5
    done
    if [ $SENS -eq 1 ]; then
        for iv in 0.5 2; do one "sens-interval$iv" JobPacker $seed --arrivals batch --ocs-interval $iv; done
        for d in 0.005 0.02; do one "sens-delta$d" JobPacker $seed --arrivals batch --delta $d; done
    fi
done
python3 "$HERE/report.py" "$RES/$EXP" "$OUT"
command -v gnuplot >/dev/null && (cd "$OUT" && gnuplot "$HERE/plots.gp") && echo "plots in $OUT"
echo "report: $OUT/REPORT.md"
