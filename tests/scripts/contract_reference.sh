# The reference tool's test-suite behaviours (docs/artifact_contract.md "Test
# hooks of the contract layer") through
# the CLI.  Test numbers are the reference's; 1-7, 15-19 and 45 are unit
# tests (tests/unit/test_ac_rules.c, test_ac_contract.c).  Fault injection
# uses the test hooks (SK_TEST_HOOK_<POINT>), injected faults
# (SK_TEST_FAULT_<POINT>) and the fake clock (SK_TEST_CLOCK_NS).
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/contract_lib.sh"
command -v python3 >/dev/null || { t_fail python3_available "python3 is required"; exit 0; }

# run_env VAR=VALUE... CMD...: CMD (a function or program) with those variables exported
run_env() { ( while [[ $1 == *=* ]]; do export "$1"; shift; done; "$@" ); }

json_get() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))
for k in sys.argv[2:]: v=v[k]
print(json.dumps(v, sort_keys=True, separators=(",",":")))' "$@"; }

# ------------------------------------------------------------------ begin
# 8: new root and existing empty root
t8() {
    local out root
    out=$(SK_TEST_CLOCK_NS=1 artifact_contract begin --role baseline_profile --root "$S/t8/new/root" \
        --session-out "$S/t8/new.json") || return 1
    root=$(cd "$S/t8/new/root" && pwd -P)
    [ "$(printf '%s\n' "$out")" = "$(cat "$S/t8/new.json")" ] || return 2
    cmp -s "$S/t8/new.json" "$S/t8/new/root/.collection-session.json" || return 3
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
assert r["capture_root"]==sys.argv[2] and r["root_was_empty"] is True and r["started_ns"]==1' \
        "$S/t8/new.json" "$root" || return 4
    mkdir -p "$S/t8/empty"
    artifact_contract begin --role candidate_profile --root "$S/t8/empty" --session-out "$S/t8/e.json" \
        >/dev/null || return 5
    cmp -s "$S/t8/e.json" "$S/t8/empty/.collection-session.json" || return 6
    [ "$(stat -c %a "$S/t8/e.json")" = 600 ] || return 7
}
t_ok begin_new_and_empty_root_8 t8

# 9: a file appears in the root just before the marker is published
t_expect begin_root_changed_before_marker_9 2 "changed before collection marker" \
    env SK_TEST_HOOK_BEFORE_MARKER_PUBLISH='touch "$SK_HOOK_PATH/late"' \
    "$SK_BUILD/bin/artifact_contract" begin --role baseline_profile --root "$S/t9/root" --session-out "$S/t9/s.json"
t_ok begin_9_session_kept_marker_equal cmp "$S/t9/s.json" "$S/t9/root/.collection-session.json"

# 10: non-empty root; session-out inside a root that does not exist yet
mkdir -p "$S/t10/root" && echo old >"$S/t10/root/old.txt"
t_expect begin_root_not_empty_10 2 "capture root must be empty" \
    ac_guard artifact_contract begin --role baseline_profile --root "$S/t10/root" --session-out "$S/t10/s.json"
t_expect begin_session_inside_root_10 2 "session record must be outside" \
    ac_guard artifact_contract begin --role baseline_profile --root "$S/t10/new" --session-out "$S/t10/new/s.json"
t_ok begin_10_nothing_created test ! -e "$S/t10/new"

# 11: foreign session-out; a foreign file appears at session-out during publication
mkdir -p "$S/t11" && printf 'foreign bytes' >"$S/t11/s.json"
t_expect begin_foreign_session_out_11 2 "recoverable session record" \
    ac_guard artifact_contract begin --role baseline_profile --root "$S/t11/root" --session-out "$S/t11/s.json"
t_ok begin_11_foreign_untouched grep -qx 'foreign bytes' "$S/t11/s.json"
rm "$S/t11/s.json"
t_expect begin_session_out_race_11 2 "output already exists" \
    env SK_TEST_HOOK_BEFORE_SESSION_PUBLISH='printf foreign >"$SK_HOOK_PATH"' \
    "$SK_BUILD/bin/artifact_contract" begin --role baseline_profile --root "$S/t11/root" --session-out "$S/t11/s.json"
