#!/usr/bin/env bash
# The reports of multi-rank pairs (docs/analyze.md §10.2).  A pair of N ranks
# is built from N one-device generated pairs and sealed
# (tests/tools/multi_rank_pair.sh: rank k is device k), then analysed in
# sealed mode.
#   two ranks (regression, no_regression): repair_candidate with device 0's
#     L; three ranks (+ no_regressed_child); two ranks (regression,
#     ambiguous): mapping_blocked by device 1; device 1 on O0 only:
#     collection_blocked (device_set_mismatch), nothing compared;
#   each: the summary, the JSON (devices, per_device, entries tagged with
#     their device, classes as planted per device, the overview against sks;
#     analyze_multi_rank_check.py), the schema, the Markdown (overview, one
#     section per device) and the HTML (overview grid, charts per device, or
#     the blocking issues with their device); the same inputs twice give the
#     same bytes.
source "$SK_REPO/tests/lib.sh"
GEN=$TOOLS/skdcci_gen
PAIR=$SK_REPO/tests/tools/multi_rank_pair.sh
CHECK=$SK_REPO/tests/scripts/analyze_multi_rank_check.py
SCHEMA=$SK_REPO/docs/schemas/dcci-regression-analysis.schema.json
W=$PWD

# multi_pair DIR SCENARIO...: rank k from scenario k, sealed
multi_pair() {
    "$PAIR" --gen "$GEN" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$@" \
        >/dev/null 2>"$W/pair.err" || { cat "$W/pair.err"; return 1; }
}

# case_of CASE PAIR_STATUS RC DEVICES [--o0-only K] SCENARIO:DEVICE_STATUS... (not
# "name": t_ok sets it)
case_of() {
    local c=$1 status=$2 rc=$3 devices=$4 only=(); shift 4
    if [ "$1" = --o0-only ]; then
        only=(--o0-only "$2")
        shift 2
    fi
    local scen=() specs=() k=0 x
    for x in "$@"; do
        scen+=("${x%%:*}")
        specs+=("${x#*:}:$W/$c.g$k/ground-truth.json")
        k=$((k + 1))
    done
    if ! multi_pair "${only[@]}" "$W/$c" "${scen[@]}"; then
        t_fail "$c:pair"
        return
    fi
    skdcci analyze -q "$W/$c/o0" "$W/$c/disable_all" -o "$W/$c.out" \
        >"$W/$c.stdout" 2>"$W/$c.stderr"
    local got=$?
    if [ "$got" = "$rc" ] && grep -qx "status: $status" "$W/$c.stdout" &&
        grep -qx "devices: $devices" "$W/$c.stdout"; then
        t_pass "$c:summary"
    else
        t_fail "$c:summary" "exit $got, want $rc" "$(cat "$W/$c.stdout" "$W/$c.stderr")"
    fi
    t_ok "$c:json" python3 "$CHECK" json "$W/$c.out" "$status" "${specs[@]}"
    t_ok "$c:schema" python3 "$SK_REPO/tests/scripts/schema_check.py" "$SCHEMA" \
        "$W/$c.out/dcci-regression-analysis.json"
    t_ok "$c:markdown" python3 "$CHECK" md "$W/$c.out"
    t_ok "$c:html" python3 "$CHECK" html "$W/$c.out"
    t_ok "$c:html_well_formed" python3 "$SK_REPO/tests/scripts/html_check.py" analysis \
        "$W/$c.out/DCCI_REGRESSION_ANALYSIS.html" "$W/$c.out/dcci-regression-analysis.json"
    skdcci analyze -q "$W/$c/o0" "$W/$c/disable_all" -o "$W/$c.again" >/dev/null 2>&1
    t_ok "$c:same_bytes_twice" diff -r "$W/$c.out" "$W/$c.again"
}

case_of two repair_candidate 0 "0, 1" regression:repair_candidate \
    no_regression:no_significant_regression
case_of three repair_candidate 0 "0, 1, 2" regression:repair_candidate \
    no_regression:no_significant_regression no_regressed_child:no_regressed_child
case_of blocked mapping_blocked 3 "0, 1" regression:repair_candidate ambiguous:mapping_blocked
# device 1 profiled on O0 only: device_set_mismatch blocks the collection, the
# device sections compare nothing and state no result of their own
case_of mismatch collection_blocked 3 "0" --o0-only 1 regression:collection_blocked \
    regression:collection_blocked
t_ok mismatch:device_set_mismatch grep -q '^skdcci analyze: collection_blocked: device_set_mismatch: ' \
    "$W/mismatch.stderr"
# the blocking reason on stderr is the device's
if grep -q '^skdcci analyze: mapping_blocked: ' "$W/blocked.stderr"; then
    t_pass blocked:stderr_reason
else
    t_fail blocked:stderr_reason "$(cat "$W/blocked.stderr")"
fi
