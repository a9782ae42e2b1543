#!/usr/bin/env bash
# sk-test: serial (real processes and short time bounds: runs alone, tests/run.sh)
# compile-state and compile-jobs on records written by the real
# `artifact_contract run`: an attempt observed while it runs (320 error-named
# files, no summary), then after it returned; a timeout; a natural failure;
# an interruption of the runner.
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/lib_run.sh"
state_of() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["compile_state"], d["run_state"], d["artifacts"]["status"], d["artifacts"]["compile_error_logs"]["count"], d["artifacts"]["compile_succ_logs"]["count"])' "$1"; }
expect_state() { # NAME WANT_RC WANT_STATE_LINE CMD...
    local name=$1 want=$2 line=$3; shift 3
    "$@" >cs.json 2>cs.err; local rc=$?
    local got; got=$(state_of cs.json 2>&1)
    if [ "$rc" -eq "$want" ] && [ "$got" = "$line" ]; then t_pass "$name"
    else t_fail "$name" "exit $rc (want $want), state '$got' (want '$line')" "$(cat cs.err)"; fi
    rm -f cs.json cs.err
}
wait_for() { for _ in $(seq 500); do [ -e "$1" ] && return 0; sleep 0.02; done; return 1; }

# 1. observed while running, then after natural return
make_session sk_on root1 s1.json
mkdir out1 && mkfifo gate1
NPU_STATIC_KERNEL_COMPILE_JOBS=8 "$SK_BUILD/bin/artifact_contract" run --session s1.json --record-out rec1.json -- sh -c '
    for i in $(seq 320); do : > out1/op${i}_compile_error.log; done
    : > out1/ready
    read -r _ < gate1
    for f in out1/*_compile_error.log; do mv "$f" "${f%_compile_error.log}_compile_succ.log"; done
    : > out1/pkg.run
    echo "[summary] static kernel compile: total 320, success 320, failed 0"
    echo "inference done"' > run1.log 2>&1 &
RUNNER=$!
wait_for out1/ready && wait_for rec1.json.started.json
expect_state running_attempt_in_progress 20 "in_progress in_progress provisional 320 0" \
    skdcci compile-state --record rec1.json --outputs out1 --log run1.log
echo go > gate1
wait "$RUNNER"; rc=$?
[ "$rc" -eq 0 ] && t_pass run1_exit_0 || t_fail run1_exit_0 "runner exit $rc"
expect_state returned_attempt_succeeded 0 "succeeded succeeded final 0 320" \
    skdcci compile-state --record rec1.json --outputs out1 --log run1.log

# 2. the runner's timeout fires: interrupted, whatever the log says
make_session sk_on root2 s2.json
NPU_STATIC_KERNEL_COMPILE_JOBS=8 artifact_contract run --session s2.json --record-out rec2.json --timeout 1 --grace 0.2 -- \
    sh -c 'echo "[summary] total 1 success 1 failed 0"; exec sleep 30' > run2.log 2>&1
rc=$?
[ "$rc" -eq 124 ] && t_pass run2_timeout_124 || t_fail run2_timeout_124 "runner exit $rc"
expect_state timeout_interrupted 22 "timed_out_or_interrupted timed_out_or_interrupted interrupted 0 0" \
    skdcci compile-state --record rec2.json --log run2.log

# 3. natural return with a failing summary
make_session sk_on root3 s3.json
mkdir out3 && : > out3/add_compile_error.log && : > out3/mul_compile_succ.log
NPU_STATIC_KERNEL_COMPILE_JOBS=16 artifact_contract run --session s3.json --record-out rec3.json -- \
    sh -c 'echo "[summary] total 2, success 1, failed 1"; exit 1' > run3.log 2>&1
expect_state natural_failure_failed 21 "failed failed final 1 1" \
    skdcci compile-state --record rec3.json --log run3.log --outputs out3

# 4. the runner is interrupted (SIGTERM from outside): it forwards the signal to its group
make_session sk_on root4 s4.json
"$SK_BUILD/bin/artifact_contract" run --session s4.json --record-out rec4.json -- sh -c 'exec sleep 30' > run4.log 2>&1 &
RUNNER=$!
wait_for rec4.json.started.json
sleep 0.2
kill -TERM "$RUNNER"   # the test plays the operator who interrupts the run it started
wait "$RUNNER"
expect_state runner_interrupted 22 "timed_out_or_interrupted timed_out_or_interrupted interrupted 0 0" \
    skdcci compile-state --record rec4.json --log run4.log

# 5. compile concurrency across the real records
t_expect jobs_consistent 0 "consistent: NPU_STATIC_KERNEL_COMPILE_JOBS=8 in all 2 record(s)" \
    skdcci compile-jobs check --record rec1.json --record rec2.json
t_expect jobs_drift 10 "control mismatch: NPU_STATIC_KERNEL_COMPILE_JOBS 1 drift (8 vs 16) of 2 record(s)" \
    skdcci compile-jobs check --record rec1.json --record rec3.json
t_expect jobs_unset 10 "control mismatch: NPU_STATIC_KERNEL_COMPILE_JOBS 1 unset of 2 record(s)" \
    skdcci compile-jobs check --record rec1.json.started.json --record rec4.json
