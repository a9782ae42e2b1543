# Shared by the benchmark scripts (sourced).

# measure OUTFILE CMD...: "wall_s rss_kb exit cpu_s" of CMD into OUTFILE.
# GNU time runs CMD (a small parent, so the RSS it reports is CMD's own) and
# gives its peak RSS, exit status and CPU seconds; the wall time is taken
# around it with a monotonic clock in microseconds, because time's %e has
# 10 ms steps, too coarse for the runs of tens of milliseconds at the
# smallest sizes (it includes time's own fork and exec, well under 1 ms).
measure() {
    local out=$1; shift
    python3 - "$out" "$@" <<'PY'
import subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter()
subprocess.run(["/usr/bin/time", "-o", out, "-f", "%M %x %U %S"] + cmd,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.perf_counter() - t0
m, x, u, s = open(out).read().split("\n")[-2].split()
with open(out, "w") as f:
    f.write("%.6f %s %s %.2f\n" % (wall, m, x, float(u) + float(s)))
PY
}

# median_of OUTFILE RESULT...: copies the measure() result with the median
# wall time (of an odd number; the lower middle of an even one) to OUTFILE.
# The scripts repeat runs, interleaving the tools they compare, so that a
# burst of load on the shared machine does not decide a ratio by itself.
median_of() {
    local out=$1; shift
    python3 - "$out" "$@" <<'PY'
import shutil, sys
out, files = sys.argv[1], sys.argv[2:]
runs = sorted(files, key=lambda f: float(open(f).read().split()[0]))
shutil.copyfile(runs[(len(runs) - 1) // 2], out)
PY
}

# pair DIR SCENARIO [GEN ARGS...]: generates a pair with $GEN and seals it
# with $AC as a collection is (once; an existing DIR is kept)
pair() {
    local d=$1 s=$2
    shift 2
    [ -d "$d" ] && return 0
    "$GEN" --out "$d" --scenario "$s" "$@" >/dev/null
    "$REPO/tests/tools/seal_pair.sh" --artifact-contract "$AC" "$d" >/dev/null
}

# The sealed files of pair D, one path per line: every file both manifests
# list, i.e. every byte analyze reads and confirms.
files_of() {
    python3 - "$1" <<'PY'
import json, os, sys
d = sys.argv[1]
for side in ("o0", "disable_all"):
    m = json.load(open(os.path.join(d, side, "collection-manifest.json")))
    for entries in m["files"].values():
        for e in entries:
            print(os.path.join(d, side, e["path"]))
PY
}

# bench_binaries SCRIPT: BUILD (default REPO/build), SKDCCI, AC and GEN
# (SKDCCI_GEN, default the build's generator); fails when one is missing.
bench_binaries() {
    BUILD=${BUILD:-$REPO/build}
    SKDCCI=$BUILD/bin/skdcci
    AC=$BUILD/bin/artifact_contract
    GEN=${SKDCCI_GEN:-$BUILD/tests/tools/skdcci_gen}
    [ -x "$SKDCCI" ] && [ -x "$AC" ] && [ -x "$GEN" ] ||
        { echo "$1: build first (make bins $BUILD/tests/tools/skdcci_gen)" >&2; exit 2; }
}

# pair_files DIR SCENARIO [GEN ARGS...]: pair, then FILES holds its sealed files
pair_files() {
    pair "$@"
    FILES=()
    while IFS= read -r f; do FILES+=("$f"); done < <(files_of "$1")
}
