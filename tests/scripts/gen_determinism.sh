# skdcci_gen is deterministic: the same arguments give byte-identical trees,
# another seed gives different data, and --zstd carries the same bytes.
source "$SK_REPO/tests/lib.sh"
GEN="$TOOLS/skdcci_gen"

"$GEN" --out a --scenario regression --seed 7 || t_fail generate_a "exit $?"
"$GEN" --out b --scenario regression --seed 7 || t_fail generate_b "exit $?"
"$GEN" --out c --scenario regression --seed 8 || t_fail generate_c "exit $?"
"$GEN" --out z --scenario regression --seed 7 --zstd --zstd-graphs || t_fail generate_z "exit $?"
"$GEN" --out z2 --scenario regression --seed 7 --zstd --zstd-graphs || t_fail generate_z2 "exit $?"

if diff -r a b >/dev/null; then t_pass same_seed_identical_tree
else t_fail same_seed_identical_tree "$(diff -rq a b | head -5)"; fi

# Every data file differs with another seed (jitter, hashes, process ids).
n_same=0
cmp -s a/ground-truth.json c/ground-truth.json && n_same=$((n_same + 1))
pa=$(find a/o0 -name sk_prof_device_0.json); pc=$(find c/o0 -name sk_prof_device_0.json)
ka=$(find a/o0 -name kernel_details.csv); kc=$(find c/o0 -name kernel_details.csv)
cmp -s "$pa" "$pc" && n_same=$((n_same + 1))
cmp -s "$ka" "$kc" && n_same=$((n_same + 1))
if [ "$n_same" -eq 0 ] && [ "$(find a -type f | wc -l)" -eq "$(find c -type f | wc -l)" ]; then
    t_pass other_seed_differs
else
    t_fail other_seed_differs "$n_same of 3 compared files identical"
fi

if diff -r z z2 >/dev/null; then t_pass zstd_output_deterministic
else t_fail zstd_output_deterministic "$(diff -rq z z2 | head -5)"; fi

# The .zst files decompress to exactly the plain files of the same run.
bad=""
while IFS= read -r f; do
    rel=${f#z/}
    plain=${rel%.zst}
    zstd -dcq "$f" | cmp -s - "a/$plain" || bad="$bad $rel"
done < <(find z -name '*.zst' | LC_ALL=C sort)
nz=$(find z -name '*.zst' | wc -l)
if [ -z "$bad" ] && [ "$nz" -eq 8 ]; then t_pass zstd_matches_plain
else t_fail zstd_matches_plain "differs:$bad; $nz .zst files (want 8)"; fi
# The files that are never compressed are the same bytes in both runs.
bad=""
while IFS= read -r f; do
    rel=${f#z/}
    cmp -s "$f" "a/$rel" || bad="$bad $rel"
done < <(find z -type f ! -name '*.zst' ! -name ground-truth.json | LC_ALL=C sort)
if [ -z "$bad" ]; then t_pass zstd_other_files_unchanged
else t_fail zstd_other_files_unchanged "differs:$bad"; fi

# Multi-rank pairs are deterministic too, every rank has its own noise, and
# --ranks 1 is exactly the one-device output.
"$GEN" --out m1 --scenario multi_rank --ranks 3 --seed 7 --steps 3 --zstd || t_fail generate_m1 "exit $?"
"$GEN" --out m2 --scenario multi_rank --ranks 3 --seed 7 --steps 3 --zstd || t_fail generate_m2 "exit $?"
"$GEN" --out r1 --scenario regression --seed 7 --ranks 1 || t_fail generate_r1 "exit $?"
if diff -r m1 m2 >/dev/null; then t_pass multi_rank_same_seed_identical_tree
else t_fail multi_rank_same_seed_identical_tree "$(diff -rq m1 m2 | head -5)"; fi
if diff -r a r1 >/dev/null; then t_pass ranks_1_is_one_device
else t_fail ranks_1_is_one_device "$(diff -rq a r1 | head -5)"; fi
k1=m1/o0/profiler/gen_rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv.zst
k3=m1/o0/profiler/gen_rank2_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv.zst
if ! cmp -s <(zstd -dcq "$k1" | cut -d, -f3-) <(zstd -dcq "$k3" | cut -d, -f3-); then t_pass ranks_have_own_noise
else t_fail ranks_have_own_noise "ranks 1 and 2 have the same kernel_details rows"; fi
