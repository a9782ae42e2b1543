# skdcci trial / stability against an independent Python model of the
# reference gate (docs/stage-o.md §1-§5, written from the
# spec with Python's decimal and statistics modules): random CLEAN trees
# (ranks, runs, warmups, junk and prefill lines, odd path spellings), and the
# full JSON output, stdout and exit code compared byte for byte, --robust
# included (SplitMix64 bootstrap and Mann-Whitney reproduced in Python).
source "$SK_REPO/tests/lib.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }

cat > model.py <<'PY'
import hashlib, json, math, os, random, re, statistics, sys
from decimal import Decimal
from pathlib import Path

TIMING = re.compile(r"Inference time \((decode|prefill)\): ([0-9.]+) ms")

def quantile(values, p):
    o = sorted(values)
    if len(o) == 1:
        return o[0]
    pos = (len(o) - 1) * p
    lo = int(pos)
    up = min(lo + 1, len(o) - 1)
    return o[lo] + (o[up] - o[lo]) * (pos - lo)

def stats(values):
    return {"count": len(values), "mean_ms": statistics.mean(values),
            "p50_ms": statistics.median(values), "p90_ms": quantile(values, 0.9),
            "stddev_ms": statistics.pstdev(values), "min_ms": min(values),
            "max_ms": max(values), "samples_ms": list(values)}

def run_summary(path, warmup, logs):
    ranks, pooled, prefill = {}, [], []
    for rank, name in sorted((int(re.search(r"log_(\d+)\.log$", n).group(1)), n) for n in logs):
        text = (path / name).read_text(errors="replace")
        dec, dex, pre = [], [], []
        for phase, value in TIMING.findall(text):
            d = Decimal(value)
            (dec if phase == "decode" else pre).append(float(d))
            if phase == "decode":
                dex.append(d)
        s = stats(dec[warmup:])
        s["mean_exact_ms"] = str(sum(dex[warmup:], Decimal("0")) / len(dex[warmup:]))
        ranks[str(rank)] = s
        pooled += dec[warmup:]
        prefill += pre
    worst = max(ranks, key=lambda r: ranks[r]["mean_ms"])
    return {"path": str(path), "rank_count": len(ranks), "warmup": warmup, "ranks": ranks,
            "decode": stats(pooled), "prefill": stats(prefill) if prefill else None,
            "worst_rank": int(worst), "worst_rank_mean_ms": ranks[worst]["mean_ms"],
            "worst_rank_mean_exact_ms": ranks[worst]["mean_exact_ms"]}

def set_summary(arg, warmup, layout):
    path = Path(arg)
    runs = [run_summary(path / name, warmup, layout[name]) for name in sorted(layout)]
    means = [r["worst_rank_mean_ms"] for r in runs]
    return {"path": str(path), "run_count": len(runs), "runs": runs,
            "decode": stats([x for r in runs for k in r["ranks"].values() for x in k["samples_ms"]]),
            "run_worst_rank_means_ms": means,
            "run_worst_rank_means_exact_ms": [r["worst_rank_mean_exact_ms"] for r in runs],
            "median_run_worst_rank_mean_ms": statistics.median(means),
            "worst_rank_mean_ms": statistics.mean(means)}

def stability(summary):
    vals = [Decimal(v) for v in summary["run_worst_rank_means_exact_ms"]]
    hi, lo = max(vals), min(vals)
    mean = sum(vals, Decimal("0")) / len(vals)
    pct = (hi - lo) / mean * Decimal("100") if mean != 0 else None
    checks = {"required_run_count": len(vals) == 5,
              "max_spread_pct": pct is not None and float(pct) <= 5.0}
    return {"stable": all(checks.values()), "checks": checks, "required_run_count": 5,
            "max_spread_pct": 5.0, "run_worst_rank_means_ms": summary["run_worst_rank_means_ms"],
            "spread_ms": float(hi - lo), "mean_ms": float(mean),
            "spread_pct": float(pct) if pct is not None else None,
            "spread_exact_ms": str(hi - lo), "mean_exact_ms": str(mean),
            "spread_pct_exact": str(pct) if pct is not None else None}

def stability_failed(st, prefix=""):
    out = ""
    if not st["checks"]["required_run_count"]:
        out += f"failed {prefix}required_run_count measured {len(st['run_worst_rank_means_ms'])} threshold == 5\n"
    if not st["checks"]["max_spread_pct"]:
        undefined = "" if st["spread_pct"] is not None else " (undefined: the mean is 0)"
        out += f"failed {prefix}max_spread_pct measured {st['spread_pct']!r} threshold <= 5.0{undefined}\n"
    return out

