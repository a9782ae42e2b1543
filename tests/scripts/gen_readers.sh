# Every scenario of skdcci_gen parses with the project's own readers, and the
# ground truth agrees with the analysis library (dcci_classify, dcci_token,
# dcci_regex): tests/tools/gen_readers_check.
source "$SK_REPO/tests/lib.sh"
GEN="$TOOLS/skdcci_gen"
SCENARIOS="regression no_regression no_regressed_child buffer_full incomplete_lanes ambiguous options_mismatch reordered fixture_shape"
for s in $SCENARIOS; do
    "$GEN" --out "$s" --scenario "$s" --seed 13 || t_fail "generate_$s" "exit $?"
done
"$GEN" --out regression_zst --scenario regression --seed 13 --zstd --zstd-graphs || t_fail generate_zst "exit $?"
"$GEN" --out wide --scenario regression --seed 13 --layers 6 --steps 4 --scale 2 || t_fail generate_wide "exit $?"
$SK_WRAP "$TOOLS/gen_readers_check" $SCENARIOS regression_zst wide >check.txt 2>&1
for s in $SCENARIOS regression_zst wide; do
    if grep -qx "ok $s" check.txt; then t_pass "readers_$s"
    else t_fail "readers_$s" "$(grep "$s" check.txt | head -8)"; fi
done
# The check is not vacuous: a ground truth that disagrees with the data fails.
cp -R regression tampered
sed -i 's/"tokens":\["RmsNorm"/"tokens":["AddRmsNorm"/; s/"regex":"static_kernel_SwiGlu_\.\*"/"regex":".*SwiGlu.*"/' tampered/ground-truth.json
"$TOOLS/gen_readers_check" tampered >tampered.txt 2>&1
if grep -q "dcci_regex chose static_kernel_SwiGlu_.\*, ground truth .\*SwiGlu.\*" tampered.txt; then t_pass readers_check_rejects_wrong_truth
else t_fail readers_check_rejects_wrong_truth "$(head -5 tampered.txt)"; fi
