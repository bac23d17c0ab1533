#!/bin/sh
# Reproduce COBRA's evaluation (seed 001, §VII): COBRA against the simulation's
# Default and clairvoyant Tetris on 100 machines (Fig. 5), the large jobs at
# t = 0 (Fig. 6), and against SRS and DRS on the 28-node deployment (Fig. 8).
#
#   sudo experiments/cobra/run.sh [--quick] [--backend emu|sim] [--seeds "1 2 ..."] [-j N]
#
#   --backend emu   (default; root) the deployment on the emulator, seeds 2 4 6,
#                   4 jobs (prefix cobra), one run at a time, then the same on the simulator
#   --backend sim   every study on the flow-level simulator, 10 seeds, no root
#   --quick         one seed, fewer jobs: runs and report under RES/cobraquick-*
#   --seeds LIST    workload seeds (default 1..10, the emulator's 2 4 6; it takes the first 3)
#   -j N            simulator runs at once (default PAR, or one per core)
#   --slurm[=ARGS]  the simulator's runs on a Slurm cluster: each a task of a job array
#                   (at most -j at once), the report a job after them; ARGS go to sbatch
#
# Environment: RES (results root, default results/; given, the report goes to
# RES/<exp>-report instead of experiments/cobra/out), OUT (the report directory),
# EMU (the emu binary), PAR.
#
# Runs: RES/<exp>/<scheduler>/<backend>-s<seed>/ (jobs.csv, tasks.csv,
# summary.json; flows.csv is not written, links.csv is deleted) with the workload it ran
# beside it (<backend>-s<seed>-workload.json, for the asks); exp cobra-sim
# (100 machines, the generator's 60 s gap), cobra-load (the same, 10 s gap),
# cobra-batch (Fig. 6), cobra-dep (28 nodes); cobraquick-* with --quick,
# cobraemu-dep for the emulator's setup.
set -eu
. "$(dirname "$0")/../lib.sh"
BACKEND=emu; QUICK=0; SEEDS="1 2 3 4 5 6 7 8 9 10"; REPS=3; SEEDS_GIVEN=""
study_args "$@"
study_check "$BACKEND"

# ---- parameters (docs/reproduction.md, "COBRA") -------------------------------
SIM100=$ROOT/topologies/cobra-100.conf
DEP28=$ROOT/topologies/cobra-28.conf
JOBS=100; LOAD_GAP=10; BATCH=8; DEP_JOBS=50
# Table III's medium job: 1 GB in 128 MB blocks, 8 tasks in its first stage.
DEP_GEN="cobra:median_tasks=8"
# Fig. 6: "several large jobs of more than 2000 tasks" at t = 0.
BATCH_GEN="cobra:gap=0,median_tasks=2000"
X=cobra; PREFIX=cobra
if [ $QUICK -eq 1 ]; then
    X=cobraquick; JOBS=30; BATCH=3; DEP_JOBS=15; SEEDS=$(echo "$SEEDS" | cut -d' ' -f1); REPS=1
fi
# The emulator: the 28 nodes at 1/20 of their rates (50 Mb/s) and ten times
# faster than real time, bytes scaled by both so transfers keep their
# durations relative to the tasks, and the policies' own times (grants,
# periods, waits, timeouts) scaled as the tasks' (emu_opts); 4 jobs.  Its
# seeds by default: 2, 4 and 6, whose SRS run ends within 3 minutes at this
# scale (seed 1's takes 38: a job of 5000 tasks run two at a time).
EMU_SCALE="--rate-scale 0.05 --data-scale 0.005 --time-scale 0.1"; EMU_JOBS=4
[ -n "$SEEDS_GIVEN" ] || EMU_SEEDS="2 4 6"
emu_opts() {   # scheduler: its time constants x 0.1
    case $1 in
    cobra) echo "--sched-opt grant_latency=0.1 --sched-opt period=0.5 --sched-opt first_wait=0.5" ;;
    drs) echo "--sched-opt grant_latency=0.1 --sched-opt wait=0.3 --sched-opt backlog_timeout=0.1" \
        "--sched-opt sustained_timeout=0.1 --sched-opt idle_timeout=6" ;;
    srs) echo "--sched-opt grant_latency=0.1 --sched-opt wait=0.3" ;;
    esac
}
if [ -z "${OUT:-}" ]; then
    OUT=$HERE/out
    [ "$X" = cobra ] && [ -z "$RES_GIVEN" ] || OUT=$RES/$X-report
