#!/bin/sh
# The flow-level simulator at the dissertation's scale and around it: wall
# time, events and events per second as servers and jobs grow, and the
# schedulers of Chapter 4 on paper-20x30 with 1000 jobs.  No root.  Run from
# the repository root.  SIM_QUANTUM (default 0.01 s, as emu run) is the
# bandwidth reallocation quantum; SIM_JOBS the job counts of the growth table.
set -e
BUILD=${BUILD:-build}
EMU="$BUILD/bin/emu"
Q=${SIM_QUANTUM:-0.01}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
run() {  # label topology jobs scheduler slowstart [more emu run options]
	label=$1 t=$2 jobs=$3 sched=$4 slow=$5; shift 5
	/usr/bin/env time -f %e -o "$TMP/t" "$EMU" run --backend sim --topology "$t" --jobs "$jobs" --scheduler "$sched" \
		--slowstart "$slow" --data-scale 1 --time-scale 1 --timeout 1000000 --sim-quantum "$Q" \
		--results "$TMP/r" --run "$label" --quiet "$@" >/dev/null 2>&1 || true   # a --timeout run exits 1
	python3 - "$TMP/r/default/$sched/$label/summary.json" "$(tail -n 1 "$TMP/t")" "$label" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); w = float(sys.argv[2]); sim = s["sim"]
print("%-28s %6.1f s wall %9d events %8.0f ev/s  simulated %7.0f s  makespan %7.0f s  JCT %6.1f s  OCS %4.1f%%%s" % (
    sys.argv[3], w, sim["events"], sim["events"] / w, s["run_s"], s["makespan_s"], s["jct_mean_s"],
    100 * s["ocs_share"], "" if not s["partial"] else "  PARTIAL"))
PY
}
topo() {  # racks -> a paper-like topology file with that many racks of 30 servers
	sed "s/^racks = 20;/racks = $1;/; s/^name = .*/name = \"paper-$1x30\";/" topologies/paper-20x30.conf > "$TMP/p$1.conf"
	echo "$TMP/p$1.conf"
}
echo "growth with jobs (paper-20x30, fair, quantum $Q s):"
for n in ${SIM_JOBS:-250 500 1000}; do run "jobs$n" topologies/paper-20x30.conf "$n" fair 0.05; done
echo "growth with servers (1000 jobs, fair):"
for r in 10 40; do run "racks$r" "$(topo $r)" 1000 fair 0.05; done
echo "Chapter 4 systems (paper-20x30, 1000 jobs):"
run JobPacker topologies/paper-20x30.conf 1000 jobpacker 0.7
run F-Hybrid topologies/paper-20x30.conf 1000 fair 0.05
run Corral topologies/paper-20x30.conf 1000 corral 0.05
run F-EPS topologies/paper-20x30-eps.conf 1000 fair 0.05
# Every holder at once (the dissertation's simulator, 6.1.6.2): 10^5 flows share
# the links at a time, and each reallocation visits them all.  The first 40 s.
echo "many flows at once (paper-20x30, 100 jobs, fair, --copiers 1024, first 40 s):"
run copiers1024 topologies/paper-20x30.conf 100 fair 0.05 --copiers 1024 --timeout 40
