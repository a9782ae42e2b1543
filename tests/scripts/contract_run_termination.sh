# artifact_contract run: deadline, TERM -> grace -> KILL of the run's own
# process group only, forwarded interruptions (docs/artifact_contract_run.md).
# Every case uses --timeout 1 and short grace periods to stay under 2 s.
# sk-test: serial (real processes and short time bounds: runs alone, tests/run.sh)
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/lib_run.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }
SIGDFL="$SK_BUILD/tests/tools/sigdfl"
# Promptness is judged from the recorded monotonic times, which start at the
# fork: the runner's own start-up (slow under valgrind) does not count.

# --- a child ignoring SIGTERM (and its grandchild, which inherits that) is
#     killed after the grace period; nothing of the group survives
make_session dcci_o0 r1 s1.json
artifact_contract run --session s1.json --timeout 1 --grace 0.2 -- \
    sh -c 'trap "" TERM; sleep 9 & echo $! > gc1; sleep 9; exit 0'
rc=$?
[ "$rc" -eq 124 ] && t_pass timeout_status_124 || t_fail timeout_status_124 "rc=$rc"
! alive "$(cat gc1)" && t_pass timeout_kills_grandchild || t_fail timeout_kills_grandchild "grandchild $(cat gc1) alive"
rec_check timeout_term_ignored_record s1.producer.json '
t = r["termination"]
assert r["timed_out"] is True and t["reason"] == "timeout", t
assert t["signal"] == 15 and t["signal_name"] == "SIGTERM" and t["grace_ms"] == 200
assert t["pgid"] == r["process"]["pid"]
assert r["timeout_s"] == 1
assert r["deadline_monotonic_ns"] == r["started_monotonic_ns"] + 10**9
assert t["term_sent_monotonic_ns"] >= r["deadline_monotonic_ns"]
assert t["kill_sent_monotonic_ns"] is not None
assert 200 * 10**6 <= t["kill_sent_monotonic_ns"] - t["term_sent_monotonic_ns"] < 2 * 10**9
assert t["term_sent_monotonic_ns"] - r["deadline_monotonic_ns"] < 10**9, "deadline late"
assert r["ended_monotonic_ns"] - t["kill_sent_monotonic_ns"] < 2 * 10**9, "slow after KILL"
assert r["exit"] == {"kind": "signaled", "code": None, "signal": 9, "signal_name": "SIGKILL"}, r["exit"]
assert r["group_survivors"] == 0 and r["interruption"] is None
'

# --- a child that exits on SIGTERM: no SIGKILL, no waiting out the grace period
make_session dcci_o0 r2 s2.json
artifact_contract run --session s2.json --timeout 1 --grace 5 -- sleep 9
rc=$?
[ "$rc" -eq 124 ] && t_pass timeout_term_obeyed_status || t_fail timeout_term_obeyed_status "rc=$rc"
rec_check timeout_term_obeyed_record s2.producer.json '
t = r["termination"]
assert t["reason"] == "timeout" and t["kill_sent_monotonic_ns"] is None, t
assert t["grace_ms"] == 5000
assert r["ended_monotonic_ns"] - t["term_sent_monotonic_ns"] < 2 * 10**9, "waited out the grace"
assert r["exit"] == {"kind": "signaled", "code": None, "signal": 15, "signal_name": "SIGTERM"}
assert r["group_survivors"] == 0
'

# --- the leader exits on TERM but a grandchild in the group ignores it: the
#     runner waits for the group, not only the leader, and kills the rest
make_session dcci_o0 r3 s3.json
artifact_contract run --session s3.json --timeout 1 --grace 0.3 -- \
    sh -c '(trap "" TERM; sleep 9) & echo $! > gc3; sh -c "sleep 9" & echo $! > gc3b; wait'
rc=$?
[ "$rc" -eq 124 ] && ! alive "$(cat gc3)" && ! alive "$(cat gc3b)" && t_pass group_members_terminated \
    || t_fail group_members_terminated "rc=$rc gc=$(cat gc3) $(cat gc3b)"
rec_check group_members_terminated_record s3.producer.json '
t = r["termination"]
assert r["exit"]["kind"] == "signaled" and r["exit"]["signal"] == 15, r["exit"]
assert t["kill_sent_monotonic_ns"] is not None, "the TERM-ignoring grandchild needed SIGKILL"
assert t["kill_sent_monotonic_ns"] - t["term_sent_monotonic_ns"] >= 300 * 10**6
assert r["group_survivors"] == 0
'

# --- processes outside the group survive: one started before the run, and one
#     the command moved into its own session (it left the group)
make_session dcci_o0 r4 s4.json
sleep 9 & outsider=$!
artifact_contract run --session s4.json --timeout 1 --grace 0.2 -- \
    sh -c 'setsid sleep 9 & echo $! > escaped4; trap "" TERM; sleep 9'
