# Canonical JSON and fingerprints agree with Python's json.dumps(sort_keys=True,
# separators=(",",":"), ensure_ascii=True) and hashlib on randomly generated
# documents (the reference tool's canonical form), and the pretty form agrees
# with json.dumps(indent=2, sort_keys=True).
source "$SK_REPO/tests/lib.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }
python3 - "$PWD" <<'PY'
import json, random, struct, sys, os
rnd = random.Random(20261129)
out = sys.argv[1]
def rfloat():
    k = rnd.random()
    if k < 0.4:
        while True:
            v = struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0]
            if v == v and v not in (float("inf"), float("-inf")):
                return v
    if k < 0.7:
        return rnd.uniform(-1e6, 1e6)
    return float(rnd.choice(["0.1", "1e16", "1e-5", "-0.0", "123.456", "5e-324", "1e22", "0.0001", "1e15", "9.999e15"]))
def rstr():
    alphabet = "abcXYZ_/-. \t\n\"\\\x01\x1f\x7f\u00e9\u2028\uffff\U0001F600\u4e2d"
    return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12)))
def rval(depth=0):
    k = rnd.random()
    if depth > 4 or k < 0.5:
        return rnd.choice([None, True, False, rnd.randint(-10**30, 10**30), rnd.randint(-5, 5), rfloat(), rfloat(), rstr()])
    if k < 0.75:
        return [rval(depth + 1) for _ in range(rnd.randint(0, 5))]
    return {rstr(): rval(depth + 1) for _ in range(rnd.randint(0, 5))}
exp = []
for i in range(1500):
    v = rval()
    p = os.path.join(out, "doc%04d.json" % i)
    with open(p, "w", encoding="utf-8") as f:
        f.write(json.dumps(v, ensure_ascii=rnd.random() < 0.5, indent=rnd.choice([None, 1, "\t"])))
    canon = json.dumps(v, ensure_ascii=True, sort_keys=True, separators=(",", ":"), allow_nan=False)
    import hashlib
    exp.append(hashlib.sha256(canon.encode()).hexdigest() + " " + canon)
with open(os.path.join(out, "expected.txt"), "w") as f:
    f.write("\n".join(exp) + "\n")
with open(os.path.join(out, "pretty.json"), "w") as f:
    json.dump({"b": [1.5, {"x": None}], "a": {}, "c": [], "d": "\u00e9\U0001F600"}, f)
with open(os.path.join(out, "pretty.expected"), "w") as f:
    f.write(json.dumps({"b": [1.5, {"x": None}], "a": {}, "c": [], "d": "\u00e9\U0001F600"}, indent=2, sort_keys=True) + "\n")
PY
"$TOOLS/json_canon" doc*.json > got.txt
if cmp -s got.txt expected.txt; then t_pass canonical_matches_python_on_1500_documents
else t_fail canonical_matches_python_on_1500_documents "$(diff got.txt expected.txt | head -6)"; fi
"$TOOLS/json_canon" -p pretty.json > pretty.got
if cmp -s pretty.got pretty.expected; then t_pass pretty_matches_python_indent2
else t_fail pretty_matches_python_indent2 "$(diff pretty.got pretty.expected | head -6)"; fi
