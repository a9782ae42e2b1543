# Every scenario of skdcci_gen: the pair passes the independent format
# checker (tests/tools/gen_check.py) and plants what its ground truth says.
source "$SK_REPO/tests/lib.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }
GEN="$TOOLS/skdcci_gen"
SCENARIOS="regression no_regression no_regressed_child buffer_full incomplete_lanes ambiguous options_mismatch reordered fixture_shape header_only_kd dropped_row impure_o0"
for s in $SCENARIOS; do
    if "$GEN" --out "$s" --scenario "$s" --seed 11 2>err.txt; then t_pass "generate_$s"
    else t_fail "generate_$s" "$(cat err.txt)"; fi
done
python3 "$SK_REPO/tests/tools/gen_check.py" $SCENARIOS >check.txt 2>&1
for s in $SCENARIOS; do
    if grep -qx "ok $s" check.txt; then t_pass "format_check_$s"
    else t_fail "format_check_$s" "$(grep "$s" check.txt | head -8)"; fi
done

python3 - $SCENARIOS <<'PY'
import collections, json, os, re, sys
script = os.environ.get("SK_SCRIPT", "gen_scenarios")
def ok(name, cond, detail=""):
    print(("ok - %s:%s" if cond else "not ok - %s:%s") % (script, name))
    if not cond and detail:
        print("# " + str(detail)[:1500])
gt = {s: json.load(open(os.path.join(s, "ground-truth.json"))) for s in sys.argv[1:]}
status = {"regression": "repair_candidate", "reordered": "repair_candidate",
          "no_regression": "no_significant_regression", "no_regressed_child": "no_regressed_child",
          "buffer_full": "child_attribution_blocked", "incomplete_lanes": "child_attribution_blocked",
          "fixture_shape": "child_attribution_blocked", "ambiguous": "mapping_blocked",
          "options_mismatch": "collection_blocked", "impure_o0": "collection_blocked",
          "header_only_kd": "evidence_blocked", "dropped_row": "evidence_blocked"}
for s, want in status.items():
    ok("expected_status_" + s, gt[s]["expected"]["status"] == want, gt[s]["expected"]["status"])

g = gt["regression"]
ok("regression_token_order", g["expected"]["tokens"] == ["RmsNorm", "FusedInferAttentionScore", "SwiGlu"],
   g["expected"]["tokens"])
ok("regression_regexes", g["expected"]["regexes"] == ["static_kernel_RmsNorm_.*",
   "static_kernel_FusedInferAttentionScore_.*", "static_kernel_SwiGlu_.*"], g["expected"]["regexes"])
sks = g["sks"]
slower = [x for x in sks if x["planted_class"] == "significantly_slower"]
ok("regression_two_slower_sks", [(x["scope"], x["layer"]) for x in slower] == [("attention", 1), ("mlp", 2)])
ok("regression_order_by_regression", slower[0]["planted_regression_pct"] > slower[1]["planted_regression_pct"] > 3)
ok("regression_one_faster_sk", [(x["scope"], x["planted_class"]) for x in sks if x["planted_class"] != "neutral"
                                and x not in slower] == [("lm_head", "significantly_faster")])
ok("regression_several_neutral", sum(x["planted_class"] == "neutral" for x in sks) == 4)
ok("regression_realized_matches_planted", all(x["realized_sk_wall"]["class"] == x["planted_class"] for x in sks))
# Repeated structure: every attention SK has the same ops; only layer 1 regresses.
att = [x for x in sks if x["scope"] == "attention"]
ok("regression_repeated_structure", len({json.dumps(x["structure"]) for x in att}) == 1 and
   [x["occurrence"] for x in att] == [0, 1, 2] and [x["planted_class"] for x in att] ==
   ["neutral", "significantly_slower", "neutral"])
