# The failed-check lines of every rejecting or blocking command
# (docs/stage-o.md §12): one line per failed check or reason,
# "failed <check> measured <value> threshold <rule>", right before the
# command's summary line, on the stream of that line; the matrix keeps its
# "violation" lines.  Small generated roots, a few seconds.
source "$SK_REPO/tests/lib.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }
TOOLS=$SK_BUILD/tests/tools
C=$SK_REPO/tests/cases/skdcci
FORMAT='^failed [^ ]+ measured [^ ]+ threshold .+$'

# lines_before NAME FILE SUMMARY_REGEX WANT...: the failed lines of FILE are
# well-formed, contiguous and directly followed by the summary line, and are
# exactly WANT (in order)
lines_before() {
    local name=$1 file=$2 summary=$3; shift 3
    local want got bad
    want=$(printf '%s\n' "$@")
    got=$(grep '^failed ' "$file")
    bad=$(grep '^failed ' "$file" | grep -Ev "$FORMAT")
    # the line after the last failed line, and the failed lines are one block
    local last first after
    first=$(grep -n '^failed ' "$file" | head -1 | cut -d: -f1)
    last=$(grep -n '^failed ' "$file" | tail -1 | cut -d: -f1)
    after=$(sed -n "$((last + 1))p" "$file")
    if [ "$got" != "$want" ]; then
        t_fail "$name" "want:" "$want" "got:" "$got"
    elif [ -n "$bad" ]; then
        t_fail "$name" "malformed: $bad"
    elif [ $((last - first + 1)) -ne "$#" ] || ! [[ $after =~ $summary ]]; then
        t_fail "$name" "not one block before the summary line: $(cat "$file")"
    else
        t_pass "$name"
    fi
}

# (the roots have no run records: these checks are about the failed lines, so the
# commands run with --allow-unproven, whose line comes first, before the block)
# --- trial: every kind of failed check
$TOOLS/so_mkclean O0 1 '10.0*9' '10.1*9' '10.2*9' '10.3*9'
$TOOLS/so_mkclean O1 1 '10.5*9' '10.5*9'
skdcci trial --baseline O0 --candidate O1=O1 --expected-ranks 1 --allow-unproven >trial.out 2>trial.err
rc=$?
[ "$rc" -eq 10 ] && t_pass trial_rejected || t_fail trial_rejected "rc=$rc"
lines_before trial trial.out '^option-trial-accepted False$' \
    "failed baseline_stable.required_run_count measured 4 threshold == 5" \
    "failed baseline_min_runs measured 4 threshold == 5" \
    "failed candidate_min_runs measured 2 threshold >= 3" \
    "failed mean_improvement measured -3.448275862068962 threshold > 0.0" \
    "failed median_run_direction measured -3.44827586206898 threshold > 0.0" \
    "failed p90_no_material_regression measured 2.239532619279459 threshold <= 0.0"
grep -qx 'retained-incumbent baseline' trial.out && grep -qx 'candidate-status O1 rejected: the baseline stays the incumbent' trial.out \
    && t_pass trial_candidate_status_rejected || t_fail trial_candidate_status_rejected "$(cat trial.out)"

# --- trial accepted after three runs: recommended for a top-up, not yet the incumbent
$TOOLS/so_mkclean B5 1 '10.0*9' '10.1*9' '10.2*9' '10.3*9' '10.4*9'
$TOOLS/so_mkclean T3 1 '10.1*9' '10.1*9' '10.1*9'
$TOOLS/so_mkclean T5 1 '10.1*9' '10.1*9' '10.1*9' '10.1*9' '10.1*9'
skdcci trial --baseline B5 --candidate T3=T3 --expected-ranks 1 --allow-unproven >t3.out 2>&1
skdcci trial --baseline B5 --candidate T5=T5 --expected-ranks 1 --allow-unproven >t5.out 2>&1
! grep -q '^failed ' t3.out && grep -qx 'retained-incumbent T3' t3.out \
    && grep -qx "candidate-status T3 recommended-for-top-up: not yet the incumbent; top it up to exactly 5 clean runs (3 now) and check them with 'skdcci stability'" t3.out \
    && t_pass trial_three_runs_recommended_for_top_up || t_fail trial_three_runs_recommended_for_top_up "$(cat t3.out)"
