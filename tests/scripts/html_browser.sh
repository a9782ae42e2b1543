#!/usr/bin/env bash
# The HTML reports in a real browser (docs/report-html.md, "Tests"): Chromium
# headless opens the demo pair's analysis page, a multi-rank pair's page, a
# blocked analysis page, an accepted family page and a round report page;
# any console message fails (a script error would be one), and the
# screenshot must not be blank: the analysis, family and round report pages
# must show their chart colours inside the viewport.  Then the rendered tables: each page's SK table, opened with the
# address #sort=ID:COL:desc&filter=ID:CLASS, after the page's script ran
# (--dump-dom): every SK of the JSON a row, sorted by the Δ% (regression)
# column, the rows of the other classes hidden, the selector built
# (html_check.py dom).  Fails, never skips, when chromium is missing: `make
# deps` installs it.
source "$SK_REPO/tests/lib.sh"
SK_SCRIPT=html_browser
SEAL=$SK_REPO/tests/tools/seal_pair.sh
W=$PWD
S=$W/shots   # screenshots and browser logs, NAME.png / NAME.err
mkdir -p "$S"
PNG=$SK_REPO/tests/scripts/png_check.py

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    t_fail chromium "chromium is not installed (make deps installs it; docs/install.md)"
    exit 0
fi
t_pass "chromium ($browser)"

# open_page PAGE NAME: screenshot S/NAME.png, browser log (console messages) in S/NAME.err
open_page() {
    local profile
    profile=$(mktemp -d "$W/profile.XXXXXX")
    # --no-sandbox: the suite may run as root, where Chromium's sandbox refuses to start
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$profile" --enable-logging=stderr --v=0 --hide-scrollbars \
        --window-size=1024,1800 --screenshot="$S/$2.png" "file://$1" >"$S/$2.out" 2>"$S/$2.err"
    local rc=$?
    rm -rf "$profile"
    return $rc
}

# dom_page PAGE#HASH NAME: the DOM after the page's script ran, in S/NAME.dom
dom_page() {
    local profile
    profile=$(mktemp -d "$W/profile.XXXXXX")
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --no-first-run --user-data-dir="$profile" --enable-logging=stderr --v=0 \
        --dump-dom "file://$1" >"$S/$2.dom" 2>"$S/$2.dom.err"
    local rc=$?
    rm -rf "$profile"
    return $rc
}

# table_check NAME PAGE JSON ID SORT_COL FILTER_COL VALUE KIND: the SK table
# of PAGE sorted by SORT_COL descending and filtered to VALUE, against the
# rows and classes of the JSON report (KIND analysis or family)
table_check() {
    local name=$1 page=$2 json=$3 id=$4 sort=$5 filt=$6 value=$7 kind=$8 spec hash
    spec=$(python3 - "$json" "$id" "$sort" "$filt" "$value" "$kind" <<'PY'
import json, sys, urllib.parse
path, tid, sort, filt, value, kind = sys.argv[1:]
r = json.load(open(path, encoding="utf-8"))
if kind == "analysis":
    sks = r["sks"] if tid == "sks" else [s for s in r["sks"] if f"sks-d{s['device']}" == tid]
    want = sum(s["class"] == "significantly_slower" for s in sks)
else:
    sks = r["analysis"]["sks"]
    want = sum(s["class"] == value for s in sks)
print(json.dumps({"id": tid, "sort": int(sort), "filter": int(filt), "value": value,
                  "want": want, "rows": len(sks)}, ensure_ascii=False))
print(f"sort={tid}:{sort}:desc&filter={tid}:" + urllib.parse.quote(value))
PY
)
    hash=$(sed -n 2p <<<"$spec")
    if ! dom_page "$page#$hash" "$name"; then
        t_fail "$name:dom" "chromium failed: $(tail -5 "$S/$name.dom.err")"
        return
    fi
    t_ok "$name:table" python3 "$SK_REPO/tests/scripts/html_check.py" dom "$S/$name.dom" "$json" \
        "$(sed -n 1p <<<"$spec")"
}

