#!/usr/bin/env python3
"""Checks of the HTML reports (docs/report-html.md), used by html_report.sh.

html_check.py analysis PAGE JSON   the analysis page against its JSON report
html_check.py family PAGE JSON     the family page against its JSON report
html_check.py planted PAGE TRUTH   the generator's planted slower SKs and children
html_check.py dom DUMP JSON SPEC   a table of a page after its script ran (html_browser.sh)
html_check.py round PAGE JSON      a round report page against its JSON document

Both: the page parses as XML (every element closed), holds no external
reference (no http:, https:, src=, href=, @import, url(, link, img, iframe,
object) and exactly one script, inline, without attributes, that makes no
request (no fetch, XMLHttpRequest, WebSocket, import, src, href, storage,
eval), and is UTF-8.  The page is the Markdown report beside it rendered as
HTML: the same headings in the same order (the charts' headings besides),
and the same tables, row by row and cell by cell (code marks and escapes
aside).  A blocked page has no <svg>; an unblocked analysis page has charts
1-3 when some SK is significantly slower, and every SK key, SK name, child
symbol (both sides) and token of the JSON appears in it; the family page has
the decision chart and its status.
"""
import html
import json
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

FORBIDDEN = ["http:", "https:", "src=", "href=", "@import", "url(", "<link",
             "<img", "<iframe", "<object", "<embed"]
SCRIPT_FORBIDDEN = ["http", "fetch", "XMLHttpRequest", "WebSocket", "import", "src", "href",
                    "Storage", "eval", "Function(", "cookie", "open("]
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
    if text.count("<script") != 1 or text.count("<script>") != 1:
        fail(f"{page}: want exactly one inline <script> without attributes")
    body, script = text.split("<script>")[0], text.split("<script>")[1].split("</script>")[0]
    rest = body + text.split("</script>")[1]
    for f in FORBIDDEN:
        if f in rest.lower():
            fail(f"{page}: external reference or active content: {f!r}")
    for f in SCRIPT_FORBIDDEN:
        if f in script:
            fail(f"{page}: the script may make a request or keep state: {f!r}")
    # the text as a reader sees it (titles included), for the fact checks
    flat = html.unescape("".join(root.itertext()))
    return text, root, flat


def cells_of_md(line):
    """The cells of a Markdown table row, as a reader sees them."""
    cells, cur, i = [], "", 1
    while i < len(line):
        c = line[i]
        if c == "\\" and i + 1 < len(line) and line[i + 1] == "|":
            cur += "|"
            i += 2
            continue
        if c == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    return [norm(c.replace("<br>", "")) for c in cells]


def norm(t):
    return " ".join(t.replace("`", "").replace("**", "").split())


def md_facts(md):
    """Headings and tables of the Markdown report."""
    heads, tables, cur = [], [], None
    for line in md.splitlines():
        if line.startswith("|"):
            if line.startswith("|---"):
                continue
            if cur is None:
                cur = []
                tables.append(cur)
            cur.append(cells_of_md(line))
            continue
        cur = None
        if line.startswith("#"):
            heads.append(norm(line.lstrip("#")))
    return heads, tables


def html_facts(root):
    """Headings and tables of the page outside the charts and the blocked notice."""
    heads, tables = [], []
    body = root.find("body")

    def walk(e, skip):
        for k in e:
            if k.tag == "svg":
                continue
            inside = skip or (k.tag == "div" and k.get("class") == "blocked")
            if k.tag in ("h1", "h2", "h3", "h4") and not inside:
                heads.append(norm("".join(k.itertext())))
            elif k.tag == "table" and not inside:
                rows = []
                for tr in k.iter("tr"):
                    rows.append([norm("".join(c.itertext())) for c in tr if c.tag in ("td", "th")])
                tables.append(rows)
            else:
                walk(k, inside)
    walk(body, False)
    return heads, tables


def same_as_markdown(page, root, md_path):
    md = open(md_path, encoding="utf-8").read()
    mh, mt = md_facts(md)
    hh, ht = html_facts(root)
    it = iter(hh)
    missing = [h for h in mh if not any(h == x for x in it)]
    if missing:
        fail(f"{page}: headings of the Markdown report missing or out of order: {missing[:5]}")
    if len(mt) != len(ht):
        fail(f"{page}: {len(ht)} tables, the Markdown report has {len(mt)}")
    for i, (a, b) in enumerate(zip(mt, ht)):
        if a != b:
            for r, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    fail(f"{page}: table {i + 1} row {r + 1} differs from the Markdown report:\n"
                         f"  md:   {x}\n  html: {y}")
            fail(f"{page}: table {i + 1} has {len(b)} rows, the Markdown report {len(a)}")


def svgs(root):
    return [e for e in root.iter() if e.tag == "svg"]


