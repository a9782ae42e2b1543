#!/usr/bin/env bash
# sk-test: serial (real processes and short time bounds: runs alone, tests/run.sh)
# Clean-run evidence (docs/stage-o.md §10) with real run records: every run
# of the CLEAN roots is launched under `artifact_contract run --purpose clean`
# by a test launcher that writes the rank logs, the correctness result and a
# copy of its config into the run directory.  trial, stability and family
# report then prove the runs clean, or reject the run whose recorded
# environment, config, correctness or process outcome is not a clean run.
source "$SK_REPO/tests/lib.sh"
W=$PWD
export RANKS=2

# launch CONFIG RUN_DIR MS: one "inference process" (the runtime's stand-in)
cat >"$W/launch.sh" <<'EOF'
#!/usr/bin/env bash
set -eu
config=$1 dir=$2 ms=$3
cp "$config" "$dir/config.${config##*.}"
case ${LAUNCH_MODE:-ok} in
    crash) kill -SEGV $$ ;;
    hang) sleep 30 ;;
esac
for ((r = 0; r < RANKS; r++)); do
    for i in 1 2 3; do echo "step=$i Inference time (decode): $ms ms"; done >"$dir/log_$r.log"
done
passed=true
[ "${LAUNCH_MODE:-ok}" = wrong ] && passed=false
[ "${LAUNCH_MODE:-ok}" = no-correctness ] ||
    printf '{"schema_version":"skdcci-correctness-1","passed":%s,"compared":"logits vs golden, rtol 1e-3","tool":"compare.py"}\n' \
        "$passed" >"$dir/correctness.json"
[ "$passed" = true ]
EOF
chmod +x "$W/launch.sh"
cat >"$W/clean.json" <<'EOF'
{"model_config": {"custom_params": {"super_kernel_optimize_options": {"auto_op_parallel": 1},
 "super_kernel_debug_options": {}}}}
EOF
cat >"$W/debug.json" <<'EOF'
{"model_config": {"custom_params": {"super_kernel_optimize_options": {"auto_op_parallel": 1},
 "super_kernel_debug_options": {"debug_sync_all": 1}}}}
EOF
unset ASCEND_PROF_SK_ON ASCEND_OP_COMPILE_SAVE_KERNEL_META ASCEND_SK_OP_TRACE_ON PROFILING_MODE \
    ASCEND_LAUNCH_BLOCKING

# run ROOT N MS [CONFIG] [purpose]: one recorded clean run (exit code of the launcher)
run() {
    mkdir -p "$1/run-$2"
    artifact_contract run --purpose "${5:-clean}" --timeout "${TIMEOUT:-60}" --grace 0.2 \
        --record-out "$1/run-$2/run-record.json" -- \
        "$W/launch.sh" "${4:-$W/clean.json}" "$1/run-$2" "$3" >/dev/null 2>&1
}
# root NAME MS...: a CLEAN root of clean recorded runs
root() {
    local name=$1 n=0 ms
    shift
    for ms in "$@"; do n=$((n + 1)); run "$W/$name" $n "$ms" || return 1; done
}
# has NAME FILE LINE: the output holds the line (or a line starting with it)
has() {
    if grep -q -- "^$3" "$2"; then t_pass "$1"; else t_fail "$1" "no line '$3'" "$(head -c 2000 "$2")"; fi
}
trial() { # OUT CANDIDATE_DIR
    skdcci trial --baseline "$W/O0" --candidate "T=$2" --warmup 0 --expected-ranks 2 >"$W/$1.out" 2>"$W/$1.err"
}

if ! root O0 10.3 10.3 10.2 10.3 10.3 || ! root T 10.0 10.0 10.0; then
    t_fail recorded_roots "launcher or artifact_contract run failed"
    exit 0
fi
t_ok record_is_a_clean_record grep -q '"purpose":"clean"' "$W/O0/run-1/run-record.json"

