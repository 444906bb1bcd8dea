# Sourced first by every script a user or CI runs (scripts/*.sh, .ci/run):
#   . "$(dirname "$0")/lib/fail-loudly.bash"
# It stops the script at the first command that fails and says which
# script, line, command and status: under a bare `set -e` the script ends
# with no word, and a command whose output went to /dev/null leaves nothing
# to read.  -E carries the report into functions and subshells; a failure
# deep in a nested script is reported by each script on the way out, the
# innermost first.  (Conditions — if, while, ||, && — are not failures.)
set -eEuo pipefail
trap 'loud_failed $? "$BASH_COMMAND"' ERR

# The report: the script's own line (a function's caller's, for a command
# that failed in a function) and the command that failed.
loud_failed() {
    local status=$1 cmd=$2 n=${#FUNCNAME[@]}
    if [ "$n" -gt 2 ]; then   # loud_failed, the functions, main
        echo "${0##*/}: failed (status $status) at line ${BASH_LINENO[n - 2]}, in ${FUNCNAME[1]} at line ${BASH_LINENO[0]}: $cmd" >&2
    else
        echo "${0##*/}: failed (status $status) at line ${BASH_LINENO[0]}: $cmd" >&2
    fi
}

# quiet CMD...: runs CMD with its output kept in a log instead of the
# terminal; on failure the log's tail goes to stderr and the log is kept.
quiet() {
    local log status=0
    log=$(mktemp "${TMPDIR:-/tmp}/${0##*/}.XXXXXX.log")
    "$@" >"$log" 2>&1 || status=$?
    if [ $status -ne 0 ]; then
        {
            echo "${0##*/}: '$*' failed (status $status); the last lines of its output ($log):"
            tail -n 40 "$log" | sed 's/^/    /'
        } >&2
        return $status
    fi
    rm -f "$log"
}

# apt_sources [ETC_APT]: the apt source files that exist, one a line, in
# either format: one-line (sources.list, sources.list.d/*.list) or deb822
# (sources.list.d/*.sources, which new installs and container images use
# alone).  A format with no file is no error.
apt_sources() {
    local etc=${1:-/etc/apt} f
    for f in "$etc/sources.list" "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do
        if [ -f "$f" ]; then
            echo "$f"
        fi
    done
}

# debian_mirror [ETC_APT]: the first Debian archive URL apt uses (a `deb`
# line's URL, or a deb822 stanza's URIs:), empty when there is none.
debian_mirror() {
    local files
    mapfile -t files < <(apt_sources "${1:-/etc/apt}")
    if [ ${#files[@]} -eq 0 ]; then
        return 0
    fi
    sed -nE -e 's%^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?(https?://[^[:space:]]+/debian)/?([[:space:]].*)?$%\2%p' \
            -e 's%^[[:space:]]*URIs:.*[[:space:]](https?://[^[:space:]]+/debian)/?([[:space:]].*)?$%\1%p' \
            "${files[@]}" | awk 'NR == 1'
}
