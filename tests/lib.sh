# Shared shell helpers for tests/cases/*/cmd and tests/scripts/*.sh.
# Expects: SK_BUILD (build dir), SK_REPO (repository root).
: "${SK_BUILD:?}" "${SK_REPO:?}"
FIXTURES="$SK_REPO/fixtures"
REF_FIXTURES="$SK_REPO/fixtures/reference"
TOOLS="$SK_BUILD/tests/tools"
if [ "${SK_VALGRIND:-0}" = 1 ]; then
    SK_WRAP="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --track-fds=no"
else
    SK_WRAP=""
fi
# Root reads files whatever their mode, so a test of an unreadable file would
# silently test nothing.  Inside `as_unprivileged`, the tools run as uid/gid
# 65534 when the suite runs as root (CI); as a normal user they run unchanged
# and chmod works as it is.  The files the command must reach have to be
# readable by others (tests/run.sh makes its work root traversable).
sk_priv() {
    if [ -n "${SK_UNPRIVILEGED:-}" ] && [ "$(id -u)" -eq 0 ]; then
        echo "setpriv --reuid=65534 --regid=65534 --clear-groups --"
    fi
}
as_unprivileged() { local SK_UNPRIVILEGED=1; "$@"; }
artifact_contract() { $(sk_priv) $SK_WRAP "$SK_BUILD/bin/artifact_contract" "$@"; }
skdcci() { $(sk_priv) $SK_WRAP "$SK_BUILD/bin/skdcci" "$@"; }

# TAP helpers for scripts: t_ok NAME CMD...  /  t_fail NAME
T_NUM=0
t_pass() { T_NUM=$((T_NUM + 1)); echo "ok - $SK_SCRIPT:$1"; }
t_fail() { T_NUM=$((T_NUM + 1)); echo "not ok - $SK_SCRIPT:$1"; shift; for m in "$@"; do echo "# $m"; done; }
t_ok() {
    name=$1; shift
    if out=$("$@" 2>&1); then t_pass "$name"; else t_fail "$name" "command: $*" "$out"; fi
}
# t_expect NAME RC STDERR_SUBSTRING CMD...: exit code and one stderr line containing the text
t_expect() {
    name=$1 want_rc=$2 want_err=$3; shift 3
    errf=$(mktemp); outf=$(mktemp)
    "$@" >"$outf" 2>"$errf"; rc=$?
    lines=$(wc -l <"$errf")
    if [ "$rc" -ne "$want_rc" ]; then
        t_fail "$name" "exit $rc, want $want_rc" "stderr: $(head -c 2000 "$errf")"
    elif [ -n "$want_err" ] && ! grep -qF -- "$want_err" "$errf"; then
        t_fail "$name" "stderr lacks: $want_err" "stderr: $(head -c 2000 "$errf")"
    elif [ "$want_rc" -ne 0 ] && [ "$lines" -ne 1 ]; then
        t_fail "$name" "want exactly one stderr line, got $lines" "stderr: $(head -c 2000 "$errf")"
    else
        t_pass "$name"
    fi
    rm -f "$errf" "$outf"
}
