#!/usr/bin/env bash
# skdcci analyze on the kernel_details.csv forms real profilers write
# (docs/readers.md §5, docs/analyze.md §4.3): one generated regression pair
# is analysed as written (Level1 columns), then copies of it whose
# kernel_details.csv is rewritten BEFORE sealing into
#   level0      profiler_level Level0 columns (no Model ID, Task ID, Stream
#               ID), CRLF line ends, the tab after Start Time(us) unquoted;
#   old_level0  a torch_npu before 7.1.0 without a schedule: Level0 without
#               Device_id and Step Id, Block Dim;
#   old_level1  Level1 without Device_id, Block Dim and Mix Block Dim, the
#               start time quoted with its tab, N/A in Task ID and Stream ID
#               of the rows outside every model, every SK row's Step Id empty;
# must analyse to the same status, SK classes, statistics and list L, with
# the occurrence mode, the absent columns and the counts in the JSON report.
# A 2-rank pair in the Level0 form without Device_id gets its devices from
# the traces.  The pair with a second model directory fusing the same SKs,
# in the Level0 form, is mapping_blocked (kd_model_ambiguous) with the fix
# named; the same capture with Model ID is not.
source "$SK_REPO/tests/lib.sh"
GEN=${SKDCCI_GEN:-$TOOLS/skdcci_gen}
SEAL=$SK_REPO/tests/tools/seal_pair.sh
RANKS=$SK_REPO/tests/tools/multi_rank_pair.sh
SCHEMA=$SK_REPO/docs/schemas/dcci-regression-analysis.schema.json
CHECK=$SK_REPO/tests/scripts/analyze_check.py
W=$PWD

seal() { # DIR: writes DIR.sealed or DIR.seal.err (run in the background)
    if "$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$1" >/dev/null 2>"$1.seal.err"; then
        touch "$1.sealed"
    fi
}

sealed() { # NAME DIR: the seal of DIR succeeded, else a failure line
    [ -e "$2.sealed" ] && return 0
    t_fail "$1:seal" "$(cat "$2.seal.err" 2>/dev/null)"
    return 1
}

analyse() { # DIR OUT -> exit code
    skdcci analyze -q "$1/o0" "$1/disable_all" -o "$2" >"$W/out.txt" 2>"$W/err.txt"
}

# rewrite FORM FILE...: kernel_details.csv as the form writes it
rewrite() {
    python3 - "$@" <<'PY'
import csv, io, sys

form, files = sys.argv[1], sys.argv[2:]
LEVEL0 = ["Step Id", "Device_id", "Name", "Type", "Accelerator Core", "Start Time(us)",
          "Duration(us)", "Wait Time(us)", "Block Num"]
for path in files:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    col = {n: i for i, n in enumerate(head)}
    quote_start = False
    if form == "level0":
        keep, names = LEVEL0, LEVEL0
        end = "\r\n"
    elif form == "old_level0":
        keep = [n for n in LEVEL0 if n not in ("Step Id", "Device_id")]
        names = ["Block Dim" if n == "Block Num" else n for n in keep]
        end = "\r\n"
    elif form == "old_level1":
        keep = [n for n in head if n != "Device_id"]
        names = {"Block Num": "Block Dim", "Mix Block Num": "Mix Block Dim"}
        names = [names.get(n, n) for n in keep]
        end, quote_start = "\n", True
        for r in body:
            if r[col["Type"]] == "SuperKernel":
                r[col["Step Id"]] = ""
            if r[col["Model ID"]] == "4294967295":
                r[col["Task ID"]] = r[col["Stream ID"]] = "N/A"
    else:
        sys.exit("unknown form " + form)
    out = io.StringIO(newline="")
    w = csv.writer(out, lineterminator=end)
    w.writerow(names)
    for r in body:
        w.writerow([r[col[n]] for n in keep])
    text = out.getvalue()
    if quote_start:  # the start time quoted with its tab, as some writers do
        lines = text.split(end)
        i = keep.index("Start Time(us)")
        for k in range(1, len(lines)):
            if lines[k]:
                f = next(csv.reader([lines[k]]))
                assert f[i].endswith("\t"), f[i]
                lines[k] = lines[k].replace("," + f[i] + ",", ',"' + f[i] + '",', 1)
        text = end.join(lines)
    with open(path, "w", newline="") as f:
        f.write(text)
PY
}

# same NAME OUT PYTHON: the analysis in OUT is the original's (status, SK
# classes and statistics, L, option files), then PYTHON asserts on doc/kd
same() {
    local name=$1 out=$2 extra=$3 msg
    if msg=$(python3 - "$W/orig.out" "$out" 2>&1 <<PY
import json, os, sys
a = json.load(open(os.path.join(sys.argv[1], "dcci-regression-analysis.json")))
doc = json.load(open(os.path.join(sys.argv[2], "dcci-regression-analysis.json")))
assert doc["status"] == a["status"], (doc["status"], a["status"])
def sks(d):
    return [(s["names"]["o0"], s["class"], s["stats"]) for s in d["sks"]]
assert sks(doc) == sks(a), "SK classes or statistics differ"
assert doc["regexes"] == a["regexes"], (doc["regexes"], a["regexes"])
for f in ("option-values.json", "dcci-repair-options.json"):
    assert open(os.path.join(sys.argv[1], f)).read() == open(os.path.join(sys.argv[2], f)).read(), f
kd = {s: doc["inputs"][s]["completeness"]["kernel_details"] for s in ("o0", "disable_all")}
$extra
PY
); then
        t_pass "$name"
    else
        t_fail "$name" "$msg" "$(cat "$W/err.txt")"
    fi
}

