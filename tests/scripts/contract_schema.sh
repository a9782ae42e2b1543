# The shipped JSON Schemas (docs/schemas/) agree with the code: reference
# behaviour 44 (schema shape, x-role-files equal to the role table) and 45
# (the schema's path pattern, in Python's re and, when node is installed,
# ECMAScript, accepts and rejects exactly what the runtime grammar does).
source "$SK_REPO/tests/lib.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }
"$TOOLS/ac_contract_dump" roles >roles.json
t_ok schema_shape_and_role_files python3 - "$SK_REPO/docs/schemas" roles.json <<'PY'
import json, sys
roles = json.load(open(sys.argv[2]))
for version in ("1.0", "1.1"):
    s = json.load(open("%s/collection-manifest-%s.json" % (sys.argv[1], version)))
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert s["properties"]["schema_version"] == {"const": version}
    assert {"config", "control", "manifest_fingerprint"} <= set(s["required"])
    assert s["additionalProperties"] is False
    assert s["$defs"]["producer"]["properties"]["command_fingerprint"] == {"$ref": "#/$defs/sha256"}
    assert s["x-collection-marker"]["path"] == ".collection-session.json"
    mine = {r: set(v["required"]) for r, v in roles.items() if v["schema"] == version}
    assert {r: set(v) for r, v in s["x-role-files"].items()} == mine, (version, s["x-role-files"], mine)
    for clause in s["allOf"]:
        role = clause["if"]["properties"]["capture_role"]["const"]
        assert set(clause["then"]["properties"]["files"]["required"]) == mine[role]
    assert set(s["properties"]["capture_role"]["enum"]) == set(mine)
    n = len(s["required"])
    assert n == (14 if version == "1.0" else 16), n
PY

# path grammar: the reference's lists plus edge cases
python3 - >paths.txt <<'PY'
accepted = ["kernel_details.csv", "profiler/kernel_details.csv", ".hidden", "nested/.hidden/file",
            "path with spaces/file.dat", "name=part/printable !#$%&'()+,-;@[]^_`{}~.dat",
            "sub/.collection-session.json", "..a/b", "a/...", "a/.b./c"]
rejected = ["", "/absolute", "../outside", "nested/../outside", "./relative", "nested/./file",
            "nested//file", "nested/", ".collection-session.json", " leading", "trailing ",
            "back\\slash", "tab\there", "del\x7f", "nel\u0085x", "bom\ufeffx", "\u00e9", ".", "..", "a/.", "a/.."]
for p in accepted + rejected:
    print(p)
PY
"$TOOLS/ac_contract_dump" paths <paths.txt >runtime.txt
t_ok schema_path_pattern_agrees_with_runtime_python python3 - "$SK_REPO/docs/schemas/collection-manifest-1.0.json" paths.txt runtime.txt <<'PY'
import json, re, sys
pattern = json.load(open(sys.argv[1]))["$defs"]["fileRecord"]["properties"]["path"]["pattern"]
paths = open(sys.argv[2], encoding="utf-8").read().split("\n")[:-1]
runtime = open(sys.argv[3]).read().split("\n")[:-1]
assert len(paths) == len(runtime) == 31, (len(paths), len(runtime))
for p, r in zip(paths, runtime):
    schema_ok = re.fullmatch(pattern, p) is not None
    assert schema_ok == (r == "ok"), (p, schema_ok, r)
assert runtime.count("ok") == 10
PY
if command -v node >/dev/null; then
    t_ok schema_path_pattern_agrees_with_runtime_ecmascript node -e '
        const fs = require("fs");
        const pattern = JSON.parse(fs.readFileSync(process.argv[1]))["$defs"].fileRecord.properties.path.pattern;
        const re = new RegExp(pattern, "u");
        const paths = fs.readFileSync(process.argv[2], "utf8").split("\n").slice(0, -1);
        const runtime = fs.readFileSync(process.argv[3], "utf8").split("\n").slice(0, -1);
        paths.forEach((p, i) => { if (re.test(p) !== (runtime[i] === "ok")) { console.error(p); process.exit(1); } });
    ' "$SK_REPO/docs/schemas/collection-manifest-1.0.json" paths.txt runtime.txt
fi

# the error-code table of docs/artifact_contract.md is the code's table
code_table() {
    diff <(sed -n "/<!-- codes:/,/<!-- end codes -->/p" "$SK_REPO/docs/artifact_contract.md" | grep "^| [0-9]") \
        <("$TOOLS/ac_contract_dump" codes)
}
t_ok docs_code_table_matches_code code_table
