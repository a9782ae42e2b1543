#!/usr/bin/env python3
"""The next step of a blocked analysis on all three outputs (docs/analyze.md §11).

next_steps_check.py OUT SPEC

OUT is the analysis output directory; OUT.stdout holds its stdout.  SPEC is a
JSON object: action, reason (the code of the step), what (substrings of its
English text), what_zh (substrings of its Chinese text), and optionally
command (the step's exact command on stdout; in the reports OUTDIR stays a
placeholder) and last_command (the exact command of the last step).  Checked:
stdout's "next: <action>" and the step's "next <n>:" line and command, the
JSON next_steps (action, the step with that reason, its text and command),
the Markdown section 下一步 (the reason, the Chinese text, the command), and
that no output names a repair or probe command.
"""
import json
import sys


def fail(msg):
    print(msg)
    sys.exit(1)


out, spec = sys.argv[1], json.loads(sys.argv[2])
stdout = open(out + ".stdout", encoding="utf-8").read().splitlines()
report = json.load(open(out + "/dcci-regression-analysis.json", encoding="utf-8"))
md = open(out + "/DCCI_REGRESSION_ANALYSIS.md", encoding="utf-8").read()

nx = report["next_steps"]
if nx["action"] != spec["action"]:
    fail(f"JSON action {nx['action']}, want {spec['action']}")
steps = [s for s in nx["steps"] if s["reason"] == spec["reason"]]
if len(steps) != 1:
    fail(f"JSON: {len(steps)} step(s) for {spec['reason']}: {nx['steps']}")
step = steps[0]
index = nx["steps"].index(step) + 1
for w in spec["what"]:
    if w not in step["what"]:
        fail(f"JSON step lacks {w!r}: {step['what']}")
if "command" in spec and step["command"] != spec["command"]:
    fail(f"JSON command {step['command']!r}, want {spec['command']!r}")
if "last_command" in spec and nx["steps"][-1]["command"] != spec["last_command"]:
    fail(f"JSON last command {nx['steps'][-1]['command']!r}, want {spec['last_command']!r}")
if f"next: {spec['action']}" not in stdout:
    fail(f"stdout lacks 'next: {spec['action']}'")
line = f"next {index}: {step['what']}"
if line not in stdout:
    fail(f"stdout lacks {line!r}")
if step["command"] is not None:
    at = stdout.index(line)
    want = "  " + step["command"].replace(" OUTDIR", " " + out)
    if stdout[at + 1] != want:
        fail(f"stdout command {stdout[at + 1]!r}, want {want!r}")
sec = md.split("下一步\n", 1)[1]
if f"`{spec['reason']}`" not in sec or f"动作：`{spec['action']}`" not in sec:
    fail(f"Markdown next steps lack the reason or the action: {sec[:400]}")
for w in spec["what_zh"]:
    if w not in sec:
        fail(f"Markdown next steps lack {w!r}: {sec[:600]}")
if step["command"] is not None and step["command"] not in sec:
    fail(f"Markdown next steps lack the command {step['command']!r}")
everything = "\n".join(stdout) + md + json.dumps(nx)
for bad in ("repair-config", "probe check", "--option-probes"):
    if bad in everything:
        fail(f"a blocked analysis names {bad!r}")
