# Positive behaviour of what goes beyond the reference: the DCCI pair, sealed
# roots, validate, status, --json-errors, help texts and the argparse-like
# option handling.  (Rejections are data-driven cases under
# tests/cases/artifact_contract/.)
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/contract_lib.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }

pyassert() { python3 -c "import json,sys; s=json.load(open(sys.argv[1])); $2" "$1"; }

# ------------------------------------------------------------------ DCCI pair
ac_dcci_inputs "$S/in_o0" "$S/in_da"
t_ok dcci_begin_o0 ac_begin dcci_o0
ac_artifacts dcci_o0
fin_o0() { AC_INPUTS="$S/in_o0" ac_finalize dcci_o0 >"$S/m-o0.json"; }
t_ok dcci_finalize_o0 fin_o0
t_ok dcci_manifest_is_schema_1_1 pyassert "$S/m-o0.json" \
    's["schema_version"]=="1.1" and s["round_id"]=="S5-dcci_o0" and sorted(s["producer_evidence"])==["observed_pids","record_sha256","window_tolerance_ns"] and s["producer"]["native_pid"] in s["producer_evidence"]["observed_pids"] and s["control"]["ASCEND_PROF_SK_ON"]==1024 and sorted(s["files"])==sorted(["kernel_details","sk_prof","sk_graph_origin","sk_graph_updated","sk_fused_nodes","super_kernel"]) or sys.exit(1)'
# the optional DCCI file roles, including the two new ones, written by the
# producer as well
ac_begin dcci_disable_all && AC_PRODUCER_EXTRA='for f in sk_scope_split sk_fusion_fail_reasons sk_task_queue task_time trace_view; do
    echo "da:$f" >"$root/artifacts/$f.opt"; done' ac_artifacts dcci_disable_all
fin_da() {
    AC_INPUTS="$S/in_da" ac_finalize dcci_disable_all \
        --file sk_scope_split=artifacts/sk_scope_split.opt --file sk_fusion_fail_reasons=artifacts/sk_fusion_fail_reasons.opt \
        --file sk_task_queue=artifacts/sk_task_queue.opt --file task_time=artifacts/task_time.opt \
        --file trace_view=artifacts/trace_view.opt >/dev/null
}
t_ok dcci_finalize_disable_all_with_optional_roles fin_da
PAIR=(--manifest "dcci_disable_all=$(ac_manifest_of dcci_disable_all)" --manifest "dcci_o0=$(ac_manifest_of dcci_o0)")
t_ok dcci_validate_set artifact_contract validate-set "${PAIR[@]}"
artifact_contract validate-set "${PAIR[@]}" >"$S/sum.json"
t_ok dcci_summary_reports_pointer_rounds_and_configs pyassert "$S/sum.json" \
    's["schema_version"]=="1.1" and s["config_change"]=={"pointer":"/optimize_options/dcci_disable_on_kernel","dcci_disable_all_value":[".*"]} and s["roles"]["dcci_o0"]["round_id"]=="S5-dcci_o0" and s["roles"]["dcci_disable_all"]["round_id"]=="S5-dcci_disable_all" and s["roles"]["dcci_o0"]["config_fingerprint"]!=s["roles"]["dcci_disable_all"]["config_fingerprint"] and "config_fingerprint" not in s or sys.exit(1)'
t_ok dcci_summary_independent_of_order bash -c 'a=$("$SK_BUILD/bin/artifact_contract" validate-set --manifest "dcci_o0=$1" --manifest "dcci_disable_all=$2") && [ "$a" = "$(cat "$3")" ]' \
    _ "$(ac_manifest_of dcci_o0)" "$(ac_manifest_of dcci_disable_all)" "$S/sum.json"
t_ok dcci_validate_single pyassert <(artifact_contract validate --manifest "$(ac_manifest_of dcci_o0)") \
    'list(s["roles"])==["dcci_o0"] and s["roles"]["dcci_o0"]["config_fingerprint"] and s["schema_version"]=="1.1" or sys.exit(1)'

# a disable-all config that adds the whole options object O0 does not have
mkdir -p "$S/x" && ac_dcci_inputs "$S/x/in_o0" "$S/x/in_da"
printf '{"graph": "g"}\n' >"$S/x/in_o0/config.json"
printf '{"graph": "g", "optimize_options": {"dcci_disable_on_kernel": [".*"]}}\n' >"$S/x/in_da/config.json"
for r in dcci_o0 dcci_disable_all; do
    ac_begin $r "$S/x/$r/root" "$S/x/$r-session.json" && ac_artifacts $r "$S/x/$r/root"
done
AC_INPUTS="$S/x/in_o0" ac_finalize dcci_o0 --session "$S/x/dcci_o0-session.json" --out "$S/x/dcci_o0/root/m.json" >/dev/null
AC_INPUTS="$S/x/in_da" ac_finalize dcci_disable_all --session "$S/x/dcci_disable_all-session.json" --out "$S/x/dcci_disable_all/root/m.json" >/dev/null
t_ok dcci_added_options_object pyassert <(artifact_contract validate-set --manifest "dcci_o0=$S/x/dcci_o0/root/m.json" \
    --manifest "dcci_disable_all=$S/x/dcci_disable_all/root/m.json") \
    's["config_change"]["pointer"]=="/optimize_options/dcci_disable_on_kernel" or sys.exit(1)'

