#!/usr/bin/env bash
# DCCI analyzer benchmark: skdcci analyze on generated pairs, sealed as a
# collection is (tests/tools/seal_pair.sh), so that every input is read,
# SHA-256 confirmed against its manifest and parsed, beside the floor of that
# work on the same files: `openssl dgst -sha256` (one process, one thread)
# and `cat`.
#
#   bench/analyze.sh [SCALE...]        regression pairs (default: 32 320 3300, ≈10 MB,
#                                      ≈100 MB, ≈1 GB of sk_prof + CSV per side), with
#                                      Python's json.load of one trace (the floor of any
#                                      Python tool) beside them
#   bench/analyze.sh --zst [SCALE...]  the same pairs written as .zst (traces, CSV and
#                                      graphs), beside `zstd -dcf` of the same files plus
#                                      `openssl dgst -sha256` (default: 320 3300)
#   bench/analyze.sh --ranks N SCALE   a multi_rank pair of N ranks at scale SCALE/(2N)
#                                      (each rank also holds the raw copy of its trace), so
#                                      of about the input size of the one-device pair at
#                                      SCALE, beside that pair (default 8 ranks, SCALE 320)
#   BUILD=build bench/analyze.sh       binaries from BUILD (default build)
#   SKDCCI_GEN=path                    the generator (default BUILD/tests/tools/skdcci_gen)
#   BENCH_DIR=/path                    where the pairs go (default: a temp dir, removed)
#   BENCH_PYTHON=0                     skip json.load (it needs ~5 GB of RAM at 1 GB)
#   BENCH_REPEAT=N                     rounds per size (default 5): the tools run
#                                      interleaved, each row is its tool's median run
#
# Every input is read once before timing, so all tools read from the page
# cache: the numbers compare code, not the disk.  Wall-clock rates depend on
# how busy the machine is; MB per CPU-second (user + system, all threads)
# does not, so both are printed, as a markdown table on stdout, with each
# analysis's wall time over that of `openssl dgst -sha256` and of `cat` of
# the same files measured in the same rounds.  The targets are evaluated by
# bench/run.sh from these tables (docs/benchmarks.md).
set -eu
REPO=$(cd "$(dirname "$0")/.." && pwd)
source "$REPO/bench/lib.sh"
bench_binaries bench/analyze.sh
[ -x /usr/bin/time ] || { echo "bench/analyze.sh: GNU time (/usr/bin/time) is required" >&2; exit 2; }
command -v openssl >/dev/null || { echo "bench/analyze.sh: openssl is required" >&2; exit 2; }
MODE=one RANKS=
case ${1:-} in
--ranks)
    MODE=ranks RANKS=${2:-}
    case $RANKS in [2-9]|1[0-6]) ;; *) echo "bench/analyze.sh: --ranks takes 2 to 16" >&2; exit 2 ;; esac
    shift 2
    [ $# -le 1 ] || { echo "bench/analyze.sh: --ranks N takes one SCALE" >&2; exit 2; }
    SCALES=${1:-320} ;;
--zst)
    MODE=zst
    shift
    command -v zstd >/dev/null || { echo "bench/analyze.sh: zstd is required for --zst" >&2; exit 2; }
    SCALES=${*:-320 3300} ;;
*)
    SCALES=${*:-32 320 3300} ;;
esac
REPEAT=${BENCH_REPEAT:-5}
WORK=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/skdcci-bench.XXXXXX")}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$WORK"' EXIT

# One analysis of pair D into OUT, as the timed runs do: it must succeed
# (exit 0), so that a refusal of the input is never timed as an analysis.
analyze_ok() { # D OUT LABEL
    rm -rf "$2"
    local rc=0
    "$SKDCCI" analyze -q "$1/o0" "$1/disable_all" -o "$2" >/dev/null 2>"$WORK/check.err" || rc=$?
    if [ "$rc" != 0 ]; then
        echo "bench/analyze.sh: skdcci analyze does not analyse the $3 pair (exit $rc): $(head -c 300 "$WORK/check.err")" >&2
        exit 1
    fi
    rm -rf "$2"
}

