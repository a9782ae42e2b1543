#!/usr/bin/env bash
# The hand-off after an analysis (docs/analyze.md §10, §11): a repair_candidate
# prints, and both reports state, the probe with --option-probes (and the
# protocol's --option-values-json named), then `skdcci probe check`, then
# `skdcci repair-config`, with the output directory filled in on stdout only;
# no_significant_regression says stop.  A blocked analysis states the step
# each of its reasons asks for, on stdout, in the JSON and in the Markdown
# (next_steps_check.py), and never a repair command: swapped arguments give
# the corrected command (which then analyses the pair), a file put into a
# sealed root says to move it out (done, the same roots then analyse), a
# file changed after sealing, a missing manifest, roots of two pairs, a
# copied root, a missing input, the generator's blocked scenarios and
# --unsealed each their own step.
source "$SK_REPO/tests/lib.sh"
GEN=$TOOLS/skdcci_gen
SEAL=$SK_REPO/tests/tools/seal_pair.sh
NEXT=$SK_REPO/tests/scripts/next_steps_check.py
W=$PWD

generate() { # SCENARIO DIR [GEN ARGS]: generate and seal
    local sc=$1 dir=$2 steps=(--steps 3); shift 2
    [ "$sc" = buffer_full ] && steps=() # it sizes its own run
    "$GEN" --out "$dir" --scenario "$sc" "${steps[@]}" "$@" >/dev/null 2>"$W/gen.err" ||
        { cat "$W/gen.err"; return 1; }
    [ "${NO_SEAL:-}" = 1 ] && return 0
    "$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$dir" >/dev/null 2>"$W/seal.err" ||
        { cat "$W/seal.err"; return 1; }
}
analyze() { # OUT O0 DISABLE_ALL [OPTIONS...]
    local out=$1 o0=$2 dis=$3; shift 3
    skdcci analyze -q "$@" "$o0" "$dis" -o "$out" >"$out.stdout" 2>"$out.stderr"
    echo $? >"$out.rc"
}
analyze_scenario() { # SCENARIO OUT
    generate "$1" "$W/$1" || return 1
    analyze "$2" "$W/$1/o0" "$W/$1/disable_all"
}
blocked() { # NAME OUT SPEC: exit 3 and the step of SPEC on all three outputs
    t_ok "$1:exit" test "$(cat "$2.rc")" = 3
    t_ok "$1:next_step" python3 "$NEXT" "$2" "$3"
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

# ---- blocked analyses: the step of each reason
NEW_PAIR='"last_command": "skdcci analyze NEW_O0 NEW_DISABLE_ALL -o NEW_OUTDIR"'

# swapped arguments: the corrected command, with this analysis's thresholds;
# run as printed (into a new directory), it analyses the pair
cd "$W" || exit 1
analyze sw-out regression/disable_all regression/o0 --min-abs-us 1.5
blocked swapped sw-out '{"action": "fix_arguments", "reason": "contract_invalid",
  "what": ["the arguments are swapped", "regression/disable_all/collection-manifest.json"],
  "what_zh": ["参数顺序颠倒"],
  "command": "skdcci analyze regression/o0 regression/disable_all --min-abs-us 1.5 -o NEW_OUTDIR"}'
t_ok swapped:command_runs bash -c 'cd "$1" && PATH=$SK_BUILD/bin:$PATH && cmd=$(sed -n "/^next 1:/{n;p}" sw-out.stdout) &&
    eval "${cmd/NEW_OUTDIR/sw-fixed} -q" >sw-fixed.stdout && grep -qx "status: repair_candidate" sw-fixed.stdout' _ "$W"

# a file put into a sealed root: move it out, then the same roots analyse
generate regression "$W/extra" || t_fail extra:generate
echo stray >"$W/extra/o0/notes.txt"
analyze "$W/ex-out" "$W/extra/o0" "$W/extra/disable_all"
blocked unlisted_entry "$W/ex-out" "{\"action\": \"fix_input\", \"reason\": \"contract_invalid\",
  \"what\": [\"an entry was put into the sealed O0 root\", \"unlisted entry: notes.txt\", \"move it out\"],
  \"what_zh\": [\"notes.txt\", \"移出根目录\"],
  \"last_command\": \"skdcci analyze $W/extra/o0 $W/extra/disable_all -o NEW_OUTDIR\"}"
