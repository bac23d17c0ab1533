# shellcheck shell=sh
# Sourced by lib.sh: a study on a Slurm cluster (`run.sh --slurm[=SBATCH_ARGS]`).  Each run
# the study hands to `par` (parallel.sh) becomes one task of a job array, and the report a
# job that waits for all of them (afterok).  Every job is the same run.sh with the same
# arguments and environment (sbatch exports it): the study enumerates its runs again, a task
# makes only its own (the K-th `par` of the enumeration, K = SLURM_ARRAY_TASK_ID), and the
# report's job makes none and goes on to the report.  So the results root (RES), the tree
# and the emu binary must be on a file system every node shares.
#
# STUDY_ROLE (environment, set by the jobs): task or report; empty for the submitting call.
#
# slurm_keep_argv ARGS...   the script's arguments, for the jobs (lib.sh)
# slurm_opt OPTION          --slurm or --slurm=SBATCH_ARGS (words passed to every sbatch)
# slurm_sim_only BACKEND [SIM]  --slurm with --backend emu: exit 2 (an emulated run needs
#                           root and a whole machine; run those studies on one); SIM names
#                           the option that asks for the simulator (default --backend sim)
# slurm_role                submit, task, report, or local (no --slurm)
# slurm_submit N PAR        submits the array of N tasks (at most PAR at once when PAR is
#                           given) and the report's job; prints and records their ids
SLURM_ON=""; SLURM_ARGS=""; SLURM_ARGV=""

slurm_keep_argv() {
    SLURM_ARGV=""
    for a in "$@"; do
        SLURM_ARGV="$SLURM_ARGV '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
    done
}

slurm_opt() {
    SLURM_ON=1
    case $1 in --slurm=*) SLURM_ARGS=${1#--slurm=} ;; esac
}

slurm_sim_only() {
    [ "$1" = sim ] || [ -z "$SLURM_ON" ] || {
        echo "run.sh: --slurm runs simulator runs only: an emulated run needs root and a whole machine (${2:---backend sim})" >&2
        exit 2
    }
}

slurm_role() {
    if [ -z "$SLURM_ON" ]; then echo local
    else case ${STUDY_ROLE:-} in task|report) echo "$STUDY_ROLE" ;; *) echo submit ;; esac; fi
}

# A job's script: this run.sh, from the directory it was called in, in the given role.
slurm_script() {   # file role
    {
        echo "#!/bin/sh"
        printf "cd '%s' || exit 1\n" "$(pwd | sed "s/'/'\\\\''/g")"
        echo "STUDY_ROLE=$2 exec sh '$(cd "$(dirname "$0")" && pwd)/$(basename "$0")'$SLURM_ARGV"
    } > "$1"
}

slurm_submit() {
    command -v sbatch > /dev/null || { echo "run.sh: --slurm: sbatch not found (Slurm's client)" >&2; exit 2; }
    study=$(basename "$(cd "$(dirname "$0")" && pwd)")
    mkdir -p "$RES/slurm"
    jd=$(mktemp -d "$RES/slurm/$study-XXXXXX")
    slurm_script "$jd/task.sh" task
    slurm_script "$jd/report.sh" report
    dep=""
    if [ "$1" -gt 0 ]; then
        # shellcheck disable=SC2086 # SLURM_ARGS is words
        arr=$(sbatch --parsable -J "emu-$study" --array="1-$1${2:+%$2}" -o "$jd/task-%a.log" \
            $SLURM_ARGS "$jd/task.sh") || { echo "run.sh: sbatch refused the array of $1 runs" >&2; exit 1; }
        arr=${arr%%;*}
        dep="--dependency=afterok:$arr --kill-on-invalid-dep=yes"
        echo "array $arr $1" > "$jd/jobs"
    fi
    # shellcheck disable=SC2086
    rep=$(sbatch --parsable -J "emu-$study-report" $dep -o "$jd/report.log" $SLURM_ARGS "$jd/report.sh") ||
        { echo "run.sh: sbatch refused the report's job" >&2; exit 1; }
    rep=${rep%%;*}
    echo "report $rep" >> "$jd/jobs"
    echo "slurm: $1 runs as job array ${arr:-(none)}, the report as job $rep after them; logs in $jd"
}
