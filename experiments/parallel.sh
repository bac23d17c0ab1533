# shellcheck shell=sh
# Sourced by the studies' run.sh: simulator runs side by side, one per core (the
# simulator is single-threaded; an emulated run needs the whole machine and is
# never run beside another).
#
# par_start N TOTAL  at most N runs at once (N empty: every core, nproc); TOTAL runs in
#                    the study (0: not known), for the progress line
# par CMD [ARGS...]  runs CMD in the background once one of the N is free
# par_wait           waits for every run started
# par_done TEXT      a run has finished: the study's progress and TEXT about the run, by
#                    par_line
# par_line TEXT      the study's one progress line: rewritten in place on a terminal,
#                    a line each time otherwise (a log)
# par_end            every run has been handed to par: the study goes on to its report.
#                    With --slurm (slurm.sh) the submitting call submits the runs and the
#                    report's job and exits, a task exits with its run's status, and the
#                    report's job goes on.
# With --slurm, par makes no run in the submitting call (it counts them), the K-th in task
# K, none in the report's job; par_wait waits for nothing.
PAR_K=0; PAR_RC=0; PAR_LIMIT=""
par_start() {
    PAR_N=${1:-$(nproc 2>/dev/null || echo 2)}
    PAR_TOTAL=$2
    PAR_T0=$(date +%s)
    [ -z "$1" ] || PAR_LIMIT=$1
    PAR_ROLE=$(slurm_role)
    [ "$PAR_ROLE" = local ] || return 0
    PAR_COUNT=$(mktemp)
    # A token per free slot in a pipe: par takes one, the run gives it back.
    par_fifo=$(mktemp -u)
    mkfifo "$par_fifo"
    exec 9<>"$par_fifo"
    rm -f "$par_fifo"
    i=0
    while [ $i -lt "$PAR_N" ]; do echo >&9; i=$((i + 1)); done
}

par() {
    PAR_K=$((PAR_K + 1))
    case $PAR_ROLE in
    local) read -r _ <&9
           ( trap 'echo >&9' EXIT; "$@" ) & ;;
    task) [ "$PAR_K" -ne "${SLURM_ARRAY_TASK_ID:-0}" ] || { ( "$@" ) & wait $! || PAR_RC=$?; } ;;
    esac
}

par_wait() {
    [ "$PAR_ROLE" = local ] || return 0
    wait
    [ ! -t 1 ] || echo
}

par_end() {
    case ${PAR_ROLE:-local} in
    submit) slurm_submit "$PAR_K" "$PAR_LIMIT"; exit 0 ;;
    task) exit "$PAR_RC" ;;
    esac
}

par_done() {
    [ -n "${PAR_COUNT:-}" ] || PAR_COUNT=$(mktemp)
    echo >> "$PAR_COUNT"
    k=$(wc -l < "$PAR_COUNT")
    el=$(($(date +%s) - PAR_T0))
    of="" eta=""
    if [ "${PAR_TOTAL:-0}" -gt 0 ]; then
        of="/$PAR_TOTAL"
        eta=", ETA $((el * (PAR_TOTAL - k) / k)) s"
    fi
    par_line "[$k$of runs, ${el} s$eta] $1"
}

par_line() {
    if [ -t 1 ]; then printf '\r\033[K%s' "$1"; else echo "$1"; fi
}
