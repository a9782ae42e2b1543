# Interoperability with the reference's formats, checked with the Python
# standard library only (json.dumps canonical form + hashlib; no reference
# code):
#  1. every fingerprint, hash and stat we write (session, marker, manifests,
#     summaries of a four-role set and a DCCI pair) is recomputed by Python;
#  2. Python builds a schema 1.0 manifest pair itself for files it creates in
#     roots begun by our tool, and our validate-set accepts it with the
#     summary Python predicts.
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/contract_lib.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }

ac_inputs
for r in baseline_profile candidate_compat candidate_verify candidate_profile; do ac_collect $r; done
ac_dcci_inputs "$S/in_o0" "$S/in_da"
ac_begin dcci_o0 && ac_artifacts dcci_o0 && AC_INPUTS="$S/in_o0" ac_finalize dcci_o0 >/dev/null
ac_begin dcci_disable_all && ac_artifacts dcci_disable_all && AC_INPUTS="$S/in_da" ac_finalize dcci_disable_all >/dev/null
artifact_contract validate-set \
    --manifest "candidate_profile=$(ac_manifest_of candidate_profile)" --manifest "baseline_profile=$(ac_manifest_of baseline_profile)" \
    --manifest "candidate_verify=$(ac_manifest_of candidate_verify)" --manifest "candidate_compat=$(ac_manifest_of candidate_compat)" \
    --json-out "$S/summary4.json"
artifact_contract validate-set --manifest "dcci_o0=$(ac_manifest_of dcci_o0)" \
    --manifest "dcci_disable_all=$(ac_manifest_of dcci_disable_all)" >"$S/summary-dcci.json"

t_ok python_recomputes_our_fingerprints python3 - "$S" <<'PY'
import hashlib, json, os, sys
S = sys.argv[1]
def canon(v):
    return json.dumps(v, ensure_ascii=True, sort_keys=True, separators=(",", ":"), allow_nan=False)
def fp(v):
    return hashlib.sha256(canon(v).encode()).hexdigest()
def load_canonical(path):
    text = open(path, encoding="ascii").read()
    v = json.loads(text)
    assert text == canon(v) + "\n", "not canonical JSON + newline: " + path
    return v
roles = ["baseline_profile", "candidate_compat", "candidate_verify", "candidate_profile", "dcci_o0", "dcci_disable_all"]
manifests = {}
for role in roles:
    root = os.path.realpath(os.path.join(S, role, "root"))
    session = load_canonical(os.path.join(S, role + "-session.json"))
    marker = open(os.path.join(root, ".collection-session.json")).read()
    assert marker == canon(session) + "\n", role
    body = {k: v for k, v in session.items() if k != "session_fingerprint"}
    assert session["session_fingerprint"] == fp(body), role
    assert session["capture_root"] == root and session["capture_role"] == role
    assert session["schema_version"] == ("1.1" if role.startswith("dcci") else "1.0")
    m = load_canonical(os.path.join(root, "collection-manifest.json"))
    manifests[role] = m
    assert m["capture"]["session_fingerprint"] == session["session_fingerprint"]
    for k in ("config", "control", "workload"):
        assert m[k + "_fingerprint"] == fp(m[k]), (role, k)
    body = {k: v for k, v in m.items() if k != "manifest_fingerprint"}
    assert m["manifest_fingerprint"] == fp(body), role
    for frole, recs in m["files"].items():
        assert [r["path"] for r in recs] == sorted(r["path"] for r in recs)
        for r in recs:
            p = os.path.join(root, r["path"])
            data = open(p, "rb").read()
            st = os.lstat(p)
            assert r["sha256"] == hashlib.sha256(data).hexdigest(), p
            assert (r["size"], r["ctime_ns"], r["mtime_ns"]) == (len(data), st.st_ctime_ns, st.st_mtime_ns), p
    if role.startswith("dcci"):
        ev = m["producer_evidence"]
        assert m["round_id"] == "S5-" + role and len(m) == 16
        assert sorted(ev) == ["observed_pids", "record_sha256", "window_tolerance_ns"] and ev["window_tolerance_ns"] > 0
        assert m["producer"]["native_pid"] in ev["observed_pids"]
        record = os.path.join(S, role + "-session.producer.json")
        assert ev["record_sha256"] == hashlib.sha256(open(record, "rb").read()).hexdigest()
    else:
        assert len(m) == 14
def summary(rs):
    first = manifests[rs[0]]
    s = {"schema_version": "1.0", "source_revision": first["source_revision"],
         "workload_fingerprint": first["workload_fingerprint"], "config_fingerprint": first["config_fingerprint"],
         "control_fingerprint": first["control_fingerprint"],
         "roles": {r: {"manifest_fingerprint": manifests[r]["manifest_fingerprint"],
                       "session_fingerprint": manifests[r]["capture"]["session_fingerprint"]} for r in rs}}
    s["set_fingerprint"] = fp(s)
    return s
