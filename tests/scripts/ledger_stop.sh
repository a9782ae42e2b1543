#!/usr/bin/env bash
# skdcci ledger stop: a Stage O that cannot go on ends with a terminal stop
# record that freezes the current incumbent as Sbest-BASE, and the hand-off
# derives blocked or failed from it (docs/ledger.md "stop", docs/handoff.md).
# Four small Stage Os recorded with the real ledger commands
# (tests/data/ledger/small_stage.sh):
#   A  O2's trial accepted and waiting for its top-up: an unstable top-up is
#      refused with its failed-check lines; every refusal of stop leaves the
#      ledger byte-identical; stop blocked with O2 running and O3-O5 pending;
#      show, verify, matrix, later checks, seal (blocked) and verify, a
#      tampered status and evidence file;
#   B  incumbent O2: stop failed with its failure scene (identity checked),
#      seal (failed), a changed scene caught by ledger and handoff verify;
#   C  every item settled but O5: O5's rejected trial prints its failed
#      checks before its verdict; then stop is refused (freeze instead);
#   D  O2's top-up unstable, with its scene: the acceptance is revoked (the
#      item failed, the rollback recorded, O0 the incumbent, no new trial).
source "$SK_REPO/tests/lib.sh"
W=$PWD
OUT=$W/out
source "$SK_REPO/tests/data/ledger/small_stage.sh"

# before_after NAME CMD...: CMD exits 10 or 2 and leaves the ledger byte-identical
refused() { # NAME WANT_RC PATTERN CMD...
    local name=$1 want=$2 pat=$3
    shift 3
    cp "$L" "$W/ledger.before"
    expect "$name" "$want" "$@"
    has "${name}_says" "$pat"
    same_bytes "${name}_ledger_unchanged" "$L" "$W/ledger.before"
}
# scene ATTEMPT TRIAL KIND FILE: the valid post-launch scene of the scene
# check case, renamed to TRIAL ATTEMPT and failure KIND, with its logs beside it
scene() {
    mkdir -p "$(dirname "$4")"
    python3 - "$SK_REPO/tests/cases/skdcci/scene_check_post_launch_valid/in/scene.json" \
        "$4" "$1" "$2" "$3" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["identity"]["attempt"], s["identity"]["trial"] = sys.argv[3], sys.argv[4]
s["failure"]["kind"] = s["gates"]["failed"] = s["identity"]["gate"] = sys.argv[5]
json.dump(s, open(sys.argv[2], "w"), indent=2, ensure_ascii=False)
PY
    cp -R "$SK_REPO/tests/cases/skdcci/scene_check_post_launch_valid/in/logs" "$(dirname "$4")/"
}

# ------------------------------------------------------------ A: blocked
E=$W/A
small_stage_tap o2-trial || exit 0
L=$E/ledger.jsonl
cd "$E" || exit 1
echo "机房断电，NPU 不可用，恢复时间未知。" >intake/outage.md

# an unstable top-up without its scene: refused (3) with the failed checks first
ms aop "10.1 10.12 10.1 12.5 12.5"
runs configs/aop.json clean/O2 4 5
refused top_up_unstable_refused 3 "not stable" \
    skdcci ledger top-up --ledger "$L" --item O2 --runs clean/O2
t_ok top_up_unstable_failed_line grep -qE '^failed max_spread_pct measured [0-9.]+ threshold <= 5\.0$' "$OUT"
t_ok top_up_failed_line_before_error python3 - "$OUT" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
f = [i for i, l in enumerate(lines) if l.startswith("failed ")]
e = [i for i, l in enumerate(lines) if "error:" in l]
sys.exit(not (f and e and max(f) < min(e) and len(e) == 1))
PY
rm -rf clean/O2/run-4 clean/O2/run-5

STOP=(skdcci ledger stop --ledger "$L")
refused stop_unknown_blocker 10 "does not stop a Stage O" \
    "${STOP[@]}" --status blocked --blocker nope --reason-zh "停电" --evidence intake/outage.md
refused stop_item_blocker 10 "ledger settle that item" \
    "${STOP[@]}" --status blocked --blocker probe_not_accepted --reason-zh "停电" --evidence intake/outage.md
refused stop_english_reason 10 "must be Chinese" \
    "${STOP[@]}" --status blocked --blocker environment_unavailable --reason-zh "power outage" \
    --evidence intake/outage.md
refused stop_no_profiling_reason 10 "missing profiling evidence" \
    "${STOP[@]}" --status blocked --blocker environment_unavailable --reason-zh "没有 profiling 证据" \
    --evidence intake/outage.md