check_page() { # PAGE NAME MIN_INK COLOUR...
    local page=$1 name=$2 ink=$3; shift 3
    if [ ! -f "$page" ]; then
        t_fail "$name:page" "no page $page"
        return
    fi
    if ! open_page "$page" "$name"; then
        t_fail "$name:opened" "chromium failed: $(tail -5 "$S/$name.err")"
        return
    fi
    t_pass "$name:opened"
    if grep -q ':CONSOLE' "$S/$name.err"; then
        t_fail "$name:no_console_message" "$(grep ':CONSOLE' "$S/$name.err" | head -5)"
    else
        t_pass "$name:no_console_message"
    fi
    t_ok "$name:screenshot_not_blank" python3 "$PNG" "$S/$name.png" "$ink" "$@"
}

seal() { # DIR
    "$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$1" >/dev/null 2>"$W/seal.err" ||
        { cat "$W/seal.err"; return 1; }
}

# the demo pair: the three charts (O0 blue, disable-all vermilion, the noise band:
# sky blue 56B4E9 at 30 % over white)
cp -R "$SK_REPO/fixtures/demo/." "$W/demo"
seal "$W/demo" && skdcci analyze -q "$W/demo/o0" "$W/demo/disable_all" -o "$W/demo.out" >/dev/null 2>&1
check_page "$W/demo.out/DCCI_REGRESSION_ANALYSIS.html" demo 20 0072B2 D55E00 CCE8F8
table_check demo_sks "$W/demo.out/DCCI_REGRESSION_ANALYSIS.html" "$W/demo.out/dcci-regression-analysis.json" \
    sks 13 15 显著变慢 analysis

# a multi-rank pair (tests/tools/multi_rank_pair.sh): the device x SK overview
# above the charts of each device (neutral grey 999999 at 45 % over white,
# vermilion, O0 blue)
"$SK_REPO/tests/tools/multi_rank_pair.sh" --gen "$TOOLS/skdcci_gen" \
    --artifact-contract "$SK_BUILD/bin/artifact_contract" "$W/ranks" regression no_regression \
    >/dev/null 2>&1 &&
    skdcci analyze -q "$W/ranks/o0" "$W/ranks/disable_all" -o "$W/ranks.out" >/dev/null 2>&1
check_page "$W/ranks.out/DCCI_REGRESSION_ANALYSIS.html" multi_rank 20 D1D1D1 0072B2 D55E00
table_check multi_rank_sks "$W/ranks.out/DCCI_REGRESSION_ANALYSIS.html" \
    "$W/ranks.out/dcci-regression-analysis.json" sks-d0 13 15 显著变慢 analysis

# a blocked analysis: text only, not blank
"$TOOLS/skdcci_gen" --out "$W/amb" --scenario ambiguous >/dev/null 2>&1 && seal "$W/amb" &&
    skdcci analyze -q "$W/amb/o0" "$W/amb/disable_all" -o "$W/amb.out" >/dev/null 2>&1
check_page "$W/amb.out/DCCI_REGRESSION_ANALYSIS.html" blocked 5

# an accepted family report: the decision chart (O0, disable-all, repair)
c=$SK_REPO/tests/cases/skdcci/family_repair_beats_o0_accepted
mkdir "$W/family" && (cd "$W/family" && bash -e "$c/setup" && source "$c/cmd") >/dev/null 2>&1
check_page "$W/family/out/DCCI_FAMILY_REPORT.html" family 20 0072B2 D55E00 009E73
table_check family_sks "$W/family/out/DCCI_FAMILY_REPORT.html" "$W/family/out/dcci-family-report.json" \
    sks 3 2 significantly_slower family

# a round report (docs/round-report.md) of an accepted trial: the runs of the
# incumbent (O0 blue) and of the trial (green) over the noise band (sky blue
# at 30 %), and the gate checks against their thresholds
E=$W/stage
mkdir -p "$E" && source "$SK_REPO/tests/data/ledger/small_stage.sh" && small_stage_o >/dev/null 2>&1 &&
    skdcci round report --ledger "$E/ledger.jsonl" --item O2 -o "$W/round" >/dev/null 2>&1
check_page "$W/round/O2-a1/ROUND_REPORT.html" round_report 20 0072B2 009E73 CCE8F8
