#!/usr/bin/env bash
# docs/schemas/failure-scene-v1.schema.json and the C validator (skdcci scene
# check) agree: the test scenes are valid for both, and each shape mutation is
# rejected by both (the schema check fails, scene check exits 1 naming the field).
source "$SK_REPO/tests/lib.sh"
SCHEMA=$SK_REPO/docs/schemas/failure-scene-v1.schema.json
CHECK=$SK_REPO/tests/scripts/schema_check.py
for f in "$SK_REPO"/tests/data/scenes/*.json; do
    n=$(basename "$f" .json)
    t_ok "$n:schema_valid" python3 "$CHECK" "$SCHEMA" "$f"
    t_ok "$n:scene_check_valid" skdcci scene check "$f"
done
mutate() { # NAME FIELD PYTHON-STATEMENT(s)
    python3 -c "import json,sys; s=json.load(open(sys.argv[1])); $3; json.dump(s, open(sys.argv[2], 'w'))" \
        "$SK_REPO/tests/data/scenes/o3-correctness.json" "$1.json"
    if python3 "$CHECK" "$SCHEMA" "$1.json" >/dev/null; then t_fail "schema_rejects_$1"; else t_pass "schema_rejects_$1"; fi
    t_expect "scene_check_rejects_$1" 1 "$1.json: $2:" skdcci scene check "$1.json"
}
mutate missing_item control "del s['control']"
mutate missing_member identity.pid "del s['identity']['pid']"
mutate extra_member next.extra "s['next']['extra'] = 1"
mutate wrong_type failure.timed_out "s['failure']['timed_out'] = 'no'"
mutate bad_kind failure.kind "s['failure']['kind'] = 'flaky'"
mutate empty_string identity.trial "s['identity']['trial'] = ''"
mutate bad_sha 'artifacts[0].sha256' "s['artifacts'][0]['sha256'] = 'ABC'"
mutate float_exit failure.exit_code "s['failure']['exit_code'] = 1.5"
mutate argv_not_strings invocation.argv "s['invocation']['argv'] = ['a', 1]"
mutate bad_schema schema_version "s['schema_version'] = 'v0'"
