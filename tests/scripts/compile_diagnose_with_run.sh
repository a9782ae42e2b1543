#!/usr/bin/env bash
# compile-diagnose on records written by the real `artifact_contract run`:
# two attempts that differ only in NPU_STATIC_KERNEL_COMPILE_JOBS give
# single_factor with changed ["compile_jobs"]; differing also in
# ASCEND_PROF_SK_ON gives confounded and exit 10.
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/lib_run.sh"
make_session sk_on root s.json
run_with() { # RECORD ENV...
    local rec=$1; shift
    env -i PATH="$PATH" "$@" "$SK_BUILD/bin/artifact_contract" run --session s.json --record-out "$rec" -- true >/dev/null 2>&1
}
run_with base.json NPU_STATIC_KERNEL_COMPILE_JOBS=8 ASCEND_PROF_SK_ON=1
run_with jobs.json NPU_STATIC_KERNEL_COMPILE_JOBS=16 ASCEND_PROF_SK_ON=1
run_with both.json NPU_STATIC_KERNEL_COMPILE_JOBS=16 ASCEND_PROF_SK_ON=0
verdicts() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join("%s:%s" % (c["verdict"], ",".join(c["changed"])) for c in d["comparisons"]))' "$1"; }

skdcci compile-diagnose --baseline base.json --attempt jobs.json >one.json 2>one.err; rc=$?
[ "$rc" -eq 0 ] && [ "$(verdicts one.json)" = "single_factor:compile_jobs" ] && t_pass jobs_only_single_factor ||
    t_fail jobs_only_single_factor "exit $rc, $(verdicts one.json)" "$(cat one.err)"
skdcci compile-diagnose --baseline base.json --attempt both.json --json-out two.json 2>two.err; rc=$?
[ "$rc" -eq 10 ] && [ "$(verdicts two.json)" = "confounded:sk_trace,compile_jobs" ] && grep -q "confounded" two.err &&
    t_pass jobs_and_trace_confounded || t_fail jobs_and_trace_confounded "exit $rc, $(verdicts two.json)" "$(cat two.err)"
# a startup-only diagnosis cited in a report limits what the report may claim
run_with hook.json NPU_STATIC_KERNEL_COMPILE_JOBS=8 ASCEND_PROF_SK_ON=1 PYTHONSTARTUP=/opt/hook.py
skdcci compile-diagnose --baseline base.json --attempt hook.json --json-out hook_diag.json 2>/dev/null
printf 'The hang needs the start-up hook (hook_diag.json), so the profiler schedule is defective.\n\nThe hang needs the start-up hook (hook_diag.json): the start-up path is the trigger.\n' >report.md
t_expect report_lint_startup_only_diagnosis 10 "1 violation(s)" skdcci report-lint report.md
