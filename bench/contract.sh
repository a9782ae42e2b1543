#!/usr/bin/env bash
# Contract benchmark: validate-set on two capture roots that each hold one
# large trace_view file, against `openssl dgst -sha256` on the same files.
#
#   bench/contract.sh [SIZE_MB...]      default: 64 1024 (two files of each size)
#   BUILD=build bench/contract.sh       binaries from BUILD/bin (default build)
#   BENCH_DIR=/path bench/contract.sh   where the files go (default: a temp dir)
#
# Files are written once and read once before timing, so every tool hashes
# from the page cache: the numbers compare hashing and reading code, not the
# disk.  Prints a markdown table: bytes hashed, wall time, MB/s, threads,
# MB/s per thread, ratio to openssl's single-file rate, and peak RSS.
# Target (docs/benchmarks.md): ratio >= 0.8 per thread, peak RSS < 32 MB
# whatever the size.
set -eu
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
AC=$BUILD/bin/artifact_contract
[ -x "$AC" ] || { echo "bench/contract.sh: build first (make), $AC is missing" >&2; exit 2; }
command -v openssl >/dev/null || { echo "bench/contract.sh: openssl is required" >&2; exit 2; }
SIZES=${*:-64 1024}
WORK=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/ac-bench.XXXXXX")}
trap 'rm -rf "$WORK"' EXIT
CPUS=$(getconf _NPROCESSORS_ONLN)

# run_measured OUTFILE CMD...: wall seconds, peak RSS (kB), exit code and CPU
# seconds (user + system, all threads) of CMD into OUTFILE
run_measured() {
    local out=$1; shift
    python3 - "$out" "$@" <<'PY'
import os, resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
rc = subprocess.call(cmd, stdout=subprocess.DEVNULL)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)  # wait4 rusage of the one child
with open(out, "w") as f:
    f.write("%f %d %d %f\n" % (wall, ru.ru_maxrss, rc, ru.ru_utime + ru.ru_stime))
PY
}

row() { # LABEL BYTES WALL THREADS RSS_KB CPU_S BASE_MBPS BASE_CPU_MBPS
    python3 -c '
import sys
label, nbytes, wall, threads, rss, cpu, base, base_cpu = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7]), float(sys.argv[8])
mbps = nbytes / 1e6 / wall
per = mbps / threads
per_cpu = nbytes / 1e6 / cpu
print("| %s | %.0f | %.3f | %.0f | %d | %.0f | %.2f | %.0f | %.2f | %.1f |" % (label, nbytes / 1e6, wall, mbps, threads, per, per / base, per_cpu, per_cpu / base_cpu, rss / 1024))
' "$@"
}

# Wall-clock rates depend on how busy the machine is; MB per CPU-second
# (user + system time of all threads) does not, so both are reported.
echo "| run | MB hashed | wall s | MB/s | threads | MB/s per thread | ratio (wall) | MB per CPU-s | ratio (CPU) | peak RSS (MB) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for size in $SIZES; do
    D="$WORK/$size"
    mkdir -p "$D/in"
    printf '{"superkernel": false}\n' >"$D/in/config.json"
    printf '{"rank": 0}\n' >"$D/in/control.json"
    printf '{"model": "m", "input": 1, "batch": 1, "rank": 1, "mode": "decode", "warmup": 1, "iterations": 1, "runtime": {}}\n' >"$D/in/workload.json"
    specs=()
    i=0
    for role in baseline_profile candidate_profile; do
        "$AC" begin --role $role --root "$D/$role" --session-out "$D/$role-session.json" >/dev/null
        start=$(date +%s%N)
        mkdir -p "$D/$role/p"
        head -c $((size * 1024 * 1024)) /dev/zero | tr '\0' "$((i + 1))" >"$D/$role/p/trace_view.json"
        files=(--file trace_view=p/trace_view.json)
        for f in kernel_details task_time sk_graph_origin sk_graph_updated sk_fused_nodes sk_scope_split super_kernel; do
            echo "$role:$f" >"$D/$role/p/$f"
            files+=(--file "$f=p/$f")
        done
        [ $role = baseline_profile ] && files=(--file trace_view=p/trace_view.json --file kernel_details=p/kernel_details --file task_time=p/task_time)
        end=$(date +%s%N)
        "$AC" finalize --session "$D/$role-session.json" --source-revision bench --native-pid $((100 + i)) \
            --started-ns "$start" --ended-ns "$end" --command-fingerprint "$(printf '%064d' $i)" \
            --workload "$D/in/workload.json" --config "$D/in/config.json" --control "$D/in/control.json" \
            "${files[@]}" --out "$D/$role/manifest.json" >/dev/null
        specs+=(--manifest "$role=$D/$role/manifest.json")
        i=$((i + 1))
    done
    big1="$D/baseline_profile/p/trace_view.json" big2="$D/candidate_profile/p/trace_view.json"
    cat "$big1" "$big2" >/dev/null
    bytes=$(( $(stat -c %s "$big1") + $(stat -c %s "$big2") ))
    run_measured "$D/o1" openssl dgst -sha256 "$big1"
    read -r o1 o1rss _ o1cpu <"$D/o1"
    base=$(python3 -c "print($(stat -c %s "$big1") / 1e6 / $o1)")
    base_cpu=$(python3 -c "print($(stat -c %s "$big1") / 1e6 / $o1cpu)")
    row "openssl dgst, 1 file of $size MiB" "$(stat -c %s "$big1")" "$o1" 1 "$o1rss" "$o1cpu" "$base" "$base_cpu"
    run_measured "$D/o2" openssl dgst -sha256 "$big1" "$big2"
    read -r o2 o2rss _ o2cpu <"$D/o2"
    row "openssl dgst, 2 files of $size MiB" "$bytes" "$o2" 1 "$o2rss" "$o2cpu" "$base" "$base_cpu"
    run_measured "$D/v1" "$AC" validate-set --jobs 1 "${specs[@]}"
    read -r v1 v1rss rc v1cpu <"$D/v1"
    [ "$rc" = 0 ] || { echo "validate-set failed" >&2; exit 1; }
    row "validate-set --jobs 1, 2 x $size MiB" "$bytes" "$v1" 1 "$v1rss" "$v1cpu" "$base" "$base_cpu"
    threads=$(( CPUS < 2 ? CPUS : 2 ))
    run_measured "$D/v2" "$AC" validate-set "${specs[@]}"
    read -r v2 v2rss rc v2cpu <"$D/v2"
    [ "$rc" = 0 ] || { echo "validate-set failed" >&2; exit 1; }
    row "validate-set (auto threads), 2 x $size MiB" "$bytes" "$v2" "$threads" "$v2rss" "$v2cpu" "$base" "$base_cpu"
    rm -rf "$D"
done
echo
echo "CPUs online: $CPUS.  openssl: $(openssl version)."
