#!/usr/bin/env bash
# skdcci phase check against documents written by a test double of the
# auto-tune controller (tests/data/phase/controller.py), whose digests are
# computed independently with Python's json: a valid entry, then one tamper
# per rule of docs/phase.md, each caught with its code.
source "$SK_REPO/tests/lib.sh"
W=$PWD
C="python3 $SK_REPO/tests/data/phase/controller.py"
SKILLS=$W/skills
MANIFEST=$SKILLS/superkernel-stage-o-option-tuning/phase.json

# fresh NAME: a session whose intake, S0 and Stage A steps are sealed, and
# the task for its pending Stage O step
$C skills "$SKILLS"
fresh() {
    R=$W/$1
    $C fresh "$R" "session-$1" succeeded succeeded accepted
}
# check NAME WANT_RC [CODE...]: phase check on $R; the exit code and each
# violation code must be there, stdout ends in valid/invalid
check() {
    local name=$1 want=$2; shift 2
    skdcci phase check --manifest "${M:-$MANIFEST}" --task "$R/task.json" \
        --session "${S:-$R/session.json}" >"$W/out" 2>"$W/err"
    local rc=$? why=""
    [ "$rc" -eq "$want" ] || why="exit $rc, want $want"
    for code in "$@"; do
        grep -q "^violation $code " "$W/out" || why="$why; no violation $code"
    done
    [ -s "$W/err" ] && why="$why; stderr: $(head -c 300 "$W/err")"
    if [ "$want" -eq 0 ]; then tail -1 "$W/out" | grep -qx valid || why="$why; not valid"
    else tail -1 "$W/out" | grep -q '^invalid: ' || why="$why; not invalid"; fi
    if [ -z "$why" ]; then t_pass "$name"; else t_fail "$name" "$why" "$(head -c 2000 "$W/out")"; fi
}

fresh valid
check valid_entry 0
want=$($C digest "$R/session.json")
if grep -qx "session session-valid fingerprint $want" "$W/out"; then t_pass fingerprint_is_the_controllers
else t_fail fingerprint_is_the_controllers "want $want" "$(cat "$W/out")"; fi
grep -qx "step stage-o-option-tuning: 3 of 3 consumed hand-offs verified by digest" "$W/out" \
    && t_pass handoffs_verified || t_fail handoffs_verified "$(cat "$W/out")"

# the session moved on after the task was cut: a stale task
fresh stale
$C seal "$R/session.json" no_gain
check stale_task 10 task_session_fingerprint task_step task_handoffs

# a forged session beside the task: the task names it, the real one is given
fresh forged
cp "$R/session.json" "$R/real.json"
python3 - "$R/task.json" "$R/session.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
s["steps"][2]["outcome_status"] = "no_gain"   # the forger's history
json.dump(s, open(sys.argv[2], "w"))
PY
S=$R/real.json check task_names_another_session 10 task_session_path
S=$R/session.json check forged_session_fails_its_own_digest 10 task_session_fingerprint task_handoffs

# a consumed phase result edited after sealing
fresh edited
sed -i 's/已完成/未完成/' "$R/art/phases/stage-a-scope-selection/phase-result.json"
check edited_phase_result 10 handoff_digest_mismatch

# a consumed phase result removed
fresh removed
rm "$R/art/phases/s0-baseline/phase-result.json"
check removed_phase_result 10 handoff_result_unreadable

# a hand-off that names another step's result
fresh swapped
python3 - "$R/session.json" "$R/task.json" <<'PY'
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p))
    steps = d["steps"] if "steps" in d else d["consumed_handoffs"]
    steps[0]["result_path"], steps[1]["result_path"] = steps[1]["result_path"], steps[0]["result_path"]
    steps[0]["result_sha256"], steps[1]["result_sha256"] = steps[1]["result_sha256"], steps[0]["result_sha256"]
    json.dump(d, open(p, "w"))
PY
$C dispatch "$R/session.json" "$R/task2.json"; mv "$R/task2.json" "$R/task.json"
check result_of_another_step 10 handoff_result_identity

# the hand-off block: another seal command
fresh block
python3 - "$R/task.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["handoff"]["seal_command"][4] = "/tmp/other-session.json"
json.dump(t, open(sys.argv[1], "w"))
PY
check seal_command_changed 10 task_handoff_block

# the task's step changed (another phase's agent)
fresh step
python3 - "$R/task.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["step"]["derived_family_rebase"] = True
json.dump(t, open(sys.argv[1], "w"))
PY
check step_changed 10 task_step

