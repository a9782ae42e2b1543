#!/usr/bin/env bash
# The DCCI family end to end, driven by docs/workflow.md itself: every command
# block marked `<!-- step: NAME -->` there is extracted and run (after the
# `functions` block) with the variables of its section 0.1 set, so the
# document cannot drift from the tools.  The runtime around the toolkit is
# replaced by test doubles (tests/data/workflow/): the clean launcher writes
# rank logs, the diagnostic launcher copies a skdcci_gen pair into the capture
# root while `artifact_contract run` supervises it, the CANN set-up script sets
# the two variables the probe looks at, and the probe prints a report in the
# probe script's format.
#
# Each documented step is one function (step_<name>) that runs the block and
# checks its exit code and outputs; the scenarios below call them in the
# document's order.  Checks that later features add (run records per clean
# run, failure scenes, the probe hand-off printed by analyze) belong in these
# functions.
source "$SK_REPO/tests/lib.sh"
W=$PWD
DOC=$SK_REPO/docs/workflow.md
DATA=$SK_REPO/tests/data/workflow
mkdir -p "$W/bin" "$W/cann/lib64"
ln -s "$SK_BUILD/bin/skdcci" "$SK_BUILD/bin/artifact_contract" "$W/bin/"
export PATH="$W/bin:$PATH"

# ---------------------------------------------------------------- the runtime
# The generated pair the diagnostic launcher "produces" (outside every root).
if ! "$TOOLS/skdcci_gen" --out "$W/raw" --scenario regression >/dev/null 2>"$W/gen.err"; then
    t_fail generate_pair "$(cat "$W/gen.err")"
    exit 0
fi
L_EXPECTED=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["expected"]["regexes"]))' "$W/raw/ground-truth.json")
cat >"$W/cann/setenv.bash" <<EOF
export ASCEND_HOME_PATH=$W/cann
export LD_LIBRARY_PATH=$W/cann/lib64\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
EOF
: >"$W/login-shell.bash" # a "set-up script" that loads nothing
unset ASCEND_HOME_PATH ASCEND_TOOLKIT_HOME ASCEND_AICPU_PATH ASCEND_OPP_PATH LD_LIBRARY_PATH

export LAUNCH="$DATA/launch_clean.sh" LAUNCH_PROFILE="$DATA/launch_profile.sh"
export PROBE="$DATA/check_environment.py" CANN_SETENV="$W/cann/setenv.bash"
export REV="skdcci_gen-regression-seed1" WARMUP=0 RANKS=2
export DCCI_PTR=/model_config/custom_params/super_kernel_optimize_options
export WF_RAW="$W/raw"
# Worst-rank means per run (as tests/data/family/mkclean.sh): O0 stable with a
# 0.97 % spread; a regressed disable-all above O0's slowest run; a winning
# repair below O0 with no more spread in its first three runs (the gate
# refuses any stddev regression) nor after the top-up.
O0_MS="10.3 10.3 10.2 10.3 10.3"
export WF_O0_MS=$O0_MS

# new_family NAME: a fresh experiment directory with the user's inputs (0.2)
new_family() {
    export EXP="$W/$1" CAP="$W/$1/capture-1"
    mkdir -p "$EXP/configs" "$EXP/inputs"
    cp "$W/raw/inputs/o0/config.json" "$EXP/configs/o0.json"
    cp "$W/raw/inputs/disable_all/config.json" "$EXP/configs/disable-all.json"
    cp "$W/raw/inputs/o0/workload.json" "$W/raw/inputs/o0/control.json" "$EXP/inputs/"
}