t_ok begin_11_race_keeps_foreign_and_empty_root bash -c '[ "$(cat "$1/s.json")" = foreign ] && [ -z "$(ls -A "$1/root")" ]' _ "$S/t11"
rm "$S/t11/s.json"
t11c() { local out; out=$(artifact_contract begin --role baseline_profile --root "$S/t11/root" --session-out "$S/t11/s.json") && [ "$out" = "$(cat "$S/t11/s.json")" ]; }
t_ok begin_11_after_cleanup_succeeds t11c

# 12: marker publication fails; recovery; idempotent third run under another clock
t_expect begin_marker_failure_12 2 "collection marker cannot be published" \
    env SK_TEST_FAULT_MARKER_PUBLISH=EIO SK_TEST_CLOCK_NS=5 \
    "$SK_BUILD/bin/artifact_contract" begin --role baseline_profile --root "$S/t12/root" --session-out "$S/t12/s.json"
t_ok begin_12_session_exists_root_empty bash -c '[ -f "$1/s.json" ] && [ -z "$(ls -A "$1/root")" ]' _ "$S/t12"
t12b() {
    local out
    out=$(SK_TEST_CLOCK_NS=6 artifact_contract begin --role baseline_profile --root "$S/t12/root" --session-out "$S/t12/s.json") || return 1
    [ "$out" = "$(cat "$S/t12/s.json")" ] && cmp -s "$S/t12/s.json" "$S/t12/root/.collection-session.json" || return 2
    [ "$(json_get "$S/t12/s.json" started_ns)" = 5 ] || return 3
    out=$(SK_TEST_CLOCK_NS=7 artifact_contract begin --role baseline_profile --root "$S/t12/root" --session-out "$S/t12/s.json") || return 4
    [ "$out" = "$(cat "$S/t12/s.json")" ] || return 5
}
t_ok begin_12_recovery_and_idempotence t12b

# 13: the existing session belongs to another role
SK_TEST_CLOCK_NS=1 artifact_contract begin --role candidate_compat --root "$S/t13/root" --session-out "$S/t13/s.json" >/dev/null
rm "$S/t13/root/.collection-session.json"
cp "$S/t13/s.json" "$S/t13/s.orig"
t_expect begin_other_role_13 2 "does not match requested collection" \
    ac_guard artifact_contract begin --role baseline_profile --root "$S/t13/root" --session-out "$S/t13/s.json"
t_ok begin_13_unchanged bash -c 'cmp -s "$1/s.json" "$1/s.orig" && [ -z "$(ls -A "$1/root")" ]' _ "$S/t13"

# 14: the marker is swapped for foreign bytes right after publication
t_expect begin_marker_swapped_14 2 "collection marker does not match" \
    env SK_TEST_HOOK_AFTER_MARKER_PUBLISH='printf foreign >"$SK_HOOK_PATH/x" && mv "$SK_HOOK_PATH/x" "$SK_HOOK_PATH/.collection-session.json"' \
    "$SK_BUILD/bin/artifact_contract" begin --role baseline_profile --root "$S/t14/root" --session-out "$S/t14/s.json"
t_expect begin_marker_swapped_rerun_14 2 "collection marker does not match" \
    ac_guard artifact_contract begin --role baseline_profile --root "$S/t14/root" --session-out "$S/t14/s.json"
t_ok begin_14_marker_kept bash -c '[ "$(cat "$1/root/.collection-session.json")" = foreign ]' _ "$S/t14"

