#!/usr/bin/env python3
"""Independent checker for a pair written by skdcci_gen.

Re-derives everything from the files with the Python standard library (a
second implementation, not the generator's code) and compares it with
ground-truth.json and with the runtime formats:

  gen_check.py DIR...     prints "ok DIR" when every check passes for DIR,
                          otherwise "FAIL DIR: <what>" lines; exits 1 when
                          any DIR failed.

Checks: sk_prof byte layout (array closed by {}, one record per line, key
order, [blockIdx/blockNum] prefixes, pid by core, %f text of tick/50.0),
per-core record counts, per-core write order, not sorted by time, child
names against the (reordered) task lists, kernel_details columns (Level0 or
Level1, with or without Step Id and Device_id, LF or CRLF) and SK rows, the
Device_id under --visible-devices, where every file lies (beside or
torch_npu layout, the later cycles' kernel_details), the raw trace equal to
its copy, graph JSON layout (nlohmann dump(2) == Python indent=2
sort_keys), options, fused-log blocks, super_kernel.log lines, execution
inputs.

A multi-rank pair (run.ranks >= 2) is checked rank by rank, and also: the
exact file layout of every rank, the Device_id / deviceId / sk_prof name /
super_kernel.log device of each rank, the raw trace in sk_meta/<pid>/
byte-identical to its profiler copy, distinct pids, the same model on every
rank, and the per-device and combined expectations of the ground truth
re-derived from its per-rank data (status, slower SKs, children, the token
union and its order).
"""
import collections
import csv
import io
import json
import os
import re
import subprocess
import sys

PROBLEMS = []


def problem(msg):
    PROBLEMS.append(msg)


def read_bytes(path):
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-dcq", path], check=True, stdout=subprocess.PIPE).stdout
    with open(path, "rb") as f:
        return f.read()


PREFIX = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[\d+:\d+\] \[(INFO|WARN|ERROR)\] \[[^\]]+:\d+\] \[[^\]]+\] ")


def strip_prefix(line):
    m = PREFIX.match(line)
    return (line[m.end():], True) if m else (line, False)


SK_HEADER = re.compile(r"^  SK Function: (\S+), scope id: (\d+), Node Count: (\d+)$")
NODE_LINE = re.compile(r"^    \[(\d+)\] (\[nodeId:(\d+), streamId:(\d+), streamIdxInGraph:(\d+), nodeIdxInStream:(\d+)(.*))$")
LIST_LINE = re.compile(r"^  \[(\d+)\] (\[nodeId:(\d+), .*)$")
FUNC = re.compile(r"KernelInfos\{funcName:([^,]+), kernelType:([A-Z0-9_]+), taskRatio:\[(\d+),(\d+)\], cap:0, "
                  r"numBlocks:(\d+), cubeNum:(\d+), vecNum:(\d+),")


def parse_fused_log(text):
    """SK blocks: name -> dict(scope_id, nodes=[(node_id, funcName or None)])."""
    blocks, cur, styles = {}, None, set()
    for raw in text.splitlines():
        line, prefixed = strip_prefix(raw)
        styles.add(prefixed)
        h = SK_HEADER.match(line)
        if h:
            cur = {"scope_id": int(h.group(2)), "count": int(h.group(3)), "nodes": []}
            blocks[h.group(1)] = cur
            continue
        n = NODE_LINE.match(line)
        if not n or cur is None:
            problem("fused log: unexpected line: " + raw[:120])
            continue
        if int(n.group(1)) != len(cur["nodes"]):
            problem("fused log: local index %s out of order" % n.group(1))
        f = FUNC.search(n.group(7))
        cur["nodes"].append((int(n.group(3)), f.group(1) if f else None, n.group(7)))
    for name, b in blocks.items():
        if b["count"] != len(b["nodes"]):
            problem("fused log: %s declares %d nodes, lists %d" % (name, b["count"], len(b["nodes"])))
    return blocks, styles


def parse_task_lists(text):
    """super_kernel.log: SK name -> [node ids of the reordered task list]."""
    lists, name, cur = {}, None, None
    for raw in text.splitlines():
        line, _ = strip_prefix(raw)
        h = SK_HEADER.match(line)
        if h:
            name = h.group(1)
            continue
        if line.startswith("reordered task nodes: node count="):
            cur = []
            lists[name] = cur
            continue
        m = LIST_LINE.match(line)
        if m and cur is not None:
            cur.append(int(m.group(3)))
    return lists


