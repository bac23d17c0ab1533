#!/bin/sh
# Reproduce the dissertation's Chapter 4 experiments: JobPacker vs F-Hybrid
# (Fair on the hybrid network), Corral, and F-EPS (Fair on an EPS-only network
# as fast as the OCS).
#
#   sudo experiments/jobpacker/run.sh [--quick] [options]     emulation (GENI scale, Figs. 4.13-4.16, 4.19)
#        experiments/jobpacker/run.sh --backend sim [options] simulation (paper scale, Figs. 4.9-4.12,
#                                                             4.17, 4.18, 4.20-4.24), no root
#
# Options:
#   --backend emu|sim   emulator (root) or flow-level simulator (default emu)
#   --scale paper|geni  sim only: paper = 600 servers (topologies/paper-20x30.conf; F-EPS on
#                       paper-20x30-eps.conf), 1000 jobs, data/time scale 1, online arrivals
#                       uniform over 90 min (the default); geni = the emulator's GENI setup:
#                       jobs with >= 100 MB of shuffle fitted to the cluster's 100 containers,
#                       arrivals at GENI's rate, early OCS reconfiguration (docs/reproduction.md)
#   --jobs N            jobs per run (paper 1000; geni 30, --quick 12; paper --quick 100)
#   --max-maps N        geni only: jobs with more maps are scaled down to N, shuffle and output
#                       in proportion (default 100, the cluster's containers; 0 = off).  Wider
#                       jobs favour JobPacker against Corral and load the online scenario more
#   --reps N            seeded repetitions (GENI 5, GENI on the simulator 20, paper 3; --quick 1)
#   --sens-reps N       repetitions of the sensitivity sweeps (GENI 3, paper --reps; at most --reps)
#   --seeds "S1 S2 .."  workload seeds, one per repetition (default "4 5 6 8 9"; GENI on the
#                       simulator 4 to 23)
#   -j, --parallel N    sim: runs at once (default: one per core; emulated runs go one by one)
#   --slurm[=ARGS]      sim: on a Slurm cluster, each run a task of a job array (at most -j
#                       at once), the report a job after them; ARGS go to every sbatch
#                       (docs/studies.md)
#   --baseline-slowstart F  F-Hybrid's, Corral's and F-EPS's slowstart (default 0.7, as
#                       JobPacker's: the dissertation's settings; 0.05 is YARN's default)
#   --ocs-mode hold|fallback  circuit-eligible bytes wait for their circuit (default: the
#                       dissertation's model, §4.1.2) or take the EPS while it is dark (Helios-like)
#   --copiers N         parallel fetches per reduce (default 5, Hadoop's; up to 1024: every holder
#                       at once, as the dissertation's simulator, §6.1.6; slow for Fair at paper scale)
#   --rate-scale F      geni only: every link rate and every byte x F (0 < F <= 1; default 1), so
#                       the times stay and the emulator needs less CPU: 0.5 for a machine on
#                       which the report marks runs machine-limited
#   --slowdown K        emu: slow motion, every link rate / K and every time x K (packets and
#                       queues as they were), so the machine does 1/K of the work per second;
#                       results stay in the runs' own seconds (default 1.5: docs/reproduction.md
#                       says why).  1 runs in real time; the study takes ~K/1.5 x as long
#                       (~47 min at 1.5).  Runs made at another K are made again
#   --no-sens           skip the sensitivity sweeps
#   --list              print each run's name and emu arguments, run nothing (no root needed)
#   --quick             1 repetition, fewer jobs (GENI 12, no sweeps; paper 100, sweep end points);
#                       its runs and reports go to results/jobpacker-quick/ (RES when given)
#   --trace FILE        a SWIM trace instead of the synthetic SWIM-like workload: each seed
#                       samples --jobs of its jobs (GENI: those with >= 100 MB of shuffle)
#   -h, --help          this text
# Environment: TS (sim paper scale: time scale, default 0.25, see below), SEEDS, SYSTEMS,
# ONLY=REGEX (only the runs whose <scenario>-<system>-s<seed> matches), RES (results root;
# given, an emulator study's report goes there too), OUT / OUT_SIM (the report directory of
# an emulator / simulator study), EMU (the emu binary), WALL=SECONDS (stop a run after that
# much wall time: it ends partial and the report skips it), TWIN=0 (an emulator study without its simulator
# twin: the same runs on --backend sim for the emulator's seeds and 4-23), LOAD=0 (no
# arrival-rate sweep) or LOAD=1 (the sweep on the emulator too), LOAD_RATES="2 0.5 0.25" (its
# arrival rates, x GENI's).
# A finished run is reused (not run again) when it was made with the same arguments. A run the
# fidelity check finds machine-limited is made once more; the second is kept either way.
#
# Scenarios (each with N seeded repetitions):
#   batch     all jobs at t = 0: makespan, OCS/EPS split  (sim 4.9/4.10, emu 4.13/4.14)
#   online    uniform arrivals: JCT CDF, median, OCS share (sim 4.11/4.12, emu 4.15/4.16)
#   mixed     50% recurring, 50% ad hoc, online, rho 1.0  (sim 4.17, emu 4.19)
#   adhocagg  paper scale, JobPacker: mixed with its ad-hoc jobs on a few racks, the trial
#             §4.2.4 dropped (--sched-opt adhoc_agg=on; sim 4.18)
#   load*     GENI scale, simulator (also the twin's; not --quick) or LOAD=1: online at
#             LOAD_RATES x GENI's arrival rate (2, 1/2, 1/4), every system
#   sens-*    JobPacker only.  Paper scale: shuffle-size error 0-50% (4.20a), arrival error
#             on 10-50% of jobs, +-200 s (4.20b), slowstart 20-80% (4.21), over-provisioning
#             rho 0-2 on mixed (4.22), reconfiguration interval 0.1-3 s (4.23), sub-batches
#             B 1-20 on batch (4.24).  Emulation: interval and delta.
# Results: results/jobpacker/<scheduler>/<scenario>-<system>-s<seed>/ (emu) or
# results/jobpacker-sim/... (sim paper scale; results/jobpacker-sim-geni/ for --scale geni).
# Then REPORT.md, a CSV per table, and gnuplot plots: experiments/jobpacker/out/ (emu; RES/out/
# when RES is given), results/out-sim/ (sim paper scale) or results/out-sim-geni/ (sim GENI
# scale), under RES when given; OUT / OUT_SIM name another directory.  JobPacker's and
# Corral's plans (their option plan_log) go beside the report as <run>.plan (GENI scale) or to
# results/jobpacker-sim/plans/<run>.plan (paper scale).
set -eu
. "$(dirname "$0")/../lib.sh"
QUICK=0; LIST=0; RATE=""; REPS=""; SREPS=""; TRACE=""; JOBS=""; MAXMAPS=""; BACKEND=emu; SCALE=""; PAR=""; SENS=1; BASE_SS=0.7
NETARGS=""   # --ocs-mode, --copiers, --rate-scale: given only, so that the runs made without them stay reusable
SLOWDOWN=""  # emulator only (default 1.5 there): not for the twin
SEEDS=${SEEDS:-}
posint() { case $2 in ''|*[!0-9]*|0*) die "$1 needs a positive integer, not '$2'" ;; esac; }
posnum() { awk -v x="$2" 'BEGIN { exit !(x ~ /^([0-9]+\.?[0-9]*|\.[0-9]+)$/ && x + 0 > 0) }' ||
    die "$1 needs positive numbers, not '$2'"; }
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) QUICK=1 ;;
    --no-sens) SENS=0 ;;
    --list) LIST=1 ;;
    --reps|--sens-reps|--jobs|--max-maps|--parallel|-j|--trace|--backend|--scale|--seeds|--baseline-slowstart|--ocs-mode|--copiers|--rate-scale|--slowdown)
        [ $# -ge 2 ] || die "$1 needs a value (see --help)"
        case "$1" in
        --reps) posint "$1" "$2"; REPS=$2 ;;
        --sens-reps) posint "$1" "$2"; SREPS=$2 ;;
        --jobs) posint "$1" "$2"; JOBS=$2 ;;
        --max-maps) [ "$2" = 0 ] || posint "$1" "$2"; MAXMAPS=$2 ;;
        --parallel|-j) posint "$1" "$2"; PAR=$2 ;;
        --trace) [ -r "$2" ] || die "--trace: cannot read $2"; TRACE=$2 ;;
        --backend) BACKEND=$2 ;;
        --scale) SCALE=$2 ;;
        --seeds) for s in $2; do posint --seeds "$s"; done; [ -n "$2" ] || die "--seeds is empty"; SEEDS=$2 ;;
        --ocs-mode) case $2 in hold|fallback) ;; *) die "--ocs-mode hold|fallback, not '$2'" ;; esac
            NETARGS="$NETARGS --ocs-mode $2" ;;
        --copiers) posint "$1" "$2"; [ "$2" -le 1024 ] || die "--copiers: at most 1024, not $2"
            NETARGS="$NETARGS --copiers $2" ;;
        --rate-scale) posnum "$1" "$2"; awk -v x="$2" 'BEGIN { exit !(x <= 1) }' ||
            die "--rate-scale needs a number in (0, 1], not '$2'"; RATE=$2
            # GENI's data scale (emu run's default, 0.01) times the same factor
            NETARGS="$NETARGS --rate-scale $2 --data-scale $(awk -v x="$2" 'BEGIN { print 0.01 * x }')" ;;
        --slowdown) posnum "$1" "$2"; awk -v x="$2" 'BEGIN { exit !(x >= 1 && x <= 100) }' ||
            die "--slowdown needs a number in [1, 100], not '$2'"; SLOWDOWN=$2 ;;
        --baseline-slowstart) awk -v x="$2" 'BEGIN { exit !(x ~ /^(0|1|0?\.[0-9]+|1\.0*)$/) }' ||
            die "--baseline-slowstart needs a fraction in [0, 1], not '$2'"; BASE_SS=$2 ;;
        esac
        shift ;;
    --slurm|--slurm=*) slurm_opt "$1" ;;
    -h|--help) study_help ;;
    *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done