# ------------------------------------------------------------------ finalize
ac_inputs
ac_begin baseline_profile && ac_artifacts baseline_profile
B=baseline_profile
fin() { ac_guard ac_finalize "$B" "$@"; }
# 20: bad kernel_details specs
t_expect finalize_absolute_20 2 "relative" fin --file kernel_details=/etc/passwd
t_expect finalize_traversal_20 2 "traversal" fin --file kernel_details=../outside.dat
t_expect finalize_marker_spec_20 2 "collection marker" fin --file kernel_details=.collection-session.json
ln -s kernel_details.dat "$S/$B/root/artifacts/link.dat"
t_expect finalize_symlink_20 2 "symlink" fin --file kernel_details=artifacts/link.dat
rm "$S/$B/root/artifacts/link.dat"
# 23: marker overwritten with {}
cp "$S/$B/root/.collection-session.json" "$S/marker.bak"
printf '{}\n' >"$S/$B/root/.collection-session.json"
t_expect finalize_marker_overwritten_23 2 "collection marker" fin
cp "$S/marker.bak" "$S/$B/root/.collection-session.json"
# 24: unlisted symlink and FIFO in the root
ln -s /etc "$S/$B/root/unlisted-link"
t_expect finalize_unlisted_symlink_24 2 "symlink" fin
rm "$S/$B/root/unlisted-link"
mkfifo "$S/$B/root/unlisted-fifo"
t_expect finalize_unlisted_fifo_24 2 "unsafe special file" fin
rm "$S/$B/root/unlisted-fifo"
# 25: bad values
t_expect finalize_revision_untrimmed_25 2 "trimmed non-empty string" fin --source-revision " revision-a "
t_expect finalize_pid_zero_25 2 "native_pid must be a positive integer" fin --native-pid 0
t_expect finalize_started_negative_25 2 "started_ns must be a nonnegative integer" fin --started-ns -1
t_expect finalize_ended_equal_25 2 "ended_ns must be greater than started_ns" fin --started-ns 10 --ended-ns 10
t_expect finalize_out_is_artifact_25 2 "output overlaps an input" fin --out "$S/$B/root/artifacts/kernel_details.dat"
# 26: command fingerprints
for fp in short gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg \
    AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA; do
    t_expect "finalize_command_fingerprint_26_${fp:0:5}" 2 "command_fingerprint must be a lowercase SHA-256 fingerprint" \
        fin --command-fingerprint "$fp"
done
# 27: an input changes after it was parsed (before revalidation): no manifest
for which in session workload config control; do
    case $which in session) f="$S/$B-session.json" ;; *) f="$S/inputs/$which.json" ;; esac
    cp "$f" "$S/orig.json"
    t_expect "finalize_input_changed_27_$which" 2 "$which input changed" \
        run_env SK_TEST_HOOK_BEFORE_INPUT_REVALIDATION="printf ' ' >>'$f'" ac_finalize $B
    t_ok "finalize_27_${which}_no_manifest" test ! -e "$S/$B/root/collection-manifest.json"
    cp "$S/orig.json" "$f"
done
# 28: config is a hard link of the workload
ln "$S/inputs/workload.json" "$S/inputs/config-link.json"
t_expect finalize_hardlinked_inputs_28 2 "inputs must be distinct" fin --config "$S/inputs/config-link.json"
rm "$S/inputs/config-link.json"
# 22: the session started "after" the artifacts were made
ac_begin candidate_compat "$S/t22/root" "$S/t22-session.json" 8000000000000000000
ac_artifacts candidate_compat "$S/t22/root"
t_expect finalize_predates_22 2 "predates capture session" \
    ac_guard ac_finalize candidate_compat --session "$S/t22-session.json" --out "$S/t22/root/m.json" \
    --started-ns 8000000000000000011 --ended-ns 8000000000000000016