# the manifest: a Stage A manifest given a Stage O task; a missing tool; a
# manifest outside its skill directory
fresh manifest
M=$SKILLS/superkernel-stage-a-scope-selection/phase.json check other_phase_manifest 10 task_phase_agent
mv "$SKILLS/superkernel-runtime-common/scripts/experiment_ledger.py" "$W/"
check runtime_tool_missing 10 manifest_tool_missing
mv "$W/experiment_ledger.py" "$SKILLS/superkernel-runtime-common/scripts/"
mkdir -p "$W/elsewhere"; cp "$MANIFEST" "$W/elsewhere/phase.json"
M=$W/elsewhere/phase.json check manifest_outside_its_skill 10 manifest_skill_dir manifest_tool_missing
python3 - "$MANIFEST" "$W/renamed.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["agent_id"] = "sk-stage-o-impostor"
json.dump(m, open(sys.argv[2], "w"))
PY
mkdir -p "$SKILLS/x/superkernel-stage-o-option-tuning"
mv "$W/renamed.json" "$SKILLS/x/superkernel-stage-o-option-tuning/phase.json"
M=$SKILLS/x/superkernel-stage-o-option-tuning/phase.json check impostor_agent 10 manifest_agent_mismatch

# the session's schedule: two steps swapped (the task is cut from it)
fresh schedule
python3 - "$R/session.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["steps"][4], s["steps"][5] = s["steps"][5], s["steps"][4]
json.dump(s, open(sys.argv[1], "w"))
PY
$C dispatch "$R/session.json" "$R/task.json"
check schedule_reordered 10 session_schedule

# completed with a pending step
fresh completed
python3 - "$R/session.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["status"] = "completed"
json.dump(s, open(sys.argv[1], "w"))
PY
$C dispatch "$R/session.json" "$R/task.json"
check completed_with_pending 10 session_completed_pending

# shape errors: exit 1, one stderr line naming the file and member, nothing on stdout
fresh shape
python3 - "$R/task.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["session_fingerprint"] = t["session_fingerprint"].upper()
json.dump(t, open(sys.argv[1], "w"))
PY
t_expect task_fingerprint_not_hex 1 "task.json: session_fingerprint: must be 64 lowercase hexadecimal digits" \
    skdcci phase check --manifest "$MANIFEST" --task "$R/task.json" --session "$R/session.json"
# usage errors: exit 2, the error line and the --help hint
usage() { # NAME TEXT ARGS...
    local name=$1 text=$2; shift 2
    skdcci "$@" >/dev/null 2>"$W/err"
    local rc=$?
    if [ "$rc" -eq 2 ] && grep -qF -- "$text" "$W/err"; then t_pass "$name"
    else t_fail "$name" "exit $rc" "$(cat "$W/err")"; fi
}
usage usage_missing_session "--manifest, --task and --session are required" \
    phase check --manifest "$MANIFEST" --task "$R/task.json"
usage usage_unknown_subcommand "unknown subcommand 'run'" phase run
usage usage_given_twice "--task is given twice" phase check --task a --task b

# ------------------------------------------------------------ the Stage O plan (--ledger)
E=$W/stage
mkdir -p "$E"
source "$SK_REPO/tests/data/ledger/small_stage.sh"
fresh plan
if small_stage_o o2-trial 2>"$W/stage.err"; then
    skdcci phase check --manifest "$MANIFEST" --task "$R/task.json" --session "$R/session.json" \
        --ledger "$E/ledger.jsonl" >"$W/out" 2>"$W/err"
    rc=$?
    [ "$rc" -eq 0 ] && tail -1 "$W/out" | grep -qx valid && t_pass plan_valid_entry ||
        t_fail plan_valid_entry "exit $rc" "$(cat "$W/err" "$W/out" | head -c 2000)"
    # the pending top-up first, then the open items in the frozen order, then freeze and seal
    grep '^plan [0-9]' "$W/out" | sed 's/^plan [0-9]* //' >"$W/steps"
    cat >"$W/want" <<'TXT'
