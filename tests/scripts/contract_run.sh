# artifact_contract run: records, exit statuses, ownership facts, redaction and
# the command fingerprint (docs/artifact_contract_run.md).
# sk-test: serial (real processes and short time bounds: runs alone, tests/run.sh)
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/lib_run.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }

# --- normal exit 0: both records, consistent, nothing else recorded
make_session dcci_o0 r1 s1.json
artifact_contract run --session s1.json -- true
rc=$?
[ "$rc" -eq 0 ] && t_pass exit_zero_status || t_fail exit_zero_status "rc=$rc"
rec_check exit_zero_records s1.producer.json '
assert r["state"] == "finished" and s["state"] == "started"
assert r["schema_version"] == "skdcci-producer-run-2"
assert r["run_directory"]["path"] == os.path.realpath(".") and r["config"] is None
assert r["attempt"] is None and r["observed_members_truncated"] is False
assert [m["pid"] for m in r["observed_members"]] == [r["process"]["pid"]]
assert r["exit"] == {"kind": "exited", "code": 0, "signal": None, "signal_name": None}, r["exit"]
assert r["timed_out"] is False and r["termination"] is None and r["interruption"] is None
assert r["group_survivors"] == 0
assert r["timeout_s"] is None and r["deadline_monotonic_ns"] is None
assert r["capture_role"] == "dcci_o0" and r["capture_root"] == os.path.realpath("r1")
assert r["session_fingerprint"] == json.load(open("s1.json"))["session_fingerprint"]
assert r["started_realtime_ns"] <= r["ended_realtime_ns"]
assert r["started_monotonic_ns"] <= r["ended_monotonic_ns"]
assert r["command"]["argv"] == ["true"]
p = r["process"]
assert p["pid"] == p["pgid"] == p["sid"] and p["pid"] > 1
assert p["boot_id"] == open("/proc/sys/kernel/random/boot_id").read().strip()
assert p["clock_ticks_per_second"] == os.sysconf("SC_CLK_TCK")
assert r["runner"]["pid"] != p["pid"]
assert r["runner"]["start_time_ticks"] <= p["start_time_ticks"]
'
[ "$(ls r1 | wc -l)" -eq 0 ] && [ -f r1/.collection-session.json ] && t_pass records_outside_root \
    || t_fail records_outside_root "$(ls -a r1)"

# --- non-zero exit: the child's status is the runner's status
make_session dcci_o0 r2 s2.json
artifact_contract run --session s2.json -- sh -c 'exit 3'
rc=$?
[ "$rc" -eq 3 ] && t_pass exit_nonzero_status || t_fail exit_nonzero_status "rc=$rc"
rec_check exit_nonzero_record s2.producer.json '
assert r["exit"] == {"kind": "exited", "code": 3, "signal": None, "signal_name": None}, r["exit"]
assert r["termination"] is None and r["timed_out"] is False
'

# --- killed by a signal the runner did not send: 128+N, recorded as signaled
make_session dcci_o0 r3 s3.json
artifact_contract run --session s3.json -- sh -c 'kill -USR1 $$; sleep 1'
rc=$?
[ "$rc" -eq 138 ] && t_pass signaled_status_128_plus_n || t_fail signaled_status_128_plus_n "rc=$rc"
rec_check signaled_record s3.producer.json '
import signal
assert r["exit"] == {"kind": "signaled", "code": None, "signal": int(signal.SIGUSR1),
                     "signal_name": "SIGUSR1"}, r["exit"]
assert r["termination"] is None and r["timed_out"] is False
'

# --- the started record exists before the command runs, the final one does not;
#     pid, pgid, sid and start time agree with what the child sees in /proc
make_session dcci_o0 r4 s4.json
artifact_contract run --session s4.json -- sh -c '
test -f s4.producer.json.started.json && echo started-present > seen
test -e s4.producer.json || echo final-absent >> seen
echo "$$ $PPID" > ids
cat /proc/$$/stat > stat'
rc=$?
[ "$rc" -eq 0 ] && grep -q started-present seen && grep -q final-absent seen \
    && t_pass started_record_exists_before_command || t_fail started_record_exists_before_command "rc=$rc $(cat seen 2>&1)"
