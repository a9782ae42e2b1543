#!/usr/bin/env bash
# sk-test: serial (real processes and short time bounds: runs alone, tests/run.sh)
# compile-lease with real processes: a program named opc started outside any
# run, one started inside `artifact_contract run`, and one started outside
# after the run began.  The preflight reports the first as pre_existing, the
# record-based check lists the inner one as own and the late one as foreign,
# compile-state lists the two outer ones as lease_blockers, and every opc is
# still alive and has no signal pending afterwards.
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/lib_run.sh"
wait_for() { for _ in $(seq 500); do [ -s "$1" ] && return 0; sleep 0.02; done; return 1; }
comm_of() { sed 's/^[0-9]* (\(.*\)) .*/\1/' "/proc/$1/stat" 2>/dev/null; }
# alive (not a zombie, not stopped) and no signal pending for it
untouched() {
    local st; st=$(sed 's/^.*) \(.\) .*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
    [ "$st" = S ] || [ "$st" = R ] || return 1
    ! grep -E '^(SigPnd|ShdPnd):' "/proc/$1/status" | grep -vq ':[[:space:]]*0*$'
}
json_has() { # FILE PYTHON-EXPR over d
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}
entry() { # FILE LIST PID -> "reason" of that pid in LIST, or "own"
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))
for e in d[sys.argv[2]]:
    if e["pid"] == int(sys.argv[3]): print(e.get("reason", "listed"), e["name"], e["argv"][0])' "$1" "$2" "$3"
}

mkdir bin && cp "$(command -v sleep)" bin/opc
OUTER_PID= LATE_PID= RUNNER=
cleanup() { # the test ends what it started itself
    for p in $OUTER_PID $LATE_PID; do kill "$p" 2>/dev/null; done
    [ -n "$RUNNER" ] && kill -TERM "$RUNNER" 2>/dev/null && wait "$RUNNER" 2>/dev/null
}
trap cleanup EXIT

bin/opc 300 &
OUTER_PID=$!
for _ in $(seq 100); do [ "$(comm_of "$OUTER_PID")" = opc ] && break; sleep 0.02; done
[ "$(comm_of "$OUTER_PID")" = opc ] && t_pass outer_comm_is_opc || t_fail outer_comm_is_opc "comm '$(comm_of "$OUTER_PID")'"

# 1. preflight: the outer opc blocks the lease
skdcci compile-lease >pre.json 2>pre.err; rc=$?
got=$(entry pre.json blockers "$OUTER_PID")
if [ "$rc" -eq 10 ] && [ "$got" = "pre_existing opc bin/opc" ] && grep -q "lease=blocked" pre.err &&
    json_has pre.json 'd["lease"] == "blocked" and d["mode"] == "preflight" and d["own"] == []'; then
    t_pass preflight_outer_is_pre_existing
else
    t_fail preflight_outer_is_pre_existing "exit $rc, entry '$got'" "$(cat pre.err)"
fi

# 2. a run that starts its own opc; then another opc starts outside it
make_session sk_on root s.json
"$SK_BUILD/bin/artifact_contract" run --session s.json --record-out rec.json -- \
    sh -c 'bin/opc 300 & echo $! > inner.pid; wait' >run.log 2>&1 &
RUNNER=$!
wait_for inner.pid && wait_for rec.json.started.json
INNER_PID=$(cat inner.pid)
for _ in $(seq 100); do [ "$(comm_of "$INNER_PID")" = opc ] && break; sleep 0.02; done
bin/opc 300 &
LATE_PID=$!
for _ in $(seq 100); do [ "$(comm_of "$LATE_PID")" = opc ] && break; sleep 0.02; done

skdcci compile-lease --record rec.json.started.json --json-out rec_lease.json 2>rec.err; rc=$?
own=$(entry rec_lease.json own "$INNER_PID")
outer=$(entry rec_lease.json blockers "$OUTER_PID")
late=$(entry rec_lease.json blockers "$LATE_PID")
if [ "$rc" -eq 10 ] && [ "$own" = "listed opc bin/opc" ] && [ "$outer" = "pre_existing opc bin/opc" ] &&
    [ "$late" = "foreign opc bin/opc" ] && json_has rec_lease.json 'd["mode"] == "record"'; then
    t_pass record_inner_own_outer_pre_existing_late_foreign
else
    t_fail record_inner_own_outer_pre_existing_late_foreign "exit $rc, own '$own', outer '$outer', late '$late'" "$(cat rec.err)"
fi
# --compiler replaces the defaults: nothing is named "no-such-compiler"
t_expect custom_pattern_replaces_defaults 0 "lease=free" \
    skdcci compile-lease --record rec.json.started.json --compiler '^no-such-compiler$'

# 3. compile-state lists the same blockers as information; its state is unchanged
skdcci compile-state --record rec.json >state.json 2>state.err; rc=$?
if [ "$rc" -eq 20 ] && json_has state.json \
    "sorted((e['pid'], e['reason']) for e in d['lease_blockers']) == sorted([($OUTER_PID, 'pre_existing'), ($LATE_PID, 'foreign')]) and d['compile_state'] == 'in_progress'"; then
    t_pass compile_state_lists_lease_blockers
else
    t_fail compile_state_lists_lease_blockers "exit $rc" "$(cat state.err)"
fi

# 4. nobody was signalled
for who in outer inner late; do
    case $who in outer) p=$OUTER_PID ;; inner) p=$INNER_PID ;; late) p=$LATE_PID ;; esac
    untouched "$p" && t_pass "${who}_opc_alive_and_unsignalled" || t_fail "${who}_opc_alive_and_unsignalled" "$(cat "/proc/$p/stat" 2>&1)"
done
