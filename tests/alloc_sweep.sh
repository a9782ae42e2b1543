# Allocation-failure sweep of one CLI command (source after tests/lib.sh).
#
#   alloc_sweep NAME CMD...
#
# Runs CMD (a command or shell function, in the current directory) once to
# record its reference result and allocation count N (test builds write it to
# SK_ALLOC_STATS), then once for every n in 1..N with SK_FAIL_ALLOC_AT=n.
# Each failing run must either absorb the failure (same exit status, same
# stdout, same output files as the reference) or end cleanly: exit status
# non-zero and below 128, exactly one stderr line, empty stdout, and no file
# created in the current directory or below ALLOC_SWEEP_WATCH (more
# directories to watch, e.g. a capture root outside it).  Anything a run
# creates is removed before the next one.  Under ASan/UBSan (exitcode 99) or
# valgrind (--error-exitcode=99) a leak or memory error adds report lines and
# so fails the "one line" rule.
#
# SK_SWEEP_STRIDE=k tests every k-th n (plus the first 60 and the last 10):
# the full sweep is `make check-alloc`; the suite samples.  Runs are serial:
# they share the directory their outputs go to.  Prints one TAP line.
# alloc_sweep_stride K: the suite's sample stride when SK_SWEEP_STRIDE is
# not given (ten times wider under valgrind), exported for every sweep.
alloc_sweep_stride() {
    : "${SK_SWEEP_STRIDE:=$1}"
    [ "${SK_VALGRIND:-0}" = 1 ] && SK_SWEEP_STRIDE=$((SK_SWEEP_STRIDE * 10))
    export SK_SWEEP_STRIDE
}

alloc_sweep_snapshot() { # -> file list with sizes and content hashes
    local d
    for d in . ${ALLOC_SWEEP_WATCH:-}; do
        find "$d" -path ./.sweep -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
        find "$d" -path ./.sweep -prune -o -print | LC_ALL=C sort
    done
}

alloc_sweep_one() { # N CMD... -> .sweep/N.{rc,out,err,files}
    local n=$1; shift
    SK_FAIL_ALLOC_AT=$n "$@" >".sweep/$n.out" 2>".sweep/$n.err"
    echo $? >".sweep/$n.rc"
}

alloc_sweep() {
    local name=$1; shift
    rm -rf .sweep; mkdir .sweep
    alloc_sweep_snapshot >.sweep/before
    SK_ALLOC_STATS=$PWD/.sweep/count "$@" >.sweep/ref.out 2>.sweep/ref.err
    local ref_rc=$?
    alloc_sweep_snapshot >.sweep/ref.files
    local total; total=$(cat .sweep/count 2>/dev/null || echo 0)
    if [ "$total" -lt 10 ]; then t_fail "$name" "allocation count unavailable ($total): not a test build?"; return; fi
    local stride=${SK_SWEEP_STRIDE:-1} n bad=() runs=0
    # undo the reference run's outputs
    comm -13 <(grep -v '  ' .sweep/before) <(grep -v '  ' .sweep/ref.files) | sort -r |
        while IFS= read -r f; do rm -rf "$f"; done
    local ns; ns=$( { seq 1 $((total < 60 ? total : 60)); seq 61 "$stride" "$total"; seq $((total > 10 ? total - 9 : 1)) "$total"; } | sort -nu)
    for n in $ns; do
        # serial per n: outputs would collide in the shared directory
        alloc_sweep_one "$n" "$@"
        runs=$((runs + 1))
        local rc; rc=$(cat ".sweep/$n.rc")
        alloc_sweep_snapshot >.sweep/now
        if [ "$rc" = "$ref_rc" ] && cmp -s ".sweep/$n.out" .sweep/ref.out && cmp -s .sweep/now .sweep/ref.files; then
            : # the failure was absorbed (a library retried or fell back): identical result
        elif [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && [ "$rc" -ne 99 ] && [ "$(wc -l <".sweep/$n.err")" -eq 1 ] &&
             [ ! -s ".sweep/$n.out" ] && cmp -s .sweep/now .sweep/before; then
            : # clean failure
        else
            bad+=("n=$n rc=$rc stderr=$(head -c 200 ".sweep/$n.err" | tr '\n' '|')$(cmp -s .sweep/now .sweep/before || echo ' files-changed')")
        fi
        comm -13 <(grep -v '  ' .sweep/before) <(grep -v '  ' .sweep/now) | sort -r |
            while IFS= read -r f; do chmod -R u+rwx "$f" 2>/dev/null; rm -rf "$f"; done
        rm -f ".sweep/$n".*
        [ ${#bad[@]} -ge 5 ] && break
    done
    if [ ${#bad[@]} -eq 0 ]; then t_pass "$name ($runs of $total allocations failed in turn)"
    else t_fail "$name" "of $runs runs ($total allocations):" "${bad[@]}"; fi
    rm -rf .sweep
}
