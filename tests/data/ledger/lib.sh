# Helpers of the ledger scripts (tests/scripts/stage_o_ledger.sh,
# ledger_faults.sh, family_workflow.sh) and of family_report_folders.sh,
# sourced after tests/lib.sh with E set to the Stage O directory (the
# ledger's directory; every input and run lies under it).
LEDGER_DATA=$SK_REPO/tests/data/ledger
export RANKS=2

# clean_run CONFIG ROOT N: one clean run recorded by artifact_contract run
clean_run() {
    local run=$2/run-$3
    mkdir -p "$run"
    cp "$1" "$run/config.json"
    artifact_contract run --purpose clean --config "$1" --timeout 600 --record-out "$run/run-record.json" \
        -- "$LEDGER_DATA/launch.sh" "$1" "$run" >/dev/null
}
# runs CONFIG ROOT FIRST LAST
runs() {
    local n
    for ((n = $3; n <= $4; n++)); do clean_run "$1" "$2" "$n" || return 1; done
}
# config NAME BASE [KEY=JSON...]: configs/NAME.json = configs/BASE.json with
# the members set in its super_kernel_optimize_options
config() {
    python3 - "$E/configs/$1.json" "$E/configs/$2.json" "${@:3}" <<'PY'
import json, sys
out, base = sys.argv[1], json.load(open(sys.argv[2]))
opts = base["model_config"]["custom_params"]["super_kernel_optimize_options"]
for kv in sys.argv[3:]:
    k, v = kv.split("=", 1)
    opts[k] = json.loads(v)
json.dump(base, open(out, "w"), indent=2)
PY
}
# ms NAME "T1 T2 ...": the decode time of each run of configs/NAME.json
ms() { echo "$2" >"$E/configs/$1.json.ms"; }

# write_matrix: $E/matrix.json, frozen, every item pending: O1 dcci,
# O2 auto_op_parallel 1, O3 aggressive {task 1, value 0}, O4 early_start 1;
# its probe report is $E/probe/environment.json
write_matrix() {
    python3 - "$E" <<'PY'
import hashlib, json, os, sys
e = sys.argv[1]
P = "/model_config/custom_params/super_kernel_optimize_options/"
sha = lambda p: hashlib.sha256(open(os.path.join(e, p), "rb").read()).hexdigest()
def item(i, cat, opt, value, risk="low"):
    return {"id": i, "category": cat, "risk": risk, "status": "pending", "option": opt,
            "value": value, "pointer": P + opt, "original_value": {"present": False},
            "probe": {"accepted": True, "matched_value": value}}
dcci = {"id": "O1", "category": "dcci", "risk": "medium", "status": "pending", "phase": "D1",
        "d1": {"option": "dcci_disable_on_kernel", "value": [".*"], "pointer": P + "dcci_disable_on_kernel",
               "original_value": {"present": False}, "probe": {"accepted": True, "matched_value": [".*"]},
               "outcome": "pending"}}
items = [dcci, item("O2", "auto_op_parallel", "auto_op_parallel", 1),
         item("O3", "aggressive", "aggressive_opt_strategies",
              {"task_breaker_bypass": 1, "value_breaker_bypass": 0}, "medium"),
         item("O4", "other_experimental", "early_start", 1, "medium")]
keys = ("id", "category", "risk", "option", "value", "pointer", "original_value")
plan = {"schema_version": "superkernel-winner-option-matrix-v1", "seed_id": "Sbest-SEED", "o0_id": "O0",
        "items": [{k: (it["d1"] if it["category"] == "dcci" and k in keys[3:] else it)[k] for k in keys}
                  for it in items]}
m = {"schema_version": "superkernel-winner-option-matrix-v1", "frozen_before_execution": True,
     "plan_fingerprint": hashlib.sha256(json.dumps(plan, sort_keys=True, separators=(",", ":"),
                                                   ensure_ascii=True).encode()).hexdigest(),
     "seed_id": "Sbest-SEED",
     "o0": {"id": "O0", "clean_root": "clean/O0", "run_count": 5, "stable": True, "spread_pct": 0.97},
     "probe_report": {"path": "probe/environment.json", "sha256": sha("probe/environment.json")},
     "settled": False, "items": items, "final_incumbent": None, "sbest_base_id": None}
json.dump(m, open(os.path.join(e, "matrix.json"), "w"), indent=2)
PY
}

# stage_o_start RAW: $E with the seed config (RAW's O0 config), the intake,
# a probe report, the matrix and O0's five clean runs
stage_o_start() {
    mkdir -p "$E/configs" "$E/intake" "$E/gates" "$E/probe"
    cp "$1/inputs/o0/config.json" "$E/configs/seed.json"
    cp "$1/inputs/disable_all/config.json" "$E/configs/disable-all.json"
    cp "$1/inputs/o0/workload.json" "$1/inputs/o0/control.json" "$E/intake/"
    ms seed "10.3 10.3 10.2 10.3 10.3"
    echo "budget and prerequisites of the Stage O items" >"$E/intake/budget.md"
    python3 - "$SK_REPO/tests/data/workflow/probe-report.json" "$E/probe/environment.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["runtime_environment"] = {"cann_home_candidates": ["/cann"], "cann_library_paths": ["/cann/lib64"],
                            "loaded": True}
json.dump(r, open(sys.argv[2], "w"), indent=2, sort_keys=True)
PY
    write_matrix && (cd "$E" && runs configs/seed.json clean/O0 1 5)
}

# expect NAME WANT_RC CMD...: one TAP line for the exit code; output in $OUT
OUT=${OUT:-$PWD/out}
expect() {
    local name=$1 want=$2 rc=0
    shift 2
    "$@" >"$OUT" 2>&1 || rc=$?
    if [ "$rc" = "$want" ]; then t_pass "$name"; else t_fail "$name" "exit $rc, want $want" "$(head -c 3000 "$OUT")"; fi
}
# has NAME PATTERN: the last output holds PATTERN (grep -E)
has() {
    if grep -qE -- "$2" "$OUT"; then t_pass "$1"; else t_fail "$1" "no '$2' in" "$(head -c 2000 "$OUT")"; fi
}
# same_bytes NAME FILE SAVED: FILE is byte-identical to SAVED
same_bytes() {
    if cmp -s "$2" "$3"; then t_pass "$1"; else t_fail "$1" "$2 changed"; fi
}
# json_is NAME FILE PYEXPR: PYEXPR (on the JSON document d of FILE) is true
json_is() {
    local err
    if err=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$2" "$3" 2>&1); then
        t_pass "$1"
    else
        t_fail "$1" "$2: not $3" "$(head -c 2000 <<<"$err")"
    fi
}
