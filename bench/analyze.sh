#!/usr/bin/env bash
# DCCI analyzer benchmark: skdcci analyze on generated O0 / disable-all pairs,
# side by side with `cat` of the same files and Python's json.load of one
# sk_prof trace (the floor of any Python tool).
#
#   bench/analyze.sh [SCALE...]      default: 32 320 3300
#                                    (≈10 MB, ≈100 MB, ≈1 GB of sk_prof + CSV per side)
#   BUILD=build bench/analyze.sh     binaries from BUILD (default build)
#   SKDCCI_GEN=path                  the generator (default BUILD/tests/tools/skdcci_gen)
#   BENCH_DIR=/path                  where the pairs go (default: a temp dir, removed)
#   BENCH_PYTHON=0                   skip json.load (it needs ~5 GB of RAM at 1 GB)
#   BENCH_REPEAT=N                   rounds per size (default 3): the tools run
#                                    interleaved, each row is its tool's median run
#
# Every input is read once before timing, so all tools read from the page
# cache: the numbers compare parsing code, not the disk.  Wall-clock rates
# depend on how busy the machine is; MB per CPU-second (user + system, all
# threads) does not, so both are printed, as a markdown table on stdout.
# Targets (docs/benchmarks.md): >= 600 MB/s of input (both sides) at the two
# largest sizes on the 2-core machine, peak RSS flat across sizes, >= 10x the MB/s of json.load.
set -eu
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
SKDCCI=$BUILD/bin/skdcci
GEN=${SKDCCI_GEN:-$BUILD/tests/tools/skdcci_gen}
[ -x "$SKDCCI" ] || { echo "bench/analyze.sh: build first (make), $SKDCCI is missing" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/analyze.sh: GNU time (/usr/bin/time) is required" >&2; exit 2; }
[ -x "$GEN" ] || { echo "bench/analyze.sh: the generator $GEN is missing (make $BUILD/tests/tools/skdcci_gen)" >&2; exit 2; }
SCALES=${*:-32 320 3300}
REPEAT=${BENCH_REPEAT:-3}
WORK=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/skdcci-bench.XXXXXX")}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$WORK"' EXIT

source "$REPO/bench/lib.sh"

row() { # SCALE TOOL BYTES RESULTFILE [BASE_MBPS]
    python3 - "$@" <<'PY'
import sys
scale, tool, nbytes, res = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
base = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
wall, rss, rc, cpu = open(res).read().split()
wall, rss, cpu = float(wall), int(rss), float(cpu)
mb = nbytes / 1e6
mbps = mb / wall if wall else 0.0
ratio = ("%.1f" % (mbps / base)) if base else "-"
print("| %s | %s | %.0f | %.3f | %.0f | %.2f | %.0f | %.1f | %s |" % (
    scale, tool, mb, wall, mbps, cpu, mb / cpu if cpu else 0.0, rss / 1024, ratio))
PY
}

mbps_of() { python3 -c "import sys; w=float(open(sys.argv[1]).read().split()[0]); print(int(sys.argv[2])/1e6/w)" "$1" "$2"; }

echo "Machine: $(getconf _NPROCESSORS_ONLN) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| scale | tool | input MB | wall s | MB/s | CPU s | MB per CPU-s | peak RSS MB | x json.load (MB/s) |"
echo "|---|---|---|---|---|---|---|---|---|"
for scale in $SCALES; do
    D=$WORK/pair-$scale
    [ -d "$D" ] || "$GEN" --out "$D" --scenario regression --scale "$scale" >/dev/null
    files=()
    while IFS= read -r f; do files+=("$f"); done < <(find "$D/o0" "$D/disable_all" -type f \
        \( -name 'kernel_details.csv*' -o -name 'sk_prof_*' -o -name 'sk_fused_nodes.log*' \
        -o -name 'super_kernel.log*' -o -name 'sk_graph_*.json*' \) | LC_ALL=C sort)
    bytes=$(cat "${files[@]}" | wc -c)
    trace=$D/o0/profiler/sk_prof_device_0.json
    tbytes=$(wc -c <"$trace")
    py_mbps=0
    # REPEAT interleaved rounds of the three tools; each row is the round
    # with the median wall time of its tool
    for r in $(seq "$REPEAT"); do
        if [ "${BENCH_PYTHON:-1}" != 0 ]; then
            measure "$WORK/py.$r" python3 -c 'import json, sys; json.load(open(sys.argv[1], "rb"))' \
                "$trace"
        fi
        measure "$WORK/cat.$r" cat "${files[@]}"
        rm -rf "$WORK/out-$scale"
        measure "$WORK/an.$r" "$SKDCCI" analyze --unsealed -q --warmup-launches 2 "$D/o0" \
            "$D/disable_all" -o "$WORK/out-$scale"
        read -r _ _ rc _ <"$WORK/an.$r"
        [ "$rc" = 3 ] || { echo "bench/analyze.sh: skdcci analyze exited $rc at scale $scale" >&2; exit 1; }
    done
    if [ "${BENCH_PYTHON:-1}" != 0 ]; then
        median_of "$WORK/py" "$WORK"/py.[0-9]*
        py_mbps=$(mbps_of "$WORK/py" "$tbytes")
    fi
    median_of "$WORK/cat" "$WORK"/cat.[0-9]*
    median_of "$WORK/an" "$WORK"/an.[0-9]*
    rm -f "$WORK"/py.[0-9]* "$WORK"/cat.[0-9]* "$WORK"/an.[0-9]*
    row "$scale" cat "$bytes" "$WORK/cat"
    if [ "$py_mbps" != 0 ]; then
        row "$scale" "json.load (one trace)" "$tbytes" "$WORK/py"
        row "$scale" "skdcci analyze" "$bytes" "$WORK/an" "$py_mbps"
    else
        row "$scale" "skdcci analyze" "$bytes" "$WORK/an"
    fi
    rm -rf "$WORK/out-$scale"
    [ -n "${BENCH_DIR:-}" ] || rm -rf "$D"
done