rec_check started_record_matches_proc s4.producer.json '
pid, ppid = map(int, open("ids").read().split())
stat = open("stat").read()
fields = stat[stat.rindex(")") + 2:].split()
assert s["process"]["pid"] == pid, (s["process"], pid)
assert s["process"]["pgid"] == int(fields[2]) == pid
assert s["process"]["sid"] == int(fields[3]) == pid
assert s["process"]["start_time_ticks"] == int(fields[19]), (s["process"], fields[19])
assert s["runner"]["pid"] == ppid
assert s["state"] == "started" and "exit" not in s
'

# --- neither record is ever overwritten; the command does not run
make_session dcci_o0 r5 s5.json
artifact_contract run --session s5.json -- true
before=$(sha256sum s5.producer.json s5.producer.json.started.json)
t_expect refuses_existing_records 2 "output already exists: $(pwd -P)/s5.producer.json" \
    artifact_contract run --session s5.json -- touch ran5
after=$(sha256sum s5.producer.json s5.producer.json.started.json)
[ "$before" = "$after" ] && [ ! -e ran5 ] && t_pass existing_records_untouched \
    || t_fail existing_records_untouched "records changed or the command ran"
rm s5.producer.json
t_expect refuses_existing_started_record 2 "output already exists: $(pwd -P)/s5.producer.json.started.json" \
    artifact_contract run --session s5.json -- touch ran5
[ ! -e ran5 ] && [ ! -e s5.producer.json ] && t_pass started_only_not_overwritten \
    || t_fail started_only_not_overwritten "the command ran or a record appeared"

# --- --record-out chooses the path; the started record sits next to it
make_session dcci_o0 r6 s6.json
mkdir out6
artifact_contract run --session s6.json --record-out out6/p.json -- true
[ -f out6/p.json ] && [ -f out6/p.json.started.json ] && [ ! -e s6.producer.json ] \
    && t_pass record_out_path || t_fail record_out_path "$(ls out6)"

# --- secrets: names kept, values never written anywhere
make_session dcci_o0 r7 s7.json
printf sk-verysecret > want7
MY_API_KEY=sk-verysecret DB_Password=hunter2 SESSION_COOKIE=c00kie PLAIN_VAR=visible \
    artifact_contract run --session s7.json -- sh -c 'test "$MY_API_KEY" = "$(cat want7)"'
rc=$?
[ "$rc" -eq 0 ] && t_pass child_gets_real_secret || t_fail child_gets_real_secret "rc=$rc"
rec_check secrets_redacted s7.producer.json '
env = r["command"]["environment"]
assert env["MY_API_KEY"] == "<redacted>" and env["DB_Password"] == "<redacted>"
assert env["SESSION_COOKIE"] == "<redacted>" and env["PLAIN_VAR"] == "visible"
for raw in (raw_r, raw_s):
    for secret in (b"sk-verysecret", b"hunter2", b"c00kie"):
        assert secret not in raw
'

# --- the command fingerprint equals Python's over an independently built
#     command object: argv as given, physical cwd, the exact environment
#     (run without the valgrind wrapper, which edits the environment)
make_session dcci_o0 r8 s8.json
mkdir -p real8 && ln -s real8 link8
(cd link8 && env -i PATH=/usr/bin:/bin GH_TOKEN=ghp_x LANG=C.UTF-8 \
    "X_UNI=é中😀" "SPACE VAR=a b" \
    "$SK_BUILD/bin/artifact_contract" run --session ../s8.json --record-out ../p8.json -- \
    sh -c 'exit 0' 'arg "two"' '')
