#!/bin/sh
# Fabric up/down timing (needs root).  Run from the repository root.
set -e
BUILD=${BUILD:-build}
if [ "$(id -u)" -ne 0 ]; then echo "bench/fabric.sh: skipped (needs root)"; exit 0; fi
"$BUILD/bench/fabric_updown" "${REPS:-5}"
