#!/bin/sh
# Reproduce DSP's evaluation (seed 004, §V): makespan of DSP against Aalo,
# TetrisW/SimDep and TetrisW/oDep (Fig. 5), and disorders, throughput, job
# waiting time and preemptions of DSP, DSPW/oPP, Amoeba, Natjam and SRPT
# (Figs. 6-7), on 50 servers (the real cluster) and 30 (EC2), 150-750 jobs
# of the dsp-dag generator.
#
#   experiments/dsp/run.sh [--quick] [--backend emu|sim] [--seeds "1 2 ..."] [-j N]
#
#   --backend sim   (default) every run on the flow-level simulator, no root:
#                   150 300 450 600 750 full-size jobs, seeds 1 2 3
#   --backend emu   (root) a reduced emulated run: 6 servers (dsp-6.conf), 6 jobs
#                   of dsp-dag:scale=0.05, DSP, Amoeba, Natjam and SRPT, to show
#                   real suspend/resume with real bytes; then the same on the
#                   simulator, beside it (not the sim study)
#   --quick         the notes' emulation scale on the simulator: dsp-dag:scale=0.1
#                   (a tenth of the tasks per job), 50 and 100 jobs, one seed
#                   (unless --seeds): under RES/dspquick-*
#   --seeds LIST    workload seeds
#   -j N            simulator runs at once (default PAR, or one per core)
#   --slurm[=ARGS]  the simulator's runs on a Slurm cluster: each a task of a job array
#                   (at most -j at once), the report a job after them; ARGS go to sbatch
#
# Environment: RES (results root, default results/; given, the report goes to
# RES/<exp>-report instead of experiments/dsp/out), OUT, EMU, PAR, TIMEOUT (a
# run's limit in run seconds, default 200000), WALL (a simulator run's limit in
# wall-clock seconds: then interrupted, its results partial; default none),
# JOBS (the job counts, instead of the sweep's), SCHEDS (the schedulers, instead
# of all eight).
#
# Runs: RES/<exp>-<servers>/<scheduler>/<backend>-j<jobs>-s<seed>/ (jobs.csv,
# tasks.csv, preemptions.csv, summary.json; no flows.csv, links.csv deleted)
# with the workload beside it (...-workload.json: report.py reads the DAGs
# from it for the waiting time).
set -eu
. "$(dirname "$0")/../lib.sh"
TIMEOUT=${TIMEOUT:-200000}
BACKEND=sim; QUICK=0; SEEDS="1 2 3"; SEEDS_GIVEN=""
study_args "$@"
study_check "$BACKEND"

# ---- parameters (docs/reproduction.md, "DSP") ----------------------------------
# emu run's time scale (0.1: a median task of 6 s) and recovery delay (1 s);
# every policy with its defaults.  tetris-nodep/-simdep: TetrisW/oDep, /SimDep;
# dsp-nopp: DSPW/oPP.
SCHEDS=${SCHEDS:-dsp dsp-nopp aalo tetris-simdep tetris-nodep amoeba natjam srpt}
JOBS_GIVEN=${JOBS:-}
GEN=dsp-dag; JOBS=${JOBS:-150 300 450 600 750}; X=dsp
if [ $QUICK -eq 1 ]; then
    X=dspquick; GEN=dsp-dag:scale=0.1; JOBS=${JOBS_GIVEN:-50 100}
    [ -n "$SEEDS_GIVEN" ] || SEEDS=1
fi
if [ -z "${OUT:-}" ]; then
    OUT=$HERE/out
    [ "$X" = dsp ] && [ -z "$RES_GIVEN" ] || OUT=$RES/$X-report
fi
mkdir -p "$OUT" "$RES"
LOGS=$RES/$X-logs; mkdir -p "$LOGS"
T0=$(date +%s)
elapsed() { s=$(( $(date +%s) - T0 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
done_run() { [ -f "$1/summary.json" ] && ! grep -q '"partial": true' "$1/summary.json"; }

# run EXP BACKEND SCHED NAME SEED [emu run args...]
run() {
    exp=$1; be=$2; sc=$3; name=$4; seed=$5; shift 5
    dir=$RES/$exp/$sc/$name
    if done_run "$dir"; then echo "  $exp/$sc/$name: done already"; return 0; fi
    rm -rf "$dir"; mkdir -p "$RES/$exp/$sc"
    log=$LOGS/$exp-$sc-$name.log
    set -- --experiment "$exp" --run "$name" --results "$RES" --scheduler "$sc" --seed "$seed" \
        --save-workload "$RES/$exp/$sc/$name-workload.json" --quiet "$@"
    if [ "$be" = emu ]; then
        printf '  [%s] %s/%s/%s ... ' "$(elapsed)" "$exp" "$sc" "$name"
        "$EMU" run --backend emu --prefix dsp --timeout 3600 "$@" > "$log" 2>&1 || true
        if [ -f "$dir/summary.json" ]; then echo "done"; else echo "no results"; fi
    else
        s0=$(date +%s)
        if [ -n "${WALL:-}" ]; then
            timeout -s INT "$WALL" "$EMU" run --backend sim --timeout "$TIMEOUT" --no-flows "$@" > "$log" 2>&1 || true
        else
            "$EMU" run --backend sim --timeout "$TIMEOUT" --no-flows "$@" > "$log" 2>&1 || true
        fi
        par_done "$exp/$sc/$name ($(( $(date +%s) - s0 )) s)"
    fi
    rm -f "$dir/flows.csv" "$dir/links.csv"
}

# The seed's two clusters.
sim_study() {
    for seed in $SEEDS; do
        for n in 50 30; do
            for jobs in $JOBS; do
                for sc in $SCHEDS; do
                    par run "$X-$n" sim "$sc" "sim-j$jobs-s$seed" "$seed" \
                        --topology "$ROOT/topologies/dsp-$n.conf" --generator "$GEN" --jobs "$jobs"
                done
            done
        done
    done
}

echo "DSP experiments: backend $BACKEND, results in $RES/$X-*"
if [ "$BACKEND" = emu ]; then
    # Real processes and bytes at a scale one machine carries: 6 servers, 6
    # jobs of 5% of the seed's tasks (at 2% no policy preempts), the preempting
    # policies.
    "$EMU" cleanup --prefix dsp >/dev/null 2>&1 || true
    trap '"$EMU" cleanup --prefix dsp >/dev/null 2>&1 || true' EXIT
    seed=$(echo "$SEEDS" | cut -d' ' -f1)
    for be in emu sim; do
        for sc in dsp amoeba natjam srpt; do
            run "${X}emu-6" "$be" "$sc" "$be-j6-s$seed" "$seed" --topology "$ROOT/topologies/dsp-6.conf" \
                --generator dsp-dag:scale=0.05 --jobs 6
        done
    done
else
    echo "simulator: seeds $SEEDS; jobs $JOBS of $GEN on 50 and 30 servers"
    par_start "${PAR:-}" 0
    sim_study
    par_wait
fi
par_end
echo "[$(elapsed)] report"
python3 "$HERE/report.py" "$RES" "$OUT" "$X"
echo "report: $OUT/REPORT.md ($(elapsed))"
