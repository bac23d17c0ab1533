#!/bin/sh
# OCS reconfiguration timing (needs root).  Run from the repository root.
set -e
BUILD=${BUILD:-build}
if [ "$(id -u)" -ne 0 ]; then echo "bench/ocs.sh: skipped (needs root)"; exit 0; fi
"$BUILD/bench/ocs_timing"
