#!/usr/bin/env bash
# skdcci analyze on multi-rank captures (docs/analyze.md §3.3, §9.1): the
# ranks of a side, the checks of each link (rank_unbound, rank_duplicate,
# trace_copy_mismatch), the device sets of the sides (device_set_mismatch),
# one analysis per device and one union over all devices, and the raw trace
# of a one-device capture (compared with its profiler copy, never read
# twice).  Pairs are assembled from one-device generated pairs with
# multi_rank_pair.sh --no-seal, changed where the case says so, sealed with seal_pair.sh and
# analysed in sealed mode.
source "$SK_REPO/tests/lib.sh"
GEN=${SKDCCI_GEN:-$TOOLS/skdcci_gen}
RANKS=$SK_REPO/tests/tools/multi_rank_pair.sh
SEAL=$SK_REPO/tests/tools/seal_pair.sh
SCHEMA=$SK_REPO/docs/schemas/dcci-regression-analysis.schema.json
W=$PWD

ranks() { # DIR SPEC...
    "$RANKS" --gen "$GEN" --no-seal "$@" >/dev/null 2>"$W/gen.err" || { cat "$W/gen.err"; return 1; }
}

gen1() { # DIR ARGS...: a one-device pair
    local d=$1
    shift
    "$GEN" --out "$d" "$@" >/dev/null 2>"$W/gen.err" || { cat "$W/gen.err"; return 1; }
}

seal() { # DIR
    "$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$1" >/dev/null 2>"$W/seal.err" ||
        { cat "$W/seal.err"; return 1; }
}

analyse() { # DIR OUT [OPTION...] -> exit code
    local d=$1 o=$2
    shift 2
    skdcci analyze -q "$@" "$d/o0" "$d/disable_all" -o "$o" >"$W/out.txt" 2>"$W/err.txt"
}

exit_is() { # NAME WANT GOT
    if [ "$2" = "$3" ]; then t_pass "$1"; else t_fail "$1" "exit $3, want $2" "$(cat "$W/err.txt")"; fi
}

# check NAME OUT PYTHON: PYTHON asserts on doc, the JSON report of OUT
check() {
    local name=$1 out=$2 code=$3 msg
    if msg=$(printf 'import json, sys\ndoc = json.load(open(sys.argv[1]))\ndef reasons(code):\n    return [i for i in doc["status_reasons"] if i["code"] == code]\n%s\n' "$code" |
             python3 - "$out/dcci-regression-analysis.json" 2>&1); then
        t_pass "$name"
    else
        t_fail "$name" "$msg" "$(cat "$W/err.txt")"
    fi
}

schema() { # NAME OUT
    t_ok "$1:schema" python3 "$SK_REPO/tests/scripts/schema_check.py" "$SCHEMA" \
        "$2/dcci-regression-analysis.json"
}

# --- a regression on one device of two ---------------------------------------

# rank 0 without regression, rank 1 (device 1) with the planted one: the pair
# finds it, attributes it to device 1, and its option files are those of the
# rank analysed alone
d=$W/one_of_two
alone=$W/alone
if ranks "$d" no_regression regression && seal "$d" &&
   gen1 "$alone" --scenario regression --device 1 --seed 2 && seal "$alone"; then
    analyse "$alone" "$W/alone.out"
    analyse "$d" "$W/one_of_two.out"
    exit_is one_of_two:exit 0 $?
    check one_of_two:union "$W/one_of_two.out" "
alone = json.load(open('$W/alone.out/dcci-regression-analysis.json'))
assert doc['status'] == 'repair_candidate', doc['status']
assert alone['status'] == 'repair_candidate', alone['status']
assert doc['regexes'] == alone['regexes'], (doc['regexes'], alone['regexes'])
assert [t['token'] for t in doc['token_union']] == [t['token'] for t in alone['token_union']]
for t in doc['token_union']:
    for c in t['contributors']:
        assert c['device'] == 1, c
