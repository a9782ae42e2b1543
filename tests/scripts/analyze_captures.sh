#!/usr/bin/env bash
# skdcci analyze on capture forms of real runtimes and profilers
# (docs/analyze.md §4.3, §5.1, §7; docs/readers.md §12; docs/analysis-rules.md
# §10): a device other than 0 named alike by every file; files of one side
# naming different devices (device_mismatch, with the device named);
# kernel_details without Step Id (launch_order: the planted regression is
# still found, the mode is shown in every output), sides in different modes
# (occurrence_mode_mismatch), Step Id empty on one SK row of one side (that
# side is launch_order, so the pair is occurrence_mode_mismatch);
# sk_prof records naming their model by args.modelRI
# (sk_prof_model_unproven).  Every pair is generated with skdcci_gen,
# changed where the case says so, sealed with seal_pair.sh and analysed in
# sealed mode.
source "$SK_REPO/tests/lib.sh"
GEN=${SKDCCI_GEN:-$TOOLS/skdcci_gen}
SEAL=${SEAL_PAIR:-$SK_REPO/tests/tools/seal_pair.sh}
W=$PWD
CHECK=$SK_REPO/tests/scripts/analyze_check.py
SCHEMA=$SK_REPO/docs/schemas/dcci-regression-analysis.schema.json

gen() { # DIR ARGS...
    local d=$1; shift
    "$GEN" --out "$d" "$@" >/dev/null 2>"$W/gen.err" || { cat "$W/gen.err"; return 1; }
}

seal() { # DIR
    "$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$1" >/dev/null 2>"$W/seal.err" ||
        { cat "$W/seal.err"; return 1; }
}

analyse() { # DIR OUT -> exit code
    skdcci analyze -q "$1/o0" "$1/disable_all" -o "$2" >"$W/out.txt" 2>"$W/err.txt"
}

# blocked NAME DIR CODE SIDE TEXT: exit 3, the one stderr line names the code
# and the text, the JSON report has exactly one issue of the code, on SIDE,
# and the Markdown report shows it; no option file
blocked() {
    local name=$1 d=$2 code=$3 side=$4 text=$5
    analyse "$d" "$W/$name.out"
    local rc=$?
    local err
    err=$(cat "$W/err.txt")
    if [ "$rc" -ne 3 ]; then
        t_fail "$name" "exit $rc, want 3" "$err"
        return
    fi
    if [ "$(wc -l <"$W/err.txt")" -ne 1 ] || ! grep -qF -- "collection_blocked: $code: " "$W/err.txt" ||
       ! grep -qF -- "$text" "$W/err.txt"; then
        t_fail "$name" "stderr: $err" "want one line with collection_blocked: $code: and: $text"
        return
    fi
    local out
    out=$(python3 - "$W/$name.out/dcci-regression-analysis.json" "$code" "$side" "$text" 2>&1 <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
code, side, text = sys.argv[2], sys.argv[3], sys.argv[4]
assert doc["status"] == "collection_blocked", doc["status"]
found = [i for i in doc["status_reasons"] if i["code"] == code]
assert len(found) == 1, found
assert found[0]["gate"] == "collection", found[0]
assert found[0]["side"] == (None if side == "null" else side), found[0]
assert text in found[0]["message"], found[0]["message"]
assert doc["regexes"] == [] and doc["token_union"] == [], "nothing compared"
EOF
) || { t_fail "$name" "$out"; return; }
    if ! grep -qF -- "$code" "$W/$name.out/DCCI_REGRESSION_ANALYSIS.md"; then
        t_fail "$name" "the Markdown report does not name $code"
        return
    fi
    if [ -e "$W/$name.out/option-values.json" ] || [ -e "$W/$name.out/dcci-repair-options.json" ]; then
        t_fail "$name" "option files written for a blocked analysis"
        return
    fi
    t_pass "$name"
}

# --- devices -------------------------------------------------------------

# every file of both sides names device 3: the planted regression is found
# as on device 0, and the JSON report is the device-0 report but for the
# file name and the digests
d=$W/dev3
if gen "$d" --scenario regression --device 3 && seal "$d"; then
    analyse "$d" "$W/dev3.out"
    rc=$?
    out=$(python3 "$CHECK" "$d/ground-truth.json" "$W/dev3.out" "$rc" 1 2>&1)
    if [ $? -eq 0 ]; then t_pass device3:ground_truth; else t_fail device3:ground_truth "$out" "$(cat "$W/err.txt")"; fi
    t_ok device3:schema python3 "$SK_REPO/tests/scripts/schema_check.py" "$SCHEMA" \
        "$W/dev3.out/dcci-regression-analysis.json"
    if grep -q 'sk_prof_device_3.json' "$d/o0/collection-manifest.json" &&
       grep -q '"deviceId": 3' "$d"/o0/sk_meta/*/model_*/sk_graph_origin.json &&
       grep -q '^[0-9]*,3,' "$d/o0/profiler/kernel_details.csv"; then
        t_pass device3:files_name_device
    else
        t_fail device3:files_name_device "the generator did not write device 3 everywhere"
    fi