def pct(b, c):
    return None if b == 0 else (b - c) / b * 100

def logs_block(arg, layout):
    root = Path(arg)
    logs = []
    for name in sorted(layout):
        for rank, log in sorted((int(re.search(r"log_(\d+)\.log$", n).group(1)), n) for n in layout[name]):
            data = (root / name / log).read_bytes()
            logs.append({"path": name + "/" + log, "size": len(data),
                         "sha256": hashlib.sha256(data).hexdigest()})
    return {"path": str(root), "run_count": len(layout), "logs": logs}

def splitmix(state):
    state = (state + 0x9E3779B97F4A7C15) & (2**64 - 1)
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    return state, z ^ (z >> 31)

def robust(base, cand):
    state = 20260105
    def draw(n):
        nonlocal state
        threshold = (2**64 - n) % n
        while True:
            state, x = splitmix(state)
            if x >= threshold:
                return x % n
    def resample(v):
        s = 0.0
        for _ in range(len(v)):
            s += v[draw(len(v))]
        return s / len(v)
    bm, cm = base["run_worst_rank_means_ms"], cand["run_worst_rank_means_ms"]
    reps = []
    for _ in range(10000):
        b = resample(bm); c = resample(cm)
        if b != 0.0:
            reps.append((b - c) / b * 100)
    reps.sort()
    boot = {"statistic": "mean_improvement_pct", "resampling_unit": "run_worst_rank_mean",
            "method": "percentile", "prng": "splitmix64", "seed": 20260105, "replicates": 10000,
            "defined_replicates": len(reps), "confidence": 0.95,
            "low_pct": quantile(reps, (1.0 - 0.95) / 2) if reps else None,
            "high_pct": quantile(reps, 1.0 - (1.0 - 0.95) / 2) if reps else None,
            "probability_improvement_positive": sum(1 for r in reps if r > 0.0) / len(reps) if reps else None}
    xb, xc = base["decode"]["samples_ms"], cand["decode"]["samples_ms"]
    allv = sorted([(v, 0) for v in xb] + [(v, 1) for v in xc], key=lambda t: t[0])
    i, twice, ties = 0, 0, 0.0
    while i < len(allv):
        j = i
        while j < len(allv) and allv[j][0] == allv[i][0]:
            j += 1
        twice += (i + 1 + j) * sum(t[1] for t in allv[i:j])
        t = float(j - i); ties += t * t * t - t
        i = j
    nb, nc, n = float(len(xb)), float(len(xc)), float(len(allv))
    u = twice / 2 - nc * (nc + 1) / 2
    var = nb * nc / 12 * ((n + 1) - (ties / (n * (n - 1)) if len(allv) > 1 else 0.0))
    z = (u - nb * nc / 2) / math.sqrt(var) if var > 0 else None
    mw = {"samples": "pooled_post_warmup_decode",
          "approximation": "normal_tie_corrected_no_continuity_correction",
          "n_baseline": len(xb), "n_candidate": len(xc), "u_candidate": u, "tie_sum": ties,
          "z": z, "p_two_sided": math.erfc(abs(z) / math.sqrt(2.0)) if z is not None else None,
          "p_candidate_faster": math.erfc(-z / math.sqrt(2.0)) / 2 if z is not None else None}
    return {"informational_only": True, "bootstrap": boot, "mann_whitney_u": mw}

