# The same record path everywhere (docs/compile-safety.md, "The record path"):
# compile-state, compile-lease, compile-scene save and compile-diagnose take
# the final record's path whether or not the final record exists yet (then the
# started record is read) and the started record's path as well, with the same
# result; a torn or unreadable ownership record is unknown (exit 23) with
# missing[] naming the record and why, in compile-state and compile-scene save.
source "$SK_REPO/tests/lib.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }
G="$SK_REPO/tests/cases/skdcci"
cp -a "$G/compile-state-golden-in-progress/in" run   # only run.json.started.json
cp -a "$G/compile-state-golden-succeeded/in" done    # run.json and its started record
jq_() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# same NAME A B: two files have the same bytes
same() { cmp -s "$2" "$3" && t_pass "$1" || t_fail "$1" "$(diff "$2" "$3" | head -5)"; }

# --- a run in progress: only the started record exists
for form in run.json run.json.started.json; do
    tag=final; [ "$form" = run.json ] || tag=started
    skdcci compile-state --record "run/$form" --proc-root run/proc --json-out "state-$tag.json" 2>/dev/null
    echo "state $form $?" >>rcs
    skdcci compile-lease --record "run/$form" --proc-root run/proc --json-out "lease-$tag.json" 2>/dev/null
    echo "lease $form $?" >>rcs
    skdcci compile-scene save --history "hist-$tag" --record "run/$form" --proc-root run/proc >/dev/null 2>&1
    echo "scene $form $?" >>rcs
done
t_expect_rcs() { grep -qx "$2" rcs && t_pass "$1" || t_fail "$1" "$(cat rcs)"; }
t_expect_rcs state_in_progress_final_path "state run.json 20"
t_expect_rcs state_in_progress_started_path "state run.json.started.json 20"
t_expect_rcs lease_in_progress_final_path "lease run.json 0"
t_expect_rcs lease_in_progress_started_path "lease run.json.started.json 0"
t_expect_rcs scene_in_progress_refused_final_path "scene run.json 20"
t_expect_rcs scene_in_progress_refused_started_path "scene run.json.started.json 20"
same state_same_for_both_paths state-final.json state-started.json
same lease_same_for_both_paths lease-final.json lease-started.json
[ "$(jq_ lease-final.json 'd["record"]["path"] + " " + d["record"]["state"] + " " + d["mode"]')" \
    = "run/run.json.started.json started record" ] && t_pass lease_reads_started_record \
    || t_fail lease_reads_started_record "$(cat lease-final.json)"

# --- a finished run: the started record's path reads the final record too
for form in run.json run.json.started.json; do
    tag=final; [ "$form" = run.json ] || tag=started
    skdcci compile-lease --record "done/$form" --proc-root done/proc --json-out "dlease-$tag.json" 2>/dev/null
    echo "dlease $form $?" >>rcs
    skdcci compile-scene save --history "dhist-$tag" --record "done/$form" --proc-root done/proc \
        --log done/run.log >/dev/null 2>&1
    echo "dscene $form $?" >>rcs
done
t_expect_rcs lease_finished_started_path "dlease run.json.started.json 0"
same lease_finished_same_for_both_paths dlease-final.json dlease-started.json
[ "$(jq_ dlease-started.json 'd["record"]["path"] + " " + d["record"]["state"]')" \
    = "done/run.json finished" ] && t_pass lease_started_path_reads_final \
    || t_fail lease_started_path_reads_final "$(cat dlease-started.json)"
t_expect_rcs scene_finished_started_path "dscene run.json.started.json 0"
[ "$(ls dhist-final/attempt-001-succeeded/records)" = "$(ls dhist-started/attempt-001-succeeded/records)" ] \
    && [ "$(ls dhist-final/attempt-001-succeeded/records | wc -l)" -eq 2 ] \
    && t_pass scene_copies_both_records_for_both_paths \
    || t_fail scene_copies_both_records_for_both_paths "$(ls -R dhist-*)"

# --- compile-diagnose: the final path of a running attempt reads its started record
skdcci compile-diagnose --baseline run/run.json --attempt run/run.json.started.json \
    --json-out diag.json 2>/dev/null
rc=$?
[ "$rc" -eq 0 ] && [ "$(jq_ diag.json 'd["baseline"]["path"] + " " + d["comparisons"][0]["verdict"]')" \
    = "run/run.json.started.json no_change" ] && t_pass diagnose_final_path_while_running \
    || t_fail diagnose_final_path_while_running "rc=$rc $(head -c 600 diag.json)"

# --- torn ownership records: unknown (23) with missing[] naming the record and why
cp -a done torn-started && head -c 150 done/run.json.started.json >torn-started/run.json.started.json
skdcci compile-state --record torn-started/run.json --proc-root done/proc --log done/run.log \
    --json-out ts.json 2>/dev/null
rc=$?
[ "$rc" -eq 23 ] && jq_ ts.json 'd["missing"]' | grep -q "the started record cannot be read (invalid producer record JSON" \
    && [ "$(jq_ ts.json 'd["run_state"]')" = succeeded ] && t_pass torn_started_record_is_unknown \
    || t_fail torn_started_record_is_unknown "rc=$rc $(head -c 600 ts.json)"
cp -a run torn-run && head -c 150 run/run.json.started.json >torn-run/run.json.started.json
skdcci compile-state --record torn-run/run.json --proc-root run/proc --json-out tr.json 2>tr.err
rc=$?
[ "$rc" -eq 23 ] && jq_ tr.json 'd["missing"][0]' | grep -q "^ownership record: torn-run/run.json.started.json:1: invalid producer record JSON" \
    && grep -q "ownership record unreadable; missing: ownership record: torn-run/run.json.started.json" tr.err \
    && t_pass torn_started_only_record_is_unknown \
    || t_fail torn_started_only_record_is_unknown "rc=$rc $(cat tr.err) $(head -c 600 tr.json)"
skdcci compile-scene save --history torn-hist --record torn-run/run.json --proc-root run/proc >/dev/null 2>&1
rc=$?
[ "$rc" -eq 0 ] && [ -d torn-hist/attempt-001-unknown ] && cmp -s torn-run/run.json.started.json \
    torn-hist/attempt-001-unknown/records/run.json.started.json && t_pass scene_saves_torn_record_as_unknown \
    || t_fail scene_saves_torn_record_as_unknown "rc=$rc $(ls -R torn-hist 2>&1)"

# --- compile-jobs check: the final path of a running attempt reads its started record
skdcci compile-jobs check --record run/run.json --record run/run.json.started.json >jobs.out 2>/dev/null
rc=$?
[ "$rc" -ne 1 ] && [ "$(awk 'NR > 1 {print $1, $2}' jobs.out | sort -u)" = "run/run.json.started.json started" ] \
    && t_pass jobs_final_path_while_running || t_fail jobs_final_path_while_running "rc=$rc $(cat jobs.out)"
