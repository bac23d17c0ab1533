#!/bin/sh
# Reproduce the dissertation's Chapter 3 evaluation (NAS vs Fair, Delay and
# ShuffleWatcher-on-Delay) and the simulator validation of Tables 6.1/6.2.
#
#   sudo experiments/nas/run.sh [--quick] [--backend emu|sim] [--trace FILE]
#                               [--seeds "35 39 5 ..."] [--reps N] [--ablations]
#
#   --backend emu   (default; root) the CloudLab setup on the emulator, then the
#                   same runs on the simulator (Tables 6.1/6.2 compare the two)
#   --backend sim   everything on the flow-level simulator, no root: the CloudLab
#                   setup (more seeds, with the ablations), the same unscaled,
#                   the T_min/T_max sweep and the 600-server simulation
#   --quick         one or two light seeds, 60 jobs: runs and report under
#                   RES/nasquick-*, the committed report is left alone
#   --trace FILE    a SWIM trace instead of the synthetic workload: each seed
#                   samples 200 of its jobs; the 600-server run takes its first jobs
#                   with their own arrival times (report under RES/nastrace-report)
#   --seeds LIST    workload seeds (default: ten whose 200-job mix the 40-node
#                   cluster serves within 2.3x the arrival window, docs/reproduction.md);
#                   the emulator runs the first --reps (3), the simulator up to 10
#   --ablations     also run the ablations on the emulator (they always run on sim)
#   -j N            simulator runs at once (default PAR, or one per core); emulated
#                   runs go one by one
#   --slurm[=ARGS]  the simulator's runs on a Slurm cluster: each a task of a job array
#                   (at most -j at once), the report a job after them; ARGS go to sbatch
#
# Environment: RES (results root, default results/; given, the report goes to
# RES/nas-report instead of experiments/nas/out), OUT (the report directory),
# EMU (the emu binary), PAR (simulator runs at a time, -j), KEEP_FLOWS=1 (the
# simulated runs write flows.csv: 28 GB of the study's 33, and no report reads it).
#
# An emulated run the fidelity check finds machine-limited is made once more; the second
# is kept either way (../machine_limited.sh).
#
# Experiments: RES/<exp>/<scheduler>/<backend>-s<seed>[-tag]/ with exp
#   nas-cloudlab  8 racks x 5 servers, 16 containers, 1 Gb/s, 5:1 (ch. 3.3.1, 6.2);
#                 200 jobs, Poisson arrivals of mean gap 14 s (x the time scale)
#   nas-full      the same on the simulator with time, data and rates unscaled
#   nas-tsweep    NAS with T_min / T_max varied (Figs. 3.7, 3.16)
#   nas-sim600    30 racks x 20 servers, 6 containers, 250 Mb/s, 1 Gb/s uplinks
# then report.py writes the CSVs, the plots (plots.gp) and REPORT.md to
# experiments/nas/out/ (RES/<exp prefix>-report for --quick, --trace or a RES given).
set -eu
. "$(dirname "$0")/../lib.sh"
BACKEND=emu; QUICK=0; TRACE=""; SEEDS=""; REPS=3; SIMREPS=10; ABLATIONS=0
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) QUICK=1 ;;
    --backend) BACKEND=$2; shift ;;
    --trace) TRACE=$2; shift ;;
    --seeds) SEEDS=$2; shift ;;
    --reps) REPS=$2; shift ;;
    --ablations) ABLATIONS=1 ;;
    -j) PAR=$2; shift ;;
    --slurm|--slurm=*) slurm_opt "$1" ;;
    -h|--help) study_help ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
study_check "$BACKEND"
if [ -n "$TRACE" ]; then
    [ -r "$TRACE" ] || die "cannot read $TRACE"
    TRACE=$(cd "$(dirname "$TRACE")" && pwd)/$(basename "$TRACE")
fi

