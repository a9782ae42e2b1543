#!/usr/bin/env bash
# Assembles a raw multi-rank O0 / disable-all pair from one-device pairs
# written by skdcci_gen, one rank per pair (docs/test-data.md "Multi-rank
# pairs from one-device pairs"):
#
#   tests/tools/rank_pair.sh [--gen BIN] OUT SCENARIO[:DEVICE] ...
#
# Rank k is generated with --scenario SCENARIO --device DEVICE (default k)
# --seed k+1 into OUT/.rank<k>, then moved into the layout of a multi-rank
# capture (docs/analyze.md §3.3):
#
#   OUT/<side>/profiler/node<k>_ascend_pt/ASCEND_PROFILER_OUTPUT/
#       kernel_details.csv, sk_prof_device_<d>.json
#   OUT/<side>/sk_meta/<pid>/sk_prof_device_<d>.json   (the raw trace, same bytes)
#   OUT/<side>/sk_meta/<pid>/model_48_1/...
#
# OUT/inputs/ and OUT/ground-truth.json are rank 0's (every rank runs the
# same configs).  Seal the result with seal_pair.sh.  Exit 0 written, 1 a
# step failed, 2 usage.
set -euo pipefail

GEN=${SKDCCI_GEN:-skdcci_gen}
if [ "${1:-}" = --gen ]; then
    [ $# -ge 2 ] || { echo "usage: rank_pair.sh [--gen BIN] OUT SCENARIO[:DEVICE] ..." >&2; exit 2; }
    GEN=$2
    shift 2
fi
[ $# -ge 2 ] || { echo "usage: rank_pair.sh [--gen BIN] OUT SCENARIO[:DEVICE] ..." >&2; exit 2; }
OUT=$1
shift
[ ! -e "$OUT" ] || [ -z "$(ls -A "$OUT")" ] || { echo "rank_pair.sh: $OUT is not empty" >&2; exit 1; }
mkdir -p "$OUT"
k=0
for spec in "$@"; do
    scenario=${spec%%:*}
    dev=$k
    [ "$spec" = "$scenario" ] || dev=${spec#*:}
    g=$OUT/.rank$k
    "$GEN" --out "$g" --scenario "$scenario" --device "$dev" --seed $((k + 1)) >/dev/null
    for side in o0 disable_all; do
        p=$OUT/$side/profiler/node${k}_ascend_pt/ASCEND_PROFILER_OUTPUT
        mkdir -p "$p" "$OUT/$side/sk_meta"
        mv "$g/$side/profiler/"* "$p/"
        pid=$(ls "$g/$side/sk_meta")
        [ ! -e "$OUT/$side/sk_meta/$pid" ] || { echo "rank_pair.sh: two ranks with process $pid" >&2; exit 1; }
        mv "$g/$side/sk_meta/$pid" "$OUT/$side/sk_meta/"
        cp "$p/"sk_prof_device_* "$OUT/$side/sk_meta/$pid/"
    done
    if [ $k -eq 0 ]; then
        mv "$g/inputs" "$OUT/inputs"
        mv "$g/ground-truth.json" "$OUT/ground-truth.json"
    fi
    rm -rf "$g"
    k=$((k + 1))
done