# --quick is a smoke test: without RES its runs and report go to results/jobpacker-quick/,
# apart from the full study's runs and from the committed report beside run.sh.
if [ $QUICK -eq 1 ] && [ -z "$RES_GIVEN" ]; then RES=$ROOT/results/jobpacker-quick; RES_GIVEN=1; fi
# The emulated study's report is committed beside run.sh (out/); a simulator study's goes
# into the results root, and so does every report of a study into another results root (RES).
REPDIR=$HERE; [ -z "$RES_GIVEN" ] && [ "$BACKEND" = emu ] || REPDIR=$RES
LOAD_RATES=${LOAD_RATES:-2 0.5 0.25}
for f in $LOAD_RATES; do posnum LOAD_RATES "$f"; done
slurm_sim_only "$BACKEND"
case $BACKEND in
emu) [ -z "$SCALE" ] || [ "$SCALE" = geni ] || die "--scale paper needs --backend sim (the emulator cannot run 100 Gb/s ports)"
     SCALE=geni
     [ "$(id -u)" -eq 0 ] || [ $LIST -eq 1 ] || die "needs root (sudo), or --backend sim" ;;
sim) : "${SCALE:=paper}" ;;
*) die "--backend emu|sim, not '$BACKEND'" ;;
esac
case $SCALE in paper|geni) ;; *) die "--scale paper|geni, not '$SCALE'" ;; esac
[ -z "$MAXMAPS" ] || [ "$SCALE" = geni ] || die "--max-maps is for --scale geni (paper scale runs its jobs as drawn)"
[ -z "$RATE" ] || [ "$SCALE" = geni ] || die "--rate-scale is for --scale geni (paper scale runs at data scale 1)"
[ -z "$SLOWDOWN" ] || [ "$BACKEND" = emu ] || die "--slowdown is for the emulator (the simulator's clock is virtual)"
[ "$BACKEND" != emu ] || : "${SLOWDOWN:=1.5}"
# Real time passes no --slowdown: runs made before 1.5 was the default stay reusable.
if awk -v x="${SLOWDOWN:-0}" 'BEGIN { exit !(x == 1) }'; then SLOWDOWN=""; fi
[ -x "$EMU" ] || die "$EMU missing: run make first"

