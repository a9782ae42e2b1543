#!/usr/bin/env bash
# Captures laid out as torch_npu and the SK runtime write them (docs/analyze.md
# §3.3, §3.4; skdcci_gen --layout torch_npu): per process a
# <worker>_<pid>_<time>_ascend_pt/ directory with ASCEND_PROFILER_OUTPUT/
# kernel_details.csv and PROF_*/sk_prof_device_<d>.json, the raw trace in
# sk_meta/<pid>/.  The same generated data in the earlier layout (the trace
# copy beside kernel_details.csv) is the reference: sealed, every pair below
# must give the same analysis (status, SK classes and statistics, children,
# token union, L, collateral) as its reference, and the ground truth:
#
#   one device  Level1 LF; Level0 CRLF; Level1 without Step Id; Level0 without
#               Device_id and Step Id, CRLF; two profiler cycles (the second
#               cycle's kernel_details is not read)
#   2 ranks     Level1 under ASCEND_RT_VISIBLE_DEVICES=4,5 (kernel_details
#               names devices 4 and 5, the SK runtime 0 and 1)
#   4 ranks     Level0 without Device_id, CRLF
#
# and these are blocked with the reason named: a Level0 capture of two models
# fusing the same SKs (mapping_blocked, kd_model_ambiguous, profiler_level
# Level1 named as the fix), sealed; and, read with --unsealed (the issues are
# the same, nothing needs sealing): the trace copy in a later cycle's
# directory or in two cycles (repeated_cycles), a profiler directory named
# after another process than its trace's (profiler_pid_mismatch), device ids
# renumbered without ASCEND_RT_VISIBLE_DEVICES in the control
# (device_mismatch), ranks numbered two ways (device_numbering_mismatch).
# The generator's options are checked too: gen_check.py passes every pair
# (and rejects a trace copy moved out of its collection folder), the project's
# readers take them (gen_readers_check), the same arguments give the same
# bytes, invalid combinations are usage errors.
source "$SK_REPO/tests/lib.sh"
GEN=$TOOLS/skdcci_gen
SEAL=$SK_REPO/tests/tools/seal_pair.sh
CHECK=$SK_REPO/tests/scripts/analyze_check.py
GEN_CHECK=$SK_REPO/tests/tools/gen_check.py
W=$PWD

gen() { # NAME ARGS...: writes $W/NAME, or a failure line
    local name=$1
    shift
    "$GEN" --out "$W/$name" "$@" >/dev/null 2>"$W/$name.gen.err" && return 0
    t_fail "$name:generate" "$(cat "$W/$name.gen.err")"
    return 1
}

seal() { # DIR: writes DIR.sealed or DIR.seal.err (run in the background)
    if "$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$1" >/dev/null 2>"$1.seal.err"; then
        touch "$1.sealed"
    fi
}

analyse() { # NAME [--unsealed]: $W/NAME -> $W/NAME.out; sets RC
    local name=$1
    shift
    RC=0
    skdcci analyze -q "$@" "$W/$name/o0" "$W/$name/disable_all" -o "$W/$name.out" \
        >"$W/$name.stdout" 2>"$W/$name.stderr" || RC=$?
}

# same NAME REF: sealed NAME analyses as REF did and as its ground truth says
same() {
    local name=$1 ref=$2 msg
    [ -e "$W/$name.sealed" ] || { t_fail "$name:seal" "$(cat "$W/$name.seal.err" 2>/dev/null)"; return 1; }
    analyse "$name"
    if msg=$(python3 "$CHECK" --same-analysis "$W/$ref.out" "$W/$name.out" 2>&1); then
        t_pass "$name:same_as_$ref"
    else
        t_fail "$name:same_as_$ref" "$msg" "$(cat "$W/$name.stderr")"
    fi
    if msg=$(python3 "$CHECK" "$W/$name/ground-truth.json" "$W/$name.out" "$RC" 1 2>&1); then
        t_pass "$name:ground_truth"
    else
        t_fail "$name:ground_truth" "$msg"
    fi
}

# report NAME PYTHON: asserts on doc (the JSON report of NAME)
report() {
    local name=$1 msg
    if msg=$(python3 - "$W/$name.out/dcci-regression-analysis.json" 2>&1 <<PY
import json, sys
doc = json.load(open(sys.argv[1]))
issues = doc["integrity"]["issues"]
def codes():
    return sorted({i["code"] for i in issues})
$2
PY
); then
        t_pass "$name:report"
    else
        t_fail "$name:report" "$msg"
    fi
}