assert doc['devices'] == [0, 1], doc['devices']
"
    schema one_of_two "$W/one_of_two.out"
    for f in dcci-repair-options.json option-values.json; do
        if cmp -s "$W/alone.out/$f" "$W/one_of_two.out/$f"; then
            t_pass "one_of_two:$f"
        else
            t_fail "one_of_two:$f" "differs from the one-device analysis of rank 1"
        fi
    done
    analyse "$d" "$W/one_of_two.again"
    if diff -r "$W/one_of_two.out" "$W/one_of_two.again" >/dev/null; then
        t_pass one_of_two:deterministic
    else
        t_fail one_of_two:deterministic "$(diff -r "$W/one_of_two.out" "$W/one_of_two.again" | head)"
    fi
else
    t_fail one_of_two:generate
fi

# no device regresses
d=$W/none
if ranks "$d" no_regression no_regression no_regression && seal "$d"; then
    analyse "$d" "$W/none.out"
    exit_is none:exit 0 $?
    check none:status "$W/none.out" "
assert doc['status'] == 'no_significant_regression', doc['status']
assert doc['regexes'] == [] and doc['devices'] == [0, 1, 2], (doc['regexes'], doc['devices'])
"
else
    t_fail none:generate
fi

# --- a device that blocks blocks the pair ------------------------------------

