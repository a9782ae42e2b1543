# finalize --producer-record: the producer comes from the final record of
# `artifact_contract run`, and every listed artifact's mtime and ctime must lie
# in the run's window (docs/artifact_contract.md, "Producer window").
# sk-test: serial (real processes and short time bounds: runs alone, tests/run.sh)
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/contract_lib.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }

ac_dcci_inputs "$S/in_o0" "$S/in_da"
ac_inputs
DCCI_FILES="kernel_details sk_prof sk_graph_origin sk_graph_updated sk_fused_nodes super_kernel"

# begin ROLE NAME; the producer writes the DCCI files (or FILES) into the root
begin_root() { artifact_contract begin --role "$1" --root "$S/$2" --session-out "$S/$2.session.json" >/dev/null; }
produce() { # NAME [CMD...]  default producer: write every DCCI file
    local name=$1; shift
    if [ $# -eq 0 ]; then
        set -- bash -c 'mkdir -p "$1/artifacts" && for f in $2; do echo "$f" >"$1/artifacts/$f.dat"; done' _ "$S/$name" "$DCCI_FILES"
    fi
    artifact_contract run --session "$S/$name.session.json" -- "$@"
}
finalize_rec() { # NAME ROLE [extra args]
    local name=$1 role=$2; shift 2
    local args=(--session "$S/$name.session.json" --source-revision r --producer-record "$S/$name.session.producer.json"
        --workload "$S/in_o0/workload.json" --config "$S/in_o0/config.json" --control "$S/in_o0/control.json"
        --out "$S/$name/m.json")
    local f
    for f in $DCCI_FILES; do args+=(--file "$f=artifacts/$f.dat"); done
    [[ $role == dcci_* ]] && args+=(--round-id "S5-$name")
    artifact_contract finalize "${args[@]}" "$@"
}

# the normal case: producer values taken from the record, window recorded
begin_root dcci_o0 ok
produce ok
t_ok record_finalize finalize_rec ok dcci_o0
t_ok record_values_in_manifest python3 - "$S/ok/m.json" "$S/ok.session.producer.json" <<'PY'
import hashlib, json, sys
m, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p = m["producer"]
assert p["native_pid"] == r["process"]["pid"] and p["started_ns"] == r["started_realtime_ns"]
assert p["ended_ns"] == r["ended_realtime_ns"] and p["command_fingerprint"] == r["command_fingerprint"]
ev = m["producer_evidence"]
assert ev["record_sha256"] == hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
assert 1000000 <= ev["window_tolerance_ns"] <= 100000000, ev
PY
t_ok record_manifest_validates artifact_contract validate --manifest "$S/ok/m.json"

# validation re-checks the window from the recorded times
cp -p "$S/ok/m.json" "$S/ok-m.bak"
ac_rewrite_manifest "$S/ok/m.json" "m['files']['sk_prof'][0]['mtime_ns'] = m['producer']['started_ns'] - 10**9"
t_expect record_window_rechecked_on_validate 2 "artifact was not written during the producer run: artifacts/sk_prof.dat" \
    artifact_contract validate --manifest "$S/ok/m.json"
cp -p "$S/ok-m.bak" "$S/ok/m.json"

# a file copied in after the producer ended
begin_root dcci_o0 late
produce late
sleep 0.1
echo copied >"$S/late/artifacts/late-copy.dat"
mv -f "$S/late/artifacts/late-copy.dat" "$S/late/artifacts/super_kernel.dat"
t_expect record_copied_after_run 2 "artifact was not written during the producer run: artifacts/super_kernel.dat" \
    ac_guard finalize_rec late dcci_o0

# a file whose old mtime was kept (cp -p / rsync -t) inside the run
begin_root dcci_o0 oldmtime
produce oldmtime bash -c 'mkdir -p "$1/artifacts" && for f in $2; do echo "$f" >"$1/artifacts/$f.dat"; done && touch -m -d "2001-01-01" "$1/artifacts/sk_prof.dat"' _ "$S/oldmtime" "$DCCI_FILES"
t_expect record_old_mtime 2 "artifact was not written during the producer run: artifacts/sk_prof.dat" \
    ac_guard finalize_rec oldmtime dcci_o0

# the record must be this session's finished, successful run
begin_root dcci_o0 other
produce other
cp "$S/ok.session.producer.json" "$S/foreign.producer.json"
t_expect record_of_other_session 2 "producer record belongs to another collection session" \
    ac_guard finalize_rec other dcci_o0 --producer-record "$S/foreign.producer.json"
t_expect record_started_only 2 "producer record is the started record of a run" \
    ac_guard finalize_rec other dcci_o0 --producer-record "$S/other.session.producer.json.started.json"
# a clean run's record (run --purpose, no session) produced no capture root
mkdir -p "$S/CLEAN/run-1" && echo '{}' >"$S/clean.cfg.json"
artifact_contract run --purpose clean --config "$S/clean.cfg.json" \
    --record-out "$S/CLEAN/run-1/run-record.json" -- true
t_expect record_of_clean_run 2 "producer record belongs to another collection session" \
    ac_guard finalize_rec other dcci_o0 --producer-record "$S/CLEAN/run-1/run-record.json"
begin_root dcci_o0 failed
produce failed bash -c 'mkdir -p "$1/artifacts" && for f in $2; do echo "$f" >"$1/artifacts/$f.dat"; done; exit 3' _ "$S/failed" "$DCCI_FILES"
t_expect record_failed_run 2 "producer run did not succeed: it exited with status 3" ac_guard finalize_rec failed dcci_o0
t_expect record_and_values_together 2 "--producer-record replaces --native-pid" \
    first_line ac_guard finalize_rec other dcci_o0 --native-pid 5

# a 1.0 role can use a record too (the window is checked at finalize)
begin_root baseline_profile base
produce base bash -c 'mkdir -p "$1/artifacts" && for f in kernel_details task_time trace_view; do echo "$f" >"$1/artifacts/$f.dat"; done' _ "$S/base"
t_ok record_with_1_0_role artifact_contract finalize --session "$S/base.session.json" --source-revision r \
    --producer-record "$S/base.session.producer.json" --workload "$S/inputs/workload.json" --config "$S/inputs/config.json" \
    --control "$S/inputs/control.json" --file kernel_details=artifacts/kernel_details.dat \
    --file task_time=artifacts/task_time.dat --file trace_view=artifacts/trace_view.dat --out "$S/base/m.json"