grep -qx 'candidate-status T5 incumbent: accepted with a stable 5-run top-up' t5.out \
    && t_pass trial_stable_top_up_incumbent || t_fail trial_stable_top_up_incumbent "$(cat t5.out)"

# --- stability: run count and spread, named by the root
$TOOLS/so_mkclean WIDE 1 '10.0*9' '10.0*9' '10.0*9' '10.0*9' '10.6*9' '10.0*9'
skdcci stability WIDE --expected-ranks 1 --allow-unproven >stab.out 2>&1
lines_before stability stab.out '^stable False$' \
    "failed required_run_count measured 6 threshold == 5" \
    "failed max_spread_pct measured 5.9405940594059405 threshold <= 5.0"
grep -q '^clean-evidence WIDE unproven runs 6 ' stab.out && ! grep -q baseline stab.out \
    && t_pass stability_root_named || t_fail stability_root_named "$(cat stab.out)"

# --- probe check: a rejected value, a value not probed (its space escaped)
cp "$C/probe_type_aware_rejects_true/in/environment.json" .
printf '{"optimize_options": {"auto_op_parallel": [1, true, "a b"]}}\n' >values.json
skdcci probe check --report environment.json --values values.json >probe.out 2>&1
lines_before probe probe.out '^verdict rejected$' \
    'failed optimize_options.auto_op_parallel=true measured rejected threshold accepted; wrapper error: auto_op_parallel must be an int' \
    'failed optimize_options.auto_op_parallel="a\x20b" measured not_probed threshold accepted'

# --- family report: a rejection (the decisive gate) and a blocked decision
cp -a "$SK_REPO/tests/data/family/." fam && (cd fam && MKCLEAN_UNPROVEN=1 source ./mkclean.sh)
(cd fam && skdcci family report --warmup 0 --expected-ranks 2 --o0 O0 --disable-all DA_REGRESSED \
    --repair RP_BEATS_DA_ONLY --allow-unproven -o ../out1 >../fam1.out 2>../fam1.err)
lines_before family_rejected fam1.out '^status rejected$' \
    "failed repair_vs_o0.mean_improvement measured -2.91828793774318 threshold > 0.0" \
    "failed repair_vs_o0.median_run_direction measured -2.9126213592232904 threshold > 0.0" \
    "failed repair_vs_o0.p90_no_material_regression measured 2.9126213592232904 threshold <= 0.0"
(cd fam && skdcci family report --warmup 0 --expected-ranks 2 --o0 RP_THREE --disable-all DA_GAIN \
    --allow-unproven -o ../out2 >../fam2.out 2>/dev/null)
lines_before family_blocked fam2.out '^status blocked$' \
    "failed o0_unstable.required_run_count measured 3 threshold == 5"

# --- config-diff: on stderr, before the verdict line (stdout stays the document)
cp "$SK_REPO"/tests/data/family/*.yaml .
skdcci config-diff o0.yaml da.yaml --expect-pointer /model_config/tp >cd.out 2>cd.err
lines_before config_diff cd.err '^skdcci config-diff: rejected: ' \
    "failed /model_config/tp measured unchanged threshold changed (--expect-pointer)" \
    "failed /model_config/custom_params/super_kernel_optimize_options/dcci_disable_on_kernel measured added threshold unchanged (not an --expect-pointer)"
python3 -c 'import json,sys; json.load(open("cd.out"))' && t_pass config_diff_stdout_is_json \
    || t_fail config_diff_stdout_is_json "$(head -c 300 cd.out)"

# --- matrix: its violation lines name the measured values
cp -a "$C/matrix_violation_unstable_top_up/in/." mx
skdcci matrix validate mx/matrix.json >mx.out 2>&1
grep -q '^violation top_up_unstable items\[1\] (O2): .*(top_up.run_count is 5, top_up.stable false)' mx.out \
    && [ "$(tail -1 mx.out)" = "invalid: 1 violation" ] && t_pass matrix_violation_measured \
    || t_fail matrix_violation_measured "$(cat mx.out)"
