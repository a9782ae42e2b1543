#!/usr/bin/env bash
# sk-test: serial (real processes and short time bounds: runs alone, tests/run.sh)
# compile-state on real process trees: children started in their own session
# and process group (setsid), producer records written per docs/producer-record.md,
# summary logs and output directories.  Includes the contract's own examples.
source "$SK_REPO/tests/lib.sh"
# call the interpreter directly: a version-manager shim costs a second per start
PYBIN=$(python3 -c 'import sys; print(sys.executable)')
python3() { "$PYBIN" "$@"; }
REC="python3 $SK_REPO/tests/helpers/producer_record.py"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done; }
trap cleanup EXIT

# start_group NAME CMD...: runs CMD as a new session/group leader, records its pid
start_group() {
    local name=$1; shift
    setsid "$@" </dev/null >/dev/null 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    for _ in $(seq 50); do [ -r "/proc/$pid/stat" ] && break; sleep 0.02; done
    # wait until setsid has turned the child into the group leader
    for _ in $(seq 100); do
        [ "$(awk '{print $5}' "/proc/$pid/stat" 2>/dev/null)" = "$pid" ] && break; sleep 0.02
    done
    eval "$name=$pid"
}
json_field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval("d"+sys.argv[2]))' "$@"; }
make_outputs() { # DIR N_ERR N_SUCC N_RUN
    mkdir -p "$1/static_kernel_compile_outputs/1_outputs/compile_log"
    for i in $(seq 1 "$2"); do : >"$1/static_kernel_compile_outputs/1_outputs/compile_log/op${i}_compile_error.log"; done
    for i in $(seq 1 "$3"); do : >"$1/static_kernel_compile_outputs/1_outputs/compile_log/op${i}_compile_succ.log"; done
    for i in $(seq 1 "$4"); do : >"$1/static_kernel_compile_outputs/1_outputs/pkg${i}.run"; done
}
# expect NAME WANT_RC JSON_CHECK CMD...: runs skdcci, checks rc and a python expression on the JSON
expect() {
    local name=$1 want=$2 check=$3; shift 3
    "$@" >out.json 2>err.txt; local rc=$?
    if [ "$rc" -ne "$want" ]; then t_fail "$name" "exit $rc, want $want" "$(cat err.txt)"; return; fi
    if [ "$(wc -l <err.txt)" -ne 1 ]; then t_fail "$name" "want one stderr line" "$(cat err.txt)"; return; fi
    if ! python3 -c "import json,sys; d=json.load(open('out.json')); sys.exit(0 if ($check) else 1)"; then
        t_fail "$name" "JSON check failed: $check" "$(head -c 1500 out.json)"; return
    fi
    t_pass "$name"
}

# 1. eval 22: 320 error-named logs, compiler alive, no timeout, no summary
mkdir s1 && cd s1
start_group LEADER sleep 60
$REC started run.json.started.json --pid "$LEADER" --timeout 3600 --env NPU_STATIC_KERNEL_COMPILE_JOBS=16
make_outputs . 320 0 0
: > run.log
expect eval22_in_progress_never_failed 20 \
    "d['compile_state']=='in_progress' and d['run_state']=='in_progress' and d['artifacts']['status']=='provisional' and d['artifacts']['compile_error_logs']['count']==320 and not d['artifacts']['citable_as_final_compile_evidence'] and d['report_label']=='provisional_error_artifacts' and d['liveness']['owned_alive'][0]['pid']==$LEADER and d['record']['npu_static_kernel_compile_jobs']=='16'" \
    skdcci compile-state --record run.json --outputs static_kernel_compile_outputs --log run.log
grep -q "do not kill" err.txt && t_pass eval22_human_line || t_fail eval22_human_line "$(cat err.txt)"
# the compiler is still alive: compile-state never signalled it
[ -d "/proc/$LEADER" ] && t_pass eval22_compiler_untouched || t_fail eval22_compiler_untouched
# 1b. a final record with a failing summary changes nothing while a group member lives
$REC finished run.json.started.json run.json --exit-code 1
echo "[summary] total 320 success 0 failed 320" > run.log
expect alive_member_beats_final_record 20 "d['compile_state']=='in_progress' and d['record']['state']=='finished'" \
    skdcci compile-state --record run.json --log run.log --outputs static_kernel_compile_outputs
kill -TERM -- "-$LEADER"; wait "$LEADER" 2>/dev/null
cd ..

