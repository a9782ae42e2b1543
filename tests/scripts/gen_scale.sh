# --scale multiplies the measured launches: record counts grow exactly
# linearly, byte sizes linearly within 1 %, and memory stays bounded.
source "$SK_REPO/tests/lib.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }
GEN="$TOOLS/skdcci_gen"
for s in 1 2 3; do
    "$GEN" --out "s$s" --scenario regression --seed 3 --scale "$s" || t_fail "generate_scale_$s" "exit $?"
done
python3 - <<'PY'
import json, os
script = os.environ.get("SK_SCRIPT", "gen_scale")
def ok(name, cond, detail=""):
    print(("ok - %s:%s" if cond else "not ok - %s:%s") % (script, name))
    if not cond:
        print("# " + str(detail))
g = [json.load(open("s%d/ground-truth.json" % s)) for s in (1, 2, 3)]
for side in ("o0", "disable_all"):
    rec = [x["sides"][side]["sk_prof_events"] for x in g]
    rows = [x["sides"][side]["kernel_details_rows"] for x in g]
    ok("records_linear_" + side, rec[2] - rec[1] == rec[1] - rec[0] > 0, rec)
    ok("csv_rows_linear_" + side, rows[2] - rows[1] == rows[1] - rows[0] > 0, rows)
    for key in ("sk_prof_bytes", "kernel_details_bytes"):
        b = [x["sides"][side][key] for x in g]
        d1, d2 = b[1] - b[0], b[2] - b[1]
        ok("%s_linear_%s" % (key, side), d1 > 0 and abs(d2 - d1) <= d1 / 100, b)
    # the file sizes on disk are the ones the ground truth reports
    for s, x in zip((1, 2, 3), g):
        f = os.path.join("s%d" % s, side, x["sides"][side]["files"]["sk_prof"])
        ok("size_reported_%s_scale%d" % (side, s), os.path.getsize(f) == x["sides"][side]["sk_prof_bytes"])
ok("steps_scale", [x["run"]["steps"] for x in g] == [6, 12, 18])
ok("warmup_fixed", [x["run"]["warmup_launches"] for x in g] == [2, 2, 2])
PY

# A larger run stays within a small, fixed memory budget (streamed output).
if command -v /usr/bin/time >/dev/null; then
    /usr/bin/time -f '%M' -o rss.txt "$GEN" --out big --scenario regression --seed 3 --scale 60 || t_fail generate_big "exit $?"
    rss=$(tail -1 rss.txt)
    if [ "$rss" -lt 65536 ]; then t_pass bounded_memory_scale_60
    else t_fail bounded_memory_scale_60 "peak RSS ${rss} KB"; fi
fi
# Too many launches for the largest per-core buffer is refused with a reason.
t_expect capacity_limit 1 "ASCEND_PROF_SK_ON=5120" "$GEN" --out huge --scenario regression --scale 100000
if [ -e huge ] && [ -n "$(ls -A huge)" ]; then t_fail capacity_limit_leaves_nothing; else t_pass capacity_limit_leaves_nothing; fi
