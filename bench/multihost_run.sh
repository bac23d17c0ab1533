#!/bin/sh
# The default experiment (`emu run`: GENI-like fabric, 20 jobs, Fair) on one
# host beside the same over two emulated hosts, ROUNDS rounds taking turns
# (default 2): jobs, tasks, shuffle bytes and makespan of every run (needs
# root).  Run from the repository root.  Extra arguments go to every run.
set -e
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-2}
if [ "$(id -u)" -ne 0 ]; then echo "bench/multihost_run.sh: skipped (needs root)"; exit 0; fi
OUT=$(mktemp -d /tmp/emu-bench-mhr-XXXXXX)
trap 'rm -rf "$OUT"' EXIT
printf 'a emulated lan0 10.82.0.1 auto mtu=1550\nb emulated lan0 10.82.0.2 auto mtu=1550\n' > "$OUT/hosts"
printf '%-10s %6s %6s %14s %10s %9s\n' layout jobs tasks shuffle_B makespan_s fidelity
for k in $(seq 1 "$ROUNDS"); do
	for layout in one two; do
		set --
		[ "$layout" = two ] && set -- --hosts "$OUT/hosts"
		"$BUILD/bin/emu" run --prefix bmhr --results "$OUT/res" --experiment b --run "$layout$k" --quiet "$@"
		python3 - "$OUT/res/b/fair/$layout$k" "$layout" <<'PY'
import json, sys
d, layout = sys.argv[1], sys.argv[2]
s = json.load(open(d + "/summary.json"))
a = s["agent_bytes"]
tasks = sum(1 for _ in open(d + "/tasks.csv")) - 1
f = s["fidelity"]
print("%-10s %6d %6d %14d %10.2f %9s" % ("1 host" if layout == "one" else "2 hosts", s["jobs_finished"], tasks,
      a["shuffle_network"] + a["shuffle_local"], s["makespan_s"], f.get("verdict", "?") if isinstance(f, dict) else f))
PY
	done
done