if [ "$SCALE" = paper ]; then
    EXP=jobpacker-sim; OUT=${OUT_SIM:-$REPDIR/out-sim}
    REPORT=$OUT/REPORT.md
    PLANS=$RES/$EXP/plans
    TOPO=$ROOT/topologies/paper-20x30.conf; TOPO_EPS=$ROOT/topologies/paper-20x30-eps.conf
    if [ $QUICK -eq 1 ]; then : "${REPS:=1}" "${JOBS:=100}"; else : "${REPS:=3}" "${JOBS:=1000}"; fi
    WINDOW=5400   # 90 min (4.3.2.2)
    # Task durations come from a synthetic model (50 MB/s of processing: the
    # authors' single-node replay log is not public).  At time scale 1 it makes
    # the paper's cluster compute-bound (F-EPS / F-Hybrid makespan 0.9); TS=0.25
    # (compute 4x faster, arrivals 4x closer) brings that baseline-only ratio to
    # the paper's ~0.65 (Fig. 4.9), so the network weighs as much as there.
    SCALEARGS="--data-scale 1 --time-scale ${TS:-0.25} --timeout 10000000"
    MIN_SHUFFLE=0
else
    if [ "$BACKEND" = sim ]; then EXP=jobpacker-sim-geni; OUT=${OUT_SIM:-$REPDIR/out-sim-geni}
    else EXP=jobpacker; OUT=${OUT:-$REPDIR/out}; fi
    REPORT=$OUT/REPORT.md; PLANS=$OUT
    TOPO=$ROOT/topologies/geni-10rack.conf; TOPO_EPS=$ROOT/topologies/geni-10rack-eps.conf
    # Five repetitions of the main scenarios on the emulator, three of the sweeps: a median of
    # 15 jobs moves ~10% between runs of the same code, so claims within a few percent of 1
    # need seeds.  The simulator takes a second a run: the paper's 20.
    if [ $QUICK -eq 1 ]; then : "${REPS:=1}" "${JOBS:=12}"; SENS=0
    elif [ "$BACKEND" = sim ]; then : "${REPS:=20}" "${SREPS:=3}" "${JOBS:=30}"
        : "${SEEDS:=4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23}"
    else : "${REPS:=5}" "${SREPS:=3}" "${JOBS:=30}"; fi
    # Online arrivals at GENI's rate: 200 jobs in 20 min, one per 6 s (x the time scale).
    WINDOW=$((JOBS * 6))
    # The jobs (docs/reproduction.md, Chapter 4): with a uniform FB-2010-like sample half
    # the jobs move < 1 MB and finish at the 0.2 s task floor whatever the network does
    # (F-EPS / F-Hybrid median JCT 0.93-1.03 against the paper's ~0.58), and 200 unscaled
    # jobs (30k-140k maps) cannot run on GENI's 100 containers.  So the jobs are chosen
    # with a shuffle of at least 100 MB (calibrated on the baseline-only F-EPS / F-Hybrid
    # ratios: makespan 0.70, median 0.54 on the simulator with the baselines at slowstart
    # 0.05, 0.70 / 0.64 at 0.7; paper ~0.51 / ~0.58), and jobs
    # wider than the cluster are scaled down to its 100 containers, as SWIM fits a trace to
    # a smaller cluster.  The OCS gives way once its circuits are served
    # (--ocs-reconfig early): the dissertation's E = 9 delta x bw_o assumes configurations
    # about as long as their elephant flows (§4.1.2), not 1 s of which 91% idles.
    SCALEARGS="--min-shuffle 100MB --max-maps ${MAXMAPS:-100} --ocs-reconfig early"
    MIN_SHUFFLE=100000000