# 1. every run proven: the gate decides as before, with proven lines
trial proven "$W/T"; rc=$?
[ $rc = 0 ] && t_pass proven_trial_accepted || t_fail proven_trial_accepted "exit $rc" "$(cat "$W/proven.err")"
has proven_baseline_line "$W/proven.out" "clean-evidence baseline proven runs 5 proven 5 rejected 0 unproven 0$"
has proven_candidate_line "$W/proven.out" "clean-evidence T proven runs 3 proven 3 rejected 0 unproven 0$"
skdcci stability "$W/O0" --warmup 0 --expected-ranks 2 >"$W/stab.out" 2>&1; rc=$?
[ $rc = 0 ] && t_pass proven_stability_stable || t_fail proven_stability_stable "exit $rc"
has proven_stability_line "$W/stab.out" "clean-evidence O0 proven runs 5 proven 5"

# 2. one run per unclean cause: trial exit 10, the reason on stdout, one stderr line
# with VAR=VALUE... CMD...: CMD with those variables in its environment
with() { (while [[ $1 == *=* ]]; do export "${1%%=*}=${1#*=}"; shift; done; "$@"); }
variant() { # NAME CODE CMD...: runs 1 and 3 clean, run 2 made by CMD
    local name=$1 code=$2
    shift 2
    root "$name" 10.0
    "$@" >/dev/null 2>&1
    run "$W/$name" 3 10.0
    trial "$name" "$W/$name"; rc=$?
    if [ $rc = 10 ] && [ "$(wc -l <"$W/$name.err")" = 1 ] && grep -q "clean-run-rejected" "$W/$name.err"; then
        t_pass "$name:exit_10_clean_run_rejected"
    else
        t_fail "$name:exit_10_clean_run_rejected" "exit $rc" "$(cat "$W/$name.err" "$W/$name.out")"
    fi
    has "$name:reason_$code" "$W/$name.out" "clean-run-rejected T run-2 $code: "
}
variant sk_prof env_sk_prof with ASCEND_PROF_SK_ON=1024 run "$W/sk_prof" 2 10.0
has sk_prof:names_the_variable "$W/sk_prof.out" "clean-run-rejected T run-2 env_sk_prof: ASCEND_PROF_SK_ON=1024 turns on"
variant metadata env_sk_metadata with ASCEND_OP_COMPILE_SAVE_KERNEL_META=1 run "$W/metadata" 2 10.0
variant op_trace env_trace with ASCEND_SK_OP_TRACE_ON=1 run "$W/op_trace" 2 10.0
variant profiling env_profiling with PROFILING_MODE=true run "$W/profiling" 2 10.0
variant blocking env_debug_sync with ASCEND_LAUNCH_BLOCKING=1 run "$W/blocking" 2 10.0
variant debug_config config_debug_sync run "$W/debug_config" 2 10.0 "$W/debug.json"
has debug_config:names_the_pointer "$W/debug_config.out" \
    "clean-run-rejected T run-2 config_debug_sync: /model_config/custom_params/super_kernel_debug_options/debug_sync_all"
variant wrong correctness_failed with LAUNCH_MODE=wrong run "$W/wrong" 2 10.0
has wrong:process_failed_too "$W/wrong.out" "clean-run-rejected T run-2 run_failed: the process exited with status 1"
variant nocorr correctness_missing with LAUNCH_MODE=no-correctness run "$W/nocorr" 2 10.0
variant crash run_crashed with LAUNCH_MODE=crash run "$W/crash" 2 10.0
variant hang run_timed_out with LAUNCH_MODE=hang TIMEOUT=1 run "$W/hang" 2 10.0
variant health record_not_clean run "$W/health" 2 10.0 "$W/clean.json" compile-health
# a clean record does not vouch for logs written outside its run
stale_run() { run "$W/stale" 2 10.0 && touch -d '2020-01-02 03:04:05' "$W/stale/run-2/log_1.log"; }
variant stale logs_outside_run stale_run
has stale:names_the_log "$W/stale.out" "clean-run-rejected T run-2 logs_outside_run: log_1.log was last written at "
# the same process recorded twice: not three processes
variant reused process_reused cp -a "$W/reused/run-1" "$W/reused/run-2"
# msprof around the launcher is profiling even with a clean environment
mkdir -p "$W/bin"
printf '#!/bin/sh\nexec "$@"\n' >"$W/bin/msprof"
chmod +x "$W/bin/msprof"
msprof_run() {
    mkdir -p "$W/msprof/run-2"
    artifact_contract run --purpose clean --timeout 60 --record-out "$W/msprof/run-2/run-record.json" -- \
        "$W/bin/msprof" "$W/launch.sh" "$W/clean.json" "$W/msprof/run-2" 10.0
}
variant msprof env_profiling msprof_run

