# tests/tools/seal_pair.sh seals generated pairs with artifact_contract
# (begin, run, finalize --producer-record, validate-set).
source "$SK_REPO/tests/lib.sh"
AC="$SK_BUILD/bin/artifact_contract"
SEAL="$SK_REPO/tests/tools/seal_pair.sh"
"$TOOLS/skdcci_gen" --out p --scenario regression --seed 2 || t_fail generate "exit $?"
"$TOOLS/skdcci_gen" --out z --scenario buffer_full --zstd --zstd-graphs || t_fail generate_zstd "exit $?"
t_ok seal_plain "$SEAL" --artifact-contract "$AC" p
t_ok seal_zstd "$SEAL" --artifact-contract "$AC" z
for side in o0 disable_all; do
    st=$("$AC" status "p/$side" 2>&1)
    case $st in *'"state":"finalized"'*) t_pass "finalized_$side" ;; *) t_fail "finalized_$side" "$st" ;; esac
    if [ -z "$(ls -A "p/.raw-$side" 2>/dev/null)" ] && [ ! -e "p/.raw-$side" ]; then t_pass "staging_removed_$side"
    else t_fail "staging_removed_$side"; fi
done
if grep -q '"pointer":"/model_config/custom_params/super_kernel_optimize_options/dcci_disable_on_kernel"' p/set-summary.json; then
    t_pass summary_names_the_dcci_pointer
else
    t_fail summary_names_the_dcci_pointer "$(head -c 400 p/set-summary.json)"
fi
# The producer of each side moved its sk_meta/<pid> directory to its own pid
# (the metadata of a process is named by that process): one directory per
# side, no longer the generator's pid, and a pid the run record observed.
renamed() { # ROOT SIDE -> the generator's pid and the sealed one
    local gen_pid sealed
    gen_pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sides"][sys.argv[2]]["pid"])' \
        "$1/ground-truth.json" "$2")
    sealed=$(ls "$1/$2/sk_meta")
    echo "$gen_pid $sealed"
}
for side in o0 disable_all; do
    read -r gen_pid sealed_pid < <(renamed p "$side")
    if [ "$(echo "$sealed_pid" | wc -w)" = 1 ] && [ "$sealed_pid" != "$gen_pid" ] &&
       python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if int(sys.argv[2]) in m["producer_evidence"]["observed_pids"] else 1)' \
           "p/$side/collection-manifest.json" "$sealed_pid"; then
        t_pass "sk_meta_named_by_producer_$side"
    else
        t_fail "sk_meta_named_by_producer_$side" "generator pid $gen_pid, sealed directory(ies) $sealed_pid"
    fi
done
# The sealed files are byte-identical to the generated ones (under the
# producer's pid directory) and still parse.
"$TOOLS/skdcci_gen" --out ref --scenario regression --seed 2 || t_fail generate_ref "exit $?"
bad=""
while IFS= read -r f; do
    g=$f
    for side in o0 disable_all; do
        read -r gen_pid sealed_pid < <(renamed p "$side")
        case $f in "$side/sk_meta/$gen_pid/"*) g="$side/sk_meta/$sealed_pid/${f#"$side/sk_meta/$gen_pid/"}" ;; esac
    done
    cmp -s "ref/$f" "p/$g" || bad="$bad $f"
done < <(cd ref && find o0 disable_all -type f)
if [ -z "$bad" ]; then t_pass sealed_files_unchanged; else t_fail sealed_files_unchanged "$bad"; fi
# the readers find the files where the ground truth names them: a copy with
# the generator's pid directories back
cp -R p pc && cp -R z zc
for r in pc zc; do
    for side in o0 disable_all; do
        read -r gen_pid sealed_pid < <(renamed "$r" "$side")
        mv "$r/$side/sk_meta/$sealed_pid" "$r/$side/sk_meta/$gen_pid"
    done
done
t_ok sealed_pair_parses "$TOOLS/gen_readers_check" pc zc
# A sealed pair cannot be sealed twice; a file added later breaks the strict root.
t_expect reseal_refused 1 "already sealed" "$SEAL" --artifact-contract "$AC" p
echo stray >p/o0/profiler/extra.txt
if "$AC" validate-set --manifest dcci_o0=p/o0/collection-manifest.json \
       --manifest dcci_disable_all=p/disable_all/collection-manifest.json >/dev/null 2>err.txt; then
    t_fail stray_file_rejected "validate-set accepted a root with an unlisted file"
else
    t_pass stray_file_rejected
fi
# A multi-rank pair: one sk_meta/<pid>/ directory per rank, each renamed by a
# child of the producer the run observed, with the rank's raw trace still in
# it (byte-identical to that rank's profiler copy); validate-set accepts the
# pair, and with the generator's pids back the checker passes it.
"$TOOLS/skdcci_gen" --out mr --scenario multi_rank --ranks 4 --steps 3 --seed 3 --zstd || t_fail generate_multi_rank "exit $?"
t_ok seal_multi_rank "$SEAL" --artifact-contract "$AC" mr
cp -R mr mrc
python3 - mr mrc <<'PY'
import json, os, re, sys
root, copy = sys.argv[1], sys.argv[2]
script = os.environ.get("SK_SCRIPT", "gen_seal")
gt = json.load(open(os.path.join(root, "ground-truth.json")))
for side in ("o0", "disable_all"):
    ranks = {r["device"]: r for r in gt["sides"][side]["ranks"]}
    observed = json.load(open(os.path.join(root, side, "collection-manifest.json")))["producer_evidence"]["observed_pids"]
    dirs = sorted(os.listdir(os.path.join(root, side, "sk_meta")))
    bad = []
    for d in dirs:
        path = os.path.join(root, side, "sk_meta", d)
        raws = [f for f in os.listdir(path) if re.match(r"sk_prof_device_\d+\.json", f)]
        dev = int(raws[0].split("_")[3].split(".")[0]) if len(raws) == 1 else -1
        r = ranks.get(dev)
        if r is None or int(d) not in observed or int(d) in [x["pid"] for x in ranks.values()]:
            bad.append(d)
            continue
        if open(os.path.join(path, raws[0]), "rb").read() != open(os.path.join(root, side, r["files"]["sk_prof"]), "rb").read():
            bad.append(d + ": raw trace differs from its profiler copy")
        graph = open(os.path.join(path, "model_48_1", "sk_graph_origin.json")).read()
        if '"deviceId": %d,' % dev not in graph:
            bad.append(d + ": metadata of another device")
        os.rename(os.path.join(copy, side, "sk_meta", d), os.path.join(copy, side, "sk_meta", str(r["pid"])))
    ok = len(dirs) == 4 and not bad
    print(("ok - %s:%s" if ok else "not ok - %s:%s") % (script, "multi_rank_sk_meta_per_rank_" + side))
    if not ok:
        print("# %s %s" % (dirs, bad))
PY
for side in o0 disable_all; do rm -f "mrc/$side/collection-manifest.json" "mrc/$side/.collection-session.json"; done
if python3 "$SK_REPO/tests/tools/gen_check.py" mrc >check.txt 2>&1; then t_pass sealed_multi_rank_checks
else t_fail sealed_multi_rank_checks "$(head -5 check.txt)"; fi