def check_fmt6(ts_text, dur_text, where):
    """The runtime prints (double)tick/50.0 and the difference of two such
    doubles with %f; Python's float division and '%f' give the same text."""
    start = round(float(ts_text) * 50)
    end = start + round(float(dur_text) * 50)
    if "%f" % (start / 50.0) != ts_text or "%f" % (end / 50.0 - start / 50.0) != dur_text:
        problem("%s: ts/dur text %s/%s is not the runtime's %%f of ticks/50" % (where, ts_text, dur_text))


EVENT = re.compile(rb'^\{"ph":"X","name":"\[(\d+)/(\d+)\]( ?)([^"]+)","pid":"(AIC|AIV)","tid":(\d+),'
                   rb'"ts":(\d+\.\d{6}),"dur":(\d+\.\d{6}),"args":\{"modelId":"48_1","skId":(\d+)(,"nodeId":(\d+))?\}\},$')


def check_runtime_skprof(data, side, gt, sp, fused, tasks, fmt_limit):
    if not data.startswith(b"[{") or not data.endswith(b"\n{}]"):
        if data != b"[{}]":
            problem(side + ": sk_prof is not [ ... ,\\n{}] closed")
    json.loads(data)  # well-formed
    lines = data.split(b"\n")
    recs = []
    for i, line in enumerate(lines[:-1]):
        if i == 0:
            line = line[1:]
        m = EVENT.match(line)
        if not m:
            problem("%s: sk_prof line %d has an unexpected layout: %r" % (side, i + 1, line[:160]))
            continue
        recs.append(m)
    if lines[-1] != b"{}]":
        problem(side + ": sk_prof last line is not {}]")
    per_core = collections.Counter()
    last_end = {}
    names = {b["scope_id"]: (n, b) for n, b in fused.items()}
    funcs = {n: {nid: fn for nid, fn, _ in b["nodes"]} for n, b in fused.items()}
    ts_list = []
    for i, m in enumerate(recs):
        bidx, bnum, space, name, pid, tid = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4).decode(), \
            m.group(5).decode(), int(m.group(6))
        ts_t, dur_t, sk_id, node = m.group(7).decode(), m.group(8).decode(), int(m.group(9)), m.group(11)
        if bidx >= bnum:
            problem("%s: record %d blockIdx %d >= blockNum %d" % (side, i, bidx, bnum))
        if (pid == "AIV") != (tid >= 25) or tid >= 75:
            problem("%s: record %d pid %s does not match core %d" % (side, i, pid, tid))
        if (space == b" ") != (node is None):
            problem("%s: record %d parent/child shape mismatch" % (side, i))
        if i < fmt_limit:
            check_fmt6(ts_t, dur_t, "%s record %d" % (side, i))
        start = round(float(ts_t) * 50)
        end = start + round(float(dur_t) * 50)
        if end <= start:
            problem("%s: record %d has no duration" % (side, i))
        if tid in last_end and end < last_end[tid]:
            problem("%s: core %d records not in write order at record %d" % (side, tid, i))
        last_end[tid] = end
        per_core[tid] += 1
        ts_list.append(start)
        if sk_id not in names:
            problem("%s: record %d skId %d has no fused-log SK" % (side, i, sk_id))
            continue
        sk_name, block = names[sk_id]
        if node is None:
            if name != sk_name:
                problem("%s: parent record %d names %s, not %s" % (side, i, name, sk_name))
            continue
        order = tasks.get(sk_name)
        node = int(node)
        if order is None or node >= len(order):
            problem("%s: record %d nodeId %d outside the task list of %s" % (side, i, node, sk_name))
            continue
        if funcs[sk_name].get(order[node]) != name:
            problem("%s: record %d nodeId %d is %s in the task list, record says %s" % (side, i, node,
                                                                                      funcs[sk_name].get(order[node]), name))
    want = sp["records_per_core"]
    got = [per_core.get(c, 0) for c in range(75)]
    if got != want:
        problem("%s: records per core %s != ground truth %s" % (side, got, want))
    if len(recs) != sp["sk_prof_events"]:
        problem("%s: %d records, ground truth %d" % (side, len(recs), sp["sk_prof_events"]))
    if len(ts_list) > 2 and ts_list == sorted(ts_list):
        problem(side + ": sk_prof is sorted by time; the runtime writes poll batch by core")
    cap = gt["run"]["core_capacity_records"]
    full = [c for c in range(75) if got[c] >= cap]
    if full != sp["cores_at_capacity"]:
        problem("%s: cores at capacity %s != ground truth %s" % (side, full, sp["cores_at_capacity"]))


