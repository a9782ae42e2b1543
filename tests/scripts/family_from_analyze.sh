# End to end: the family report consumes a real `skdcci analyze` output (the
# sealed demo pair), not a hand-written one.  The repair config and the probe
# report carry the analysis's own list L; the family must be accepted, its
# JSON must repeat L and the analysis status, and a repair config whose list
# differs from L by one pattern must block the decision.
source "$SK_REPO/tests/lib.sh"
TOOLS=$SK_BUILD/tests/tools
export TOOLS
# rc_is NAME GOT WANT: one TAP line for an exit status already collected
rc_is() { if [ "$2" -eq "$3" ]; then t_pass "$1"; else t_fail "$1" "exit $2, want $3" "$(cat err.txt 2>/dev/null | head -c 2000)"; fi; }

cp -R "$SK_REPO/fixtures/demo" pair
"$SK_REPO/tests/tools/seal_pair.sh" --artifact-contract "$SK_BUILD/bin/artifact_contract" pair >seal.log 2>&1
rc_is "seal the demo pair" $? 0
skdcci analyze -q pair/o0 pair/disable_all -o analysis 2>err.txt
rc_is "analyze the sealed demo" $? 0

# L as the analysis wrote it, in order, as YAML flow sequence and JSON
L_JSON=$(python3 -c 'import json,sys; print(json.dumps(json.load(open("analysis/dcci-regression-analysis.json"))["regexes"]))')
t_ok "the analysis found a non-empty list" test "$L_JSON" != "[]"

cp "$SK_REPO/tests/data/family/o0.yaml" "$SK_REPO/tests/data/family/da.yaml" .
python3 - "$L_JSON" <<'PY'
import json, sys
L = json.loads(sys.argv[1])
import os
rp = open("%s/tests/data/family/rp.yaml" % os.environ["SK_REPO"]).read()
old = '["static_kernel_MatMul_.*"]'
assert rp.count(old) == 2, rp
open("rp.yaml", "w").write(rp.replace(old, json.dumps(L)))
# the same repair config with the last pattern dropped: not the analysis's L
open("rp_short.yaml", "w").write(rp.replace(old, json.dumps(L[:-1] or ["x"])))
env = json.load(open("%s/tests/data/family/environment.json" % os.environ["SK_REPO"]))
for opt in ("dcci_before_kernel_start", "dcci_after_kernel_end"):
    env["options"]["optimize_options"][opt]["accepted_values"].append(L)
json.dump(env, open("environment.json", "w"), indent=2, sort_keys=True)
PY
rc_is "repair config and probe report prepared" $? 0
# the CLEAN roots: real clean runs of o0.yaml, da.yaml and this rp.yaml
source "$SK_REPO/tests/data/family/mkclean.sh" >/dev/null

skdcci family report --warmup 0 --expected-ranks 2 --o0 O0 --disable-all DA_REGRESSED --repair RP_BEATS \
    --analysis analysis --probe environment.json --configs o0.yaml da.yaml rp.yaml -o out 2>err.txt
rc_is "family accepted with the analysis's own L" $? 0
python3 - "$L_JSON" <<'PY'
import json, sys
L = json.loads(sys.argv[1])
doc = json.load(open("out/dcci-family-report.json"))
text = json.dumps(doc)
assert doc["decision"]["status"] == "accepted", doc["decision"]
assert json.dumps(L)[1:-1] in text, "L missing from the family report"
assert "repair_candidate" in text, "analysis status missing from the family report"
PY
rc_is "family report repeats L and the analysis status" $? 0
t_ok "Chinese report written" test -s out/DCCI_FAMILY_REPORT.md

skdcci family report --warmup 0 --expected-ranks 2 --o0 O0 --disable-all DA_REGRESSED --repair RP_BEATS \
    --analysis analysis --probe environment.json --configs o0.yaml da.yaml rp_short.yaml -o out2 2>err2.txt
rc=$?
t_ok "a repair list other than L is not accepted (rc=$rc)" test "$rc" -ne 0