refused stop_failed_without_scene 10 "needs --scene SCENE.*attempt O0-stop" \
    "${STOP[@]}" --status failed --blocker o0_not_reproducible --reason-zh "O0 正确性失败" \
    --evidence intake/outage.md
mkdir -p scenes
scene O0-stop O0 correctness scenes/O0-stop.json
refused stop_blocked_with_scene 10 "a blocked stop has no failure scene" \
    "${STOP[@]}" --status blocked --blocker environment_unavailable --reason-zh "停电" \
    --evidence intake/outage.md --scene scenes/O0-stop.json
refused stop_failed_budget 10 "not a functional failure" \
    "${STOP[@]}" --status failed --blocker budget_exhausted --reason-zh "预算用完" \
    --evidence intake/outage.md --scene scenes/O0-stop.json
scene O0-a1 O0 correctness scenes/O0-wrong.json
refused stop_scene_other_attempt 10 "names trial O0 attempt O0-a1, not O0 attempt O0-stop" \
    "${STOP[@]}" --status failed --blocker o0_not_reproducible --reason-zh "O0 正确性失败" \
    --evidence intake/outage.md --scene scenes/O0-wrong.json
scene O0-stop O0 profiling scenes/O0-profiling.json
refused stop_scene_not_functional 10 "profiling failure is not a functional failure" \
    "${STOP[@]}" --status failed --blocker o0_not_reproducible --reason-zh "采集失败" \
    --evidence intake/outage.md --scene scenes/O0-profiling.json
refused stop_status_usage 2 "--status must be blocked or failed" \
    "${STOP[@]}" --status done --blocker environment_unavailable --reason-zh "停电" --evidence intake/outage.md
refused stop_without_evidence 2 "needs --evidence" \
    "${STOP[@]}" --status blocked --blocker environment_unavailable --reason-zh "停电"

expect stop_blocked 0 "${STOP[@]}" --status blocked --blocker environment_unavailable \
    --reason-zh "机房断电，NPU 不可用，恢复时间未知。" --evidence intake/outage.md
has stop_blocked_line '^stop blocked environment_unavailable$'
has stop_blocked_base '^base Sbest-BASE incumbent O0$'
has stop_pending_top_up_not_accepted '^item O2 running not-accepted'
has stop_pending_items '^item O3 pending unsettled$'
has stop_next_handoff '^next handoff -$'
t_ok stop_record_members python3 - "$L" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
b = r["body"]
assert r["kind"] == "stop" and b["status"] == "blocked" and b["scene"] is None, b
assert b["base_id"] == "Sbest-BASE" and b["incumbent"] == "O0" and b["accepted_items"] == []
assert [(i["id"], i["status"]) for i in b["items"]] == [
    ("O1", "skipped"), ("O2", "running"), ("O3", "pending"), ("O4", "pending"), ("O5", "pending")], b["items"]
assert b["option_maps"]["schema_version"] == "skdcci-option-maps-v1"
assert set(b["fingerprints"]) == {"source_revision", "baseline_config_fingerprint",
    "candidate_config_fingerprint", "control_fingerprint", "workload_fingerprint"}
assert b["evidence"][0]["path"] == "intake/outage.md"
PY
expect show_stopped 0 skdcci ledger show --ledger "$L"
has show_stopped_line '^stopped blocked environment_unavailable record 4$'
has show_item_awaiting '^item O2 other_experimental running awaiting-top-up|^item O2 auto_op_parallel running awaiting-top-up'
has show_next_detail '^next-detail Stage O is stopped \(blocked: environment_unavailable\)'
expect verify_stopped 0 skdcci ledger verify --ledger "$L"

# after the stop: nothing but later-config checks
refused trial_after_stop 10 "Stage O is stopped|Sbest-BASE is frozen" \
    skdcci ledger top-up --ledger "$L" --item O2 --runs clean/O2
refused settle_after_stop 10 "Sbest-BASE is frozen|Stage O is stopped" \
    skdcci ledger settle --ledger "$L" --item O3 --status blocked --blocker budget_exhausted \
    --reason-zh "预算用完" --evidence intake/budget.md
refused freeze_after_stop 10 "Stage O is stopped" skdcci ledger freeze --ledger "$L"
refused stop_twice 10 "Stage O is already stopped \(record 4\)" \
    "${STOP[@]}" --status blocked --blocker budget_exhausted --reason-zh "预算用完" --evidence intake/budget.md

# the matrix: unsettled items as the records left them, not settled
expect matrix_after_stop 0 skdcci ledger matrix --ledger "$L" -o stop-matrix.json
has matrix_not_settled '^settled false$'
expect matrix_after_stop_validates 0 skdcci matrix validate stop-matrix.json