def trial(barg, blayout, name, carg, clayout, warmup, ranks, allow_p90, allow_sd, with_robust):
    b = set_summary(barg, warmup, blayout)
    c = set_summary(carg, warmup, clayout)
    bs = stability(b)
    mi = pct(b["worst_rank_mean_ms"], c["worst_rank_mean_ms"])
    mr = pct(b["median_run_worst_rank_mean_ms"], c["median_run_worst_rank_mean_ms"])
    p9 = None if b["decode"]["p90_ms"] == 0 else (c["decode"]["p90_ms"] - b["decode"]["p90_ms"]) / b["decode"]["p90_ms"] * 100
    sd = None if b["decode"]["stddev_ms"] == 0 else (c["decode"]["stddev_ms"] - b["decode"]["stddev_ms"]) / b["decode"]["stddev_ms"] * 100
    checks = {"baseline_stable": bs["stable"], "baseline_min_runs": b["run_count"] == 5,
              "candidate_min_runs": c["run_count"] >= 3,
              "mean_improvement": mi is not None and mi > 0.0,
              "median_run_direction": mr is not None and mr > 0,
              "p90_no_material_regression": p9 is not None and p9 <= allow_p90,
              "stddev_no_material_regression": sd is not None and sd <= allow_sd}
    ok = all(checks.values())
    c["improvement_pct"] = mi
    c["option_trial_evaluation"] = {
        "accepted": ok, "checks": checks, "baseline_required_runs": 5, "candidate_min_runs": 3,
        "min_improvement_pct": 0.0, "mean_improvement_rule": "strictly_positive",
        "allow_p90_regression_pct": allow_p90, "allow_stddev_regression_pct": allow_sd,
        "mean_improvement_pct": mi, "median_run_improvement_pct": mr,
        "p90_regression_pct": p9, "stddev_regression_pct": sd}
    c["stability"] = stability(c)
    if with_robust:
        c["robust"] = robust(b, c)
    rec = name if ok else "baseline"
    cl = logs_block(carg, clayout); cl["name"] = name
    doc = {"baseline": b, "baseline_stability": bs, "candidates": {name: c},
           "selection": {"stage": "winner_option_trial", "best_superkernel_candidate": name,
                         "recommended": rec, "selected_for_deep_analysis": None,
                         "baseline_retained": rec == "baseline", "promoted_candidates": [],
                         "screening_eligible_candidates": [], "ranked_eligible_candidates": [],
                         "ranked_candidates": [name],
                         "final_promotion_decision": "not_applicable_option_trial",
                         "option_trial_accepted": ok, "retained_incumbent": rec},
           "evidence": {"schema_version": "skdcci-clean-evidence-v1", "warmup": warmup,
                        "expected_ranks": ranks,
                        "thresholds": {"required_run_count": 5, "max_spread_pct": 5.0,
                                       "candidate_min_runs": 3, "min_improvement_pct": 0.0,
                                       "mean_improvement_rule": "strictly_positive",
                                       "allow_p90_regression_pct": allow_p90,
                                       "allow_stddev_regression_pct": allow_sd},
                        "baseline": logs_block(barg, blayout), "candidate": cl}}
    imp = "None" if mi is None else f"{mi:.2f}%"
    # the failed-check lines before the verdict (docs/stage-o.md §12)
    failed = ""
    if not checks["baseline_stable"]:
        failed += stability_failed(bs, "baseline_stable.")
    if not checks["baseline_min_runs"]:
        failed += f"failed baseline_min_runs measured {b['run_count']} threshold == 5\n"
    if not checks["candidate_min_runs"]:
        failed += f"failed candidate_min_runs measured {c['run_count']} threshold >= 3\n"
    for check, value, rule in (("mean_improvement", mi, "> 0.0"),
                               ("median_run_direction", mr, "> 0.0"),
                               ("p90_no_material_regression", p9, f"<= {allow_p90!r}"),
                               ("stddev_no_material_regression", sd, f"<= {allow_sd!r}")):
        if not checks[check]:
            failed += f"failed {check} measured {value!r} threshold {rule}\n"
    cst = c["stability"]
    if not ok:
        status = "rejected: the baseline stays the incumbent"
    elif c["run_count"] < 5:
        status = (f"recommended-for-top-up: not yet the incumbent; top it up to exactly 5 clean "
                  f"runs ({c['run_count']} now) and check them with 'skdcci stability'")
    elif cst["stable"]:
        status = "incumbent: accepted with a stable 5-run top-up"
    else:
        status = (f"top-up-unstable: accepted by the gate, but its {c['run_count']} runs are not a "
                  f"stable 5-run top-up (spread-pct {cst['spread_pct']}); the acceptance is "
                  f"revoked and the baseline stays the incumbent")
    out = ("candidate runs worst-rank-mean-ms p50-ms p90-ms stddev-ms improvement option-accepted "
           "baseline-stable baseline-spread-pct\n"
           f"baseline {b['run_count']} {b['worst_rank_mean_ms']:.4f} {b['decode']['p50_ms']:.4f} "
           f"{b['decode']['p90_ms']:.4f} {b['decode']['stddev_ms']:.4f} - - {bs['stable']} {bs['spread_pct']}\n"
           f"{name} {c['run_count']} {c['worst_rank_mean_ms']:.4f} {c['decode']['p50_ms']:.4f} "
           f"{c['decode']['p90_ms']:.4f} {c['decode']['stddev_ms']:.4f} {imp} {ok} - -\n"
           f"best-superkernel-candidate {name}\nrecommended {rec}\n{failed}option-trial-accepted {ok}\n"
           f"retained-incumbent {rec}\ncandidate-status {name} {status}\n"
           f"candidate-spread-pct {c['stability']['spread_pct']}\n")
    if with_robust:
        bt, mw = c["robust"]["bootstrap"], c["robust"]["mann_whitney_u"]
        out += (f"robust-bootstrap-mean-improvement-pct {bt['low_pct']} {bt['high_pct']} (95%, informational)\n"
                f"robust-mann-whitney-p-candidate-faster {mw['p_candidate_faster']} (informational)\n")
    # no run records in these trees: the model runs with --allow-unproven, which
    # every output states first; the clean evidence is unproven (docs/stage-o.md §10)
    for label, n in (("baseline", b["run_count"]), (name, c["run_count"])):
        out += f"clean-evidence {label} unproven runs {n} proven 0 rejected 0 unproven {n}\n"
    doc["allow_unproven"] = True
    return doc, ALLOW + out, (0 if ok else 10)

