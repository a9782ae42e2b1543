#!/usr/bin/env bash
# Test double of the user's clean launcher for the ledger tests:
# launch.sh CONFIG RUN_DIR writes RANKS rank logs of three decode samples
# each; the time of run-N is the N-th word of CONFIG.ms.  It writes the
# run's correctness result as docs/stage-o.md section 10 asks: passed, or,
# for the run numbered LAUNCH_FAIL_RUN, failed after inference (logs written,
# exit 1).
set -eu
config=$1 dir=$2 n=${2##*/run-}
read -r -a ms <"$config.ms"
v=${ms[n - 1]:?no time for run $n}
for ((r = 0; r < ${RANKS:?}; r++)); do
    for i in 1 2 3; do echo "step=$i Inference time (decode): $v ms"; done >"$dir/log_$r.log"
done
passed=true
[ "${LAUNCH_FAIL_RUN:-}" = "$n" ] && passed=false
printf '{"schema_version":"skdcci-correctness-1","passed":%s,"compared":"tokens","tool":"launch.sh"}\n' \
    "$passed" >"$dir/correctness.json"
[ "$passed" = true ]
