#!/usr/bin/env bash
# The JSON schema of dcci-regression-analysis.json (docs/schemas) against real
# reports: the golden mini report, a fresh one, and reports with one key
# removed, one added and one of the wrong type, which must be rejected.
source "$SK_REPO/tests/lib.sh"
SCHEMA=$SK_REPO/docs/schemas/dcci-regression-analysis.schema.json
CHECK=$SK_REPO/tests/scripts/schema_check.py
GOLD=$SK_REPO/tests/cases/skdcci/analyze-mini-unsealed/expect/out/dcci-regression-analysis.json
t_ok golden_report_valid python3 "$CHECK" "$SCHEMA" "$GOLD"
cp -a "$SK_REPO/tests/data/dcci-mini" mini
skdcci analyze --unsealed -q --warmup-launches 1 mini/o0 mini/disable_all -o out >/dev/null 2>&1
t_ok fresh_report_valid python3 "$CHECK" "$SCHEMA" out/dcci-regression-analysis.json
mutate() { # NAME PYTHON-STATEMENT(r)
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); $2; json.dump(r, open(sys.argv[2], 'w'))" \
        out/dcci-regression-analysis.json "$1.json"
    if python3 "$CHECK" "$SCHEMA" "$1.json" >/dev/null; then t_fail "rejects_$1"; else t_pass "rejects_$1"; fi
}
mutate missing_key "del r['collateral']"
mutate extra_key "r['sks'][0]['extra'] = 1"
mutate wrong_type "r['sks'][0]['stats']['o0']['count'] = '4'"
mutate bad_status "r['status'] = 'maybe'"
mutate bad_regex "r['regexes'] = ['^x\$']"