ALLOW = ("allow-unproven: clean-run proof was not required (--allow-unproven); runs without a "
         "run record are unproven, not proven clean\n")

def stability_doc(arg, layout, warmup, ranks):
    s = set_summary(arg, warmup, layout)
    st = stability(s)
    doc = {"baseline": s, "baseline_stability": st,
           "evidence": {"schema_version": "skdcci-clean-evidence-v1", "warmup": warmup,
                        "expected_ranks": ranks,
                        "thresholds": {"required_run_count": 5, "max_spread_pct": 5.0},
                        "baseline": logs_block(arg, layout)}}
    out = (f"path {s['path']}\nruns {s['run_count']}\nrun-worst-rank-means-ms "
           + " ".join(s["run_worst_rank_means_exact_ms"]) + "\n"
           f"spread-ms {st['spread_exact_ms']}\nmean-ms {st['mean_exact_ms']}\n"
           f"spread-pct {st['spread_pct']}\nspread-pct-exact {st['spread_pct_exact']}\n"
           f"required-run-count {st['checks']['required_run_count']}\n"
           f"max-spread-pct {st['checks']['max_spread_pct']}\n" + stability_failed(st) +
           f"stable {st['stable']}\n"
           f"clean-evidence {Path(arg).name} unproven runs {s['run_count']} proven 0 rejected 0 "
           f"unproven {s['run_count']}\n")
    doc["allow_unproven"] = True
    return doc, ALLOW + out, (0 if st["stable"] else 10)

# ---------------------------------------------------------------- scenarios
rnd = random.Random(int(sys.argv[1]))
def write_tree(root, runs, ranks, warmup, style, base=None, noise=(0, 0, 0.1, 0.2, -0.1, 0.05)):
    layout = {}
    for k in range(runs):
        name = "run-%d" % (k + 1 + (8 if style == "ten" and k == 0 else 0))
        d = Path(root) / name
        d.mkdir(parents=True)
        layout[name] = []
        rank_ids = sorted(rnd.sample(range(0, 16), ranks)) if style == "sparse" else list(range(ranks))
        base = base if base is not None else rnd.choice([10.0, 10.2, 57.0, 0.5])
        for r in rank_ids:
            log = ("log_%d.log" % r) if rnd.random() < 0.9 else ("log_x_log_%d.log" % r)
            layout[name].append(log)
            lines = ["INFO [rank %d] start" % r]
            if rnd.random() < 0.5:
                lines.append("INFO Inference time (prefill): %d.%d ms" % (rnd.randint(100, 900), rnd.randint(0, 99)))
            n = warmup + rnd.randint(1, 12)
            for i in range(n):
                v = base + rnd.choice(noise) + (0.3 if r == rank_ids[-1] and style == "skew" else 0)
                lit = rnd.choice(["%.1f", "%.2f", "%.3f", "%.4f"]) % v
                extra = " Inference time (decode): -1 ms" if rnd.random() < 0.1 else ""
                lines.append("step=%d Inference time (decode): %s ms%s" % (i, lit, extra))
            (d / log).write_text("\n".join(lines) + "\n")
        (d / "notes.txt").write_text("ignored\n")
    return layout

