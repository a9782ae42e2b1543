# Determinism: every command that writes output runs twice on the same inputs
# (same absolute paths, fake clock) and its stdout, stderr, exit status and
# every file it created must be byte-identical; a third run under a
# comma-decimal locale and a non-UTC time zone must give the same bytes again.
#
# One table row per scenario:  NAME | PREPARE | COMMAND | NORMALISE
#   PREPARE    shell text run once in the scenario directory (inputs)
#   COMMAND    shell text run in that directory for each run; whatever it
#              creates is collected and removed before the next run
#   NORMALISE  optional function applied to the collected outputs, for the
#              fields that legitimately differ between runs (and only those)
# To add a command (e.g. analyze, config-diff, family report), add a row.
#
# Locale: SK_DET_LOCALE names one; otherwise an installed comma-decimal locale
# is used, or one is compiled with localedef into a private LOCPATH.  When none
# can be had the locale run is a visible TAP skip, and a failure under
# SK_REQUIRE_LOCALE=1 (set by .ci/run, which installs and generates it).
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/contract_lib.sh"   # ac_* helpers; S is set per scenario
BASE=$PWD/det
CASES=$SK_REPO/tests/cases

# replays a data-driven case: its in/ and setup are the inputs, cmd the command
case_prepare() { [ -d "$CASES/$1/in" ] && cp -a "$CASES/$1/in/." .; [ -f "$CASES/$1/setup" ] && bash -e "$CASES/$1/setup" >/dev/null 2>&1; return 0; }
case_cmd() { CASE=$CASES/$1; source "$CASES/$1/cmd"; }

# The manifest records each artifact's ctime (and mtime, which follows it):
# those and the fingerprints over them differ from run to run by design; so
# does a DCCI manifest's producer, taken from the run record of a real
# process (pid, times, command with the scratch path, observed pids).
norm_stat() {
    # the run records themselves name the real process and its times
    find "$1" -type f \( -name '*.producer.json' -o -name '*.producer.json.started.json' \) -delete
    find "$1" -type f -print0 | xargs -0 -r sed -i -E \
        -e 's/"(ctime_ns|mtime_ns)":[0-9]+/"\1":0/g' \
        -e 's/"(ctime_ns|mtime_ns)": [0-9]+/"\1": 0/g' \
        -e 's/"producer":\{[^}]*\}/"producer":"-"/g' \
        -e 's/"producer_evidence":\{[^}]*\}/"producer_evidence":"-"/g' \
        -e 's/"(manifest_fingerprint|set_fingerprint)": ?"[0-9a-f]{64}"/"\1":"-"/g'
}

# contract inputs (in the scenario's s/, see SUBSHELL)
contract_fixture() { mkdir -p "$S"; ac_inputs; ac_dcci_inputs "$S/in_o0" "$S/in_da"; }
# the shipped demo pair, sealed once (the analysis reads it, never writes it)
seal_demo() {
    cp -R "$SK_REPO/fixtures/demo" pair &&
        "$SK_REPO/tests/tools/seal_pair.sh" --artifact-contract "$SK_BUILD/bin/artifact_contract" pair >/dev/null
}
collect_pair() {
    contract_fixture
    ac_collect baseline_profile && ac_collect candidate_profile &&
    ac_begin dcci_o0 && ac_artifacts dcci_o0 && AC_INPUTS="$S/in_o0" ac_finalize dcci_o0 >/dev/null &&
    ac_begin dcci_disable_all && ac_artifacts dcci_disable_all && AC_INPUTS="$S/in_da" ac_finalize dcci_disable_all >/dev/null
}

