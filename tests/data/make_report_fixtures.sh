#!/bin/sh
# Makes the small results trees that tests/unit/test_experiments_nas.c runs the
# report scripts over: tests/data/nas/ (experiments/nas/report.py, prefix "nas")
# and tests/data/crossval/ (experiments/crossval/report.py).  Tiny runs of the
# flow-level simulator, a few jobs each, on the studies' own setups; run names and
# layout as the studies' run.sh make them.  The "emu-*" runs stand in for emulated
# runs: they are simulator runs with 2 copiers per reduce instead of 5, so that
# their numbers differ from their "sim-*" twins (the reports take the backend
# from the run's name).  One run of each tree is stopped early (partial).  The
# reports read summary.json, jobs.csv and tasks.csv; the other files are dropped.
#
#   tests/data/make_report_fixtures.sh      (from the repository; needs build/bin/emu)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
EMU=${EMU:-build/bin/emu}
[ -x "$EMU" ] || { echo "make_report_fixtures.sh: $EMU missing: run make first" >&2; exit 2; }
NAS=tests/data/nas; XV=tests/data/crossval
rm -rf "$NAS" "$XV"

# run RESULTS EXP SCHED NAME OPTS [emu run args...]; OPTS is "-" or KEY=V[,KEY=V], the
# scheduler's options
run() {
    res=$1; exp=$2; sc=$3; name=$4; opts=$5; shift 5
    [ "$opts" = - ] && opts=""
    so=""
    for o in $(echo "$opts" | tr , ' '); do so="$so --sched-opt $o"; done
    # shellcheck disable=SC2086
    "$EMU" run --backend sim --experiment "$exp" --run "$name" --results "$res" \
        --scheduler "$sc" --quiet $so "$@" > /dev/null 2>&1 || true   # a partial run exits 1
    d=$res/$exp/$sc/$name
    [ -f "$d/summary.json" ] || { echo "make_report_fixtures.sh: no $d/summary.json" >&2; exit 1; }
    rm -f "$d/flows.csv" "$d/links.csv" "$d/ocs.csv" "$d/run.key"
}

# ---- experiments/nas: prefix nas, 6 jobs a run; seeds 3 and 25 draw few maps (64 and 57
# tasks) with jobs of every shuffle class and two of at least 10 maps each
CL="--topology experiments/nas/cloudlab-8x5-16c.conf --arrivals poisson:14 --data-scale 0.00125 --time-scale 0.05
    --rate-scale 0.025 --jobs 6 --recurring 0 --slowstart 0.2"
for seed in 3 25; do
    for sc in fair delay sw-delay nas nas-mts nas-nott nas-noadapt; do
        # shellcheck disable=SC2086
        run $NAS nas-cloudlab $sc sim-s$seed - $CL --seed $seed
    done
    # shellcheck disable=SC2086
    run $NAS nas-cloudlab nas sim-s$seed-mtsca congestion=1e9 $CL --seed $seed
    # shellcheck disable=SC2086
    run $NAS nas-cloudlab nas-nott sim-s$seed-woboth t_min=0.2,t_max=0.2 $CL --seed $seed
    for sc in fair delay sw-delay nas; do
        # shellcheck disable=SC2086
        run $NAS nas-cloudlab $sc emu-s$seed - $CL --seed $seed --copiers 2
    done
    for tt in 0.2:0.5 0.2:0.9 0.1:0.5; do
        lo=${tt%:*}; hi=${tt#*:}
        # shellcheck disable=SC2086
        run $NAS nas-tsweep nas sim-s$seed-tmin$lo-tmax$hi t_min=$lo,t_max=$hi $CL --seed $seed
    done
done
# Seed 24: Fair's run stopped early (partial), the other main schedulers' complete: not a
# common seed.  Seed 6: NAS only.  Neither may count in a mean over the common seeds.
for sc in delay sw-delay nas; do
    # shellcheck disable=SC2086
    run $NAS nas-cloudlab $sc sim-s24 - $CL --seed 24
done
# shellcheck disable=SC2086
run $NAS nas-cloudlab fair sim-s24 - $CL --seed 24 --timeout 1
# shellcheck disable=SC2086
run $NAS nas-cloudlab nas sim-s6 - $CL --seed 6
for sc in fair delay sw-delay nas; do
    run $NAS nas-full $sc sim-s3 - --topology experiments/nas/cloudlab-8x5-16c.conf --arrivals poisson:14 \
        --data-scale 1 --time-scale 1 --rate-scale 1 --jobs 6 --recurring 0 --slowstart 0.2 --seed 3 --timeout 100000
done
A600="--topology experiments/nas/nas-30x20.conf --data-scale 0.25 --time-scale 1 --rate-scale 1 --jobs 6
      --recurring 0 --arrivals poisson:3.54 --slowstart 0.2 --seed 3"
for sc in fair delay sw-delay nas nas-mts nas-nott nas-noadapt; do
    # shellcheck disable=SC2086
    run $NAS nas-sim600 $sc sim-s3 - $A600
done
# shellcheck disable=SC2086
run $NAS nas-sim600 nas sim-s3-mtsca congestion=1e9 $A600
# shellcheck disable=SC2086
run $NAS nas-sim600 nas-nott sim-s3-woboth t_min=0.2,t_max=0.2 $A600

# ---- experiments/crossval: the study's 20 jobs a run (JobPacker's use circuits), summary.json
# only (all the report reads); seed 6: F-Hybrid complete, Corral stopped early (partial)
for seed in 4 5; do
    for sys in F-Hybrid JobPacker Corral F-EPS; do
        case $sys in F-Hybrid|F-EPS) sc=fair ;; JobPacker) sc=jobpacker ;; Corral) sc=corral ;; esac
        topo=topologies/geni-10rack.conf; [ $sys = F-EPS ] && topo=topologies/geni-10rack-eps.conf
        slow=0.05; [ $sys = JobPacker ] && slow=0.7
        for be in sim emu; do
            extra=""; [ $be = emu ] && extra="--copiers 2"
            # shellcheck disable=SC2086
            run $XV crossval $sc $be-$sys-s$seed - --topology $topo --seed $seed --jobs 20 --slowstart $slow $extra
        done
    done
done
run $XV crossval fair sim-F-Hybrid-s6 - --topology topologies/geni-10rack.conf --seed 6 --jobs 20 --slowstart 0.05
run $XV crossval corral sim-Corral-s6 - --topology topologies/geni-10rack.conf --seed 6 --jobs 20 --slowstart 0.05 \
    --timeout 1
find "$XV" -name '*.csv' -delete
mv "$XV/crossval"/* "$XV/" && rmdir "$XV/crossval"
du -sh "$NAS" "$XV"