TOOLS=()
tool() { # NAME CMD...: registers a tool for the next rounds
    local name=$1; shift
    TOOLS+=("$name")
    printf '%s\0' "$@" >"$WORK/cmd.$name"
}
rounds() { # runs every registered tool REPEAT times, interleaved; each must exit 0
    local r name
    for r in $(seq "$REPEAT"); do
        for name in "${TOOLS[@]}"; do
            local cmd=()
            while IFS= read -r -d '' a; do cmd+=("$a"); done <"$WORK/cmd.$name"
            rm -rf "$WORK/out"
            measure "$WORK/res.$name.$r" "${cmd[@]}"
            read -r _ _ rc _ <"$WORK/res.$name.$r"
            [ "$rc" = 0 ] || { echo "bench/analyze.sh: $name exited $rc" >&2; exit 1; }
        done
    done
    for name in "${TOOLS[@]}"; do
        median_of "$WORK/res.$name" "$WORK"/res."$name".[0-9]*
        rm -f "$WORK"/res."$name".[0-9]*
    done
    rm -rf "$WORK/out"
    TOOLS=()
}

# table_row KIND ARGS...: one row of the one-device or the .zst table from
# the tools' median results
table_row() {
    python3 - "$WORK" "$@" <<'PY'
import sys
work, kind, args = sys.argv[1], sys.argv[2], sys.argv[3:]
def res(name):
    wall, rss, rc, cpu = open("%s/res.%s" % (work, name)).read().split()
    return float(wall), int(rss) / 1024, float(cpu)
def ratio(a, b):
    return "%.2f" % (a / b) if b else "-"
if kind == "one":   # scale tool name bytes base_py_mbps sha cat
    scale, label, name, nbytes, py, sha, cat = args
    wall, rss, cpu = res(name)
    mb = int(nbytes) / 1e6
    py = float(py)
    x_py = "%.1f" % (mb / wall / py) if py and name == "an" else "-"
    vs = lambda b: ratio(wall, res(b)[0]) if name == "an" else "-"
    print("| %s | %s | %.0f | %.3f | %.0f | %.2f | %.0f | %.1f | %s | %s | %s |" % (
        scale, label, mb, wall, mb / wall if wall else 0, cpu, mb / cpu if cpu else 0, rss,
        x_py, vs(sha), vs(cat)))
elif kind == "zst":  # scale tool name stored decoded
    scale, label, name, stored, decoded = args
    wall, rss, cpu = res(name)
    base = "-"
    if name == "an":
        base = ratio(wall, res("zstd")[0] + res("sha")[0])
    print("| %s | %s | %.0f | %.0f | %.3f | %.2f | %.1f | %s |" % (
        scale, label, int(stored) / 1e6, int(decoded) / 1e6, wall, cpu, rss, base))
PY
}

bytes_of() { # FILE...: their total size
    cat "$@" | wc -c
}

mbps_of() { python3 -c "import sys; w=float(open(sys.argv[1]).read().split()[0]); print(int(sys.argv[2])/1e6/w)" "$1" "$2"; }

echo "Machine: $(getconf _NPROCESSORS_ONLN) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo

one_device() {
    echo "| scale | tool | input MB | wall s | MB/s | CPU s | MB per CPU-s | peak RSS MB | x json.load (MB/s) | wall / SHA-256 | wall / cat |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    local scale
    for scale in $SCALES; do
        local D=$WORK/pair-$scale
        pair_files "$D" regression --scale "$scale"
        local files=("${FILES[@]}") bytes trace tbytes py_mbps=0
        bytes=$(bytes_of "${files[@]}")
        trace=$D/o0/profiler/sk_prof_device_0.json
        tbytes=$(wc -c <"$trace")
        analyze_ok "$D" "$WORK/out" "scale $scale"
        if [ "${BENCH_PYTHON:-1}" != 0 ]; then
            tool py python3 -c 'import json, sys; json.load(open(sys.argv[1], "rb"))' "$trace"
        fi
        tool cat cat "${files[@]}"
        tool sha openssl dgst -sha256 "${files[@]}"
        tool an "$SKDCCI" analyze -q "$D/o0" "$D/disable_all" -o "$WORK/out"
        rounds
        if [ "${BENCH_PYTHON:-1}" != 0 ]; then
            py_mbps=$(mbps_of "$WORK/res.py" "$tbytes")
        fi
        table_row one "$scale" cat cat "$bytes" 0 sha cat
        table_row one "$scale" "openssl dgst -sha256" sha "$bytes" 0 sha cat
        [ "$py_mbps" = 0 ] || table_row one "$scale" "json.load (one trace)" py "$tbytes" 0 sha cat
        table_row one "$scale" "skdcci analyze" an "$bytes" "$py_mbps" sha cat
        [ -n "${BENCH_DIR:-}" ] || rm -rf "$D"
    done
}

