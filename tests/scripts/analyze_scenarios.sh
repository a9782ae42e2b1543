#!/usr/bin/env bash
# skdcci analyze on every skdcci_gen scenario, compared with ground-truth.json:
# status, slower SKs, realized SK statistics, selected children (the decoy not
# selected), token order, patterns, collateral, option files (byte for
# byte) and their absence for every other status, the report's inputs
# against the sealed manifests; determinism (twice, and under a comma-decimal
# locale, the readers' general paths in small reads on one thread), .zst
# inputs, read-only roots.  Every pair is sealed with
# seal_pair.sh and analysed in sealed mode, the multi-rank scenarios with 2 or
# 4 ranks (union across devices, a device on one side only, a buffer-full
# rank); one more run checks --unsealed
# (collection_blocked: inventory only, nothing compared).
source "$SK_REPO/tests/lib.sh"
GEN=${SKDCCI_GEN:-$TOOLS/skdcci_gen}
SEAL=${SEAL_PAIR:-$SK_REPO/tests/tools/seal_pair.sh}
W=$PWD
CHECK=$SK_REPO/tests/scripts/analyze_check.py
SEALED_CHECK=$SK_REPO/tests/scripts/analyze_sealed_check.py
sealed=1

gen() { # SCENARIO DIR [ARGS...]
    local s=$1 d=$2; shift 2
    "$GEN" --out "$d" --scenario "$s" "$@" >/dev/null 2>"$W/gen.err" || { cat "$W/gen.err"; return 1; }
    if [ "$sealed" = 1 ]; then
        "$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$d" >/dev/null 2>"$W/seal.err" ||
            { cat "$W/seal.err"; return 1; }
    fi
}

analyse() { # DIR OUT -> exit code
    local mode=()
    [ "$sealed" = 1 ] || mode=(--unsealed --warmup-launches 2)
    skdcci analyze "${mode[@]}" -q "$1/o0" "$1/disable_all" -o "$2" >"$W/out.txt" 2>"$W/err.txt"
}

tree_state() { # ROOT: paths, sizes, modes and mtimes (atime may move on reads)
    (cd "$1" && find . -printf '%p %s %m %T@ %y\n' | LC_ALL=C sort)
}

# The next step of a blocked scenario (docs/analyze.md §11), checked on
# stdout, JSON and Markdown by next_steps_check.py: the reason and the
# specific step it asks for.
NEW_PAIR='"last_command": "skdcci analyze NEW_O0 NEW_DISABLE_ALL -o NEW_OUTDIR"'
next_spec() { # SCENARIO -> the expected step, or nothing
    case $1 in
    buffer_full) echo '{"action": "recollect", "reason": "buffer_full",
      "what": ["buffer of O0 filled", "shorter window", "super_kernel.log"], "what_zh": ["缓冲区已满"], '"$NEW_PAIR}" ;;
    options_mismatch) echo '{"action": "recollect", "reason": "options_mismatch",
      "what": ["differing: split_mode", "disable-all with exactly"], "what_zh": ["其余选项两侧完全相同"], '"$NEW_PAIR}" ;;
    impure_o0) echo '{"action": "recollect", "reason": "o0_dcci_option",
      "what": ["the O0 process ran with a DCCI option", "dcci_before_kernel_start"],
      "what_zh": ["不带任何 DCCI 选项重新采集 O0"], '"$NEW_PAIR}" ;;
    ambiguous) echo '{"action": "recollect", "reason": "sk_ambiguous",
      "what": ["has no unique structural partner", "same model and graph"], "what_zh": ["同一模型与同一图"], '"$NEW_PAIR}" ;;
    header_only_kd) echo '{"action": "recollect", "reason": "sk_unclassified",
      "what": ["too few samples", "too few on disable-all", "profile more steps"],
      "what_zh": ["采集更多 step"], '"$NEW_PAIR}" ;;
    dropped_row) echo '{"action": "recollect", "reason": "sk_unclassified",
      "what": ["rows of an SK were rejected on disable-all", "collect that side again"],
      "what_zh": ["被拒绝"], '"$NEW_PAIR}" ;;
    incomplete_lanes) echo '{"action": "recollect", "reason": "incomplete_lanes",
      "what": ["cannot attribute children to launches", "miss a block or a lane"],
      "what_zh": ["无法把子节点归到 launch"], '"$NEW_PAIR}" ;;
    fixture_shape) echo '{"action": "recollect", "reason": "fixture_shape",
      "what": ["no skId and no parent records"], "what_zh": ["样例形态"], '"$NEW_PAIR}" ;;
    multi_rank_device_set_ranks4) echo '{"action": "recollect", "reason": "device_set_mismatch",
      "what": ["the sides hold different devices", "profile the same devices"],
      "what_zh": ["两侧的设备不同"], '"$NEW_PAIR}" ;;
    esac
}