# ---- parameters (docs/reproduction.md, "Chapter 3: NAS") ---------------------
# The emulator runs the CloudLab cluster 20x faster than real time (time scale
# 0.05) at 1/40 of its link rates (rate scale 0.025: 25 Mb/s servers and
# uplinks; at 0.05 the fidelity check found >10% of the backlogged link-seconds
# slow), with bytes scaled by their product (data scale 0.00125), so every
# transfer keeps its real duration relative to the tasks: the trace's bytes on
# the real 1 Gb/s cluster.
TOPO=${TOPO:-$HERE/cloudlab-8x5-16c.conf}
DATA=${DATA_SCALE:-0.00125}; TIME=${TIME_SCALE:-0.05}; RATE=${RATE_SCALE:-0.025}
JOBS=${JOBS:-200}; GAP=14            # Poisson mean gap, seconds before --time-scale
SLOW=0.2                             # the baselines' map completion threshold (ch. 3.3.1)
TOPO600=${TOPO600:-$HERE/nas-30x20.conf}
JOBS600=${JOBS600:-1000}; GAP600=3.54   # FB-2010's mean inter-arrival gap
DATA600=${DATA600_SCALE:-0.25}; SEEDS600=${SEEDS600:-"1 2 3"}
PREFIX=nas                           # emu namespaces: nas-r0h0, ...
X=nas                                # experiment names nas-*
: "${SEEDS:=35 39 5 1 22 24 27 15 10 30}"
if [ $QUICK -eq 1 ]; then
    X=nasquick; JOBS=60; REPS=1; SIMREPS=2; JOBS600=200; SEEDS600=1
    [ "$SEEDS" = "35 39 5 1 22 24 27 15 10 30" ] && SEEDS="5 1"   # light mixes: ~1 min per emulated run
fi
if [ -n "$TRACE" ]; then
    X=${X%quick}trace$( [ $QUICK -eq 1 ] && echo quick || true )
fi
if [ -z "${OUT:-}" ]; then
    OUT=$HERE/out
    [ "$X" = nas ] && [ -z "$RES_GIVEN" ] || OUT=$RES/$X-report
