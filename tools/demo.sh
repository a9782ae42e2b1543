#!/usr/bin/env bash
# make demo: the main job on the shipped demo collection (fixtures/demo).
#
#   1. copy fixtures/demo (a raw O0 / disable-all pair) into a fresh
#      temporary directory;
#   2. seal both sides with artifact_contract begin / run / finalize and
#      validate the pair (tests/tools/seal_pair.sh: the one implementation of
#      sealing a pair, shared with the tests);
#   3. run `skdcci analyze` on the sealed roots into build/demo/out-<N> (the
#      first N not yet used: earlier results are never overwritten);
#   4. print the status, the repair list L, where the outputs are and the
#      path of the HTML page (docs/report-html.md).
#
# Exit 0 only when the analysis reached the status and list that
# fixtures/demo/ground-truth.json expects; 1 otherwise.
# Environment: B (build directory, default build), TMPDIR.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd -P)
B=${B:-build}
case $B in /*) ;; *) B=$REPO/$B ;; esac
SKDCCI=$B/bin/skdcci
AC=$B/bin/artifact_contract
DEMO=$REPO/fixtures/demo

fail() { echo "demo: $*" >&2; exit 1; }

for bin in "$SKDCCI" "$AC"; do
    [ -x "$bin" ] || fail "$bin is not built: run make first"
done
command -v python3 >/dev/null || fail "python3 is needed to read the report (make deps installs it)"

work=$(mktemp -d "${TMPDIR:-/tmp}/skdcci-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -R "$DEMO/." "$work/pair"
"$REPO/tests/tools/seal_pair.sh" --artifact-contract "$AC" "$work/pair" >"$work/seal.log" 2>&1 ||
    { cat "$work/seal.log" >&2; fail "sealing the demo pair failed"; }
echo "demo: sealed the demo pair in $work/pair (removed on exit)"

mkdir -p "$B/demo"
n=1
while [ -e "$B/demo/out-$n" ]; do n=$((n + 1)); done
out=$B/demo/out-$n

rc=0
"$SKDCCI" analyze -q "$work/pair/o0" "$work/pair/disable_all" -o "$out" >"$work/analyze.out" || rc=$?
[ -f "$out/dcci-regression-analysis.json" ] || fail "skdcci analyze wrote no report (exit $rc)"

python3 - "$DEMO/ground-truth.json" "$out" "$rc" <<'PY'
import json, os, sys
truth, out, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
want = json.load(open(truth, encoding="utf-8"))["expected"]
r = json.load(open(os.path.join(out, "dcci-regression-analysis.json"), encoding="utf-8"))
print(f"status:   {r['status']} (exit {rc})")
print(f"L:        {json.dumps(r['regexes'])}")
for f in sorted(os.listdir(out)):
    print(f"output:   {os.path.join(out, f)}")
print(f"page:     {os.path.join(out, 'DCCI_REGRESSION_ANALYSIS.html')} (the report with charts: open it in a browser)")
ok = r["status"] == want["status"] and r["regexes"] == want["regexes"] and rc == 0
if not ok:
    print(f"demo: expected status {want['status']} with L = {json.dumps(want['regexes'])}",
          file=sys.stderr)
sys.exit(0 if ok else 1)
PY
