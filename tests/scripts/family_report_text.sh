#!/usr/bin/env bash
# The family report stays Chinese (docs/stage-o.md §9): every blocker and note
# code that so_family.c can raise has a Chinese sentence in so_family_zh.c
# (built from the report's facts; the JSON keeps the English message), so a
# new code without one fails here with its name; and the Markdown reports of
# the data-driven family cases print neither a code without a sentence nor a
# number with more than three decimals.
source "$SK_REPO/tests/lib.sh"
SK_SCRIPT=family_report_text

t_ok every_code_has_chinese python3 - "$SK_REPO/analyzer/stage_o/so_family.c" \
    "$SK_REPO/analyzer/stage_o/so_family_zh.c" <<'PY'
import re, sys
src, zh = (open(p, encoding="utf-8").read() for p in sys.argv[1:])
codes = set(re.findall(r'add_issue\(f,\s*f->(?:blockers|notes),\s*"([a-z0-9_]+)"', src))
# the failed-attempt codes come from a table {scene status, code}
table = re.search(r"\} codes\[\] = \{(.*?)\};", src, re.S)
codes |= set(re.findall(r'\{"[a-z_]+",\s*"([a-z0-9_]+)"\}', table.group(1) if table else ""))
assert len(codes) >= 25, f"only {len(codes)} codes found: the patterns no longer match so_family.c"
missing = sorted(c for c in codes if f'{{"{c}", ' not in zh)
if missing:
    sys.exit("no Chinese sentence in analyzer/stage_o/so_family_zh.c (k_entries) for: "
             + ", ".join(missing))
PY

t_ok goldens_chinese_and_rounded python3 - "$SK_REPO/tests/cases/skdcci" <<'PY'
import glob, re, sys
bad = []
for p in sorted(glob.glob(sys.argv[1] + "/family_*/expect/out/DCCI_FAMILY_REPORT.md")):
    t = open(p, encoding="utf-8").read()
    if "暂无中文说明" in t:
        bad.append(f"{p}: a note without a Chinese sentence")
    for m in re.findall(r"(?<![0-9a-f])-?[0-9]+\.[0-9]{4,}(?![0-9a-f])", t):
        bad.append(f"{p}: unrounded number {m}")
    if "](" in t:
        bad.append(f"{p}: a link, which would not resolve from the output directory")
if bad:
    sys.exit("\n# ".join(bad[:20]))
PY
