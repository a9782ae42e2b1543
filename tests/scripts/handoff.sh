#!/usr/bin/env bash
# skdcci handoff seal|verify on Stage Os recorded with the real ledger
# commands (tests/data/ledger/small_stage.sh): the status derived from the
# ledger (accepted, no_gain), the phase-result v1 fields and the stage_o
# block, refusals with nothing written (BASE not frozen, an existing
# directory, one outside the ledger's directory), verify after a later check
# record, every tamper caught with its code (phase result, option maps, a
# bound log, an edited or removed ledger line, English text), --against-config
# (unchanged options pass, one changed value fails naming it, changes outside
# the option maps pass), and the dispatch task's session (the allocation
# sweeps are in stage_o_reports_alloc.sh).
source "$SK_REPO/tests/lib.sh"
W=$PWD
E=$W/stage
source "$SK_REPO/tests/data/ledger/small_stage.sh"
small_stage_tap || exit 0
L=$E/ledger.jsonl
cd "$E"

expect_out() { # NAME WANT_RC CMD... (stdout in $W/out, stderr in $W/err)
    local name=$1 want=$2; shift 2
    "$@" >"$W/out" 2>"$W/err"
    local rc=$?
    if [ "$rc" -eq "$want" ]; then t_pass "$name"
    else t_fail "$name" "exit $rc, want $want" "$(head -c 1500 "$W/err")" "$(head -c 1500 "$W/out")"; fi
}
has() { # NAME PATTERN: the last stdout holds PATTERN (grep -E)
    if grep -qE -- "$2" "$W/out"; then t_pass "$1"; else t_fail "$1" "no '$2' in" "$(head -c 2000 "$W/out")"; fi
}

# ------------------------------------------------------------ seal
expect_out sealed 0 skdcci handoff seal --ledger "$L" -o handoff/stage-o
has sealed_status '^status accepted$'
has sealed_base '^base Sbest-BASE incumbent O2$'
t_ok sealed_four_files test "$(ls handoff/stage-o | tr '\n' ' ')" = \
    "STAGE_O_HANDOFF.md option-maps.json phase-result.json winner-option-matrix.json "
t_ok phase_result_fields python3 - "$L" handoff/stage-o <<'PY'
import hashlib, json, re, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
d = sys.argv[2]
r = json.load(open(d + "/phase-result.json"))
req = ["schema_version", "session_id", "step_id", "phase", "agent_id", "status", "summary_zh",
       "input_fingerprints", "consumed_artifacts", "produced_artifacts", "decisions", "blockers",
       "next_step_guidance_zh", "details_zh"]
assert all(k in r for k in req), [k for k in req if k not in r]
assert r["schema_version"] == "superkernel-auto-tune-phase-result-v1"
assert (r["step_id"], r["phase"], r["agent_id"]) == ("stage-o-option-tuning", "stage_o_option_tuning",
                                                     "sk-stage-o-option-tuning")
assert re.fullmatch(r"[a-z][a-z0-9-]{1,63}", r["step_id"])
cjk = lambda s: any("\u4e00" <= c <= "\u9fff" for c in s)
assert r["status"] == "accepted" and cjk(r["summary_zh"]) and cjk(r["next_step_guidance_zh"])
assert all(cjk(v) for v in r["details_zh"].values())
for p in r["consumed_artifacts"] + r["produced_artifacts"]:
    assert not p.startswith("/") and ".." not in p.split("/"), p
so = r["stage_o"]
freeze = recs[-1]["body"]
assert recs[-1]["kind"] == "freeze"
head = hashlib.sha256(open(sys.argv[1], "rb").read().splitlines(True)[-1]).hexdigest()
assert so["ledger"] == {"path": "ledger.jsonl", "head": head, "records": len(recs),
                        "init_line_sha256": hashlib.sha256(open(sys.argv[1], "rb").readline()).hexdigest()}
assert so["sbest_base"]["config"] == freeze["config"] and so["sbest_base"]["incumbent"] == "O2"
om = json.load(open(d + "/option-maps.json"))
assert om == freeze["option_maps"]
canon = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
assert so["option_maps"]["digest"] == hashlib.sha256(canon(om).encode()).hexdigest() == \
    freeze["config"]["option_maps_digest"]
