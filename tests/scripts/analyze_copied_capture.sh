#!/usr/bin/env bash
# A DCCI capture copied after the fact is no attribution input.  One real
# pair is generated and sealed as produced (tests/tools/seal_pair.sh: begin,
# run, finalize --producer-record); then its files are copied into fresh
# roots and every documented way of turning the copy into analysis input is
# tried.  Each must end without a verdict: finalize refuses, validate-set
# refuses, or analyze blocks (collection_blocked, exit 3, no option files).
#   whole_root_copy       the sealed root copied with its manifest (cp -a)
#   asserted_values       fresh root, files copied, finalize with typed
#                         producer values (PID 12345)
#   foreign_record        fresh root, files copied, finalize with the
#                         original capture's run record
#   copy_keeps_times      fresh root, the copy made under artifact_contract
#                         run with preserved times (cp -a): outside the window
#   producer_copies       fresh roots, the copy made by the producer itself
#                         under artifact_contract run (cp -R: fresh times):
#                         sealed, but analyze blocks with producer_unbound,
#                         since no observed process wrote sk_meta/<pid>/
#   unbound_manifest      the sealed manifest rewritten without its producer
#                         evidence (fingerprint recomputed): validate-set
#                         refuses and analyze blocks with producer_unbound
#   unsealed              the copied files analysed with --unsealed
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/contract_lib.sh"
AC=$SK_BUILD/bin/artifact_contract
SKDCCI=$SK_BUILD/bin/skdcci
W=$PWD

"$TOOLS/skdcci_gen" --out "$W/pair" --scenario regression --seed 4 >/dev/null ||
    { t_fail generate; exit 0; }
"$SK_REPO/tests/tools/seal_pair.sh" --artifact-contract "$AC" "$W/pair" >/dev/null 2>"$W/seal.err" ||
    { t_fail seal "$(cat "$W/seal.err")"; exit 0; }

# the original is attribution input
"$SKDCCI" analyze -q "$W/pair/o0" "$W/pair/disable_all" -o "$W/orig.out" >"$W/orig.stdout" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -qx 'status: repair_candidate' "$W/orig.stdout"; then t_pass original_is_repair_candidate
else t_fail original_is_repair_candidate "exit $rc" "$(cat "$W/orig.stdout")"; fi

# no_verdict NAME OUT CODE: analyze blocked the copy with the issue CODE and
# wrote neither option file
no_verdict() {
    local name=$1 out=$2 code=$3 rc
    rc=$(cat "$W/$name.rc")
    if [ "$rc" != 3 ]; then t_fail "$name:exit" "exit $rc, want 3" "$(cat "$W/$name.stderr")"; return; fi
    if grep -q "^skdcci analyze: collection_blocked: $code: " "$W/$name.stderr"; then t_pass "$name:reason"
    else t_fail "$name:reason" "want collection_blocked: $code" "$(cat "$W/$name.stderr")"; fi
    if [ -e "$out/option-values.json" ] || [ -e "$out/dcci-repair-options.json" ]; then
        t_fail "$name:no_option_files" "$(ls "$out")"
    else
        t_pass "$name:no_option_files"
    fi
    t_ok "$name:json_says_blocked" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "collection_blocked", r["status"]
assert not r.get("regexes") and not r.get("token_union"), "a repair list in a blocked report"
codes = [i["code"] for i in r["status_reasons"]]
assert sys.argv[2] in codes, codes' \
        "$out/dcci-regression-analysis.json" "$code"
}
analyse() { # NAME OUT O0 DISABLE_ALL [ANALYZE OPTIONS...]
    local name=$1 out=$2 o0=$3 dis=$4; shift 4
    "$SKDCCI" analyze -q "$@" "$o0" "$dis" -o "$out" >"$W/$name.stdout" 2>"$W/$name.stderr"
    echo $? >"$W/$name.rc"
}

# fresh SIDE ROLE DIR: an empty root DIR/SIDE with a new session DIR/SIDE.session.json
fresh() {
    mkdir -p "$3" && "$AC" begin --role "$2" --root "$3/$1" --session-out "$3/$1.session.json" >/dev/null
}
# files_of ROOT: the --file arguments of every listed file of ROOT's manifest
files_of() {
    python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
for role, recs in sorted(m["files"].items()):
    for r in recs:
        print("--file"); print(role + "=" + r["path"])' "$1/collection-manifest.json"
}
# finalize_copy SIDE DIR PRODUCER_ARGS...: finalize DIR/SIDE like the original
finalize_copy() {
    local side=$1 dir=$2; shift 2
    local files; mapfile -t files < <(files_of "$W/pair/$side")
    "$AC" finalize --session "$dir/$side.session.json" --round-id "copy-$side" --source-revision copy \
        --workload "$W/pair/inputs/$side/workload.json" --config "$W/pair/inputs/$side/config.json" \
        --control "$W/pair/inputs/$side/control.json" "${files[@]}" \
        --out "$dir/$side/collection-manifest.json" "$@"
}
copy_files() { # SIDE DEST_ROOT [cp options]: the original's files without its manifest
    local side=$1 dest=$2; shift 2
    (cd "$W/pair/$side" && find . -type f ! -name collection-manifest.json ! -name .collection-session.json -print0 |
        xargs -0 cp --parents "$@" -t "$dest")
}

