#!/usr/bin/env bash
# Allocation failures in `skdcci analyze` on a small sealed pair (test builds:
# SK_FAIL_ALLOC_AT=N fails the Nth allocation of the process; cJSON, PCRE2,
# zstd and OpenSSL allocate through the same counter).  Every run must either
# succeed with exactly the outputs of the undisturbed run (a failure the code
# legitimately tolerates) or exit 1 with exactly one error line, nothing on
# stdout, no output directory content, no crash (exit < 128; ASan/UBSan
# builds exit 99 on a finding) - and never touch the roots.
#
# Sampling (docs/analyze.md §14): the undisturbed run makes ~22,000
# allocations, too many to fail each one in the suite's time budget.  Every
# allocation up to ALLOC_EVERY (option parsing, contract validation, the
# first file of each reader: the dense part of the setup) is failed, then an
# even stride over the rest (metadata, kernel_details, sk_prof aggregation,
# tokens, both reports) with ALLOC_STRIDED runs, plus the very last one.
# `make check-alloc` (SK_SWEEP_STRIDE=1) fails every allocation;
# ALLOC_SHARD=i/k keeps the runs with n % k == i (to split a full sweep over
# several processes, each in its own directory).  A multi-rank pair (two
# devices analysed on worker threads, in torch_npu's layout) gets a shorter
# sweep of the same kind.
source "$SK_REPO/tests/lib.sh"
GEN=$TOOLS/skdcci_gen
SEAL=$SK_REPO/tests/tools/seal_pair.sh
ALLOC_EVERY=${ALLOC_EVERY:-200}
ALLOC_STRIDED=${ALLOC_STRIDED:-150}
if [ "${SK_VALGRIND:-0}" = 1 ]; then ALLOC_EVERY=25; ALLOC_STRIDED=25; fi
case $SK_BUILD in */asan) ALLOC_EVERY=${ALLOC_EVERY_ASAN:-100}; ALLOC_STRIDED=${ALLOC_STRIDED_ASAN:-60} ;; esac

"$GEN" --out pair --scenario regression --steps 3 >/dev/null 2>gen.err || { t_fail generate "$(cat gen.err)"; exit 0; }
"$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" pair >/dev/null 2>seal.err ||
    { t_fail seal "$(cat seal.err)"; exit 0; }
# a multi-rank pair (docs/analyze.md §9.1): device analyses on worker threads,
# the ranks in torch_npu's layout (each linked by its *_ascend_pt directory, §3.3)
"$SK_REPO/tests/tools/multi_rank_pair.sh" --gen "$GEN" --no-seal --gen-arg --layout --gen-arg torch_npu \
    ranks regression no_regression >/dev/null 2>gen.err ||
    { t_fail generate_ranks "$(cat gen.err)"; exit 0; }
"$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" ranks >/dev/null 2>seal.err ||
    { t_fail seal_ranks "$(cat seal.err)"; exit 0; }

# sweep NAME PAIR EVERY STRIDED
sweep() {
local name=$1 pair=$2 every=$3 strided=$4
tree_state() { (cd "$pair" && find . -printf '%p %s %m %T@ %y\n' | LC_ALL=C sort); }
tree_state >roots.before
rm -rf base
SK_ALLOC_STATS=$PWD/count.txt "$SK_BUILD/bin/skdcci" analyze -q "$pair/o0" "$pair/disable_all" -o base \
    >base.stdout 2>base.stderr
rc=$?
total=$(cat count.txt 2>/dev/null || echo 0)
if [ "$rc" -ne 0 ] || [ "$total" -lt 100 ]; then
    t_fail "$name:baseline" "exit $rc, $total allocations: not a test build?" "$(cat base.stderr)"
    return
fi
t_pass "$name:baseline ($total allocations)"

[ "${SK_SWEEP_STRIDE:-}" = 1 ] && every=$total
step=$(( (total - every) / strided + 1 ))
[ "$step" -lt 1 ] && step=1
bad="" runs=0 failed_runs=0 tolerated=0
shard_i=${ALLOC_SHARD%/*} shard_k=${ALLOC_SHARD#*/}
[ -n "${ALLOC_SHARD:-}" ] || { shard_i=0 shard_k=1; }
for n in $(seq 1 "$every") $(seq $((every + 1)) "$step" "$total") "$total"; do
    [ "$n" -gt "$total" ] && continue
    [ $((n % shard_k)) -eq "$shard_i" ] || continue
    rm -rf out
    SK_FAIL_ALLOC_AT=$n $SK_WRAP "$SK_BUILD/bin/skdcci" analyze -q "$pair/o0" "$pair/disable_all" -o out \
        >run.stdout 2>run.stderr
    rc=$?
    runs=$((runs + 1))
    if [ "$rc" -eq 0 ]; then
        tolerated=$((tolerated + 1))
        if ! diff -r base out >/dev/null || ! cmp -s base.stdout <(sed -e 's|\bout/|base/|g' -e 's|--analysis out |--analysis base |' run.stdout); then
            bad="$bad n=$n:succeeded_with_other_output"
        fi
        continue
    fi
    failed_runs=$((failed_runs + 1))
    if [ "$rc" -ne 1 ] || [ "$(wc -l <run.stderr)" -ne 1 ] || ! grep -q '^skdcci: error: ' run.stderr ||
       [ -s run.stdout ] || [ -n "$(ls -A out 2>/dev/null)" ]; then
        bad="$bad n=$n:rc=$rc:$(head -c 200 run.stderr | tr '\n' '|')"
    fi
done
if [ -z "$bad" ]; then
    t_pass "$name:sweep ($runs runs of $total allocations: every n <= $every, then every ${step}th; $failed_runs clean failures, $tolerated tolerated)"
else
    t_fail "$name:sweep" "of $runs runs ($total allocations):$bad"
fi
tree_state >roots.after
t_ok "$name:roots_unchanged" diff roots.before roots.after
}

sweep one_device pair "$ALLOC_EVERY" "$ALLOC_STRIDED"
sweep multi_rank ranks 40 "$(( (ALLOC_STRIDED + 2) / 3 ))"