def analysis(page, report):
    text, root, flat = load(page)
    r = json.load(open(report, encoding="utf-8"))
    same_as_markdown(page, root, report.rsplit("/", 1)[0] + "/DCCI_REGRESSION_ANALYSIS.md")
    n = len(svgs(root))
    if r["status"] in BLOCKED:
        if n:
            fail(f"blocked status {r['status']} but {n} chart(s)")
        if r["status"] not in flat:
            fail("the blocked page does not name its status")
        md = open(report.rsplit("/", 1)[0] + "/DCCI_REGRESSION_ANALYSIS.md", encoding="utf-8").read()
        for line in md.splitlines():
            if line.startswith("- 需要采集："):
                if line[2:].replace("`", "") not in flat:
                    fail(f"what to collect missing: {line}")
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
    same_as_markdown(page, root, report.rsplit("/", 1)[0] + "/DCCI_FAMILY_REPORT.md")
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


class TableDom(HTMLParser):
    """The rows of one table of a page's DOM (Chromium's --dump-dom): each
    row's attributes and cell texts; the selector's options."""

    def __init__(self, table_id):
        super().__init__()
        self.id, self.depth, self.rows, self.cell = table_id, 0, [], None
        self.attrs, self.heads, self.head = {}, [], False
        self.options = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == self.id:
            self.depth, self.attrs = 1, a
        elif tag == "table" and self.depth:
            self.depth += 1
        elif self.depth and tag == "thead":
            self.head = True
        elif self.depth and tag == "tbody":
            self.head = False
        elif self.depth and tag == "tr" and not self.head:
            self.rows.append({"attrs": a, "cells": []})
        elif self.depth and tag in ("td", "th"):
            self.cell = ""
            if self.head:
                self.heads.append(a)
        elif tag == "select" and a.get("id") == self.id + "-filter":
            self.options = []
        elif tag == "option" and self.options is not None and "value" in a:
            self.options.append(a["value"])

    def handle_endtag(self, tag):
        if self.depth and tag == "table":
            self.depth -= 1
        elif self.depth and tag in ("td", "th") and self.cell is not None:
            if not self.head:
                self.rows[-1]["cells"].append(" ".join(self.cell.split()))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def dom(dump, report, spec):
    """dom DUMP JSON SPEC: the table SPEC names after the page's script ran
    with the address #sort=ID:COL:desc&filter=ID:VALUE.  SPEC (JSON): id,
    sort (the column), filter (the column) and value, want (the rows the
    filter keeps), rows (all rows).  The rows are sorted by the column,
    descending, numbers by value and an absent value last, equal values in
    the report's order; the rows of another value are hidden; data-shown
    counts the shown rows; every heading carries aria-sort."""
    sp = json.loads(spec)
    t = TableDom(sp["id"])
    t.feed(open(dump, encoding="utf-8").read())
    rows = t.rows
    if len(rows) != sp["rows"]:
        fail(f"table {sp['id']}: {len(rows)} rows, want {sp['rows']}")
    col = sp["sort"]

    def key(r):
        v = r["cells"][col]
        try:
            return (0, -float(v))
        except ValueError:
            return (1, 0.0)
    keys = [key(r) for r in rows]
    for i in range(1, len(rows)):
        if keys[i] < keys[i - 1]:
            fail(f"table {sp['id']}: not sorted by column {col} descending at row {i + 1}: "
                 f"{rows[i - 1]['cells'][col]} then {rows[i]['cells'][col]}")
        if keys[i] == keys[i - 1] and int(rows[i]["attrs"]["data-i"]) < int(rows[i - 1]["attrs"]["data-i"]):
            fail(f"table {sp['id']}: equal values out of the report's order at row {i + 1}")
    shown = [r for r in rows if "hidden" not in r["attrs"]]
    for r in rows:
        if ("hidden" in r["attrs"]) == (r["cells"][sp["filter"]] == sp["value"]):
            fail(f"table {sp['id']}: row {r['cells'][:2]} {'hidden' if 'hidden' in r['attrs'] else 'shown'}"
                 f" with {r['cells'][sp['filter']]!r}, filter {sp['value']!r}")
    if len(shown) != sp["want"] or t.attrs.get("data-shown") != str(sp["want"]):
        fail(f"table {sp['id']}: {len(shown)} rows shown (data-shown {t.attrs.get('data-shown')}), "
             f"want {sp['want']}")
    sorts = [h.get("aria-sort") for h in t.heads]
    if sorts[col] != "descending" or any(x != "none" for i, x in enumerate(sorts) if i != col):
        fail(f"table {sp['id']}: aria-sort of the headings {sorts}")
    if t.options is None or sp["value"] not in t.options or "" not in t.options:
        fail(f"table {sp['id']}: the filter selector lacks {sp['value']!r} or 'all': {t.options}")
    print(f"{sp['id']}: {len(rows)} rows sorted by column {col}, {len(shown)} shown")


if __name__ == "__main__":
    if sys.argv[1] == "dom":
        dom(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        {"analysis": analysis, "family": family, "planted": planted,
         "round": round_report}[sys.argv[1]](sys.argv[2], sys.argv[3])