assert load_canonical(os.path.join(S, "summary4.json")) == summary(roles[:4])
got = load_canonical(os.path.join(S, "summary-dcci.json"))
o0, da = manifests["dcci_o0"], manifests["dcci_disable_all"]
want = {"schema_version": "1.1", "source_revision": "revision-a",
        "workload_fingerprint": o0["workload_fingerprint"], "control_fingerprint": o0["control_fingerprint"],
        "config_change": {"pointer": "/optimize_options/dcci_disable_on_kernel", "dcci_disable_all_value": [".*"]},
        "roles": {r: {"manifest_fingerprint": manifests[r]["manifest_fingerprint"],
                      "session_fingerprint": manifests[r]["capture"]["session_fingerprint"],
                      "config_fingerprint": manifests[r]["config_fingerprint"],
                      "round_id": manifests[r]["round_id"]} for r in ("dcci_o0", "dcci_disable_all")}}
want["set_fingerprint"] = fp(want)
assert got == want, (got, want)
assert o0["config_fingerprint"] != da["config_fingerprint"]
PY

# 2. manifests written by Python for roots begun by our tool
P="$S/py"
mkdir -p "$P"
ac_inputs "$P/inputs"
for r in baseline_profile candidate_profile; do
    SK_TEST_CLOCK_NS= artifact_contract begin --role $r --root "$P/$r" --session-out "$P/$r-session.json" >/dev/null
done
t_ok python_builds_manifests python3 - "$P" <<'PY'
import hashlib, json, os, sys, time
P = sys.argv[1]
def canon(v):
    return json.dumps(v, ensure_ascii=True, sort_keys=True, separators=(",", ":"), allow_nan=False)
def fp(v):
    return hashlib.sha256(canon(v).encode()).hexdigest()
need = {"baseline_profile": ["kernel_details", "task_time", "trace_view"],
        "candidate_profile": ["kernel_details", "task_time", "trace_view", "sk_graph_origin", "sk_graph_updated",
                              "sk_fused_nodes", "sk_scope_split", "super_kernel", "sk_prof"]}
workload = json.load(open(os.path.join(P, "inputs", "workload.json")))
workload = {k: workload[k] for k in ("model", "input", "batch", "rank", "mode", "warmup", "iterations", "runtime")}
config = {"superkernel": False, "nested": {"ratio": 0.1, "big": 2 ** 70, "text": "caf\u00e9 \U0001F600"}}
control = {"rank": 0}
summary_roles = {}
for i, role in enumerate(need):
    session = json.load(open(os.path.join(P, role + "-session.json")))
    root = session["capture_root"]
    started = time.time_ns()
    files = {}
    for frole in need[role]:
        rel = "prof/%s/%s.bin" % (frole, frole) if frole != "kernel_details" else "kernel_details.csv"
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = ("%s:%s\n" % (role, frole)).encode() * (1000 + i)
        with open(path, "wb") as f:
            f.write(data)
        st = os.lstat(path)
        files.setdefault(frole, []).append({"path": rel, "sha256": hashlib.sha256(data).hexdigest(),
                                            "size": st.st_size, "ctime_ns": st.st_ctime_ns, "mtime_ns": st.st_mtime_ns})
    ended = time.time_ns()
    time.sleep(0.01)
    m = {"schema_version": "1.0", "capture_role": role, "capture_root": ".",
         "capture": {"session_fingerprint": session["session_fingerprint"], "started_ns": session["started_ns"],
                     "finalized_ns": time.time_ns(), "root_was_empty": True},
         "source_revision": "py-rev", "config": config, "config_fingerprint": fp(config),
         "control": control, "control_fingerprint": fp(control),
         "producer": {"native_pid": 4242 + i, "started_ns": max(started, session["started_ns"]), "ended_ns": ended,
                      "command_fingerprint": fp({"command": role})},
         "workload": workload, "workload_fingerprint": fp(workload), "files": files}
    m["manifest_fingerprint"] = fp(m)
    # not canonical on disk: validation re-parses it semantically
    with open(os.path.join(root, "python-manifest.json"), "w") as f:
        json.dump(m, f, indent=3)
    summary_roles[role] = {"manifest_fingerprint": m["manifest_fingerprint"],
                           "session_fingerprint": session["session_fingerprint"]}
s = {"schema_version": "1.0", "source_revision": "py-rev", "workload_fingerprint": fp(workload),
     "config_fingerprint": fp(config), "control_fingerprint": fp(control), "roles": summary_roles}
s["set_fingerprint"] = fp(s)
with open(os.path.join(P, "expected-summary.json"), "w") as f:
    f.write(canon(s) + "\n")
PY
t_ok our_validate_set_accepts_python_manifests bash -c '
    out=$("$SK_BUILD/bin/artifact_contract" validate-set --manifest "baseline_profile=$1/baseline_profile/python-manifest.json" \
        --manifest "candidate_profile=$1/candidate_profile/python-manifest.json") || exit 1
    [ "$out" = "$(cat "$1/expected-summary.json")" ] || { echo "summary differs: $out"; exit 2; }' _ "$P"
t_ok our_status_reports_python_manifest_finalized bash -c '
    "$SK_BUILD/bin/artifact_contract" status "$1/baseline_profile" | grep -q "\"state\":\"finalized\""' _ "$P"