t_ok unlisted_entry:fixed bash -c 'mv "$1/extra/o0/notes.txt" "$1/notes.txt" &&
    "$SK_BUILD/bin/skdcci" analyze -q "$1/extra/o0" "$1/extra/disable_all" -o "$1/ex-fixed" >/dev/null' _ "$W"

# a byte of a sealed file changed (the pair above): that side again, the file named
printf 9 | dd of="$W/extra/disable_all/profiler/kernel_details.csv" bs=1 seek=200 conv=notrunc 2>/dev/null
analyze "$W/ta-out" "$W/extra/o0" "$W/extra/disable_all"
blocked changed_file "$W/ta-out" "{\"action\": \"recollect\", \"reason\": \"contract_invalid\",
  \"what\": [\"a file of the disable-all capture is no longer the file that was sealed\",
            \"changed: profiler/kernel_details.csv\", \"collect the disable-all side again\"],
  \"what_zh\": [\"profiler/kernel_details.csv\", \"已不是封存时的文件\"], $NEW_PAIR}"

# a root never sealed: its manifest named, seal it
generate regression "$W/other" --seed 7 || t_fail other:generate
NO_SEAL=1 generate regression "$W/raw" || t_fail raw:generate
analyze "$W/raw-out" "$W/raw/o0" "$W/other/disable_all"
blocked never_sealed "$W/raw-out" "{\"action\": \"fix_input\", \"reason\": \"contract_invalid\",
  \"what\": [\"$W/raw/o0/collection-manifest.json is missing\", \"finalize --producer-record\"],
  \"what_zh\": [\"$W/raw/o0/collection-manifest.json 不存在\"]}"

# O0 and disable-all of two different sealed pairs: give one pair
analyze "$W/mix-out" "$W/extra/o0" "$W/other/disable_all"
blocked two_pairs "$W/mix-out" '{"action": "fix_arguments", "reason": "contract_invalid",
  "what": ["not one sealed O0 / disable-all pair", "E_SET_MISMATCH"], "what_zh": ["同一对"],
  "command": "skdcci analyze O0_ROOT DISABLE_ALL_ROOT -o NEW_OUTDIR"}'

# a sealed root copied elsewhere
cp -a "$W/other/o0" "$W/copy-o0"
analyze "$W/cp-out" "$W/copy-o0" "$W/other/disable_all"
blocked copied_root "$W/cp-out" "{\"action\": \"recollect\", \"reason\": \"contract_invalid\",
  \"what\": [\"a copied or moved capture\", \"E_SESSION_FINGERPRINT\"], \"what_zh\": [\"复制或移动过的采集\"],
  $NEW_PAIR}"

# a second model directory without its super_kernel.log: the missing file named
NO_SEAL=1 generate regression "$W/miss" || t_fail miss:generate
m=$(dirname "$(find "$W/miss/disable_all/sk_meta" -name super_kernel.log | head -1)")
cp -R "$m" "${m%/*}/model_49_1" && rm "${m%/*}/model_49_1/super_kernel.log"
"$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$W/miss" >/dev/null 2>&1 || t_fail miss:seal
analyze "$W/mi-out" "$W/miss/o0" "$W/miss/disable_all"
blocked missing_input "$W/mi-out" "{\"action\": \"recollect\", \"reason\": \"missing_input\",
  \"what\": [\"the disable-all capture lacks an input\", \"model_49_1 has no super_kernel file\"],
  \"what_zh\": [\"disable-all 采集缺少输入\", \"model_49_1 has no super_kernel file\"], $NEW_PAIR}"

# --unsealed: seal the captures
analyze "$W/un-out" "$W/raw/o0" "$W/raw/disable_all" --unsealed
blocked unsealed "$W/un-out" "{\"action\": \"recollect\", \"reason\": \"unsealed_input\",
  \"what\": [\"seal each capture as it is produced\"], \"what_zh\": [\"封存\"], $NEW_PAIR}"

