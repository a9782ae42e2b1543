# Allocation failures in skdcci_gen (test builds: SK_FAIL_ALLOC_AT=N fails
# the Nth allocation): every sampled failure ends in exit 1 with one
# "out of memory" line, no crash, no leak (ASan/valgrind builds), and
# nothing left in the output directory.
source "$SK_REPO/tests/lib.sh"
GEN="$TOOLS/skdcci_gen"
run_sweep() { # NAME ARGS...
    local name=$1; shift
    rm -f count.txt
    SK_ALLOC_STATS=$PWD/count.txt "$GEN" --out "base_$name" "$@" >/dev/null 2>&1
    local total; total=$(cat count.txt 2>/dev/null || echo 0)
    if [ "$total" -lt 10 ]; then t_fail "sweep_$name" "allocation count unavailable ($total): not a test build?"; return; fi
    # Every one of the first 60 allocations (setup, buffers, queues), then an
    # even sample up to the last one (ground-truth JSON tree).
    local step=$((total / 80 + 1)) n bad="" runs=0
    [ "${SK_VALGRIND:-0}" = 1 ] && step=$((total / 15 + 1))
    for n in $(seq 1 60) $(seq 61 "$step" "$total") "$total"; do
        [ "$n" -gt "$total" ] && continue
        rm -rf out
        SK_FAIL_ALLOC_AT=$n $SK_WRAP "$GEN" --out out "$@" >stdout.txt 2>stderr.txt
        rc=$?
        runs=$((runs + 1))
        if [ "$rc" -ne 1 ] || [ "$(wc -l <stderr.txt)" -ne 1 ] || ! grep -q "memory" stderr.txt ||
           [ -s stdout.txt ] || [ -n "$(find out -type f 2>/dev/null)" ]; then
            bad="$bad n=$n:rc=$rc:$(head -c 160 stderr.txt)"
        fi
    done
    if [ -z "$bad" ]; then t_pass "sweep_$name"
    else t_fail "sweep_$name" "of $runs runs ($total allocations):$bad"; fi
}
run_sweep plain --scenario regression --steps 3
run_sweep zstd --scenario buffer_full --zstd --zstd-graphs
run_sweep ranks --scenario multi_rank_device_set --ranks 3 --steps 3
