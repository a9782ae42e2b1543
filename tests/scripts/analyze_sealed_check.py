#!/usr/bin/env python3
"""Checks of skdcci analyze in sealed mode (standard library only).

    analyze_sealed_check.py inputs PAIR OUTDIR
        the report's inputs against the sealed pair: both manifests (path,
        SHA-256 of the bytes, recorded fingerprint, role, round id,
        validated), the set fingerprint of validate-set's summary
        (PAIR/set-summary.json), and every listed file: recorded SHA-256 from
        the manifest, the SHA-256 of the bytes on disk, who hashed it
    analyze_sealed_check.py options TRUTH OUTDIR
        option-values.json and dcci-repair-options.json byte for byte
        (sorted keys, two-space indent, trailing newline) from the ground
        truth's regex list
    analyze_sealed_check.py blocked OUTDIR RULE SIDE TEXT...
        collection_blocked with exactly one contract_invalid reason whose
        message starts with RULE and contains every TEXT, side SIDE ("-" =
        null), no option file, no matched SK, inputs.contract null

Prints one line per problem and exits 1 when there is any.
"""
import hashlib
import json
import os
import sys

REPORT = "dcci-regression-analysis.json"
OPTION_FILES = ("option-values.json", "dcci-repair-options.json")
ANALYZER_ROLES = {"kernel_details", "sk_prof", "sk_graph_origin", "sk_graph_updated",
                  "sk_fused_nodes", "super_kernel"}
problems = []


def check(cond, what):
    if not cond:
        problems.append(what)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def inputs(pair, out):
    r = load(os.path.join(out, REPORT))
    i = r["inputs"]
    check(i["mode"] == "sealed", f"mode {i['mode']}")
    summary = load(os.path.join(pair, "set-summary.json"))
    c = i["contract"]
    check(isinstance(c, dict) and c.get("set_fingerprint") == summary["set_fingerprint"],
          f"set fingerprint {c and c.get('set_fingerprint')} != {summary['set_fingerprint']}")
    check(c == summary, "contract summary differs from validate-set's")
    for side, role in (("o0", "dcci_o0"), ("disable_all", "dcci_disable_all")):
        mpath = os.path.join(pair, side, "collection-manifest.json")
        m = load(mpath)
        got = i[side]["manifest"]
        check(got is not None, f"{side}: no manifest")
        if got is None:
            continue
        check(got["sha256"] == sha256_file(mpath), f"{side}: manifest sha256 {got['sha256']}")
        check(got["manifest_fingerprint"] == m["manifest_fingerprint"],
              f"{side}: manifest fingerprint {got['manifest_fingerprint']}")
        check(got["manifest_fingerprint"] == summary["roles"][role]["manifest_fingerprint"],
              f"{side}: manifest fingerprint differs from the set summary")
        check(got["capture_role"] == role and got["round_id"] == m["round_id"] and
              got["validated"] is True, f"{side}: manifest identity {got}")
        recorded = {rec["path"]: (frole, rec["sha256"]) for frole, recs in m["files"].items()
                    for rec in recs}
        files = {f["path"]: f for f in i[side]["files"]}
        check(set(files) == set(recorded),
              f"{side}: files {sorted(set(files) ^ set(recorded))} listed on one side only")
        for path, (frole, sha) in recorded.items():
            f = files.get(path)
            if f is None:
                continue
            on_disk = sha256_file(os.path.join(pair, side, path))
            check(f["role"] == frole, f"{side}/{path}: role {f['role']}")
            check(f["recorded_sha256"] == sha, f"{side}/{path}: recorded {f['recorded_sha256']}")
            check(f["sha256"] == on_disk, f"{side}/{path}: sha256 {f['sha256']} != {on_disk}")
            want_by = "analyzer" if frole in ANALYZER_ROLES else "validator"
            check(f["hashed_by"] == want_by, f"{side}/{path}: hashed_by {f['hashed_by']}")
            if want_by == "analyzer":
                check(f["bytes"] == os.path.getsize(os.path.join(pair, side, path)),
                      f"{side}/{path}: bytes {f['bytes']}")


def canonical(obj):
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def options(truth, out):
    t = load(truth)
    L = t["expected"]["regexes"]
    check(L, "the ground truth has no regex list")
    want = {
        "option-values.json": canonical({"optimize_options": {
            "dcci_before_kernel_start": [L], "dcci_after_kernel_end": [L]}}),
        "dcci-repair-options.json": canonical({
            "dcci_disable_on_kernel": [".*"], "dcci_before_kernel_start": L,
            "dcci_after_kernel_end": L}),
    }
    for name, data in want.items():
        path = os.path.join(out, name)
        if not os.path.exists(path):
            problems.append(f"{name} missing")
            continue
        with open(path, "rb") as f:
            got = f.read()
        check(got == data, f"{name} bytes differ: {got[:200]!r} != {data[:200]!r}")


def blocked(out, rule, side, texts):
    r = load(os.path.join(out, REPORT))
    check(r["status"] == "collection_blocked", f"status {r['status']}")
    reasons = r["status_reasons"]
    check(len(reasons) == 1, f"{len(reasons)} status reasons: {reasons}")
    if reasons:
        x = reasons[0]
        check(x["code"] == "contract_invalid" and x["gate"] == "collection", f"reason {x}")
        check(x["message"].startswith(rule + ": "), f"message {x['message']!r} lacks {rule}")
        for t in texts:
            check(t in x["message"], f"message {x['message']!r} lacks {t!r}")
        check(x["side"] == (None if side == "-" else side), f"side {x['side']}, want {side}")
    check(r["integrity"]["issues"] == reasons, "integrity issues differ from the reason")
    check(r["sks"] == [] and r["regexes"] == [] and r["token_union"] == [],
          "a contract failure still reports results")
    check(r["inputs"]["contract"] is None, "inputs.contract set after a contract failure")
    for side_name in ("o0", "disable_all"):
        check(r["inputs"][side_name]["files"] == [], f"{side_name}: files listed unvalidated")
    files = set(os.listdir(out))
    check(files == {REPORT, "DCCI_REGRESSION_ANALYSIS.md", "DCCI_REGRESSION_ANALYSIS.html"},
          f"outputs {sorted(files)}")


def main():
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == "inputs":
        inputs(a[1], a[2])
    elif len(a) == 3 and a[0] == "options":
        options(a[1], a[2])
    elif len(a) >= 4 and a[0] == "blocked":
        blocked(a[1], a[2], a[3], a[4:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
