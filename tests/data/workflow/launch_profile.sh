#!/usr/bin/env bash
# Test double of the diagnostic launcher of docs/workflow.md:
# launch_profile.sh CONFIG ROOT copies the skdcci_gen side chosen by the config
# (WF_RAW/o0 or WF_RAW/disable_all) into ROOT while it runs, so the files get
# fresh mtimes and ctimes inside the producer window, and names the SK
# metadata directory by its own pid, as the inference process writes
# sk_meta/<its pid>/.  (A copy with old times, as after the run, is refused
# by finalize: tests/scripts/contract_producer_window.sh.)
set -eu
config=$1 root=$2
if grep -q '"dcci_disable_on_kernel"' "$config"; then side=disable_all; else side=o0; fi
cp -R "${WF_RAW:?}/$side/." "$root/"
for d in "$root"/sk_meta/*/; do
    mv -T "${d%/}" "$root/sk_meta/$$"
done