# 21 + 29: a full candidate_profile manifest, without sk_prof
ac_begin candidate_profile && ac_artifacts candidate_profile
t29() {
    ac_finalize candidate_profile >"$S/cp.out" || return 1
    cmp -s "$S/cp.out" "$(ac_manifest_of candidate_profile)" || return 2
    python3 - "$S/cp.out" <<'PY' || return 3
import hashlib, json, sys
m = json.load(open(sys.argv[1]))
fp = lambda v: hashlib.sha256(json.dumps(v, ensure_ascii=True, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()).hexdigest()
assert m["schema_version"] == "1.0" and m["capture_role"] == "candidate_profile" and m["capture_root"] == "."
assert sorted(m["files"]) == sorted(["kernel_details", "task_time", "trace_view", "sk_graph_origin", "sk_graph_updated", "sk_fused_nodes", "sk_scope_split", "super_kernel"]), m["files"].keys()
assert "sk_prof" not in m["files"]
assert m["workload"] == {"batch": 1, "input": 1, "iterations": 3, "mode": "decode", "model": "deepseek_v4", "rank": 16, "runtime": {"backend": "npugraph_ex"}, "warmup": 2}
assert m["config"] == {"superkernel": False} and m["control"] == {"rank": 0}
for k in ("config", "control", "workload"):
    assert m[k + "_fingerprint"] == fp(m[k])
body = dict(m); del body["manifest_fingerprint"]
assert m["manifest_fingerprint"] == fp(body)
for role, recs in m["files"].items():
    for r in recs:
        assert set(r) == {"path", "sha256", "size", "ctime_ns", "mtime_ns"}, r
assert len(m) == 14
PY
}
t_ok finalize_candidate_profile_manifest_21_29 t29

# ------------------------------------------------------------------ validate-set
ac_finalize baseline_profile >/dev/null
ac_collect candidate_compat
ac_collect candidate_verify
MB=$(ac_manifest_of baseline_profile) MC=$(ac_manifest_of candidate_compat)
MV=$(ac_manifest_of candidate_verify) MP=$(ac_manifest_of candidate_profile)
ALL=(--manifest "baseline_profile=$MB" --manifest "candidate_compat=$MC"
     --manifest "candidate_verify=$MV" --manifest "candidate_profile=$MP")
vs() { ac_guard artifact_contract validate-set "$@"; }
t_ok validate_set_four_roles vs "${ALL[@]}"

# 30: content flip (same size) and mtime bump
KD="$S/baseline_profile/root/artifacts/kernel_details.dat"
cp -p "$KD" "$S/kd.bak"
python3 -c 'import sys; p=sys.argv[1]; b=open(p,"rb").read(); open(p,"r+b").write(bytes(x ^ 0xff for x in b))' "$KD"
t_expect validate_content_changed_30 2 "content fingerprint changed" vs "${ALL[@]}"
cat "$S/kd.bak" >"$KD"
touch -m -d "@$(( $(stat -c %Y "$KD") + 1 ))" "$KD"
t_expect validate_stat_changed_30 2 "stat fingerprint changed" vs "${ALL[@]}"

# rebuild baseline (its artifacts now have new ctimes; the session window still holds)
rm -rf "$S/baseline_profile" "$S/baseline_profile-session.json"
ac_collect baseline_profile
ALL[1]="baseline_profile=$MB"

# 31: during finalize hashing: rename replacement, symlink swap, in-place rewrite
ac_begin candidate_verify "$S/t31/root" "$S/t31-session.json"
ac_artifacts candidate_verify "$S/t31/root"
G="$S/t31/root/artifacts/sk_graph_origin.dat"
fin31() { # HOOK_COMMAND WANT
    t_expect "finalize_during_hash_31_$3" 2 "$2" run_env SK_TEST_HOOK_REPEAT=1 \
        SK_TEST_HOOK_DURING_HASH="case \$SK_HOOK_PATH in */sk_graph_origin.dat) $1 ;; esac" \
        ac_finalize candidate_verify --session "$S/t31-session.json" --out "$S/t31/root/m.json" --jobs 1
    printf '%s' "candidate_verify:sk_graph_origin" >"$G.new" && mv -f "$G.new" "$G"
}
fin31 'printf x >"$SK_HOOK_PATH.n" && mv "$SK_HOOK_PATH.n" "$SK_HOOK_PATH"' "artifact path changed while hashing" rename
fin31 'mv "$SK_HOOK_PATH" "$SK_HOOK_PATH.o" && ln -s sk_graph_origin.dat.o "$SK_HOOK_PATH"' "artifact path changed while hashing" symlink
rm -f "$G.o"
fin31 'printf longer-content-now >>"$SK_HOOK_PATH"' "artifact changed while hashing" rewrite

# 32: a symlink swap during validation hashing
t_expect validate_symlink_swap_32 2 "artifact path changed while hashing" env SK_TEST_HOOK_REPEAT=1 \
    SK_TEST_HOOK_DURING_HASH='case $SK_HOOK_PATH in */baseline_profile/root/artifacts/kernel_details.dat) mv "$SK_HOOK_PATH" "$SK_HOOK_PATH.o" && ln -s kernel_details.dat.o "$SK_HOOK_PATH" ;; esac' \
    "$SK_BUILD/bin/artifact_contract" validate-set "${ALL[@]}" --jobs 1
rm -rf "$S/baseline_profile" "$S/baseline_profile-session.json"
ac_collect baseline_profile

# 33: after the baseline manifest was validated it is rewritten / replaced by a copy
for how in rewrite copy; do
    case $how in
        rewrite) cmd='printf " " >>"$SK_HOOK_PATH"' ;;
        copy) cmd='cp -p "$SK_HOOK_PATH" "$SK_HOOK_PATH.c" && mv "$SK_HOOK_PATH.c" "$SK_HOOK_PATH"' ;;
    esac
    cp -p "$MB" "$S/mb.bak"
    t_expect "validate_manifest_changed_33_$how" 2 "baseline_profile manifest input changed" env SK_TEST_HOOK_REPEAT=1 \
        SK_TEST_HOOK_AFTER_MANIFEST_VALIDATED="case \$SK_HOOK_PATH in */baseline_profile/root/*) $cmd ;; esac" \
        "$SK_BUILD/bin/artifact_contract" validate-set "${ALL[@]}"
    cp -p "$S/mb.bak" "$MB"
