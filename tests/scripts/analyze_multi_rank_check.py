#!/usr/bin/env python3
"""Checks of the reports of a multi-rank pair (docs/analyze.md 10.2), used by
analyze_multi_rank_reports.sh.  Device k of the pair was built from the
one-device pair whose ground truth is TRUTH_k.

analyze_multi_rank_check.py json OUT STATUS DEVICE_STATUS:TRUTH...
    devices and per_device (statuses, in device order; under a collection
    block nothing compared and the devices those of the report); every sks, children,
    contributor, collateral and excluded entry names a device of the pair;
    per device the classes of its SKs are the ground truth's and its
    significantly slower SKs the planted ones; for repair_candidate the
    tokens and L are those of the devices' ground truths in device order;
    status_reasons are the blocking issues of every device; device_overview
    has one row per (key, occurrence) and the class of every sks entry.
analyze_multi_rank_check.py md OUT
    the overview table with every overview row, one section per device with
    its SK table, contributors naming their device.
analyze_multi_rank_check.py html OUT
    unblocked: the overview grid with a cell per row and device, charts 1-3
    per device; blocked: the blocking issues with their device, no chart.
"""
import json
import sys

BLOCKED = {"collection_blocked", "mapping_blocked", "evidence_blocked",
           "child_attribution_blocked"}
GATE = {"collection_blocked": "collection", "mapping_blocked": "mapping",
        "evidence_blocked": "evidence", "child_attribution_blocked": "child_attribution"}
ZH = {"significantly_slower": "显著变慢", "significantly_faster": "显著变快", "neutral": "中性",
      "insufficient_evidence": "证据不足", "unmatched": "未匹配", "ambiguous": "歧义", None: "—"}

problems = []


def check(cond, msg):
    if not cond:
        problems.append(msg)


def done():
    for p in problems[:40]:
        print(p)
    sys.exit(1 if problems else 0)


def report(out):
    return json.load(open(f"{out}/dcci-regression-analysis.json", encoding="utf-8"))


def overview_rows(r):
    return [(x["key_id"], x["occurrence"], x["classes"]) for x in r["device_overview"]["rows"]]