fi
: "${SEEDS:=4 5 6 8 9}" "${SREPS:=$REPS}"
nseeds=$(echo $SEEDS | wc -w)
[ "$SREPS" -le "$REPS" ] || SREPS=$REPS
[ "$REPS" -le "$nseeds" ] || die "--reps $REPS needs at least $REPS seeds (have: $SEEDS)"

# system name -> scheduler, topology
sched_of() { case $1 in F-Hybrid|F-EPS) echo fair ;; JobPacker) echo jobpacker ;; Corral) echo corral ;; esac; }
topo_of() { case $1 in F-EPS) echo "$TOPO_EPS" ;; *) echo "$TOPO" ;; esac; }
# Slowstart 0.7: the dissertation's settings for all its experiments (§4.3.2, §4.3.3).  Its
# F-EPS within 5% of JobPacker says its baselines did not run at YARN's 5% (§4.2.2): reduces
# that hold containers through the map phase cost F-EPS a quarter of its makespan here.
# --baseline-slowstart 0.05 is that other reading.
slowstart_of() { case $1 in JobPacker) echo 0.7 ;; *) echo "$BASE_SS" ;; esac; }
SYSTEMS=${SYSTEMS:-"JobPacker F-Hybrid Corral F-EPS"}

# The task list: one line per run, "scenario|system|seed|KEY=VALUE ...|emu args", the
# fourth field the scheduler's options (--sched-opt).
TASKS=$(mktemp); DONE=$(mktemp)
trap 'rm -f "$TASKS" "$DONE" "$DONE.ran" "$DONE.failed" "$TASKS".*' EXIT
add() { echo "$1|$2|$3|$4|$5" >> "$TASKS"; }