# ---------------------------------------------------------------- whole root
cp -a "$W/pair/o0" "$W/whole-o0"; cp -a "$W/pair/disable_all" "$W/whole-da"
analyse whole_root_copy "$W/whole.out" "$W/whole-o0" "$W/whole-da"
no_verdict whole_root_copy "$W/whole.out" contract_invalid

# ---------------------------------------------------------------- asserted values
fresh o0 dcci_o0 "$W/typed" && copy_files o0 "$W/typed/o0"
t_expect asserted_values 2 "capture role dcci_o0 is finalized from the run record of its producer" \
    finalize_copy o0 "$W/typed" --native-pid 12345 --started-ns 1 --ended-ns 2 \
    --command-fingerprint "$(ac_command_fp copy)"
t_ok asserted_values:no_manifest test ! -e "$W/typed/o0/collection-manifest.json"

# ---------------------------------------------------------------- foreign record
fresh o0 dcci_o0 "$W/foreign" && copy_files o0 "$W/foreign/o0"
t_expect foreign_record 2 "producer record belongs to another collection session" \
    finalize_copy o0 "$W/foreign" --producer-record "$W/pair/o0.session.producer.json"

# ---------------------------------------------------------------- times kept
fresh o0 dcci_o0 "$W/kept"
"$AC" run --session "$W/kept/o0.session.json" -- \
    bash -c 'cd "$1" && find . -type f ! -name collection-manifest.json ! -name .collection-session.json \
        -print0 | xargs -0 cp -a --parents -t "$2"' _ "$W/pair/o0" "$W/kept/o0" >/dev/null 2>"$W/kept.err" ||
    t_fail copy_keeps_times:run "$(cat "$W/kept.err")"
t_expect copy_keeps_times 2 "artifact was not written during the producer run" \
    finalize_copy o0 "$W/kept" --producer-record "$W/kept/o0.session.producer.json"

# ---------------------------------------------------------------- the producer copies
for side in o0 disable_all; do
    role=dcci_o0; [ $side = o0 ] || role=dcci_disable_all
    fresh $side $role "$W/pc"
    "$AC" run --session "$W/pc/$side.session.json" -- \
        bash -c 'cd "$1" && find . -type f ! -name collection-manifest.json ! -name .collection-session.json \
            -print0 | xargs -0 cp --parents -t "$2"' _ "$W/pair/$side" "$W/pc/$side" >/dev/null 2>"$W/pc.err" ||
        t_fail producer_copies:run "$(cat "$W/pc.err")"
    t_ok "producer_copies:finalize_$side" finalize_copy $side "$W/pc" \
        --producer-record "$W/pc/$side.session.producer.json"
done
analyse producer_copies "$W/pc.out" "$W/pc/o0" "$W/pc/disable_all"
no_verdict producer_copies "$W/pc.out" producer_unbound
t_ok producer_copies:names_the_process grep -q "SK metadata of process [0-9]* (sk_meta/[0-9]*/) was not written by a process the producer's run observed" "$W/producer_copies.stderr"

# ---------------------------------------------------------------- unbound manifest
for side in o0 disable_all; do
    ac_rewrite_manifest "$W/pair/$side/collection-manifest.json" 'm["producer_evidence"] = None'
done
t_expect unbound_manifest:validate_set 2 "dcci_o0 manifest has no producer_evidence" \
    "$AC" validate-set --manifest "dcci_o0=$W/pair/o0/collection-manifest.json" \
    --manifest "dcci_disable_all=$W/pair/disable_all/collection-manifest.json"
analyse unbound_manifest "$W/unbound.out" "$W/pair/o0" "$W/pair/disable_all"
no_verdict unbound_manifest "$W/unbound.out" producer_unbound
t_ok unbound_manifest:to_collect grep -q -- "--producer-record" "$W/unbound.out/DCCI_REGRESSION_ANALYSIS.md"

# ---------------------------------------------------------------- unsealed
mkdir -p "$W/loose/o0" "$W/loose/disable_all"
copy_files o0 "$W/loose/o0"; copy_files disable_all "$W/loose/disable_all"
analyse unsealed "$W/loose.out" "$W/loose/o0" "$W/loose/disable_all" --unsealed
no_verdict unsealed "$W/loose.out" unsealed_input
