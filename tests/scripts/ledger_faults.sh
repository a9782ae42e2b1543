#!/usr/bin/env bash
# Faults while appending to the Stage O ledger (docs/ledger.md §4): two
# appends at once (one waits, the chain stays valid, nothing is lost), a lock
# held too long (a clean failure), kill -9 between the two halves of a line
# (a torn tail that is never a record, removed by the next append), kill -9
# after the write (the complete record), SIGTERM and SIGINT inside the write
# window (held until the record is complete) and before it (nothing
# written), and a write that fails part-way (the ledger byte-identical).
# The test hooks ledger_locked and ledger_append_half exist in test builds
# only (artifact_contract/base/sk_testhook.h).
source "$SK_REPO/tests/lib.sh"
W=$PWD
E=$W/stage-o
L=$E/ledger.jsonl
OUT=$W/out
source "$SK_REPO/tests/data/ledger/lib.sh"
"$TOOLS/skdcci_gen" --out "$W/raw" --scenario regression >/dev/null 2>"$W/gen.err" ||
    { t_fail generate_pair "$(cat "$W/gen.err")"; exit 0; }
stage_o_start "$W/raw" 2>"$W/start.err" || { t_fail stage_o_inputs "$(cat "$W/start.err")"; exit 0; }
cd "$E"
expect init 0 skdcci ledger init --ledger "$L" --seed-config configs/seed.json --o0 clean/O0 \
    --matrix matrix.json --warmup 0 --expected-ranks 2

# settle ITEM [OPTIONS...]: skip ITEM for budget (an append without a gate)
settle() {
    local item=$1
    shift
    skdcci ledger settle --ledger "$L" --item "$item" --status skipped --blocker budget_exhausted \
        --reason-zh "本轮预算已用完。" --evidence intake/budget.md "$@"
}
records() { wc -l <"$L"; }

# ------------------------------------------------------------ two appends at once
# the first holds the lock for a second; the second starts meanwhile and waits
(SK_TEST_HOOK_LEDGER_LOCKED='sleep 1' settle O2 >"$W/a.out" 2>&1; echo $? >"$W/a.rc") &
sleep 0.3
settle O3 >"$W/b.out" 2>&1
echo $? >"$W/b.rc"
wait
t_ok concurrent_first_appended test "$(cat "$W/a.rc")" = 0
t_ok concurrent_second_waited_and_appended test "$(cat "$W/b.rc")" = 0
t_ok concurrent_both_records test "$(records)" = 3
if grep -q '^record 2 settle' "$W/a.out" && grep -q '^record 3 settle' "$W/b.out"; then
    t_pass concurrent_second_saw_the_first
else
    t_fail concurrent_second_saw_the_first "$(cat "$W/a.out" "$W/b.out")"
fi
expect concurrent_chain_valid 0 skdcci ledger verify --ledger "$L"

# a lock held longer than --lock-wait: a clean failure, nothing written
cp "$L" "$W/saved"
(SK_TEST_HOOK_LEDGER_LOCKED='sleep 2' skdcci ledger freeze --ledger "$L" >"$W/c.out" 2>&1; echo $? >"$W/c.rc") &
sleep 0.3
expect lock_wait_exceeded 1 settle O4 --lock-wait 0
has lock_wait_message 'another command holds the ledger.s lock'
wait
t_ok lock_holder_refused_for_state test "$(cat "$W/c.rc")" = 10
same_bytes lock_wait_nothing_written "$L" "$W/saved"

# ------------------------------------------------------------ kill -9 inside an append
cp "$L" "$W/saved"
SK_TEST_HOOK_LEDGER_APPEND_HALF='kill -KILL $PPID' settle O4 >"$W/k.out" 2>&1
rc=$?
t_ok kill9_died_by_signal test "$rc" = 137
t_ok kill9_left_a_torn_tail test "$(stat -c %s "$L")" -gt "$(stat -c %s "$W/saved")"
t_ok kill9_no_new_line test "$(records)" = 3
expect kill9_show_reads 0 skdcci ledger show --ledger "$L"
has kill9_torn_reported '^torn-bytes [0-9]+ \(an interrupted append: not a record\)$'
has kill9_o4_still_pending '^item O4 other_experimental pending$'
expect kill9_verify_passes 0 skdcci ledger verify --ledger "$L"
expect kill9_next_append 0 settle O4
has kill9_torn_removed '^removed [0-9]+ bytes of an interrupted append'
t_ok kill9_one_record_more test "$(records)" = 4
if head -c "$(stat -c %s "$W/saved")" "$L" | cmp -s - "$W/saved"; then
    t_pass kill9_earlier_bytes_untouched
else
    t_fail kill9_earlier_bytes_untouched
fi
expect kill9_chain_valid 0 skdcci ledger verify --ledger "$L"

# ------------------------------------------------------------ the rest on a fresh ledger
rm "$L"
expect reinit 0 skdcci ledger init --ledger "$L" --seed-config configs/seed.json --o0 clean/O0 \
    --matrix matrix.json --warmup 0 --expected-ranks 2

# kill -9 after the whole line was written (not yet synced): the complete record
SK_TEST_HOOK_LEDGER_APPEND_WRITTEN='kill -KILL $PPID' settle O2 >/dev/null 2>&1
t_ok kill9_after_write_record_complete test "$(records)" = 2
expect kill9_after_write_verifies 0 skdcci ledger verify --ledger "$L"

# SIGTERM and SIGINT inside the write window: held until the record is complete
for sig in TERM INT; do
    item=$([ $sig = TERM ] && echo O3 || echo O4)
    n=$(records)
    SK_TEST_HOOK_LEDGER_APPEND_HALF="kill -$sig \$PPID" settle "$item" >/dev/null 2>&1
    rc=$?
    want=$([ $sig = TERM ] && echo 143 || echo 130)
    t_ok "sig${sig,,}_in_window_dies_after_the_record" test "$rc" = "$want"
    t_ok "sig${sig,,}_in_window_record_complete" test "$(records)" = $((n + 1))
    expect "sig${sig,,}_in_window_verifies" 0 skdcci ledger verify --ledger "$L"
done

# SIGTERM before the write window (lock taken, nothing built): nothing written
rm "$L"
skdcci ledger init --ledger "$L" --seed-config configs/seed.json --o0 clean/O0 --matrix matrix.json \
    --warmup 0 --expected-ranks 2 >/dev/null
cp "$L" "$W/saved"
SK_TEST_HOOK_LEDGER_LOCKED='kill -TERM $PPID' settle O2 >/dev/null 2>&1
t_ok sigterm_before_window_died test $? = 143
same_bytes sigterm_before_window_nothing_written "$L" "$W/saved"

# a write that fails part-way (file size limit): the previous bytes restored;
# the reason makes the line longer than the 1024-byte granularity of ulimit -f
size=$(stat -c %s "$L")
long=$(printf '预算已用完%.0s' $(seq 60))
(
    trap '' XFSZ
    ulimit -f $(((size + 1023) / 1024))
    skdcci ledger settle --ledger "$L" --item O2 --status skipped --blocker budget_exhausted \
        --reason-zh "$long" --evidence intake/budget.md
) >"$OUT" 2>&1
t_ok write_failure_exit_1 test $? = 1
has write_failure_message 'nothing was appended'
same_bytes write_failure_byte_identical "$L" "$W/saved"
expect after_write_failure_append_works 0 settle O2