# The main scenarios of every repetition first, then the sweeps.
rep=0
for seed in $SEEDS; do
    rep=$((rep + 1))
    [ $rep -le "$REPS" ] || break
    for sys in $SYSTEMS; do
        add batch "$sys" "$seed" "" "--arrivals batch"
        add online "$sys" "$seed" "" "--arrivals uniform:$WINDOW"
        add mixed "$sys" "$seed" "" "--arrivals uniform:$WINDOW --recurring 0.5"
    done
    # Fig. 4.18 (a simulation result): JobPacker's mixed runs again with the trial of §4.2.4
    # that the dissertation dropped, ad-hoc jobs on a few racks.
    if [ "$SCALE" = paper ] && case " $SYSTEMS " in *" JobPacker "*) true ;; *) false ;; esac; then
        add adhocagg JobPacker "$seed" "adhoc_agg=on" "--arrivals uniform:$WINDOW --recurring 0.5"
    fi
done
rep=0
for seed in $SEEDS; do
    rep=$((rep + 1))
    [ $rep -le "$SREPS" ] || break
    [ $SENS -eq 1 ] || continue
    if [ "$SCALE" = geni ]; then
        for iv in 0.5 2; do add "sens-interval$iv" JobPacker "$seed" "" "--arrivals batch --ocs-interval $iv"; done
        for d in 0.005 0.02; do add "sens-delta$d" JobPacker "$seed" "" "--arrivals batch --delta $d"; done
        continue
    fi
    # Paper scale.  The default point of each sweep is the main scenario's JobPacker run
    # (online: error 0, slowstart 0.7, interval 1 s; mixed: rho 1.0; batch: B = 5).
    if [ $QUICK -eq 1 ]; then E="0.5"; F="0.5"; SS="0.2"; RHO="0 2"; IV="3"; BS="1 20"
    else E="0.1 0.2 0.3 0.4 0.5"; F="0.1 0.2 0.3 0.4 0.5"; SS="0.2 0.3 0.4 0.5 0.6 0.8"
         RHO="0 0.5 1.5 2"; IV="0.1 0.5 2 3"; BS="1 2 3 10 20"; fi
    on="--arrivals uniform:$WINDOW"
    for e in $E; do add "sens-shuffleerr$e" JobPacker "$seed" "" "$on --shuffle-error $e"; done
    for f in $F; do add "sens-arrerr$f" JobPacker "$seed" "" "$on --arrival-error $f:200"; done
    for s in $SS; do add "sens-slowstart$s" JobPacker "$seed" "" "$on --slowstart $s"; done
    for i in $IV; do add "sens-interval$i" JobPacker "$seed" "" "$on --ocs-interval $i"; done
    for b in $BS; do add "sens-B$b" JobPacker "$seed" "subbatches=$b" "--arrivals batch"; done
