#!/bin/sh
# Is the emulator measuring the network or this machine?  Runs the same GENI
# batch twice: as configured, and with every rate halved and every time
# doubled (task durations, OCS interval, delta), which gives the machine twice
# the headroom per emulated second.  A run the machine does not limit gives
# the same makespan and median JCT once the second is divided by 2 (up to the
# constants that do not scale: TCP's 200 ms minimum RTO, the 0.2 s
# heartbeat) and the same share of slow standing-queue link-seconds.  Root.
# Run from the repository root.  SCALE_RUNS: "scheduler:seed:slowstart ...".
set -e
BUILD=${BUILD:-build}
EMU="$BUILD/bin/emu"
[ "$(id -u)" -eq 0 ] || { echo "bench/scale.sh: needs root (emulated runs); skipped"; exit 0; }
TMP=$(mktemp -d)
trap '"$EMU" cleanup --prefix bs >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
run() {  # scheduler seed slowstart rate-scale time-scale interval delta
	"$EMU" run --prefix bs --results "$TMP" --run "$1-s$2-rs$4" --quiet --topology topologies/geni-10rack.conf \
		--scheduler "$1" --seed "$2" --jobs 30 --slowstart "$3" --recurring 1 --min-shuffle 100MB --max-maps 100 \
		--ocs-reconfig early --arrivals batch --rate-scale "$4" --time-scale "$5" --ocs-interval "$6" --delta "$7" \
		</dev/null >"$TMP/log" 2>&1 || { cat "$TMP/log"; exit 1; }
}
printf '%-14s %20s %18s %16s %22s\n' "run" "makespan (s)" "median JCT (s)" "ratio 0.5 / 1" "slow link-s"
printf '%-14s %20s %18s %16s %22s\n' "" "rate 1 / 0.5 (÷2)" "rate 1 / 0.5 (÷2)" "makespan median" "rate 1 / 0.5"
for r in ${SCALE_RUNS:-fair:5:0.05 jobpacker:4:0.7}; do
	IFS=: read -r sched seed ss <<EOF
$r
EOF
	run "$sched" "$seed" "$ss" 1 0.1 1 0.01
	run "$sched" "$seed" "$ss" 0.5 0.2 2 0.02
	python3 - "$TMP/default/$sched/$sched-s$seed-rs1/summary.json" "$TMP/default/$sched/$sched-s$seed-rs0.5/summary.json" \
		"$sched-s$seed" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def slow(s):
    f = s["fidelity"]
    return "%d/%d" % (f["slow_link_samples"], f["standing_queue_link_samples"])
print("%-14s %13.1f / %4.1f %11.2f / %4.2f %9.2f %6.2f %22s" % (
    sys.argv[3], a["makespan_s"], b["makespan_s"] / 2, a["jct_median_s"], b["jct_median_s"] / 2,
    b["makespan_s"] / 2 / a["makespan_s"], b["jct_median_s"] / 2 / a["jct_median_s"], slow(a) + " / " + slow(b)))
PY
done
