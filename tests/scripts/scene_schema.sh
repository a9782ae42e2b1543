#!/usr/bin/env bash
# docs/schemas/failure-scene-v2.schema.json (and -v1) and the C validator
# (skdcci scene check) agree: the test scenes are valid for both, and each
# shape mutation is rejected by both (the schema check fails, scene check
# exits 1 naming the field).  Then the artifacts a scene lists are checked,
# not trusted: a missing, changed or symlinked artifact is a violation.
source "$SK_REPO/tests/lib.sh"
SCHEMA=$SK_REPO/docs/schemas/failure-scene-v2.schema.json
CHECK=$SK_REPO/tests/scripts/schema_check.py
for f in "$SK_REPO"/tests/data/scenes/*.json; do
    n=$(basename "$f" .json)
    t_ok "$n:schema_valid" python3 "$CHECK" "$SCHEMA" "$f"
    t_ok "$n:scene_check_valid" skdcci scene check "$f"
done
# a version 1 scene (no sizes) is valid for the version 1 schema and still read
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); s['schema_version']='skdcci-failure-scene-v1'
[a.pop('bytes') for a in s['artifacts']]; json.dump(s, open(sys.argv[2], 'w'))" \
    "$SK_REPO/tests/data/scenes/o3-correctness.json" v1.json
cp -r "$SK_REPO/tests/data/scenes/logs" .
t_ok v1:schema_valid python3 "$CHECK" "$SK_REPO/docs/schemas/failure-scene-v1.schema.json" v1.json
t_ok v1:scene_check_valid skdcci scene check v1.json
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
mutate negative_bytes 'artifacts[0].bytes' "s['artifacts'][0]['bytes'] = -1"
mutate missing_bytes 'artifacts[0].bytes' "del s['artifacts'][0]['bytes']"

# the artifacts themselves: each defect is reported, the scene is invalid (exit 10)
artifacts() { # NAME CODE SETUP
    rm -rf "a-$1" && mkdir "a-$1" && cp -r "$SK_REPO/tests/data/scenes/logs" "a-$1/" &&
        cp "$SK_REPO/tests/data/scenes/o3-correctness.json" "a-$1/scene.json"
    (cd "a-$1" && eval "$3")
    skdcci scene check "a-$1/scene.json" >"a-$1.out" 2>&1
    rc=$?
    if [ "$rc" -eq 10 ] && grep -q "^violation $2: artifacts\[0\] (logs/stdout.log)" "a-$1.out"; then
        t_pass "artifact_$1"
    else
        t_fail "artifact_$1" "exit $rc, want 10 and a $2 violation" "$(cat "a-$1.out")"
    fi
}
artifacts deleted artifact_not_found "rm logs/stdout.log"
artifacts changed artifact_changed "printf 'stdout of attempt O3-a2\n' >logs/stdout.log"
artifacts grown artifact_changed "printf x >>logs/stdout.log"
artifacts symlinked artifact_outside_scene "mv logs/stdout.log ../outside-\$\$ && ln -s ../../outside-\$\$ logs/stdout.log"
artifacts dir_symlinked artifact_outside_scene "mv logs ../logs-\$\$ && ln -s ../logs-\$\$ logs"
