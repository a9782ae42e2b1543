#!/usr/bin/env bash
# skdcci repair-config on a sealed generated pair: the config it writes from
# the analysis's repair options is proven by config-diff --dcci-repair
# against the pair's own O0 and disable-all configs; --analysis refuses a
# config that is not the pair's disable-all config, and a repair list that is
# not the analysis's.
source "$SK_REPO/tests/lib.sh"
W=$PWD
SK=$SK_BUILD/bin/skdcci
if ! "$TOOLS/skdcci_gen" --out "$W/p" --scenario regression >/dev/null 2>"$W/gen.err" ||
    ! "$SK_REPO/tests/tools/seal_pair.sh" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$W/p" \
        >/dev/null 2>"$W/seal.err"; then
    t_fail sealed_pair "$(cat "$W/gen.err" "$W/seal.err")"
    exit 0
fi
cd "$W/p"
t_ok analyze_repair_candidate bash -c '"$1" analyze -q o0 disable_all -o out >/dev/null' _ "$SK"
t_ok repair_config_written "$SK" repair-config --disable-all inputs/disable_all/config.json \
    --options out/dcci-repair-options.json --analysis out -o repair.json
t_ok repair_config_proven "$SK" config-diff --dcci-repair inputs/o0/config.json \
    inputs/disable_all/config.json repair.json --json proof.json
# Only the two inserted lines differ from the disable-all config.
diff inputs/disable_all/config.json repair.json >"$W/diff.txt"
if [ "$(grep -c '^>' "$W/diff.txt")" = 2 ] && ! grep -q '^<' "$W/diff.txt" &&
    [ "$(grep -c '^>.*"dcci_\(before_kernel_start\|after_kernel_end\)": \[' "$W/diff.txt")" = 2 ]; then
    t_pass only_two_lines_added
else
    t_fail only_two_lines_added "$(cat "$W/diff.txt")"
fi

refused() { # NAME CONFIG OPTIONS TEXT
    local rc=0
    "$SK" repair-config --disable-all "$2" --options "$3" --analysis out -o "$W/$1.json" \
        >/dev/null 2>"$W/$1.err" || rc=$?
    if [ "$rc" = 10 ] && [ ! -e "$W/$1.json" ] && grep -q "$4" "$W/$1.err"; then t_pass "$1"
    else t_fail "$1" "exit $rc: $(cat "$W/$1.err")"; fi
}
refused o0_config_refused inputs/o0/config.json out/dcci-repair-options.json "is not the pair's disable-all config"
sed 's/"stream_fusion": 1/"stream_fusion": 2/' inputs/disable_all/config.json >"$W/other.json"
refused other_config_refused "$W/other.json" out/dcci-repair-options.json "is not the pair's disable-all config"
python3 - out/dcci-repair-options.json "$W/short.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
for k in ("dcci_before_kernel_start", "dcci_after_kernel_end"):
    o[k] = o[k][:1]
json.dump(o, open(sys.argv[2], "w"))
PY
refused other_list_refused inputs/disable_all/config.json "$W/short.json" "not the analysis's regexes list"