def check_fixture_skprof(data, side, sp, origin):
    doc = json.loads(data)
    ev = doc["traceEvents"]
    by_id = {}
    for st in origin["streams"]:
        for n in st["nodes"]:
            by_id[n["nodeId"]] = n
    tids = collections.Counter()
    for e in ev:
        if set(e) != {"name", "ph", "ts", "dur", "tid", "args"} or set(e["args"]) != {"kernelType", "nodeId"}:
            problem(side + ": fixture event with unexpected keys")
            break
        node = by_id.get(e["args"]["nodeId"])
        if not node or node["taskInfo"][0]["kernelParams"]["funcName"] != e["name"]:
            problem(side + ": fixture nodeId does not name the origin-graph kernel")
            break
        tids[e["tid"]] += 1
    want = sp["fixture_events_per_tid"]
    if {str(k): v for k, v in tids.items()} != want:
        problem("%s: fixture events per tid %s != %s" % (side, dict(tids), want))


LEVEL1 = ["Model ID", "Task ID", "Stream ID", "Name", "Type", "OP State", "Accelerator Core", "Start Time(us)",
          "Duration(us)", "Wait Time(us)", "Block Num", "Mix Block Num"]
LEVEL0 = ["Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Num"]


def want_header(run):
    """The columns the profiler set-up of the run writes first."""
    head = [] if run.get("occurrence_mode") == "launch_order" else ["Step Id"]
    if run.get("device_id_column", True):
        head.append("Device_id")
    return head + (LEVEL0 if run.get("kernel_details_level", 1) == 0 else LEVEL1)


def check_csv(data, side, gt, sp, sks, device, step_shift=0):
    run = gt["run"]
    text = data.decode()
    crlf = run.get("line_ending") == "crlf"
    lines = text.split("\n")
    if lines[-1] != "" or any(line.endswith("\r") != crlf for line in lines[:-1]):
        problem("%s: kernel_details line endings are not all %s" % (side, "CRLF" if crlf else "LF"))
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header = rows[0]
    want = want_header(run)
    level0 = run.get("kernel_details_level", 1) == 0
    if header[:len(want)] != want or (level0 and len(header) != len(want)) or (not level0 and len(header) < len(want) + 4):
        problem(side + ": kernel_details header " + ",".join(header[:14]))
        return
    col = {name: header.index(name) for name in want}
    body = rows[1:]
    if gt["integrity"]["kernel_details_header_only"] == side:
        if body:
            problem("%s: %d kernel_details rows, want the header line only" % (side, len(body)))
        return
    blank = gt["integrity"]["blank_duration_row"]
    blank_name = blank["name"] if blank and blank["side"] == side else None
    blanks = 0
    if len(body) != sp["kernel_details_rows"]:
        problem("%s: %d kernel_details rows, ground truth %d" % (side, len(body), sp["kernel_details_rows"]))
    sk_rows = collections.defaultdict(list)
    steps = set()
    if "Device_id" in col:
        kd_device = run["visible_devices"][device] if "visible_devices" in run else device
        devices = collections.Counter(r[col["Device_id"]] for r in body if len(r) == len(header))
        if set(devices) - {str(kd_device)}:
            problem("%s: kernel_details Device_id %s, want %d on every row" % (side, dict(devices), kd_device))
    name_c, type_c, start_c, dur_c = col["Name"], col["Type"], col["Start Time(us)"], col["Duration(us)"]
    for r in body:
        if len(r) != len(header):
            problem(side + ": kernel_details row with %d fields" % len(r))
            continue
        if not r[start_c].endswith("\t"):
            problem(side + ": Start Time(us) without the profiler's trailing tab")
        if (r[type_c] == "SuperKernel") != r[name_c].startswith("sk_"):
            problem(side + ": Type/Name disagree on " + r[name_c][:40])
        step = int(r[col["Step Id"]]) - step_shift if "Step Id" in col else None
        if r[type_c] == "SuperKernel" and r[name_c] == blank_name and r[dur_c] == "":
            blanks += 1
            steps.add(step)
            continue
        if r[type_c] == "SuperKernel":
            us, ns = r[dur_c].split(".")
            sk_rows[r[name_c]].append(int(us) * 1000 + int(ns))
            steps.add(step)
    if blanks != (1 if blank_name else 0):
        problem("%s: %d rows with an empty Duration, want %d" % (side, blanks, 1 if blank_name else 0))
    want_steps = set(range(run["first_step_id"], run["last_step_id"] + 1)) if "Step Id" in col else {None}
    if steps != want_steps:
        problem(side + ": SK step ids " + str(sorted(steps, key=str)))
    for sk in sks:
        name = sk["names"][side]
        if name is None:
            continue
        durs = sk_rows.get(name, [])
        if name == blank_name:
            if len(durs) != run["steps"] - 1:
                problem("%s: %s has %d SK rows with a Duration, want %d" % (side, name[:40], len(durs), run["steps"] - 1))
            continue
        if len(durs) != run["steps"]:
            problem("%s: %s has %d SK rows, want %d" % (side, name[:40], len(durs), run["steps"]))
            continue
        real = sk.get("realized_sk_wall")
        if real and (min(durs) != real[side]["min_ns"] or max(durs) != real[side]["max_ns"]):
            problem("%s: %s durations do not match the realized statistics" % (side, name[:40]))