m = json.load(open(d + "/winner-option-matrix.json"))
assert so["matrix"]["digest"] == hashlib.sha256(canon(m).encode()).hexdigest()
assert so["matrix"]["sha256"] == hashlib.sha256(open(d + "/winner-option-matrix.json", "rb").read()).hexdigest()
assert m["settled"] is True and [i["status"] for i in m["items"]] == \
    ["skipped", "accepted", "failed", "blocked", "rejected"]
ev = {(e["path"], e["sha256"]) for e in so["evidence"]}
for path in ("configs/seed.json", "configs/aop.json", "gates/O2-a1-trial.json", "scenes/O3-a1.json",
             "intake/budget.md", "clean/O2/run-5/log_1.log", "clean/O0/run-1/run-record.json"):
    assert (path, hashlib.sha256(open(path, "rb").read()).hexdigest()) in ev, path
assert [s["attempt"] for s in so["failure_scenes"]] == ["O3-a1"]
assert {b["item"]: b["blocker_code"] for b in r["blockers"]} == {"O1": "budget_exhausted",
                                                                  "O4": "prerequisite_missing"}
for name, sha in so["files"].items():
    assert hashlib.sha256(open(d + "/" + name, "rb").read()).hexdigest() == sha, name
PY
expect_out sealed_verifies 0 skdcci handoff verify handoff/stage-o
has verify_derives_status '^status accepted \(derived from the ledger\)$'
has verify_valid '^valid$'

# never twice, never outside the ledger's directory, never before the freeze
t_expect seal_never_overwrites 1 "already exists" skdcci handoff seal --ledger "$L" -o handoff/stage-o
t_expect seal_outside_refused 1 "must lie inside the ledger's directory" \
    skdcci handoff seal --ledger "$L" -o "$W/elsewhere"
t_ok seal_outside_nothing_written test ! -e "$W/elsewhere"

# ------------------------------------------------------------ --against-config
python3 - <<'PY'
import json
c = json.load(open("configs/aop.json"))
c["scope"] = {"layers": [0]}                        # P: a scope change only
json.dump(c, open("configs/p-same.json", "w"), indent=2)
c["model_config"]["custom_params"]["super_kernel_optimize_options"]["auto_op_parallel"] = 0
json.dump(c, open("configs/p-changed.json", "w"), indent=2)
PY
expect_out later_config_keeps_base 0 skdcci handoff verify handoff/stage-o --against-config configs/p-same.json
has later_config_keeps_message 'keeps the option maps of Sbest-BASE \(it differs outside them: allowed\)'
expect_out later_config_changed_option 10 skdcci handoff verify handoff/stage-o --against-config configs/p-changed.json
has changed_option_named '^option-changed changed /model_config/custom_params/super_kernel_optimize_options/auto_op_parallel: 1 -> 0$'
t_ok changed_option_one_stderr_line test "$(wc -l <"$W/err")" = 1
# a later-config check appended to the ledger after the seal does not break it
skdcci ledger check --ledger "$L" --config configs/p-same.json >/dev/null 2>&1
expect_out verify_after_check_record 0 skdcci handoff verify handoff/stage-o

# ------------------------------------------------------------ tampering
cp -a handoff/stage-o "$W/pristine"
restore() { rm -rf handoff/stage-o && cp -a "$W/pristine" handoff/stage-o; }
sed -i 's/"status": "accepted"/"status": "no_gain"/' handoff/stage-o/phase-result.json
expect_out edited_status 10 skdcci handoff verify handoff/stage-o
has edited_status_code '^violation status_mismatch status: the hand-off says no_gain, the ledger gives accepted$'
restore
python3 - <<'PY'
import json
p = "handoff/stage-o/phase-result.json"
r = json.load(open(p))
r["summary_zh"] = "Stage O done."
json.dump(r, open(p, "w"), indent=2, ensure_ascii=False)
PY
expect_out english_summary 10 skdcci handoff verify handoff/stage-o
has english_summary_code '^violation zh_not_chinese summary_zh'
restore
sed -i 's/"auto_op_parallel": 1/"auto_op_parallel": 2/' handoff/stage-o/option-maps.json
expect_out edited_option_maps 10 skdcci handoff verify handoff/stage-o
has edited_option_maps_code '^violation file_digest_mismatch option-maps.json'
restore
cp clean/O2/run-4/log_0.log "$W/log.saved"
printf 'x' >>clean/O2/run-4/log_0.log
t_expect changed_bound_log 10 "clean/O2/run-4" skdcci handoff verify handoff/stage-o
t_expect seal_refuses_changed_evidence 10 "clean/O2/run-4" \
    skdcci handoff seal --ledger "$L" -o handoff/again
