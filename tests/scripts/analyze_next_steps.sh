#!/usr/bin/env bash
# The hand-off after an analysis (docs/analyze.md §10, §11): a repair_candidate
# prints, and both reports state, the probe with --option-probes (and the
# protocol's --option-values-json named), then `skdcci probe check`, then
# `skdcci repair-config`, with the output directory filled in on stdout only;
# no_significant_regression says stop and a blocked pair says re-collect, and
# neither ever names a repair command.
source "$SK_REPO/tests/lib.sh"
GEN=$TOOLS/skdcci_gen
SEAL=$SK_REPO/tests/tools/seal_pair.sh
W=$PWD

analyze_scenario() { # SCENARIO OUT
    local steps=(--steps 3)
    [ "$1" = buffer_full ] && steps=() # it sizes its own run
    "$GEN" --out "$W/$1" --scenario "$1" "${steps[@]}" >/dev/null 2>"$W/gen.err" || { cat "$W/gen.err"; return 1; }
    "$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$W/$1" >/dev/null 2>"$W/seal.err" ||
        { cat "$W/seal.err"; return 1; }
    skdcci analyze -q "$W/$1/o0" "$W/$1/disable_all" -o "$2" >"$2.stdout" 2>"$2.stderr"
    echo $? >"$2.rc"
}

t_ok regression:analyze analyze_scenario regression "$W/rc-out"
t_ok regression:exit test "$(cat "$W/rc-out.rc")" = 0
# stdout: the three commands in order, OUTDIR filled in
t_ok regression:stdout python3 - "$W/rc-out" <<'PY'
import sys
out = sys.argv[1]
lines = open(out + ".stdout").read().splitlines()
want = [
    "next: probe_then_repair_config",
    f"  (source CANN_SETENV && python3 check_environment.py --json --option-probes {out}/option-values.json) > environment.json",
    f"  skdcci probe check --report environment.json --values {out}/option-values.json --json-out probe-check.json",
    f"  skdcci repair-config --disable-all DISABLE_ALL_CONFIG --options {out}/dcci-repair-options.json --analysis {out} -o REPAIR_CONFIG",
]
pos = [lines.index(w) for w in want]  # ValueError when one is missing
assert pos == sorted(pos), pos
assert any("--option-values-json" in l and l.startswith("next 1:") for l in lines), "protocol flag not named"
assert any("CANN loaded" in l for l in lines), "inference environment not named"
PY
# both reports: the same steps with the OUTDIR placeholder (the bytes do not
# depend on where the report is written)
t_ok regression:json python3 - "$W/rc-out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/dcci-regression-analysis.json"))
n = r["next_steps"]
assert n["action"] == "probe_then_repair_config", n
cmds = [s["command"] for s in n["steps"]]
assert len(cmds) == 3 and "--option-probes OUTDIR/option-values.json" in cmds[0], cmds
assert cmds[1].startswith("skdcci probe check ") and cmds[2].startswith("skdcci repair-config "), cmds
assert sys.argv[1] not in json.dumps(n), "the output path leaked into the report"
PY
t_ok regression:markdown python3 - "$W/rc-out" <<'PY'
import sys
md = open(sys.argv[1] + "/DCCI_REGRESSION_ANALYSIS.md", encoding="utf-8").read()
sec = md.split("## 13. 下一步", 1)[1]
for w in ("--option-probes OUTDIR/option-values.json", "--option-values-json", "CANN",
          "skdcci probe check --report environment.json", "skdcci repair-config --disable-all",
          "不得手工编辑"):
    assert w in sec, w
PY

t_ok no_regression:analyze analyze_scenario no_regression "$W/nr-out"
t_ok no_regression:exit test "$(cat "$W/nr-out.rc")" = 0
t_ok no_regression:stop grep -qx "next: stop" "$W/nr-out.stdout"
t_ok no_regression:no_repair_command python3 - "$W/nr-out" <<'PY'
import json, sys
o = sys.argv[1]
r = json.load(open(o + "/dcci-regression-analysis.json"))
assert r["next_steps"]["action"] == "stop", r["next_steps"]
assert all(s["command"] is None for s in r["next_steps"]["steps"])
for f in (o + ".stdout", o + "/DCCI_REGRESSION_ANALYSIS.md", o + "/dcci-regression-analysis.json"):
    t = open(f, encoding="utf-8").read()
    for bad in ("repair-config", "probe check", "--option-probes"):
        assert bad not in t, (f, bad)
PY

t_ok buffer_full:analyze analyze_scenario buffer_full "$W/bf-out"
t_ok buffer_full:exit test "$(cat "$W/bf-out.rc")" = 3
t_ok buffer_full:recollect grep -qx "next: recollect" "$W/bf-out.stdout"
t_ok buffer_full:no_repair_command python3 - "$W/bf-out" <<'PY'
import json, sys
o = sys.argv[1]
r = json.load(open(o + "/dcci-regression-analysis.json"))
assert r["next_steps"]["action"] == "recollect", r["next_steps"]
for f in (o + ".stdout", o + "/DCCI_REGRESSION_ANALYSIS.md"):
    t = open(f, encoding="utf-8").read()
    assert "repair-config" not in t and "probe check" not in t, f
PY
