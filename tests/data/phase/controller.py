#!/usr/bin/env python3
"""Test double of the auto-tune controller: writes sessions, sealed phase
results and dispatch tasks the way the controller does (docs/phase.md), so
that `skdcci phase check` can be tested against documents with independently
computed digests.

  controller.py skills DIR                    the skill tree with the runtime tools
  controller.py init SESSION ROOT ID MODE     a new full session
  controller.py seal SESSION STATUS           seal the pending step with a result
  controller.py dispatch SESSION TASK         the task for the pending step
  controller.py digest FILE                   the semantic digest of a JSON file
  controller.py fresh DIR ID STATUS...        DIR/session.json (artifact root DIR/art)
                                              with STATUS... sealed, and DIR/task.json
"""
import hashlib
import json
import os
import sys

PHASES = {
    "intake_preparation": ("sk-intake-preparation", "superkernel-intake-preparation"),
    "s0_baseline": ("sk-s0-baseline", "superkernel-s0-baseline"),
    "stage_a_scope_selection": ("sk-stage-a-scope-selection", "superkernel-stage-a-scope-selection"),
    "stage_o_option_tuning": ("sk-stage-o-option-tuning", "superkernel-stage-o-option-tuning"),
    "base_profile_source_mapping": ("sk-base-profile-source-mapping",
                                    "superkernel-base-profile-source-mapping"),
    "optional_experiments": ("sk-optional-experiments", "superkernel-optional-experiments"),
    "final_e2e_report": ("sk-final-e2e-report", "superkernel-final-e2e-report"),
}
TOOLS = ["analyze_performance.py", "experiment_ledger.py", "render_round_report.py"]


def digest(value):
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def save(path, value):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n")


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def step(step_id, phase, branch=None):
    agent, skill = PHASES[phase]
    return {"step_id": step_id, "phase": phase, "agent_id": agent, "skill": skill,
            "optional_branch": branch, "derived_family_rebase": False, "state": "pending"}


def pending(session):
    return next((s for s in session["steps"] if s["state"] == "pending"), None)


def main(argv):
    cmd = argv[1]
    if cmd == "skills":
        root = argv[2]
        for phase, (agent, skill) in PHASES.items():
            save(os.path.join(root, skill, "phase.json"),
                 {"schema_version": "superkernel-phase-manifest-v1", "phase": phase,
                  "agent_id": agent, "skill": skill, "runtime_tools": TOOLS})
        scripts = os.path.join(root, "superkernel-runtime-common", "scripts")
        os.makedirs(scripts, exist_ok=True)
        for t in TOOLS:
            with open(os.path.join(scripts, t), "w") as f:
                f.write("# runtime tool stand-in\n")
    elif cmd == "init":
        path, root, sid, mode = argv[2:6]
        session = {"schema_version": "superkernel-auto-tune-session-v1", "session_id": sid,
                   "artifact_root": os.path.abspath(root), "optional_mode": mode,
                   "entrypoint": "full", "status": "active",
                   "created_at": "2026-01-05T10:00:00+00:00",
                   "steps": [step("intake-preparation", "intake_preparation"),
                             step("s0-baseline", "s0_baseline"),
                             step("stage-a-scope-selection", "stage_a_scope_selection"),
                             step("stage-o-option-tuning", "stage_o_option_tuning"),
                             step("base-profile-source-mapping", "base_profile_source_mapping"),
                             step("optional-experiments", "optional_experiments", mode),
                             step("final-e2e-report", "final_e2e_report")]}
        os.makedirs(root, exist_ok=True)
        save(path, session)
    elif cmd == "seal":
        path, status = argv[2:4]
        session = load(path)
        st = pending(session)
        result = {"schema_version": "superkernel-auto-tune-phase-result-v1",
                  "session_id": session["session_id"], "step_id": st["step_id"],
                  "phase": st["phase"], "agent_id": st["agent_id"], "status": status,
                  "summary_zh": "阶段 %s 已完成：结果 %s。" % (st["step_id"], status),
                  "input_fingerprints": {"session_state": digest(session)},
                  "consumed_artifacts": [], "produced_artifacts": [],
                  "decisions": [{"ratio": 1.5, "note": "示例 ✓"}], "blockers": [],
                  "next_step_guidance_zh": "进入下一阶段。", "details_zh": {}}
        rel = "phases/%s/phase-result.json" % st["step_id"]
        save(os.path.join(session["artifact_root"], rel), result)
        with open(os.path.join(session["artifact_root"], "phases", st["step_id"],
                               "PHASE_REPORT.md"), "w") as f:
            f.write("# %s 阶段报告\n" % st["phase"])
        st.update({"state": "sealed", "result_path": rel, "result_sha256": digest(result),
                   "outcome_status": status, "sealed_at": "2026-01-05T11:00:00+00:00"})
        save(path, session)
    elif cmd == "dispatch":
        path, out = argv[2:4]
        session = load(path)
        st = pending(session)
        consumed = []
        for prev in session["steps"]:
            if prev is st:
                break
            if prev["state"] == "sealed":
                consumed.append({k: prev[k] for k in ("step_id", "result_path", "result_sha256",
                                                      "outcome_status")})
        spath = os.path.abspath(path)
        save(out, {"schema_version": "superkernel-auto-tune-phase-task-v1",
                   "session_id": session["session_id"], "session_path": spath,
                   "artifact_root": session["artifact_root"],
                   "session_fingerprint": digest(session), "step": dict(st),
                   "consumed_handoffs": consumed,
                   "handoff": {"result_schema": "superkernel-auto-tune-phase-result-v1",
                               "seal_command": ["python3", "scripts/auto_tune_session.py", "seal",
                                                "--session", spath, "--result",
                                                "<phase-result.json>"]}})
    elif cmd == "digest":
        print(digest(load(argv[2])))
    elif cmd == "fresh":
        d, sid = argv[2:4]
        session = os.path.join(d, "session.json")
        main([argv[0], "init", session, os.path.join(d, "art"), sid, "none"])
        for status in argv[4:]:
            main([argv[0], "seal", session, status])
        main([argv[0], "dispatch", session, os.path.join(d, "task.json")])
    else:
        raise SystemExit("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
