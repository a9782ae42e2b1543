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
