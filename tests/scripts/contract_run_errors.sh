# artifact_contract run: every refusal exits 2 with one error line, starts
# nothing and leaves no record behind (docs/artifact_contract_run.md).
# sk-test: serial (real processes and short time bounds: runs alone, tests/run.sh)
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/lib_run.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }

# refuse NAME STDERR_TEXT SESSION ARGS...: exit 2, one stderr line with the
# text, the command (which would create ./ran) never ran, no record exists
refuse() {
    local name=$1 text=$2 session=$3
    shift 3
    rm -f ran
    t_expect "$name" 2 "$text" artifact_contract run --session "$session" "$@"
    local base=${session%.json}
    if [ -e ran ] || ls "$base".producer.json* >/dev/null 2>&1; then
        t_fail "${name}_nothing_left" "the command ran or a record was left: $(ls)"
    else
        t_pass "${name}_nothing_left"
    fi
}
# usage NAME TEXT ARGS...: a usage error (error line + hint), exit 2
usage() {
    local name=$1 text=$2 out rc
    shift 2
    out=$(artifact_contract run "$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -eq 2 ] && printf '%s\n' "$out" | head -1 | grep -qF -- "$text" && [ ! -e ran ]; then
        t_pass "$name"
    else
        t_fail "$name" "rc=$rc" "$out"
    fi
}

make_session dcci_o0 root good.json

# --- usage errors
usage usage_no_session "--session FILE (a capture run) or --purpose clean|compile-health" -- touch ran
usage usage_purpose_bad "--purpose must be 'clean' or 'compile-health', found 'capture'" --purpose capture --record-out r.json -- touch ran
usage usage_purpose_and_session "--purpose is for runs without a capture session" --session good.json --purpose clean --record-out r.json -- touch ran
usage usage_purpose_no_record "--record-out FILE is required with --purpose" --purpose clean -- touch ran
usage usage_clean_no_config "--config FILE is required with --purpose clean" --purpose clean --record-out C/run-1/run-record.json -- touch ran
usage usage_config_twice "--config is given twice" --purpose clean --config a --config b --record-out r.json -- touch ran
usage usage_no_command "a command is required" --session good.json
usage usage_no_command_after_dashes "a command is required" --session good.json --
usage usage_timeout_zero "--timeout must be a whole number of seconds" --session good.json --timeout 0 -- touch ran
usage usage_timeout_fraction "--timeout must be a whole number of seconds" --session good.json --timeout 1.5 -- touch ran
usage usage_timeout_negative "--timeout must be a whole number" --session good.json --timeout -1 -- touch ran
usage usage_timeout_huge "--timeout must be a whole number" --session good.json --timeout 1000000001 -- touch ran
usage usage_grace_4_decimals "--grace must be seconds with at most 3 decimals" --session good.json --grace 0.1234 -- touch ran
usage usage_grace_negative "--grace must be seconds" --session good.json --grace -1 -- touch ran
usage usage_grace_exponent "--grace must be seconds" --session good.json --grace 1e3 -- touch ran
usage usage_grace_dot "--grace must be seconds" --session good.json --grace . -- touch ran
usage usage_grace_too_long "--grace must be seconds" --session good.json --grace 86401 -- touch ran
usage usage_unknown_option "unknown or ambiguous option '--bogus'" --session good.json --bogus -- touch ran
usage usage_missing_value "option '--session' requires a value" --session

# --- session problems: nothing starts
refuse session_missing "session record" missing.json -- touch ran
printf '{"capture_role":' > trunc.json
refuse session_truncated "invalid session JSON" trunc.json -- touch ran
python3 - <<'PY'
import json, hashlib, os
canon = lambda v: json.dumps(v, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
good = json.load(open("good.json"))
def write(name, obj, refp=True):
    p = {k: v for k, v in obj.items() if k != "session_fingerprint"}
    if refp:
        obj = dict(obj, session_fingerprint=hashlib.sha256(canon(p).encode()).hexdigest())
    open(name, "w").write(canon(obj) + "\n")
write("tampered.json", dict(good, started_ns=2), refp=False)
write("extra.json", dict(good, nonce="x"), refp=False)
write("norole.json", {k: v for k, v in good.items() if k != "capture_role"}, refp=False)
write("relroot.json", dict(good, capture_root="root"))
write("goneroot.json", dict(good, capture_root=os.path.realpath(".") + "/nowhere"))
write("notempty.json", dict(good, root_was_empty=False))
write("badrole.json", dict(good, capture_role=["x"]))
write("negstart.json", dict(good, started_ns=-1))
write("floatstart.json", dict(good, started_ns=1.0))
os.makedirs("other", exist_ok=True)
write("nomarker.json", dict(good, capture_root=os.path.realpath("other")))
open("array.json", "w").write("[]\n")
open("dup.json", "w").write('{"a":1,"a":2}\n')
PY
refuse session_tampered "session fingerprint mismatch" tampered.json -- touch ran
refuse session_extra_key "session record has unknown fields: nonce" extra.json -- touch ran
refuse session_missing_key "session record missing fields: capture_role" norole.json -- touch ran
refuse session_relative_root "session capture_root must be absolute" relroot.json -- touch ran
refuse session_root_gone "session capture_root no longer exists" goneroot.json -- touch ran
refuse session_root_not_empty "session root_was_empty must be true" notempty.json -- touch ran
refuse session_role_not_string "session capture_role must be a non-empty string" badrole.json -- touch ran
refuse session_negative_start "session started_ns must be a nonnegative integer" negstart.json -- touch ran
refuse session_float_start "session started_ns must be a nonnegative integer" floatstart.json -- touch ran
refuse session_not_object "session record must be an object" array.json -- touch ran
refuse session_duplicate_key "duplicate JSON key: a" dup.json -- touch ran
refuse session_without_marker "capture root was not begun with this session" nomarker.json -- touch ran
make_session dcci_o0 root2 s2.json
make_session dcci_o0 root3 s3.json
cp root3/.collection-session.json root2/.collection-session.json
refuse session_marker_differs "collection marker differs from the session record" s2.json -- touch ran
ln -s root link_root
python3 - <<'PY'
import json, hashlib, os
canon = lambda v: json.dumps(v, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
p = json.load(open("good.json")); del p["session_fingerprint"]
p["capture_root"] = os.path.realpath(".") + "/link_root"
p["session_fingerprint"] = hashlib.sha256(canon(p).encode()).hexdigest()
open("symroot.json", "w").write(canon(p) + "\n")
PY
refuse session_root_symlink "session capture_root must be a resolved directory" symroot.json -- touch ran

# --- where the records would go
refuse record_inside_root "producer record must be outside the capture root" good.json \
    --record-out root/p.json -- touch ran
[ ! -e root/p.json ] && [ ! -e root/p.json.started.json ] && t_pass record_inside_root_not_created \
    || t_fail record_inside_root_not_created "$(ls -a root)"
refuse record_parent_missing "the record directory $(pwd -P)/nodir cannot be used: No such file or directory" \
    good.json --record-out nodir/p.json -- touch ran
touch afile
refuse record_parent_not_directory "the record directory $(pwd -P)/afile" good.json \
    --record-out afile/p.json -- touch ran

# --- the command cannot be started
refuse command_not_found "error: command: not found in PATH: no-such-command-4711" good.json -- no-such-command-4711
refuse command_path_missing "error: command: not found: ./nope.sh" good.json -- ./nope.sh
printf 'touch ran\n' > noexec.sh
chmod 0644 noexec.sh
refuse command_not_executable "error: command: is not executable: ./noexec.sh" good.json -- ./noexec.sh
mkdir adir
refuse command_is_directory "error: command: not found: ./adir" good.json -- ./adir
# executable but not a program: execve fails after the handshake; the
# started record that was already published is withdrawn
printf '\x7fELF garbage' > badexec
chmod 0755 badexec
refuse command_exec_format_error "error: command: cannot execute ./badexec: Exec format error" good.json -- ./badexec
(
    export BAD_VALUE=$'\xff'
    refuse env_invalid_utf8 "error: environment: variable BAD_VALUE has a value that is not valid UTF-8" \
        good.json -- touch ran
)
refuse argv_invalid_utf8 "error: command: argument 1 is not valid UTF-8" good.json -- touch $'\xfe'

# --- failures after the command ran: exit 2, one error line, the started
#     record stays (it is true), no final record is invented
make_session dcci_o0 root4 s4.json
t_expect final_record_taken 2 "output already exists: $(pwd -P)/s4.producer.json" \
    artifact_contract run --session s4.json -- sh -c 'echo foreign > s4.producer.json'
[ "$(cat s4.producer.json)" = foreign ] && [ -f s4.producer.json.started.json ] \
    && t_pass final_record_taken_foreign_kept || t_fail final_record_taken_foreign_kept "$(ls)"
make_session dcci_o0 root5 s5.json
SK_TEST_CLOCK_NS=2000000000,1000000000 t_expect realtime_clock_went_back 2 \
    "the realtime clock went back during the run (started 2000000000, ended 1000000000 ns)" \
    artifact_contract run --session s5.json -- true
[ -f s5.producer.json.started.json ] && [ ! -e s5.producer.json ] \
    && t_pass realtime_clock_went_back_no_final || t_fail realtime_clock_went_back_no_final "$(ls)"

# --- clean runs: the record lies in ROOT/run-N and N is the root's next
#     index in its attempt journal; refusals start nothing and leave the
#     journal as it was
echo '{"m": 1}' >cfg.json
clean() { # NAME TEXT RECORD: a refused clean run
    local name=$1 text=$2 rec=$3 before
    rm -f ran
    before=$(cat C/attempts.jsonl 2>/dev/null | sha256sum)
    t_expect "$name" 2 "$text" artifact_contract run --purpose clean --config cfg.json --record-out "$rec" -- touch ran
    if [ -e ran ] || [ -e "$rec" ] || [ "$(cat C/attempts.jsonl 2>/dev/null | sha256sum)" != "$before" ]; then
        t_fail "${name}_nothing_left" "$(ls -R C)"
    else
        t_pass "${name}_nothing_left"
    fi
}
mkdir -p C/run-1 C/run-2 C/run-3 C/other C/run-01
clean clean_not_run_dir "a clean run's record is <CLEAN root>/run-N/run-record.json" C/other/run-record.json
clean clean_zero_padded "a clean run's record is <CLEAN root>/run-N/run-record.json" C/run-01/run-record.json
clean clean_other_name "a clean run's record is <CLEAN root>/run-N/run-record.json" C/run-1/record.json
clean clean_gap "the next run of this root is run-1" C/run-2/run-record.json
artifact_contract run --purpose clean --config cfg.json --record-out C/run-1/run-record.json -- true
rm -f C/run-1/run-record.json C/run-1/run-record.json.started.json
clean clean_deleted_index_taken "run-1 was already started" C/run-1/run-record.json
t_expect clean_missing_config 2 "config" \
    artifact_contract run --purpose clean --config nowhere.json --record-out C/run-2/run-record.json -- touch ran
printf '{"index":3,"registered_realtime_ns":1,"run":"run-3"}\n' >C/bad.jsonl
cp C/attempts.jsonl C/good.jsonl && cat C/bad.jsonl >>C/attempts.jsonl
clean clean_journal_damaged "line 2 must hold index 2" C/run-3/run-record.json
cp C/good.jsonl C/attempts.jsonl
# exec failure after the journal line was written: the line is withdrawn
printf '\x7fELF garbage' > C/badexec && chmod 0755 C/badexec
t_expect clean_exec_failure 2 "cannot execute" \
    artifact_contract run --purpose clean --config cfg.json --record-out C/run-2/run-record.json -- C/badexec
cmp -s C/attempts.jsonl C/good.jsonl && t_pass clean_exec_failure_line_withdrawn \
    || t_fail clean_exec_failure_line_withdrawn "$(cat C/attempts.jsonl)"