ROWS=(
"begin|contract_fixture|SK_TEST_CLOCK_NS=1 artifact_contract begin --role dcci_o0 --root \$S/new/root --session-out \$S/new/session.json|"
"finalize|contract_fixture|ac_begin baseline_profile && ac_artifacts baseline_profile && ac_finalize baseline_profile|norm_stat"
"finalize-dcci|contract_fixture|ac_begin dcci_o0 && ac_artifacts dcci_o0 && AC_INPUTS=\$S/in_o0 ac_finalize dcci_o0 --jobs 3|norm_stat"
"validate|collect_pair|artifact_contract validate --manifest \$(ac_manifest_of baseline_profile) --json-out v.json|"
"validate-set|collect_pair|artifact_contract validate-set --manifest baseline_profile=\$(ac_manifest_of baseline_profile) --manifest candidate_profile=\$(ac_manifest_of candidate_profile) --json-out set.json|"
"validate-set-dcci|collect_pair|artifact_contract validate-set --manifest dcci_o0=\$(ac_manifest_of dcci_o0) --manifest dcci_disable_all=\$(ac_manifest_of dcci_disable_all)|"
"status|collect_pair|artifact_contract status \$S/dcci_o0/root; artifact_contract status \$S/baseline_profile/root|"
"trial|case_prepare skdcci/trial_worked_example_accepts|case_cmd skdcci/trial_worked_example_accepts|"
"trial-robust|case_prepare skdcci/trial_robust_is_informational|case_cmd skdcci/trial_robust_is_informational|"
"stability|case_prepare skdcci/stability_exactly_five_percent_is_stable|case_cmd skdcci/stability_exactly_five_percent_is_stable|"
"probe|case_prepare skdcci/probe_accepts_exact_values|case_cmd skdcci/probe_accepts_exact_values|"
"matrix-validate|case_prepare skdcci/matrix_validate_json_out|case_cmd skdcci/matrix_validate_json_out|"
"matrix-violations|case_prepare skdcci/matrix_violation_two_pointers_changed|case_cmd skdcci/matrix_violation_two_pointers_changed|"
"matrix-status|case_prepare skdcci/matrix_status_json_dcci_in_d2|case_cmd skdcci/matrix_status_json_dcci_in_d2|"
"compile-state|case_prepare skdcci/compile-state-golden-succeeded|case_cmd skdcci/compile-state-golden-succeeded|"
"compile-jobs|case_prepare skdcci/compile-jobs-mismatch|case_cmd skdcci/compile-jobs-mismatch|"
"pyhooks-diff|case_prepare skdcci/pyhooks-diff-golden|case_cmd skdcci/pyhooks-diff-golden|"
"report-lint|case_prepare skdcci/report-lint-golden|case_cmd skdcci/report-lint-golden|"
"uninstall-plan|case_prepare skdcci/uninstall-plan-golden|case_cmd skdcci/uninstall-plan-golden|"
"analyze-unsealed|case_prepare skdcci/analyze-mini-unsealed|case_cmd skdcci/analyze-mini-unsealed|"
"analyze-sealed|seal_demo|skdcci analyze -q pair/o0 pair/disable_all -o out|"
"config-diff|case_prepare skdcci/cdiff_type_aware_json|case_cmd skdcci/cdiff_type_aware_json|"
"config-diff-repair|case_prepare skdcci/cdiff_repair_json_out|case_cmd skdcci/cdiff_repair_json_out|"
"family-report|case_prepare skdcci/family_repair_beats_o0_accepted|case_cmd skdcci/family_repair_beats_o0_accepted|"
)

# run_once DIR COMMAND RESULT [ENV...]: runs COMMAND in DIR, moves what it
# created to RESULT/files, records stdout, stderr and the exit status
run_once() {
    local dir=$1 cmd=$2 res=$3; shift 3
    mkdir -p "$res/files"
    (cd "$dir" && find . -mindepth 1 | LC_ALL=C sort) >"$res/.before"
    (cd "$dir" && env "$@" bash -c "$SUBSHELL" _ "$FUNCS" "$cmd") \
        >"$res/stdout" 2>"$res/stderr"
    echo $? >"$res/rc"
    (cd "$dir" && find . -mindepth 1 | LC_ALL=C sort) >"$res/.after"
    local f
    while IFS= read -r f; do
        [ -e "$dir/$f" ] || continue
        if [ -f "$dir/$f" ]; then mkdir -p "$res/files/$(dirname "$f")"; cp "$dir/$f" "$res/files/$f"; fi
    done < <(comm -13 "$res/.before" "$res/.after")
    # remove what the run created (deepest first) so the next run starts alike
    comm -13 "$res/.before" "$res/.after" | sort -r | while IFS= read -r f; do
        chmod -R u+rwx "$dir/$f" 2>/dev/null; rm -rf "${dir:?}/$f"
    done
    rm -f "$res/.before" "$res/.after"
}