# Raw scope ids differ between the sides for the same SK.
ok("regression_raw_ids_differ", all(x["scope_ids"]["o0"] != x["scope_ids"]["disable_all"] for x in sks if x["layer"] != 1))
dec = g["decoys"]
ok("regression_decoy", len(dec) == 1 and dec[0]["token"] == "QuantBatchMatmulV3" and dec[0]["layer"] == 1, dec)
ch = {c["token"]: c for c in slower[0]["children"]}
d = ch["QuantBatchMatmulV3"]["realized"]
ok("regression_decoy_sum_grows_wall_not", d["duration_sum"]["class"] == "significantly_slower" and
   d["wall_span"]["class"] == "neutral" and d["max_lane"]["class"] == "neutral", d)
for tok in ("RmsNorm", "FusedInferAttentionScore"):
    r = ch[tok]["realized"]
    ok("regression_child_slower_" + tok, r["wall_span"]["class"] == "significantly_slower" and
       r["max_lane"]["class"] == "significantly_slower" and r["wall_span"]["delta_p50_ns"] >= 1000)
coll = {t["token"]: t["collateral"] for t in g["tokens"]}
ok("regression_collateral_both_sides", all(len(coll[t]["o0"]) > 0 and len(coll[t]["disable_all"]) > 0 for t in coll) and
   sorted(c["scope"] for c in coll["RmsNorm"]["o0"]) == ["attention", "attention", "lm_head"], coll["RmsNorm"])

# no_regression: nothing planted, nothing realized.
ok("no_regression_all_neutral", all(x["planted_class"] == "neutral" and x["realized_sk_wall"]["class"] == "neutral"
                                   for x in gt["no_regression"]["sks"]) and gt["no_regression"]["planted_tokens"] == [])
# no_regressed_child: one slower SK, time in the gaps, no child selected.
n = gt["no_regressed_child"]
sl = [x for x in n["sks"] if x["planted_class"] == "significantly_slower"]
ok("no_regressed_child_gap_only", len(sl) == 1 and sl[0]["planted_extra_gap_ns"] > 0 and
   not any(c["expected_selected"] for c in sl[0]["children"]) and
   all(c["realized"]["wall_span"]["class"] != "significantly_slower" and
       c["realized"]["max_lane"]["class"] != "significantly_slower" for c in sl[0]["children"]))
# buffer_full: exactly one core per side reaches the capacity, and the log says so.
b = gt["buffer_full"]
cap = b["run"]["core_capacity_records"]
for side in ("o0", "disable_all"):
    sp = b["sides"][side]
    rec = sp["records_per_core"]
    ok("buffer_full_one_core_at_capacity_" + side, sp["cores_at_capacity"] == [rec.index(max(rec))] and
       max(rec) == cap == 1638 and sorted(rec)[-2] < cap and sum(sp["lost_records_per_core"]) > 0, sp["cores_at_capacity"])
    log = open(os.path.join("buffer_full", side, sp["files"]["super_kernel"])).read()
    core = sp["cores_at_capacity"][0]
    warn = "[sk time profiling]  device 0 core %d buffer is full, stop dump the time of nodes on device 0 core %d" % (core, core)
    ok("buffer_full_warning_" + side, log.count(warn) == sp["buffer_full_warnings"] > 0)
ok("buffer_full_prof_sk_on", b["run"]["ascend_prof_sk_on_kb"] == 64)
# incomplete_lanes: the record named in the ground truth is missing from that launch only.
il = gt["incomplete_lanes"]
mr = il["integrity"]["missing_record"]
sk = il["sks"][mr["sk_index"]]
sid = sk["scope_ids"]["disable_all"]
task = sk["children"][mr["position"]]["task_index"]
text = open(os.path.join("incomplete_lanes", "disable_all", il["sides"]["disable_all"]["files"]["sk_prof"])).read()
pat = re.compile(r'"name":"\[(\d+)/(\d+)\][^ "][^"]*","pid":"(AIC|AIV)".*"skId":%d,"nodeId":%d\}' % (sid, task))
cnt = collections.Counter((m.group(3), int(m.group(1))) for m in pat.finditer(text))
launches = il["run"]["warmup_launches"] + il["run"]["measured_launches_per_sk"]
ok("incomplete_lanes_one_block_missing", cnt[(mr["lane"], mr["block_idx"])] == launches - 1 and
   cnt[(mr["lane"], 0)] == launches, cnt)
