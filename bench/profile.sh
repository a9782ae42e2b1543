#!/usr/bin/env bash
# Where the work of `skdcci analyze` goes on a generated, sealed pair
# (docs/benchmarks.md "Where the time goes"): instruction counts by part of
# the work from one run under callgrind (bench/profile.py), and, where perf
# can sample the machine, the share of CPU time by library and by function
# of one native run.  Instruction counts do not depend on the load of the
# machine, so they are what a change is judged by on a shared one.
#
#   bench/profile.sh [SCALE]              a regression pair (default 320, ≈200 MB)
#   bench/profile.sh --zst [SCALE]        the same pair written as .zst
#   bench/profile.sh --ranks N [SCALE]    a multi_rank pair of N ranks at SCALE/(2N)
#   BUILD=build SKDCCI_GEN=... BENCH_DIR=...   as for bench/analyze.sh
#
# Needs valgrind (callgrind_annotate); perf is optional.  Not part of
# `make bench`: a callgrind run of a 200 MB pair takes about a minute.
set -eu
REPO=$(cd "$(dirname "$0")/.." && pwd)
source "$REPO/bench/lib.sh"
bench_binaries bench/profile.sh
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
    { echo "bench/profile.sh: valgrind is required" >&2; exit 2; }
WORK=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/skdcci-profile.XXXXXX")}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$WORK"' EXIT

case ${1:-} in
--zst) D=$WORK/zst-${2:-320}; pair_files "$D" regression --scale "${2:-320}" --zstd --zstd-graphs ;;
--ranks)
    n=${2:?--ranks N}; scale=${3:-320}; r=$(( (scale + n) / (2 * n) ))
    D=$WORK/ranks$n-$r; pair_files "$D" multi_rank --ranks "$n" --scale "$r" ;;
*) D=$WORK/pair-${1:-320}; pair_files "$D" regression --scale "${1:-320}" ;;
esac
files=("${FILES[@]}")
bytes=$(cat "${files[@]}" | wc -c)
rm -rf "$WORK/out"
valgrind -q --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" \
    "$SKDCCI" analyze -q "$D/o0" "$D/disable_all" -o "$WORK/out" >/dev/null
records=$(python3 -c '
import json, sys
def events(o):  # every sk_prof file the report lists, one-device or per device
    if isinstance(o, dict):
        return sum(f["events"] for f in o.get("sk_prof_files", [])) + \
            sum(events(v) for k, v in o.items() if k != "sk_prof_files")
    return sum(events(v) for v in o) if isinstance(o, list) else 0
print(events(json.load(open(sys.argv[1]))["integrity"]))' "$WORK/out/dcci-regression-analysis.json")
echo "Input: $(basename "$D"), $((bytes / 1000000)) MB in ${#files[@]} files, $records sk_prof events."
echo
python3 "$REPO/bench/profile.py" "$WORK/callgrind.out" "$bytes" "$records"
if command -v perf >/dev/null && perf record -q -e cpu-clock -o "$WORK/perf.data" true 2>/dev/null; then
    rm -rf "$WORK/out"
    perf record -q -e cpu-clock -F 4999 -o "$WORK/perf.data" \
        "$SKDCCI" analyze -q "$D/o0" "$D/disable_all" -o "$WORK/out" >/dev/null 2>&1
    echo
    echo "CPU time of one native run by library (perf, cpu-clock samples):"
    echo
    perf report -i "$WORK/perf.data" --no-children --sort dso -g none 2>/dev/null |
        awk '/%/ && !/^#/ {printf "- %s %s\n", $2, $1}' | head -6
    echo
    echo "Functions above 2 %:"
    echo
    perf report -i "$WORK/perf.data" --no-children --sort symbol -g none 2>/dev/null |
        awk '/%/ && !/^#/ && $1 + 0 >= 2 {printf "- %s %s\n", $3, $1}'
fi
[ -n "${BENCH_DIR:-}" ] || rm -rf "$D"
