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
# The sealed files are byte-identical to the generated ones and still parse.
"$TOOLS/skdcci_gen" --out ref --scenario regression --seed 2 || t_fail generate_ref "exit $?"
bad=""
while IFS= read -r f; do cmp -s "ref/$f" "p/$f" || bad="$bad $f"; done < <(cd ref && find o0 disable_all -type f)
if [ -z "$bad" ]; then t_pass sealed_files_unchanged; else t_fail sealed_files_unchanged "$bad"; fi
t_ok sealed_pair_parses "$TOOLS/gen_readers_check" p z
# A sealed pair cannot be sealed twice; a file added later breaks the strict root.
t_expect reseal_refused 1 "already sealed" "$SEAL" --artifact-contract "$AC" p
echo stray >p/o0/profiler/extra.txt
if "$AC" validate-set --manifest dcci_o0=p/o0/collection-manifest.json \
       --manifest dcci_disable_all=p/disable_all/collection-manifest.json >/dev/null 2>err.txt; then
    t_fail stray_file_rejected "validate-set accepted a root with an unlisted file"
else
    t_pass stray_file_rejected
fi
