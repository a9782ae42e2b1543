#!/usr/bin/env bash
# skdcci round report on a small Stage O recorded with the real ledger
# commands (tests/data/ledger/small_stage.sh): one report per attempt, exact
# values in the JSON equal to the ledger's, the top-up runs marked, the eight
# failure-scene items of a failed attempt, reports never replaced, tampered
# evidence refused with nothing written, and byte-identical reruns (the
# allocation sweep is in stage_o_reports_alloc.sh).
source "$SK_REPO/tests/lib.sh"
W=$PWD
S=$W/stage
E=$S
source "$SK_REPO/tests/data/ledger/small_stage.sh"
small_stage_tap || exit 0
L=$S/ledger.jsonl
R=$W/reports

expect_out() { # NAME WANT_RC CMD... (stdout kept in $W/out)
    local name=$1 want=$2; shift 2
    "$@" >"$W/out" 2>"$W/err"
    local rc=$?
    if [ "$rc" -eq "$want" ]; then t_pass "$name"
    else t_fail "$name" "exit $rc, want $want" "$(head -c 1500 "$W/err")" "$(head -c 1500 "$W/out")"; fi
}

expect_out o2_written 0 skdcci round report --ledger "$L" --item O2 -o "$R/O2"
printf 'written %s/O2/O2-a1 (record 3)\nwritten %s/O2/O2-a1-top-up (record 4)\n' "$R" "$R" >"$W/want"
cmp -s "$W/out" "$W/want" && t_pass o2_stdout || t_fail o2_stdout "$(diff "$W/want" "$W/out")"

# the document against the ledger: exact values copied, runs and marks
t_ok o2_documents python3 - "$L" "$R/O2" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
trial, top = recs[2]["body"], recs[3]["body"]
a = json.load(open(sys.argv[2] + "/O2-a1/round-report.json"))
b = json.load(open(sys.argv[2] + "/O2-a1-top-up/round-report.json"))
assert a["schema_version"] == "skdcci-round-report-v1" and a["report"] == "trial", a["report"]
assert a["record"]["seq"] == 3 and a["outcome"] == "accepted" and a["item_status"] == "running"
g = trial["gate"]
assert a["gate"]["accepted"] is True
vals = {c["name"]: c for c in a["gate"]["checks"]}
assert len(vals) == 7
assert vals["mean_improvement"]["value"] == g["mean_improvement_pct"]
assert vals["p90_no_material_regression"]["value"] == g["p90_regression_pct"]
assert vals["p90_no_material_regression"]["threshold"] == 0.0
assert vals["baseline_min_runs"]["threshold"] == 5 and vals["candidate_min_runs"]["value"] == 3
st = a["statistics"]
for k in ("worst_rank_mean_ms", "median_run_worst_rank_mean_ms", "p50_ms", "p90_ms", "stddev_ms"):
    assert st["trial"][k] == g["candidate"][k], k
    assert st["incumbent"][k] == g["baseline"][k], k
assert st["incumbent"]["spread_pct_exact"] == g["baseline_stability"]["spread_pct_exact"]
assert [r["name"] for r in a["runs"]["trial"]["runs"]] == ["run-1", "run-2", "run-3"]
assert [r["worst_rank_mean_exact_ms"] for r in a["runs"]["trial"]["runs"]] == \
    g["candidate"]["run_worst_rank_means_exact_ms"]
assert all(r["decode"]["p90_ms"] is not None for r in a["runs"]["trial"]["runs"])
assert not any(r["top_up"] for r in a["runs"]["trial"]["runs"])
assert a["change"]["values"][0]["after"] == {"present": True, "value": 1}
assert a["incumbent"]["before"] == "O0" and a["incumbent"]["after"] == "O0"
roles = {(e["role"], e["path"]): e["sha256"] for e in a["evidence"]}
assert roles[("gate_summary", "gates/O2-a1-trial.json")] == trial["summary"]["sha256"]
assert roles[("config", "configs/aop.json")] == trial["config"]["sha256"]
assert roles[("trial_rank_log", "clean/O2/run-2/log_1.log")] == trial["runs"]["runs"][1]["logs"][1]["sha256"]
assert a["failure_scene"] is None
# the top-up: five runs, run-4 and run-5 marked, the incumbent becomes O2
assert b["report"] == "top_up" and b["trial_record"]["seq"] == 3
assert [r["top_up"] for r in b["runs"]["trial"]["runs"]] == [False, False, False, True, True]
assert b["incumbent"]["before"] == "O0" and b["incumbent"]["after"] == "O2" and b["incumbent"]["changed"]
assert b["stability"]["stable"] is True and b["gate"] is None
assert b["statistics"]["trial"]["spread_pct_exact"] == top["stability"]["spread_pct_exact"]
assert b["runs"]["incumbent"]["runs"][0]["decode"] is not None  # from the trial's gate document
PY

