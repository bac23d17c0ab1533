# shellcheck shell=sh
# Sourced by the studies' run.sh: one rule for a run the machine could not keep up with.
#
# made_again_if_machine_limited DIR CMD [ARGS...]
#   Runs CMD, which makes one run with its results in DIR.  When the run's fidelity check
#   found the machine behind (verdict machine-limited: saturated CPUs, late
#   reconfigurations), it did not emulate the network it was given: CMD runs once
#   more and the second is kept either way, flagged if it is behind too.  Sets MADE_AGAIN
#   to a note for the progress line, with the first run's reason (empty when once was
#   enough); returns CMD's last status.
made_again_if_machine_limited() {
    ml_dir=$1; shift
    MADE_AGAIN=""
    "$@" || return $?
    grep -q '"verdict": *"machine-limited"' "$ml_dir/summary.json" 2>/dev/null || return 0
    ml_why=$(sed -n 's/.*"detail": *"\([^"]*\)".*/\1/p' "$ml_dir/summary.json" | head -n 1)
    # shellcheck disable=SC2034 # read by the caller
    MADE_AGAIN=" (made again: the first was machine-limited${ml_why:+: $ml_why})"
    "$@"
}
