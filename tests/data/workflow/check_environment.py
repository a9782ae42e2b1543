#!/usr/bin/env python3
"""Test double of the option probe for tests/scripts/family_workflow.sh.

Same command line and report shapes as the probe docs/workflow.md runs
(docs/stage-o.md section 6): without a loaded CANN environment (a CANN home
variable and a CANN library directory on LD_LIBRARY_PATH) it prints the
not-run report and exits 1; otherwise it prints probe-report.json (next to
this file) with the values of --option-probes added to the accepted values
of their options and exits 0.  It never imports torch: the wrapper that would
validate the values is what the double stands in for.
"""
import argparse
import json
import os
import sys

HOME_VARS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_AICPU_PATH")


def runtime_environment():
    homes = []
    for var in HOME_VARS:
        value = os.environ.get(var)
        if value and value not in homes:
            homes.append(value)
    libs = [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)
            if p and ("cann" in p.lower() or "/ascend/" in p.lower())]
    return {"cann_home_candidates": homes, "cann_library_paths": libs,
            "loaded": bool(homes and libs)}


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-device-check", action="store_true")
    parser.add_argument("--option-probes")
    args = parser.parse_args()
    env = runtime_environment()
    if not env["loaded"]:
        report = {"ready": False, "error_code": "cann_environment_not_loaded",
                  "option_probe_status": "not_run",
                  "error": "CANN runtime environment is not loaded"}
        print(json.dumps(report, indent=2, sort_keys=True))
        return 1
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "probe-report.json"), encoding="utf-8") as f:
        report = json.load(f)
    custom = {}
    if args.option_probes:
        with open(args.option_probes, encoding="utf-8") as f:
            custom = json.load(f)
    for category, options in custom.items():
        for name, values in options.items():
            entry = report["options"][category].setdefault(
                name, {"accepted": True, "accepted_values": [], "error": None,
                       "rejected_values": []})
            known = {canonical(v) for v in entry["accepted_values"]}
            for value in values:
                if canonical(value) not in known:
                    entry["accepted_values"].append(value)
                    known.add(canonical(value))
    report["runtime_environment"] = env
    report["cann"]["home"] = env["cann_home_candidates"][0]
    report["device_check_skipped"] = args.no_device_check
    report["custom_option_probe_file"] = args.option_probes
    print(json.dumps(report, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