cases = []
for i in range(int(sys.argv[2])):
    ranks = rnd.choice([1, 2, 3, 8])
    warmup = rnd.choice([0, 1, 2, 8])
    style = rnd.choice(["plain", "sparse", "skew", "ten"])
    bruns = rnd.choice([5, 5, 5, 4, 6])
    cruns = rnd.choice([1, 3, 3, 4, 5])
    broot = "c%d/base" % i
    croot = "c%d/trial" % i
    if i % 3 == 0:  # a faster, steadier trial against a stable five-run incumbent
        bruns, cruns = 5, rnd.choice([3, 4, 5])
        bl = write_tree(broot, bruns, ranks, warmup, style, 10.0, (0, 0.1, 0.2))
        cl = write_tree(croot, cruns, ranks, warmup, style, 9.9, (0, 0.05))
    else:
        bl = write_tree(broot, bruns, ranks, warmup, style)
        cl = write_tree(croot, cruns, ranks, warmup, style)
    barg = rnd.choice([broot, "./" + broot, broot + "/", broot.replace("/", "//")])
    allow_p90 = rnd.choice([0.0, 0.0, 1.5, 2.0])
    allow_sd = rnd.choice([0.0, 0.0, 5.0, 50.0])
    with_robust = rnd.random() < 0.3
    doc, out, rc = trial(barg, bl, "O%d" % i, croot, cl, warmup, ranks, allow_p90, allow_sd, with_robust)
    args = ["trial", "--allow-unproven", "--baseline", barg, "--candidate", "O%d=%s" % (i, croot), "--warmup", str(warmup),
            "--expected-ranks", str(ranks), "--allow-p90-regression-pct", repr(allow_p90),
            "--allow-stddev-regression-pct", repr(allow_sd), "--json-out", "c%d/out/trial.json" % i]
    if with_robust:
        args.append("--robust")
    Path("c%d/expect.json" % i).write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    Path("c%d/expect.out" % i).write_text(out)
    Path("c%d/expect.rc" % i).write_text("%d\n" % rc)
    Path("c%d/args" % i).write_text("\n".join(args) + "\n")
    sdoc, sout, src = stability_doc(barg, bl, warmup, ranks)
    Path("c%d/stab.json" % i).write_text(json.dumps(sdoc, indent=2, sort_keys=True) + "\n")
    Path("c%d/stab.out" % i).write_text(sout)
    Path("c%d/stab.rc" % i).write_text("%d\n" % src)
    Path("c%d/stab.args" % i).write_text("\n".join(["stability", "--allow-unproven", barg, "--warmup", str(warmup),
        "--expected-ranks", str(ranks), "--json-out", "c%d/out/stab.json" % i]) + "\n")
PY

python3 model.py 20260105 40 || { t_fail model_generates "python model failed"; exit 0; }
bad=0 accepted=0 rejected=0
for c in c*/; do
    c=${c%/}
    for kind in trial stab; do
        if [ $kind = trial ]; then argf=$c/args; ej=$c/expect.json; eo=$c/expect.out; er=$c/expect.rc; oj=$c/out/trial.json
        else argf=$c/stab.args; ej=$c/stab.json; eo=$c/stab.out; er=$c/stab.rc; oj=$c/out/stab.json; fi
        mapfile -t args < "$argf"
        skdcci "${args[@]}" > got.out 2> got.err; rc=$?
        want=$(cat "$er")
        [ $kind = trial ] && { [ "$rc" -eq 0 ] && accepted=$((accepted + 1)); [ "$rc" -eq 10 ] && rejected=$((rejected + 1)); }
        if [ "$rc" -ne "$want" ] || ! cmp -s got.out "$eo" || ! cmp -s "$oj" "$ej"; then
            bad=$((bad + 1))
            if [ $bad -le 3 ]; then
                echo "# $c $kind: rc $rc want $want; $(head -c 300 got.err)"
                diff "$eo" got.out | head -5 | sed 's/^/# /'
                diff "$ej" "$oj" | head -10 | sed 's/^/# /'
            fi
        fi
    done
done
if [ "$bad" -eq 0 ]; then t_pass trial_and_stability_match_python_model_40_trees
else t_fail trial_and_stability_match_python_model_40_trees "$bad mismatches"; fi
# the scenarios must exercise both verdicts
if [ "$accepted" -gt 0 ] && [ "$rejected" -gt 0 ]; then t_pass scenarios_cover_accept_and_reject
else t_fail scenarios_cover_accept_and_reject "accepted=$accepted rejected=$rejected"; fi