# ------------------------------------------------------------ the document
# block NAME: the command block after `<!-- step: NAME -->` (exactly one)
block() {
    awk -v want="<!-- step: $1 -->" '
        $0 == want { found++; armed = 1; next }
        armed && /^```sh$/ { inside = 1; armed = 0; next }
        inside && /^```$/ { inside = 0; next }
        inside { print }
        END { exit found == 1 ? 0 : 1 }' "$DOC"
}
# run NAME [SED]: run the block as docs/workflow.md 0.4 says (bash -e, the
# functions block first) with an optional sed script applied to the step's
# block (paths renamed for a variant); stdout+stderr in $W/NAME.out, exit code
# in RC
run() {
    local text fns
    RC=0
    if ! fns=$(block functions) || ! text=$(block "$1"); then
        RC=127
        echo "docs/workflow.md has no single block '$1'" >"$W/$1.out"
        return
    fi
    [ -n "${2:-}" ] && text=$(sed "$2" <<<"$text")
    OUT=$W/$1.out
    bash -e -c "$fns"$'\n'"$text" >"$OUT" 2>&1 || RC=$?
}
# expect NAME WANT_RC: one TAP line for the last run
expect() {
    if [ "$RC" = "$2" ]; then t_pass "$1"; else t_fail "$1" "exit $RC, want $2" "$(head -c 3000 "$OUT")"; fi
}
# json_is NAME FILE PYEXPR: PYEXPR (on the document d) must be true
json_is() {
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$2" "$3" 2>"$W/json.err"; then
        t_pass "$1"
    else
        t_fail "$1" "$2: not $3" "$(head -c 2000 "$W/json.err")"
    fi
}
family_is() { # NAME DIR STATUS REASON INCUMBENT
    json_is "$1" "$2/dcci-family-report.json" \
        "d['decision']['status'] == '$3' and d['decision']['reason_code'] == '$4' and d['decision']['incumbent_after'] == '$5'"
}

# ------------------------------------------------------------ the steps
step_d1_config() { run d1-config; expect "$1:d1_config_one_pointer" 0; }
step_o0_runs() {
    run o0-runs; expect "$1:o0_five_runs_stable" 0
    json_is "$1:o0_stability_json" "$EXP/gates/o0-stability.json" "d['baseline_stability']['stable'] is True"
}
step_d1_trial() { # SCENARIO WANT_RC
    run d1-trial; expect "$1:d1_trial_exit_$2" "$2"
}
step_d1_decision() { # SCENARIO OUTCOME STATUS REASON
    run d1-decision; expect "$1:d1_decision_block" 0
    if grep -qx "\"disable_all_outcome\":\"$2\"" "$OUT"; then t_pass "$1:d1_outcome_$2"
    else t_fail "$1:d1_outcome_$2" "$(head -c 2000 "$OUT")"; fi
    family_is "$1:d1_family_$3_$4" "$EXP/family-d1" "$3" "$4" O0
}
step_d2_capture() { # SCENARIO WANT_RC
    run d2-capture; expect "$1:d2_capture_exit_$2" "$2"
}
step_d3_analyze() { # SCENARIO
    run d3-analyze; expect "$1:d3_analyze" 0
    json_is "$1:d3_repair_candidate_with_planted_list" "$EXP/analysis/dcci-regression-analysis.json" \
        "d['status'] == 'repair_candidate' and d['regexes'] == $L_EXPECTED"
}
step_d4_probe() { run d4-probe "${2:-}"; expect "$1:d4_probe_block" 0; }
step_d4_probe_check() { # SCENARIO WANT_RC [SED]
    run d4-probe-check "${3:-}"; expect "$1:d4_probe_check_exit_$2" "$2"
}
step_d4_repair_config() {
    run d4-repair-config; expect "$1:d4_repair_config_written" 0
    json_is "$1:d4_repair_config_lists" "$EXP/configs/repair.json" \
        "d['model_config']['custom_params']['super_kernel_optimize_options']['dcci_before_kernel_start'] == $L_EXPECTED"
}
step_d4_config_proof() {
    run d4-config-proof; expect "$1:d4_config_proven" 0
    json_is "$1:d4_proof_json" "$EXP/gates/repair-config-proof.json" "d['proven'] is True"
}
step_d4_trial() { # SCENARIO WANT_RC
    run d4-trial; expect "$1:d4_trial_exit_$2" "$2"
}
step_d4_top_up() { # SCENARIO WANT_RC
    run d4-top-up; expect "$1:d4_top_up_exit_$2" "$2"
}
step_family_report() { # SCENARIO WANT_RC STATUS REASON INCUMBENT [SED]
    run family-report "${6:-}"; expect "$1:family_report_exit_$2" "$2"
    local dir
    dir=$(sed -n 's/^report \(.*\)\/DCCI_FAMILY_REPORT.md$/\1/p' "$OUT")
    family_is "$1:family_$3_$4" "${dir:-$EXP/family}" "$3" "$4" "$5"
}