# 2. reused pid: a live process whose start time differs from the record is not ours
mkdir s2 && cd s2
start_group OTHER sleep 60
REAL=$(awk '{print $22}' "/proc/$OTHER/stat")
# (the recorded runner must not have started after the recorded child)
$REC started run.json.started.json --pid "$OTHER" --pgid "$OTHER" --start-ticks $((REAL - 7)) \
    --runner-pid $$ --runner-start-ticks $((REAL - 8))
expect reused_pid_not_alive 23 \
    "d['compile_state']=='unknown' and d['liveness']['group_leader']=='pid_reused' and d['liveness']['owned_alive']==[] and len(d['liveness']['not_owned_in_group'])==1 and any('final record' in m for m in d['missing'])" \
    skdcci compile-state --record run.json.started.json
$REC finished run.json.started.json run.json --exit-code 0
echo "[summary] total 3 success 3 failed 0" > run.log
expect reused_pid_then_natural_success 0 "d['compile_state']=='succeeded'" \
    skdcci compile-state --record run.json --log run.log
kill -TERM -- "-$OTHER"; wait "$OTHER" 2>/dev/null
cd ..

# 3-7: runs that have ended (the recorded leader exited and was reaped)
finished_run() { # DIR FINISH_ARGS...
    mkdir "$1" && cd "$1" || return
    shift
    # the leader waits on a fifo so that the started record is written while it
    # runs; it then returns naturally and is reaped before the final record
    mkfifo .gate
    setsid bash -c 'read -r _ < .gate' </dev/null &
    local pid=$!
    for _ in $(seq 100); do [ "$(awk '{print $5}' "/proc/$pid/stat" 2>/dev/null)" = "$pid" ] && break; sleep 0.01; done
    $REC started run.json.started.json --pid "$pid" --timeout 60
    echo go > .gate
    wait "$pid"
    rm -f .gate
    $REC finished run.json.started.json run.json "$@"
}
finished_run s3 --exit-code 0 --timed-out
make_outputs . 5 2 0
echo "[summary] total 7 success 2 failed 0" > run.log
expect timeout_flag_interrupted 22 \
    "d['compile_state']=='timed_out_or_interrupted' and d['artifacts']['status']=='interrupted' and d['report_label']=='timed_out_or_interrupted' and d['liveness']['group_leader']=='absent'" \
    skdcci compile-state --record run.json --log run.log --outputs .
cd ..
finished_run s4 --exit-code 0
make_outputs . 0 12 1
printf 'INFO start\n[summary] static kernel compile: total=12 succeeded=12 failed=0\nINFO inference done\n' > run.log
expect natural_rc0_all_success_succeeded 0 \
    "d['compile_state']=='succeeded' and d['run_state']=='succeeded' and d['artifacts']['status']=='final' and d['artifacts']['compile_succ_logs']['count']==12 and d['summary']['lines'][0]['line']==2 and d['summary']['lines'][0]['text']=='[summary] static kernel compile: total=12 succeeded=12 failed=0' and d['summary']['lines'][0]['file']=='run.log'" \
    skdcci compile-state --record run.json --log run.log --outputs static_kernel_compile_outputs
cd ..
finished_run s5 --exit-code 1
make_outputs . 2 10 0
printf '[summary] total 12, success 10, failed 2\n' > rank0.log
printf '[summary] total 12, success 12, failed 0\n' > rank1.log
expect natural_rc1_failure_summary_failed 21 \
    "d['compile_state']=='failed' and d['run_state']=='failed' and d['report_label']=='final_compile_failure' and d['artifacts']['citable_as_final_compile_evidence'] and d['artifacts']['compile_error_logs']['count']==2 and d['summary']['verdict']=='failures'" \
    skdcci compile-state --record run.json --log rank0.log --log rank1.log --outputs .
cd ..
finished_run s6 --exit-code 1
make_outputs . 300 0 0
: > run.log
expect missing_summary_unknown 23 \
    "d['compile_state']=='unknown' and d['run_state']=='failed' and d['artifacts']['status']=='unverified' and any('final summary' in m for m in d['missing'])" \
    skdcci compile-state --record run.json --log run.log --outputs .
expect missing_log_file_unknown 23 \
    "d['compile_state']=='unknown' and d['summary']['logs'][0]['exists']==False and any('do not exist' in m for m in d['missing'])" \
    skdcci compile-state --record run.json --log nope.log
cd ..
finished_run s7 --exit-code 3
printf '[summary] total 4, success 4, failed 0\nTraceback: inference failed\n' > run.log
# exit code and summary disagree: no conclusion either way
expect all_success_summary_nonzero_exit_unknown 23 \
    "d['compile_state']=='unknown' and d['run_state']=='failed' and any('exit code 3 contradicts' in c for c in d['contradictions'])" \
    skdcci compile-state --record run.json --log run.log