done
# The arrival-rate sweep (GENI scale): the online scenario at other rates than GENI's, every
# system, every seed.  How close JobPacker's median comes to F-EPS's depends on how loaded the
# cluster is.  On the simulator (and so in an emulator study's twin) by default, a
# second a run; on the emulator only with LOAD=1 (4 runs per rate and seed).
if [ "$SCALE" = geni ] && { [ "${LOAD:-}" = 1 ] ||
   { [ "$BACKEND" = sim ] && [ $QUICK -eq 0 ] && [ "${LOAD:-1}" != 0 ]; }; }; then
    rep=0
    for seed in $SEEDS; do
        rep=$((rep + 1))
        [ $rep -le "$REPS" ] || break
        for f in $LOAD_RATES; do
            for sys in $SYSTEMS; do add "load$f" "$sys" "$seed" "" "--arrivals uniform:$(awk "BEGIN { print $WINDOW / $f }")"; done
        done
    done
fi
# The rho sweep last: mixed JobPacker runs are the slowest (~10x an online run).
if [ "$SCALE" = paper ] && [ $SENS -eq 1 ]; then
    rep=0
    for seed in $SEEDS; do
        rep=$((rep + 1))
        [ $rep -le "$SREPS" ] || break
        for r in $RHO; do add "sens-rho$r" JobPacker "$seed" "rho=$r" "--arrivals uniform:$WINDOW --recurring 0.5"; done
    done
fi
# ONLY=REGEX (environment): only the runs whose name (<scenario>-<system>-s<seed>) matches.
if [ -n "${ONLY:-}" ]; then
    awk -F'|' -v re="$ONLY" '($1 "-" $2 "-s" $3) ~ re' "$TASKS" > "$TASKS.only"
    mv "$TASKS.only" "$TASKS"
fi
# A run's `emu run` arguments: system seed scenario-args scheduler-options.  Later options
# win: a scenario's --slowstart overrides the system's.
runargs_of() {
    wl=""; so=""
    [ -z "$TRACE" ] || wl="--workload $PLANS/trace-s$2.tsv"
    for o in $4; do so="$so --sched-opt $o"; done
    echo "--backend $BACKEND --topology $(topo_of "$1") --scheduler $(sched_of "$1") --seed $2 \
--jobs $JOBS --slowstart $(slowstart_of "$1") --recurring 1 $SCALEARGS$NETARGS${SLOWDOWN:+ --slowdown $SLOWDOWN} $wl $3$so"
}
if [ $LIST -eq 1 ]; then
    while IFS='|' read -r sc sys seed opts args; do
        echo "$sc-$sys-s$seed: emu run $(runargs_of "$sys" "$seed" "$args" "$opts")"
    done < "$TASKS"
    exit 0
fi
mkdir -p "$OUT" "$PLANS"
NTASKS=$(wc -l < "$TASKS")
[ "$BACKEND" = sim ] || PAR=1
par_start "$PAR" "$NTASKS"
PAR=$PAR_N
T0=$(date +%s)
echo "$NTASKS runs ($SCALE scale, $BACKEND${SLOWDOWN:+ in slow motion x$SLOWDOWN}, $JOBS jobs, $REPS repetition(s) ($SREPS of the sweeps), seeds: $(echo $SEEDS | cut -d' ' -f1-$REPS)), $([ "$PAR_ROLE" = local ] && echo "$PAR at a time" || echo "on Slurm")"