TORCH_NPU_DIR = re.compile(r"^profiler/(genhost)_(\d+)_(\d{17})_ascend_pt$")
PROF_DIR = re.compile(r"^PROF_\d+_(\d{17})_(\d{8})[A-Z]{8}$")


def check_layout(side, sp, gt):
    """Where the files of one rank lie (docs/test-data.md §1): the trace copy
    beside kernel_details, or torch_npu's per-process directory with the copy
    in the collection folder of the first cycle and the raw trace in
    sk_meta/<pid>/."""
    run = gt["run"]
    files = sp["files"]
    z = ".zst" if gt["generator"]["zstd"] else ""
    pid = sp["pid"]
    dev = sp.get("device", run["device_id"])
    raw = "sk_meta/%d/sk_prof_device_%d.json%s" % (pid, dev, z)
    later = sp.get("later_cycles_kernel_details", [])
    if run.get("layout") != "torch_npu":
        prof = "profiler/gen_rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT" % sp["rank"] if "rank" in sp else "profiler"
        if files["kernel_details"] != prof + "/kernel_details.csv" + z or \
           files["sk_prof"] != prof + "/sk_prof_device_%d.json%s" % (dev, z) or \
           files.get("sk_prof_raw", raw if "rank" in sp else None) != (raw if "rank" in sp else None) or later:
            problem("%s: file paths %s" % (side, files))
        return
    parts = files["kernel_details"].split("/")
    proc = "/".join(parts[:2])
    m = TORCH_NPU_DIR.match(proc)
    if not m or int(m.group(2)) != pid or parts[2:] != ["ASCEND_PROFILER_OUTPUT", "kernel_details.csv" + z]:
        problem("%s: kernel_details %s is not <worker>_<pid>_<time>_ascend_pt/ASCEND_PROFILER_OUTPUT/" % (
            side, files["kernel_details"]))
        return
    tparts = files["sk_prof"].split("/")
    pm = PROF_DIR.match(tparts[2]) if len(tparts) == 4 else None
    if "/".join(tparts[:2]) != proc or not pm or int(pm.group(2)) != pid or \
       tparts[3] != "sk_prof_device_%d.json%s" % (dev, z):
        problem("%s: the trace copy %s is not in the first cycle's PROF_* folder" % (side, files["sk_prof"]))
    if files.get("sk_prof_raw") != raw:
        problem("%s: raw trace %s, want %s" % (side, files.get("sk_prof_raw"), raw))
    if len(later) != run.get("cycles", 1) - 1:
        problem("%s: %d later cycles, want %d" % (side, len(later), run.get("cycles", 1) - 1))
    times = [m.group(3)]
    for path in later:
        lm = TORCH_NPU_DIR.match("/".join(path.split("/")[:2]))
        if not lm or lm.group(1, 2) != m.group(1, 2) or path.split("/")[2:] != parts[2:]:
            problem("%s: later cycle %s is not a directory of process %d" % (side, path, pid))
            continue
        times.append(lm.group(3))
    if times != sorted(set(times)):
        problem("%s: cycle directory times %s are not increasing" % (side, times))


def check_cycles(base, side, sp, gt, sks, device):
    """A later cycle's kernel_details holds the first cycle's rows, its steps
    moved on by the cycles before it."""
    first = read_bytes(os.path.join(base, sp["files"]["kernel_details"]))
    for c, path in enumerate(sp.get("later_cycles_kernel_details", []), 1):
        data = read_bytes(os.path.join(base, path))
        if data == first:
            problem("%s: cycle %d kernel_details is the first cycle's" % (side, c + 1))
        check_csv(data, side, gt, sp, sks, device, step_shift=c * gt["run"]["steps"])


