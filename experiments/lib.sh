# shellcheck shell=sh
# Sourced first by every study's run.sh (`. "$(dirname "$0")/../lib.sh"`): the preamble they
# share.  Sets HERE (the study's directory), ROOT (the tree), EMU (the emu binary, default
# build/bin/emu), RES (the results root, default results/) and RES_GIVEN (1 when RES came
# from the environment), and brings in machine_limited.sh, parallel.sh and slurm.sh.
#
# die TEXT              prints "run.sh: TEXT" and exits 2 (bad input)
# study_help            prints the script's header comment (its --help), then exits 0
# study_check BACKEND [SIM]  emu|sim, the emu binary built, root for the emulator, and
#                       --slurm with simulator runs only; SIM is the option that asks for
#                       the simulator (default --backend sim), for the messages
# study_args "$@"       the options most studies take and no more: --quick (QUICK=1),
#                       --backend B, --seeds LIST (SEEDS, SEEDS_GIVEN=1), -j N (PAR),
#                       --slurm[=ARGS], -h|--help
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/experiments/machine_limited.sh"
. "$ROOT/experiments/parallel.sh"
. "$ROOT/experiments/slurm.sh"
slurm_keep_argv "$@"
EMU=${EMU:-$ROOT/build/bin/emu}
# shellcheck disable=SC2034 # read by the studies
RES_GIVEN=${RES:+1}
RES=${RES:-$ROOT/results}

die() { echo "run.sh: $*" >&2; exit 2; }

study_help() {
    sed -n '2,/^set -eu$/{/^set -eu$/!p}' "$0" | sed 's/^# \{0,1\}//'
    exit 0
}

study_check() {
    case $1 in emu|sim) ;; *) die "--backend emu or sim, not '$1'" ;; esac
    slurm_sim_only "$1" "${2:---backend sim}"
    [ -x "$EMU" ] || die "$EMU missing: run make first"
    [ "$1" = sim ] || [ "$(id -u)" -eq 0 ] || die "the emu backend needs root (sudo), or use ${2:---backend sim}"
}

study_args() {
    while [ $# -gt 0 ]; do
        case "$1" in
        --quick) QUICK=1 ;;
        --backend|--seeds|-j)
            [ $# -ge 2 ] || die "$1 needs a value (see --help)"
            case "$1" in
            --backend) BACKEND=$2 ;;
            --seeds) SEEDS=$2; SEEDS_GIVEN=1 ;;
            -j) PAR=$2 ;;
            esac
            shift ;;
        --slurm|--slurm=*) slurm_opt "$1" ;;
        -h|--help) study_help ;;
        *) die "unknown option $1 (see --help)" ;;
        esac
        shift
    done
}