# SCENARIO@N: a multi-rank pair of N ranks (docs/analyze.md §9.1)
for spec in regression no_regression no_regressed_child buffer_full incomplete_lanes ambiguous \
            options_mismatch reordered fixture_shape header_only_kd dropped_row impure_o0 \
            multi_rank@4 multi_rank@2 multi_rank_device_set@4 multi_rank_buffer_full@4; do
    gs=${spec%@*} ranks=()
    [ "$spec" = "$gs" ] || ranks=(--ranks "${spec#*@}")
    s=${spec/@/_ranks}
    d=$W/$s
    if ! gen "$gs" "$d" "${ranks[@]}"; then
        t_fail "$s:generate"
        continue
    fi
    tree_state "$d/o0" >"$W/before.o0"
    tree_state "$d/disable_all" >"$W/before.dis"
    analyse "$d" "$W/$s.out"
    rc=$?
    out=$(python3 "$CHECK" "$d/ground-truth.json" "$W/$s.out" "$rc" "$sealed" 2>&1)
    if [ $? -eq 0 ]; then t_pass "$s:ground_truth"; else t_fail "$s:ground_truth" "$out" "$(cat "$W/err.txt")"; fi
    [ -n "$out" ] && echo "$out" | sed 's/^/# /'
    cp "$W/out.txt" "$W/$s.out.stdout"
    want=$(next_spec "$s")
    [ -n "$want" ] && t_ok "$s:next_step" python3 "$SK_REPO/tests/scripts/next_steps_check.py" "$W/$s.out" "$want"
    t_ok "$s:inputs" python3 "$SEALED_CHECK" inputs "$d" "$W/$s.out"
    if grep -q '"writes_option_files":true' "$d/ground-truth.json"; then
        t_ok "$s:option_file_bytes" python3 "$SEALED_CHECK" options "$d/ground-truth.json" "$W/$s.out"
    fi
    t_ok "$s:schema" python3 "$SK_REPO/tests/scripts/schema_check.py" \
        "$SK_REPO/docs/schemas/dcci-regression-analysis.schema.json" "$W/$s.out/dcci-regression-analysis.json"
    tree_state "$d/o0" >"$W/after.o0"
    tree_state "$d/disable_all" >"$W/after.dis"
    if cmp -s "$W/before.o0" "$W/after.o0" && cmp -s "$W/before.dis" "$W/after.dis"; then
        t_pass "$s:roots_unchanged"
    else
        t_fail "$s:roots_unchanged" "$(diff "$W/before.o0" "$W/after.o0"; diff "$W/before.dis" "$W/after.dis")"
    fi
    # deterministic: a second run gives the same bytes
    analyse "$d" "$W/$s.again"
    if diff -r "$W/$s.out" "$W/$s.again" >/dev/null; then
        t_pass "$s:deterministic"
    else
        t_fail "$s:deterministic" "$(diff -r "$W/$s.out" "$W/$s.again" | head -20)"
    fi
    # every sample through the temporary file (one-value blocks, written at
    # once): the same bytes, and nothing left in TMPDIR
    rm -rf "$W/spill" "$W/$s.spill" && mkdir "$W/spill"
    SK_TEST_SPILL_VALUES=1 TMPDIR=$W/spill analyse "$d" "$W/$s.spill"
    if diff -r "$W/$s.out" "$W/$s.spill" >/dev/null && [ -z "$(ls -A "$W/spill")" ]; then
        t_pass "$s:spilled_samples_same"
    else
        t_fail "$s:spilled_samples_same" "$(diff -r "$W/$s.out" "$W/$s.spill" | head -20; ls -A "$W/spill")"
    fi
    # the readers' fast paths and the threads change nothing (docs/analyze.md
    # §12): every record through the general paths, in reads of a prime
    # number of bytes (record and token boundaries anywhere), on one thread
    rm -rf "$W/$s.general"
    SK_TEST_READERS_GENERAL=1 SK_TEST_READ_MAX=4093 SK_TEST_SERIAL=1 analyse "$d" "$W/$s.general"
    if diff -r "$W/$s.out" "$W/$s.general" >/dev/null; then
        t_pass "$s:general_paths_same"
    else
        t_fail "$s:general_paths_same" "$(diff -r "$W/$s.out" "$W/$s.general" | head -20)"
    fi
done

# a comma-decimal locale in the environment changes nothing
LOC=$W/locales
mkdir -p "$LOC"
if localedef -i de_DE -f UTF-8 "$LOC/de_DE.UTF-8" >/dev/null 2>&1 &&
   [ "$(LOCPATH=$LOC LC_ALL=de_DE.UTF-8 /usr/bin/printf '%.1f' 1.5 2>/dev/null)" = "1,5" ]; then
    (export LOCPATH=$LOC; export LC_ALL=de_DE.UTF-8; analyse "$W/regression" "$W/regression.de") 2>/dev/null
    if diff -r "$W/regression.out" "$W/regression.de" >/dev/null; then
        t_pass comma_locale_same_bytes
    else
        t_fail comma_locale_same_bytes "$(diff -r "$W/regression.out" "$W/regression.de" | head -20)"
    fi
else
    t_fail comma_locale_same_bytes "localedef cannot build a de_DE.UTF-8 locale here (install 'locales': make deps)"
fi

# .zst inputs give the same analysis as plain ones
if gen regression "$W/zst" --zstd --zstd-graphs; then
    analyse "$W/zst" "$W/zst.out"
    out=$(python3 "$CHECK" --same-analysis "$W/regression.out" "$W/zst.out" 2>&1)
    if [ $? -eq 0 ]; then t_pass zst_same_analysis; else t_fail zst_same_analysis "$out"; fi
    SK_TEST_READERS_GENERAL=1 SK_TEST_READ_MAX=4093 SK_TEST_SERIAL=1 analyse "$W/zst" "$W/zst.general"
    if diff -r "$W/zst.out" "$W/zst.general" >/dev/null; then
        t_pass zst:general_paths_same
    else
        t_fail zst:general_paths_same "$(diff -r "$W/zst.out" "$W/zst.general" | head -20)"
    fi
else
    t_fail zst_generate
fi

# --unsealed on a raw pair: always collection_blocked
# (unsealed_input): the inventory, and no comparison at all
sealed=0
if gen regression "$W/raw"; then
    analyse "$W/raw" "$W/raw.out"
    rc=$?
    out=$(python3 "$CHECK" "$W/raw/ground-truth.json" "$W/raw.out" "$rc" 0 2>&1)
    if [ $? -eq 0 ]; then t_pass unsealed:ground_truth; else t_fail unsealed:ground_truth "$out"; fi
else
    t_fail unsealed:generate
fi
