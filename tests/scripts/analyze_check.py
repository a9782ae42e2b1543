#!/usr/bin/env python3
"""Compares skdcci analyze output with skdcci_gen's ground-truth.json.

    analyze_check.py TRUTH OUTDIR RC SEALED
    analyze_check.py --same-analysis OUTDIR_A OUTDIR_B

Prints one line per problem and exits 1 when there is any (standard library only).
"""
import json
import os
import sys

REPORT = "dcci-regression-analysis.json"
EXIT = {"repair_candidate": 0, "no_regressed_child": 0, "no_significant_regression": 0,
        "collection_blocked": 3, "mapping_blocked": 3, "child_attribution_blocked": 3,
        "evidence_blocked": 3}
# a collection block compares nothing: none of these may carry anything
COMPARISON = ("sks", "children", "token_union", "regexes", "regex_validation", "collateral")
problems = []


def check(cond, what):
    if not cond:
        problems.append(what)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def ns(us):
    # exact: the report writes µs as exact decimals
    from decimal import Decimal
    return Decimal(str(us)) * 1000


def same_analysis(a, b):
    ra, rb = load(os.path.join(a, REPORT)), load(os.path.join(b, REPORT))
    for key in ("status", "status_if_sealed", "thresholds", "matching", "sks", "children",
                "token_union", "regexes", "regex_validation", "collateral"):
        check(ra.get(key) == rb.get(key), f"{key} differs between {a} and {b}")


def check_sk(s, by_o0, where=""):
    """One sks entry of the report against the truth's realized statistics."""
    ts = by_o0.get(s["names"]["o0"])
    if ts is None:
        problems.append(f"{where}SK {s['names']['o0']} not in the ground truth")
        return
    real = ts["realized_sk_wall"]
    check(s["class"] == real["class"], f"{where}{s['names']['o0']}: class {s['class']}, "
          f"want {real['class']}")
    for side in ("o0", "disable_all"):
        got, want = s["stats"][side], real[side]
        check(got["count"] == want["count"], f"{where}{s['names'][side]}: count {got['count']} != {want['count']}")
        for k in ("p50", "p90", "mad", "min", "max"):
            check(ns(got[k + "_us"]) == ns(want[k + "_ns"]) / 1000,
                  f"{where}{s['names'][side]}: {k} {got[k + '_us']} µs != {want[k + '_ns']} ns")


def rank_sks(t, device):
    """The truth's SKs of the rank on device, by index."""
    for rank in t["ranks"]:
        if rank["device"] == device:
            return {s["index"]: s for s in rank["sks"]}
    problems.append(f"device {device} has no rank in the ground truth")
    return {}


def option_files(out, L, want):
    files = set(os.listdir(out))
    for f in ("option-values.json", "dcci-repair-options.json"):
        check((f in files) == want, f"{f} present={f in files}, want {want}")
    if want:
        ov = load(os.path.join(out, "option-values.json"))
        check(ov == {"optimize_options": {"dcci_before_kernel_start": [L],
                                          "dcci_after_kernel_end": [L]}}, f"option-values {ov}")
        ro = load(os.path.join(out, "dcci-repair-options.json"))
        check(ro == {"dcci_disable_on_kernel": [".*"], "dcci_before_kernel_start": L,
                     "dcci_after_kernel_end": L}, f"repair options {ro}")