else
    t_fail device3:generate
fi

# the sk_prof file of O0 names another device than its kernel_details
d=$W/devname
if gen "$d" --scenario regression --device 3; then
    mv "$d/o0/profiler/sk_prof_device_3.json" "$d/o0/profiler/sk_prof_device_5.json"
    if seal "$d"; then
        blocked device_mismatch:sk_prof_name "$d" device_mismatch o0 \
            "names device 3 (Device_id of $d/o0/profiler/kernel_details.csv:"
        grep -qF "device 5 (the name of $d/o0/profiler/sk_prof_device_5.json)" "$W/err.txt" &&
            t_pass device_mismatch:sk_prof_name:names_file ||
            t_fail device_mismatch:sk_prof_name:names_file "$(cat "$W/err.txt")"
    else
        t_fail device_mismatch:sk_prof_name:seal
    fi
else
    t_fail device_mismatch:sk_prof_name:generate
fi

# a graph of disable-all names another device
d=$W/devgraph
if gen "$d" --scenario regression --device 2; then
    sed -i 's/"deviceId": 2,/"deviceId": 7,/' "$d"/disable_all/sk_meta/*/model_*/sk_graph_updated.json
    if seal "$d"; then
        blocked device_mismatch:graph "$d" device_mismatch disable_all "and device 7 (deviceId of $d/disable_all/sk_meta/"
    else
        t_fail device_mismatch:graph:seal
    fi
else
    t_fail device_mismatch:graph:generate
fi

# a buffer-full warning of another device (the device of the warning
# decides, whatever else blocks the attribution later)
d=$W/devfull
if gen "$d" --scenario buffer_full --device 2; then
    sed -i '0,/device 2 core \([0-9]*\) buffer is full, stop dump the time of nodes on device 2/s//device 4 core \1 buffer is full, stop dump the time of nodes on device 4/' \
        "$d"/disable_all/sk_meta/*/model_*/super_kernel.log
    if seal "$d"; then
        blocked device_mismatch:buffer_full "$d" device_mismatch disable_all \
            "and device 4 (buffer-full warning in $d/disable_all/sk_meta/"
    else
        t_fail device_mismatch:buffer_full:seal
    fi
else
    t_fail device_mismatch:buffer_full:generate
fi

# --- sk_prof record forms --------------------------------------------------

# records naming their model by args.modelRI (an older runtime's handle):
# nothing maps a handle to a model directory, so the side is blocked
d=$W/modelri
if gen "$d" --scenario regression; then
    sed -i 's/"modelId":"[^"]*"/"modelRI":187649984473776/' "$d"/o0/profiler/sk_prof_device_0.json
    if seal "$d"; then
        blocked sk_prof_model_unproven "$d" sk_prof_model_unproven o0 \
            "sk_prof records name their model by args.modelRI 187649984473776"
        python3 - "$W/sk_prof_model_unproven.out/dcci-regression-analysis.json" <<'PY' &&
import json, sys
doc = json.load(open(sys.argv[1]))
f = doc["integrity"]["o0"]["sk_prof_files"][0]
assert f["events"] > 0 and f["events_without_metadata"] == f["events"], f
PY
            t_pass sk_prof_model_unproven:counted || t_fail sk_prof_model_unproven:counted
    else
        t_fail sk_prof_model_unproven:seal
    fi
else
    t_fail sk_prof_model_unproven:generate
fi

# --- kernel_details without Step Id -------------------------------------------

# no Step Id column on either side: occurrences by launch order; the
# planted regression is found exactly as with Step Ids, and every output
# says which mode was used
d=$W/nostep
if gen "$d" --scenario regression --no-step-id && seal "$d"; then
    if head -1 "$d/o0/profiler/kernel_details.csv" | grep -q 'Step Id'; then
        t_fail launch_order:no_column "the generator wrote a Step Id column"
    else
        t_pass launch_order:no_column
    fi
    analyse "$d" "$W/nostep.out"
    rc=$?
    out=$(python3 "$CHECK" "$d/ground-truth.json" "$W/nostep.out" "$rc" 1 2>&1)
    if [ $? -eq 0 ]; then t_pass launch_order:ground_truth; else t_fail launch_order:ground_truth "$out" "$(cat "$W/err.txt")"; fi
    t_ok launch_order:schema python3 "$SK_REPO/tests/scripts/schema_check.py" "$SCHEMA" \
        "$W/nostep.out/dcci-regression-analysis.json"
    grep -q '"occurrence_mode": "launch_order"' "$W/nostep.out/dcci-regression-analysis.json" &&
        t_pass launch_order:json || t_fail launch_order:json
    grep -q 'kernel_details 出现次序：launch_order' "$W/nostep.out/DCCI_REGRESSION_ANALYSIS.md" &&
        t_pass launch_order:markdown || t_fail launch_order:markdown
    [ "$(sed -n 2p "$W/out.txt")" = "occurrence mode: launch_order (no Step Id: per-SK launch order by start time)" ] &&
        t_pass launch_order:stdout || t_fail launch_order:stdout "$(cat "$W/out.txt")"
    # the same pair with Step Ids: the same verdict, list and SK classes
    r=$W/withstep
    if gen "$r" --scenario regression && seal "$r"; then
        analyse "$r" "$W/withstep.out"
        grep -q '"occurrence_mode": "step_id"' "$W/withstep.out/dcci-regression-analysis.json" &&
            [ "$(sed -n 2p "$W/out.txt")" = "occurrence mode: step_id (kernel_details Step Id)" ] &&
            t_pass step_id:shown || t_fail step_id:shown "$(cat "$W/out.txt")"
        out=$(python3 - "$W/nostep.out" "$W/withstep.out" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(p + "/dcci-regression-analysis.json")) for p in sys.argv[1:3])