# 3. values that keep a feature off are clean
root off 10.0
with ASCEND_PROF_SK_ON=0 PROFILING_MODE=false ASCEND_LAUNCH_BLOCKING= run "$W/off" 2 10.0
run "$W/off" 3 10.0
trial off "$W/off"; rc=$?
[ $rc = 0 ] && t_pass off_values_are_clean || t_fail off_values_are_clean "exit $rc" "$(cat "$W/off.out")"

# 4. stability rejects an unclean root the same way
skdcci stability "$W/sk_prof" --warmup 0 --expected-ranks 2 >"$W/stab2.out" 2>"$W/stab2.err"; rc=$?
[ $rc = 10 ] && t_pass stability_unclean_exit_10 || t_fail stability_unclean_exit_10 "exit $rc"
has stability_unclean_reason "$W/stab2.out" "clean-run-rejected sk_prof run-2 env_sk_prof: "

# 5. malformed evidence is an input error: exit 1, one line naming the file
cp -a "$W/T" "$W/bad"
echo '{"schema_version":"skdcci-correctness-1","passed":"yes","compared":"x","tool":"y"}' >"$W/bad/run-1/correctness.json.new"
mv "$W/bad/run-1/correctness.json.new" "$W/bad/run-1/correctness.json"
t_expect malformed_correctness_exit_1 1 "bad/run-1/correctness.json: passed must be true or false" \
    skdcci trial --baseline "$W/O0" --candidate "T=$W/bad" --warmup 0 --expected-ranks 2
cp -a "$W/T" "$W/edited"
sed -i 's/"purpose":"clean"/"purpose": "clean"/' "$W/edited/run-1/run-record.json"
t_expect edited_record_exit_1 1 "edited/run-1/run-record.json" \
    skdcci trial --baseline "$W/O0" --candidate "T=$W/edited" --warmup 0 --expected-ranks 2

# 6. the family report: a functional failure rejects, an unclean O0 blocks
fam() { # NAME O0 DA
    skdcci family report --o0 "$2" --disable-all "$3" --warmup 0 --expected-ranks 2 -o "$W/fam-$1" \
        >"$W/fam-$1.out" 2>"$W/fam-$1.err"
}
fam wrong "$W/O0" "$W/wrong"; rc=$?
[ $rc = 10 ] && grep -qx "reason functional_failure" "$W/fam-wrong.out" && t_pass family_functional_failure_rejected ||
    t_fail family_functional_failure_rejected "exit $rc" "$(cat "$W/fam-wrong.out" "$W/fam-wrong.err")"
fam crash "$W/O0" "$W/crash"; rc=$?
[ $rc = 10 ] && grep -qx "reason functional_failure" "$W/fam-crash.out" && t_pass family_crash_without_logs_rejected ||
    t_fail family_crash_without_logs_rejected "exit $rc" "$(cat "$W/fam-crash.out" "$W/fam-crash.err")"
fam o0 "$W/sk_prof" "$W/T"; rc=$?
[ $rc = 3 ] && grep -qx "reason o0_not_clean" "$W/fam-o0.out" && t_pass family_unclean_o0_blocked ||
    t_fail family_unclean_o0_blocked "exit $rc" "$(cat "$W/fam-o0.out" "$W/fam-o0.err")"
fam da "$W/O0" "$W/sk_prof"; rc=$?
[ $rc = 3 ] && grep -qx "reason disable_all_not_clean" "$W/fam-da.out" && t_pass family_unclean_da_blocked ||
    t_fail family_unclean_da_blocked "exit $rc" "$(cat "$W/fam-da.out" "$W/fam-da.err")"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); e=d["clean_evidence"]; sys.exit(0 if e["o0"]["state"]=="proven" and e["disable_all"]["functional_failure"] and not [n for n in d["decision"]["notes"] if n["code"]=="clean_unproven"] else 1)' "$W/fam-wrong/dcci-family-report.json"; then
    t_pass family_clean_evidence_json
else
    t_fail family_clean_evidence_json
fi