def check_graph(text, side, name, want_dcci, want_before, device):
    doc = json.loads(text)
    if json.dumps(doc, indent=2, sort_keys=True) != text:
        problem("%s: %s is not in nlohmann dump(2) layout" % (side, name))
    if doc["deviceId"] != device:
        problem("%s: %s deviceId %s, want %d" % (side, name, doc["deviceId"], device))
    if doc["options"]["dcci_before_kernel_start"]["value"] != want_before:
        problem("%s: %s dcci_before_kernel_start %s" % (side, name, doc["options"]["dcci_before_kernel_start"]))
    opt = doc["options"]["dcci_disable_on_kernel"]
    if opt != {"name": "dcci_disable_on_kernel", "type": 3, "value": want_dcci}:
        problem("%s: %s dcci_disable_on_kernel %s" % (side, name, opt))
    total = sum(len(s["nodes"]) for s in doc["streams"])
    if total != doc["totalNodes"] or len(doc["streams"]) != doc["totalStreams"]:
        problem("%s: %s node/stream totals" % (side, name))
    for s in doc["streams"]:
        if [n["nodeIdxInStream"] for n in s["nodes"]] != list(range(s["nodeCount"])):
            problem("%s: %s nodeIdxInStream not 0..n-1" % (side, name))
    return doc


