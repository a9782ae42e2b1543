#!/usr/bin/env bash
# Runs the whole suite against one build directory and ends with
# "N passed, N failed".  Usage: tests/run.sh BUILD_DIR [FILTER]
#   unit tests:   BUILD/tests/unit/test_*      (TAP lines from each binary)
#   CLI cases:    tests/cases/**/cmd           (data-driven, see tests/README.md)
#   scripts:      tests/scripts/*.sh           (TAP lines)
set -u
B=${1:?usage: tests/run.sh BUILD_DIR [FILTER]}
FILTER=${2:-}
REPO=$(cd "$(dirname "$0")/.." && pwd)
case "$B" in /*) ;; *) B="$REPO/$B" ;; esac
export SK_BUILD="$B" SK_REPO="$REPO" LC_ALL=C TZ=UTC
# Time bounds: a unit binary or a script may take TIMEOUT seconds, one CLI case
# CASE_TIMEOUT (a hang, e.g. a FIFO opened for reading, fails the case instead
# of stalling the suite); valgrind is about 20 times slower.
TIMEOUT=${SK_TEST_TIMEOUT:-300}
CASE_TIMEOUT=${SK_CASE_TIMEOUT:-30}
if [ "${SK_VALGRIND:-0}" = 1 ]; then TIMEOUT=$((TIMEOUT * 4)); CASE_TIMEOUT=$((CASE_TIMEOUT * 10)); fi
# SK_TIMES=FILE appends "<seconds> <test>" for every case and script.
TIMES=${SK_TIMES:-}
pass=0 fail=0
failed_names=()

count_tap() { # FILE LABEL
    local p f
    p=$(grep -c '^ok ' "$1"); f=$(grep -c '^not ok ' "$1")
    grep -E '^ok .*# SKIP' "$1" # a skip stays visible
    pass=$((pass + p)); fail=$((fail + f))
    if [ "$f" -gt 0 ]; then
        grep -A30 '^not ok ' "$1" | grep -E '^(not ok|#)' | head -60
        while read -r l; do failed_names+=("$l"); done < <(grep '^not ok ' "$1")
    fi
}

TMPROOT=$(mktemp -d "${TMPDIR:-/tmp}/skdcci-tests.XXXXXX")
# traversable (not listable) so that as_unprivileged (tests/lib.sh) can reach
# the case's work directory as uid 65534
chmod 711 "$TMPROOT"
trap 'rm -rf "$TMPROOT"' EXIT

# Unit binaries and scripts run in a pool of JOBS parallel slots (default:
# the online CPUs), each in its own work directory; their outputs are counted
# in a fixed order afterwards, so the report reads the same whatever the
# schedule.  A script that watches processes or timing (marked with a line
# "# sk-test: serial") runs alone after the pool.
JOBS=${SK_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1
pool_wait() { # wait until fewer than JOBS jobs run
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n 2>/dev/null || true; done
}
# run_job ID DIR CMD...: runs CMD in DIR under the time bound; leaves
# ID.out (stdout and stderr), ID.rc and ID.sec in $TMPROOT/jobs
run_job() {
    local id=$1 dir=$2 t0=$SECONDS rc; shift 2
    mkdir -p "$dir"
    (cd "$dir" && "$@") >"$TMPROOT/jobs/$id.out" 2>&1
    rc=$?
    echo "$rc" >"$TMPROOT/jobs/$id.rc"; echo "$((SECONDS - t0))" >"$TMPROOT/jobs/$id.sec"
}
# finish_job ID NAME LABEL: counts one finished job's TAP lines and exit code
finish_job() {
    local id=$1 name=$2 label=$3 out="$TMPROOT/jobs/$1.out" rc
    rc=$(cat "$TMPROOT/jobs/$id.rc")
    [ -n "$TIMES" ] && [ -n "$label" ] && echo "$(cat "$TMPROOT/jobs/$id.sec") $label $name" >>"$TIMES"
    count_tap "$out" "$name"
    if [ "$rc" -ne 0 ] && ! grep -q '^not ok ' "$out"; then
        fail=$((fail + 1)); failed_names+=("not ok - $name exited $rc")
        echo "not ok - $name exited $rc"; tail -20 "$out"
    fi
}
mkdir -p "$TMPROOT/jobs"

# 1. unit tests
if [ "${SK_VALGRIND:-0}" = 1 ]; then UWRAP="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"; else UWRAP=""; fi
units=()
for t in "$B"/tests/unit/test_*; do
    [ -x "$t" ] || continue
    [ -n "$FILTER" ] && [[ "$t" != *"$FILTER"* ]] && continue
    units+=("$t")
done
for i in "${!units[@]}"; do
    pool_wait
    run_job "unit$i" "$TMPROOT/unit$i" timeout "$TIMEOUT" $UWRAP "${units[$i]}" &
done
wait
for i in "${!units[@]}"; do finish_job "unit$i" "$(basename "${units[$i]}")" ""; done

# 2. data-driven CLI cases
run_case() { # DIR
    local dir=$1 name work rc want
    name=${dir#"$REPO"/tests/cases/}
    work="$TMPROOT/case"; chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"; mkdir -p "$work"
    [ -d "$dir/in" ] && cp -a "$dir/in/." "$work/"
    # setup: prepares what git cannot carry (empty directories, FIFOs, modes)
    local setup_rc=0
    if [ -f "$dir/setup" ]; then
        (cd "$work" && bash -e "$dir/setup") >"$TMPROOT/setup.out" 2>&1 || setup_rc=$?
    fi
    (cd "$work" && find . -mindepth 1 | LC_ALL=C sort) >"$TMPROOT/before"
    local t0=$SECONDS
    (cd "$work" && timeout -k 5 "$CASE_TIMEOUT" bash -c 'source "$SK_REPO/tests/lib.sh"; CASE="$1"; source "$1/cmd"' _ "$dir") \
        >"$TMPROOT/stdout" 2>"$TMPROOT/stderr"
    rc=$?
    [ -n "$TIMES" ] && echo "$((SECONDS - t0)) case $name" >>"$TIMES"
    want=0; [ -f "$dir/rc" ] && want=$(tr -d ' \n' <"$dir/rc")
    local why=()
    [ "$setup_rc" -ne 0 ] && why+=("setup failed ($setup_rc): $(head -c 300 "$TMPROOT/setup.out")")
    [ "$rc" -ge 124 ] && why+=("exit $rc looks like a timeout or signal")
    [ "$rc" -ne "$want" ] && why+=("exit $rc, want $want")
    if [ -f "$dir/stderr" ]; then
        while IFS= read -r l; do
            [ -z "$l" ] && continue
            grep -qF -- "$l" "$TMPROOT/stderr" || why+=("stderr lacks: $l")
        done <"$dir/stderr"
    fi
    if [ -f "$dir/stdout" ] && ! cmp -s "$dir/stdout" "$TMPROOT/stdout"; then
        why+=("stdout differs: $(diff "$dir/stdout" "$TMPROOT/stdout" | head -10)")
    fi
    if [ -f "$dir/stdout.contains" ]; then
        while IFS= read -r l; do
            [ -z "$l" ] && continue
            grep -qF -- "$l" "$TMPROOT/stdout" || why+=("stdout lacks: $l")
        done <"$dir/stdout.contains"
    fi
    if [ "$want" -ne 0 ] && [ ! -f "$dir/multiline" ]; then
        local n; n=$(wc -l <"$TMPROOT/stderr")
        [ "$n" -ne 1 ] && why+=("want exactly one stderr line, got $n")
        [ -s "$TMPROOT/stdout" ] && [ ! -f "$dir/stdout" ] && [ ! -f "$dir/stdout.contains" ] && why+=("stdout not empty")
        (cd "$work" && find . -mindepth 1 | LC_ALL=C sort) >"$TMPROOT/after"
        if ! cmp -s "$TMPROOT/before" "$TMPROOT/after" && [ ! -f "$dir/files" ]; then
            why+=("files left behind: $(comm -13 "$TMPROOT/before" "$TMPROOT/after" | head -5 | tr '\n' ' ')")
        fi
    fi
    if [ -d "$dir/expect" ]; then
        while IFS= read -r f; do
            f=${f#./}
            if [ ! -f "$work/$f" ]; then why+=("missing output $f")
            elif ! cmp -s "$dir/expect/$f" "$work/$f"; then why+=("output $f differs: $(diff "$dir/expect/$f" "$work/$f" | head -6)"); fi
        done < <(cd "$dir/expect" && find . -type f | LC_ALL=C sort)
    fi
    if [ ${#why[@]} -eq 0 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); failed_names+=("not ok - case $name")
        echo "not ok - case $name"
        for w in "${why[@]}"; do echo "#   $w"; done
        echo "#   stderr: $(head -c 600 "$TMPROOT/stderr")"
    fi
}
while IFS= read -r c; do
    d=$(dirname "$c")
    [ -n "$FILTER" ] && [[ "$d" != *"$FILTER"* ]] && continue
    run_case "$d"
done < <(find "$REPO/tests/cases" -name cmd -type f 2>/dev/null | LC_ALL=C sort)

# 3. scripted tests: the pool first, then the serial ones one at a time
scripts=() serial=()
for s in "$REPO"/tests/scripts/*.sh; do
    [ -f "$s" ] || continue
    [ -n "$FILTER" ] && [[ "$s" != *"$FILTER"* ]] && continue
    if grep -q '^# sk-test: serial' "$s"; then serial+=("$s"); else scripts+=("$s"); fi
done
run_script() { # ID SCRIPT
    run_job "$1" "$TMPROOT/$1" env SK_SCRIPT="$(basename "$2" .sh)" timeout "$TIMEOUT" bash "$2"
}
for i in "${!scripts[@]}"; do
    pool_wait
    run_script "script$i" "${scripts[$i]}" &
done
wait
for i in "${!serial[@]}"; do run_script "serial$i" "${serial[$i]}"; done
for i in "${!scripts[@]}"; do finish_job "script$i" "$(basename "${scripts[$i]}")" script; done
for i in "${!serial[@]}"; do finish_job "serial$i" "$(basename "${serial[$i]}")" script; done

if [ "$fail" -gt 0 ]; then
    echo "# failures:"; printf '#   %s\n' "${failed_names[@]}"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
