#!/bin/sh
# The default job, until the cluster controller lands: bring up the GENI-like
# 10-rack fabric, show the EPS bottleneck and an OCS circuit with real TCP
# flows (iperf3), print the link counters, and take everything down again.
set -eu
NETCTL=${NETCTL:-build/bin/netctl}
TOPO=${1:-topologies/geni-10rack.conf}
P=demo
if [ "$(id -u)" -ne 0 ]; then echo "demo: needs root (it builds network namespaces)" >&2; exit 2; fi
command -v iperf3 >/dev/null || { echo "demo: iperf3 missing: run scripts/deps.sh" >&2; exit 2; }

cleanup() { "$NETCTL" --prefix $P down >/dev/null 2>&1 || true; }
trap cleanup EXIT INT TERM
"$NETCTL" --prefix $P down >/dev/null
"$NETCTL" --prefix $P up "$TOPO"

# Two flows rack 0 -> rack 1 at once, from two servers; report Mbit/s each.
pair() {  # $1 = TOS for both flows
    for h in 0 1; do
        "$NETCTL" --prefix $P exec r1h$h -- iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
    done
    sleep 0.3
    for h in 0 1; do
        "$NETCTL" --prefix $P exec r0h$h -- iperf3 -c 198.18.1.$((h + 1)) -p 5201 -t 3 -C cubic -S "$1" -J \
            > /tmp/emu-demo-$h.json 2>/dev/null &
    done
    wait
    for h in 0 1; do
        sed -n 's/.*"bits_per_second":[[:space:]]*\([0-9.e+]*\).*/\1/p' /tmp/emu-demo-$h.json | tail -1 |
            awk -v h=$h '{ printf "  r0h%d -> r1h%d: %6.1f Mbit/s\n", h, h, $1 / 1e6 }'
        rm -f /tmp/emu-demo-$h.json
    done
}

echo
echo "1) two unmarked flows rack 0 -> rack 1 share rack 0's 100 Mbit/s EPS uplink:"
pair 0
echo
echo "2) circuit 0>1 set; the same flows marked TOS 0x08 take the 1 Gbit/s OCS,"
echo "   each limited only by its 100 Mbit/s server link:"
"$NETCTL" --prefix $P circuits set '0>1'
pair 8
echo
"$NETCTL" --prefix $P stats --interval 0 | grep -E '^(link|tor0|tor1|cross)'
echo
"$NETCTL" --prefix $P down
trap - EXIT INT TERM
