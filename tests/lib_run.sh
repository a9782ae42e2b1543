# Helpers for the `artifact_contract run` scripts (tests/scripts/contract_run*.sh).
# Source after tests/lib.sh.

# The interpreter itself, resolved once: version-manager shims (pyenv) cost
# about a second per start, which would dominate these short cases.
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -n "$PY" ] || PY=python3

# make_session ROLE ROOT SESSION: what `begin` leaves behind
# (docs/artifact_contract.md "Session record and marker"): ROOT created,
# SESSION and ROOT/.collection-session.json holding the same
# canonical session record, computed independently with Python's json module.
make_session() {
    "$PY" - "$1" "$2" "$3" <<'PY'
import hashlib, json, os, sys
role, root, out = sys.argv[1:4]
os.makedirs(root, exist_ok=True)
root = os.path.realpath(root)
canon = lambda v: json.dumps(v, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
p = {"capture_role": role, "capture_root": root, "root_was_empty": True,
     "schema_version": "1.0", "started_ns": 1}
p["session_fingerprint"] = hashlib.sha256(canon(p).encode()).hexdigest()
for path in (out, os.path.join(root, ".collection-session.json")):
    with open(path, "w") as f:
        f.write(canon(p) + "\n")
PY
}

# rec_check NAME FINAL_RECORD PYTHON: runs PYTHON with r = the final record,
# s = the started record (or None), raw_r/raw_s = their bytes, and passes when
# no assertion fails.  Every record is also checked against the format rules
# every reader relies on (canonical bytes, started_record_sha256, shared keys).
rec_check() {
    local name=$1 file=$2 code=$3 out
    if out=$("$PY" - "$file" "$code" 2>&1 <<'PY'
import hashlib, json, os, sys
path, code = sys.argv[1], sys.argv[2]
canon = lambda v: json.dumps(v, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
raw_r = open(path, "rb").read()
r = json.loads(raw_r)
assert raw_r == (canon(r) + "\n").encode(), "final record is not canonical"
spath = path + ".started.json"
raw_s = open(spath, "rb").read() if os.path.exists(spath) else None
s = json.loads(raw_s) if raw_s is not None else None
if s is not None:
    assert raw_s == (canon(s) + "\n").encode(), "started record is not canonical"
    assert r["started_record_sha256"] == hashlib.sha256(raw_s).hexdigest(), "started_record_sha256"
    for k, v in s.items():
        assert k == "state" or r[k] == v, "key %s differs between the records" % k
    assert os.stat(spath).st_mode & 0o777 == 0o600, "started record mode"
assert os.stat(path).st_mode & 0o777 == 0o600, "final record mode"
assert r["command_fingerprint"] == hashlib.sha256(canon(r["command"]).encode()).hexdigest()
exec(code)
PY
    ); then
        t_pass "$name"
    else
        local lines
        mapfile -t lines <<<"$out"
        t_fail "$name" "${lines[@]}"
    fi
}

# alive PID: 0 when the process exists and is not a zombie
alive() {
    [ -r "/proc/$1/stat" ] || return 1
    local st
    st=$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)
    [ "$st" != Z ] && [ "$st" != X ]
}
