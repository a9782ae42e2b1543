# The JSON Schema document of the winner option matrix agrees with the C
# validator: every matrix the C validator accepts (tests/cases/skdcci/
# matrix_valid_* and matrix_status_*) validates against
# docs/schemas/winner-option-matrix-v1.schema.json, and every matrix the C
# shape pass refuses (err_matrix_* except the non-JSON one) does not.
source "$SK_REPO/tests/lib.sh"
if ! python3 -c "import jsonschema" 2>/dev/null; then
    t_fail jsonschema_available "python3 module jsonschema is required (Debian: python3-jsonschema)"
    exit 0
fi
python3 - "$SK_REPO" <<'PY'
import glob, json, os, sys
import jsonschema
repo = sys.argv[1]
schema = json.load(open(os.path.join(repo, "docs/schemas/winner-option-matrix-v1.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
cases = os.path.join(repo, "tests/cases/skdcci")
good = sorted(glob.glob(cases + "/matrix_valid_*/in/matrix.json") + glob.glob(cases + "/matrix_status_*/in/matrix.json"))
bad = sorted(p for p in glob.glob(cases + "/err_matrix_*/in/matrix.json") if "not_json" not in p)
fail = 0
for p in good:
    errs = list(v.iter_errors(json.load(open(p))))
    if errs:
        fail += 1
        print("# schema rejects a valid matrix %s: %s" % (p, errs[0].message[:200]))
for p in bad:
    if not list(v.iter_errors(json.load(open(p)))):
        fail += 1
        print("# schema accepts a malformed matrix %s" % p)
name = "schema_agrees_with_c_validator_%d_valid_%d_malformed" % (len(good), len(bad))
ok = fail == 0 and len(good) >= 4 and len(bad) >= 10
print(("ok - %s:%s" if ok else "not ok - %s:%s") % (os.environ.get("SK_SCRIPT", "x"), name))
PY
