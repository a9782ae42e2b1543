#!/usr/bin/env bash
# sk-test: serial (real processes and short time bounds: runs alone, tests/run.sh)
# Clean-run evidence (docs/stage-o.md §10) with real run records: every run
# of the CLEAN roots is launched under `artifact_contract run --purpose clean
# --config CONFIG` by a test launcher that writes the rank logs, the
# correctness result and a copy of its config into the run directory.
# trial, stability and family report then prove the runs clean, or reject the
# run whose recorded members (their argv and instrumentation variables),
# place, config, attempt history, correctness or process outcome is not a
# clean run.  Section 7 launches a fake inference process (a shell script
# that sleeps and writes its logs) through env(1), a wrapper script and
# bash -c, clean and with instrumentation.
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
    artifact_contract run --purpose "${5:-clean}" --config "${4:-$W/clean.json}" \
        --timeout "${TIMEOUT:-60}" --grace 0.2 --record-out "$1/run-$2/run-record.json" -- \
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
    skdcci trial --baseline "$W/O0" --baseline-config "$W/clean.json" --candidate "T=$2" \
        --config "$W/clean.json" --warmup 0 --expected-ranks 2 >"$W/$1.out" 2>"$W/$1.err"
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
skdcci stability "$W/O0" --config "$W/clean.json" --warmup 0 --expected-ranks 2 >"$W/stab.out" 2>&1; rc=$?
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
has debug_config:another_config "$W/debug_config.out" "clean-run-rejected T run-2 config_mismatch: made with config $W/debug.json"
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
# the same process recorded twice: not three processes (and a copy, out of
# its journal order)
variant reused process_reused cp -a "$W/reused/run-1" "$W/reused/run-2"
has reused:copy_named "$W/reused.out" "clean-run-rejected T run-2 run_moved: "
# msprof around the launcher is profiling even with a clean environment
mkdir -p "$W/bin"
printf '#!/bin/sh\nexec "$@"\n' >"$W/bin/msprof"
chmod +x "$W/bin/msprof"
msprof_run() {
    mkdir -p "$W/msprof/run-2"
    artifact_contract run --purpose clean --config "$W/clean.json" --timeout 60 \
        --record-out "$W/msprof/run-2/run-record.json" -- \
        "$W/bin/msprof" "$W/launch.sh" "$W/clean.json" "$W/msprof/run-2" 10.0
}
variant msprof profiler_program msprof_run

# 3. values that keep a feature off are clean
root off 10.0
with ASCEND_PROF_SK_ON=0 PROFILING_MODE=false ASCEND_LAUNCH_BLOCKING= run "$W/off" 2 10.0
run "$W/off" 3 10.0
trial off "$W/off"; rc=$?
[ $rc = 0 ] && t_pass off_values_are_clean || t_fail off_values_are_clean "exit $rc" "$(cat "$W/off.out")"

# 4. stability rejects an unclean root the same way
skdcci stability "$W/sk_prof" --config "$W/clean.json" --warmup 0 --expected-ranks 2 >"$W/stab2.out" 2>"$W/stab2.err"; rc=$?
[ $rc = 10 ] && t_pass stability_unclean_exit_10 || t_fail stability_unclean_exit_10 "exit $rc"
has stability_unclean_reason "$W/stab2.out" "clean-run-rejected sk_prof run-2 env_sk_prof: "

# 5. a malformed correctness result is an input error (exit 1, one line naming
#    the file); an edited record proves nothing: the run is rejected, named
cp -a "$W/T" "$W/bad"
echo '{"schema_version":"skdcci-correctness-1","passed":"yes","compared":"x","tool":"y"}' >"$W/bad/run-1/correctness.json.new"
mv "$W/bad/run-1/correctness.json.new" "$W/bad/run-1/correctness.json"
t_expect malformed_correctness_exit_1 1 "bad/run-1/correctness.json: passed must be true or false" \
    skdcci trial --baseline "$W/O0" --baseline-config "$W/clean.json" --candidate "T=$W/bad" \
    --config "$W/clean.json" --warmup 0 --expected-ranks 2