zst() {
    echo "| scale | tool | stored MB | decoded MB | wall s | CPU s | peak RSS MB | wall / (zstd -dc + SHA-256) |"
    echo "|---|---|---|---|---|---|---|---|"
    local scale
    for scale in $SCALES; do
        local D=$WORK/zst-$scale
        pair_files "$D" regression --scale "$scale" --zstd --zstd-graphs
        local files=("${FILES[@]}") stored decoded
        stored=$(bytes_of "${files[@]}")
        decoded=$(zstd -dcf "${files[@]}" | wc -c)
        analyze_ok "$D" "$WORK/out" "zst scale $scale"
        tool zstd zstd -dcfq "${files[@]}"
        tool sha openssl dgst -sha256 "${files[@]}"
        tool an "$SKDCCI" analyze -q "$D/o0" "$D/disable_all" -o "$WORK/out"
        rounds
        table_row zst "$scale" "zstd -dcf" zstd "$stored" "$decoded"
        table_row zst "$scale" "openssl dgst -sha256" sha "$stored" "$decoded"
        table_row zst "$scale" "skdcci analyze" an "$stored" "$decoded"
        [ -n "${BENCH_DIR:-}" ] || rm -rf "$D"
    done
}

# --ranks N: the N-rank pair beside the one-device pair of the same size.
ranks() {
    local scale=$1 rscale D1 DR
    rscale=$(( (scale + RANKS) / (2 * RANKS) ))
    [ "$rscale" -ge 1 ] || rscale=1
    D1=$WORK/pair-$scale
    DR=$WORK/ranks$RANKS-$rscale
    pair_files "$D1" regression --scale "$scale"
    local f1=("${FILES[@]}")
    pair_files "$DR" multi_rank --ranks "$RANKS" --scale "$rscale"
    local fr=("${FILES[@]}")
    local b1 br
    b1=$(bytes_of "${f1[@]}")
    br=$(bytes_of "${fr[@]}")
    analyze_ok "$D1" "$WORK/out" "one-device"
    analyze_ok "$DR" "$WORK/out" "$RANKS-rank"
    tool cat1 cat "${f1[@]}"
    tool sha1 openssl dgst -sha256 "${f1[@]}"
    tool an1 "$SKDCCI" analyze -q "$D1/o0" "$D1/disable_all" -o "$WORK/out"
    tool catr cat "${fr[@]}"
    tool shar openssl dgst -sha256 "${fr[@]}"
    tool anr "$SKDCCI" analyze -q "$DR/o0" "$DR/disable_all" -o "$WORK/out"
    rounds
    echo "| pair | scale | tool | input MB | wall s | MB/s | CPU s | MB per CPU-s | peak RSS MB | MB per CPU-s vs one device | wall / SHA-256 | wall / cat |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    python3 - "$WORK" "$RANKS" "$scale" "$rscale" "$b1" "$br" <<'PY'
import sys
work, ranks, s1, sr, b1, br = sys.argv[1:]
def res(name):
    wall, rss, rc, cpu = open("%s/res.%s" % (work, name)).read().split()
    return float(wall), int(rss) / 1024, float(cpu)
one_per = int(b1) / 1e6 / res("an1")[2] if res("an1")[2] else 0
for label, scale, nbytes, suffix in (("one device", s1, b1, "1"), ("%s ranks" % ranks, sr, br, "r")):
    mb = int(nbytes) / 1e6
    for tool, name in (("cat", "cat"), ("openssl dgst -sha256", "sha"), ("skdcci analyze", "an")):
        wall, rss, cpu = res(name + suffix)
        per = mb / cpu if cpu else 0
        an = name == "an"
        vs_one = "%.2f" % (per / one_per) if an and one_per else "-"
        vs = lambda b: "%.2f" % (wall / res(b + suffix)[0]) if an else "-"
        print("| %s | %s | %s | %.0f | %.3f | %.0f | %.2f | %.0f | %.1f | %s | %s | %s |" % (
            label, scale, tool, mb, wall, mb / wall if wall else 0, cpu, per, rss, vs_one,
            vs("sha"), vs("cat")))
PY
    [ -n "${BENCH_DIR:-}" ] || rm -rf "$D1" "$DR"
}

case $MODE in
one) one_device ;;
zst) zst ;;
ranks) ranks "$SCALES" ;;
esac
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