done

# 34: the manifest changes after the --json-out location check: no output
t_expect validate_json_out_input_changed_34 2 "manifest input changed" \
    env SK_TEST_HOOK_AFTER_OUTPUT_CHECK="printf ' ' >>'$MB'" \
    "$SK_BUILD/bin/artifact_contract" validate-set "${ALL[@]}" --json-out "$PWD/summary34.json"
t_ok validate_34_no_output test ! -e "$PWD/summary34.json"
cp -p "$S/mb.bak" "$MB"

# 35: config / control tampered in verify, fingerprints of the manifest recomputed
for what in config control; do
    cp -p "$MV" "$S/mv.bak"
    ac_rewrite_manifest "$MV" "m['$what']['tampered'] = True"
    t_expect "validate_${what}_tampered_35" 2 "$what fingerprint mismatch" vs "${ALL[@]}"
    cp -p "$S/mv.bak" "$MV"
done

# 36: verify manifest copied into the compat root; shared session; shared producer
cp "$MV" "$S/candidate_compat/root/verify-copy.json"
t_expect validate_roots_not_distinct_36 2 "capture roots must be pairwise distinct" \
    vs "${ALL[0]}" "${ALL[1]}" "${ALL[2]}" "${ALL[3]}" --manifest "candidate_verify=$S/candidate_compat/root/verify-copy.json" "${ALL[6]}" "${ALL[7]}"
rm "$S/candidate_compat/root/verify-copy.json"
cp -p "$MV" "$S/mv.bak"
ac_rewrite_manifest "$MV" "m['capture']['session_fingerprint'] = json.load(open('$MC'))['capture']['session_fingerprint']"
t_expect validate_sessions_not_distinct_36 2 "capture session fingerprints must be pairwise distinct" vs "${ALL[@]}"
cp -p "$S/mv.bak" "$MV"
ac_rewrite_manifest "$MV" "m['producer'] = json.load(open('$MC'))['producer']"
t_expect validate_producers_not_distinct_36 2 "producer identities must be pairwise distinct" vs "${ALL[@]}"
cp -p "$S/mv.bak" "$MV"

# 37/39/43: unsupported role sets (the library takes the roles it is given,
# so "verify missing" is an unsupported three-role set)
t_expect validate_missing_verify_37 2 "complete four-role audit set" \
    vs "${ALL[0]}" "${ALL[1]}" "${ALL[2]}" "${ALL[3]}" "${ALL[6]}" "${ALL[7]}"
t_expect validate_only_baseline_39 2 "complete four-role audit set" vs "${ALL[0]}" "${ALL[1]}"
t_expect validate_compat_verify_39 2 "complete four-role audit set" vs "${ALL[2]}" "${ALL[3]}" "${ALL[4]}" "${ALL[5]}"
t_expect validate_three_roles_39 2 "complete four-role audit set" vs "${ALL[0]}" "${ALL[1]}" "${ALL[6]}" "${ALL[7]}" "${ALL[2]}" "${ALL[3]}"
t_expect validate_only_missing_baseline_43 2 "complete four-role audit set" \
    vs --manifest "baseline_profile=$S/missing.json"