t_ok seal_refused_nothing_written test ! -e handoff/again
cp "$W/log.saved" clean/O2/run-4/log_0.log
cp "$L" "$W/ledger.saved"
sed -i '2s/"incumbent_after":"O0"/"incumbent_after":"O2"/' "$L"
t_expect edited_ledger_line 10 "record 2 (settle)" skdcci handoff verify handoff/stage-o
cp "$W/ledger.saved" "$L"
head -n 7 "$W/ledger.saved" >"$L"
t_expect removed_ledger_records 10 "is not the sealed head" skdcci handoff verify handoff/stage-o
cp "$W/ledger.saved" "$L"
expect_out restored_verifies 0 skdcci handoff verify handoff/stage-o
t_expect not_a_handoff 1 "phase-result.json" skdcci handoff verify clean

# ------------------------------------------------------------ the dispatch task
python3 "$SK_REPO/tests/data/phase/controller.py" fresh "$W/session" S-42 succeeded succeeded accepted
expect_out sealed_with_task 0 skdcci handoff seal --ledger "$L" -o handoff/with-task --task "$W/session/task.json"
t_ok task_session_bound python3 - "$W/session/task.json" handoff/with-task/phase-result.json <<'PY'
import hashlib, json, sys
t = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
assert r["session_id"] == "S-42"
assert r["input_fingerprints"]["dispatch_task_sha256"] == hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
assert r["input_fingerprints"]["session_fingerprint"] == t["session_fingerprint"]
PY
expect_out task_handoff_verifies 0 skdcci handoff verify handoff/with-task
python3 - "$W/session/task.json" "$W/task-s0.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["step"]["step_id"], t["step"]["phase"] = "s0-baseline", "s0_baseline"
json.dump(t, open(sys.argv[2], "w"))
PY
t_expect task_of_another_step 1 "not the Stage O step" \
    skdcci handoff seal --ledger "$L" -o handoff/x --task "$W/task-s0.json"

# ------------------------------------------------------------ no_gain; not frozen
E=$W/nogain
mkdir -p "$E"
if small_stage_o init 2>"$W/mk2.err"; then
    (
        cd "$E" || exit 1
        for i in O1 O2 O3 O4 O5; do
            skdcci ledger settle --ledger ledger.jsonl --item $i --status skipped \
                --blocker budget_exhausted --reason-zh "本轮预算已用完。" --evidence intake/budget.md \
                >/dev/null || exit 1
        done
    ) && t_pass nogain_recorded || t_fail nogain_recorded
    t_expect nogain_not_frozen_refused 10 "is not frozen" \
        skdcci handoff seal --ledger "$E/ledger.jsonl" -o "$E/handoff"
    t_ok not_frozen_nothing_written test ! -e "$E/handoff"
    skdcci ledger freeze --ledger "$E/ledger.jsonl" >/dev/null 2>&1
    expect_out nogain_sealed 0 skdcci handoff seal --ledger "$E/ledger.jsonl" -o "$E/handoff"
    has nogain_status '^status no_gain$'
    expect_out nogain_verifies 0 skdcci handoff verify "$E/handoff"
else
    t_fail nogain_recorded "$(head -c 2000 "$W/mk2.err")"
fi

# ------------------------------------------------------------ usage
skdcci handoff seal --ledger "$L" >/dev/null 2>"$W/err"
[ $? -eq 2 ] && t_pass usage_seal_without_out || t_fail usage_seal_without_out "$(cat "$W/err")"
skdcci handoff verify >/dev/null 2>"$W/err"
[ $? -eq 2 ] && t_pass usage_verify_without_dir || t_fail usage_verify_without_dir "$(cat "$W/err")"
