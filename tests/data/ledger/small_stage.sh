# A small Stage O through the real `skdcci ledger` commands, for the tests of
# the commands that read a ledger (round report, phase check --ledger,
# handoff).  Source after tests/lib.sh with E set to an empty directory (the
# Stage O directory) and the skdcci and artifact_contract functions defined.
#
#   small_stage_o [UNTIL]
#
# Builds $E/ledger.jsonl with: init (O0, five clean runs of the seed
# config); O1 (the DCCI family) skipped with a Chinese reason; O2
# (auto_op_parallel 1) accepted on three runs, then topped up to five
# (the incumbent becomes O2); O3 (aggressive) a failed attempt with its
# failure scene; O4 (early_start 1) blocked: the operators lack the
# adaptation; O5 (an other_experimental option) rejected against O2; then
# the freeze (Sbest-BASE = O2).  UNTIL stops after the named step (init, o1,
# o2-trial, o2, o3, o4, o5); "all" (the default) freezes.  Returns non-zero,
# with the failing command's output on stderr, when a step does not do what
# it should.
source "$SK_REPO/tests/data/ledger/lib.sh"

# small_matrix: the matrix of write_matrix (tests/data/ledger/lib.sh) with a
# fifth item, O5 (other_experimental sk_launch_batch 2), and its plan
# fingerprint recomputed
small_matrix() {
    write_matrix || return 1
    python3 - "$E/matrix.json" <<'PY'
import hashlib, json, sys
m = json.load(open(sys.argv[1]))
o4 = m["items"][3]
o5 = dict(o4, id="O5", risk="low", option="sk_launch_batch", value=2,
          pointer=o4["pointer"].rsplit("/", 1)[0] + "/sk_launch_batch",
          probe={"accepted": True, "matched_value": 2})
m["items"].append(o5)
keys = ("id", "category", "risk", "option", "value", "pointer", "original_value")
plan = {"schema_version": m["schema_version"], "seed_id": m["seed_id"], "o0_id": m["o0"]["id"],
        "items": [{k: (it["d1"] if it["category"] == "dcci" and k in keys[3:] else it)[k] for k in keys}
                  for it in m["items"]]}
m["plan_fingerprint"] = hashlib.sha256(json.dumps(plan, sort_keys=True, separators=(",", ":"),
                                                  ensure_ascii=True).encode()).hexdigest()
json.dump(m, open(sys.argv[1], "w"), indent=2)
PY
}

small_stage_o() {
    local until=${1:-all} L=$E/ledger.jsonl
    _step() { # WANT_RC CMD...
        local want=$1 rc=0
        shift
        "$@" >"$E/.step.out" 2>&1 || rc=$?
        [ "$rc" = "$want" ] && return 0
        echo "small_stage_o: exit $rc, want $want: $*" >&2
        cat "$E/.step.out" >&2
        return 1
    }
    mkdir -p "$E/configs" "$E/intake" "$E/gates" "$E/probe" "$E/scenes" || return 1
    cat >"$E/configs/seed.json" <<'JSON'
{"model_config": {"custom_params": {"super_kernel_optimize_options": {},
                                    "super_kernel_debug_options": {}}},
 "scope": {"layers": [0, 1]}}
JSON
    echo "本轮预算只够三个普通条目。" >"$E/intake/budget.md"
    python3 - "$SK_REPO/tests/data/workflow/probe-report.json" "$E/probe/environment.json" <<'PY' || return 1
import json, sys
r = json.load(open(sys.argv[1]))
r["runtime_environment"] = {"cann_home_candidates": ["/cann"], "cann_library_paths": ["/cann/lib64"],
                            "loaded": True}
r["options"]["optimize_options"]["sk_launch_batch"] = {"accepted": True, "accepted_values": [1, 2],
                                                       "error": None, "rejected_values": []}
json.dump(r, open(sys.argv[2], "w"), indent=2, sort_keys=True)
PY
    small_matrix || return 1
    ms seed "10.3 10.3 10.2 10.3 10.3"
    (cd "$E" && runs configs/seed.json clean/O0 1 5) || return 1
    (
        cd "$E" || exit 1
        _step 0 skdcci ledger init --ledger "$L" --seed-config configs/seed.json --o0 clean/O0 \
            --matrix matrix.json --source-revision rev-1 --warmup 0 --expected-ranks 2 || exit 1
        [ "$until" = init ] && exit 0
        _step 0 skdcci ledger settle --ledger "$L" --item O1 --status skipped \
            --blocker budget_exhausted --reason-zh "本轮预算已用完，用户未要求继续 DCCI 家族。" \
            --evidence intake/budget.md || exit 1
        [ "$until" = o1 ] && exit 0
        config aop seed auto_op_parallel=1
        ms aop "10.1 10.12 10.1 10.11 10.1"
        runs configs/aop.json clean/O2 1 3 || exit 1
        _step 0 skdcci ledger trial --ledger "$L" --item O2 --config configs/aop.json \
            --runs clean/O2 --json-out gates/O2-a1-trial.json || exit 1
        [ "$until" = o2-trial ] && exit 0
        runs configs/aop.json clean/O2 4 5 || exit 1
        _step 0 skdcci ledger top-up --ledger "$L" --item O2 --runs clean/O2 \
            --json-out gates/O2-a1-top-up.json || exit 1
        [ "$until" = o2 ] && exit 0
        config o3 aop 'aggressive_opt_strategies={"task_breaker_bypass": 1, "value_breaker_bypass": 0}'
        python3 - "$SK_REPO/tests/cases/skdcci/scene_check_post_launch_valid/in/scene.json" \
            scenes/O3-a1.json <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
s["identity"]["attempt"] = "O3-a1"
json.dump(s, open(sys.argv[2], "w"), indent=2, ensure_ascii=False)
PY
        # the logs the scene lists as intact lie beside it
        cp -R "$SK_REPO/tests/cases/skdcci/scene_check_post_launch_valid/in/logs" scenes/ || exit 1
        _step 10 skdcci ledger trial --ledger "$L" --item O3 --config configs/o3.json \
            --scene scenes/O3-a1.json || exit 1
        [ "$until" = o3 ] && exit 0
        echo "算子没有 SetNextTaskStart/WaitPreTaskEnd 适配。" >intake/early-start.md
        _step 0 skdcci ledger settle --ledger "$L" --item O4 --status blocked \
            --blocker prerequisite_missing --reason-zh "算子侧缺少 SetNextTaskStart/WaitPreTaskEnd 适配，early_start 不能开启。" \
            --evidence intake/early-start.md || exit 1
        [ "$until" = o4 ] && exit 0
        config o5 aop sk_launch_batch=2
        ms o5 "10.4 10.45 10.4"
        runs configs/o5.json clean/O5 1 3 || exit 1
        _step 10 skdcci ledger trial --ledger "$L" --item O5 --config configs/o5.json \
            --runs clean/O5 --json-out gates/O5-a1-trial.json || exit 1
        [ "$until" = o5 ] && exit 0
        _step 0 skdcci ledger freeze --ledger "$L" || exit 1
    )
}

# small_stage_tap [UNTIL]: small_stage_o in $E (created), or one failing TAP
# line, stage_recorded, with its output; returns non-zero then.
small_stage_tap() {
    mkdir -p "$E" && small_stage_o "$@" 2>"$E.err" && return 0
    t_fail stage_recorded "$(head -c 3000 "$E.err")"
    return 1
}