# reordered: one kernel's sk_prof nodeId (task index) differs from its fused index;
# without CUSTOMIZE_QUEUE the two are equal.
r = gt["reordered"]
idx = lambda gg: [(c["token"], c["fused_index"], c["task_index"]) for c in gg["sks"][2]["children"]]
ok("reordered_task_index_differs", ("ReshapeAndCache", 4, 3) in idx(r) and
   all(f == t for _, f, t in idx(g)) and r["run"]["auto_op_parallel"] == 1, idx(r))
ok("reordered_same_tokens_as_regression", r["expected"]["tokens"] == g["expected"]["tokens"])
# ambiguous: one more SK with the same key on disable-all.
a = gt["ambiguous"]
ok("ambiguous_extra_sk", a["sides"]["disable_all"]["sk_count"] == a["sides"]["o0"]["sk_count"] + 1 and
   all(x["expected_matching"] == "ambiguous" for x in a["sks"]) and len({x["scope"] for x in a["sks"]}) == 1)
# options_mismatch: recorded difference beyond dcci.
o = gt["options_mismatch"]
ok("options_mismatch_recorded", o["integrity"]["options_difference"] == {"option": "split_mode", "o0": 4, "disable_all": 2})
# fixture_shape: the reference fixture's top-level object.
f = gt["fixture_shape"]
doc = json.load(open(os.path.join("fixture_shape", "o0", f["sides"]["o0"]["files"]["sk_prof"])))
ok("fixture_shape_trace_events", set(doc) == {"traceEvents"} and f["sides"]["o0"]["sk_prof_shape"] == "reference_fixture")
# header_only_kd: the disable-all kernel_details is its header line; every SK
# of both sides is expected unclassified.
import csv
def kd(s, side):
    return list(csv.reader(open(os.path.join(s, side, gt[s]["sides"][side]["files"]["kernel_details"]), newline="")))
h = gt["header_only_kd"]
both = [x["names"]["o0"] for x in h["sks"] if x["names"]["o0"] and x["names"]["disable_all"]]
ok("header_only_kd_header_only", len(kd("header_only_kd", "disable_all")) == 1 and
   kd("header_only_kd", "disable_all")[0] == kd("header_only_kd", "o0")[0])
ok("header_only_kd_unclassified", h["expected"]["unclassified"] == both, h["expected"]["unclassified"])
# dropped_row: exactly one disable-all row has an empty Duration, the first
# measured row of the regressed attention SK, and that SK is expected unclassified.
d = gt["dropped_row"]
rows = kd("dropped_row", "disable_all")
dur = rows[0].index("Duration(us)")
blank = [r for r in rows[1:] if r[dur] == ""]
att = [x for x in d["sks"] if x["scope"] == "attention" and x["layer"] == 1][0]
first = [r for r in rows[1:] if r[rows[0].index("Name")] == att["names"]["disable_all"]][0]
ok("dropped_row_one_blank", len(blank) == 1 and blank[0] is first, len(blank))
ok("dropped_row_o0_intact", all(r[dur] for r in kd("dropped_row", "o0")[1:]))
ok("dropped_row_unclassified", d["expected"]["unclassified"] == [att["names"]["o0"]], d["expected"]["unclassified"])
# impure_o0: both graphs run with the before-list, neither config sets it.
i = gt["impure_o0"]
ok("impure_o0_recorded", i["integrity"]["o0_dcci_option"] == "dcci_before_kernel_start")
for side in ("o0", "disable_all"):
    cfg = json.load(open(os.path.join("impure_o0", "inputs", side, "config.json")))
    for key in ("sk_graph_origin", "sk_graph_updated"):
        g = json.load(open(os.path.join("impure_o0", side, i["sides"][side]["files"][key])))
        ok("impure_o0_%s_%s" % (key, side), g["options"]["dcci_before_kernel_start"]["value"] == [".*"])
    ok("impure_o0_config_" + side, "dcci_before_kernel_start" not in json.dumps(cfg))
for s in gt:
    if s not in ("header_only_kd", "dropped_row"):
        ok("no_unclassified_" + s, gt[s]["expected"]["unclassified"] == [])
PY