for k in ("status", "regexes", "token_union", "children"):
    assert a[k] == b[k], k
assert [(s["key_id"], s["class"], s["stats"]) for s in a["sks"]] == \
       [(s["key_id"], s["class"], s["stats"]) for s in b["sks"]], "sks"
PY
)
        [ $? -eq 0 ] && t_pass launch_order:same_as_step_id || t_fail launch_order:same_as_step_id "$out"
    else
        t_fail step_id:generate
    fi
    # --warmup-steps drops the first launches of each SK: one per SK here
    skdcci analyze -q --warmup-steps 1 "$d/o0" "$d/disable_all" -o "$W/nostep.w1" >"$W/out.txt" 2>"$W/err.txt"
    rc=$?
    out=$(python3 - "$W/nostep.w1/dcci-regression-analysis.json" "$W/nostep.out/dcci-regression-analysis.json" 2>&1 <<'PY'
import json, sys
w, z = (json.load(open(p)) for p in sys.argv[1:3])
assert w["status"] == "repair_candidate", w["status"]
assert w["regexes"] == z["regexes"], (w["regexes"], z["regexes"])
for s, t in zip(w["sks"], z["sks"]):
    for side in ("o0", "disable_all"):
        assert s["stats"][side]["count"] == t["stats"][side]["count"] - 1, (s["key_id"], side)
PY
)
    py=$?
    [ "$rc" -eq 0 ] && [ "$py" -eq 0 ] && t_pass launch_order:warmup_per_sk || t_fail launch_order:warmup_per_sk "$rc $out"
else
    t_fail launch_order:generate
fi

# O0 with Step Ids, disable-all without: blocked, both modes named
d=$W/modemix
if gen "$d" --scenario regression && gen "$W/modemix.ns" --scenario regression --no-step-id; then
    cp "$W/modemix.ns/disable_all/profiler/kernel_details.csv" "$d/disable_all/profiler/kernel_details.csv"
    if seal "$d"; then
        blocked occurrence_mode_mismatch "$d" occurrence_mode_mismatch null \
            "O0 by step_id ($d/o0/profiler/kernel_details.csv:"
        grep -q '"occurrence_mode": null' "$W/occurrence_mode_mismatch.out/dcci-regression-analysis.json" &&
            t_pass occurrence_mode_mismatch:json_null || t_fail occurrence_mode_mismatch:json_null
    else
        t_fail occurrence_mode_mismatch:seal
    fi
else
    t_fail occurrence_mode_mismatch:generate
fi

# one SK row of O0 without its Step Id (a kernel outside every profiler
# step): O0 falls back to launch_order as without the column, and the pair
# is blocked because disable-all is step_id; the message names the row that
# decided and the empty cells
d=$W/stepgap
if gen "$d" --scenario regression; then
    line=$(grep -n ',SuperKernel,' "$d/o0/profiler/kernel_details.csv" | sed -n 5p | cut -d: -f1)
    sed -i "${line}s/^[0-9]*,/,/" "$d/o0/profiler/kernel_details.csv"
    if seal "$d"; then
        blocked step_id_on_some_rows "$d" occurrence_mode_mismatch null \
            "O0 by launch_order ($d/o0/profiler/kernel_details.csv:$line), disable-all by step_id; O0 has a Step Id column, but 1 of its SK row(s) have no value"
        out=$(python3 - "$W/step_id_on_some_rows.out/dcci-regression-analysis.json" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
kd = {s: doc["inputs"][s]["completeness"]["kernel_details"] for s in ("o0", "disable_all")}
assert kd["o0"]["sk_rows_without_step_id"] == 1, kd["o0"]
assert kd["disable_all"]["sk_rows_without_step_id"] == 0, kd["disable_all"]
assert kd["o0"]["columns_absent"] == [] == kd["disable_all"]["columns_absent"], kd
PY
)
        [ $? -eq 0 ] && t_pass step_id_on_some_rows:counted || t_fail step_id_on_some_rows:counted "$out"
    else
        t_fail step_id_on_some_rows:seal
    fi
else
    t_fail step_id_on_some_rows:generate
fi