# the sk_prof buffer of device 1 filled up while both devices regress: the
# union would miss what device 1 lost, so the pair is blocked with the
# device named (the runtime's warning appended to that rank's log)
d=$W/bufferfull
if ranks "$d" regression regression; then
    log=$(ls "$(dirname "$(ls "$d"/disable_all/sk_meta/*/sk_prof_device_1.json)")"/model_*/super_kernel.log)
    printf '%s\n' "2026-11-29 11:34:42.052 [71784:281473039503449] [WARN] [sk_event_recorder.cpp:571] [DumpDeviceData] [sk time profiling]  device 1 core 25 buffer is full, stop dump the time of nodes on device 1 core 25" >>"$log"
    if seal "$d"; then
        analyse "$d" "$W/bufferfull.out"
        exit_is bufferfull:exit 3 $?
        check bufferfull:device_named "$W/bufferfull.out" "
assert doc['status'] == 'child_attribution_blocked', doc['status']
found = reasons('buffer_full')
assert found and all(i['device'] == 1 and i['side'] == 'disable_all' for i in found), doc['status_reasons']
assert doc['regexes'] == [] and doc['token_union'] == [], doc['regexes']
"
        if grep -qF "child_attribution_blocked: buffer_full: device 1 core 25" "$W/err.txt"; then
            t_pass bufferfull:stderr
        else
            t_fail bufferfull:stderr "$(cat "$W/err.txt")"
        fi
        if [ ! -e "$W/bufferfull.out/dcci-repair-options.json" ]; then
            t_pass bufferfull:no_option_file
        else
            t_fail bufferfull:no_option_file
        fi
    else
        t_fail bufferfull:seal
    fi
else
    t_fail bufferfull:generate
fi

# --- links of a rank ---------------------------------------------------------

# blocked NAME DIR CODE TEXT: collection_blocked with CODE, a message holding
# TEXT, nothing compared, one stderr line
blocked() {
    local name=$1 d=$2 code=$3 text=$4
    analyse "$d" "$W/$name.out"
    exit_is "$name:exit" 3 $?
    check "$name:issue" "$W/$name.out" "
assert doc['status'] == 'collection_blocked', doc['status']
found = reasons('$code')
assert found, doc['status_reasons']
assert any('$text' in i['message'] for i in found), found
assert doc['regexes'] == [] and doc['token_union'] == []
"
    if [ "$(wc -l <"$W/err.txt")" -eq 1 ] && grep -qF -- "collection_blocked: " "$W/err.txt"; then
        t_pass "$name:stderr"
    else
        t_fail "$name:stderr" "$(cat "$W/err.txt")"
    fi
    schema "$name" "$W/$name.out"
}

# disable-all lacks device 2
d=$W/devset
if ranks "$d" regression no_regression no_regression; then
    raw=$(ls "$d"/disable_all/sk_meta/*/sk_prof_device_2.json)
    rm -r "$d/disable_all/profiler/node2_ascend_pt" "$(dirname "$raw")"
    if seal "$d"; then
        blocked device_set "$d" device_set_mismatch "device 2 is on O0 only"
    else
        t_fail device_set:seal
    fi
else
    t_fail device_set:generate
fi

# a process directory without its raw trace: its device is not provable
d=$W/noraw
if ranks "$d" regression no_regression; then
    rm "$d"/disable_all/sk_meta/*/sk_prof_device_1.json
    if seal "$d"; then
        blocked no_raw_trace "$d" rank_unbound "holds 0 raw traces"
    else
        t_fail no_raw_trace:seal
    fi
else
    t_fail no_raw_trace:generate
fi

# the profiler copy of rank 1 is outside its profiler directory
d=$W/notbeside
if ranks "$d" regression no_regression; then
    mv "$d/o0/profiler/node1_ascend_pt/ASCEND_PROFILER_OUTPUT/sk_prof_device_1.json" "$d/o0/profiler/"
    if seal "$d"; then
        blocked not_beside "$d" rank_unbound "has no sk_prof_device_<d> trace in its profiler directory profiler/node1_ascend_pt/"
        check not_beside:loose_trace "$W/not_beside.out" "
assert any('is linked with no kernel_details file' in i['message'] for i in reasons('rank_unbound')), doc['status_reasons']
"
    else
        t_fail not_beside:seal
    fi
else
    t_fail not_beside:generate
fi

# two ranks name device 0
d=$W/dup
if ranks "$d" regression:0 no_regression:0 && seal "$d"; then
    blocked duplicate "$d" rank_duplicate "both name device 0"
else
    t_fail duplicate:generate
fi

# the raw trace of O0's rank 0 is not the bytes of its profiler copy
d=$W/copydiff
if ranks "$d" regression no_regression; then
    printf '\n' >>"$(ls "$d"/o0/sk_meta/*/sk_prof_device_0.json)"
    if seal "$d"; then
        blocked copy_mismatch "$d" trace_copy_mismatch "differ (SHA-256"
    else
        t_fail copy_mismatch:seal
    fi
else
    t_fail copy_mismatch:generate
fi

# --unsealed: nothing compared, every rank's files in the inventory
d=$W/unsealed
if ranks "$d" regression no_regression; then
    analyse "$d" "$W/unsealed.out" --unsealed
    exit_is unsealed:exit 3 $?
    check unsealed:inventory "$W/unsealed.out" "
assert doc['status'] == 'collection_blocked'
assert [i['code'] for i in doc['status_reasons']] == ['unsealed_input'], doc['status_reasons']
paths = {f['path'] for f in doc['inputs']['o0']['files']}
for k in (0, 1):
    assert 'profiler/node%d_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv' % k in paths, paths
    assert any(p.startswith('sk_meta/') and p.endswith('/sk_prof_device_%d.json' % k) for p in paths), paths
"
else
    t_fail unsealed:generate
fi

# --- the raw trace of a one-device capture -----------------------------------

# kept beside the metadata: read through the profiler copy, so every figure
# is the one of the capture without it
d=$W/raw1
base=$W/raw1_base
if gen1 "$d" --scenario regression && cp -r "$d" "$base"; then
    for side in o0 disable_all; do
        cp "$d/$side/profiler/sk_prof_device_0.json" "$d"/$side/sk_meta/*/
    done
    mkdir "$d.2"
    cp -r "$d/inputs" "$d/ground-truth.json" "$d/o0" "$d/disable_all" "$d.2/"
    printf ' ' >>"$(ls "$d.2"/disable_all/sk_meta/*/sk_prof_device_0.json)"
    if seal "$d" && seal "$base" && seal "$d.2"; then
        analyse "$base" "$W/raw1_base.out"
        analyse "$d" "$W/raw1.out"
        exit_is raw_copy:exit 0 $?
        check raw_copy:same_results "$W/raw1.out" "
base = json.load(open('$W/raw1_base.out/dcci-regression-analysis.json'))
for k in ('status', 'sks', 'children', 'token_union', 'regexes', 'collateral'):
    assert doc[k] == base[k], k
"
        blocked raw_copy_differs "$d.2" trace_copy_mismatch "its profiler copy"
    else
        t_fail raw_copy:seal
    fi
else
    t_fail raw_copy:generate
fi
