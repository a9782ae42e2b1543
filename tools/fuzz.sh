#!/usr/bin/env bash
# libFuzzer driver behind `make fuzz` and `make fuzz-merge` (docs/testing.md).
#
#   tools/fuzz.sh check-target NAME KNOWN...   fail unless NAME is a known target
#   tools/fuzz.sh run BUILD NAME SECONDS [libFuzzer args...]
#   tools/fuzz.sh merge BUILD NAME             (FUZZ_MERGE_MAX_LEN, default 1024)
#
# Corpus layout per target (all replayed by tests/scripts/fuzz_replay.sh):
#   tests/fuzz/seeds/NAME/        hand-written inputs, readable, never rewritten
#   tests/fuzz/regressions/NAME/  inputs that once found a defect, never rewritten
#   tests/fuzz/corpus/NAME/       minimised libFuzzer corpus, rewritten by merge
# `run` writes new inputs only to BUILD/corpus/NAME (and crashes to
# BUILD/artifacts/NAME/); `merge` keeps from the committed corpus and BUILD's
# the inputs that add coverage beyond seeds and regressions.
set -eu
cmd=${1:?usage: tools/fuzz.sh check-target|run|merge ...}
shift
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"

dirs_of() { # NAME: the committed input directories that exist
    for k in corpus seeds regressions; do
        [ -d "tests/fuzz/$k/$1" ] && echo "tests/fuzz/$k/$1"
    done
    return 0
}

case "$cmd" in
check-target)
    name=$1
    shift
    for t in "$@"; do [ "$t" = "$name" ] && exit 0; done
    echo "usage: make fuzz TARGET=<name> [SECONDS=n]; targets: $*" >&2
    exit 2
    ;;
run)
    b=$1 name=$2 secs=$3
    shift 3
    mkdir -p "$b/corpus/$name" "$b/artifacts/$name"
    dict=()
    [ -f "tests/fuzz/dict/$name.dict" ] && dict=("-dict=tests/fuzz/dict/$name.dict")
    mapfile -t dirs < <(dirs_of "$name")
    # a small quarantine keeps freed memory warm: several times more executions
    # per second, at the cost of a shorter use-after-free window
    export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16}
    exec "$b/fuzz_$name" -max_total_time="$secs" -timeout=5 -rss_limit_mb=512 \
        -print_final_stats=1 -artifact_prefix="$b/artifacts/$name/" "${dict[@]}" "$@" \
        "$b/corpus/$name" "${dirs[@]}"
    ;;
merge)
    b=$1 name=$2
    out="$b/merge/$name"
    rm -rf "$out"
    mkdir -p "$out" "$b/corpus/$name"
    # seeds and regressions form the baseline: an input is kept only if it
    # adds coverage beyond them (they are replayed from their own directories)
    for k in seeds regressions; do
        [ -d "tests/fuzz/$k/$name" ] || continue
        for f in "tests/fuzz/$k/$name"/*; do
            [ -f "$f" ] && cp "$f" "$out/base-$k-$(basename "$f")"
        done
    done
    srcs=("$b/corpus/$name")
    [ -d "tests/fuzz/corpus/$name" ] && srcs+=("tests/fuzz/corpus/$name")
    # set cover: the smallest set of inputs with the same features (-merge=1
    # keeps every input that adds a feature in size order, about twice as
    # many).  Inputs are cut to FUZZ_MERGE_MAX_LEN bytes so that the committed
    # corpus stays small; the few edges that need longer inputs are lost
    # (sk_prof: 728 of 735 edges in 69 KB instead of 735 in 347 KB).
    # FUZZ_MERGE_ARGS adds libFuzzer options, e.g. -use_counters=0 to cover
    # edges only (not hit counts) when a target's corpus would hold too many
    # files (config: 646 -> see docs/testing.md)
    # shellcheck disable=SC2086
    "$b/fuzz_$name" -set_cover_merge=1 -max_len="${FUZZ_MERGE_MAX_LEN:-1024}" -timeout=5 \
        -rss_limit_mb=512 ${FUZZ_MERGE_ARGS:-} "$out" "${srcs[@]}"
    rm -f "$out"/base-*
    rm -rf "tests/fuzz/corpus/$name"
    mkdir -p "tests/fuzz/corpus/$name"
    cp "$out"/* "tests/fuzz/corpus/$name"/ 2>/dev/null || true
    echo "tests/fuzz/corpus/$name: $(find "tests/fuzz/corpus/$name" -type f | wc -l) files," \
        "$(cat "tests/fuzz/corpus/$name"/* 2>/dev/null | wc -c) bytes"
    ;;
*)
    echo "tools/fuzz.sh: unknown command $cmd" >&2
    exit 2
    ;;
esac