# --trace: each seed samples JOBS of the trace's jobs (in trace order) that pass the setup's
# --min-shuffle, as the dissertation chose its jobs from FB-2010 and as the synthetic workload
# draws them by seed; every system of a seed gets the same sample, and the scenario's
# --arrivals replace their trace times.
sample_trace() {   # seed: writes $PLANS/trace-s<seed>.tsv
    f=$PLANS/trace-s$1.tsv
    python3 - "$TRACE" "$1" "$JOBS" "$MIN_SHUFFLE" "$f.$$" <<'PY' || die "--trace: cannot sample $TRACE"
import random, sys
src, seed, n, least, dst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
lines = [l for l in open(src) if l.strip() and float(l.split("\t")[4]) >= least]
if len(lines) < n:
    sys.exit("%s: only %d jobs with a shuffle of at least %g bytes, %d wanted" % (src, len(lines), least, n))
with open(dst, "w") as f:
    f.writelines(lines[i] for i in sorted(random.Random(seed).sample(range(len(lines)), n)))
PY
    # Whole or not at all: on Slurm every task samples again while others read it.
    mv "$f.$$" "$f"
}

make_run() {  # one attempt at the run one() set up; sets note to why it failed, if it did
    rm -rf "$PLANS/$name.plan" "$dir"   # a partial run (interrupted), or another setup's
    # Which binary ran it (the tree may be rebuilt while a long study runs).
    echo "emu sha1 $(sha1sum < "$EMU" | cut -c1-12), tree at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), started $(date -u +%FT%TZ)" > "$PLANS/$name.bin"
    note=""
    # The planners write their plan beside the run's log (not part of the run's key).
    plan=""
    case $(sched_of "$sys") in jobpacker|corral) plan="--sched-opt plan_log=$PLANS/$name.plan" ;; esac
    # shellcheck disable=SC2086
    ${WALL:+timeout -s INT "$WALL"} "$EMU" run --prefix jp \
        --experiment "$EXP" --run "$name" --results "$RES" --quiet $runargs $plan \
        < /dev/null > "$PLANS/$name.log" 2>&1 || note="FAILED (exit $?; see $PLANS/$name.log)"
    [ -n "$note" ] || [ -f "$dir/summary.json" ] || note="FAILED (no summary.json; see $PLANS/$name.log)"
    [ -z "$note" ]
}
one() {  # scenario system seed scheduler-options args
    sc=$1; sys=$2; seed=$3; opts=$4; args=$5
    name="$sc-$sys-s$seed"
    dir="$RES/$EXP/$(sched_of "$sys")/$name"
    t1=$(date +%s)
    runargs=$(runargs_of "$sys" "$seed" "$args" "$opts")
    # A finished run is kept only if it was made of the same: `--quick` (12 jobs) then the full
    # study must not keep the quick runs of their common seed, nor a study the runs of an
    # edited topology file.  The binary may differ.
    # (The space first: keys began with the environment variables a run was made with.)
    key=" $runargs topology-sha1=$(sha1sum < "$(topo_of "$sys")" | cut -c1-12)${TRACE:+ trace=$TRACE}"
    if [ -f "$dir/summary.json" ] && grep -q '"partial": *false' "$dir/summary.json" &&
       [ "$(cat "$dir/run.key" 2>/dev/null)" = "$key" ]; then
        note="done already"
    else
        made_again_if_machine_limited "$dir" make_run || true
        [ -n "$note" ] || printf '%s\n' "$key" > "$dir/run.key"
        # The per-flow and per-link logs: a paper-scale run writes ~100 MB of them (the study
        # ~40 GB), gzip about 8x less; the GENI report reads flows.csv.gz as it is.
        [ -n "$note" ] || gzip -f "$dir/flows.csv" "$dir/links.csv" 2>/dev/null || true
        [ -n "$note" ] || note="$(($(date +%s) - t1)) s$MADE_AGAIN"
    fi
    echo "$name" >> "$DONE"
    [ "$note" = "done already" ] || echo "$name" >> "$DONE.ran"
    k=$(wc -l < "$DONE"); ran=$(cat "$DONE.ran" 2>/dev/null | wc -l); el=$(($(date +%s) - T0))
    eta="?"; [ "$ran" -eq 0 ] || eta="$((el * (NTASKS - k) / ran))s"
    par_line "[$k/$NTASKS] $name: $note; elapsed ${el}s, ETA $eta"
    case $note in FAILED*) echo "$name" >> "$DONE.failed"; return 1 ;; esac
}
worker() {  # task file
    while IFS='|' read -r sc sys seed opts args; do one "$sc" "$sys" "$seed" "$opts" "$args" || :; done < "$1"
}
if [ -n "$TRACE" ]; then
    for seed in $SEEDS; do sample_trace "$seed"; done
