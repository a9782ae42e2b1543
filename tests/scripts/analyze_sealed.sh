#!/usr/bin/env bash
# skdcci analyze in sealed mode: the contract gate.  Every case runs on a
# freshly generated pair sealed with tests/tools/seal_pair.sh (a sealed root
# is bound to its path, so a copy is not a sealed root):
#   accepted: the report's inputs (both manifests, the set fingerprint, every
#     file's recorded and computed SHA-256), the option files byte for byte,
#     the manifest path as argument giving the same bytes as the root, two
#     runs giving the same bytes;
#   rejected (collection_blocked, contract_invalid, exit 3, one stderr line,
#     JSON + Markdown only, the roots untouched): swapped arguments, a file
#     changed after sealing (same size), a file changed or replaced after
#     validation while the analyzer reads it (test hook), a file made
#     unparsable after validation (a contract failure, not malformed input),
#     an unlisted file in a strict root, one side unsealed, a mismatched pair.
source "$SK_REPO/tests/lib.sh"
GEN=$TOOLS/skdcci_gen
SEAL=$SK_REPO/tests/tools/seal_pair.sh
CHECK=$SK_REPO/tests/scripts/analyze_sealed_check.py
W=$PWD

sealed_pair() { # DIR [GEN ARGS...]: generate and seal
    local d=$1; shift
    "$GEN" --out "$d" --scenario regression "$@" >/dev/null 2>"$W/gen.err" || { cat "$W/gen.err"; return 1; }
    "$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$d" >/dev/null 2>"$W/seal.err" ||
        { cat "$W/seal.err"; return 1; }
}

tree_state() { (cd "$1" && find . -printf '%p %s %m %T@ %y\n' | LC_ALL=C sort); }

# analyse NAME OUT O0 DISABLE_ALL [ENV...]: runs analyze, keeps exit code and stderr
analyse() {
    local name=$1 out=$2 o0=$3 dis=$4; shift 4
    env "$@" "$SK_BUILD/bin/skdcci" analyze -q "$o0" "$dis" -o "$out" >"$W/$name.stdout" 2>"$W/$name.stderr"
    echo $? >"$W/$name.rc"
}

# blocked NAME OUT RULE SIDE TEXT...: the contract_invalid outcome
blocked() {
    local name=$1 out=$2; shift 2
    local rc; rc=$(cat "$W/$name.rc")
    local lines; lines=$(wc -l <"$W/$name.stderr")
    if [ "$rc" != 3 ]; then
        t_fail "$name:exit" "exit $rc, want 3" "$(cat "$W/$name.stderr")"
    elif [ "$lines" != 1 ] || ! grep -q '^skdcci analyze: collection_blocked: contract_invalid: ' "$W/$name.stderr"; then
        t_fail "$name:stderr" "$(cat "$W/$name.stderr")"
    else
        t_pass "$name:exit"
    fi
    local msg
    if msg=$(python3 "$CHECK" blocked "$out" "$@" 2>&1); then t_pass "$name:report"
    else t_fail "$name:report" "$msg"; fi
}

# ---------------------------------------------------------------- accepted
if ! sealed_pair "$W/ok"; then t_fail generate_ok; exit 0; fi
tree_state "$W/ok" >"$W/ok.before"
analyse ok "$W/ok.out" "$W/ok/o0" "$W/ok/disable_all"
if [ "$(cat "$W/ok.rc")" = 0 ] && grep -qx 'status: repair_candidate' "$W/ok.stdout"; then
    t_pass accepted:status
else
    t_fail accepted:status "exit $(cat "$W/ok.rc")" "$(cat "$W/ok.stdout" "$W/ok.stderr")"
fi
t_ok accepted:inputs python3 "$CHECK" inputs "$W/ok" "$W/ok.out"
t_ok accepted:option_file_bytes python3 "$CHECK" options "$W/ok/ground-truth.json" "$W/ok.out"
analyse ok2 "$W/ok.again" "$W/ok/o0" "$W/ok/disable_all"
t_ok accepted:same_bytes_twice diff -r "$W/ok.out" "$W/ok.again"
# the manifest path names the same root: the same report, byte for byte
analyse manifest_arg "$W/ok.manifest" "$W/ok/o0/collection-manifest.json" \
    "$W/ok/disable_all/collection-manifest.json"
t_ok accepted:manifest_path_same_bytes diff -r "$W/ok.out" "$W/ok.manifest"
tree_state "$W/ok" >"$W/ok.after"
t_ok accepted:roots_unchanged diff "$W/ok.before" "$W/ok.after"

