#!/usr/bin/env bash
# The HTML reports (docs/report-html.md): the analysis page of the planted
# generator scenario (well-formed, no external reference, every SK, child and
# token of the JSON, the planted slower SKs and their selected children drawn,
# byte-identical on a second run; independence of the locale is covered by
# analyze_scenarios.sh, which compares whole output directories), the demo
# pair's page (three charts, under 1 MB), a blocked page (mapping_blocked: the
# blocker, no chart), the family page of a data-driven family case, and a
# hostile input name (escaped).
source "$SK_REPO/tests/lib.sh"
SK_SCRIPT=html_report
GEN=$TOOLS/skdcci_gen
SEAL=$SK_REPO/tests/tools/seal_pair.sh
CHECK=$SK_REPO/tests/scripts/html_check.py
W=$PWD
PAGE=DCCI_REGRESSION_ANALYSIS.html

seal() { # DIR
    "$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "$1" >/dev/null 2>"$W/seal.err" ||
        { cat "$W/seal.err"; return 1; }
}

# analyze --help names the page among the outputs
t_ok help_names_the_page bash -c '"$SK_BUILD/bin/skdcci" analyze --help | grep -q "DCCI_REGRESSION_ANALYSIS.html"'

# the planted regression scenario
if "$GEN" --out "$W/reg" --scenario regression >/dev/null 2>"$W/gen.err" && seal "$W/reg"; then
    skdcci analyze -q "$W/reg/o0" "$W/reg/disable_all" -o "$W/reg.out" >/dev/null 2>&1
    t_ok regression:page test -f "$W/reg.out/$PAGE"
    t_ok regression:well_formed_and_complete python3 "$CHECK" analysis "$W/reg.out/$PAGE" \
        "$W/reg.out/dcci-regression-analysis.json"
    t_ok regression:planted_sks_and_children python3 "$CHECK" planted "$W/reg.out/$PAGE" \
        "$W/reg/ground-truth.json"
    skdcci analyze -q "$W/reg/o0" "$W/reg/disable_all" -o "$W/reg.again" >/dev/null 2>&1
    t_ok regression:deterministic cmp "$W/reg.out/$PAGE" "$W/reg.again/$PAGE"
else
    t_fail regression:generate "$(cat "$W/gen.err")"
fi

# the demo pair: three charts, well under 1 MB
cp -R "$SK_REPO/fixtures/demo/." "$W/demo"
if seal "$W/demo"; then
    skdcci analyze -q "$W/demo/o0" "$W/demo/disable_all" -o "$W/demo.out" >/dev/null 2>&1
    t_ok demo:well_formed_and_complete python3 "$CHECK" analysis "$W/demo.out/$PAGE" \
        "$W/demo.out/dcci-regression-analysis.json"
    n=$(grep -c '^<h2>图 [123]　' "$W/demo.out/$PAGE")
    size=$(stat -c %s "$W/demo.out/$PAGE")
    t_ok "demo:three_charts ($n)" test "$n" -eq 3
    if [ "$size" -lt 1048576 ]; then t_pass "demo:size ($size bytes)"; else t_fail demo:size "$size bytes"; fi
else
    t_fail demo:seal
fi

# a blocked analysis: what blocked and what to collect, no chart
if "$GEN" --out "$W/amb" --scenario ambiguous >/dev/null 2>"$W/gen.err" && seal "$W/amb"; then
    skdcci analyze -q "$W/amb/o0" "$W/amb/disable_all" -o "$W/amb.out" >/dev/null 2>&1
    t_ok blocked:status python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["status"] != "mapping_blocked")' \
        "$W/amb.out/dcci-regression-analysis.json"
    t_ok blocked:no_chart python3 "$CHECK" analysis "$W/amb.out/$PAGE" \
        "$W/amb.out/dcci-regression-analysis.json"
    t_ok blocked:names_blocker grep -q 'sk_ambiguous' "$W/amb.out/$PAGE"
else
    t_fail blocked:generate "$(cat "$W/gen.err")"
fi

# the family page: the decision chart, and no chart when blocked
family() { # CASE -> runs the data-driven case's setup and command (tests/README.md)
    local c=$SK_REPO/tests/cases/skdcci/$1
    rm -rf "$W/$1" && mkdir "$W/$1"
    [ -d "$c/in" ] && cp -R "$c/in/." "$W/$1/"
    (cd "$W/$1" && bash -e "$c/setup" && source "$c/cmd") >"$W/$1.log" 2>&1
    [ -f "$W/$1/$FPAGE" ] || echo "# $1: $(tail -3 "$W/$1.log")"
}
FPAGE=out/DCCI_FAMILY_REPORT.html
family family_repair_beats_o0_accepted
t_ok family:accepted_page python3 "$CHECK" family "$W/family_repair_beats_o0_accepted/$FPAGE" \
    "$W/family_repair_beats_o0_accepted/out/dcci-family-report.json"
t_ok family:gate_thresholds grep -q 'class="gate"' "$W/family_repair_beats_o0_accepted/$FPAGE"
family family_no_analysis_blocked
t_ok family:blocked_page_no_chart python3 "$CHECK" family "$W/family_no_analysis_blocked/$FPAGE" \
    "$W/family_no_analysis_blocked/out/dcci-family-report.json"
mv "$W/family_repair_beats_o0_accepted" "$W/first"
family family_repair_beats_o0_accepted
t_ok family:deterministic cmp "$W/first/$FPAGE" "$W/family_repair_beats_o0_accepted/$FPAGE"

# a hostile name from the inputs (the O0 root's path appears on the page):
# escaped, never markup
h=$W/hostile && mkdir "$h" &&
    (cd "$h" && bash -e "$SK_REPO/tests/cases/skdcci/family_repair_beats_o0_accepted/setup") >/dev/null 2>&1
mv "$h/O0" "$h/O0<b>&\"x'"
(cd "$h" && skdcci family report --allow-unproven --warmup 0 --expected-ranks 2 --o0 "O0<b>&\"x'" \
    --disable-all DA_REGRESSED --repair RP_BEATS --analysis analysis -o out) >/dev/null 2>&1
t_ok hostile_name:well_formed python3 "$CHECK" family "$h/$FPAGE" "$h/out/dcci-family-report.json"
t_ok hostile_name:escaped grep -qF "O0&lt;b&gt;&amp;&quot;x&#39;" "$h/$FPAGE"
t_ok hostile_name:no_raw_markup bash -c '! grep -qF "O0<b>" "$1"' _ "$h/$FPAGE"