cd ..
finished_run s7b --exit-code 0
printf '[summary] total 4, success 3, failed 1\n' > run.log
expect failure_summary_zero_exit_unknown 23 \
    "d['compile_state']=='unknown' and d['run_state']=='succeeded' and any('exit code 0 contradicts' in c for c in d['contradictions'])" \
    skdcci compile-state --record run.json --log run.log
# the started record deleted: ownership is torn, no conclusion
printf '[summary] total 4, success 4, failed 0\n' > run.log
rm run.json.started.json
expect started_record_deleted_unknown 23 \
    "d['compile_state']=='unknown' and any('started record is missing' in m for m in d['missing'])" \
    skdcci compile-state --record run.json --log run.log
# neither record: unknown with the record named in missing[], not an input error
expect no_record_unknown 23 \
    "d['compile_state']=='unknown' and d['record'] is None and any('nope.json' in m for m in d['missing'])" \
    skdcci compile-state --record nope.json --log run.log
cd ..
finished_run s8 --signal 9
printf '[summary] total 4, success 1, failed 3\n' > run.log
expect external_sigkill_interrupted 22 \
    "d['compile_state']=='timed_out_or_interrupted' and d['record']['exit']['signal_name']=='SIGKILL'" \
    skdcci compile-state --record run.json --log run.log
cd ..

# 9. an inference/rank parent alive keeps the attempt in progress; a reused parent pid does not
mkdir s9 && cd s9
finished_run inner --exit-code 0
printf '[summary] total 1 success 1 failed 0\n' > run.log
start_group PARENT sleep 60
PSTART=$(awk '{print $22}' "/proc/$PARENT/stat")
expect parent_alive_in_progress 20 "d['compile_state']=='in_progress' and d['liveness']['parents'][0]['status']=='alive' and d['liveness']['parents'][0]['start_time_verified']" \
    skdcci compile-state --record run.json --log run.log --parent-pid "$PARENT:$PSTART"
expect parent_reused_not_alive 0 "d['compile_state']=='succeeded' and d['liveness']['parents'][0]['status']=='pid_reused'" \
    skdcci compile-state --record run.json --log run.log --parent-pid "$PARENT:$((PSTART + 1))"
kill -TERM -- "-$PARENT"; wait "$PARENT" 2>/dev/null
cd ../..

# 10. orphaned group member after the leader exited: still in progress
mkdir s10 && cd s10
mkfifo gate
setsid bash -c 'sleep 60 & read -r _ < gate; exit 0' </dev/null >/dev/null 2>&1 &
L=$!; PIDS+=("$L")
for _ in $(seq 100); do [ "$(awk '{print $5}' "/proc/$L/stat" 2>/dev/null)" = "$L" ] && break; sleep 0.02; done
$REC started run.json.started.json --pid "$L"
echo go > gate; wait "$L"
$REC finished run.json.started.json run.json --exit-code 0
expect orphan_member_in_progress 20 \
    "d['compile_state']=='in_progress' and d['liveness']['group_leader']=='absent' and len(d['liveness']['owned_alive'])==1 and d['liveness']['owned_alive'][0]['comm']=='sleep'" \
    skdcci compile-state --record run.json
cd ..

# 11. a record from another boot: liveness cannot be observed, conclusion blocked
finished_run s11 --exit-code 0
printf '[summary] total 1 success 1 failed 0\n' > run.log
python3 - <<'PY'
import json
for name in ("run.json.started.json", "run.json"):
    d = json.load(open(name)); d["process"]["boot_id"] = "00000000-0000-0000-0000-000000000000"
    open(name, "w").write(json.dumps(d, sort_keys=True, separators=(",", ":")) + "\n")
PY
# (rewriting the started record also breaks the hash the final record holds)
expect other_boot_unknown 23 "d['compile_state']=='unknown' and not d['liveness']['boot_id_matches'] and any('boot id differs' in m for m in d['missing']) and any('SHA-256' in c for c in d['contradictions'])" \
    skdcci compile-state --record run.json --log run.log
cd ..

# 12. --json-out publishes atomically and never overwrites
finished_run s12 --exit-code 0
printf '[summary] total 1 success 1 failed 0\n' > run.log
skdcci compile-state --record run.json --log run.log --json-out state.json >o.txt 2>e.txt
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s o.txt ] && [ -s state.json ] && [ "$(stat -c %a state.json)" = 644 ]; then t_pass json_out_written; else t_fail json_out_written "rc=$rc" "$(cat e.txt)"; fi
t_expect json_out_never_overwrites 1 "output already exists" skdcci compile-state --record run.json --log run.log --json-out state.json
cd ..