# 38: the profile pair: summary with exactly those roles, CLI stdout == file
t38() {
    artifact_contract validate-set "${ALL[0]}" "${ALL[1]}" "${ALL[6]}" "${ALL[7]}" >"$S/s38.json" || return 1
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert sorted(s["roles"])==["baseline_profile","candidate_profile"], s' "$S/s38.json"
}
t_ok validate_profile_pair_38 t38

# 40: verify differs in source revision, workload, config or control
for what in source_revision workload config control; do
    rm -rf "$S/candidate_verify" "$S/candidate_verify-session.json" "$S/in40"
    ac_inputs "$S/in40"
    rev=revision-a
    case $what in
        source_revision) rev=revision-b ;;
        workload) sed -i 's/"iterations": 3/"iterations": 4/' "$S/in40/workload.json" ;;
        config) printf '{"superkernel": true}\n' >"$S/in40/config.json" ;;
        control) printf '{"rank": 1}\n' >"$S/in40/control.json" ;;
    esac
    ac_begin candidate_verify && ac_artifacts candidate_verify && AC_INPUTS="$S/in40" AC_REV=$rev ac_finalize candidate_verify >/dev/null
    t_expect "validate_${what}_mismatch_40" 2 "$what mismatch across collection manifests" vs "${ALL[@]}"
done
rm -rf "$S/candidate_verify" "$S/candidate_verify-session.json"
ac_collect candidate_verify

# 41: determinism under argument order; --json-out writes the same summary
t41() {
    local a b c
    a=$(artifact_contract validate-set "${ALL[@]}") || return 1
    b=$(artifact_contract validate-set "${ALL[6]}" "${ALL[7]}" "${ALL[4]}" "${ALL[5]}" "${ALL[2]}" "${ALL[3]}" "${ALL[0]}" "${ALL[1]}") || return 2
    [ "$a" = "$b" ] || return 3
    c=$(artifact_contract validate-set "${ALL[@]}" --json-out "$S/out41/summary.json") || return 4
    [ -z "$c" ] && [ "$(cat "$S/out41/summary.json")" = "$a" ] || return 5
    [ "$(stat -c %a "$S/out41/summary.json")" = 600 ] || return 6
}
t_ok validate_deterministic_41 t41

# 42: --json-out on an existing file, a manifest, an artifact, the root itself
echo keep >"$S/existing.json"
t_expect validate_json_out_exists_42 2 "output already exists" vs "${ALL[@]}" --json-out "$S/existing.json"
t_ok validate_42_existing_unchanged grep -qx keep "$S/existing.json"
for target in "$MB" "$S/baseline_profile/root/artifacts/kernel_details.dat" "$S/baseline_profile/root" "$S/baseline_profile/root/new.json"; do
    t_expect "validate_json_out_overlaps_42_$(basename "$target")" 2 "overlaps capture input" vs "${ALL[@]}" --json-out "$target"
done

# 43: begin on a non-empty root; deeply nested JSON for every manifest
t_expect begin_non_empty_43 2 "capture root must be empty" \
    ac_guard artifact_contract begin --role baseline_profile --root "$S/baseline_profile/root" --session-out "$S/b43.json"
python3 -c 'print("[" * 1200 + "]" * 1200)' >"$S/deep.json"
t43() {
    local err
    err=$(artifact_contract validate-set --manifest "baseline_profile=$S/deep.json" --manifest "candidate_compat=$S/deep.json" \
        --manifest "candidate_verify=$S/deep.json" --manifest "candidate_profile=$S/deep.json" 2>&1 >/dev/null)
    [ $? -eq 2 ] && [[ $err == *"JSON nesting"* ]] && [ ${#err} -lt 300 ] && [ "$(echo "$err" | wc -l)" -eq 1 ]
}
t_ok validate_deep_json_43 t43