def check_json(out, status, specs):
    r = report(out)
    want_status = [s.split(":", 1)[0] for s in specs]
    truths = [json.load(open(s.split(":", 1)[1], encoding="utf-8")) for s in specs]
    devs = list(range(len(specs)))
    if status == "collection_blocked":
        devs = r["devices"]
    check(r["status"] == status, f"status {r['status']}, want {status}")
    check(r["devices"] == devs, f"devices {r['devices']}, want {devs}")
    per = r.get("per_device", [])
    check([p["device"] for p in per] == devs, f"per_device devices {[p['device'] for p in per]}")
    if status == "collection_blocked":
        # compared nothing: no SK, no overview row, and no device states a
        # result of its own (the block may be the pair's, without a reason
        # of the device)
        check(r["sks"] == [] and r["children"] == [] and r["device_overview"]["rows"] == [],
              "a collection block with SKs, children or overview rows")
        check(all(p["matching"]["excluded"] == [] for p in per), "excluded SKs under a collection block")
        want_status = ["collection_blocked"] * len(per)
    check([p["status"] for p in per] == want_status,
          f"per_device statuses {[p['status'] for p in per]}, want {want_status}")
    for p in per:
        g = GATE.get(p["status"])
        check(all(i["gate"] == g and i.get("device") == p["device"] for i in p["status_reasons"]),
              f"device {p['device']}: status_reasons of another gate or device")
        if status != "collection_blocked":
            check(bool(p["status_reasons"]) == (p["status"] in BLOCKED),
                  f"device {p['device']}: status_reasons {len(p['status_reasons'])} for {p['status']}")
        check(p["matching"]["matched"] == len([s for s in r["sks"] if s["device"] == p["device"]]),
              f"device {p['device']}: matched {p['matching']['matched']} != its sks entries")
    check(r["matching"]["matched"] == len(r["sks"]), "matching.matched is not the number of sks")
    if status in BLOCKED:
        got = {(i["code"], i.get("device")) for i in r["status_reasons"]}
        want = {(i["code"], i.get("device")) for p in per for i in p["status_reasons"]
                if i["gate"] == GATE[status]}
        check(want <= got, f"status_reasons {sorted(got)} lack the devices' {sorted(want - got)}")
    else:
        check(r["status_reasons"] == [], "status_reasons of an unblocked pair")
    for name in ("sks", "children", "collateral"):
        check(all(e.get("device") in devs for e in r[name]), f"{name} entry without a device")
    check(all(e.get("device") in devs for e in r["matching"]["excluded"]),
          "matching.excluded entry without a device")
    check(all(e.get("device") in devs for e in r["integrity"]["slower_sks"]),
          "integrity.slower_sks entry without a device")
    check([e["device"] for e in r["sks"]] == sorted(e["device"] for e in r["sks"]),
          "sks are not in device order")
    # per device: classes and slower SKs as planted
    for d, t in zip(devs, truths):
        if want_status[d] == "mapping_blocked" or status == "collection_blocked":
            continue
        by_o0 = {s["names"]["o0"]: s for s in t["sks"] if s["names"]["o0"]}
        mine = [s for s in r["sks"] if s["device"] == d]
        check(mine, f"device {d}: no sks entry")
        for s in mine:
            ts = by_o0.get(s["names"]["o0"])
            if ts is None:
                problems.append(f"device {d}: SK {s['names']['o0']} not in its ground truth")
                continue
            check(s["class"] == ts["realized_sk_wall"]["class"],
                  f"device {d}: {s['names']['o0']} class {s['class']}, want "
                  f"{ts['realized_sk_wall']['class']}")
        want_slow = {n for n, s in by_o0.items()
                     if s["realized_sk_wall"]["class"] == "significantly_slower"}
        got_slow = {s["names"]["o0"] for s in mine if s["class"] == "significantly_slower"}
        check(got_slow == want_slow, f"device {d}: slower SKs {sorted(got_slow)} != {sorted(want_slow)}")
        got_children = {c["names"]["o0"] for c in r["children"] if c["device"] == d}
        check(got_children == want_slow, f"device {d}: children of {sorted(got_children)}")
    if status == "repair_candidate":
        tokens, regexes = [], []
        for d, t in zip(devs, truths):
            if want_status[d] == "repair_candidate":
                tokens += [x for x in t["expected"]["tokens"] if x not in tokens]
                regexes += [x for x in t["expected"]["regexes"] if x not in regexes]
        check([x["token"] for x in r["token_union"]] == tokens,
              f"tokens {[x['token'] for x in r['token_union']]} != {tokens}")
        check(r["regexes"] == regexes, f"regexes {r['regexes']} != {regexes}")
        contrib = [c for x in r["token_union"] for c in x["contributors"]]
        check(contrib and all(c.get("device") in devs for c in contrib),
              "a contributor without a device")
        slow_devs = {c["device"] for c in r["children"]}
        check({c["device"] for c in contrib} <= slow_devs,
              f"contributors of devices {sorted({c['device'] for c in contrib})} without slower SKs")
    # the overview against sks and excluded
    ov = r["device_overview"]
    check(ov["devices"] == devs, f"device_overview.devices {ov['devices']}")
    rows = overview_rows(r)
    keys = [(k, o) for k, o, _ in rows]
    check(keys == sorted(set(keys)), "overview rows not one per (key, occurrence) in key order")
    cls = {(k, o): c for k, o, c in rows}
    for s in r["sks"]:
        c = cls.get((s["key_id"], s["occurrence"]["o0"]), {})
        check(c.get(str(s["device"])) == s["class"],
              f"overview: {s['key_id']} #{s['occurrence']['o0']} on {s['device']} is "
              f"{c.get(str(s['device']))}, sks says {s['class']}")
    present = {(s["key_id"], s["occurrence"]["o0"], s["device"]) for s in r["sks"]}
    present |= {(e["key_id"], e["occurrence"], e["device"]) for e in r["matching"]["excluded"]}
    for k, o, c in rows:
        for d in devs:
            check((c.get(str(d)) is not None) == ((k, o, d) in present),
                  f"overview: {k} #{o} on device {d} is {c.get(str(d))}")
    done()