# write_matrix: what docs/workflow.md step 14 asks the user to record, from
# the family's own outputs: a settled matrix whose DCCI item carries D1-D4
# (the other three categories skipped; paths relative to the matrix)
write_matrix() {
    export MATRIX="$W/matrix-${EXP##*/}.json"
    python3 - "$EXP" "$MATRIX" <<'PY'
import hashlib, json, os, sys
exp, out = sys.argv[1], sys.argv[2]
base = os.path.dirname(out)
rel = lambda p: os.path.relpath(p, base)
load = lambda p: json.load(open(os.path.join(exp, p)))
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
ptr = os.environ["DCCI_PTR"] + "/"
fam = load("family/dcci-family-report.json")
an = load("analysis/dcci-regression-analysis.json")
L = an["regexes"]
accepted = fam["decision"]["status"] == "accepted"
cap = os.environ["CAP"]
d1_trial = load("gates/d1-trial.json")["candidates"]["DA"]
d4_trial = load("gates/d4-trial.json")["candidates"]["REPAIR"]
probe = os.path.join(exp, "probe/environment.json")
proof = load("gates/repair-config-proof.json")["diffs"]
d4 = {
    "repair_list": L,
    "settings": {"dcci_disable_on_kernel": [".*"], "dcci_before_kernel_start": L,
                 "dcci_after_kernel_end": L},
    "pointers": {k: ptr + k for k in ("dcci_disable_on_kernel", "dcci_before_kernel_start",
                                      "dcci_after_kernel_end")},
    "probe": {k: {"accepted": True, "matched_value": L}
              for k in ("dcci_before_kernel_start", "dcci_after_kernel_end")},
    "outcome": "accepted" if accepted else "rejected",
    "trial": {"clean_root": rel(exp + "/clean/REPAIR"), "run_count": 3,
              "changed_pointers": [c["pointer"] for c in proof["repair_vs_o0"]],
              "changed_pointers_vs_disable_all": [c["pointer"] for c in proof["repair_vs_disable_all"]],
              "summary_json": rel(exp + "/gates/d4-trial.json"),
              "gate_accepted": d4_trial["option_trial_evaluation"]["accepted"]},
}
if accepted:
    st = load("gates/d4-stability.json")["baseline_stability"]
    d4["top_up"] = {"clean_root": rel(exp + "/clean/REPAIR"), "run_count": 5, "stable": st["stable"]}
dcci = {
    "id": "O1", "category": "dcci", "risk": "medium",
    "status": "accepted" if accepted else "rejected", "phase": "D4", "compare_to": "O0",
    "incumbent_after": "O1" if accepted else "O0",
    "d1": {"option": "dcci_disable_on_kernel", "value": [".*"], "pointer": ptr + "dcci_disable_on_kernel",
           "original_value": {"present": False},
           "probe": {"accepted": True, "matched_value": [".*"]},
           "outcome": fam["decision"]["disable_all_outcome"],
           "trial": {"clean_root": rel(exp + "/clean/DA"), "run_count": 3,
                     "changed_pointers": load("gates/d1-config-diff.json")["changed_pointers"],
                     "summary_json": rel(exp + "/gates/d1-trial.json"),
                     "gate_accepted": d1_trial["option_trial_evaluation"]["accepted"]}},
    "d2": {"status": "complete", "o0_profile_root": rel(cap + "/o0"),
           "disable_all_profile_root": rel(cap + "/disable-all"),
           "o0_manifest": {"path": rel(cap + "/o0/collection-manifest.json"),
                           "sha256": sha(cap + "/o0/collection-manifest.json")},
           "disable_all_manifest": {"path": rel(cap + "/disable-all/collection-manifest.json"),
                                    "sha256": sha(cap + "/disable-all/collection-manifest.json")},
           "validate_set": "passed", "child_trace_complete": True},
    "d3": {"status": "complete", "analysis": rel(exp + "/analysis"),
           "regressed_sks": sum(1 for s in an["sks"] if s["class"] == "significantly_slower"),
           "union_tokens": [t["token"] for t in an["token_union"]]},
    "d4": d4,
}
def skipped(i, cat, opt, value, code):
    return {"id": i, "category": cat, "risk": "low", "status": "skipped", "option": opt,
            "value": value, "pointer": ptr + opt, "original_value": {"present": False},
            "probe": {"accepted": True, "matched_value": value}, "blocker_code": code,
            "reason_zh": "本轮预算已用完，用户未要求继续。", "evidence": "intake/budget.md",
            "incumbent_after": "O1" if accepted else "O0"}
items = [dcci,
         skipped("O2", "auto_op_parallel", "auto_op_parallel", 1, "budget_exhausted"),
         skipped("O3", "aggressive", "aggressive_opt_strategies",
                 {"task_breaker_bypass": 1, "value_breaker_bypass": 0}, "budget_exhausted"),
         skipped("O4", "other_experimental", "early_start", 1, "budget_exhausted")]
plan = {"schema_version": "superkernel-winner-option-matrix-v1", "seed_id": "Sbest-SEED", "o0_id": "O0",
        "items": [{k: (it["d1"] if it["category"] == "dcci" and k in ("option", "value", "pointer", "original_value") else it)[k]
                   for k in ("id", "category", "risk", "option", "value", "pointer", "original_value")}
                  for it in items]}
o0 = load("gates/o0-stability.json")["baseline_stability"]
m = {"schema_version": "superkernel-winner-option-matrix-v1", "frozen_before_execution": True,
     "plan_fingerprint": hashlib.sha256(json.dumps(plan, sort_keys=True, separators=(",", ":"),
                                                   ensure_ascii=True).encode()).hexdigest(),
     "seed_id": "Sbest-SEED",
     "o0": {"id": "O0", "clean_root": rel(exp + "/clean/O0"), "run_count": 5, "stable": o0["stable"],
            "spread_pct": o0["spread_pct"]},
     "probe_report": {"path": rel(probe), "sha256": sha(probe)},
     "settled": True, "items": items,
     "final_incumbent": {"id": "O1" if accepted else "O0",
                         "config_path": rel(exp + "/configs/" + ("repair.json" if accepted else "o0.json")),
                         "config_sha256": sha(exp + "/configs/" + ("repair.json" if accepted else "o0.json"))},
     "sbest_base_id": "Sbest-BASE"}
json.dump(m, open(out, "w"), indent=2, ensure_ascii=False)
PY
}
step_matrix() { # SCENARIO INCUMBENT
    if ! write_matrix 2>"$W/matrix.err"; then t_fail "$1:matrix_written" "$(cat "$W/matrix.err")"; return; fi
    run matrix; expect "$1:matrix_valid_and_settled" 0
    if grep -qx "incumbent $2" "$OUT"; then t_pass "$1:matrix_incumbent_$2"
    else t_fail "$1:matrix_incumbent_$2" "$(head -c 2000 "$OUT")"; fi
}

