#!/usr/bin/env python3
"""A Stage O on generated data, written as a ledger (docs/ledger.md) by an
implementation of the record format independent of the C writer, for the
tests of the commands that read ledgers (round report, hand-off, phase plan).

  mkstageo.py SKDCCI MKCLEAN DIR [--no-freeze]

DIR gets configs/, clean/ (CLEAN roots written by so_mkclean), gates/ (real
`skdcci trial` and `skdcci stability` documents), scenes/, evidence/ and
ledger.jsonl with: init (O0 five stable runs); O1 (the DCCI family) skipped
with a Chinese reason; O2 (auto_op_parallel 1) accepted on three runs, then
topped up to five and stable (the incumbent becomes O2); O3 (aggressive) a
failed attempt with its failure scene; O4 (early_start) rejected against O2;
then the Sbest-BASE freeze (unless --no-freeze).
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

PTR = "/model_config/custom_params/super_kernel_optimize_options/"
WARMUP, RANKS = 0, 2


def canon(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def sha_text(t):
    return hashlib.sha256(t.encode("utf-8")).hexdigest()


def sha_file(p):
    return hashlib.sha256(open(p, "rb").read()).hexdigest()


def esc(tok):
    return tok.replace("~", "~0").replace("/", "~1")


def option_maps(tree):
    maps = []

    def walk(v, ptr):
        if isinstance(v, dict):
            for k, x in v.items():
                p = ptr + "/" + esc(k)
                if k in ("super_kernel_optimize_options", "super_kernel_debug_options"):
                    maps.append({"pointer": p, "name": k, "options": x})
                else:
                    walk(x, p)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, ptr + "/" + str(i))
    walk(tree, "")
    maps.sort(key=lambda m: m["pointer"].encode("utf-8"))
    return {"schema_version": "skdcci-option-maps-v1", "maps": maps}


class Stage:
    def __init__(self, skdcci, mkclean, root):
        self.skdcci, self.mkclean, self.root = skdcci, mkclean, root
        self.lines = []

    def path(self, rel):
        return os.path.join(self.root, rel)

    def write_json(self, rel, v):
        os.makedirs(os.path.dirname(self.path(rel)), exist_ok=True)
        with open(self.path(rel), "w") as f:
            f.write(json.dumps(v, indent=2) + "\n")

    def config(self, rel, options):
        tree = {"model_config": {"custom_params": {
            "super_kernel_optimize_options": options, "super_kernel_debug_options": {}}},
            "scope": {"layers": [0, 1]}}
        self.write_json(rel, tree)
        return {"path": rel, "sha256": sha_file(self.path(rel)),
                "fingerprint": sha_text(canon(tree)),
                "option_maps_digest": sha_text(canon(option_maps(tree)))}, tree

    def file_ref(self, rel):
        return {"path": rel, "sha256": sha_file(self.path(rel))}

    def clean(self, rel, means, first=1):
        """One run per worst-rank mean v: rank 0 steps v-0.1 and v+0.1 (mean
        v, the worst rank), rank 1 steps v-0.15 and v+0.05."""
        os.makedirs(os.path.dirname(self.path(rel)), exist_ok=True)
        runs = ["%.2f,%.2f;%.2f,%.2f" % (float(v) - 0.1, float(v) + 0.1, float(v) - 0.15,
                                         float(v) + 0.05) for v in means]
        subprocess.run([self.mkclean, "--first-run", str(first), self.path(rel), str(RANKS)] + runs,
                       check=True)

    def runs(self, rel):
        out = []
        root = self.path(rel)
        for name in sorted(os.listdir(root)):
            logs = [{"name": f, "size": os.path.getsize(os.path.join(root, name, f)),
                     "sha256": sha_file(os.path.join(root, name, f))}
                    for f in sorted(os.listdir(os.path.join(root, name))) if f.startswith("log_")]
            h = sha_text(rel + "/" + name)
            out.append({"name": name, "record_sha256": h, "command_fingerprint": h,
                        "correctness_sha256": h, "config": {"name": "config.json", "sha256": h},
                        "logs": logs,
                        "process": {"boot_id": "boot", "pid": int(h[:6], 16),
                                    "start_time_ticks": 1}})
        return {"clean_root": rel, "runs": out}

    def skd(self, *args):
        return subprocess.run([self.skdcci] + list(args), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode

    def append(self, kind, body):
        prev = sha_text(self.lines[-1]) if self.lines else "0" * 64
        rec = {"body": body, "body_sha256": sha_text(canon(body)), "kind": kind, "prev": prev,
               "schema_version": "skdcci-stage-o-ledger-v1", "seq": len(self.lines) + 1,
               "time": "2026-01-05T10:%02d:00.000000000Z" % len(self.lines)}
        self.lines.append(canon(rec) + "\n")
        with open(self.path("ledger.jsonl"), "w") as f:
            f.write("".join(self.lines))


def stability(doc):
    st, base = doc["baseline_stability"], doc["baseline"]
    return {"stable": st["stable"], "run_count": base["run_count"],
            "run_worst_rank_means_exact_ms": base["run_worst_rank_means_exact_ms"],
            "mean_exact_ms": st["mean_exact_ms"], "spread_pct_exact": st["spread_pct_exact"],
            "spread_pct": st["spread_pct"]}


def setsum(s):
    return {"run_count": s["run_count"], "worst_rank_mean_ms": s["worst_rank_mean_ms"],
            "median_run_worst_rank_mean_ms": s["median_run_worst_rank_mean_ms"],
            "p50_ms": s["decode"]["p50_ms"], "p90_ms": s["decode"]["p90_ms"],
            "stddev_ms": s["decode"]["stddev_ms"],
            "run_worst_rank_means_exact_ms": s["run_worst_rank_means_exact_ms"]}


def gate(doc, name):
    c = doc["candidates"][name]
    ev = c["option_trial_evaluation"]
    return {"accepted": ev["accepted"], "checks": ev["checks"],
            "mean_improvement_pct": ev["mean_improvement_pct"],
            "median_run_improvement_pct": ev["median_run_improvement_pct"],
            "p90_regression_pct": ev["p90_regression_pct"],
            "stddev_regression_pct": ev["stddev_regression_pct"],
            "baseline": setsum(doc["baseline"]), "candidate": setsum(c),
            "baseline_stability": stability(doc)}


PROVEN = {"state": "proven", "functional_failure": False, "reasons": []}


def main(argv):
    skdcci, mkclean, root = argv[1:4]
    freeze = "--no-freeze" not in argv
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    s = Stage(skdcci, mkclean, root)
    items = [
        {"id": "O1", "category": "dcci", "risk": "medium", "option": "dcci_disable_on_kernel",
         "value": [".*"], "pointer": PTR + "dcci_disable_on_kernel", "original_value": {"present": False}},
        {"id": "O2", "category": "auto_op_parallel", "risk": "low", "option": "auto_op_parallel",
         "value": 1, "pointer": PTR + "auto_op_parallel", "original_value": {"present": False}},
        {"id": "O3", "category": "aggressive", "risk": "high", "option": "aggressive_opt_strategies",
         "value": {"task_breaker_bypass": 1}, "pointer": PTR + "aggressive_opt_strategies",
         "original_value": {"present": False}},
        {"id": "O4", "category": "other_experimental", "risk": "low", "option": "early_start",
         "value": 1, "pointer": PTR + "early_start", "original_value": {"present": False}},
    ]
    plan = {"schema_version": "superkernel-winner-option-matrix-v1", "seed_id": "Sbest-SEED",
            "o0_id": "O0", "items": items}
    seed_cfg, _ = s.config("configs/seed.json", {})
    s.write_json("matrix.json", {"note": "the frozen matrix file of this Stage O"})
    s.clean("clean/O0", ["10.30", "10.30", "10.20", "10.30", "10.30"])
    s.skd("stability", s.path("clean/O0"), "--warmup", "0", "--expected-ranks", "2",
          "--json-out", s.path("gates/O0-stability.json"))
    o0doc = json.load(open(s.path("gates/O0-stability.json")))
    o0runs = s.runs("clean/O0")
    s.append("init", {
        "seed": {"id": "Sbest-SEED", "config": seed_cfg,
                 "fingerprints": {"source_revision": "rev-1", "baseline_config_fingerprint": None,
                                  "candidate_config_fingerprint": seed_cfg["fingerprint"],
                                  "control_fingerprint": None, "workload_fingerprint": None},
                 "command_fingerprint": None,
                 "inputs": {"baseline_config": None, "control": None, "workload": None, "command": None}},
        "matrix": {"path": "matrix.json", "sha256": sha_file(s.path("matrix.json")),
                   "plan_fingerprint": sha_text(canon(plan)), "plan": plan, "probe_report": None},
        "settings": {"warmup": WARMUP, "expected_ranks": RANKS, "allow_p90_regression_pct": 0.0,
                     "allow_stddev_regression_pct": 0.0},
        "o0": {"id": "O0", "runs": o0runs, "stability": stability(o0doc)}})
    # O1: the DCCI family is skipped
    os.makedirs(s.path("evidence"))
    with open(s.path("evidence/budget.md"), "w") as f:
        f.write("本轮预算只够三个普通条目。\n")
    s.append("settle", {"item": "O1", "status": "skipped", "blocker_code": "budget_exhausted",
                        "reason_zh": "本轮预算已用完，用户未要求继续 DCCI 家族。",
                        "evidence": [s.file_ref("evidence/budget.md")], "incumbent_after": "O0"})
    # O2: accepted on three runs, then topped up to five
    o2cfg, _ = s.config("configs/O2.json", {"auto_op_parallel": 1})
    s.clean("clean/O2", ["10.10", "10.12", "10.10"])
    s.skd("trial", "--baseline", s.path("clean/O0"), "--candidate", "O2=" + s.path("clean/O2"),
          "--warmup", "0", "--expected-ranks", "2", "--json-out", s.path("gates/O2-a1-trial.json"))
    t2 = json.load(open(s.path("gates/O2-a1-trial.json")))
    o2runs3 = s.runs("clean/O2")
    change2 = {"vs": "O0", "pointers": [PTR + "auto_op_parallel"],
               "values": [{"pointer": PTR + "auto_op_parallel", "before": {"present": False},
                           "after": {"present": True, "value": 1}}]}
    s.append("trial", {"item": "O2", "attempt": "O2-a1", "step": "ordinary", "config": o2cfg,
                       "change": change2, "baseline": {"id": "O0", "record": 1}, "runs": o2runs3,
                       "hygiene": PROVEN, "gate": gate(t2, "O2"),
                       "summary": s.file_ref("gates/O2-a1-trial.json"), "scene": None,
                       "outcome": "accepted", "d1_outcome": None, "item_status": "running",
                       "incumbent_before": "O0", "incumbent_after": "O0", "rollback": None})
    trial2 = len(s.lines)
    s.clean("clean/O2", ["10.11", "10.10"], first=4)
    s.skd("stability", s.path("clean/O2"), "--warmup", "0", "--expected-ranks", "2",
          "--json-out", s.path("gates/O2-a1-top-up.json"))
    st2 = json.load(open(s.path("gates/O2-a1-top-up.json")))
    s.append("top_up", {"item": "O2", "attempt": "O2-a1", "trial_record": trial2, "config": o2cfg,
                        "runs": s.runs("clean/O2"), "added_runs": ["run-4", "run-5"],
                        "hygiene": PROVEN, "stability": stability(st2),
                        "summary": s.file_ref("gates/O2-a1-top-up.json"), "scene": None,
                        "outcome": "accepted", "item_status": "accepted", "incumbent_before": "O0",
                        "incumbent_after": "O2", "rollback": None})
    top2 = len(s.lines)
    # O3: a failed attempt (correctness) with its scene
    o3cfg, _ = s.config("configs/O3.json", {"auto_op_parallel": 1,
                                            "aggressive_opt_strategies": {"task_breaker_bypass": 1}})
    scene = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "scene.json")))
    s.write_json("scenes/O3-a1.json", scene)
    change3 = {"vs": "O2", "pointers": [PTR + "aggressive_opt_strategies"],
               "values": [{"pointer": PTR + "aggressive_opt_strategies", "before": {"present": False},
                           "after": {"present": True, "value": {"task_breaker_bypass": 1}}}]}
    s.append("trial", {"item": "O3", "attempt": "O3-a1", "step": "ordinary", "config": o3cfg,
                       "change": change3, "baseline": {"id": "O2", "record": top2}, "runs": None,
                       "hygiene": None, "gate": None, "summary": None,
                       "scene": {"path": "scenes/O3-a1.json",
                                 "sha256": sha_file(s.path("scenes/O3-a1.json")),
                                 "attempt": "O3-a1", "kind": "correctness", "functional": True},
                       "outcome": "failed", "d1_outcome": None, "item_status": "failed",
                       "incumbent_before": "O2", "incumbent_after": "O2", "rollback": {"to": "O2"}})
    # O4: rejected against O2
    o4cfg, _ = s.config("configs/O4.json", {"auto_op_parallel": 1, "early_start": 1})
    s.clean("clean/O4", ["10.40", "10.45", "10.40"])
    s.skd("trial", "--baseline", s.path("clean/O2"), "--candidate", "O4=" + s.path("clean/O4"),
          "--warmup", "0", "--expected-ranks", "2", "--json-out", s.path("gates/O4-a1-trial.json"))
    t4 = json.load(open(s.path("gates/O4-a1-trial.json")))
    change4 = {"vs": "O2", "pointers": [PTR + "early_start"],
               "values": [{"pointer": PTR + "early_start", "before": {"present": False},
                           "after": {"present": True, "value": 1}}]}
    s.append("trial", {"item": "O4", "attempt": "O4-a1", "step": "ordinary", "config": o4cfg,
                       "change": change4, "baseline": {"id": "O2", "record": top2},
                       "runs": s.runs("clean/O4"), "hygiene": PROVEN, "gate": gate(t4, "O4"),
                       "summary": s.file_ref("gates/O4-a1-trial.json"), "scene": None,
                       "outcome": "rejected", "d1_outcome": None, "item_status": "rejected",
                       "incumbent_before": "O2", "incumbent_after": "O2", "rollback": {"to": "O2"}})
    if freeze:
        _, o2tree = s.config("configs/O2.json", {"auto_op_parallel": 1})
        s.append("freeze", {"base_id": "Sbest-BASE", "status": "accepted", "incumbent": "O2",
                            "incumbent_record": top2, "config": o2cfg,
                            "option_maps": option_maps(o2tree),
                            "fingerprints": {"source_revision": "rev-1",
                                             "baseline_config_fingerprint": None,
                                             "candidate_config_fingerprint": o2cfg["fingerprint"],
                                             "control_fingerprint": None,
                                             "workload_fingerprint": None},
                            "command_fingerprint": None,
                            "items": [{"id": "O1", "status": "skipped"},
                                      {"id": "O2", "status": "accepted"},
                                      {"id": "O3", "status": "failed"},
                                      {"id": "O4", "status": "rejected"}],
                            "accepted_items": ["O2"]})


if __name__ == "__main__":
    main(sys.argv)