def check_md(out):
    r = report(out)
    md = open(f"{out}/DCCI_REGRESSION_ANALYSIS.md", encoding="utf-8").read()
    n = len(r["devices"])
    check("\n## 4. 设备 × SK 一览\n" in md, "no overview section")
    blocked = r["status"] == "collection_blocked"
    head = "| 结构键 | 出现序号 | SK 名称 |" + "".join(f" 设备 {d} |" for d in r["devices"])
    check(blocked or head in md, f"no overview table header {head}")
    sec = md.split("\n## 4. 设备 × SK 一览\n", 1)[-1].split("\n## 5.", 1)[0]
    for k, o, c in overview_rows(r):
        cells = " | ".join(ZH[c[str(d)]] for d in r["devices"])
        check(f"| `{k}` | {o} | " in sec and cells in sec, f"overview row {k} #{o} ({cells}) missing")
    for i, p in enumerate(r["per_device"]):
        check(f"\n## {5 + i}. 设备 {p['device']}\n" in md, f"no section of device {p['device']}")
        body = md.split(f"\n## {5 + i}. 设备 {p['device']}\n", 1)[-1].split("\n## ", 1)[0]
        check(f"`{p['status']}`" in body, f"device {p['device']}: status not in its section")
        for s in r["sks"]:
            if s["device"] == p["device"]:
                check(s["names"]["o0"] in body, f"device {p['device']}: {s['names']['o0']} not in its section")
        check(f"### {5 + i}.3 显著变慢 SK 的子节点分解" in body, f"device {p['device']}: no children section")
    check(f"\n## {7 + n - 2}. 显著变慢子节点的规范算子 token 并集" in md, "token section not after the devices")
    for x in r["token_union"]:
        for c in x["contributors"]:
            check(f"| {c['device']} / {c['key_id'][:20]}… / {c['occurrence']['o0']} / {c['position']} |" in md,
                  f"contributor {x['token']} of device {c['device']} not named")
    done()


def check_html(out):
    r = report(out)
    page = open(f"{out}/DCCI_REGRESSION_ANALYSIS.html", encoding="utf-8").read()
    devices = ", ".join(str(d) for d in r["devices"])
    check("设备：" + devices in page, f"devices {devices} not named")
    if r["status"] in BLOCKED:
        check("<svg" not in page, "a blocked page with a chart")
        check("<th>设备</th>" in page, "blocked page without a device column")
        for i in r["status_reasons"]:
            if "device" in i:
                check(f"<code>{i['code']}</code></td><td>{i['device']}</td>" in page,
                      f"issue {i['code']} of device {i['device']} not listed")
        done()
    check("总览　设备 × SK" in page, "no overview")
    grid = page.split("总览　设备 × SK", 1)[1].split("图 1　", 1)[0]
    rows = overview_rows(r)
    cells = grid.count("<title>设备 ")
    check(cells == len(rows) * len(r["devices"]),
          f"overview cells {cells}, want {len(rows)} x {len(r['devices'])}")
    for d in r["devices"]:
        for n in (1, 2, 3):
            check(f"图 {n}　" in page and f"（设备 {d}）</h2>" in page, f"chart {n} of device {d} missing")
        check(page.count(f"（设备 {d}）</h2>") == 3, f"device {d}: {page.count(f'（设备 {d}）</h2>')} charts")
    done()


if __name__ == "__main__":
    {"json": lambda: check_json(sys.argv[2], sys.argv[3], sys.argv[4:]),
     "md": lambda: check_md(sys.argv[2]),
     "html": lambda: check_html(sys.argv[2])}[sys.argv[1]]()