rc=$?
[ "$rc" -eq 0 ] && t_pass fingerprint_run || t_fail fingerprint_run "rc=$rc"
rec_check fingerprint_equals_python p8.json '
command = {
    "argv": ["sh", "-c", "exit 0", "arg \"two\"", ""],
    "cwd": os.path.realpath("real8"),
    "environment": {"PATH": "/usr/bin:/bin", "GH_TOKEN": "<redacted>", "LANG": "C.UTF-8",
                    "X_UNI": "\u00e9\u4e2d\U0001F600", "SPACE VAR": "a b"},
}
text = json.dumps(command, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
assert r["command"] == command, r["command"]
assert r["command_fingerprint"] == hashlib.sha256(text.encode()).hexdigest()
'

# --- stdin is /dev/null even when the runner reads from a pipe; stdout and
#     stderr are the runner's
make_session dcci_o0 r9 s9.json
echo "data for nobody" | artifact_contract run --session s9.json -- sh -c 'cat > got9; echo to-out; echo to-err >&2' >out9 2>err9
[ ! -s got9 ] && [ "$(cat out9)" = to-out ] && [ "$(cat err9)" = to-err ] \
    && t_pass stdio_inheritance || t_fail stdio_inheritance "got9=$(cat got9) out=$(cat out9) err=$(cat err9)"

# --- the command runs in its own session: no controlling terminal, pgid = sid = pid
make_session dcci_o0 r10 s10.json
artifact_contract run --session s10.json -- sh -c 'ps -o pid=,pgid=,sid= -p $$ > ids10 2>/dev/null || echo "$$ $$ $$" > ids10'
rec_check own_session_and_group s10.producer.json '
pid, pgid, sid = map(int, open("ids10").read().split())
assert pid == pgid == sid == r["process"]["pid"]
'

# --- a run without a capture session (--purpose clean|compile-health): the
#     same two records, "purpose" instead of the session keys, no begin needed
mkdir -p clean11/run-1
echo '{"model": 1}' >cfg11.json
ASCEND_PROF_SK_ON=0 artifact_contract run --purpose clean --config cfg11.json \
    --record-out clean11/run-1/run-record.json -- sh -c 'echo x > clean11/run-1/out; exit 3'
rc=$?
[ "$rc" -eq 3 ] && t_pass purpose_clean_status || t_fail purpose_clean_status "rc=$rc"
rec_check purpose_clean_record clean11/run-1/run-record.json '
assert s is not None and r["state"] == "finished" and s["state"] == "started"
assert r["purpose"] == "clean" and s["purpose"] == "clean"
for k in ("session_fingerprint", "capture_role", "capture_root"):
    assert k not in r and k not in s, k
assert r["exit"] == {"kind": "exited", "code": 3, "signal": None, "signal_name": None}
assert r["command"]["environment"]["ASCEND_PROF_SK_ON"] == "0"
import hashlib
assert r["config"] == {"path": os.path.realpath("cfg11.json"), "bytes": 13,
                       "sha256": hashlib.sha256(open("cfg11.json", "rb").read()).hexdigest()}
assert r["run_directory"]["path"] == os.path.realpath("clean11/run-1")
assert r["run_directory"]["inode"] == os.stat("clean11/run-1").st_ino
j = open("clean11/attempts.jsonl", "rb").read()
assert j.count(b"\n") == 1 and json.loads(j)["run"] == "run-1" and json.loads(j)["index"] == 1
assert r["attempt"] == {"line": 1, "journal_sha256": hashlib.sha256(j).hexdigest()}
'
artifact_contract run --purpose compile-health --record-out ch12.json --timeout 60 -- true
rec_check purpose_compile_health_record ch12.json '
assert r["purpose"] == "compile-health" and r["timeout_s"] == 60 and r["exit"]["code"] == 0
'

# --- a command that did not exit 0: one stderr line saying how it ended,
#     whether the deadline fired and where the final record is; nothing for
#     a command that exited 0 (its own stderr passes through untouched);
#     compile-health records: a clean record has its own layout (ROOT/run-N)
t_expect end_line_exit_status 3 \
    "artifact_contract: note: the command exited with status 3 (not timed out); final record: end13a.json" \
    artifact_contract run --purpose compile-health --record-out end13a.json -- sh -c 'exit 3'
t_expect end_line_signal 137 \
    "artifact_contract: note: the command was killed by signal 9 (SIGKILL) (not timed out); final record: end13b.json" \
    artifact_contract run --purpose compile-health --record-out end13b.json -- sh -c 'kill -KILL $$'
t_expect end_line_timeout 124 \
    "artifact_contract: note: the command was killed by signal 15 (SIGTERM) (timed out after 1 s); final record: end13c.json" \
    artifact_contract run --purpose compile-health --record-out end13c.json --timeout 1 --grace 0.2 -- sleep 30
artifact_contract run --purpose compile-health --record-out end13d.json -- true 2>err13d
[ ! -s err13d ] && t_pass end_line_absent_on_success || t_fail end_line_absent_on_success "$(cat err13d)"