rc=$?
escaped=$(cat escaped4)
if [ "$rc" -eq 124 ] && alive "$outsider" && alive "$escaped"; then t_pass outsiders_survive
else t_fail outsiders_survive "rc=$rc outsider alive? $(alive $outsider && echo y) escaped alive? $(alive $escaped && echo y)"; fi
kill "$outsider" "$escaped" 2>/dev/null
wait "$outsider" 2>/dev/null

# --- no timeout: a group member that outlives the leader is left alone and
#     recorded; a warning says so
make_session dcci_o0 r5 s5.json
artifact_contract run --session s5.json -- sh -c 'sleep 5 & echo $! > gc5; exit 0' 2>err5
rc=$?
gc=$(cat gc5)
alive "$gc" && [ "$rc" -eq 0 ] && grep -q "outlived it and were left running" err5 \
    && t_pass survivors_left_running || t_fail survivors_left_running "rc=$rc $(cat err5)"
rec_check survivors_recorded s5.producer.json '
assert r["group_survivors"] == 1, r["group_survivors"]
assert r["termination"] is None and r["exit"]["code"] == 0
'
kill "$gc" 2>/dev/null # the test's own leftover, by pid

# --- SIGTERM to the runner is forwarded to the group as an interruption; the
#     runner then ends by SIGTERM itself
make_session dcci_o0 r6 s6.json
"$SIGDFL" $SK_WRAP "$SK_BUILD/bin/artifact_contract" run --session s6.json --grace 0.5 -- \
    sh -c 'trap "exit 7" TERM; echo ready > ready6; while :; do sleep 0.05; done' &
runner=$!
# up to 20 s: the runner starts slowly under valgrind on a loaded machine
for _ in $(seq 1000); do [ -f ready6 ] && break; sleep 0.02; done
kill -TERM "$runner"
{ wait "$runner"; } 2>/dev/null; rc=$?
[ "$rc" -eq 143 ] && t_pass interrupted_runner_dies_by_signal || t_fail interrupted_runner_dies_by_signal "rc=$rc"
rec_check interruption_forwarded s6.producer.json '
i, t = r["interruption"], r["termination"]
assert i["signal"] == 15 and i["signal_name"] == "SIGTERM", i
assert t["reason"] == "interrupted" and t["signal"] == 15 and t["kill_sent_monotonic_ns"] is None, t
assert t["term_sent_monotonic_ns"] >= i["received_monotonic_ns"]
assert r["timed_out"] is False
assert r["exit"] == {"kind": "exited", "code": 7, "signal": None, "signal_name": None}, r["exit"]
'

# --- a second interruption does not wait for the grace period: SIGKILL now
make_session dcci_o0 r7 s7.json
"$SIGDFL" $SK_WRAP "$SK_BUILD/bin/artifact_contract" run --session s7.json --grace 60 -- \
    sh -c 'trap "" INT; echo ready > ready7; while :; do sleep 0.05; done' &
runner=$!
for _ in $(seq 1000); do [ -f ready7 ] && break; sleep 0.02; done
kill -INT "$runner"; sleep 0.2; kill -INT "$runner"
{ wait "$runner"; } 2>/dev/null; rc=$?
[ "$rc" -eq 130 ] && t_pass second_interrupt_kills || t_fail second_interrupt_kills "rc=$rc"
rec_check second_interrupt_record s7.producer.json '
t = r["termination"]
assert t["reason"] == "interrupted" and t["signal"] == 2 and t["grace_ms"] == 60000, t
assert t["kill_sent_monotonic_ns"] is not None
assert t["kill_sent_monotonic_ns"] - t["term_sent_monotonic_ns"] < 2 * 10**9, "waited for grace"
assert r["exit"]["signal"] == 9, r["exit"]
'

# --- a signal ignored when run started stays ignored (here: the SIGINT a
#     shell ignores for background jobs) and is neither forwarded nor recorded
make_session dcci_o0 r8 s8.json
artifact_contract run --session s8.json -- sh -c 'echo ready > ready8; sleep 0.4; exit 4' &
runner=$!
for _ in $(seq 1000); do [ -f ready8 ] && break; sleep 0.02; done
kill -INT "$runner"
{ wait "$runner"; } 2>/dev/null; rc=$?
[ "$rc" -eq 4 ] && t_pass ignored_interrupt_not_forwarded || t_fail ignored_interrupt_not_forwarded "rc=$rc"
rec_check ignored_interrupt_record s8.producer.json '
assert r["interruption"] is None and r["termination"] is None
assert r["exit"]["code"] == 4
'

# --- a stopped group still ends: SIGCONT follows SIGTERM
make_session dcci_o0 r9 s9.json
artifact_contract run --session s9.json --timeout 1 --grace 0.5 -- sh -c 'kill -STOP $$; exit 5'
rc=$?
[ "$rc" -eq 124 ] && t_pass stopped_child_terminated || t_fail stopped_child_terminated "rc=$rc"
rec_check stopped_child_record s9.producer.json '
assert r["exit"]["signal"] == 15 and r["termination"]["kill_sent_monotonic_ns"] is None, r
'
