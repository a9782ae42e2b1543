#!/usr/bin/env bash
# Builds a sealed multi-rank DCCI pair from one-device pairs written by
# skdcci_gen (docs/analyze.md §10.2):
#
#   tests/tools/multi_rank_pair.sh --gen BIN --artifact-contract BIN [--o0-only K] DIR SCENARIO...
#
# Rank k is device k: skdcci_gen --scenario <k-th SCENARIO> --device k
# --seed k+1 writes DIR.g<k> (kept: its ground-truth.json describes the
# rank); for each side its profiler files go to
# DIR/<side>/profiler/node<k>_ascend_pt/ASCEND_PROFILER_OUTPUT/, its process
# directory to DIR/<side>/sk_meta/<pid>/ with the raw trace
# sk_prof_device_<k>.json beside the model directories.  DIR/inputs and
# DIR/ground-truth.json come from rank 0; then tests/tools/seal_pair.sh
# seals DIR/o0 and DIR/disable_all.  --o0-only K leaves rank K out of
# disable-all (a device on one side only: device_set_mismatch).
#
# Exit status: 0 built and sealed; 1 a step failed (its message is shown);
# 2 usage.
set -euo pipefail

usage() {
    echo "usage: multi_rank_pair.sh --gen BIN --artifact-contract BIN [--o0-only K] DIR" \
         "SCENARIO..." >&2
    exit 2
}

GEN=""
AC=""
ONLY=-1
while [ $# -gt 0 ]; do
    case $1 in
        --gen) [ $# -ge 2 ] || usage; GEN=$2; shift 2 ;;
        --artifact-contract) [ $# -ge 2 ] || usage; AC=$2; shift 2 ;;
        --o0-only) [ $# -ge 2 ] || usage; ONLY=$2; shift 2 ;;
        -*) usage ;;
        *) break ;;
    esac
done
[ -n "$GEN" ] && [ -n "$AC" ] && [ $# -ge 2 ] || usage
M=$1
shift
k=0
for s in "$@"; do
    "$GEN" --out "$M.g$k" --scenario "$s" --device "$k" --seed $((k + 1)) >/dev/null
    for side in o0 disable_all; do
        [ "$side.$k" != "disable_all.$ONLY" ] || continue
        p=$M/$side/profiler/node${k}_ascend_pt/ASCEND_PROFILER_OUTPUT
        mkdir -p "$p" "$M/$side/sk_meta"
        cp "$M.g$k/$side/profiler/"* "$p/"
        pid=$(ls "$M.g$k/$side/sk_meta")
        cp -R "$M.g$k/$side/sk_meta/$pid" "$M/$side/sk_meta/"
        cp "$M.g$k/$side/profiler/sk_prof_device_$k.json" "$M/$side/sk_meta/$pid/"
    done
    k=$((k + 1))
done
cp -R "$M.g0/inputs" "$M/inputs"
cp "$M.g0/ground-truth.json" "$M/"
"$(dirname "$0")/seal_pair.sh" --artifact-contract "$AC" "$M" >/dev/null