def main_multi(t, r, out, rc, sealed):
    """A multi-rank pair (run.ranks >= 2): per-device results and the union."""
    e = t["expected"]
    final = e["status"] if sealed else "collection_blocked"
    check(r["status"] == final, f"status {r['status']}, want {final}")
    check(rc == EXIT[final], f"exit code {rc}, want {EXIT[final]}")
    on = t["run"]["devices"]
    devices = sorted(set(on["o0"]) & set(on["disable_all"]))
    check(r["devices"] == devices, f"devices {r['devices']}, want {devices}")
    if not sealed:
        check(any(i["code"] == "unsealed_input" for i in r["status_reasons"]),
              "status_reasons lack unsealed_input")
        return
    for want in e["issues"]:
        found = [i for i in r["status_reasons"]
                 if (i["gate"], i["code"], i["side"], i.get("device")) ==
                 (want["gate"], want["code"], want["side"], want["device"])]
        check(found, f"status_reasons lack {want}: {[(i['code'], i.get('device')) for i in r['status_reasons']]}")
    if final == "collection_blocked":
        for key in COMPARISON:
            check(r[key] == [], f"collection_blocked with a non-empty {key}")
        option_files(out, [], False)
        return
    per = {p["device"]: p for p in r["per_device"]}
    check(sorted(per) == devices, f"per_device {sorted(per)}, want {devices}")
    for dv in e["devices"]:
        d = dv["device"]
        if d not in per:
            continue
        check(per[d]["status"] == dv["status"], f"device {d}: status {per[d]['status']}, want {dv['status']}")
        truth = rank_sks(t, d)
        by_o0 = {s["names"]["o0"]: s for s in truth.values()}
        mine = [s for s in r["sks"] if s["device"] == d]
        for s in mine:
            check_sk(s, by_o0, f"device {d}: ")
        slow_got = {s["names"]["o0"] for s in mine if s["class"] == "significantly_slower"}
        slow_want = {s["names"]["o0"] for s in dv["slower_sks"]}
        check(slow_got == slow_want, f"device {d}: slower SKs {sorted(slow_got)} != {sorted(slow_want)}")
        # a device whose attribution is blocked selects nothing
        selects = dv["status"] in ("repair_candidate", "no_regressed_child")
        sel_want = {(truth[c["sk_index"]]["names"]["o0"], c["position"], c["token"])
                    for c in dv["regressed_children"]} if selects else set()
        sel_got = {(c["names"]["o0"], p["position"], p["token"])
                   for c in r["children"] if c["device"] == d for p in c["positions"] if p["selected"]}
        check(sel_got == sel_want, f"device {d}: selected children {sorted(sel_got)} != {sorted(sel_want)}")
    L = r["regexes"]
    candidate = final == "repair_candidate"
    if candidate:
        check(L == e["regexes"], f"regexes {L} != {e['regexes']}")
        check([x["token"] for x in r["token_union"]] == e["tokens"],
              f"token order {[x['token'] for x in r['token_union']]} != {e['tokens']}")
        contrib = {(c["device"], x["token"]) for x in r["token_union"] for c in x["contributors"]}
        want = {(c["device"], c["token"]) for c in t["selected_children"]}
        check(contrib == want, f"contributors {sorted(contrib)} != {sorted(want)}")
        coll_want = set()
        for tok in t["tokens"]:
            for side in ("o0", "disable_all"):
                for c in tok["collateral"][side]:
                    names = rank_sks(t, c["device"])[c["sk_index"]]["names"]
                    coll_want.add((c["device"], side, names[side], c["position"]))
        coll_got = {(c["device"], c["side"], c["sk_name"], c["position"]) for c in r["collateral"]}
        check(coll_got == coll_want, f"collateral {sorted(coll_got - coll_want)[:5]} extra, "
              f"{sorted(coll_want - coll_got)[:5]} missing")
    else:
        check(L == [], f"regexes {L} for status {final}")
    option_files(out, L, candidate)


