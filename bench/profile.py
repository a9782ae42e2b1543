#!/usr/bin/env python3
"""Where the instructions of one `skdcci analyze` run go, from a callgrind
profile (bench/profile.sh runs it; docs/benchmarks.md "Where the time goes").

    bench/profile.py CALLGRIND_OUT [INPUT_BYTES SK_PROF_RECORDS]

Reads the call graph of the profile and splits the inclusive cost of each
part of the analysis into the project's own code, SHA-256 (libcrypto),
zstd decoding (libzstd) and the C library (copies, compares, formatting);
a callee's cost is shared among its callers as callgrind recorded it per
call.  Parts, by the functions that do them:

  sk_prof records      rd_prof_read_with without its callback: finding and
                       checking records, their fields, reading their bytes
  sk_prof aggregation  the callback (on_event), the finalisation of launches
  statistics           sorting and reducing the sample series
  kernel_details CSV   the CSV records, their rows, the sample rows
  metadata             fused logs, runtime logs, graphs
  contract             the sealed set: manifests, bindings, confirmation,
                       the files no parser reads (raw trace copies)
  reports              the JSON, Markdown and HTML reports
  rest                 start-up, gates, alignment, everything else

Callgrind runs OpenSSL's portable SHA-256 code, not the SHA-NI instructions
of the benchmark machines: the hashing column holds far more instructions
than its share of the time (docs/benchmarks.md gives the native split).
"""
import re
import sys

PARTS = [
    # (part, [entry functions]); earlier parts are subtracted from later
    # ones that contain them (aggregation and statistics from sk_prof)
    ("sk_prof aggregation", ["on_event", "finalize_upto", "end_of_file"]),
    ("statistics", ["series_stats", "dcci_samples_finish"]),
    ("sk_prof records", ["dcci_prof_run"]),
    ("kernel_details CSV", ["dcci_samples_load"]),
    ("metadata", ["dcci_meta_load"]),
    ("contract", ["dcci_contract_open", "dcci_contract_finish", "dcci_ranks_check_copies"]),
    ("reports", ["dcci_report_write"]),
]
KINDS = ("own", "hashing", "zstd", "libc")


def kind_of(obj):
    if "libcrypto" in obj:
        return "hashing"
    if "libzstd" in obj:
        return "zstd"
    if "libc.so" in obj or "ld-linux" in obj:
        return "libc"
    return "own"


def parse(path):
    """Functions as (object, name): self cost, and calls as (caller, callee,
    inclusive cost)."""
    names = {"ob": {}, "fn": {}}
    self_cost, arcs = {}, []
    ob = cob = fn = cfn = None
    pending_call = False
    total = 0
    ref = re.compile(r"^\((\d+)\)(?: (.*))?$")

    def name(kind, text):
        m = ref.match(text)
        if not m:
            return text
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
        return names[kind].get(m.group(1), text)

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line[0] == "#":
                continue
            if line.startswith("summary:"):
                total = int(line.split()[1])
                continue
            key, sep, rest = line.partition("=")
            if sep and key in ("ob", "cob", "fn", "cfn", "fl", "fi", "fe", "cfi", "cfl", "calls"):
                if key == "ob":
                    ob = name("ob", rest)
                elif key == "cob":
                    cob = name("ob", rest)
                elif key == "fn":
                    fn = (ob, name("fn", rest))
                    cob = None
                elif key == "cfn":
                    cfn = name("fn", rest)
                elif key == "calls":
                    pending_call = True
                continue
            if line[0] in "0123456789+-*":
                parts = line.split()
                if len(parts) < 2:
                    continue
                cost = int(parts[1])
                if pending_call:
                    arcs.append((fn, (cob if cob is not None else ob, cfn), cost))
                    pending_call = False
                    cob = None
                else:
                    self_cost[fn] = self_cost.get(fn, 0) + cost
    return self_cost, arcs, total


def inclusive(self_cost, arcs):
    """Inclusive cost of every function split by kind: {fn: {kind: cost}}."""
    out = {}
    by_caller = {}
    for caller, callee, cost in arcs:
        by_caller.setdefault(caller, []).append((callee, cost))
    incl_total = {}
    for fn, c in self_cost.items():
        incl_total[fn] = incl_total.get(fn, 0) + c
    for caller, callee, cost in arcs:
        if caller != callee:
            incl_total[caller] = incl_total.get(caller, 0) + cost
    on_stack = set()
    sys.setrecursionlimit(100000)

    def visit(fn):
        if fn in out:
            return out[fn]
        split = dict.fromkeys(KINDS, 0)
        split[kind_of(fn[0] or "")] += self_cost.get(fn, 0)
        on_stack.add(fn)
        for callee, cost in by_caller.get(fn, []):
            if callee == fn:
                continue
            if callee in on_stack:  # a cycle: its own kind
                split[kind_of(callee[0] or "")] += cost
                continue
            sub = visit(callee)
            t = sum(sub.values())
            for k in KINDS:
                split[k] += cost * sub[k] / t if t else 0
        on_stack.discard(fn)
        out[fn] = split
        return split

    for fn in list(incl_total):
        visit(fn)
    return out


def main():
    self_cost, arcs, total = parse(sys.argv[1])
    nbytes = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    records = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    incl = inclusive(self_cost, arcs)
    by_name = {}
    for (ob, name), split in incl.items():
        if "skdcci" in (ob or ""):
            by_name[name] = split

    def part_cost(fns):
        s = dict.fromkeys(KINDS, 0)
        for fn in fns:
            for k in KINDS:
                s[k] += by_name.get(fn, {}).get(k, 0)
        return s

    rows = []
    aggregation = part_cost(PARTS[0][1])
    statistics = part_cost(PARTS[1][1])
    prof = part_cost(PARTS[2][1])
    # (the split is proportional per call: a small difference may come out
    # a little below 0, shown as 0)
    prof = {k: max(0.0, prof[k] - aggregation[k] - part_cost(["series_stats"])[k]) for k in KINDS}
    rows.append(("sk_prof records", prof))
    rows.append(("sk_prof aggregation", aggregation))
    rows.append(("statistics", statistics))
    for part, fns in PARTS[3:]:
        rows.append((part, part_cost(fns)))
    all_kinds = dict.fromkeys(KINDS, 0)
    for fn, c in self_cost.items():
        all_kinds[kind_of(fn[0] or "")] += c
    rest = {k: all_kinds[k] - sum(r[1][k] for r in rows) for k in KINDS}
    rows.append(("rest (start-up, gates, alignment)", rest))
    rows.append(("total", all_kinds))
    print("| part | own code (M) | SHA-256 (M) | zstd (M) | C library (M) | own code per input "
          "byte | own code per sk_prof record |")
    print("|---|---|---|---|---|---|---|")
    for part, s in rows:
        own = s["own"]
        print("| %s | %.0f | %.0f | %.0f | %.0f | %s | %s |" % (
            part, own / 1e6, s["hashing"] / 1e6, s["zstd"] / 1e6, s["libc"] / 1e6,
            "%.2f" % (own / nbytes) if nbytes else "-",
            "%.0f" % (own / records) if records else "-"))
    if abs(sum(all_kinds.values()) - total) > total / 1000:
        print("\n(the call graph holds %d of the %d instructions of the run)"
              % (sum(all_kinds.values()), total))


if __name__ == "__main__":
    main()
