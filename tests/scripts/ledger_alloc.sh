#!/usr/bin/env bash
# Allocation failures in the Stage O ledger commands (tests/alloc_sweep.sh):
# ledger init, a trial (gate, bindings, gate summary), settle, stop (the
# terminal record with Sbest-BASE) and the matrix
# fail their n-th allocation in turn.  A failing run must end cleanly:
# one stderr line, nothing on stdout, no file created and the ledger
# byte-identical (the sweep compares the content of every file).  Each run of
# an appending command starts from the same ledger (restored from a copy by
# the swept function).  The suite samples (SK_SWEEP_STRIDE, default 1000);
# `make check-alloc` runs every n under ASan+UBSan.
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/alloc_sweep.sh"
alloc_sweep_stride 1000
W=$PWD
E=$W/stage-o
L=$E/ledger.jsonl
OUT=$W/out
source "$SK_REPO/tests/data/ledger/lib.sh"
"$TOOLS/skdcci_gen" --out "$W/raw" --scenario regression >/dev/null 2>"$W/gen.err" ||
    { t_fail generate_pair "$(cat "$W/gen.err")"; exit 0; }
stage_o_start "$W/raw" 2>"$W/start.err" || { t_fail stage_o_inputs "$(cat "$W/start.err")"; exit 0; }
cd "$E"
ms disable-all "11.0 11.1 11.0"
runs configs/disable-all.json clean/O1-D1 1 3 || { t_fail d1_runs; exit 0; }

export SK_TEST_CLOCK_NS=1767607200000000000 # the record times of every run are equal
init() {
    skdcci ledger init --ledger new.jsonl --seed-config configs/seed.json --o0 clean/O0 \
        --matrix matrix.json --source-revision rev-1 --workload intake/workload.json \
        --control intake/control.json --warmup 0 --expected-ranks 2
}
alloc_sweep ledger_init init

init >/dev/null && mv new.jsonl ledger.jsonl && cp ledger.jsonl "$W/ledger.base"
trial() {
    cp "$W/ledger.base" ledger.jsonl
    skdcci ledger trial --ledger ledger.jsonl --item O1 --config configs/disable-all.json \
        --runs clean/O1-D1 --json-out gates/d1.json
}
alloc_sweep ledger_trial trial
cp "$W/ledger.base" ledger.jsonl

settle() {
    cp "$W/ledger.base" ledger.jsonl
    skdcci ledger settle --ledger ledger.jsonl --item O4 --status blocked \
        --blocker prerequisite_missing --reason-zh "算子侧没有适配。" --evidence intake/budget.md
}
alloc_sweep ledger_settle settle

cp "$W/ledger.base" ledger.jsonl
stop() {
    cp "$W/ledger.base" ledger.jsonl
    skdcci ledger stop --ledger ledger.jsonl --status blocked --blocker environment_unavailable \
        --reason-zh "机房断电，NPU 不可用。" --evidence intake/budget.md
}
alloc_sweep ledger_stop stop

cp "$W/ledger.base" ledger.jsonl
matrix() { skdcci ledger matrix --ledger ledger.jsonl -o matrix-out.json; }
alloc_sweep ledger_matrix matrix
