#!/usr/bin/env python3
"""Checks of the HTML reports (docs/report-html.md), used by html_report.sh.

html_check.py analysis PAGE JSON   the analysis page against its JSON report
html_check.py family PAGE JSON     the family page against its JSON report
html_check.py planted PAGE TRUTH   the generator's planted slower SKs and children
html_check.py round PAGE JSON      a round report page against its JSON document

Both: the page parses as XML (every element closed), holds no external
reference (no http:, https:, src=, href=, @import, url(, script, link,
img, iframe, object), and is UTF-8.  A blocked page has no <svg>; an
unblocked analysis page has charts 1-3 when some SK is significantly slower,
and every SK key, SK name, child symbol (both sides) and token of the JSON
appears in it; the family page has the decision chart and its status.
"""
import html
import json
import sys
import xml.etree.ElementTree as ET

FORBIDDEN = ["http:", "https:", "src=", "href=", "@import", "url(", "<script", "<link",
             "<img", "<iframe", "<object", "<embed"]
BLOCKED = {"collection_blocked", "mapping_blocked", "evidence_blocked",
           "child_attribution_blocked"}


def fail(msg):
    print(msg)
    sys.exit(1)


def load(page):
    raw = open(page, "rb").read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"{page}: not UTF-8: {e}")
    try:
        root = ET.fromstring(text.replace("<!DOCTYPE html>", "", 1))
    except ET.ParseError as e:
        fail(f"{page}: not well-formed: {e}")
    for f in FORBIDDEN:
        if f in text.lower():
            fail(f"{page}: external reference or active content: {f!r}")
    # the text as a reader sees it (titles included), for the fact checks
    flat = html.unescape("".join(root.itertext()))
    return text, root, flat


def svgs(root):
    return [e for e in root.iter() if e.tag == "svg"]


def analysis(page, report):
    text, root, flat = load(page)
    r = json.load(open(report, encoding="utf-8"))
    n = len(svgs(root))
    if r["status"] in BLOCKED:
        if n:
            fail(f"blocked status {r['status']} but {n} chart(s)")
        if r["status"] not in flat:
            fail("the blocked page does not name its status")
        for c in r.get("to_collect", []):
            if c.replace("`", "") not in flat:
                fail(f"to_collect item missing: {c}")
        return
    want = 3 if r["children"] else 1
    if n < want:
        fail(f"{n} chart(s), want at least {want}")
    missing = []
    for sk in r["sks"]:
        missing += [x for x in [sk["key_id"], *sk["names"].values()] if x not in flat]
    for ch in r["children"]:
        for p in ch["positions"]:
            missing += [x for x in [p["token"], *p["symbol"].values()] if x and x not in flat]
    for t in r["token_union"]:
        missing += [x for x in [t["token"], *t["symbols"]] if x not in flat]
    missing += [x for x in r["regexes"] if x not in flat]
    if missing:
        fail(f"facts of the JSON missing from the page: {sorted(set(missing))[:10]}")


def family(page, report):
    text, root, flat = load(page)
    r = json.load(open(report, encoding="utf-8"))
    status = r["decision"]["status"]
    if status not in flat:
        fail(f"family status {status} not on the page")
    n = len(svgs(root))
    if status == "blocked":
        if n:
            fail(f"blocked family report with {n} chart(s)")
    elif n < 1:
        fail("no decision chart")


def round_report(page, report):
    """A round report page: its attempt, outcome and every gate check's name
    on the page; charts 1 and 2 when the attempt was judged (a failed attempt
    without runs still draws the incumbent's runs)."""
    text, root, flat = load(page)
    r = json.load(open(report, encoding="utf-8"))
    for fact in (r["attempt"], r["outcome"], r["item"]["id"]):
        if fact not in flat:
            fail(f"{fact!r} not on the page")
    block = r["gate"] or r["stability"]
    want = 2 if block else 1
    n = len(svgs(root))
    if n < want:
        fail(f"{n} chart(s), want {want}")
    for c in (block or {}).get("checks", []):
        if c["name"] not in flat:
            fail(f"gate check {c['name']} not on the page")
    for run in (r["runs"]["trial"] or {}).get("runs", []):
        if run["name"] not in flat:
            fail(f"run {run['name']} not on the page")


def planted(page, truth):
    """The generator's planted scenario: chart 2 shows every planted slower
    SK (one heading each, in the chart section) and, inside its chart, each
    selected child as a starred row labelled with its position and token."""
    text, root, flat = load(page)
    g = json.load(open(truth, encoding="utf-8"))
    slow = [s for s in g["sks"] if s["planted_class"] == "significantly_slower"]
    heads = [("".join(e.itertext())) for e in root.iter("h3")]
    chart2 = [h for h in heads if h.startswith("2.")]
    if len(chart2) != len(slow):
        fail(f"chart 2 draws {len(chart2)} SK(s), planted {len(slow)}: {chart2}")
    labels = {"".join(e.itertext()) for e in root.iter("text")}
    for c in g["selected_children"]:
        want = f"★ #{c['position']} {c['token']}"
        if want not in labels:
            fail(f"selected child {want!r} not drawn")
    for s in slow:
        if s["names"]["o0"] not in flat:
            fail(f"slower SK {s['names']['o0']} not on the page")
    # chart 3: the lanes of one launch per side, a span for every child of
    # the most regressed SK on each side
    body = root.find("body")
    kids = list(body)
    at = [i for i, e in enumerate(kids) if e.tag == "h2" and "".join(e.itertext()).startswith("图 3")]
    lanes = next((e for e in kids[at[0]:] if e.tag == "svg"), None) if at else None
    if lanes is None:
        fail("chart 3 (lanes) missing")
    spans = {side: [r for r in lanes.iter("rect") if r.get("class") == side and r.find("title") is not None]
             for side in ("o0", "dis")}
    top = max(slow, key=lambda s: s["planted_regression_pct"])
    for side, rects in spans.items():
        positions = {"".join(r.find("title").itertext()).split("；")[0] for r in rects}
        if len(positions) < len(top.get("children", [])) or not rects:
            fail(f"chart 3: {side} has spans for {sorted(positions)}")


if __name__ == "__main__":
    {"analysis": analysis, "family": family, "planted": planted,
     "round": round_report}[sys.argv[1]](sys.argv[2], sys.argv[3])