# ------------------------------------------------------------ scenarios
# through_repair_config S: the documented steps from the D1 config proof to
# the proven repair config, for a family whose disable-all regresses
through_repair_config() {
    step_d1_config $1
    step_o0_runs $1
    step_d1_trial $1 10
    step_d1_decision $1 regression blocked analysis_missing
    step_d2_capture $1 0
    step_d3_analyze $1
    step_d4_probe $1
    step_d4_probe_check $1 0
    step_d4_repair_config $1
    step_d4_config_proof $1
}

# 1. disable-all regresses, the joint repair beats O0: accepted, incumbent repair
S=repair_accepted
new_family $S
export WF_DA_MS="11.0 11.1 11.0" WF_REPAIR_MS="10.1 10.1 10.1 10.0 10.1"
through_repair_config $S
step_d4_trial $S 0
step_d4_top_up $S 0
step_family_report $S 0 accepted repair_beats_o0 repair
json_is "$S:every_clean_run_proven" "$EXP/family/dcci-family-report.json" \
    "all(d['clean_evidence'][k]['state'] == 'proven' for k in ('o0', 'disable_all', 'repair')) and not d['decision']['notes']"
json_is "$S:family_settings_are_L" "$EXP/family/dcci-family-report.json" \
    "d['dcci_settings']['dcci_before_kernel_start'] == d['dcci_settings']['dcci_after_kernel_end'] == $L_EXPECTED"
t_ok "$S:chinese_family_report" test -s "$EXP/family/DCCI_FAMILY_REPORT.md"
step_matrix $S O1

# 1a. the same family without a probe report: blocked (probe_missing)
step_family_report ${S}_no_probe 3 blocked probe_missing O0 \
    '/--probe /d; s|-o "$EXP/family"|-o "$EXP/family-no-probe"|'
# 1b. the probe run outside the inference environment: not evidence, probe
#     check unknown (3), the family blocked (probe_unknown)
CANN_SETENV="$W/login-shell.bash" step_d4_probe ${S}_login_shell 's|environment.json|environment-login.json|'
step_d4_probe_check ${S}_login_shell 3 's|environment.json|environment-login.json|; s|probe-check.json|probe-check-login.json|'
json_is "${S}_login_shell:probe_not_run_is_unknown" "$EXP/probe/probe-check-login.json" \
    "d['report']['state'] == 'not_run' and d['verdict'] == 'unknown'"
step_family_report ${S}_login_shell 3 blocked probe_unknown O0 \
    's|environment.json|environment-login.json|; s|-o "$EXP/family"|-o "$EXP/family-login"|'

# 1c. the probe check ties the probe to the analysis's own option-values.json
json_is "$S:probe_check_tied_to_analysis" "$EXP/family/dcci-family-report.json" \
    "d['probe_check']['matches_analysis_values'] is True and d['probe_check']['verdict'] == 'accepted'"
# 1d. a failed repair attempt named without its scene: blocked (failure_scene_missing)
step_family_report ${S}_failed_no_scene 3 blocked failure_scene_missing O0 \
    's|-o "$EXP/family"|--failed-attempt DCCI-repair/stage_o_option_tuning/REPAIR-a1 -o "$EXP/family-no-scene"|'
# 1e. the attempt's scene written and checked (§B1): a correctness failure after
#     launch rejects the family, O0 restored; the same report without the scene
#     file is blocked
mkdir -p "$EXP/scenes"
cp -r "$SK_REPO/tests/data/scenes/logs" "$EXP/scenes/" # the artifacts the scene lists
python3 - "$SK_REPO/tests/data/scenes/o3-correctness.json" "$EXP/scenes/REPAIR-a1.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["identity"].update(trial="DCCI-repair", attempt="REPAIR-a1", phase="stage_o_option_tuning")
json.dump(s, open(sys.argv[2], "w"), indent=2)
PY
run scene-check; expect "$S:scene_check_valid" 0
t_ok "$S:scene_is_post_launch" grep -qx "classification post_launch_failure" "$OUT"
run failed-family-report; expect "$S:failed_family_report_exit_10" 10
family_is "$S:family_rejected_functional_failure" "$EXP/family-failed" rejected functional_failure O0
run failed-family-report 's|REPAIR-a1.json|REPAIR-a2.json|; s|family-failed|family-failed-2|'
expect "$S:missing_scene_file_exit_3" 3
family_is "$S:family_blocked_scene_file_missing" "$EXP/family-failed-2" blocked failure_scene_missing O0