def main_truth(truth_path, out, rc, sealed):
    t = load(truth_path)
    r = load(os.path.join(out, REPORT))
    if t["run"].get("ranks", 1) > 1:
        main_multi(t, r, out, rc, sealed)
        return
    scenario = t["generator"]["scenario"]
    expected = t["expected"]["status"]
    final = expected if sealed else "collection_blocked"
    check(r["status"] == final, f"status {r['status']}, want {final}")
    check(r["status_if_sealed"] is None, f"status_if_sealed {r['status_if_sealed']}, want null")
    # absent from the ground truth: the profiler wrote Step Ids
    mode = t["run"].get("occurrence_mode", "step_id")
    check(r.get("occurrence_mode") == mode,
          f"occurrence_mode {r.get('occurrence_mode')}, want {mode}")
    check(rc == EXIT[final], f"exit code {rc}, want {EXIT[final]}")
    if final == "collection_blocked":
        for key in COMPARISON:
            check(r[key] == [], f"collection_blocked with a non-empty {key}")
        check(r["matching"]["matched"] == 0 and r["matching"]["excluded"] == [],
              f"collection_blocked with a matching {r['matching']}")
        check(r["to_collect"], "collection_blocked without to_collect")
        md = open(os.path.join(out, "DCCI_REGRESSION_ANALYSIS.md"), encoding="utf-8").read()
        for word in ("dcci_before_kernel_start =", "dcci_after_kernel_end    ="):
            check(word not in md, f"collection_blocked report holds '{word}'")
        files = set(os.listdir(out))
        for f in ("option-values.json", "dcci-repair-options.json"):
            check(f not in files, f"collection_blocked wrote {f}")
        # the inventory is still reported
        for side in ("o0", "disable_all"):
            check(r["inputs"][side]["files"], f"collection_blocked: no inventory of {side}")
        codes = {i["code"] for i in r["integrity"]["issues"]}
        if scenario == "options_mismatch":
            msg = [i["message"] for i in r["integrity"]["issues"] if i["code"] == "options_mismatch"]
            check(msg and "split_mode" in msg[0], f"options_mismatch does not name split_mode: {msg}")
        if scenario == "impure_o0" and sealed:
            msg = [i["message"] for i in r["integrity"]["issues"] if i["code"] == "o0_dcci_option"]
            check(msg and "dcci_before_kernel_start" in msg[0],
                  f"impure_o0 does not name dcci_before_kernel_start: {msg}")
            check("options_mismatch" not in codes, "impure_o0 reported as options_mismatch")
    if not sealed:
        check(any(i["code"] == "unsealed_input" for i in r["status_reasons"]),
              "status_reasons lack unsealed_input")
    if final == "collection_blocked":
        return

    names = {s["index"]: s["names"] for s in t["sks"]}
    by_o0 = {s["names"]["o0"]: s for s in t["sks"] if s["names"]["o0"]}
    unclassified = t["expected"]["unclassified"]
    if expected == "evidence_blocked":
        # every SK that lacks evidence is named, none is classified, and the
        # realized statistics below are compared for the others only
        check(unclassified, "evidence_blocked scenario without unclassified SKs in the truth")
        codes = {i["code"] for i in r["status_reasons"]}
        check(codes == {"sk_unclassified"}, f"status reasons {sorted(codes)}, want sk_unclassified")
        text = " ".join(i["message"] for i in r["status_reasons"])
        for n in unclassified:
            check(n in text, f"{n} not named in the status reasons")
        got = {s["names"]["o0"] for s in r["sks"] if s["class"] == "insufficient_evidence"}
        check(got == set(unclassified), f"insufficient_evidence SKs {sorted(got)} != {sorted(unclassified)}")
        check(r["token_union"] == [] and r["regexes"] == [] and r["collateral"] == [],
              "evidence_blocked with a token union, regexes or collateral")
        check(r["to_collect"], "evidence_blocked without to_collect")
        for n in unclassified:
            by_o0.pop(n, None)
    else:
        check(unclassified == [], f"unclassified SKs {unclassified} for status {expected}")
    # every matched SK: realized statistics and class
    for s in r["sks"]:
        if s["names"]["o0"] not in unclassified:
            check_sk(s, by_o0)
    if expected == "mapping_blocked":
        check(r["sks"] == [], "mapping_blocked with matched SKs")
        check(r["matching"]["excluded"] and
              all(e["state"] == "ambiguous" and e["reason"].startswith("count_differs")
                  for e in r["matching"]["excluded"]),
              f"mapping_blocked: every SK must be ambiguous (count_differs): {r['matching']}")
        by_o0 = {}
    slow_truth = {n for n, s in by_o0.items() if s["realized_sk_wall"]["class"] == "significantly_slower"}
    slow_got = {s["names"]["o0"] for s in r["sks"] if s["class"] == "significantly_slower"}
    check(slow_got == slow_truth, f"slower SKs {sorted(slow_got)} != {sorted(slow_truth)}")

    candidate = expected == "repair_candidate"
    L = r["regexes"]
    if candidate:
        check(L == t["expected"]["regexes"], f"regexes {L} != {t['expected']['regexes']}")
        check([x["token"] for x in r["token_union"]] == t["expected"]["tokens"],
              f"token order {[x['token'] for x in r['token_union']]} != {t['expected']['tokens']}")
        sel_truth = {(names[c["sk_index"]]["o0"], c["position"], c["token"])
                     for c in t["selected_children"]}
        sel_got = {(c["names"]["o0"], p["position"], p["token"])
                   for c in r["children"] for p in c["positions"] if p["selected"]}
        check(sel_got == sel_truth, f"selected children {sorted(sel_got)} != {sorted(sel_truth)}")
        coll_truth = set()
        for tok in t["tokens"]:
            for side in ("o0", "disable_all"):
                for c in tok["collateral"][side]:
                    coll_truth.add((side, names[c["sk_index"]][side], c["position"]))
        coll_got = {(c["side"], c["sk_name"], c["position"]) for c in r["collateral"]}
        check(coll_got == coll_truth, f"collateral {sorted(coll_got - coll_truth)} extra, "
              f"{sorted(coll_truth - coll_got)} missing")
    else:
        check(L == [] or expected != "child_attribution_blocked", f"regexes {L} while blocked")
    for dcy in t.get("decoys", []):
        name = names[dcy["sk_index"]]["o0"]
        rows = [p for c in r["children"] if c["names"]["o0"] == name for p in c["positions"]
                if p["position"] == dcy["position"]]
        if expected in ("repair_candidate", "no_regressed_child") and rows:
            p = rows[0]
            check(not p["selected"], f"decoy {name}:{dcy['position']} selected")
            check(p["metrics"]["duration_sum"]["class"] == "significantly_slower",
                  f"decoy {name}:{dcy['position']} duration sum {p['metrics']['duration_sum']['class']}")
            for m in ("wall", "max_lane"):
                check(p["metrics"][m]["class"] != "significantly_slower",
                      f"decoy {name}:{dcy['position']} {m} slower")
        elif expected in ("repair_candidate", "no_regressed_child"):
            problems.append(f"decoy {name}:{dcy['position']} missing from the child table")

    files = set(os.listdir(out))
    option_files(out, L, sealed and final == "repair_candidate")
    check("DCCI_REGRESSION_ANALYSIS.md" in files, "Markdown report missing")

    codes = {i["code"] for i in r["integrity"]["issues"]}
    want_codes = {"buffer_full": {"buffer_full", "core_capacity_reached"},
                  "incomplete_lanes": {"incomplete_lanes"}, "fixture_shape": {"fixture_shape"},
                  "options_mismatch": {"options_mismatch"}}.get(scenario, set())
    check(want_codes <= codes, f"integrity codes {sorted(codes)} lack {sorted(want_codes - codes)}")
    if scenario == "options_mismatch":
        msg = [i["message"] for i in r["integrity"]["issues"] if i["code"] == "options_mismatch"]
        check(msg and "split_mode" in msg[0], f"options_mismatch does not name split_mode: {msg}")
    if scenario == "buffer_full":
        for side in ("o0", "disable_all"):
            bf = r["integrity"][side]["buffer_full"]
            check(len(bf) == 1 and bf[0]["core"] == 25,
                  f"{side}: buffer_full {bf}, want core 25 only")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--same-analysis":
        same_analysis(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5:
        main_truth(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