# Multi-rank pairs (--ranks): the three multi_rank scenarios on 4 ranks and
# multi_rank on 2, small sizes; every one passes the checker, which also
# re-derives the per-device and combined expectations from the per-rank data.
MULTI="mr4:multi_rank:4:--steps:3 mrds4:multi_rank_device_set:4:--steps:3 mrbf4:multi_rank_buffer_full:4 mr2:multi_rank:2:--steps:3:--zstd:--zstd-graphs"
MDIRS=""
for spec in $MULTI; do
    IFS=: read -r dir scen ranks extra <<<"$spec"
    if "$GEN" --out "$dir" --scenario "$scen" --ranks "$ranks" --seed 11 ${extra//:/ } 2>err.txt; then t_pass "generate_$dir"
    else t_fail "generate_$dir" "$(cat err.txt)"; fi
    MDIRS="$MDIRS $dir"
done
python3 "$SK_REPO/tests/tools/gen_check.py" $MDIRS >check.txt 2>&1
for dir in $MDIRS; do
    if grep -qx "ok $dir" check.txt; then t_pass "format_check_$dir"
    else t_fail "format_check_$dir" "$(grep "$dir" check.txt | head -8)"; fi
done
python3 - <<'PY'
import json, os
script = os.environ.get("SK_SCRIPT", "gen_scenarios")
def ok(name, cond, detail=""):
    print(("ok - %s:%s" if cond else "not ok - %s:%s") % (script, name))
    if not cond and detail:
        print("# " + str(detail)[:1500])
gt = {d: json.load(open(os.path.join(d, "ground-truth.json"))) for d in ("mr4", "mrds4", "mrbf4", "mr2")}
g = gt["mr4"]
e = g["expected"]
dev = {d["device"]: d for d in e["devices"]}
ok("multi_rank_status", e["status"] == "repair_candidate" and
   [dev[k]["status"] for k in range(4)] == ["repair_candidate", "no_significant_regression", "repair_candidate",
                                           "no_significant_regression"], [(k, d["status"]) for k, d in dev.items()])
ok("multi_rank_union", e["tokens"] == ["RmsNorm", "FusedInferAttentionScore", "MatMulV3", "SwiGlu"] and
   e["regexes"][2] == "static_kernel_MatMulV3_.*", e["tokens"])
ok("multi_rank_union_larger_than_every_device",
   all(set(d["tokens"]) < set(e["tokens"]) for d in e["devices"]), [d["tokens"] for d in e["devices"]])
ok("multi_rank_device_only_regression", dev[2]["tokens"] == ["MatMulV3"] and
   not set(dev[2]["tokens"]) & set(dev[0]["tokens"]) and
   [(s["scope"], s["layer"]) for s in dev[2]["slower_sks"]] == [("mlp", 0)], dev[2]["tokens"])
ok("multi_rank_union_walks_devices_by_regression",
   [(c["device"], c["token"]) for c in g["selected_children"]] ==
   [(0, "RmsNorm"), (0, "FusedInferAttentionScore"), (2, "MatMulV3"), (0, "SwiGlu")], g["selected_children"])
ok("multi_rank_layout", g["run"]["ranks"] == 4 and g["run"]["devices"] == {"o0": [0, 1, 2, 3], "disable_all": [0, 1, 2, 3]}
   and len({r["pid"] for s in ("o0", "disable_all") for r in g["sides"][s]["ranks"]}) == 8 and e["issues"] == [])
ok("multi_rank_two_ranks", gt["mr2"]["expected"]["tokens"] == e["tokens"] and
   gt["mr2"]["expected"]["devices"][1]["tokens"] == ["MatMulV3"])
d = gt["mrds4"]
ok("device_set_status", d["expected"]["status"] == "collection_blocked" and d["expected"]["tokens"] == [] and
   d["expected"]["issues"] == [{"code": "device_set_mismatch", "device": 3, "gate": "collection", "side": "o0"}],
   d["expected"])
ok("device_set_sides", d["run"]["devices"] == {"o0": [0, 1, 2, 3], "disable_all": [0, 1, 2]} and
   [x["device"] for x in d["expected"]["devices"]] == [0, 1, 2] and
   d["integrity"]["device_set_mismatch"] == {"o0_only": [3], "disable_all_only": []} and
   not [p for p in os.listdir("mrds4/disable_all/profiler") if p.startswith("gen_rank3")])
b = gt["mrbf4"]
ok("buffer_full_status", b["expected"]["status"] == "child_attribution_blocked" and
   [(i["code"], i["side"], i["device"]) for i in b["expected"]["issues"]] ==
   [("buffer_full", "disable_all", 1), ("core_capacity_reached", "disable_all", 1)], b["expected"]["issues"])
ok("buffer_full_device_statuses", [(x["device"], x["status"]) for x in b["expected"]["devices"]] ==
   [(0, "repair_candidate"), (1, "child_attribution_blocked"), (2, "repair_candidate"), (3, "no_significant_regression")],
   b["expected"]["devices"])
full = [(s, r["device"], r["cores_at_capacity"], r["buffer_full_warnings"] > 0)
        for s in ("o0", "disable_all") for r in b["sides"][s]["ranks"] if r["cores_at_capacity"] or r["buffer_full_warnings"]]
ok("buffer_full_one_rank_one_side", full == [("disable_all", 1, [25], True)] and
   b["sides"]["disable_all"]["ranks"][1]["records_per_core"][25] == b["run"]["core_capacity_records"] == 1638, full)
r1 = b["sides"]["disable_all"]["ranks"][1]
log = open(os.path.join("mrbf4", "disable_all", r1["files"]["super_kernel"])).read()
warn = "[sk time profiling]  device 1 core 25 buffer is full, stop dump the time of nodes on device 1 core 25"
ok("buffer_full_warning_names_device_1", log.count(warn) == r1["buffer_full_warnings"] > 0)
PY
# The checker rejects a multi-rank pair whose raw trace differs from its
# profiler copy, or whose rank names another device.
cp -R mr4 broken_mr
p=$(ls broken_mr/o0/sk_meta/*/sk_prof_device_2.json)
sed -i '2d' "$p"
python3 "$SK_REPO/tests/tools/gen_check.py" broken_mr >broken.txt 2>&1
if grep -q "rank 2 raw trace differs from its profiler copy" broken.txt; then t_pass checker_rejects_raw_copy_mismatch
else t_fail checker_rejects_raw_copy_mismatch "$(head -5 broken.txt)"; fi
rm -rf broken_mr && cp -R mr4 broken_mr
sed -i 's/"deviceId": 1,/"deviceId": 2,/' broken_mr/disable_all/sk_meta/*/model_48_1/sk_graph_updated.json
python3 "$SK_REPO/tests/tools/gen_check.py" broken_mr >broken.txt 2>&1
if grep -q "updated deviceId 2, want 1" broken.txt; then t_pass checker_rejects_wrong_device
else t_fail checker_rejects_wrong_device "$(head -5 broken.txt)"; fi
rm -rf broken_mr

# The checker is not vacuous: it rejects a pair whose data no longer matches.
cp -R regression broken
p=$(find broken/o0 -name sk_prof_device_0.json)
sed -i '2d' "$p"
python3 "$SK_REPO/tests/tools/gen_check.py" broken >broken.txt 2>&1
if grep -q "records per core" broken.txt && ! grep -qx "ok broken" broken.txt; then t_pass checker_rejects_missing_record
else t_fail checker_rejects_missing_record "$(head -5 broken.txt)"; fi
rm -rf broken && cp -R regression broken
p=$(find broken/o0 -name sk_prof_device_0.json)
python3 - "$p" <<'PY'
import sys
p = sys.argv[1]
lines = open(p).read().split("\n")
head, body, tail = lines[0], lines[1:-1], lines[-1]
body.sort(key=lambda l: float(l.split('"ts":')[1].split(",")[0]))
open(p, "w").write("\n".join([head] + body + [tail]))
PY
python3 "$SK_REPO/tests/tools/gen_check.py" broken >broken.txt 2>&1
if ! grep -qx "ok broken" broken.txt; then t_pass checker_rejects_reordered_records
else t_fail checker_rejects_reordered_records; fi
