#!/usr/bin/env bash
# No verdict the evidence does not support: sealed skdcci_gen pairs made
# incomplete before sealing (a header-only kernel_details on disable-all, one
# rejected row of a significantly slower SK) give evidence_blocked naming the
# SKs (by their O0 name), with no list L and no option file; a mistyped root is named as missing
# before anything else.
source "$SK_REPO/tests/lib.sh"
GEN=${SKDCCI_GEN:-$TOOLS/skdcci_gen}
SEAL=${SEAL_PAIR:-$SK_REPO/tests/tools/seal_pair.sh}
W=$PWD

# gen DIR, then MUTATION (a python snippet editing DIR), then seal
prepare() { # DIR PYTHON
    "$GEN" --out "$1" --scenario regression >/dev/null 2>"$W/gen.err" || { cat "$W/gen.err"; return 1; }
    python3 -c "$2" "$1" || return 1
    "$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$1" >/dev/null 2>"$W/seal.err" ||
        { cat "$W/seal.err"; return 1; }
}

verdict_check() { # OUT RC EXPECTED_STATUS [NAME_IN_REASONS]
    python3 - "$@" <<'PY'
import json, os, sys
out, rc, want = sys.argv[1], int(sys.argv[2]), sys.argv[3]
name = sys.argv[4] if len(sys.argv) > 4 else None
r = json.load(open(os.path.join(out, "dcci-regression-analysis.json")))
p = []
if r["status"] != want: p.append(f"status {r['status']}, want {want}")
if rc != 3: p.append(f"exit {rc}, want 3")
if r["regexes"] or r["collateral"]: p.append("a list L in a blocked report")
if not r["to_collect"]: p.append("no to_collect")
codes = {i["code"] for i in r["status_reasons"]}
if codes != {"sk_unclassified"}: p.append(f"reasons {codes}")
if name and not any(name in i["message"] for i in r["status_reasons"]): p.append(f"{name} not named")
for f in ("option-values.json", "dcci-repair-options.json"):
    if os.path.exists(os.path.join(out, f)): p.append(f"{f} written")
md = open(os.path.join(out, "DCCI_REGRESSION_ANALYSIS.md"), encoding="utf-8").read()
if "dcci_before_kernel_start =" in md: p.append("the report holds a before/after list")
print("\n".join(p))
sys.exit(1 if p else 0)
PY
}

# 1. disable-all kernel_details holds only its header line
if prepare "$W/header" '
import sys
p = sys.argv[1] + "/disable_all/profiler/kernel_details.csv"
head = open(p).readline()
open(p, "w").write(head)'; then
    skdcci analyze -q "$W/header/o0" "$W/header/disable_all" -o "$W/header.out" >/dev/null 2>"$W/err.txt"
    rc=$?
    t_ok header_only:evidence_blocked verdict_check "$W/header.out" "$rc" evidence_blocked
    t_ok header_only:stderr_names_gate grep -q "^skdcci analyze: evidence_blocked: sk_unclassified: " "$W/err.txt"
    t_ok header_only:names_short_side grep -q "too few on disable-all" "$W/header.out/dcci-regression-analysis.json"
else
    t_fail header_only:prepare
fi

# 2. one rejected row (empty Duration) of the most regressed SK on disable-all
if prepare "$W/dropped" '
import csv, io, json, sys
d = sys.argv[1]
t = json.load(open(d + "/ground-truth.json"))
slow = [s for s in t["sks"] if s["realized_sk_wall"]["class"] == "significantly_slower"]
name = slow[0]["names"]["disable_all"]
open(d + "/slow-name", "w").write(slow[0]["names"]["o0"])
p = d + "/disable_all/profiler/kernel_details.csv"
lines = open(p, newline="").read().split("\n")
for i, l in enumerate(lines):
    if name in l:
        f = l.split(",")
        f[10] = ""
        lines[i] = ",".join(f)
        break
open(p, "w", newline="").write("\n".join(lines))'; then
    skdcci analyze -q "$W/dropped/o0" "$W/dropped/disable_all" -o "$W/dropped.out" >/dev/null 2>"$W/err.txt"
    rc=$?
    t_ok rejected_row:evidence_blocked verdict_check "$W/dropped.out" "$rc" evidence_blocked "$(cat "$W/dropped/slow-name")"
    t_ok rejected_row:reason grep -q "invalid_profile_occurrence (0 rejected row(s) on O0, 1 on disable-all)" "$W/dropped.out/dcci-regression-analysis.json"
else
    t_fail rejected_row:prepare
fi

# 3. a mistyped root is named as missing, before the output directory is checked
cd "$W" && t_expect missing_root 1 \
    "skdcci: error: nonexist: no such file or directory (the disable-all capture root or its collection-manifest.json)" \
    skdcci analyze -q "$W/header/o0" nonexist
t_ok missing_root:nothing_written test ! -e "$W/dcci-analysis"