skdcci ledger top-up --ledger ledger.jsonl --item O2 --runs clean/O2 --json-out gates/O2-a1-top-up.json
skdcci round report --ledger ledger.jsonl --item O2 -o reports/O2
skdcci ledger trial --ledger ledger.jsonl --item O3 --config configs/O3.json --runs clean/O3 --json-out gates/O3-a1-trial.json
skdcci round report --ledger ledger.jsonl --item O3 -o reports/O3
skdcci ledger trial --ledger ledger.jsonl --item O4 --config configs/O4.json --runs clean/O4 --json-out gates/O4-a1-trial.json
skdcci round report --ledger ledger.jsonl --item O4 -o reports/O4
skdcci ledger trial --ledger ledger.jsonl --item O5 --config configs/O5.json --runs clean/O5 --json-out gates/O5-a1-trial.json
skdcci round report --ledger ledger.jsonl --item O5 -o reports/O5
skdcci ledger freeze --ledger ledger.jsonl
skdcci ledger verify --ledger ledger.jsonl
skdcci handoff seal --ledger ledger.jsonl -o handoff/stage-o-option-tuning --task TASK_JSON
skdcci handoff verify handoff/stage-o-option-tuning
TXT
    cmp -s "$W/steps" "$W/want" && t_pass plan_commands_in_order ||
        t_fail plan_commands_in_order "$(diff "$W/want" "$W/steps")"
    # the first command of the plan is the one the ledger then accepts
    (cd "$E" && runs configs/aop.json clean/O2 4 5 && eval "$(head -1 "$W/steps")") >/dev/null 2>&1 &&
        t_pass plan_first_command_accepted || t_fail plan_first_command_accepted
    # a failed attempt of O3 that leaves it open (a tool failure): its next attempt records
    # its runs in a new root, never in the root the failed attempt may have bound
    (
        cd "$E" || exit 1
        config O3 aop 'aggressive_opt_strategies={"task_breaker_bypass": 1, "value_breaker_bypass": 0}'
        cp -R "$SK_REPO/tests/cases/skdcci/scene_check_post_launch_valid/in/logs" scenes/ &&
            python3 - "$SK_REPO/tests/cases/skdcci/scene_check_post_launch_valid/in/scene.json" \
                scenes/O3-a1.json <<'PY' &&
import json, sys
s = json.load(open(sys.argv[1]))
s["identity"]["attempt"] = "O3-a1"
s["failure"]["kind"] = "tool"
json.dump(s, open(sys.argv[2], "w"), indent=2, ensure_ascii=False)
PY
            { skdcci ledger trial --ledger ledger.jsonl --item O3 --config configs/O3.json \
                  --scene scenes/O3-a1.json >"$W/o3.out" 2>&1; test $? -eq 10; }
    ) && skdcci phase check --manifest "$MANIFEST" --task "$R/task.json" --session "$R/session.json" \
        --ledger "$E/ledger.jsonl" >"$W/out" 2>"$W/err" &&
        grep -qx 'plan 2 skdcci ledger trial --ledger ledger.jsonl --item O3 --config configs/O3.json --runs clean/O3-a2 --json-out gates/O3-a2-trial.json' "$W/out" &&
        t_pass plan_next_attempt_new_root ||
        t_fail plan_next_attempt_new_root "$(cat "$W/o3.out" 2>/dev/null)" "$(grep "^plan" "$W/out" | head -c 2000 | sed "s/^/# /")"
    # a stale task gets no plan
    $C seal "$R/session.json" accepted
    skdcci phase check --manifest "$MANIFEST" --task "$R/task.json" --session "$R/session.json" \
        --ledger "$E/ledger.jsonl" >"$W/out" 2>"$W/err"
    rc=$?
    [ "$rc" -eq 10 ] && grep -qx 'plan withheld: the entry is not valid' "$W/out" &&
        ! grep -q '^plan [0-9]' "$W/out" && t_pass plan_withheld_for_stale_task ||
        t_fail plan_withheld_for_stale_task "exit $rc" "$(head -c 2000 "$W/out")"
    fresh plan2
    t_expect plan_needs_stage_o_manifest 1 "the manifest is phase stage_a_scope_selection" \
        skdcci phase check --manifest "$SKILLS/superkernel-stage-a-scope-selection/phase.json" \
        --task "$R/task.json" --session "$R/session.json" --ledger "$E/ledger.jsonl"
    t_expect plan_missing_ledger 1 "ledger" skdcci phase check --manifest "$MANIFEST" \
        --task "$R/task.json" --session "$R/session.json" --ledger "$E/nope.jsonl"
    # a stopped Stage O: only the hand-off remains, after a note naming the stop
    echo "机房断电，NPU 不可用。" >"$E/intake/outage.md"
    skdcci ledger stop --ledger "$E/ledger.jsonl" --status blocked --blocker environment_unavailable \
        --reason-zh "机房断电，NPU 不可用。" --evidence "$E/intake/outage.md" >"$W/out" 2>&1 ||
        t_fail plan_stop_recorded "$(head -c 2000 "$W/out")"
    skdcci phase check --manifest "$MANIFEST" --task "$R/task.json" --session "$R/session.json" \
        --ledger "$E/ledger.jsonl" >"$W/out" 2>"$W/err"
    rc=$?
    grep '^plan [0-9]' "$W/out" | sed 's/^plan [0-9]* //' >"$W/steps"
    printf '%s\n' "skdcci ledger verify --ledger ledger.jsonl" \
        "skdcci handoff seal --ledger ledger.jsonl -o handoff/stage-o-option-tuning --task TASK_JSON" \
        "skdcci handoff verify handoff/stage-o-option-tuning" >"$W/want"
    [ "$rc" -eq 0 ] && cmp -s "$W/steps" "$W/want" &&
        grep -q '^plan-note .*Stage O is stopped (blocked environment_unavailable, record 6)' "$W/out" &&
        t_pass plan_after_stop_is_the_handoff ||
        t_fail plan_after_stop_is_the_handoff "exit $rc" "$(head -c 2000 "$W/out")"
else
    t_fail plan_stage_recorded "$(head -c 2000 "$W/stage.err")"
fi
