#!/bin/sh
# One fabric on one host beside the same over two and three emulated hosts:
# aggregate throughput and the reconfiguration gap (needs root).  Run from
# the repository root.
set -e
BUILD=${BUILD:-build}
if [ "$(id -u)" -ne 0 ]; then echo "bench/multihost.sh: skipped (needs root)"; exit 0; fi
nice -n 10 "$BUILD/bench/multihost" "$BUILD/bin/netctl" "$@"