# ------------------------------------------------------------------ sealed roots
echo late >"$S/dcci_o0/root/late.txt"
t_expect dcci_root_sealed_by_default 2 "sealed capture root holds an unlisted entry: late.txt" \
    artifact_contract validate --manifest "$(ac_manifest_of dcci_o0)"
t_ok dcci_no_strict_root_allows_extra bash -c '"$SK_BUILD/bin/artifact_contract" validate --no-strict-root --manifest "$1" >/dev/null' _ "$(ac_manifest_of dcci_o0)"
rm "$S/dcci_o0/root/late.txt"
ac_inputs
ac_collect baseline_profile
t_ok strict_root_on_clean_1_0_root bash -c '"$SK_BUILD/bin/artifact_contract" validate --strict-root --manifest "$1" >/dev/null' _ "$(ac_manifest_of baseline_profile)"
mkdir -p "$S/baseline_profile/root/extra-dir"
t_ok non_strict_1_0_root_allows_extra bash -c '"$SK_BUILD/bin/artifact_contract" validate --manifest "$1" >/dev/null' _ "$(ac_manifest_of baseline_profile)"
t_expect strict_1_0_root_refuses_empty_dir 2 "sealed capture root holds an unlisted entry: extra-dir/" \
    artifact_contract validate --strict-root --manifest "$(ac_manifest_of baseline_profile)"
rmdir "$S/baseline_profile/root/extra-dir"
ac_begin candidate_compat && ac_artifacts candidate_compat
t_ok finalize_strict_root_1_0 ac_finalize candidate_compat --strict-root

# ------------------------------------------------------------------ status
status_is() { # ROOT STATE
    local out
    out=$(artifact_contract status "$1") && [[ $out == *"\"state\":\"$2\""* ]]
}
t_ok status_absent status_is "$S/nothing-here" absent
mkdir "$S/empty-root"
t_ok status_empty status_is "$S/empty-root" empty
ac_begin candidate_verify
t_ok status_begun status_is "$S/candidate_verify/root" begun
ac_artifacts candidate_verify
t_ok status_begun_with_outputs bash -c 'out=$("$SK_BUILD/bin/artifact_contract" status "$1") && [[ $out == *"\"entries\":1"* ]]' _ "$S/candidate_verify/root"
ac_finalize candidate_verify >/dev/null
t_ok status_finalized status_is "$S/candidate_verify/root" finalized
t_ok status_finalized_dcci status_is "$S/dcci_o0/root" finalized
t_ok status_reports_manifest_fingerprint bash -c '
    want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"manifest_fingerprint\"])" "$2")
    "$SK_BUILD/bin/artifact_contract" status "$1" | grep -q "\"manifest_fingerprint\":\"$want\""' _ "$S/candidate_verify/root" "$(ac_manifest_of candidate_verify)"

# ------------------------------------------------------------------ CLI conventions
t_ok help_lists_commands bash -c '"$SK_BUILD/bin/artifact_contract" --help | grep -q "validate-set"'
for c in begin finalize validate-set validate status; do
    t_ok "help_$c" bash -c '"$SK_BUILD/bin/artifact_contract" "$1" --help | grep -q "^Usage: artifact_contract $1"' _ $c
done
t_ok json_errors_is_one_canonical_object bash -c '
    err=$("$SK_BUILD/bin/artifact_contract" validate --json-errors --manifest "$1/none.json" 2>&1 >/dev/null)
    [ $? -eq 2 ] && python3 -c "import json,sys; e=json.loads(sys.argv[1]); assert e[\"code\"]==\"E_INPUT_MISSING\" and e[\"error\"]==\"SK_E_PATH\" and e[\"command\"]==\"validate\" and \"does not exist\" in e[\"message\"], e" "$err"' _ "$S"
# abbreviations, --opt=value, last occurrence wins
t_ok option_abbreviations_and_equals bash -c '
    "$SK_BUILD/bin/artifact_contract" begin --rol=baseline_profile --roo "$1/abbr" --sess "$1/abbr.json" >/dev/null' _ "$S"
t_ok json_prefix_means_json_out bash -c '
    "$SK_BUILD/bin/artifact_contract" validate --manifest "$1" --json "$2/j1.json" && [ -s "$2/j1.json" ] &&
    "$SK_BUILD/bin/artifact_contract" validate --manifest "$1" --json="$2/j2.json" && cmp -s "$2/j1.json" "$2/j2.json"' \
    _ "$(ac_manifest_of baseline_profile)" "$S"
ac_begin candidate_profile && ac_artifacts candidate_profile
last_wins() {
    ac_finalize candidate_profile --source-revision first --source-revision revision-a >"$S/cp.json" &&
        grep -q '"source_revision":"revision-a"' "$S/cp.json"
}
t_ok last_occurrence_wins last_wins
t_expect ambiguous_abbreviation 2 "unknown or ambiguous option '--ro'" \
    first_line artifact_contract begin --ro x --root y --session-out z
for bad in " 5" "+5" "1_000" "5.0" "0x10" "99999999999999999999"; do
    t_expect "strict_integer_${bad// /sp}" 2 "argument --native-pid: invalid int value" \
        first_line artifact_contract finalize --session s --source-revision r --native-pid "$bad" --started-ns 1 \
        --ended-ns 2 --command-fingerprint x --workload w --config c --control k --file a=b --out o
done
