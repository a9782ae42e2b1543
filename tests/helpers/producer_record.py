#!/usr/bin/env python3
"""Writes producer run records (docs/producer-record.md) for compile-safety tests.

An independent writer: it follows the documented format with Python's json
module, so the C reader is tested against a second implementation.

  producer_record.py started OUT --pid PID [--pgid PID --start-ticks N] [--boot-id ID]
        [--timeout SEC] [--env NAME=VALUE]... [--runner-pid PID [--runner-start-ticks N]]
        [--argv ARG]... [--cwd DIR] [--realtime-ns N] [--monotonic-ns N]
  (with --pgid, --start-ticks, --runner-start-ticks, --cwd and the times given,
   nothing is read from /proc and the output is reproducible)
  producer_record.py finished STARTED OUT (--exit-code N | --signal N)
        [--timed-out | --interrupted SIG] [--survivors N] [--ended-offset-ns N]
"""
import argparse
import hashlib
import json
import os
import sys
import time

SCHEMA = "skdcci-producer-run-1"
SIGNAL_NAMES = {1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP",
                6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1",
                11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM"}


def canonical(obj):
    return json.dumps(obj, ensure_ascii=True, sort_keys=True, separators=(",", ":"),
                      allow_nan=False)


def stat_fields(pid):
    with open(f"/proc/{pid}/stat", "rb") as f:
        text = f.read().decode("utf-8", "surrogateescape")
    rest = text[text.rindex(")") + 2:].split()
    # rest[0] is field 3 (state); field N is rest[N - 3]
    return {"pgid": int(rest[2]), "sid": int(rest[3]), "start": int(rest[19])}


def boot_id():
    with open("/proc/sys/kernel/random/boot_id") as f:
        return f.read().strip()


def publish(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(data)


def started(a):
    st = stat_fields(a.pid) if a.start_ticks is None or a.pgid is None else None
    env = {}
    for kv in a.env:
        name, _, value = kv.partition("=")
        env[name] = value
    cwd = a.cwd or os.getcwd()
    command = {"argv": a.argv or ["/bin/sh", "-c", "compile"], "cwd": cwd, "environment": env}
    runner_pid = a.runner_pid if a.runner_pid is not None else os.getppid()
    runner_start = (a.runner_start_ticks if a.runner_start_ticks is not None
                    else stat_fields(runner_pid)["start"])
    now_mono = a.monotonic_ns if a.monotonic_ns is not None else time.monotonic_ns()
    rec = {
        "schema_version": SCHEMA,
        "state": "started",
        "session_fingerprint": "ab" * 32,
        "capture_role": "sk_on",
        "capture_root": os.path.join(cwd, "capture"),
        "command": command,
        "command_fingerprint": hashlib.sha256(canonical(command).encode()).hexdigest(),
        "process": {
            "pid": a.pid,
            "pgid": a.pgid if a.pgid is not None else st["pgid"],
            "sid": a.pgid if a.pgid is not None else st["sid"],
            "start_time_ticks": a.start_ticks if a.start_ticks is not None else st["start"],
            "clock_ticks_per_second": os.sysconf("SC_CLK_TCK"),
            "boot_id": a.boot_id or boot_id(),
        },
        "runner": {"pid": runner_pid, "start_time_ticks": runner_start},
        "started_realtime_ns": a.realtime_ns if a.realtime_ns is not None else time.time_ns(),
        "started_monotonic_ns": now_mono,
        "timeout_s": a.timeout,
        "deadline_monotonic_ns": (now_mono + a.timeout * 10**9 + a.deadline_offset_ns)
        if a.timeout is not None else None,
    }
    publish(a.out, canonical(rec) + "\n")


def finished(a):
    with open(a.started, "rb") as f:
        raw = f.read()
    rec = json.loads(raw)
    rec["state"] = "finished"
    start_mono = rec["started_monotonic_ns"]
    end_mono = start_mono + a.ended_offset_ns
    term = None
    interruption = None
    if a.timed_out:
        deadline = rec["deadline_monotonic_ns"]
        assert deadline is not None, "--timed-out needs a started record with a timeout"
        term = {"reason": "timeout", "pgid": rec["process"]["pid"], "signal": 15,
                "signal_name": "SIGTERM", "term_sent_monotonic_ns": deadline, "grace_ms": 5000,
                "kill_sent_monotonic_ns": None}
        end_mono = max(end_mono, deadline + 1000)
    elif a.interrupted is not None:
        interruption = {"signal": a.interrupted, "signal_name": SIGNAL_NAMES[a.interrupted],
                        "received_monotonic_ns": start_mono + 500}
        term = {"reason": "interrupted", "pgid": rec["process"]["pid"], "signal": a.interrupted,
                "signal_name": SIGNAL_NAMES[a.interrupted],
                "term_sent_monotonic_ns": start_mono + 600, "grace_ms": 5000,
                "kill_sent_monotonic_ns": None}
        end_mono = max(end_mono, start_mono + 1000)
    rec["ended_monotonic_ns"] = end_mono
    rec["ended_realtime_ns"] = rec["started_realtime_ns"] + (end_mono - start_mono)
    if a.signal is not None:
        rec["exit"] = {"kind": "signaled", "code": None, "signal": a.signal,
                       "signal_name": SIGNAL_NAMES[a.signal]}
    else:
        rec["exit"] = {"kind": "exited", "code": a.exit_code, "signal": None, "signal_name": None}
    rec["timed_out"] = a.timed_out
    rec["interruption"] = interruption
    rec["termination"] = term
    rec["group_survivors"] = a.survivors
    rec["started_record_sha256"] = a.started_sha256 or hashlib.sha256(raw).hexdigest()
    publish(a.out, canonical(rec) + "\n")


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("started")
    s.add_argument("out")
    s.add_argument("--pid", type=int, required=True)
    s.add_argument("--pgid", type=int)
    s.add_argument("--start-ticks", type=int)
    s.add_argument("--boot-id")
    s.add_argument("--timeout", type=int)
    s.add_argument("--deadline-offset-ns", type=int, default=0)
    s.add_argument("--env", action="append", default=[])
    s.add_argument("--runner-pid", type=int)
    s.add_argument("--runner-start-ticks", type=int)
    s.add_argument("--cwd", help="recorded cwd (default: the current directory)")
    s.add_argument("--argv", action="append")
    s.add_argument("--realtime-ns", type=int)
    s.add_argument("--monotonic-ns", type=int)
    f = sub.add_parser("finished")
    f.add_argument("started")
    f.add_argument("out")
    g = f.add_mutually_exclusive_group(required=True)
    g.add_argument("--exit-code", type=int)
    g.add_argument("--signal", type=int)
    t = f.add_mutually_exclusive_group()
    t.add_argument("--timed-out", action="store_true")
    t.add_argument("--interrupted", type=int, metavar="SIG")
    f.add_argument("--survivors", type=int, default=0)
    f.add_argument("--ended-offset-ns", type=int, default=1000000)
    f.add_argument("--started-sha256")
    a = p.parse_args()
    started(a) if a.mode == "started" else finished(a)


if __name__ == "__main__":
    sys.exit(main())