# A comma-decimal locale: installed, or compiled here without root.
find_locale() {
    local l
    for l in ${SK_DET_LOCALE:-} de_DE.UTF-8 de_DE.utf8 fr_FR.UTF-8 fr_FR.utf8 nl_NL.UTF-8 ru_RU.UTF-8; do
        if [ "$(LC_ALL=$l locale decimal_point 2>/dev/null)" = "," ]; then LOC_ENV=(LC_ALL="$l"); return 0; fi
    done
    if command -v localedef >/dev/null && [ -f /usr/share/i18n/locales/de_DE ]; then
        mkdir -p "$BASE/locale"
        localedef -i de_DE -f UTF-8 "$BASE/locale/de_DE.UTF-8" >/dev/null 2>&1
        if [ "$(LOCPATH=$BASE/locale LC_ALL=de_DE.UTF-8 locale decimal_point 2>/dev/null)" = "," ]; then
            LOC_ENV=(LOCPATH="$BASE/locale" LC_ALL=de_DE.UTF-8); return 0
        fi
    fi
    return 1
}

# Prepare and command run in a shell with the test helpers; the contract
# helpers work in the scenario's own s/ (same path in every run) instead of
# contract_lib's temporary directory, which is dropped with its exit trap.
SUBSHELL='source "$SK_REPO/tests/lib.sh"; source "$SK_REPO/tests/contract_lib.sh"
rm -rf "$S"; trap - EXIT; S=$PWD/s
source "$1"; eval "$2"'
# the helpers the table's text calls, for the command subshells
FUNCS=$PWD/funcs.sh
{ declare -p CASES; declare -f case_prepare case_cmd contract_fixture collect_pair seal_demo; } >"$FUNCS"

LOC_ENV=()
if find_locale; then
    echo "# third run under ${LOC_ENV[*]} TZ=NST+03:30"
    have_locale=1
else
    have_locale=0
fi
# a POSIX TZ string needs no tzdata: UTC-3:30, so any local-time use shows
TZ_ENV=(TZ=NST+03:30)

for row in "${ROWS[@]}"; do
    IFS='|' read -r name prepare cmd norm <<<"$row"
    dir=$BASE/$name res=$BASE/results/$name
    rm -rf "$dir" "$res"; mkdir -p "$dir"
    (cd "$dir" && bash -c "$SUBSHELL" _ "$FUNCS" "$prepare") >"$BASE/prepare.out" 2>&1 ||
        { t_fail "$name" "prepare failed: $(head -c 600 "$BASE/prepare.out")"; continue; }
    run_once "$dir" "$cmd" "$res/1"
    run_once "$dir" "$cmd" "$res/2"
    [ "$have_locale" = 1 ] && run_once "$dir" "$cmd" "$res/3" "${LOC_ENV[@]}" LANG=de_DE.UTF-8 "${TZ_ENV[@]}"
    if [ -n "$norm" ]; then for r in "$res"/*/; do "$norm" "$r"; done; fi
    # the command must have done its job (it is not a test of failure paths)
    if [ "$(cat "$res/1/rc")" -ge 64 ] || { [ ! -s "$res/1/stdout" ] && [ -z "$(find "$res/1/files" -type f)" ] && [ ! -s "$res/1/stderr" ]; }; then
        t_fail "$name" "the command produced nothing (exit $(cat "$res/1/rc")): $(head -c 400 "$res/1/stderr")"
        continue
    fi
    if d=$(diff -r "$res/1" "$res/2" 2>&1); then t_pass "$name:twice"
    else t_fail "$name:twice" "$(printf '%s' "$d" | head -c 1200)"; fi
    if [ "$have_locale" = 1 ]; then
        if d=$(diff -r "$res/1" "$res/3" 2>&1); then t_pass "$name:locale"
        else t_fail "$name:locale" "$(printf '%s' "$d" | head -c 1200)"; fi
    fi
done
# the locale check is part of the contract ("numbers never through the
# locale"): without a comma-decimal locale it fails, it is never skipped
if [ "$have_locale" = 0 ]; then
    t_fail "locale" "no comma-decimal locale installed or buildable" \
        "(install 'locales' and generate de_DE.UTF-8: make deps and .ci/run do)"
fi
