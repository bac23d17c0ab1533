#!/bin/sh
# Soak (root): a long online run with the OCS reconfiguring all the time,
# recording memory and file descriptors of the controller and the agents.
# Bounded: SOAK_MINUTES of arrivals (default 30), then it drains and stops.
# Afterwards the crash loop runs EMU_CRASH_LOOPS (default 20) iterations.
#   make soak            SOAK_MINUTES=5 make soak
set -eu
BUILD=${BUILD:-build}
MIN=${SOAK_MINUTES:-30}
OUT=${SOAK_OUT:-results/soak}
if [ "$(id -u)" -ne 0 ]; then echo "bench/soak.sh: skipped (needs root)"; exit 0; fi
mkdir -p "$OUT"
# Poisson arrivals, mean gap 40 s before the 0.1 time scale (4 s real):
# MIN minutes of arrivals is MIN*15 jobs.  Small data so jobs stay short;
# a 10 KB elephant threshold keeps the OCS busy.
JOBS=$((MIN * 15))
"$BUILD/bin/emu" run --prefix soak --jobs "$JOBS" --arrivals poisson:40 --data-scale 0.001 \
    --elephant 10KB --experiment soak --run "soak-$MIN" --results "${OUT%/soak}" \
    --timeout $((MIN * 60 + 900)) --quiet > "$OUT/run.log" 2>&1 &
RUN=$!
echo "t_s,controller_rss_kb,controller_fds,agents,agents_rss_kb,agents_fds" > "$OUT/resources.csv"
T0=$(date +%s)
while kill -0 $RUN 2>/dev/null; do
    sleep 10
    CTL=$(pgrep -f -- "--prefix soak --jobs" | head -1 || true)
    [ -n "$CTL" ] || continue
    crss=$(awk '/VmRSS/{print $2}' /proc/$CTL/status 2>/dev/null || echo 0)
    cfd=$(ls /proc/$CTL/fd 2>/dev/null | wc -l)
    n=0; arss=0; afd=0
    for p in $(pgrep -f "emu-agent.*/run/emu/soak/" || true); do
        r=$(awk '/VmRSS/{print $2}' /proc/$p/status 2>/dev/null || echo 0)
        f=$(ls /proc/$p/fd 2>/dev/null | wc -l)
        n=$((n + 1)); arss=$((arss + r)); afd=$((afd + f))
    done
    echo "$(( $(date +%s) - T0 )),$crss,$cfd,$n,$arss,$afd" >> "$OUT/resources.csv"
done
wait $RUN || echo "soak: emu run exited $?"
python3 - "$OUT/resources.csv" "${OUT%/soak}/soak/fair/soak-$MIN/summary.json" <<'PY'
import csv, json, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if int(r["agents"] or 0) > 0]
if len(rows) < 4:
    sys.exit("soak: too few samples")
q = len(rows) // 4
def avg(rs, k): return sum(float(r[k]) for r in rs) / len(rs)
print("soak: %d samples over %s s" % (len(rows), rows[-1]["t_s"]))
for k in ("controller_rss_kb", "controller_fds", "agents_rss_kb", "agents_fds"):
    a, b = avg(rows[q:2*q], k), avg(rows[-q:], k)
    print("  %-18s 2nd quarter %10.0f  last quarter %10.0f  growth %+.1f%%" % (k, a, b, 100 * (b - a) / a if a else 0))
s = json.load(open(sys.argv[2]))
print("  jobs %d/%d finished, partial=%s, OCS reconfigurations %d, measured/reported cross-rack %.3f, fidelity %s"
      % (s["jobs_finished"], s["jobs"], s["partial"], s["ocs"]["reconfigurations"],
         s["measured_over_reported_cross_rack"], s["fidelity"]["verdict"]))
PY
EMU_CRASH_LOOPS=${EMU_CRASH_LOOPS:-20} build-san/test-integ --jobs 1 --filter 'crash/kill_9*' 2>&1 | tail -1
