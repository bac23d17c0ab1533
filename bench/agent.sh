#!/bin/sh
# Agent throughput against iperf3 on the same path, and CPU per Gbit (needs
# root and iperf3).  Run from the repository root.
set -e
BUILD=${BUILD:-build}
if [ "$(id -u)" -ne 0 ]; then echo "bench/agent.sh: skipped (needs root)"; exit 0; fi
if ! command -v iperf3 >/dev/null; then echo "bench/agent.sh: skipped (no iperf3)"; exit 0; fi
for mode in sendfile send; do
	"$BUILD/bench/agent_throughput" --agent "$BUILD/bin/emu-agent" --send "$mode" "$@"
done
