#!/usr/bin/env bash
# Stage O trial-gate benchmark: `skdcci trial` on generated CLEAN roots of
# 5 incumbent runs and 5 trial runs x 8 rank logs, at several log lengths,
# side by side with `cat` of the same logs.
#
#   bench/trial.sh [LINES...]          default: 25000 50000 100000 lines per rank log (target: 5x8 logs of 100k lines)
#   BUILD=build bench/trial.sh         binaries from BUILD (default build)
#   BENCH_DIR=/path bench/trial.sh     where the roots go (default: a temp dir, removed)
#
# Each log line has the shape the launchers print:
#   "2026-01-05 10:00:07 INFO step=<i> Inference time (decode): <ms> ms"
# with a deterministic pseudo-random decode time, plus one prefill line, so the
# parser sees the real mix.  Logs are read once before timing (page cache).
# Prints a markdown table: input MB, wall, MB/s, CPU seconds, MB per CPU-s,
# peak RSS, for `cat`, `skdcci trial` and `skdcci trial --json-out`.
set -eu
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
SKDCCI=$BUILD/bin/skdcci
[ -x "$SKDCCI" ] || { echo "bench/trial.sh: build first (make), $SKDCCI is missing" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/trial.sh: GNU time (/usr/bin/time) is required" >&2; exit 2; }
SIZES=${*:-25000 50000 100000}
WORK=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/skdcci-trial-bench.XXXXXX")}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$WORK"' EXIT
RANKS=8
RUNS=5

# make_root DIR LINES BASE_MS SPREAD_US SEED: RUNS runs x RANKS logs of LINES
# decode lines, each BASE_MS plus a uniform pseudo-random 0..SPREAD_US microseconds
make_root() {
    local dir=$1 lines=$2 base=$3 spread=$4 seed=$5 run rank
    for run in $(seq 1 $RUNS); do
        mkdir -p "$dir/run-$run"
        for rank in $(seq 0 $((RANKS - 1))); do
            awk -v n="$lines" -v base="$base" -v spread="$spread" -v s=$((seed * 1000 + run * 10 + rank)) 'BEGIN {
                x = s % 2147483647 + 1
                printf "2026-01-05 10:00:00 INFO Inference time (prefill): 812.5 ms\n"
                for (i = 0; i < n; i++) {
                    x = (x * 48271) % 2147483647           # Park-Miller: deterministic, portable
                    printf "2026-01-05 10:%02d:%02d INFO step=%d Inference time (decode): %.3f ms\n",
                        int(i / 60) % 60, i % 60, i, base + (x % spread) / 1000.0
                }
            }' >"$dir/run-$run/log_$rank.log"
        done
    done
}

source "$REPO/bench/lib.sh"

row() { # LINES TOOL BYTES RESULTFILE
    python3 - "$@" <<'PY'
import sys
lines, tool, nbytes, res = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
wall, rss, rc, cpu = open(res).read().split()
wall, rss, cpu = float(wall), int(rss), float(cpu)
mb = nbytes / 1e6
print("| %s | %s | %.0f | %.3f | %.0f | %.2f | %.0f | %.1f |" % (
    lines, tool, mb, wall, mb / wall if wall else 0.0, cpu, mb / cpu if cpu else 0.0, rss / 1024))
PY
}

echo "| lines per log | tool | input MB | wall s | MB/s | CPU s | MB per CPU-s | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|"
for lines in $SIZES; do
    D=$WORK/trial-$lines
    rm -rf "$D"
    make_root "$D/incumbent" "$lines" 10 2000 1
    make_root "$D/trial" "$lines" 9 1500 2
    bytes=$(cat "$D"/incumbent/run-*/log_*.log "$D"/trial/run-*/log_*.log | wc -c)
    measure "$D/cat" cat "$D"/incumbent/run-*/log_*.log "$D"/trial/run-*/log_*.log
    row "$lines" cat "$bytes" "$D/cat"
    measure "$D/gate" "$SKDCCI" trial --allow-unproven --baseline "$D/incumbent" --candidate "T=$D/trial"
    read -r _ _ rc _ <"$D/gate"
    # incumbent 10-12 ms, trial 9-10.5 ms (faster, tighter): the trial must be accepted
    [ "$rc" = 0 ] || { echo "bench/trial.sh: skdcci trial exited $rc at $lines lines" >&2; exit 1; }
    row "$lines" "skdcci trial" "$bytes" "$D/gate"
    measure "$D/gatej" "$SKDCCI" trial --allow-unproven --baseline "$D/incumbent" --candidate "T=$D/trial" \
        --json-out "$D/out/trial.json"
    read -r _ _ rc _ <"$D/gatej"
    [ "$rc" = 0 ] || { echo "bench/trial.sh: skdcci trial --json-out exited $rc at $lines lines" >&2; exit 1; }
    row "$lines" "skdcci trial --json-out" "$bytes" "$D/gatej"
    rm -rf "$D"
done
