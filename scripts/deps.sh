#!/bin/sh
# Install the Debian packages emu needs to build, test and plot.
# Idempotent: apt-get skips what is already installed.
# What for: building (build-essential, pkg-config, libnl-3, libmnl, libpcap, libconfig,
# jansson, libmicrohttpd for the live view, libsvm for Chapter 5's classifier, GLPK,
# libnftables), reports (python3, gnuplot), tests (criterion, iproute2, iperf3, tcpdump,
# mandoc, chromium and python3-selenium for the live view's page), LEMON (the matching
# benchmark), clang (fuzzing).
# slurm-wlm and munge: the integration test of the studies' --slurm starts its own munged,
# slurmctld and slurmd (its configuration, key and socket in a scratch directory); it needs
# none of the services their postinst may enable (slurmd and slurmctld stay down without
# /etc/slurm/slurm.conf).
set -e
PKGS="build-essential pkg-config python3 iproute2 iputils-ping iperf3 gnuplot-nox
      libnl-3-dev libnl-route-3-dev libmnl-dev libpcap-dev libconfig-dev
      libjansson-dev libmicrohttpd-dev libcriterion-dev liblemon-dev libnftables-dev libsvm-dev libglpk-dev clang libclang-rt-dev
      mandoc tcpdump chromium chromium-driver python3-selenium
      slurm-wlm munge"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "deps: all packages present"; exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing:$missing — run 'make deps' as root" >&2; exit 2
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing
