#!/usr/bin/env bash
# sk-test: serial (real processes through artifact_contract run)
# `skdcci family report` in its folder form (--o0/--disable-all/--repair
# CLEAN roots, no --ledger) is still a supported command (docs/stage-o.md §9),
# but the runbook test (family_workflow.sh) now drives the family through the
# ledger.  Most folder-form decisions are CLI cases (tests/cases/skdcci/family_*)
# or in clean_run_evidence.sh; this script covers those no other test reaches,
# on roots of real clean runs: each launched by the clean launcher double
# (tests/data/ledger/launch.sh) under `artifact_contract run --purpose clean
# --config`, the probe double (tests/data/workflow/check_environment.py) run
# after a CANN set-up script, the analysis and its list L those of the family
# cases (tests/data/family).
#   - the probe in the inference environment: probe check accepted, the family
#     accepted (the control of the blocked cases below);
#   - no probe report: blocked probe_missing;
#   - the probe run after a set-up script that loads nothing: its report says
#     not_run, probe check unknown (3), the family blocked probe_unknown;
#   - one repair run launched with ASCEND_PROF_SK_ON=1024: trial exit 10 naming
#     the run and the variable, the family blocked repair_not_clean;
#   - a repair run whose correctness check fails: the run exits 1, the family
#     rejected functional_failure from its record, O0 restored.
source "$SK_REPO/tests/lib.sh"
E=$PWD
source "$SK_REPO/tests/data/ledger/lib.sh"
OUT=$E/out
mkdir -p configs probe cann/lib64
cp -R "$SK_REPO/tests/data/family/analysis" .
L=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["regexes"]))' \
    analysis/dcci-regression-analysis.json)
echo '{"model_config": {"custom_params": {"super_kernel_optimize_options": {}, "super_kernel_debug_options": {}}}}' \
    >configs/o0.json
config disable-all o0 'dcci_disable_on_kernel=[".*"]'
config repair disable-all "dcci_before_kernel_start=$L" "dcci_after_kernel_end=$L"
# worst-rank means: O0 stable; disable-all slower than O0's slowest run; the
# repair beats O0 (its first three runs pass the gate when clean)
ms o0 "10.3 10.3 10.2 10.3 10.3"
ms disable-all "11.0 11.1 11.0"
ms repair "10.1 10.1 10.1 10.0 10.1"
unset ASCEND_HOME_PATH ASCEND_TOOLKIT_HOME ASCEND_AICPU_PATH ASCEND_OPP_PATH LD_LIBRARY_PATH \
    ASCEND_PROF_SK_ON LAUNCH_FAIL_RUN
if ! runs configs/o0.json clean/O0 1 5 || ! runs configs/disable-all.json clean/DA 1 3 ||
    ! runs configs/repair.json clean/REPAIR 1 5; then
    t_fail recorded_roots "launcher or artifact_contract run failed"
    exit 0
fi
# family NAME REPAIR_ROOT [OPTION...]: the folder form, written to family-NAME
family() {
    skdcci family report --o0 clean/O0 --disable-all clean/DA --repair "$2" --analysis analysis \
        --configs configs/o0.json configs/disable-all.json configs/repair.json \
        --warmup 0 --expected-ranks "$RANKS" -o "family-$1" "${@:3}"
}
# decided NAME FAMILY STATUS REASON: the JSON decision, O0 the incumbent
decided() {
    json_is "$1" "family-$2/dcci-family-report.json" \
        "d['decision']['status'] == '$3' and d['decision']['reason_code'] == '$4' and d['decision']['incumbent_after'] == 'O0'"
}
# probe SETUP REPORT: the probe of the analysis's values after SETUP is sourced
probe() {
    bash -c 'source "$1" && exec python3 "$2" --json --option-probes "$3"' probe \
        "$1" "$SK_REPO/tests/data/workflow/check_environment.py" analysis/option-values.json >"$2"
}
cat >cann/setenv.bash <<EOF
export ASCEND_HOME_PATH=$E/cann
export LD_LIBRARY_PATH=$E/cann/lib64\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
EOF
: >login-shell.bash # a login shell's set-up that loads nothing

# 1. the probe in the inference environment: accepted, tied to the analysis
expect probe_ready 0 probe cann/setenv.bash probe/environment.json
expect probe_check_accepted 0 skdcci probe check --report probe/environment.json \
    --values analysis/option-values.json --json-out probe/probe-check.json
expect family_accepted 0 family accepted clean/REPAIR --probe probe/environment.json \
    --probe-check probe/probe-check.json
has family_accepted_reason '^reason repair_beats_o0$'
json_is family_accepted_proven_and_tied family-accepted/dcci-family-report.json \
    "all(d['clean_evidence'][k]['state'] == 'proven' for k in ('o0', 'disable_all', 'repair')) and d['probe_check']['matches_analysis_values'] is True"

# 2. no probe report
expect no_probe_exit_3 3 family no-probe clean/REPAIR
has no_probe_reason '^reason probe_missing$'
decided no_probe_blocked no-probe blocked probe_missing

# 3. the probe run outside the inference environment is not evidence
expect login_probe_not_ready 1 probe login-shell.bash probe/environment-login.json
json_is login_probe_not_run probe/environment-login.json \
    "d['ready'] is False and d['option_probe_status'] == 'not_run'"
expect login_probe_check_unknown 3 skdcci probe check --report probe/environment-login.json \
    --values analysis/option-values.json --json-out probe/probe-check-login.json
json_is login_probe_check_not_run probe/probe-check-login.json \
    "d['report']['state'] == 'not_run' and d['verdict'] == 'unknown'"
expect login_family_exit_3 3 family login clean/REPAIR --probe probe/environment-login.json
decided login_family_blocked login blocked probe_unknown

# 4. one unclean repair run: the trial rejects it by name, the family is blocked
if ! clean_run configs/repair.json clean/REPAIR-unclean 1 ||
    ! ASCEND_PROF_SK_ON=1024 clean_run configs/repair.json clean/REPAIR-unclean 2 ||
    ! clean_run configs/repair.json clean/REPAIR-unclean 3; then
    t_fail unclean_runs "launcher or artifact_contract run failed"
fi
expect unclean_trial_exit_10 10 skdcci trial --baseline clean/O0 --baseline-config configs/o0.json \
    --candidate REPAIR=clean/REPAIR-unclean --config configs/repair.json --warmup 0 --expected-ranks "$RANKS"
has unclean_trial_names_run_and_variable '^clean-run-rejected REPAIR run-2 env_sk_prof: .*ASCEND_PROF_SK_ON=1024'
expect unclean_family_exit_3 3 family unclean clean/REPAIR-unclean --probe probe/environment.json
decided unclean_family_blocked unclean blocked repair_not_clean
json_is unclean_run_named family-unclean/dcci-family-report.json \
    "[e['run'] for e in d['clean_evidence']['repair']['run_evidence'] if e['state'] != 'proven'] == ['run-2']"

# 5. a repair run whose correctness check fails: a functional failure
clean_run configs/repair.json clean/REPAIR-fails 1 || t_fail failing_root_run_1
LAUNCH_FAIL_RUN=2 expect failed_run_exit_1 1 clean_run configs/repair.json clean/REPAIR-fails 2
expect failed_family_exit_10 10 family failed clean/REPAIR-fails --probe probe/environment.json
decided failed_family_rejected failed rejected functional_failure
json_is failed_family_from_the_record family-failed/dcci-family-report.json \
    "d['decision']['o0_restored'] is True and [r['code'] for r in d['clean_evidence']['repair']['run_evidence'][1]['reasons']] == ['run_failed', 'correctness_failed']"