fi
if [ "$BACKEND" = emu ]; then
    worker "$TASKS"
else
    while IFS='|' read -r sc sys seed opts args; do par one "$sc" "$sys" "$seed" "$opts" "$args" < /dev/null; done < "$TASKS"
fi
par_wait
par_end
echo "all runs: $(($(date +%s) - T0)) s wall"

# The simulator twin of an emulator study: the same runs on the flow-level simulator, for the
# emulator's seeds and the simulator's twenty, in a minute or two.  Five seeds are too few for
# ratios within ~10% of 1; the report sets the twin's directions and its run-by-run agreement
# with the emulator beside the emulator's own.  TWIN=0 goes without.
TWIN_RES=""
if [ "$BACKEND" = emu ] && [ "${TWIN:-1}" != 0 ]; then
    twin_seeds=$(printf '%s\n' $(echo $SEEDS | cut -d' ' -f1-"$REPS") $(seq 4 23) | awk '!seen[$0]++' | tr '\n' ' ')
    TWIN_RES=$RES/jobpacker-sim-geni
    mkdir -p "$TWIN_RES"
    echo "the simulator twin: $(echo $twin_seeds | wc -w) seeds (log: $TWIN_RES/twin.log)"
    # The twin sweeps every default rate whatever the emulator's LOAD_RATES, and those too.
    # shellcheck disable=SC2086
    twin_rates=$(printf '%s\n' 2 0.5 0.25 $LOAD_RATES | awk '!seen[$0]++' | tr '\n' ' ')
    # shellcheck disable=SC2086
    OUT_SIM=$TWIN_RES/out SEEDS="" TWIN=0 LOAD_RATES="$twin_rates" "$HERE/run.sh" --backend sim --scale geni --no-sens \
        --jobs "$JOBS" --reps "$(echo $twin_seeds | wc -w)" --seeds "$twin_seeds" ${TRACE:+--trace "$TRACE"} \
        --baseline-slowstart "$BASE_SS" $NETARGS \
        > "$TWIN_RES/twin.log" 2>&1 || { echo "run.sh: the simulator twin failed (see $TWIN_RES/twin.log); the report goes without it" >&2; TWIN_RES=""; }
fi

if [ "$SCALE" = paper ]; then
    python3 "$HERE/report.py" --sim "$RES/$EXP" "$OUT"
    command -v gnuplot >/dev/null && (cd "$OUT" && gnuplot "$HERE/plots-sim.gp") && echo "plots in $OUT"
else
    python3 "$HERE/report.py" "$RES/$EXP" "$OUT" --plans "$PLANS" ${TWIN_RES:+--twin "$TWIN_RES"}
    command -v gnuplot >/dev/null && (cd "$OUT" && gnuplot "$HERE/plots.gp") && echo "plots in $OUT"
fi
echo "report: $REPORT"
if [ -s "$DONE.failed" ]; then
    # The report names them (left out); the exit status says the study is incomplete.
    echo "run.sh: $(wc -l < "$DONE.failed") run(s) failed: $(tr '\n' ' ' < "$DONE.failed")" >&2
    exit 1
fi
