#!/bin/sh
# Cross-validate the flow-level simulator against the emulator (the
# dissertation's Chapter 6.2 method): run the same small experiment on both
# backends and compare the ratios proposed / baseline of throughput and of
# average JCT, and the OCS share.
#
#   sudo experiments/crossval/run.sh [--sim-only] [--seeds "4 5 6"] [--jobs N] [-j N]
#        experiments/crossval/run.sh --sim-only --slurm[=SBATCH_ARGS]    on a Slurm cluster
#
# Systems (as in Chapter 4): JobPacker, Corral and F-EPS against F-Hybrid
# (Fair on the hybrid fabric), the GENI-like topology, all jobs at t = 0.
# Runs: RES/crossval/<scheduler>/<backend>-<system>-s<seed>/ (RES: results/),
# their logs in RES/crossval-logs/; then report.py writes REPORT.md and the
# CSVs to experiments/crossval/out/ (OUT; RES/crossval-report when RES is given).
# A run the fidelity check finds machine-limited is made once more
# (../machine_limited.sh).  The simulated runs go -j N at a time (default: one per
# core), the emulated ones one by one; with --slurm (simulated runs only) each run is a
# task of a Slurm job array and the report a job after them (../slurm.sh).
set -eu
. "$(dirname "$0")/../lib.sh"
LOGS=$RES/crossval-logs
# A study into another results root (RES) reports there too, not over the committed report.
if [ -n "$RES_GIVEN" ]; then OUT=${OUT:-$RES/crossval-report}; else OUT=${OUT:-$HERE/out}; fi
SEEDS="4 5 6"; JOBS=20; BACKENDS="sim emu"; PAR=""
while [ $# -gt 0 ]; do
    case "$1" in
    --sim-only) BACKENDS=sim ;;
    --seeds) SEEDS=$2; shift ;;
    --jobs) JOBS=$2; shift ;;
    -j) PAR=$2; shift ;;
    --slurm|--slurm=*) slurm_opt "$1" ;;
    -h|--help) study_help ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case $BACKENDS in *emu*) study_check emu --sim-only ;; *) study_check sim ;; esac
mkdir -p "$OUT" "$LOGS"
trap '"$EMU" cleanup --prefix xv >/dev/null 2>&1 || true' EXIT INT TERM

sched_of() { case $1 in F-Hybrid|F-EPS) echo fair ;; JobPacker) echo jobpacker ;; Corral) echo corral ;; esac; }
topo_of() { case $1 in F-EPS) echo "$ROOT/topologies/geni-10rack-eps.conf" ;; *) echo "$ROOT/topologies/geni-10rack.conf" ;; esac; }
slowstart_of() { case $1 in JobPacker) echo 0.7 ;; *) echo 0.05 ;; esac; }

run_once() {  # the run the loop below set up
    rm -rf "$dir"
    # shellcheck disable=SC2086 # $args is a list of words
    "$EMU" run --prefix xv --experiment crossval --run "$name" --results "$RES" --quiet $args > "$LOGS/$name.log" 2>&1
}
one() {  # backend seed system: one run, unless made already with the same arguments
    be=$1; seed=$2; sys=$3
    name="$be-$sys-s$seed"
    dir="$RES/crossval/$(sched_of $sys)/$name"
    args="--backend $be --topology $(topo_of $sys) --scheduler $(sched_of $sys) --seed $seed --jobs $JOBS \
--slowstart $(slowstart_of $sys)"
    # Kept only if made of the same arguments and topology file.
    key="$args topology-sha1=$(sha1sum < "$(topo_of $sys)" | cut -c1-12)"
    if [ -f "$dir/summary.json" ] && [ "$(cat "$dir/run.key" 2>/dev/null)" = "$key" ]; then
        par_done "$name: done already"; return
    fi
    if made_again_if_machine_limited "$dir" run_once; then
        printf '%s\n' "$key" > "$dir/run.key"
        par_done "$name${MADE_AGAIN}"
    else
        par_done "$name: exit $?; see $LOGS/$name.log"
    fi
}
nseeds=$(echo $SEEDS | wc -w)
par_start "$PAR" $(($(echo $BACKENDS | wc -w) * nseeds * 4))
for be in $BACKENDS; do
    for seed in $SEEDS; do
        for sys in F-Hybrid JobPacker Corral F-EPS; do
            if [ "$be" = sim ]; then par one "$be" "$seed" "$sys"; else one "$be" "$seed" "$sys"; fi
        done
    done
    par_wait
done
par_end
python3 "$HERE/report.py" "$RES/crossval" "$OUT"
echo "report: $OUT/REPORT.md"