# --- the pairs: generated, changed where a case needs it, sealed at once -----

T=(--layout torch_npu)
R=(--scenario regression --steps 3)
gen one_ref "${R[@]}"
gen one_l1 "${R[@]}" "${T[@]}"
gen one_l0_crlf "${R[@]}" "${T[@]}" --kd-level 0 --crlf
gen one_no_step "${R[@]}" "${T[@]}" --no-step-id
gen one_l0_bare "${R[@]}" "${T[@]}" --kd-level 0 --no-device-id --no-step-id --crlf
gen one_cycles "${R[@]}" "${T[@]}" --cycles 2
gen two_ref --scenario multi_rank --ranks 2 --steps 3
gen two_visible --scenario multi_rank --ranks 2 --steps 3 "${T[@]}" --visible-devices 4,5
gen four_ref --scenario multi_rank --ranks 4 --steps 3
gen four_l0 --scenario multi_rank --ranks 4 --steps 3 "${T[@]}" --kd-level 0 --no-device-id --crlf
# two model directories fusing the same SKs, Level0: not mappable
if gen two_models "${R[@]}" "${T[@]}" --kd-level 0 --crlf; then
    for side in o0 disable_all; do
        m=$(ls -d "$W/two_models/$side"/sk_meta/*/model_48_1)
        cp -R "$m" "${m%/*}/model_49_1"
    done
fi
if out=$(python3 "$GEN_CHECK" "$W"/{one_ref,one_l1,one_l0_crlf,one_no_step,one_l0_bare,one_cycles} \
                  "$W"/{two_ref,two_visible,four_ref,four_l0} 2>&1); then
    t_pass generator_checks
else
    t_fail generator_checks "$out"
fi
# the same arguments write the same bytes; the project's readers take every form
gen one_l1_again "${R[@]}" "${T[@]}" && t_ok generator_deterministic diff -r "$W/one_l1" "$W/one_l1_again"
t_ok readers_take_the_forms "$TOOLS/gen_readers_check" "$W/one_l1" "$W/one_l0_crlf" "$W/one_l0_bare" \
    "$W/one_cycles"
pids=()
for d in one_ref one_l1 one_l0_crlf one_no_step one_l0_bare one_cycles two_ref two_visible four_ref \
         four_l0 two_models; do
    [ -d "$W/$d" ] && { seal "$W/$d" & pids+=($!); }
done
for p in "${pids[@]}"; do wait "$p"; done

# --- the same analysis in the torch_npu layout --------------------------------

if [ -e "$W/one_ref.sealed" ]; then
    analyse one_ref
    msg=$(python3 "$CHECK" "$W/one_ref/ground-truth.json" "$W/one_ref.out" "$RC" 1 2>&1) &&
        t_pass one_ref:ground_truth || t_fail one_ref:ground_truth "$msg"
    same one_l1 one_ref && report one_l1 "
r = doc['inputs']['o0']['ranks']
assert len(r) == 1, r
r = r[0]
assert r['profiler_dir'].endswith('_ascend_pt') and r['trace'].startswith(r['profiler_dir'] + '/PROF_'), r
assert r['kernel_details'] == r['profiler_dir'] + '/ASCEND_PROFILER_OUTPUT/kernel_details.csv', r
assert r['raw_trace'] == 'sk_meta/%d/sk_prof_device_0.json' % r['pid'], r
# the producer named the directory after the process that wrote the trace
assert r['profiler_dir_pid'] == r['pid'] and r['profiler_dir_pid_observed'] is True, r
assert doc['device_numbering']['kernel_details'] == 'runtime', doc['device_numbering']
"
    same one_l0_crlf one_ref
    same one_no_step one_ref
    same one_l0_bare one_ref && report one_l0_bare "
assert doc['occurrence_mode'] == 'launch_order', doc['occurrence_mode']
assert doc['devices'] == [0], doc['devices']
assert doc['device_numbering']['kernel_details'] is None, doc['device_numbering']
"
    same one_cycles one_ref && report one_cycles "
r = doc['inputs']['disable_all']['ranks'][0]
assert len(r['skipped_kernel_details']) == 1, r
assert r['skipped_kernel_details'][0] != r['kernel_details'], r
assert doc['inputs']['disable_all']['completeness']['kernel_details']['files'] == 1, doc['inputs']['disable_all']['completeness']
"
else
    t_fail one_ref:seal "$(cat "$W/one_ref.seal.err" 2>/dev/null)"
fi
if [ -e "$W/two_ref.sealed" ]; then
    analyse two_ref
    same two_visible two_ref && report two_visible "
n = doc['device_numbering']
assert n['visible_devices_state'] == 'list' and n['visible_devices'] == [4, 5], n
assert n['kernel_details'] == 'visible', n
assert n['devices'] == [{'device': 0, 'kernel_details_device_id': 4},
                        {'device': 1, 'kernel_details_device_id': 5}], n
assert doc['devices'] == [0, 1], doc['devices']
"
    grep -qF "设备 0 → Device_id 4，设备 1 → Device_id 5" "$W/two_visible.out/DCCI_REGRESSION_ANALYSIS.md" &&
        t_pass two_visible:markdown || t_fail two_visible:markdown
else
    t_fail two_ref:seal "$(cat "$W/two_ref.seal.err" 2>/dev/null)"
fi
if [ -e "$W/four_ref.sealed" ]; then
    analyse four_ref
    same four_l0 four_ref && report four_l0 "
assert doc['devices'] == [0, 1, 2, 3], doc['devices']
assert [r['device'] for r in doc['inputs']['o0']['ranks']] == [0, 1, 2, 3], doc['inputs']['o0']['ranks']
for r in doc['inputs']['o0']['ranks']:
    assert r['profiler_dir_pid'] == r['pid'] and r['profiler_dir_pid_observed'] is True, r
"
else
    t_fail four_ref:seal "$(cat "$W/four_ref.seal.err" 2>/dev/null)"
fi

# --- two models, Level0: the rows name no model ---------------------------------

if [ -e "$W/two_models.sealed" ]; then
    analyse two_models
    [ "$RC" = 3 ] && t_pass two_models:exit || t_fail two_models:exit "exit $RC"
    report two_models "
assert doc['status'] == 'mapping_blocked', doc['status']
assert {i['code'] for i in doc['status_reasons']} == {'kd_model_ambiguous'}, doc['status_reasons']
assert any('Level1' in t for t in doc['to_collect']), doc['to_collect']
"
else
    t_fail two_models:seal "$(cat "$W/two_models.seal.err" 2>/dev/null)"
fi

# --- blocked captures, read unsealed (their issues do not need a seal) ----------

# blocked NAME CODE TEXT: --unsealed analysis of NAME reports CODE with TEXT
blocked() {
    analyse "$1" --unsealed
    report "$1" "
found = [i for i in issues if i['code'] == '$2']
assert found, codes()
assert any('''$3''' in i['message'] for i in found), found
"
}
later_cycle() { # DIR SIDE: the directory of the side's second cycle
    ls -d "$1/$2"/profiler/*_ascend_pt | LC_ALL=C sort | sed -n 2p
}
first_cycle() {
    ls -d "$1/$2"/profiler/*_ascend_pt | LC_ALL=C sort | sed -n 1p
}
if gen cycle_moved "${R[@]}" "${T[@]}" --cycles 2; then
    mv "$(first_cycle "$W/cycle_moved" o0)"/PROF_* "$(later_cycle "$W/cycle_moved" o0)/"
    blocked cycle_moved repeated_cycles "the trace copy lies in a later cycle's directory"
fi
if gen cycle_twice "${R[@]}" "${T[@]}" --cycles 2; then
    cp -R "$(first_cycle "$W/cycle_twice" disable_all)"/PROF_* "$(later_cycle "$W/cycle_twice" disable_all)/"
    blocked cycle_twice repeated_cycles "several of them hold a trace copy"
fi
# the process directory renamed: the profiler directory names another process
if gen pid_moved "${R[@]}" "${T[@]}"; then
    p=$(ls "$W/pid_moved/o0/sk_meta")
    mv "$W/pid_moved/o0/sk_meta/$p" "$W/pid_moved/o0/sk_meta/$((p + 1))"
    blocked pid_moved profiler_pid_mismatch "names process $p, but the SK trace it holds is that of process $((p + 1))"
fi
# renumbered device ids: provable only from the control (an unsealed root's
# manifest is read for it, unvalidated)
manifest() { # DIR CONTROL-JSON: a minimal collection-manifest.json in both roots
    for side in o0 disable_all; do
        printf '{"control": %s}\n' "$2" >"$1/$side/collection-manifest.json"
    done
}
if gen renumbered --scenario multi_rank --ranks 2 --steps 3 "${T[@]}" --visible-devices 4,5; then
    cp -R "$W/renumbered" "$W/renumbered_listed"
    manifest "$W/renumbered" '{"ASCEND_PROF_SK_ON": 1024}'
    blocked renumbered device_mismatch "names device 4"
    # with the list the same capture names every device alike
    manifest "$W/renumbered_listed" '{"ASCEND_PROF_SK_ON": 1024, "ASCEND_RT_VISIBLE_DEVICES": "4,5"}'
    analyse renumbered_listed --unsealed
    report renumbered_listed "
assert 'device_mismatch' not in codes() and 'device_numbering_mismatch' not in codes(), issues
assert doc['device_numbering']['kernel_details'] == 'visible', doc['device_numbering']
"
    # a list that the runtime would read only up to its first bad character
    cp -R "$W/renumbered" "$W/renumbered_spaced"
    manifest "$W/renumbered_spaced" '{"ASCEND_PROF_SK_ON": 1024, "ASCEND_RT_VISIBLE_DEVICES": "4, 5"}'
    blocked renumbered_spaced device_mismatch "is not a list of distinct device ids"
    # one device: the same, and the pair's device is the runtime's number
    if gen renumbered_one "${R[@]}" "${T[@]}" --device 1 --visible-devices 6,7; then
        manifest "$W/renumbered_one" '{"ASCEND_PROF_SK_ON": 1024, "ASCEND_RT_VISIBLE_DEVICES": [6, 7]}'
        analyse renumbered_one --unsealed
        report renumbered_one "
assert 'device_mismatch' not in codes(), issues
assert doc['devices'] == [1], doc['devices']
assert doc['device_numbering']['devices'] == [{'device': 1, 'kernel_details_device_id': 7}], doc['device_numbering']
"
    fi
    # rank 1 numbered as the runtime does, rank 0 by the driver's id
    cp -R "$W/renumbered_listed" "$W/numbered_twice"
    for side in o0 disable_all; do
        f=$(ls "$W/numbered_twice/$side"/profiler/*/ASCEND_PROFILER_OUTPUT/kernel_details.csv |
            LC_ALL=C sort | while read -r k; do
                grep -q "sk_prof_device_1.json" <(ls "${k%/ASCEND_PROFILER_OUTPUT/*}"/PROF_*) && echo "$k"
            done)
        sed -i 's/^\([0-9]*\),5,/\1,1,/' "$f"
    done
    blocked numbered_twice device_numbering_mismatch "number devices two ways"