root edited 10.0 10.0 10.0
sed -i 's/"purpose":"clean"/"purpose": "clean"/' "$W/edited/run-1/run-record.json"
trial edited "$W/edited"; rc=$?
[ $rc = 10 ] && t_pass edited_record_exit_10 || t_fail edited_record_exit_10 "exit $rc"
has edited_record_named "$W/edited.out" "clean-run-rejected T run-1 record_unreadable: run-record.json: producer record is not in canonical form"

# 6. the family report: a functional failure rejects, an unclean O0 blocks
fam() { # NAME O0 DA
    skdcci family report --o0 "$2" --disable-all "$3" --configs "$W/clean.json" "$W/clean.json" - \
        --warmup 0 --expected-ranks 2 -o "$W/fam-$1" >"$W/fam-$1.out" 2>"$W/fam-$1.err"
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

# 7. launcher forms with a fake inference process that lives long enough to be
#    observed (it sleeps, then writes its logs): through env(1), a wrapper
#    script and bash -c, clean runs stay proven; the same launchers with an
#    instrumentation variable are rejected, the process and variable named,
#    although run itself was given a clean environment and argv
cat >"$W/infer.sh" <<'EOF'
#!/bin/sh
# fake inference: the process the launcher starts
sleep 0.3
for r in 0 1; do printf 'step=1 Inference time (decode): 10.0 ms\n' >"$1/log_$r.log"; done
printf '{"schema_version":"skdcci-correctness-1","passed":true,"compared":"x","tool":"y"}' >"$1/correctness.json"
EOF
cat >"$W/wrapper.sh" <<'EOF'
#!/bin/sh
# the launcher script: prepares the environment, then starts inference
[ -n "${WRAP_EXPORT:-}" ] && export "$WRAP_EXPORT"
"$(dirname "$0")/infer.sh" "$@"
EOF
chmod +x "$W/infer.sh" "$W/wrapper.sh"
form() { # ROOT N LAUNCHER-ARGV...: one recorded run; the run directory is the last argument
    local root=$1 n=$2
    shift 2
    mkdir -p "$W/$root/run-$n"
    artifact_contract run --purpose clean --config "$W/clean.json" --timeout 60 \
        --record-out "$W/$root/run-$n/run-record.json" -- "$@" "$W/$root/run-$n" >/dev/null 2>&1
}
stab() { # ROOT: stability of a root; output in ROOT.out
    skdcci stability "$W/$1" --config "$W/clean.json" --warmup 0 --expected-ranks 2 \
        >"$W/$1.out" 2>"$W/$1.err"
}
form_proven() { # NAME LAUNCHER-ARGV...
    local name=$1
    shift
    form "$name" 1 "$@"
    stab "$name"
    has "$name:proven" "$W/$name.out" "clean-evidence $name proven runs 1 proven 1 rejected 0"
}
form_rejected() { # NAME LINE LAUNCHER-ARGV...
    local name=$1 line=$2
    shift 2
    form "$name" 1 "$@"
    stab "$name"
    rc=$?
    [ $rc = 10 ] && t_pass "$name:exit_10" || t_fail "$name:exit_10" "exit $rc" "$(cat "$W/$name.out")"
    has "$name:named" "$W/$name.out" "$line"
}
form_proven env_clean env FOO=bar "$W/infer.sh"
form_proven wrapper_clean "$W/wrapper.sh"
form_proven bash_c_clean bash -c '"$0" "$1"' "$W/infer.sh"
form_proven env_off env ASCEND_PROF_SK_ON=0 ASCEND_LAUNCH_BLOCKING=0 "$W/infer.sh"
form_rejected env_sk_prof \
    "clean-run-rejected env_sk_prof run-1 env_sk_prof: pid [0-9]* ([^)]*): ASCEND_PROF_SK_ON=1024 turns on the sk_prof" \
    env ASCEND_PROF_SK_ON=1024 "$W/infer.sh"
has env_sk_prof:argv_named "$W/env_sk_prof.out" \
    "clean-run-rejected env_sk_prof run-1 env_sk_prof: the command line sets ASCEND_PROF_SK_ON=1024"
# (the member named is whichever the scan saw first with the variable: the
# inference shell, its sleep, or the wrapper's dirname child under load)
# the wrapper exports the variable: nothing on any command line, only the
# inference process's environment shows it
form_rejected wrapper_exports \
    "clean-run-rejected wrapper_exports run-1 env_debug_sync: pid [0-9]* ([^)]*): ASCEND_LAUNCH_BLOCKING=1 turns on" \
    env WRAP_EXPORT=ASCEND_LAUNCH_BLOCKING=1 "$W/wrapper.sh"
form_rejected bash_c_sets \
    "clean-run-rejected bash_c_sets run-1 env_profiling: pid [0-9]* ([^)]*): PROFILER_SAMPLECONFIG={} turns on" \
    bash -c 'PROFILER_SAMPLECONFIG={} "$0" "$1"' "$W/infer.sh"
# a child sets a value that is not UTF-8: recorded as \xNN text, and on
form_rejected binary_value \
    'clean-run-rejected binary_value run-1 env_sk_prof: pid [0-9]* ([^)]*): ASCEND_PROF_SK_ON=\\xff\\xfe turns on' \
    bash -c 'export ASCEND_PROF_SK_ON=$(printf "\377\376"); "$0" "$1"' "$W/infer.sh"
# a member whose environment cannot be read (test builds stand in for another
# user's or a set-id process) proves nothing
SK_TEST_ENVIRON_DENIED=sleep form_rejected denied \
    "clean-run-rejected denied run-1 member_unreadable: pid [0-9]* (sleep): its environment could not be read (permission_denied)" \
    "$W/infer.sh"
# a huge argv is recorded cut, with the mark, and does not stop the proof
form_proven huge_argv bash -c '"$0" "$2"; :' "$W/infer.sh" "$(head -c 100000 /dev/zero | tr '\0' a)"
if python3 - "$W/huge_argv/run-1/run-record.json" >"$W/huge_argv.check" 2>&1 <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
cut = [i for m in r["observed_members"] for i in m["images"] if i["truncated"]]
assert cut and cut[0]["argv"][-1].endswith("[truncated]"), cut
assert all(len("".join(i["argv"] or [])) <= 4096 + 11 for m in r["observed_members"] for i in m["images"])
EOF
then t_pass huge_argv:cut_with_mark; else t_fail huge_argv:cut_with_mark "$(cat "$W/huge_argv.check")"; fi

# 8. attempt history: a failed run deleted and started again is refused by
#    run, and the deleted run is named; a copied root keeps no proof
form hist 1 "$W/infer.sh"
form hist 2 sh -c 'exit 3'
rm -rf "$W/hist/run-2"
form hist 2 "$W/infer.sh"
rc=$?
[ $rc = 2 ] && t_pass hist:index_taken_once || t_fail hist:index_taken_once "exit $rc"
form hist 3 "$W/infer.sh"
stab hist
rc=$?
[ $rc = 10 ] && t_pass hist:exit_10 || t_fail hist:exit_10 "exit $rc"
# the refused attempt left an empty run-2: it is no proven run either
has hist:recreated_run_named "$W/hist.out" "clean-run-rejected hist run-2 record_missing: "
rm -rf "$W/hist/run-2"
stab hist
has hist:deleted_run_named "$W/hist.out" \
    "clean-run-rejected hist run-2 attempt_missing: run-2 was started (attempts.jsonl line 2)"
cp -a "$W/env_clean" "$W/moved"
stab moved
has moved:named "$W/moved.out" "clean-run-rejected moved run-1 run_moved: the record was made in $W/env_clean/run-1"
