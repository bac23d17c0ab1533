#!/bin/sh
# The flow-level simulator's cost: wall time, CPU time (user + system: on a
# shared machine the steadier of the two), peak memory (RSS), events and
# bandwidth reallocations, as a table.  No root.  Run from the repository root.
# The results go to $TMPDIR (default /tmp): flows.csv is gigabytes at paper
# scale, and on a busy disk its writes can take longer than the simulation
# (TMPDIR=/dev/shm keeps them in memory).
#
#   ladder   servers x jobs at the paper's load per server (online: the jobs
#            arrive uniformly over 5.4 s x jobs x 600 / servers, the paper's
#            1000 jobs over 5400 s on 600; batch: all at once), Fair and
#            JobPacker: 100 x 100, 600 x 1000, and with SIM_BIG=1 the
#            ten-times-paper point 6000 x 10000 (5 to 12 minutes each, and
#            5 GiB for Fair's batch)
#   paper    topologies/paper-20x30.conf, 1000 jobs, --data-scale 1
#            --time-scale 1, online (uniform:5400) and batch, for Fair, Delay,
#            NAS, JobPacker and Corral; and Fair online with --no-flows
#
# BUILD (default build) picks the binary; BASE=/tmp/old/build measures another
# checkout's too, each point there first and here next (a row "base" above each),
# so that both see the same machine (git worktree add /tmp/old REV && make -C
# /tmp/old build/bin/emu); the row here then says whether its tasks.csv and
# jobs.csv are byte for byte the base's ("same") or not ("DIFFERENT").
# SIM_ONLY=ladder|paper runs one part, SIM_SCHEDS narrows the paper part's
# schedulers.  SIM_QUANTUM (default 0.01 s, as emu run) is the bandwidth
# reallocation quantum.  SIM_NO_FLOWS=1 runs every point with --no-flows
# (flows.csv is gigabytes at 6000 servers; the paper part's last row
# is without it anyway).
set -e
BUILD=${BUILD:-build}
EMU="$BUILD/bin/emu"
BASE=${BASE:-}
Q=${SIM_QUANTUM:-0.01}
NOFLOWS=${SIM_NO_FLOWS:+--no-flows}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The rest of the paper's options by scheduler: JobPacker's slowstart.
slowstart() { case $1 in jobpacker) echo 0.7 ;; *) echo 0.05 ;; esac; }

run() {  # label topology jobs scheduler arrivals [more emu run options]
	[ -z "$BASE" ] || run1 "$BASE/bin/emu" " base" "$@"
	run1 "$EMU" "" "$@"
	rm -rf "$TMP/base"
}

run1() {  # binary tag label topology jobs scheduler arrivals [more emu run options]
	bin=$1 tag=$2 label=$3 t=$4 jobs=$5 sched=$6 arr=$7; shift 7
	/usr/bin/time -f '%e %M %U %S' -o "$TMP/t" "$bin" run --backend sim --topology "$t" --jobs "$jobs" \
		--scheduler "$sched" --slowstart "$(slowstart "$sched")" --arrivals "$arr" --data-scale 1 \
		--time-scale 1 --timeout 1000000 --sim-quantum "$Q" --results "$TMP/r" --run "$label" --quiet \
		$NOFLOWS "$@" >/dev/null 2>&1 || true   # a partial run exits 1: the table says PARTIAL
	d="$TMP/r/default/$sched/$label" same=""
	if [ -n "$tag" ]; then
		mkdir -p "$TMP/base" && cp "$d/tasks.csv" "$d/jobs.csv" "$TMP/base/" 2>/dev/null || true
	elif [ -n "$BASE" ]; then
		same=DIFFERENT
		cmp -s "$d/tasks.csv" "$TMP/base/tasks.csv" && cmp -s "$d/jobs.csv" "$TMP/base/jobs.csv" && same=same
	fi
	python3 - "$d/summary.json" "$(tail -n 1 "$TMP/t")" "$label" "$sched$tag" "$same" <<'PY'
import json, sys
wall, kb, user, system = sys.argv[2].split()
try:
    s = json.load(open(sys.argv[1]))
except OSError:
    print("%-22s %-15s failed (no summary.json)" % (sys.argv[3], sys.argv[4])); sys.exit()
sim, w = s["sim"], float(wall)
print("%-22s %-15s %8.1f %8.1f %8.0f %10d %9d %10d %9.0f %9.1f %8.2f%s%s" % (
    sys.argv[3], sys.argv[4], w, float(user) + float(system), int(kb) / 1024, sim["events"], sim["allocations"], sim["flows"],
    sim["events"] / w, s["makespan_s"], s["jct_mean_s"], "  PARTIAL" if s["partial"] else "",
    "  " + sys.argv[5] if sys.argv[5] else ""))
PY
	rm -rf "$TMP/r"   # flows.csv is gigabytes at paper scale
}

header() {
	echo "$1"
	printf '%-22s %-15s %8s %8s %8s %10s %9s %10s %9s %9s %8s\n' point scheduler "wall s" "CPU s" "RSS MiB" events \
		reallocs flows "events/s" "makespan" "mean JCT"
}

topo() {  # servers -> a paper-like topology file (10 Gb/s servers, 10:1 uplinks, 100 Gb/s OCS)
	case $1 in
	100) sed 's/^racks = 20;/racks = 10;/; s/^servers_per_rack = 30;/servers_per_rack = 10;/; s/30Gbit/10Gbit/' \
		topologies/paper-20x30.conf > "$TMP/s100.conf" ;;
	*) sed "s/^racks = 20;/racks = $(($1 / 30));/" topologies/paper-20x30.conf > "$TMP/s$1.conf" ;;
	esac
	echo "$TMP/s$1.conf"
}

part() { [ -z "$SIM_ONLY" ] || [ "$SIM_ONLY" = "$1" ]; }

if part ladder; then
	header "ladder (paper load per server; quantum $Q s):"
	points="100:100 600:1000"
	[ -z "$SIM_BIG" ] || points="$points 6000:10000"
	for p in $points; do
		servers=${p%%:*} jobs=${p#*:}
		t=$(topo "$servers")
		span=$(python3 -c "print(round(5.4 * $jobs * 600 / $servers))")
		for sched in fair jobpacker; do
			run "${servers}x${jobs}-online" "$t" "$jobs" "$sched" "uniform:$span"
			run "${servers}x${jobs}-batch" "$t" "$jobs" "$sched" batch
		done
	done
fi
if part paper; then
	header "paper setup (paper-20x30, 1000 jobs; quantum $Q s):"
	for sched in ${SIM_SCHEDS:-fair delay nas jobpacker corral}; do
		run paper-online topologies/paper-20x30.conf 1000 "$sched" uniform:5400
		run paper-batch topologies/paper-20x30.conf 1000 "$sched" batch
	done
	# What flows.csv costs: Fair online again without it (this build only).
	(BASE=; run1 "$EMU" "" paper-online-noflows topologies/paper-20x30.conf 1000 fair uniform:5400 --no-flows)
fi