fi
first() { n=$1; shift; echo "$@" | tr ' ' '\n' | grep . | head -n "$n" | tr '\n' ' '; }
EMU_SEEDS=$(first "$REPS" $SEEDS)
SIM_SEEDS=$(first "$SIMREPS" $SEEDS)
MAIN="fair delay sw-delay nas"
ABL="nas-mts nas-nott nas-noadapt"
mkdir -p "$OUT" "$RES"
LOGS=$RES/$X-logs; mkdir -p "$LOGS"
T0=$(date +%s)
elapsed() { s=$(( $(date +%s) - T0 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# ---- workloads --------------------------------------------------------------
# --trace: each seed samples JOBS jobs of the trace (in trace order), as the
# dissertation selected 200 jobs of FB-2010; arrivals are then re-drawn.
workload_args() {   # seed -> emu run arguments for the CloudLab workload
    if [ -z "$TRACE" ]; then
        echo "--jobs $JOBS --recurring 0"
        return
    fi
    f=$RES/$X-logs/trace-s$1.tsv
    # Whole or not at all (a temporary, then mv): on Slurm every task samples while others read.
    [ -f "$f" ] || python3 - "$TRACE" "$1" "$JOBS" "$f.$$" <<'PY'
import random, sys
src, seed, n, dst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
lines = [l for l in open(src) if l.strip()]
pick = sorted(random.Random(seed).sample(range(len(lines)), min(n, len(lines))))
with open(dst, "w") as f:
    t0 = None
    for i in pick:
        c = lines[i].rstrip("\n").split("\t")
        f.write("\t".join(c) + "\n")
PY
    [ ! -f "$f.$$" ] || mv "$f.$$" "$f"
    echo "--workload $f --jobs $JOBS"
}

# ---- one run ----------------------------------------------------------------
done_run() {   # dir -> 0 if a complete summary is there
    [ -f "$1/summary.json" ] && ! grep -q '"partial": true' "$1/summary.json"
}
show() {   # dir: one line of results
    python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
print("makespan %.1f s, avg JCT %.2f s, cross-rack %.0f MB, congestion %d, %s%s, wall %.0f s" % (
    s["makespan_s"], s["jct_mean_s"], s["cross_rack_bytes"] / 1e6, s.get("congestion", {}).get("rack_samples", -1),
    s["fidelity"]["verdict"], " PARTIAL (%s)" % s["stop_reason"] if s.get("partial") else "", s["wall_s"]))
PY
}

cleanup() {
    if [ "$BACKEND" = emu ]; then "$EMU" cleanup --prefix "$PREFIX" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT TERM

emu_run_once() {   # [emu run args...]: one attempt at the emulated run that run() set up
    rm -rf "$dir"
    "$EMU" cleanup --prefix "$PREFIX" >/dev/null 2>&1 || true
    rc=0
    # shellcheck disable=SC2046
    "$EMU" run --backend emu --prefix "$PREFIX" --experiment "$exp" \
        --run "$name" --results "$RES" --scheduler "$sc" --seed "$seed" --slowstart $SLOW --quiet $(opt_args "$opts") "$@" \
        > "$log" 2>&1 || rc=$?
    [ $rc -eq 0 ] || printf '(exit %s; see %s) ' $rc "$log"
    return $rc
}

opt_args() {   # KEY=V[,KEY=V]: the scheduler's options as emu run arguments
    for o in $(echo "$1" | tr , ' '); do printf ' --sched-opt %s' "$o"; done
}

# run EXP BACKEND SCHED SEED TAG OPTS [emu run args...]
#   TAG names a variant ("" for none), OPTS is "-" or KEY=V[,KEY=V], the scheduler's options
run() {
    exp=$1; be=$2; sc=$3; seed=$4; tag=$5; opts=$6; shift 6
    [ "$opts" = - ] && opts=""
    name=$be-s$seed${tag:+-$tag}
    dir=$RES/$exp/$sc/$name
    if done_run "$dir"; then echo "  $exp/$sc/$name: done already"; return 0; fi
    rm -rf "$dir"
    log=$LOGS/$exp-$sc-$name.log
    if [ "$be" = emu ]; then
        printf '  [%s] %s/%s/%s ... ' "$(elapsed)" "$exp" "$sc" "$name"
        made_again_if_machine_limited "$dir" emu_run_once "$@" || true
        [ -z "$MADE_AGAIN" ] || printf '%s ' "${MADE_AGAIN# }"
        if [ -f "$dir/summary.json" ]; then show "$dir"; else echo "no results"; fi
    else
        flows=--no-flows; [ "${KEEP_FLOWS:-0}" = 1 ] && flows=
        # shellcheck disable=SC2046,SC2086
        "$EMU" run --backend sim --experiment "$exp" --run "$name" \
            --results "$RES" --scheduler "$sc" --seed "$seed" --slowstart $SLOW --quiet --timeout 10000000 \
            $(opt_args "$opts") $flows "$@" > "$log" 2>&1 || true
        if [ -f "$dir/summary.json" ]; then
            par_done "$exp/$sc/$name: $(show "$dir")"
        else
            par_done "$exp/$sc/$name: no results: $(tail -n 1 "$log")"
        fi
    fi
}

# Simulator runs, PAR at a time (../parallel.sh).
par_start "${PAR:-}" 0

CL_ARGS="--topology $TOPO --arrivals poisson:$GAP --data-scale $DATA --time-scale $TIME --rate-scale $RATE"
# The CloudLab setup on the simulator: every scheduler, the ablations, and the
# dissertation's variants that have no scheduler of their own, as NAS options:
# MTS+CA-RTS (Figs. 3.8, 3.9) = NAS that never sees congestion (no CR-RTS);
# w/o both (Fig. 3.13) = w/o TT with T_min = T_max = 0.2.
cloudlab_sim() {   # exp seeds [extra args]
    exp=$1; seeds=$2; shift 2
    for seed in $seeds; do
        wl=$(workload_args "$seed")
        for sc in $MAIN $ABL; do
            # shellcheck disable=SC2086
            par run "$exp" sim "$sc" "$seed" "" - $CL_ARGS $wl "$@"
        done
        # shellcheck disable=SC2086
        par run "$exp" sim nas "$seed" mtsca congestion=1e9 $CL_ARGS $wl "$@"
        # shellcheck disable=SC2086
        par run "$exp" sim nas-nott "$seed" woboth t_min=0.2,t_max=0.2 $CL_ARGS $wl "$@"
    done
    par_wait
}

echo "NAS experiments: backend $BACKEND, workload ${TRACE:-synthetic}, results in $RES/$X-*"
echo "  CloudLab setup: $JOBS jobs, Poisson gap ${GAP} s (x time scale), data x $DATA, time x $TIME, rates x $RATE"
if [ "$BACKEND" = emu ]; then
    echo "  emulator and simulator seeds: $EMU_SEEDS"
    "$EMU" cleanup --prefix "$PREFIX" >/dev/null 2>&1 || true
    SCHEDS=$MAIN; [ $ABLATIONS -eq 1 ] && SCHEDS="$MAIN $ABL"
    rep=0
    for seed in $EMU_SEEDS; do
        rep=$((rep + 1))
        echo "emulator, CloudLab setup, repetition $rep of $REPS (seed $seed)"
        for sc in $SCHEDS; do
            # shellcheck disable=SC2046
            run "$X-cloudlab" emu "$sc" "$seed" "" - $CL_ARGS $(workload_args "$seed") --timeout 1800
        done
    done
    "$EMU" cleanup --prefix "$PREFIX" >/dev/null 2>&1 || true
    echo "simulator, the same runs (Tables 6.1/6.2 compare the backends)"
    cloudlab_sim "$X-cloudlab" "$EMU_SEEDS"
else
    echo "  simulator seeds: $SIM_SEEDS; 600-server seeds: $SEEDS600"
    echo "simulator, CloudLab setup (the emulator's scales)"
    cloudlab_sim "$X-cloudlab" "$SIM_SEEDS"
    echo "simulator, CloudLab setup unscaled (time, data and rates x 1)"
    for seed in $SIM_SEEDS; do
        wl=$(workload_args "$seed")
        for sc in $MAIN nas-mts; do
            # shellcheck disable=SC2086
            par run "$X-full" sim "$sc" "$seed" "" - --topology "$TOPO" --arrivals poisson:$GAP \
                --data-scale 1 --time-scale 1 --rate-scale 1 $wl
        done
    done
    par_wait
    echo "simulator, NAS's T_min / T_max sweep (Figs. 3.7, 3.16)"
    TS_SEEDS=$(first 5 $SIM_SEEDS)
    [ $QUICK -eq 1 ] && TS_SEEDS=$(first 1 $SIM_SEEDS)
    for seed in $TS_SEEDS; do
        wl=$(workload_args "$seed")
        for tt in 0.2:0.2 0.2:0.3 0.2:0.4 0.2:0.5 0.2:0.7 0.2:0.9 0.1:0.5 0.3:0.5 0.4:0.5 0.5:0.5; do
            lo=${tt%:*}; hi=${tt#*:}
            # shellcheck disable=SC2086
            par run "$X-tsweep" sim nas "$seed" "tmin$lo-tmax$hi" "t_min=$lo,t_max=$hi" $CL_ARGS $wl
        done
    done
    par_wait
    echo "simulator, 600 servers (30 racks x 20), $JOBS600 jobs"
    for seed in $SEEDS600; do
        if [ -n "$TRACE" ]; then
            wl="--workload $TRACE --jobs $JOBS600 --arrivals trace"
        else
            wl="--jobs $JOBS600 --recurring 0 --arrivals poisson:$GAP600"
        fi
        A600="--topology $TOPO600 --data-scale $DATA600 --time-scale 1 --rate-scale 1 $wl"
        for sc in $MAIN $ABL; do
            # shellcheck disable=SC2086
            par run "$X-sim600" sim "$sc" "$seed" "" - $A600
        done
        # shellcheck disable=SC2086
        par run "$X-sim600" sim nas "$seed" mtsca congestion=1e9 $A600
        # shellcheck disable=SC2086
        par run "$X-sim600" sim nas-nott "$seed" woboth t_min=0.2,t_max=0.2 $A600
    done
    par_wait
fi

par_end
echo "[$(elapsed)] report"
python3 "$HERE/report.py" "$RES" "$OUT" "$X"
echo "report: $OUT/REPORT.md ($(elapsed))"
