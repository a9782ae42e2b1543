#!/usr/bin/env bash
# Allocation failures in the commands that read a Stage O ledger
# (tests/alloc_sweep.sh): round report, handoff seal, handoff verify with
# --against-config, and phase check with its Stage O plan fail their n-th
# allocation in turn, on a small Stage O recorded with the real ledger
# commands (tests/data/ledger/small_stage.sh).  A failing run must end
# cleanly (one stderr line, nothing on stdout, no file created) or give the
# reference result.  The suite samples (SK_SWEEP_STRIDE, default 1000);
# `make check-alloc` runs every n under ASan+UBSan.
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/alloc_sweep.sh"
alloc_sweep_stride 1000
W=$PWD
E=$W/stage
source "$SK_REPO/tests/data/ledger/small_stage.sh"
small_stage_tap || exit 0
L=$E/ledger.jsonl
python3 - "$E/configs/aop.json" "$E/configs/p-changed.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["model_config"]["custom_params"]["super_kernel_optimize_options"]["auto_op_parallel"] = 0
json.dump(c, open(sys.argv[2], "w"), indent=2)
PY
skdcci handoff seal --ledger "$L" -o "$E/handoff/sealed" >/dev/null 2>"$W/seal.err" ||
    t_fail handoff_sealed "$(cat "$W/seal.err")"
C="python3 $SK_REPO/tests/data/phase/controller.py"
$C skills "$W/skills"
$C fresh "$W/session" S1 succeeded succeeded accepted

# the swept commands write below $E/sweep (the sweep's directory)
mkdir -p "$E/sweep" && cd "$E/sweep" || exit 0
alloc_sweep round_report_alloc skdcci round report --ledger "$L" --item O2 -o out
alloc_sweep handoff_seal_alloc skdcci handoff seal --ledger "$L" -o out
alloc_sweep handoff_verify_alloc skdcci handoff verify "$E/handoff/sealed" \
    --against-config "$E/configs/p-changed.json"
alloc_sweep phase_check_plan_alloc skdcci phase check \
    --manifest "$W/skills/superkernel-stage-o-option-tuning/phase.json" \
    --task "$W/session/task.json" --session "$W/session/session.json" --ledger "$L"
