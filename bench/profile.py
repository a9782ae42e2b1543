#!/usr/bin/env python3
"""Where the instructions of one `skdcci analyze` run go, from a callgrind
profile (bench/profile.sh runs it; docs/benchmarks.md "Where the time goes").

    bench/profile.py CALLGRIND_OUT [INPUT_BYTES SK_PROF_RECORDS]

Prints a markdown table of instruction counts (millions) by part of the
work, per input byte and per sk_prof record when the sizes are given.  Each
part is the inclusive cost of the functions that do it, less the parts they
call (an inclusive cost split by caller where one function serves several):

  hashing          SHA-256 of every input byte (callgrind runs OpenSSL's
                   portable code, not the SHA-NI instructions of the
                   benchmark machines: far more instructions than time)
  zstd decoding    libzstd
  reading          the byte sources' user-space side: read calls, copies
                   (the kernel's side is not counted)
  sk_prof records  finding and checking each record and its fields
  sk_prof aggregation   launches, children, attribution, finalisation
  kernel_details CSV    CSV records and rows, sample rows
  metadata         fused logs, runtime logs, graphs (their bytes' reading
                   is counted under reading)
  statistics       sorting and reducing the samples
  reports          the JSON, Markdown and HTML reports
  contract         the sealed set: manifests, bindings, confirmation
                   (its hashing is counted under hashing)
  rest             start-up, gates, alignment, everything else
"""
import os
import re
import subprocess
import sys


def profile(path):
    """{"file:function": (inclusive, {"file:caller": inclusive via it})}."""
    out = subprocess.run(
        ["callgrind_annotate", "--tree=caller", "--inclusive=yes", "--threshold=100", path],
        check=True, capture_output=True, text=True).stdout
    line_re = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+([<*])\s+(\S+?)(?: \(([\d,]+)x\))?(?: \[.*\])?\s*$")
    funcs, callers = {}, {}
    for line in out.splitlines():
        m = line_re.match(line)
        if not m:
            if not line.strip():
                callers = {}
            continue
        cost, kind, where = int(m.group(1).replace(",", "")), m.group(2), m.group(3)
        file, _, fn = where.rpartition(":")
        key = "%s:%s" % (os.path.basename(file), fn)
        if kind == "<":
            callers[key] = callers.get(key, 0) + cost
        else:
            # a function may be listed more than once (callgrind's cycle
            # handling): the entry with every caller has the largest cost
            if cost > funcs.get(key, (-1, {}))[0]:
                funcs[key] = (cost, callers)
            callers = {}
    return funcs


def main():
    funcs = profile(sys.argv[1])
    nbytes = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    records = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    total = int(re.search(r"^summary: (\d+)", open(sys.argv[1]).read(), re.M).group(1))

    def incl(key):
        return funcs.get(key, (0, {}))[0]

    def via(key, caller):
        return funcs.get(key, (0, {}))[1].get(caller, 0)

    hashing = incl("sk_sha256.c:sk_sha256_update")
    zstd = incl("???:ZSTD_decompressStream")
    source = incl("rd_source.c:rd_source_read")
    # the byte sources' calls from each reader (sealed: the contract's
    # reader hashes, so a source call holds reading, hashing and decoding)
    src_json = via("rd_source.c:rd_source_read", "sk_json_lex.c:fill")
    src_prof = via("sk_json_lex.c:fill", "sk_json_lex.c:sk_json_lex_peek_element")
    src_csv = via("rd_source.c:rd_source_read", "rd_csv.c:fill")
    src_drain = via("rd_source.c:rd_source_read", "rd_source.c:rd_source_finish")
    src_meta = source - src_json - src_csv - src_drain + (src_json - src_prof)
    reading = source - zstd - via("sk_sha256.c:sk_sha256_update", "ac_set.c:ac_set_reader_read") - \
        via("sk_sha256.c:sk_sha256_update", "rd_source.c:raw_fill")
    on_event = incl("dcci_prof.c:on_event")
    prof_read = incl("rd_prof.c:rd_prof_read_with")
    series = incl("dcci_prof.c:series_stats")
    rows = [
        ("hashing (SHA-256; portable code under callgrind)", hashing),
        ("zstd decoding", zstd),
        ("reading (user side: read calls, copies)", reading),
        ("sk_prof records", prof_read - on_event - src_prof),
        ("sk_prof aggregation", incl("dcci_prof.c:dcci_prof_run") - prof_read + on_event - series -
         src_drain),
        ("kernel_details CSV", incl("dcci_samples.c:dcci_samples_load") - src_csv),
        ("metadata (logs, graphs)", incl("dcci_meta.c:dcci_meta_load") - src_meta),
        ("statistics", series + incl("dcci_samples.c:dcci_samples_finish")),
        ("reports", incl("dcci_report_json.c:dcci_report_write")),
        ("contract (manifests, bindings, confirmation)",
         incl("dcci_contract.c:dcci_contract_open") + incl("dcci_contract.c:dcci_contract_finish") -
         incl("dcci_contract.c:confirm_unread")),
    ]
    rest = total - sum(v for _, v in rows)
    rows.append(("rest (start-up, gates, alignment, progress)", rest))
    print("| part | instructions (M) | share | per input byte | per sk_prof record |")
    print("|---|---|---|---|---|")
    for name, v in rows + [("total", total)]:
        per_b = "%.2f" % (v / nbytes) if nbytes else "-"
        per_r = "%.0f" % (v / records) if records else "-"
        print("| %s | %.0f | %.1f %% | %s | %s |" % (name, v / 1e6, 100.0 * v / total, per_b, per_r))
    spill = incl("sk_spill.c:sk_series_push") + incl("sk_spill.c:sk_series_load")
    print()
    print("Sample storage (the spill store, inside aggregation, CSV and statistics): %.0f M "
          "instructions." % (spill / 1e6))


if __name__ == "__main__":
    main()