fi
first() { n=$1; shift; echo "$@" | tr ' ' '\n' | grep . | head -n "$n" | tr '\n' ' '; }
mkdir -p "$OUT" "$RES"
LOGS=$RES/$X-logs; mkdir -p "$LOGS"
T0=$(date +%s)
elapsed() { s=$(( $(date +%s) - T0 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

done_run() { [ -f "$1/summary.json" ] && ! grep -q '"partial": true' "$1/summary.json"; }

# run EXP BACKEND SCHED SEED [emu run args...]
run() {
    exp=$1; be=$2; sc=$3; seed=$4; shift 4
    name=$be-s$seed; dir=$RES/$exp/$sc/$name
    if done_run "$dir"; then echo "  $exp/$sc/$name: done already"; return 0; fi
    rm -rf "$dir"; mkdir -p "$RES/$exp/$sc"
    log=$LOGS/$exp-$sc-$name.log
    # Tetris is clairvoyant and, as the paper's, pays the container response
    # time for every task; the others read no size before its stage may run.
    vis=semi-clairvoyant; [ "$sc" = tetris ] && { vis=clairvoyant; set -- --sched-opt grant_latency=1 "$@"; }
    set -- --experiment "$exp" --run "$name" --results "$RES" --scheduler "$sc" --seed "$seed" \
        --slowstart 1 --visibility $vis --save-workload "$RES/$exp/$sc/$name-workload.json" --quiet "$@"
    if [ "$be" = emu ]; then
        printf '  [%s] %s/%s/%s ... ' "$(elapsed)" "$exp" "$sc" "$name"
        made_again_if_machine_limited "$dir" "$EMU" run --backend emu --prefix "$PREFIX" --timeout 7200 "$@" \
            > "$log" 2>&1 || true
        if [ -f "$dir/summary.json" ]; then grep -o '"verdict": *"[^"]*"' "$dir/summary.json" | head -n 1; else echo "no results"; fi
    else
        "$EMU" run --backend sim --timeout 10000000 --no-flows "$@" > "$log" 2>&1 || true
        par_done "$exp/$sc/$name"
    fi
    rm -f "$dir/flows.csv" "$dir/links.csv"
}

SIM="--data-scale 1 --time-scale 1"
sim_study() {   # prefix seeds
    px=$1; seeds=$2
    for seed in $seeds; do
        for sc in cobra-default tetris cobra; do
            # shellcheck disable=SC2086
            par run "$px-sim" sim "$sc" "$seed" --topology "$SIM100" $SIM --generator cobra --jobs "$JOBS"
            # shellcheck disable=SC2086
            par run "$px-load" sim "$sc" "$seed" --topology "$SIM100" $SIM --generator "cobra:gap=$LOAD_GAP" --jobs "$JOBS"
            # shellcheck disable=SC2086
            par run "$px-batch" sim "$sc" "$seed" --topology "$SIM100" $SIM --generator "$BATCH_GEN" --jobs "$BATCH"
        done
    done
}
dep_study() {   # backend prefix seeds jobs scale [emu_opts]
    be=$1; px=$2; seeds=$3; jobs=$4; scale=$5; opts=${6:-}
    for seed in $seeds; do
        for sc in srs drs cobra; do
            # shellcheck disable=SC2046,SC2086
            par run "$px-dep" "$be" "$sc" "$seed" --topology "$DEP28" $scale --generator "$DEP_GEN" --jobs "$jobs" \
                $([ -n "$opts" ] && $opts "$sc")
        done
    done
}

echo "COBRA experiments: backend $BACKEND, results in $RES/$X-*"
if [ "$BACKEND" = emu ]; then
    "$EMU" cleanup --prefix "$PREFIX" >/dev/null 2>&1 || true
    trap '"$EMU" cleanup --prefix "$PREFIX" >/dev/null 2>&1 || true' EXIT
    # shellcheck disable=SC2086
    ES=$(first "$REPS" ${EMU_SEEDS:-$SEEDS})
    echo "emulator: seeds $ES, $EMU_JOBS jobs on 28 nodes"
    par_start 1 0
    dep_study emu "${X}emu" "$ES" "$EMU_JOBS" "$EMU_SCALE" emu_opts
    par_wait
    echo "simulator: the same runs"
    par_start "${PAR:-}" 0
    dep_study sim "${X}emu" "$ES" "$EMU_JOBS" "$EMU_SCALE" emu_opts
    par_wait
else
    echo "simulator: seeds $SEEDS; $JOBS jobs on 100 machines, $BATCH at t = 0, $DEP_JOBS on 28 nodes"
    par_start "${PAR:-}" 0
    sim_study "$X" "$SEEDS"
    dep_study sim "$X" "$SEEDS" "$DEP_JOBS" "$SIM"
    par_wait
fi
par_end
echo "[$(elapsed)] report"
python3 "$HERE/report.py" "$RES" "$OUT" "$X"
echo "report: $OUT/REPORT.md ($(elapsed))"
