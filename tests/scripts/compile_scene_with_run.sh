#!/usr/bin/env bash
# sk-test: serial (real processes and short time bounds: runs alone, tests/run.sh)
# compile-scene on attempts run by the real `artifact_contract run`: a timed-out
# attempt is saved with its error logs, a later successful attempt reusing the
# same output directory appends without touching the first, verify passes and
# then catches a changed byte, a save during a live attempt creates nothing,
# and concurrent saves take distinct numbers.
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/lib_run.sh"
wait_for() { for _ in $(seq 500); do [ -e "$1" ] && return 0; sleep 0.02; done; return 1; }
tree_sum() { (cd "$1" && find . -printf '%p %y %s %T@\n' | LC_ALL=C sort && find . -type f -exec sha256sum {} + | LC_ALL=C sort); }
RUNNER=
cleanup() { [ -n "$RUNNER" ] && kill -TERM "$RUNNER" 2>/dev/null && wait "$RUNNER" 2>/dev/null; }
trap cleanup EXIT

OUT=out/static_kernel_compile_outputs/1_outputs/compile_log
mkdir -p "$OUT"

# 1. an attempt that times out, leaving an error log
make_session sk_on root1 s1.json
artifact_contract run --session s1.json --record-out rec1.json --timeout 1 --grace 0.2 -- \
    sh -c "echo 'op add: compile error' > $OUT/add_compile_error.log; : > out/pkg.run; exec sleep 30" >run.log 2>&1
skdcci compile-scene save --history hist --record rec1.json --outputs out --log run.log >save1.out 2>save1.err; rc=$?
A1=hist/attempt-001-timed_out_or_interrupted
if [ "$rc" -eq 0 ] && [ "$(cat save1.out)" = "$A1" ] && [ -d "$A1" ] &&
    cmp -s "$A1/outputs/1/static_kernel_compile_outputs/1_outputs/compile_log/add_compile_error.log" "$OUT/add_compile_error.log" &&
    cmp -s "$A1/logs/1/run.log" run.log && cmp -s "$A1/records/rec1.json" rec1.json &&
    cmp -s "$A1/records/rec1.json.started.json" rec1.json.started.json && [ ! -e "$A1/outputs/1/pkg.run" ] &&
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["attempt"] == 1 and d["state"] == "timed_out_or_interrupted"
assert d["compile_state"]["compile_state"] == "timed_out_or_interrupted"
files = {f["path"]: f for f in d["outputs"][0]["files"]}
assert files["pkg.run"]["copy"] is None and files["pkg.run"]["size"] == 0, files
assert len(files) == 2, files' "$A1/scene.json"; then
    t_pass timed_out_attempt_saved_as_001
else
    t_fail timed_out_attempt_saved_as_001 "exit $rc: $(cat save1.out)" "$(cat save1.err)" "$(find hist 2>&1 | head -20)"
fi
before=$(tree_sum "$A1")

# 2. the retry reuses the output directory and the log name, and succeeds
rm "$OUT/add_compile_error.log"
make_session sk_on root2 s2.json
artifact_contract run --session s2.json --record-out rec2.json -- \
    sh -c "echo ok > $OUT/add_compile_succ.log; echo '[summary] static kernel compile: total 1, success 1, failed 0'" >run.log 2>&1
skdcci compile-scene save --history hist --record rec2.json --outputs out --log run.log >save2.out 2>save2.err; rc=$?
A2=hist/attempt-002-succeeded
if [ "$rc" -eq 0 ] && [ "$(cat save2.out)" = "$A2" ] && [ -f "$A2/outputs/1/static_kernel_compile_outputs/1_outputs/compile_log/add_compile_succ.log" ] &&
    grep -q '^op add: compile error$' "$A1/outputs/1/static_kernel_compile_outputs/1_outputs/compile_log/add_compile_error.log"; then
    t_pass later_success_appends_as_002
else
    t_fail later_success_appends_as_002 "exit $rc: $(cat save2.out)" "$(cat save2.err)"
fi
[ "$before" = "$(tree_sum "$A1")" ] && t_pass attempt_001_untouched || t_fail attempt_001_untouched "$(diff <(echo "$before") <(tree_sum "$A1"))"

# 3. verify: intact, then one changed byte is named
t_expect verify_intact 0 "verify: intact, 2 attempt(s) numbered 001..002" skdcci compile-scene verify --history hist
printf 'X' | dd of="$A1/logs/1/run.log" bs=1 seek=0 conv=notrunc 2>/dev/null
skdcci compile-scene verify --history hist >v.out 2>v.err; rc=$?
if [ "$rc" -eq 10 ] && [ "$(wc -l <v.out)" -eq 1 ] && grep -q "^$A1/logs/1/run.log: content differs from scene.json" v.out; then
    t_pass verify_names_changed_byte
else
    t_fail verify_names_changed_byte "exit $rc" "$(cat v.out v.err)"
fi

# 4. a live attempt has no scene yet: nothing is created, not even the history
make_session sk_on root3 s3.json
mkfifo gate
"$SK_BUILD/bin/artifact_contract" run --session s3.json --record-out rec3.json -- sh -c 'read -r _ < gate' >run3.log 2>&1 &
RUNNER=$!
wait_for rec3.json.started.json
skdcci compile-scene save --history hist_live --record rec3.json --log run3.log >live.out 2>live.err; rc=$?
if [ "$rc" -eq 20 ] && [ ! -e hist_live ] && [ ! -s live.out ] && grep -q "in_progress" live.err; then
    t_pass live_attempt_refused_nothing_created
else
    t_fail live_attempt_refused_nothing_created "exit $rc" "$(cat live.out live.err)" "$(ls -la hist_live 2>&1)"
fi
n_before=$(ls -a hist | wc -l)
skdcci compile-scene save --history hist --record rec3.json >/dev/null 2>&1; rc=$?
[ "$rc" -eq 20 ] && [ "$(ls -a hist | wc -l)" -eq "$n_before" ] && t_pass live_attempt_refused_existing_history ||
    t_fail live_attempt_refused_existing_history "exit $rc" "$(ls -a hist)"
echo go > gate
wait "$RUNNER"; RUNNER=

# 5. concurrent saves never share a number
for i in 1 2 3 4; do skdcci compile-scene save --history hist_par --record rec2.json --log run.log >"par$i.out" 2>/dev/null & done
wait
got=$(cat par1.out par2.out par3.out par4.out | LC_ALL=C sort | tr '\n' ' ')
want="hist_par/attempt-001-succeeded hist_par/attempt-002-succeeded hist_par/attempt-003-succeeded hist_par/attempt-004-succeeded "
[ "$got" = "$want" ] && t_pass concurrent_saves_distinct_numbers || t_fail concurrent_saves_distinct_numbers "$got"
t_expect concurrent_history_verifies 0 "intact, 4 attempt(s)" skdcci compile-scene verify --history hist_par