fi
# gen_check.py rejects a trace copy moved beside kernel_details
if [ -d "$W/one_l1" ]; then
    cp -R "$W/one_l1" "$W/one_moved"
    d=$(first_cycle "$W/one_moved" o0)
    mv "$d"/PROF_*/sk_prof_device_0.json "$d/ASCEND_PROFILER_OUTPUT/"
    if python3 "$GEN_CHECK" "$W/one_moved" >"$W/moved.txt" 2>&1; then
        t_fail gen_check_rejects_moved_copy
    else
        grep -q "FAIL" "$W/moved.txt" && t_pass gen_check_rejects_moved_copy ||
            t_fail gen_check_rejects_moved_copy "$(cat "$W/moved.txt")"
    fi
fi

# --- generator usage ----------------------------------------------------------

t_expect gen_cycles_need_torch_npu 2 "--cycles" "$GEN" --out "$W/u1" --scenario regression --cycles 2
t_expect gen_visible_too_short 2 "--visible-devices" "$GEN" --out "$W/u2" --scenario multi_rank --ranks 3 \
    --visible-devices 4,5
t_expect gen_visible_malformed 2 "--visible-devices" "$GEN" --out "$W/u3" --scenario regression \
    --visible-devices 4,,5
t_expect gen_layout_unknown 2 "--layout" "$GEN" --out "$W/u4" --scenario regression --layout flat