REPORTS=() # checked against the schema at the end, in one run
schema() { # NAME OUT (NAME: for the reader)
    REPORTS+=("$2/dcci-regression-analysis.json")
}

# --- the pairs: written, rewritten, then sealed at once ------------------------

raw=$W/raw
if ! "$GEN" --out "$raw" --scenario regression >/dev/null 2>"$W/gen.err"; then
    t_fail generate "$(cat "$W/gen.err")"
    exit 0
fi
cp -a "$raw" "$W/orig"
for form in level0 old_level0 old_level1; do
    cp -a "$raw" "$W/$form"
    rewrite "$form" "$W/$form"/o0/profiler/kernel_details.csv \
        "$W/$form"/disable_all/profiler/kernel_details.csv
done
# two ranks without Device_id: the devices come from the traces
"$RANKS" --gen "$GEN" --no-seal "$W/ranks" regression regression >/dev/null 2>"$W/ranks.gen.err" &&
    rewrite old_level0 $(find "$W/ranks" -name kernel_details.csv | LC_ALL=C sort) ||
    t_fail ranks:generate "$(cat "$W/ranks.gen.err")"
# a second model directory fusing the same SKs, with and without Model ID
for form in level0 level1; do
    d=$W/two_models_$form
    cp -a "$raw" "$d"
    for side in o0 disable_all; do
        m=$(ls -d "$d/$side"/sk_meta/*/model_48_1)
        cp -R "$m" "${m%/*}/model_49_1"
    done
    [ "$form" = level1 ] ||
        rewrite level0 "$d"/o0/profiler/kernel_details.csv "$d"/disable_all/profiler/kernel_details.csv
done
pids=()
for d in orig level0 old_level0 old_level1 ranks two_models_level0 two_models_level1; do
    [ -d "$W/$d" ] && { seal "$W/$d" & pids+=($!); }
done
for p in "${pids[@]}"; do wait "$p"; done

# --- the original, and the same data in each real form ----------------------

if sealed original "$W/orig"; then
    analyse "$W/orig" "$W/orig.out"
    rc=$?
    out=$(python3 "$CHECK" "$W/orig/ground-truth.json" "$W/orig.out" "$rc" 1 2>&1) &&
        t_pass original:ground_truth || t_fail original:ground_truth "$out"
fi

for form in level0 old_level0 old_level1; do
    d=$W/$form
    sealed "$form" "$d" || continue
    analyse "$d" "$W/$form.out"
    rc=$?
    [ "$rc" -eq 0 ] && t_pass "$form:exit" || t_fail "$form:exit" "exit $rc" "$(cat "$W/err.txt")"
    schema "$form" "$W/$form.out"
    case $form in
    level0) same level0 "$W/level0.out" "
assert doc['occurrence_mode'] == 'step_id', doc['occurrence_mode']
for s, k in kd.items():
    assert k['columns_absent'] == ['Model ID', 'Task ID', 'Stream ID', 'Mix Block Num'], k
    assert k['sk_rows_mapped_by_name'] == k['sk_rows'] > 0, k
    assert k['rows_outside_model'] == 0 and k['sk_rows_without_step_id'] == 0, k
    assert k['sk_rows_unmapped'] == 0 and k['complete'], k
" ;;
    old_level0) same old_level0 "$W/old_level0.out" "
assert doc['occurrence_mode'] == 'launch_order', doc['occurrence_mode']
for s, k in kd.items():
    assert k['columns_absent'] == ['Step Id', 'Device_id', 'Model ID', 'Task ID', 'Stream ID',
                                   'Mix Block Num'], k
    assert k['sk_rows_mapped_by_name'] == k['sk_rows'] == k['sk_rows_without_step_id'] > 0, k
" ;;
    old_level1) same old_level1 "$W/old_level1.out" "
assert doc['occurrence_mode'] == 'launch_order', doc['occurrence_mode']
for s, k in kd.items():
    assert k['columns_absent'] == ['Device_id'], k
    assert k['sk_rows_mapped_by_name'] == 0, k
    assert k['sk_rows_without_step_id'] == k['sk_rows'] > 0, k
    assert k['rows_outside_model'] > 0, k
" ;;
    esac
done
# the Markdown report says what was missing and how the analysis went on
md=$W/old_level1.out/DCCI_REGRESSION_ANALYSIS.md
if grep -qF "o0 侧 42 个 SK 行的 Step Id 为空" "$md" && grep -qF "o0 侧 kernel_details 无 Device_id 列" "$md"; then
    t_pass old_level1:markdown
else
    t_fail old_level1:markdown "$(grep -n 'kernel_details' "$md" | head)"
fi
grep -qF "无 Model ID 列（profiler_level Level0）" "$W/level0.out/DCCI_REGRESSION_ANALYSIS.md" &&
    t_pass level0:markdown || t_fail level0:markdown

# --- two ranks without Device_id ----------------------------------------------

if [ -d "$W/ranks" ] && sealed ranks "$W/ranks"; then
    analyse "$W/ranks" "$W/ranks.out"
    rc=$?
    [ "$rc" -eq 0 ] && t_pass ranks:exit || t_fail ranks:exit "exit $rc" "$(cat "$W/err.txt")"
    if msg=$(python3 - "$W/orig.out" "$W/ranks.out" 2>&1 <<'PY'
import json, os, sys
a = json.load(open(os.path.join(sys.argv[1], "dcci-regression-analysis.json")))
doc = json.load(open(os.path.join(sys.argv[2], "dcci-regression-analysis.json")))
assert doc["status"] == a["status"] == "repair_candidate", (doc["status"], a["status"])
assert doc["regexes"] == a["regexes"], (doc["regexes"], a["regexes"])
assert doc["devices"] == [0, 1], doc["devices"]
assert sorted({s["device"] for s in doc["sks"]}) == [0, 1], "SKs of both devices"
for s in ("o0", "disable_all"):
    k = doc["inputs"][s]["completeness"]["kernel_details"]
    assert "Device_id" in k["columns_absent"] and k["files"] == 2, k
    assert k["sk_rows_mapped_by_name"] == k["sk_rows"] > 0, k
PY
); then
        t_pass ranks:union
    else
        t_fail ranks:union "$msg" "$(cat "$W/err.txt")"
    fi
    schema ranks "$W/ranks.out"
fi

# --- two models fusing the same SKs: Level0 cannot tell them apart ------------

# with Model ID every row maps (model 49's SKs simply have no rows)
if sealed two_models_level1 "$W/two_models_level1"; then
    analyse "$W/two_models_level1" "$W/two_models_level1.out"
    schema two_models_level1 "$W/two_models_level1.out"
    grep -q kd_model_ambiguous "$W/two_models_level1.out/dcci-regression-analysis.json" &&
        t_fail two_models_level1:maps "kd_model_ambiguous with a Model ID column" ||
        t_pass two_models_level1:maps
fi
# without: every SK row's name is fused by both models: mapping_blocked, the
# fix named (one issue per name and side)
if sealed two_models_level0 "$W/two_models_level0"; then
    analyse "$W/two_models_level0" "$W/two_models_level0.out"
    rc=$?
    schema two_models_level0 "$W/two_models_level0.out"
    [ "$rc" -eq 3 ] && t_pass two_models_level0:exit || t_fail two_models_level0:exit "exit $rc"
    grep -qF "skdcci analyze: mapping_blocked: kd_model_ambiguous: SK rows named sk_" "$W/err.txt" &&
        [ "$(wc -l <"$W/err.txt")" -eq 1 ] && t_pass two_models_level0:stderr ||
        t_fail two_models_level0:stderr "$(cat "$W/err.txt")"
    if msg=$(python3 - "$W/two_models_level0.out/dcci-regression-analysis.json" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["status"] == "mapping_blocked", doc["status"]
amb = [i for i in doc["status_reasons"] if i["code"] == "kd_model_ambiguous"]
for side in ("o0", "disable_all"):
    names = {i["message"].split()[3] for i in amb if i["side"] == side}
    assert len(names) == 7 == len([i for i in amb if i["side"] == side]), (side, names)
for i in amb:
    assert i["gate"] == "mapping", i
    assert "(model_48_1 and model_49_1)" in i["message"], i["message"]
    assert "collect with profiler_level Level1" in i["message"], i["message"]
    assert i["file"].endswith("/profiler/kernel_details.csv") and i["line"] > 1, i
assert any("profiler_level Level1" in t and "Model ID" in t for t in doc["to_collect"]), doc["to_collect"]
assert not any("structural partner" in t for t in doc["to_collect"]), doc["to_collect"]
assert doc["regexes"] == [] and doc["next_steps"]["action"] == "recollect", doc["next_steps"]
for s in ("o0", "disable_all"):
    k = doc["inputs"][s]["completeness"]["kernel_details"]
    assert k["sk_rows_unmapped"] == k["sk_rows"] > 0 and k["sk_rows_mapped_by_name"] == 0, k
    assert not k["complete"], k
PY
); then
        t_pass two_models_level0:blocked
    else
        t_fail two_models_level0:blocked "$msg"
    fi
    grep -qF "kd_model_ambiguous" "$W/two_models_level0.out/DCCI_REGRESSION_ANALYSIS.md" &&
        t_pass two_models_level0:markdown || t_fail two_models_level0:markdown
fi

t_ok schema python3 "$SK_REPO/tests/scripts/schema_check.py" "$SCHEMA" "${REPORTS[@]}"