def pointers(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            p = path + "/" + k.replace("~", "~0").replace("/", "~1")
            if k not in a or k not in b:
                out.append(p)
            else:
                out += pointers(a[k], b[k], p)
        return out
    return [] if a == b else [path]


DEV_LINE = re.compile(r"device (\d+) core (\d+) buffer is full, stop dump the time of nodes on device (\d+) core (\d+)")


def check_side(root, gt, side, sp, sks, fmt_limit):
    """The files of one rank of one side (the side itself with one device).
    Returns (origin graph, fused-log text without prefixes, graph texts)."""
    base = os.path.join(root, side)
    files = sp["files"]
    device = sp.get("device", gt["run"]["device_id"])
    fused_text = read_bytes(os.path.join(base, files["sk_fused_nodes"])).decode()
    fused, styles = parse_fused_log(fused_text)
    want_style = {"prefixed": {True}, "plain": {False}, "mixed": {True, False}}[sp["fused_log_style"]]
    if styles != want_style:
        problem("%s: fused log style %s, ground truth %s" % (side, styles, sp["fused_log_style"]))
    names = [sk["names"][side] for sk in sks if sk["names"][side]]
    if sorted(fused) != sorted(names):
        problem(side + ": fused-log SK names differ from the ground truth")
    skl = read_bytes(os.path.join(base, files["super_kernel"])).decode()
    tasks = parse_task_lists(skl)
    if sorted(tasks) != sorted(fused):
        problem(side + ": super_kernel.log task lists do not cover every SK")
    kb = gt["run"]["ascend_prof_sk_on_kb"]
    if ("[sk time profiling] ASCEND_PROF_SK_ON=%d, coreSize=" % kb) not in skl:
        problem(side + ": super_kernel.log lacks the ASCEND_PROF_SK_ON line")
    if skl.count("buffer is full, stop dump the time of nodes") != sp["buffer_full_warnings"]:
        problem(side + ": buffer-full warning count")
    for m in DEV_LINE.finditer(skl):
        if int(m.group(1)) != device or int(m.group(3)) != device or m.group(2) != m.group(4):
            problem("%s: buffer-full line names device %s/%s, want %d" % (side, m.group(1), m.group(3), device))
            break
    prof_dir = os.path.dirname(files["sk_prof"])
    copied = "Copied output file from ./sk_meta/%d/sk_prof_device_%d.json to ./%s/sk_prof_device_%d.json" % (
        sp["pid"], device, prof_dir, device)
    if skl.count(copied) != 1:
        problem("%s: super_kernel.log lacks the copy line %r" % (side, copied))
    if os.path.basename(files["sk_prof"]).split(".")[0] != "sk_prof_device_%d" % device:
        problem("%s: sk_prof file %s does not name device %d" % (side, files["sk_prof"], device))
    dcci_line = "OptionName:dcci_disable_on_kernel, value[0]: .*" in skl
    if dcci_line != (side == "disable_all"):
        problem(side + ": dcci option parsing line presence")
    # impure_o0: a stray before-list reached both processes
    before = [".*"] if gt["integrity"]["o0_dcci_option"] == "dcci_before_kernel_start" else []
    if ("OptionName:dcci_before_kernel_start, value[0]: .*" in skl) != bool(before):
        problem(side + ": dcci_before_kernel_start parsing line presence")
    graph_texts = {}
    for key, label in (("sk_graph_origin", "origin"), ("sk_graph_updated", "updated")):
        graph_texts[key] = read_bytes(os.path.join(base, files[key])).decode()
        doc = check_graph(graph_texts[key], side, label, [".*"] if side == "disable_all" else [], before, device)
        if key == "sk_graph_origin":
            origin = doc
    by_id = {n["nodeId"]: n for s in origin["streams"] for n in s["nodes"]}
    for name, b in fused.items():
        for nid, fn, _ in b["nodes"]:
            node = by_id.get(nid)
            if node is None:
                problem("%s: fused node %d missing from the origin graph" % (side, nid))
            elif fn is not None and node["taskInfo"][0]["kernelParams"]["funcName"] != fn:
                problem("%s: fused node %d funcName differs from the origin graph" % (side, nid))
    data = read_bytes(os.path.join(base, files["sk_prof"]))
    if sp["sk_prof_shape"] == "runtime_array":
        check_runtime_skprof(data, side, gt, sp, fused, tasks, fmt_limit)
    else:
        check_fixture_skprof(data, side, sp, origin)
    check_csv(read_bytes(os.path.join(base, files["kernel_details"])), side, gt, sp, sks, device)
    check_layout(side, sp, gt)
    check_cycles(base, side, sp, gt, sks, device)
    if "sk_prof_raw" in files and read_bytes_file(os.path.join(base, files["sk_prof_raw"])) != \
            read_bytes_file(os.path.join(base, files["sk_prof"])):
        problem(side + ": the raw trace differs from its profiler copy")
    plain_fused = "\n".join(strip_prefix(line)[0] for line in fused_text.splitlines())
    return origin, plain_fused, graph_texts


def union_order(entries):
    """Slower SKs (rank entry, sk) in the union order: descending planted
    regression, structural key (scope, ops), occurrence, device."""
    return sorted(entries, key=lambda e: (-e[1]["planted_regression_pct"], e[1]["scope"],
                                          e[1]["structure"]["ops"], e[1]["occurrence"], e[0]["device"]))


def selected_in(order):
    out = []
    for rank, sk in order:
        for c in sk["children"]:
            if c["expected_selected"]:
                out.append((rank["device"], sk["index"], c["position"], c["token"]))
    return out


def first_tokens(children):
    seen = []
    for c in children:
        if c[3] not in seen:
            seen.append(c[3])
    return seen


def exactly_files(root, side, want):
    """The side's root holds exactly the files want (relative paths)."""
    got = set()
    for dirpath, _, names in os.walk(os.path.join(root, side)):
        for nm in names:
            got.add(os.path.relpath(os.path.join(dirpath, nm), os.path.join(root, side)))
    if got != want:
        problem("%s: files %s missing, %s unexpected" % (side, sorted(want - got)[:4], sorted(got - want)[:4]))


def check_ranks(root, gt):
    """Multi-rank layout and truth consistency (run.ranks >= 2)."""
    run = gt["run"]
    n = run["ranks"]
    ranks = gt["ranks"]
    base_dev = ranks[0]["device"]
    if [r["rank"] for r in ranks] != list(range(n)) or [r["device"] for r in ranks] != list(range(base_dev, base_dev + n)):
        problem("ranks/devices are not 0..%d / consecutive: %s" % (n - 1, [(r["rank"], r["device"]) for r in ranks]))
    pids = []
    for side in ("o0", "disable_all"):
        entries = gt["sides"][side]["ranks"]
        devs = [e["device"] for e in entries]
        if devs != run["devices"][side] or devs != [r["device"] for r in ranks if r["on_sides"][side]]:
            problem("%s: rank devices %s, run.devices %s" % (side, devs, run["devices"][side]))
        # exactly the files of the ranks, nothing else
        want = set()
        for e in entries:
            want |= set(e["files"].values()) | set(e.get("later_cycles_kernel_details", []))
            pids.append(e["pid"])
            for key in ("sk_fused_nodes", "super_kernel", "sk_graph_origin"):
                if not e["files"][key].startswith("sk_meta/%d/model_48_1/" % e["pid"]):
                    problem("%s: rank %d %s outside sk_meta/%d/" % (side, e["rank"], key, e["pid"]))
            raw = read_bytes_file(os.path.join(root, side, e["files"]["sk_prof_raw"]))
            prof_copy = read_bytes_file(os.path.join(root, side, e["files"]["sk_prof"]))
            if raw != prof_copy:
                problem("%s: rank %d raw trace differs from its profiler copy" % (side, e["rank"]))
        exactly_files(root, side, want)
        if gt["sides"][side]["files"] != entries[0]["files"] or gt["sides"][side]["pid"] != entries[0]["pid"]:
            problem(side + ": the side's files are not rank 0's")
    if len(set(pids)) != len(pids):
        problem("process ids are not distinct: %s" % pids)
    # the expectations, re-derived from the per-rank data
    paired = [r for r in ranks if r["on_sides"]["o0"] and r["on_sides"]["disable_all"]]
    full = {(x["device"], x["side"]) for x in gt["integrity"]["buffer_full_devices"]}
    for side in ("o0", "disable_all"):
        for e in gt["sides"][side]["ranks"]:
            if bool(e["cores_at_capacity"] or e["buffer_full_warnings"]) != ((e["device"], side) in full):
                problem("%s: device %d buffer-full state differs from integrity" % (side, e["device"]))
    if gt["integrity"]["buffer_full"] != bool(full):
        problem("integrity.buffer_full %s, devices %s" % (gt["integrity"]["buffer_full"], sorted(full)))
    exp = gt["expected"]
    if [d["device"] for d in exp["devices"]] != [r["device"] for r in paired]:
        problem("expected.devices %s, devices on both sides %s" % ([d["device"] for d in exp["devices"]],
                                                                  [r["device"] for r in paired]))
    entries, any_slower, any_full, any_selected = [], False, False, False
    for r, d in zip(paired, exp["devices"]):
        slower = [sk for sk in r["sks"] if sk["planted_class"] == "significantly_slower"]
        for sk in r["sks"]:
            if sk["realized_sk_wall"]["class"] != sk["planted_class"]:
                problem("device %d: %s layer %d realized %s, planted %s" % (r["device"], sk["scope"], sk["layer"],
                        sk["realized_sk_wall"]["class"], sk["planted_class"]))
        order = union_order([(r, sk) for sk in slower])
        if [sk["index"] for sk in d["slower_sks"]] != [sk["index"] for _, sk in order] or \
           d["slower_sks"] != [sk for _, sk in order]:
            problem("device %d: expected slower_sks differ from its significantly slower SKs" % r["device"])
        children = selected_in(order)
        got = [(c["device"], c["sk_index"], c["position"], c["token"]) for c in d["regressed_children"]]
        if got != children:
            problem("device %d: regressed_children %s, want %s" % (r["device"], got, children))
        if d["tokens"] != first_tokens(children):
            problem("device %d: tokens %s, want %s" % (r["device"], d["tokens"], first_tokens(children)))
        dev_full = (r["device"], "o0") in full or (r["device"], "disable_all") in full
        want = ("no_significant_regression" if not slower else "child_attribution_blocked" if dev_full
                else "repair_candidate" if children else "no_regressed_child")
        if d["status"] != want:
            problem("device %d: status %s, want %s" % (r["device"], d["status"], want))
        entries += [(r, sk) for sk in slower]
        any_slower |= bool(slower)
        # lost records are checked only on a device with a slower SK
        any_full |= dev_full and bool(slower)
        any_selected |= bool(children)
    order = union_order(entries)
    union = selected_in(order)
    got = [(c["device"], c["sk_index"], c["position"], c["token"]) for c in gt["selected_children"]]
    if got != union:
        problem("selected_children %s, want the union %s" % (got, union))
    if gt["planted_tokens"] != first_tokens(union):
        problem("planted_tokens %s, want %s" % (gt["planted_tokens"], first_tokens(union)))
    if [t["token"] for t in gt["tokens"]] != gt["planted_tokens"]:
        problem("tokens[] order differs from planted_tokens")
    # the realized regressions keep the planted order where the plants are
    # more than one point apart (the analyzer orders by the realized ones)
    for (ra, a), (rb, b) in zip(order, order[1:]):
        if a["planted_regression_pct"] - b["planted_regression_pct"] > 1:
            ra_pct = a["realized_sk_wall"]["delta_p50_ns"] / a["realized_sk_wall"]["o0"]["p50_ns"]
            rb_pct = b["realized_sk_wall"]["delta_p50_ns"] / b["realized_sk_wall"]["o0"]["p50_ns"]
            if ra_pct <= rb_pct:
                problem("realized regression order differs: device %d %s %d before device %d %s %d" % (
                    ra["device"], a["scope"], a["layer"], rb["device"], b["scope"], b["layer"]))
    missing = [r["device"] for r in ranks if not (r["on_sides"]["o0"] and r["on_sides"]["disable_all"])]
    want_issues = [{"gate": "collection", "code": "device_set_mismatch", "device": r["device"],
                    "side": "o0" if r["on_sides"]["o0"] else "disable_all"} for r in ranks if r["device"] in missing]
    for r in paired:
        if not any(sk["planted_class"] == "significantly_slower" for sk in r["sks"]):
            continue
        for side in ("o0", "disable_all"):
            if (r["device"], side) in full:
                want_issues += [{"gate": "child_attribution", "code": c, "device": r["device"], "side": side}
                                for c in ("buffer_full", "core_capacity_reached")]
    if exp["issues"] != want_issues:
        problem("expected.issues %s, want %s" % (exp["issues"], want_issues))
    want = ("collection_blocked" if missing else "no_significant_regression" if not any_slower
            else "child_attribution_blocked" if any_full else "repair_candidate" if any_selected
            else "no_regressed_child")
    if exp["status"] != want:
        problem("expected.status %s, want %s" % (exp["status"], want))
    if exp["tokens"] != (gt["planted_tokens"] if want == "repair_candidate" else []):
        problem("expected.tokens %s" % exp["tokens"])
    if gt["sks"] != ranks[0]["sks"]:
        problem("sks[] is not rank 0's")


def read_bytes_file(path):
    with open(path, "rb") as f:
        return f.read()


def check_pair(root):
    gt = json.load(open(os.path.join(root, "ground-truth.json")))
    fmt_limit = int(os.environ.get("GEN_CHECK_FORMAT_RECORDS", "200000"))
    multi = gt["run"].get("ranks", 1) > 1
    graphs = {}
    for side in ("o0", "disable_all"):
        sp = gt["sides"][side]
        fused0 = texts0 = None
        for rp in (sp["ranks"] if multi else [sp]):
            sks = gt["ranks"][rp["rank"]]["sks"] if multi else gt["sks"]
            where = "%s rank %d" % (side, rp["rank"]) if multi else side
            origin, fused_plain, texts = check_side(root, gt, side, rp, sks, fmt_limit)
            graphs.setdefault(side, origin)
            if fused0 is None:
                fused0, texts0 = fused_plain, texts
                continue
            # the same model on every rank: the fused log differs only in
            # the logger prefix, the graphs only in deviceId
            if fused_plain != fused0:
                problem(where + ": fused log differs from rank 0's beyond the line prefixes")
            for key, text in texts.items():
                a, b = json.loads(text), json.loads(texts0[key])
                a["deviceId"] = b["deviceId"]
                if a != b:
                    problem("%s: %s differs from rank 0's beyond deviceId" % (where, key))
    if multi:
        check_ranks(root, gt)
    # Execution inputs: configs differ at exactly one pointer, the rest is identical.
    inp = {s: {k: json.load(open(os.path.join(root, gt["sides"][s]["inputs"][k])))
               for k in ("config", "control", "workload")} for s in ("o0", "disable_all")}
    diff = pointers(inp["o0"]["config"], inp["disable_all"]["config"])
    if diff != [gt["run"]["config_pointer"]]:
        problem("configs differ at %s" % diff)
    if inp["o0"]["control"] != inp["disable_all"]["control"] or inp["o0"]["workload"] != inp["disable_all"]["workload"]:
        problem("control or workload differ between the sides")
    if inp["o0"]["control"]["ASCEND_PROF_SK_ON"] != gt["run"]["ascend_prof_sk_on_kb"]:
        problem("control ASCEND_PROF_SK_ON differs from the ground truth")
    if inp["o0"]["control"]["rank_size"] != gt["run"].get("ranks", 1):
        problem("control rank_size differs from the ground truth")
    if inp["o0"]["workload"]["warmup"] != gt["run"]["warmup_launches"]:
        problem("workload warmup differs from the ground truth")
    control = inp["o0"]["control"]
    level = "Level0" if gt["run"].get("kernel_details_level", 1) == 0 else "Level1"
    if control["profiler"]["profiler_level"] != level or control["profiler"]["schedule"]["repeat"] != gt["run"].get("cycles", 1):
        problem("control profiler %s, want %s with repeat %d" % (control["profiler"], level, gt["run"].get("cycles", 1)))
    visible = gt["run"].get("visible_devices")
    if control.get("ASCEND_RT_VISIBLE_DEVICES") != (",".join(map(str, visible)) if visible else None):
        problem("control ASCEND_RT_VISIBLE_DEVICES %s, ground truth %s" % (control.get("ASCEND_RT_VISIBLE_DEVICES"), visible))
    if not multi:  # a one-device side holds exactly its files
        for side in ("o0", "disable_all"):
            sp = gt["sides"][side]
            exactly_files(root, side, set(sp["files"].values()) | set(sp.get("later_cycles_kernel_details", [])))
    odiff = pointers(graphs["o0"]["options"], graphs["disable_all"]["options"])
    want = ["/dcci_disable_on_kernel/value"] + (["/split_mode/value"] if gt["integrity"]["options_differ_beyond_dcci"] else [])
    if odiff != sorted(want):
        problem("graph options differ at %s" % odiff)


def main():
    failed = 0
    for root in sys.argv[1:]:
        del PROBLEMS[:]
        try:
            check_pair(root)
        except Exception as exc:  # a malformed file must fail the check, not crash it
            problem("%s: %s" % (type(exc).__name__, exc))
        if PROBLEMS:
            failed = 1
            for p in PROBLEMS[:40]:
                print("FAIL %s: %s" % (root, p))
        else:
            print("ok " + root)
    return failed


if __name__ == "__main__":
    sys.exit(main())