# the hand-off: blocked, from the stop record
expect seal_blocked 0 skdcci handoff seal --ledger "$L" -o handoff/A
has seal_blocked_status '^status blocked$'
t_ok seal_blocked_fields python3 - handoff/A/phase-result.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "blocked", r["status"]
b = r["blockers"][0]
assert b["scope"] == "stage" and b["item"] is None and b["blocker_code"] == "environment_unavailable", b
assert b["record"] == 4 and b["evidence"][0]["path"] == "intake/outage.md" and b["scene"] is None
assert all(x["scope"] == "item" for x in r["blockers"][1:])
assert "被外部阻塞" in r["summary_zh"] and "O2（running）" in r["summary_zh"], r["summary_zh"]
assert "恢复设备与运行环境" in r["next_step_guidance_zh"], r["next_step_guidance_zh"]
assert "stop" in r["details_zh"]
s = r["stage_o"]["sbest_base"]
assert s["status"] == "blocked" and s["incumbent"] == "O0" and s["freeze_record"] == 4
assert {d["item"]: d["status"] for d in r["decisions"]}["O3"] == "pending"
assert r["stage_o"]["matrix"]["settled"] is False
PY
expect verify_blocked 0 skdcci handoff verify handoff/A
has verify_blocked_status '^status blocked \(derived from the ledger\)$'
# a later config that changes two options of Sbest-BASE (O0): one line per changed option
config later seed auto_op_parallel=1 early_start=1
skdcci handoff verify handoff/A --against-config configs/later.json >"$OUT" 2>"$W/err"
rc=$?
[ "$rc" = 10 ] && [ "$(grep -c '^option-changed added /model_config/custom_params/super_kernel_optimize_options/' "$OUT")" = 2 ] &&
    [ "$(wc -l <"$W/err")" = 1 ] && t_pass against_config_one_line_per_option ||
    t_fail against_config_one_line_per_option "exit $rc" "$(cat "$OUT" "$W/err" | head -c 2000)"
# a tampered status and an English summary: one line per problem
cp -R handoff/A handoff/A2
python3 - handoff/A2/phase-result.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["status"], r["summary_zh"] = "no_gain", "stopped"
json.dump(r, open(sys.argv[1], "w"), indent=2, ensure_ascii=False)
PY
expect verify_tampered_status 10 skdcci handoff verify handoff/A2
has verify_status_mismatch 'status_mismatch .*the ledger gives blocked'
has verify_zh_line 'zh_not_chinese'
t_ok verify_one_line_per_problem test "$(grep -c '^violation ' "$OUT")" = \
    "$(sed -n 's/^invalid: \([0-9]*\) violations$/\1/p' "$OUT")"
# the stop's evidence changed: ledger verify and the hand-off name it
echo "改过" >>intake/outage.md
expect verify_stop_evidence_changed 10 skdcci ledger verify --ledger "$L"
has verify_stop_evidence_named 'record 4 \(stop\).*intake/outage.md'
t_ok verify_stop_evidence_one_line test "$(grep -c 'error' "$OUT")" -eq 1
expect handoff_verify_evidence_changed 10 skdcci handoff verify handoff/A
has handoff_verify_evidence_named 'intake/outage.md'

# ------------------------------------------------------------ B: failed
E=$W/B
small_stage_tap o3 || exit 0
L=$E/ledger.jsonl
cd "$E" || exit 1
echo "O2 在复跑时正确性失败，O0 也无法再通过。" >intake/o2-rerun.md
scene O2-stop O2 correctness scenes/stop/O2-stop.json
scene O0-stop O0 correctness scenes/o0/O0-stop.json
STOP=(skdcci ledger stop --ledger "$L")
refused stop_failed_o0_scene 10 "names trial O0 attempt O0-stop, not O2 attempt O2-stop" \
    "${STOP[@]}" --status failed --blocker o0_not_reproducible --reason-zh "正确性失败" \
    --evidence intake/o2-rerun.md --scene scenes/o0/O0-stop.json
expect stop_failed 10 "${STOP[@]}" --status failed --blocker o0_not_reproducible \
    --reason-zh "O2 复跑正确性失败，O0 也不再通过正确性检查。" --evidence intake/o2-rerun.md \
    --scene scenes/stop/O2-stop.json
