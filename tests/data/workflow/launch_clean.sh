#!/usr/bin/env bash
# Test double of the clean launcher of docs/workflow.md: launch_clean.sh CONFIG RUN_DIR
# writes RANKS rank logs with three decode samples each.  The time of run-N
# is the N-th word of WF_O0_MS, WF_DA_MS or WF_REPAIR_MS, chosen by the DCCI
# options the config sets.  It writes RUN_DIR/correctness.json; WF_FAIL_CONFIG
# names a config whose process fails before inference (correctness failed,
# exit 1, no logs) and WF_FAIL_RUN a run number whose correctness check fails
# after inference (logs written, exit 1).
set -eu
config=$1 dir=$2 n=${2##*/run-}
correctness() { # PASSED
    printf '{"schema_version":"skdcci-correctness-1","passed":%s,"compared":"%s","tool":"launch_clean.sh"}\n' \
        "$1" "generated tokens against the golden output" >"$dir/correctness.json"
}
if [ "${WF_FAIL_CONFIG:-}" = "$config" ]; then
    correctness false
    echo "launch_clean.sh: correctness check failed for $config" >&2
    exit 1
fi
if grep -q '"dcci_before_kernel_start"' "$config"; then times=${WF_REPAIR_MS:?}
elif grep -q '"dcci_disable_on_kernel"' "$config"; then times=${WF_DA_MS:?}
else times=${WF_O0_MS:?}; fi
read -r -a ms <<<"$times"
v=${ms[n - 1]:?no time for run $n}
for ((r = 0; r < ${RANKS:?}; r++)); do
    {
        echo "2026-01-05 10:00:00 INFO [rank $r] model loaded, correctness passed"
        for i in 1 2 3; do echo "2026-01-05 10:00:0$i INFO step=$i Inference time (decode): $v ms"; done
    } >"$dir/log_$r.log"
done
if [ "${WF_FAIL_RUN:-}" = "$n" ]; then
    correctness false
    echo "launch_clean.sh: correctness check failed in run $n" >&2
    exit 1
fi
correctness true