# ---------------------------------------------------------------- rejected
# swapped arguments: each manifest names the other role
analyse swapped "$W/swapped.out" "$W/ok/disable_all" "$W/ok/o0"
blocked swapped "$W/swapped.out" E_MANIFEST_SHAPE o0 "capture_role mismatch" "arguments are swapped"
analyse swapped2 "$W/swapped.again" "$W/ok/disable_all" "$W/ok/o0"
t_ok swapped:same_bytes_twice diff -r "$W/swapped.out" "$W/swapped.again"
t_ok swapped:schema python3 "$SK_REPO/tests/scripts/schema_check.py" \
    "$SK_REPO/docs/schemas/dcci-regression-analysis.schema.json" "$W/swapped.out/dcci-regression-analysis.json"
tree_state "$W/ok" >"$W/ok.after2"
t_ok rejected:roots_unchanged diff "$W/ok.before" "$W/ok.after2"

# one byte of a sealed file changed at rest, same size
sealed_pair "$W/tamper" || t_fail generate_tamper
python3 - "$W/tamper/disable_all/profiler/kernel_details.csv" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
i = b.rindex(b"1")
b[i] = ord("2")
open(p, "r+b").write(b)
PY
analyse tamper "$W/tamper.out" "$W/tamper/o0" "$W/tamper/disable_all"
blocked tamper "$W/tamper.out" E_ARTIFACT_STAT disable_all "profiler/kernel_details.csv"

# changed after validation, while the analyzer reads it: the contract reader
# refuses it when it confirms the file (hook between validation and reading)
sealed_pair "$W/late" || t_fail generate_late
analyse late "$W/late.out" "$W/late/o0" "$W/late/disable_all" \
    "SK_TEST_HOOK_DCCI_CONTRACT_VALIDATED=printf X | dd of=$W/late/o0/profiler/sk_prof_device_0.json bs=1 seek=100 conv=notrunc 2>/dev/null"
blocked late "$W/late.out" E_ARTIFACT_STAT o0 "late/o0/profiler/sk_prof_device_0.json" \
    "artifact stat fingerprint changed: profiler/sk_prof_device_0.json"

# replaced by another inode after validation
sealed_pair "$W/moved" || t_fail generate_moved
f=$W/moved/disable_all/sk_meta
f=$(find "$f" -name sk_fused_nodes.log | head -1)
analyse moved "$W/moved.out" "$W/moved/o0" "$W/moved/disable_all" \
    "SK_TEST_HOOK_DCCI_CONTRACT_VALIDATED=cp $f $W/swap.tmp && mv $W/swap.tmp $f"
blocked moved "$W/moved.out" E_ARTIFACT_CHANGED disable_all "sk_fused_nodes.log" "changed after validation"

# made unparsable after validation: a contract failure, not malformed input
sealed_pair "$W/garbled" || t_fail generate_garbled
analyse garbled "$W/garbled.out" "$W/garbled/o0" "$W/garbled/disable_all" \
    "SK_TEST_HOOK_DCCI_CONTRACT_VALIDATED=printf '\"garbage' | dd of=$W/garbled/disable_all/profiler/kernel_details.csv bs=1 conv=notrunc 2>/dev/null"
blocked garbled "$W/garbled.out" E_ARTIFACT_STAT disable_all "profiler/kernel_details.csv"

# an entry the manifest does not list in a strict (DCCI) root
sealed_pair "$W/extra" || t_fail generate_extra
echo stray >"$W/extra/o0/notes.txt"
analyse extra "$W/extra.out" "$W/extra/o0" "$W/extra/disable_all"
blocked extra "$W/extra.out" E_ROOT_UNLISTED o0 "notes.txt"

# one side never sealed
"$GEN" --out "$W/raw" --scenario regression >/dev/null 2>&1 || t_fail generate_raw
analyse unsealed "$W/unsealed.out" "$W/raw/o0" "$W/ok/disable_all"
blocked unsealed "$W/unsealed.out" E_INPUT_MISSING o0 "raw/o0/collection-manifest.json"

# two sealed pairs mixed: O0 of one, disable-all of another
sealed_pair "$W/other" --seed 7 || t_fail generate_other
analyse mixed "$W/mixed.out" "$W/ok/o0" "$W/other/disable_all"
blocked mixed "$W/mixed.out" E_SET_MISMATCH disable_all "source_revision mismatch"