has stop_failed_line '^stop failed o0_not_reproducible$'
has stop_failed_base '^base Sbest-BASE incumbent O2$'
t_ok stop_failed_scene_bound python3 - "$L" <<'PY'
import json, sys
b = json.loads(open(sys.argv[1]).read().splitlines()[-1])["body"]
assert b["scene"]["attempt"] == "O2-stop" and b["scene"]["functional"] is True, b["scene"]
assert b["accepted_items"] == ["O2"] and b["status"] == "failed"
PY
expect verify_failed 0 skdcci ledger verify --ledger "$L"
expect seal_failed 0 skdcci handoff seal --ledger "$L" -o handoff/B
has seal_failed_status '^status failed$'
has seal_failed_scenes 'evidence [0-9]+ files, 2 failure scenes'
t_ok seal_failed_fields python3 - handoff/B/phase-result.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "failed" and "功能失败" in r["summary_zh"]
assert "scenes/stop/O2-stop.json" in r["next_step_guidance_zh"], r["next_step_guidance_zh"]
assert r["blockers"][0]["scene"]["path"] == "scenes/stop/O2-stop.json"
kinds = [s["record_kind"] for s in r["stage_o"]["failure_scenes"]]
assert kinds == ["trial", "stop"], kinds
PY
expect verify_failed_handoff 0 skdcci handoff verify handoff/B
# one changed byte in the stop's scene
sed -i 's/max abs diff/max abs diff /' scenes/stop/O2-stop.json
expect verify_stop_scene_changed 10 skdcci ledger verify --ledger "$L"
has verify_stop_scene_named 'record 6 \(stop\).*scenes/stop/O2-stop.json'
expect handoff_verify_scene_changed 10 skdcci handoff verify handoff/B

# ------------------------------------------------------------ C: settled
E=$W/C
small_stage_tap o4 || exit 0
L=$E/ledger.jsonl
cd "$E" || exit 1
config o5 aop sk_launch_batch=2
ms o5 "10.4 10.45 10.4"
runs configs/o5.json clean/O5 1 3
expect trial_rejected 10 skdcci ledger trial --ledger "$L" --item O5 --config configs/o5.json \
    --runs clean/O5 --json-out gates/O5-a1-trial.json
t_ok trial_rejected_failed_lines python3 - "$OUT" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
want = ["failed mean_improvement measured -3.07", "failed median_run_direction measured -2.97",
        "failed p90_no_material_regression measured 3.26", "failed stddev_no_material_regression measured"]
f = [i for i, l in enumerate(lines) if l.startswith("failed ")]
assert [l[:len(w)] for l, w in zip((lines[i] for i in f), want)] == want, lines
assert all(re.search(r" threshold (> |<= )0\.0$", lines[i]) for i in f)
sys.exit(not (len(f) == 4 and max(f) < lines.index("option-trial-accepted False") < lines.index("outcome rejected")))
PY
refused stop_when_settled 10 "every matrix item is settled" \
    skdcci ledger stop --ledger "$L" --status blocked --blocker budget_exhausted \
    --reason-zh "预算用完" --evidence intake/budget.md


# ------------------------------------------------------------ D: revoked
# O2's accepted trial, topped up with two slow runs: with the scene of the
# stability failure the acceptance is revoked (failed, exit 10), the rollback
# recorded, O0 stays the incumbent, O2 is settled and cannot be tried again
E=$W/D
small_stage_tap o2-trial || exit 0
L=$E/ledger.jsonl
cd "$E" || exit 1
ms aop "10.1 10.12 10.1 12.5 12.5"
runs configs/aop.json clean/O2 4 5
scene O2-a1 O2 stability scenes/O2-a1-top-up.json
expect top_up_revoked 10 skdcci ledger top-up --ledger "$L" --item O2 --runs clean/O2 \
    --json-out gates/O2-a1-top-up.json --scene scenes/O2-a1-top-up.json
has top_up_revoked_failed_line '^failed max_spread_pct measured [0-9.]+ threshold <= 5\.0$'
t_ok top_up_revoked_record python3 - "$L" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
b = r["body"]
sys.exit(not (r["kind"] == "top_up" and b["outcome"] == "failed" and b["item_status"] == "failed"
              and b["incumbent_after"] == "O0" and b["rollback"] == {"to": "O0"}
              and b["scene"]["attempt"] == "O2-a1"))
PY
expect top_up_revoked_show 0 skdcci ledger show --ledger "$L"
has top_up_revoked_incumbent '^incumbent O0'
refused top_up_revoked_no_retry 10 "already settled" \
    skdcci ledger trial --ledger "$L" --item O2 --config configs/aop.json --runs clean/O2 \
    --json-out gates/O2-a2-trial.json
expect top_up_revoked_verify 0 skdcci ledger verify --ledger "$L"
