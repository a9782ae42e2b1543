#!/usr/bin/env bash
# DCCI analyzer benchmark: skdcci analyze on generated O0 / disable-all pairs,
# side by side with `cat` of the same files and Python's json.load of one
# sk_prof trace (the floor of any Python tool).
#
#   bench/analyze.sh [SCALE...]      default: 32 320 3300
#                                    (≈10 MB, ≈100 MB, ≈1 GB of sk_prof + CSV per side)
#   bench/analyze.sh --ranks N SCALE a multi_rank pair of N ranks at scale SCALE/(2N)
#                                    (each rank also holds the raw copy of its trace), so
#                                    of about the input size of the one-device pair at
#                                    SCALE, beside that pair (default 8 ranks, SCALE 320)
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
# With --ranks the table compares the two analyses, with the ratio of their
# MB per CPU-second (the N-rank pair's over the one-device pair's).
set -eu
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
SKDCCI=$BUILD/bin/skdcci
GEN=${SKDCCI_GEN:-$BUILD/tests/tools/skdcci_gen}
[ -x "$SKDCCI" ] || { echo "bench/analyze.sh: build first (make), $SKDCCI is missing" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/analyze.sh: GNU time (/usr/bin/time) is required" >&2; exit 2; }
[ -x "$GEN" ] || { echo "bench/analyze.sh: the generator $GEN is missing (make $BUILD/tests/tools/skdcci_gen)" >&2; exit 2; }
RANKS=
if [ "${1:-}" = --ranks ]; then
    RANKS=${2:-}
    case $RANKS in [2-9]|1[0-6]) ;; *) echo "bench/analyze.sh: --ranks takes 2 to 16" >&2; exit 2 ;; esac
    shift 2
    [ $# -le 1 ] || { echo "bench/analyze.sh: --ranks N takes one SCALE" >&2; exit 2; }
fi
SCALES=${*:-32 320 3300}
[ -z "$RANKS" ] || SCALES=${1:-320}
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

# The analyzer inputs of a pair, one path per line: kernel_details, both
# copies of every trace, fused logs, runtime logs, graphs.
inputs_of() {
    find "$1/o0" "$1/disable_all" -type f \
        \( -name 'kernel_details.csv*' -o -name 'sk_prof_*' -o -name 'sk_fused_nodes.log*' \
        -o -name 'super_kernel.log*' -o -name 'sk_graph_*.json*' \) | LC_ALL=C sort
}

mbps_of() { python3 -c "import sys; w=float(open(sys.argv[1]).read().split()[0]); print(int(sys.argv[2])/1e6/w)" "$1" "$2"; }

# One analysis of pair D into OUT, as the timed runs do: it must end in the
# unsealed exit (3, collection_blocked) for no other reason than --unsealed,
# so that a refusal of the input is never timed as an analysis.
analyze_ok() { # D OUT LABEL
    rm -rf "$2"
    local rc=0
    "$SKDCCI" analyze --unsealed -q --warmup-launches 2 "$1/o0" "$1/disable_all" -o "$2" \
        >/dev/null 2>"$WORK/check.err" || rc=$?
    if [ "$rc" != 3 ] || [ "$(grep -c . "$WORK/check.err")" != 1 ] ||
       ! grep -q '^skdcci analyze: collection_blocked: unsealed_input: ' "$WORK/check.err"; then
        echo "bench/analyze.sh: skdcci analyze does not analyse the $3 pair (exit $rc): $(head -c 300 "$WORK/check.err")" >&2
        exit 1
    fi
    rm -rf "$2"
}

# --ranks N: the N-rank pair beside the one-device pair of the same size.
ranks_section() {
    local scale=$1 rscale D1 DR r
    rscale=$(( (scale + RANKS) / (2 * RANKS) ))
    [ "$rscale" -ge 1 ] || rscale=1
    D1=$WORK/pair-$scale
    DR=$WORK/ranks$RANKS-$rscale
    [ -d "$D1" ] || "$GEN" --out "$D1" --scenario regression --scale "$scale" >/dev/null
    [ -d "$DR" ] || "$GEN" --out "$DR" --scenario multi_rank --ranks "$RANKS" --scale "$rscale" >/dev/null
    local f1=() fr=()
    while IFS= read -r f; do f1+=("$f"); done < <(inputs_of "$D1")
    while IFS= read -r f; do fr+=("$f"); done < <(inputs_of "$DR")
    local b1 br
    b1=$(cat "${f1[@]}" | wc -c)
    br=$(cat "${fr[@]}" | wc -c)
    analyze_ok "$D1" "$WORK/out-one" "one-device"
    analyze_ok "$DR" "$WORK/out-ranks" "$RANKS-rank"
    # REPEAT interleaved rounds; each row is its pair's median round
    for r in $(seq "$REPEAT"); do
        measure "$WORK/one.$r" "$SKDCCI" analyze --unsealed -q --warmup-launches 2 "$D1/o0" "$D1/disable_all" \
            -o "$WORK/out-one"
        rm -rf "$WORK/out-one"
        measure "$WORK/rk.$r" "$SKDCCI" analyze --unsealed -q --warmup-launches 2 "$DR/o0" "$DR/disable_all" \
            -o "$WORK/out-ranks"
        rm -rf "$WORK/out-ranks"
        for x in one rk; do
            read -r _ _ rc _ <"$WORK/$x.$r"
            [ "$rc" = 3 ] || { echo "bench/analyze.sh: skdcci analyze exited $rc ($x, scale $scale)" >&2; exit 1; }
        done
    done
    median_of "$WORK/one" "$WORK"/one.[0-9]*
    median_of "$WORK/rk" "$WORK"/rk.[0-9]*
    rm -f "$WORK"/one.[0-9]* "$WORK"/rk.[0-9]*
    echo "| pair | scale | input MB | wall s | MB/s | CPU s | MB per CPU-s | peak RSS MB | MB per CPU-s vs one device |"
    echo "|---|---|---|---|---|---|---|---|---|"
    python3 - "$RANKS" "$scale" "$rscale" "$b1" "$br" "$WORK/one" "$WORK/rk" <<'PY'
import sys
ranks, s1, sr, b1, br, f1, fr = sys.argv[1:]
def fig(nbytes, res):
    wall, rss, rc, cpu = open(res).read().split()
    wall, cpu, mb = float(wall), float(cpu), int(nbytes) / 1e6
    return mb, wall, mb / wall if wall else 0.0, cpu, mb / cpu if cpu else 0.0, int(rss) / 1024
one, rk = fig(b1, f1), fig(br, fr)
for label, scale, f, ratio in (("one device", s1, one, "1.00"),
                               ("%s ranks" % ranks, sr, rk, "%.2f" % (rk[4] / one[4]) if one[4] else "-")):
    print("| %s | %s | %.0f | %.3f | %.0f | %.2f | %.0f | %.1f | %s |" % ((label, scale) + f + (ratio,)))
PY
    [ -n "${BENCH_DIR:-}" ] || rm -rf "$D1" "$DR"
}

echo "Machine: $(getconf _NPROCESSORS_ONLN) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
if [ -n "$RANKS" ]; then
    ranks_section "$SCALES"
    exit 0
fi
echo "| scale | tool | input MB | wall s | MB/s | CPU s | MB per CPU-s | peak RSS MB | x json.load (MB/s) |"
echo "|---|---|---|---|---|---|---|---|---|"
for scale in $SCALES; do
    D=$WORK/pair-$scale
    [ -d "$D" ] || "$GEN" --out "$D" --scenario regression --scale "$scale" >/dev/null
    files=()
    while IFS= read -r f; do files+=("$f"); done < <(inputs_of "$D")
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