# 2. the repair does not beat O0 (it beats disable-all only): rejected, O0 restored
S=repair_rejected
new_family $S
export WF_DA_MS="11.0 11.1 11.0" WF_REPAIR_MS="10.6 10.6 10.5"
through_repair_config $S
step_d4_trial $S 10
step_family_report $S 10 rejected repair_does_not_beat_o0 O0
json_is "$S:o0_restored" "$EXP/family/dcci-family-report.json" "d['decision']['o0_restored'] is True"
step_matrix $S O0

# 3. disable-all gains: judged on its own trial, no diagnostics
S=disable_all_gain
new_family $S
export WF_DA_MS="10.1 10.1 10.1 10.0 10.1"
step_d1_config $S
step_o0_runs $S
step_d1_trial $S 0
run gain-top-up; expect "$S:gain_top_up_and_probe" 0
run gain-family-report; expect "$S:gain_family_report_exit_0" 0
family_is "$S:family_accepted_disable_all_gain" "$EXP/family" accepted disable_all_gain disable_all
t_ok "$S:no_diagnostic_capture" test ! -e "$CAP"

# 4. disable-all neutral (inside O0's noise): rejected, before/after never run
S=disable_all_neutral
new_family $S
export WF_DA_MS="10.3 10.2 10.3"
step_o0_runs $S
step_d1_trial $S 10
step_d1_decision $S neutral rejected disable_all_neutral

# 5. a functional failure of the disable-all trial stops the family before any gate
S=disable_all_fails
new_family $S
export WF_FAIL_CONFIG="$EXP/configs/disable-all.json"
step_o0_runs $S
step_d1_trial $S 1
t_ok "$S:no_trial_result" test ! -e "$EXP/gates/d1-trial.json"
unset WF_FAIL_CONFIG
# the failed run's record and correctness result reject the family (no logs needed)
step_d1_decision $S not_evaluated rejected functional_failure

# 6. collection blocked (files copied with their old times, as after the run):
#    finalize refuses; re-collected from a new empty root the family goes on
S=collection_blocked
new_family $S
export WF_DA_MS="11.0 11.1 11.0"
step_o0_runs $S
step_d1_trial $S 10
WF_PROFILE_MODE=stale step_d2_capture $S 2
t_ok "$S:blocked_root_kept_unsealed" test ! -e "$CAP/o0/collection-manifest.json"
export CAP="$EXP/capture-2"
step_d2_capture ${S}_recollected 0
step_d3_analyze ${S}_recollected

# 7. one unclean repair run (launched with ASCEND_PROF_SK_ON set): trial
#    rejects it (clean-run-rejected), the family is blocked (repair_not_clean)
S=repair_unclean_run
new_family $S
export WF_DA_MS="11.0 11.1 11.0" WF_REPAIR_MS="10.1 10.1 10.1"
through_repair_config $S
run d4-trial 's/do clean_run/do ASCEND_PROF_SK_ON=$([ "$n" = 2 ] \&\& echo 1024) clean_run/'
expect "$S:d4_trial_exit_10" 10
if grep -q '^clean-run-rejected REPAIR run-2 env_sk_prof: ASCEND_PROF_SK_ON=1024' "$OUT"; then
    t_pass "$S:reason_names_run_and_variable"
else
    t_fail "$S:reason_names_run_and_variable" "$(head -c 2000 "$OUT")"
fi
step_family_report $S 3 blocked repair_not_clean O0

# 8. one failed correctness in the repair trial: a functional failure rejects
#    the family (functional_failure), O0 restored
S=repair_correctness_fails
new_family $S
export WF_DA_MS="11.0 11.1 11.0" WF_REPAIR_MS="10.1 10.1 10.1"
through_repair_config $S
WF_FAIL_RUN=2 step_d4_trial $S 1
step_family_report $S 10 rejected functional_failure O0
json_is "$S:failure_from_the_record" "$EXP/family/dcci-family-report.json" \
    "[r['code'] for r in d['clean_evidence']['repair']['run_evidence'][1]['reasons']] == ['run_failed', 'correctness_failed']"