# the markdown and the page: Chinese, rounded, the sections; well-formed page
t_ok o2_markdown grep -q '^| run-4 | 补充运行（top-up） | 10.1100 |' "$R/O2/O2-a1-top-up/ROUND_REPORT.md"
t_ok o2_rollback_words grep -q '（精确值并入现任）' "$R/O2/O2-a1-top-up/ROUND_REPORT.md"
t_ok o2_page python3 "$SK_REPO/tests/scripts/html_check.py" round "$R/O2/O2-a1/ROUND_REPORT.html" \
    "$R/O2/O2-a1/round-report.json"

# a rerun keeps the reports byte for byte
sha() { find "$R" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; }
sha >"$W/before"
expect_out rerun_keeps 0 skdcci round report --ledger "$L" --item O2 -o "$R/O2"
grep -q "^kept $R/O2/O2-a1 (record 3)$" "$W/out" && sha | cmp -s - "$W/before" &&
    t_pass rerun_byte_identical || t_fail rerun_byte_identical "$(cat "$W/out")"
skdcci round report --ledger "$L" --item O2 -o "$W/again" >/dev/null 2>&1
diff -r "$R/O2" "$W/again" >/dev/null && t_pass same_inputs_same_bytes ||
    t_fail same_inputs_same_bytes "$(diff -r "$R/O2" "$W/again" | head -5)"

# an edited report is never replaced
echo edited >>"$R/O2/O2-a1/ROUND_REPORT.md"
sha >"$W/before"
t_expect edited_report_refused 1 "reports are never replaced" \
    skdcci round report --ledger "$L" --item O2 -o "$R/O2"
sha | cmp -s - "$W/before" && t_pass edited_report_untouched || t_fail edited_report_untouched

# the failed attempt: the eight scene items
expect_out o3_written 0 skdcci round report --ledger "$L" --item O3 -o "$R/O3"
t_ok o3_scene python3 - "$R/O3/O3-a1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/round-report.json"))
assert d["outcome"] == "failed" and d["gate"] is None and d["runs"]["trial"] is None
sc = d["failure_scene"]
for k in ("identity", "invocation", "failure", "artifacts", "gates", "judgement", "control", "next"):
    assert sc[k] is not None, k
assert sc["classification"] == "post_launch_failure" and d["incumbent"]["rollback_to"] == "O2"
md = open(sys.argv[1] + "/ROUND_REPORT.md", encoding="utf-8").read()
for h in ("7.1 身份与阶段", "7.2 冻结的调用", "7.3 可观察到的失败", "7.4 现场文件", "7.5 闸门进度",
          "7.6 初步判断", "7.7 控制与回退", "7.8 下一步定位入口"):
    assert "### " + h in md, h
PY

# refusals: no attempt yet (3), unknown item (1), tampered gate document (1,
# naming it, nothing written), usage (2)
t_expect no_attempt_blocked 3 "item O1 has no attempt yet" \
    skdcci round report --ledger "$L" --item O1 -o "$R/O1"
t_expect unknown_item 1 "the frozen matrix has no item O9" \
    skdcci round report --ledger "$L" --item O9 -o "$R/O9"
t_expect blocked_item_no_attempt 3 "item O4 has no attempt yet" \
    skdcci round report --ledger "$L" --item O4 -o "$R/O4"
cp "$S/gates/O5-a1-trial.json" "$W/saved.json"
sed -i 's/"recommended"/"recommended" /' "$S/gates/O5-a1-trial.json"
t_expect tampered_summary 1 "gates/O5-a1-trial.json" \
    skdcci round report --ledger "$L" --item O5 -o "$R/O5"
[ ! -e "$R/O5" ] && t_pass tampered_nothing_written || t_fail tampered_nothing_written
cp "$W/saved.json" "$S/gates/O5-a1-trial.json"
expect_out o5_rejected_written 0 skdcci round report --ledger "$L" --item O5 -o "$R/O5"
t_ok o5_rejected_document python3 - "$R/O5/O5-a1/round-report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["outcome"] == "rejected" and d["gate"]["accepted"] is False
assert d["incumbent"] == {**d["incumbent"], "before": "O2", "after": "O2", "rollback_to": "O2"}
assert not all(c["passed"] for c in d["gate"]["checks"])
PY
t_expect missing_ledger 1 "ledger" skdcci round report --ledger "$S/nope.jsonl" --item O5 -o "$R/O5"
skdcci round report --ledger "$L" --item O5 >/dev/null 2>"$W/err"
[ $? -eq 2 ] && t_pass usage_no_out || t_fail usage_no_out "$(cat "$W/err")"
