#!/usr/bin/env bash
# The work of `skdcci analyze` per input byte and per record, counted, never
# timed (docs/analyze.md §12): two sealed regression pairs whose inputs
# differ by a factor of about four are analysed with the test builds' work
# counters (SK_TEST_COUNTS, artifact_contract/base/sk_testhook.h) and the
# allocation count (SK_ALLOC_STATS).  What the larger pair adds must be:
#   - read once and SHA-256 hashed once: the added bytes read and hashed
#     equal the added input bytes (within a few bytes: the capture roots'
#     process ids differ in length);
#   - parsed by the sk_prof record fast path, laid out as the runtime writes
#     (no record by the general path, none but the closing {} of each trace
#     by the flat-object path), and by the CSV record fast path (no
#     kernel_details record by the general path);
#   - without an allocation per record (at most one per 20 added records; the
#     sample store and its series grow by doubling, a few hundred in all).
# A change that reads or hashes a file twice, falls off the fast path or
# allocates per value fails here on every machine, whatever its load.
source "$SK_REPO/tests/lib.sh"
GEN=$TOOLS/skdcci_gen
SEAL=$SK_REPO/tests/tools/seal_pair.sh

counts() { # PAIR NAME: analyses PAIR; NAME.counts holds the counters and "allocations N"
    rm -rf "$2.out"
    SK_ALLOC_STATS=$PWD/$2.allocs SK_TEST_COUNTS=$PWD/$2.counts \
        skdcci analyze -q "$1/o0" "$1/disable_all" -o "$2.out" >"$2.stdout" 2>"$2.stderr" ||
        return 1
    echo "allocations $(cat "$2.allocs")" >>"$2.counts"
    # every byte of both roots except the collection markers, which the
    # analysis does not read as inputs
    echo "input_bytes $(find "$1/o0" "$1/disable_all" -type f ! -name '.collection-session.json' \
        -printf '%s\n' | awk '{s += $1} END {print s}')" >>"$2.counts"
}

for scale in 1 4; do
    if ! "$GEN" --out "pair$scale" --scenario regression --scale "$scale" >/dev/null 2>gen.err ||
       ! "$SEAL" --artifact-contract "$SK_BUILD/bin/artifact_contract" "pair$scale" >/dev/null 2>gen.err; then
        t_fail "generate_scale_$scale" "$(cat gen.err)"
        exit 0
    fi
    if ! counts "pair$scale" "s$scale"; then
        t_fail "analyze_scale_$scale" "$(cat "s$scale.stderr")"
        exit 0
    fi
done

out=$(python3 - s1.counts s4.counts <<'PY'
import sys
def load(path):
    return {k: int(v) for k, v in (line.split() for line in open(path))}
a, b = load(sys.argv[1]), load(sys.argv[2])
need = ("sha256_bytes", "read_bytes", "sk_prof_layout_records", "sk_prof_object_records",
        "sk_prof_general_records", "csv_fast_records", "csv_general_records", "allocations",
        "input_bytes")
missing = [k for k in need if k not in a or k not in b]
if missing:
    print("counters missing (not a test build?): %s" % ", ".join(missing))
    sys.exit(1)
bad = []
added = b["input_bytes"] - a["input_bytes"]
records = b["sk_prof_layout_records"] - a["sk_prof_layout_records"]
if added < 1000000 or records < 5000:
    bad.append("the larger pair adds too little to measure: %d bytes, %d records" % (added, records))
for k in ("read_bytes", "sha256_bytes"):
    d = b[k] - a[k]
    if abs(d - added) > 64:
        bad.append("%s grew by %d for %d added input bytes (each byte once)" % (k, d, added))
for run in (a, b):
    if run["sk_prof_general_records"] != 0:
        bad.append("%d sk_prof records read by the general path" % run["sk_prof_general_records"])
    if run["sk_prof_object_records"] > 2:
        bad.append("%d sk_prof records read as flat objects, not as the runtime lays them out"
                   % run["sk_prof_object_records"])
    if run["csv_general_records"] != 0:
        bad.append("%d kernel_details records read by the general CSV path"
                   % run["csv_general_records"])
if b["csv_fast_records"] <= a["csv_fast_records"]:
    bad.append("no kernel_details record added by the CSV fast path")
grown = b["allocations"] - a["allocations"]
if grown * 20 > records:
    bad.append("%d more allocations for %d more records" % (grown, records))
print("%d added input bytes, %d added records, %d added allocations" % (added, records, grown))
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
)
if [ $? -eq 0 ]; then t_pass "work_per_byte_and_record ($out)"; else t_fail work_per_byte_and_record "$out"; fi
