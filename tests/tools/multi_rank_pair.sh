#!/usr/bin/env bash
# Builds a sealed multi-rank DCCI pair from one-device pairs written by
# skdcci_gen (docs/analyze.md §10.2):
#
#   tests/tools/multi_rank_pair.sh --gen BIN [--artifact-contract BIN | --no-seal]
#                                  [--o0-only K] [--gen-arg ARG]... DIR SCENARIO[:DEVICE]...
#
# Rank k is device DEVICE (default k): skdcci_gen --scenario <k-th SCENARIO>
# --device DEVICE --seed k+1 [ARG...] writes DIR.g<k> (kept: its
# ground-truth.json describes the rank); for each side its profiler files go
# to DIR/<side>/profiler/node<k>_ascend_pt/ASCEND_PROFILER_OUTPUT/, its
# process directory to DIR/<side>/sk_meta/<pid>/ with the raw trace
# sk_prof_device_<DEVICE>.json beside the model directories; with
# --gen-arg --layout --gen-arg torch_npu the rank's
# <worker>_<pid>_<time>_ascend_pt directories and its sk_meta/<pid>/ (which
# holds the raw trace already) are taken as the generator wrote them.  DIR/inputs and
# DIR/ground-truth.json come from rank 0; then tests/tools/seal_pair.sh
# seals DIR/o0 and DIR/disable_all (not with --no-seal: a test changes the
# raw pair first and seals it itself).  --o0-only K leaves rank K out of
# disable-all (a device on one side only: device_set_mismatch).
#
# Exit status: 0 built and sealed; 1 a step failed (its message is shown);
# 2 usage.
set -euo pipefail

usage() {
    echo "usage: multi_rank_pair.sh --gen BIN [--artifact-contract BIN | --no-seal] [--o0-only K]" \
         "[--gen-arg ARG]... DIR SCENARIO[:DEVICE]..." >&2
    exit 2
}

GEN=""
AC=""
ONLY=-1
SEAL=1
GEN_ARGS=()
while [ $# -gt 0 ]; do
    case $1 in
        --gen) [ $# -ge 2 ] || usage; GEN=$2; shift 2 ;;
        --artifact-contract) [ $# -ge 2 ] || usage; AC=$2; shift 2 ;;
        --o0-only) [ $# -ge 2 ] || usage; ONLY=$2; shift 2 ;;
        --no-seal) SEAL=0; shift ;;
        --gen-arg) [ $# -ge 2 ] || usage; GEN_ARGS+=("$2"); shift 2 ;;
        -*) usage ;;
        *) break ;;
    esac
done
[ -n "$GEN" ] && { [ -n "$AC" ] || [ $SEAL = 0 ]; } && [ $# -ge 2 ] || usage
M=$1
shift
k=0
for spec in "$@"; do
    s=${spec%%:*}
    dev=$k
    [ "$spec" = "$s" ] || dev=${spec#*:}
    "$GEN" --out "$M.g$k" --scenario "$s" --device "$dev" --seed $((k + 1)) ${GEN_ARGS[@]+"${GEN_ARGS[@]}"} >/dev/null
    for side in o0 disable_all; do
        [ "$side.$k" != "disable_all.$ONLY" ] || continue
        pid=$(ls "$M.g$k/$side/sk_meta")
        [ ! -e "$M/$side/sk_meta/$pid" ] || { echo "multi_rank_pair.sh: two ranks with process $pid" >&2; exit 1; }
        mkdir -p "$M/$side/profiler" "$M/$side/sk_meta"
        cp -R "$M.g$k/$side/sk_meta/$pid" "$M/$side/sk_meta/"
        if compgen -G "$M.g$k/$side/profiler/*_ascend_pt" >/dev/null; then
            cp -R "$M.g$k/$side/profiler/"*_ascend_pt "$M/$side/profiler/"
            continue
        fi
        p=$M/$side/profiler/node${k}_ascend_pt/ASCEND_PROFILER_OUTPUT
        mkdir -p "$p"
        cp "$M.g$k/$side/profiler/"* "$p/"
        cp "$M.g$k/$side/profiler/sk_prof_device_$dev.json" "$M/$side/sk_meta/$pid/"
    done
    k=$((k + 1))
done
cp -R "$M.g0/inputs" "$M/inputs"
cp "$M.g0/ground-truth.json" "$M/"
[ $SEAL = 0 ] || "$(dirname "$0")/seal_pair.sh" --artifact-contract "$AC" "$M" >/dev/null
