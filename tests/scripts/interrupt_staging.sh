# Interrupted publication leaves nothing behind (docs/filesystem.md,
# "Interruption and stale staging").  Every publishing command is stopped by
# the before_publish test hook at the moment its staging entry exists (the
# hook sends SIGSTOP to the program, so no timing is guessed), then gets
# SIGINT, SIGTERM or SIGHUP and SIGCONT: it must die by that signal and the
# work directory must hold exactly what it held before.  SK_TEST_FS_DISABLE=
# tmpfile makes single files go through a named staging file, the route that
# has something to remove.  Then the stale sweep: a run killed with SIGKILL
# beside a stopped live one; the next publication removes only the dead one.
# sk-test: serial (real processes and short time bounds: runs alone, tests/run.sh)
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/contract_lib.sh"
SIGDFL="$TOOLS/sigdfl"
BASE=$PWD
INTR=0
IPID=

# While INTR=1 the program starts in the background through sigdfl (shells
# start background jobs with SIGINT ignored), armed to stop itself just before
# it publishes; IPID is its pid.
start_stopping() { # PROGRAM ARGS...
    local prog=$1; shift
    SK_TEST_HOOK_BEFORE_PUBLISH='kill -STOP $PPID' SK_TEST_HOOK_SCENE_STAGED='kill -STOP $PPID' \
        SK_TEST_FS_DISABLE=tmpfile \
        "$SIGDFL" "$SK_BUILD/bin/$prog" "$@" >"$BASE/out.txt" 2>"$BASE/err.txt" &
    IPID=$!
}
skdcci() { if [ "$INTR" = 1 ]; then start_stopping skdcci "$@"; else "$SK_BUILD/bin/skdcci" "$@"; fi; }
artifact_contract() { if [ "$INTR" = 1 ]; then start_stopping artifact_contract "$@"; else "$SK_BUILD/bin/artifact_contract" "$@"; fi; }

# Waits until PID is stopped (state T); 1 when it ended instead.  A
# condition, not a delay: the loop only bounds a hang.
wait_stopped() {
    local st i
    for i in $(seq 1 2400); do
        st=$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
        [ "$st" = T ] && return 0
        [ "$st" = Z ] && return 1
        sleep 0.025
    done
    return 1
}

snapshot() { (cd "$1" && find . -mindepth 1 -printf '%p %y %s %m\n' | LC_ALL=C sort); }

# ---------------------------------------------------------------- the table
# setup_X prepares the current directory; run_X starts the command.
setup_analyze() { cp -a "$SK_REPO/tests/data/dcci-mini" mini; }
run_analyze() { skdcci analyze --unsealed -q mini/o0 mini/disable_all -o report; }
setup_trial() { "$TOOLS/so_mkclean" O0 2 '10.3*3' '10.3*3' '10.2*3' '10.3*3' '10.3*3' &&
    "$TOOLS/so_mkclean" DA 2 '10.1*3' '10.1*3' '10.0*3' '10.1*3' '10.1*3'; }
run_trial() { skdcci trial --allow-unproven --baseline O0 --candidate DA=DA --warmup 0 --expected-ranks 2 --json-out t.json; }
setup_stability() { setup_trial; }
run_stability() { skdcci stability --allow-unproven O0 --warmup 0 --expected-ranks 2 --json-out s.json; }
setup_probe() { cp -a "$SK_REPO/tests/cases/skdcci/probe_accepts_exact_values/in/." . && mkdir out; }
run_probe() { skdcci probe check --report environment.json --values values.json --json-out out/probe.json; }
setup_config_diff() { (source "$SK_REPO/tests/cases/skdcci/cdiff_repair_json_out/setup") && mkdir -p out; }
run_config_diff() { skdcci config-diff --dcci-repair o0.yaml da.yaml rp.yaml --json out/proof.json; }
setup_repair_config() { cp "$SK_REPO"/tests/data/family/da.yaml . && mkdir out; }
run_repair_config() { skdcci repair-config --disable-all da.yaml --options "$SK_REPO/tests/data/family/analysis/dcci-repair-options.json" -o out/repair.yaml; }
setup_family() { cp -a "$SK_REPO/tests/data/family/." . && (source ./mkclean.sh) >/dev/null; }
run_family() { skdcci family report --warmup 0 --expected-ranks 2 --o0 O0 --disable-all DA_GAIN --probe environment.json --configs o0.yaml da.yaml - -o out; }
setup_matrix() { cp -a "$SK_REPO/tests/cases/skdcci/matrix_validate_json_out/in/." . && mkdir -p out; }
run_matrix() { skdcci matrix validate matrix.json --settled --json-out out/validation.json; }
setup_compile_jobs() { cp -a "$SK_REPO/tests/cases/skdcci/compile-jobs-consistent/in/." .; }
run_compile_jobs() { skdcci compile-jobs check --record a.json --record b.json --json-out jobs.json; }
setup_compile_state() { cp -a "$SK_REPO/tests/cases/skdcci/compile-state-golden-succeeded/in/." .; }
run_compile_state() { skdcci compile-state --record run.json --proc-root proc --outputs out --log run.log --json-out state.json; }
# compile-scene builds its attempt directory under a hidden name of its own
setup_compile_scene() { cp -a "$SK_REPO/tests/cases/skdcci/compile-scene-save-golden/in/." . && mkdir hist; }
run_compile_scene() { skdcci compile-scene save --history hist --record run.json --proc-root proc --outputs out --log run.log; }
setup_pyhooks() { cp -a "$SK_REPO/tests/cases/skdcci/pyhooks-diff-golden/in/." .; }
run_pyhooks() { skdcci pyhooks diff approved.json current.json --json-out diff.json; }
setup_uninstall_plan() { echo 'no candidates' >run.log && mkdir out; }
run_uninstall_plan() { skdcci uninstall-plan run.log --outputs out --json-out plan.json; }
# the capture root exists beforehand: begin creates a missing one, and an
# empty root is what a re-run of begin expects anyway
setup_begin() { mkdir root; }
run_begin() { artifact_contract begin --role dcci_o0 --root "$PWD/root" --session-out "$PWD/session.json"; }
setup_finalize() { ac_dcci_inputs "$PWD/in_o0" "$PWD/in_da" && ac_begin dcci_o0 "$PWD/root" "$PWD/s.json" &&
    ac_artifacts dcci_o0 "$PWD/root" dcci_o0 "$PWD/s.json"; }
run_finalize() { AC_INPUTS="$PWD/in_o0" ac_finalize dcci_o0 --session "$PWD/s.json" --out "$PWD/root/m.json"; }
setup_validate_set() {
    ac_dcci_inputs "$PWD/in_o0" "$PWD/in_da" || return 1
    local r
    for r in dcci_o0 dcci_disable_all; do
        ac_begin $r "$PWD/$r" "$PWD/$r.json" && ac_artifacts $r "$PWD/$r" $r "$PWD/$r.json" || return 1
    done
    AC_INPUTS="$PWD/in_o0" ac_finalize dcci_o0 --session "$PWD/dcci_o0.json" --out "$PWD/dcci_o0/m.json" >/dev/null &&
        AC_INPUTS="$PWD/in_da" ac_finalize dcci_disable_all --session "$PWD/dcci_disable_all.json" --out "$PWD/dcci_disable_all/m.json" >/dev/null
}
run_validate_set() { artifact_contract validate-set --manifest "dcci_o0=$PWD/dcci_o0/m.json" --manifest "dcci_disable_all=$PWD/dcci_disable_all/m.json" --json-out "$PWD/sum.json"; }

COMMANDS="analyze trial stability probe config_diff repair_config family matrix compile_jobs compile_state compile_scene pyhooks uninstall_plan begin finalize validate_set"

interrupt_one() { # COMMAND SIGNAL
    local c=$1 sig=$2 name="$1_$2" w="$BASE/w_$1_$2" before rc
    mkdir -p "$w" && cd "$w" || return
    if ! setup_"$c" >"$BASE/setup.txt" 2>&1; then
        t_fail "$name" "setup failed: $(head -c 500 "$BASE/setup.txt")"; cd "$BASE"; return
    fi
    before=$(snapshot "$w")
    INTR=1; run_"$c"; INTR=0
    if ! wait_stopped "$IPID"; then
        wait "$IPID"
        t_fail "$name" "the command never stopped at its publication" "stderr: $(head -c 500 "$BASE/err.txt")"
        cd "$BASE"; return
    fi
    # the staging entry must exist now, or the test proves nothing
    if ! find "$w" -name '.*.tmp' | grep -q .; then
        kill -KILL "$IPID"; wait "$IPID"
        t_fail "$name" "no staging entry at the stop" "$(snapshot "$w" | head -20)"
        cd "$BASE"; return
    fi
    kill -"$sig" "$IPID"
    kill -CONT "$IPID"
    wait "$IPID"; rc=$?
    local want=$((128 + $(kill -l "$sig")))
    if [ "$rc" -ne "$want" ]; then
        t_fail "$name" "exit $rc, want death by SIG$sig ($want)" "stderr: $(head -c 500 "$BASE/err.txt")"
    elif [ "$(snapshot "$w")" != "$before" ]; then
        t_fail "$name" "the directory changed:" "$(diff <(echo "$before") <(snapshot "$w") | head -10)"
    else
        t_pass "$name"
    fi
    cd "$BASE"
    chmod -R u+rwx "$w" 2>/dev/null; rm -rf "$w"
}

for c in $COMMANDS; do
    for sig in INT TERM HUP; do
        interrupt_one "$c" "$sig"
    done
done

# ---------------------------------------------------------------- stale staging
# One analysis is stopped at its publication and left alive, another is
# stopped there and killed with SIGKILL (its staging directory stays, its
# creator is gone); the next analysis into the same directory removes the first entry
# only, says so in one line, and publishes its own report.
W="$BASE/stale"
mkdir -p "$W/reports" && cd "$W" && setup_analyze
# the live one first: each run sweeps the directory when it starts publishing
INTR=1; skdcci analyze --unsealed -q mini/o0 mini/disable_all -o reports/live; INTR=0
LIVE=$IPID
wait_stopped "$LIVE" || t_fail stale_live_run_stopped "the live run did not stop"
INTR=1; skdcci analyze --unsealed -q mini/o0 mini/disable_all -o reports/dead; INTR=0
DEAD=$IPID
if wait_stopped "$DEAD"; then kill -KILL "$DEAD"; fi
wait "$DEAD"
dead_entry=$(cd reports && ls -A | grep '^\.dead\..*\.tmp$')
live_entry=$(cd reports && ls -A | grep '^\.live\..*\.tmp$')
if [ -n "$dead_entry" ] && [ -n "$live_entry" ]; then t_pass stale_entries_exist; else
    t_fail stale_entries_exist "$(ls -A reports)"; fi
echo unrelated >reports/.other.tmp
"$SK_BUILD/bin/skdcci" analyze --unsealed -q mini/o0 mini/disable_all -o reports/next >/dev/null 2>next.err
notes=$(grep -c 'note: removed stale staging entry' next.err)
if [ "$notes" = 1 ] && grep -qF "skdcci: note: removed stale staging entry $W/reports/$dead_entry of a process that no longer runs" next.err; then
    t_pass stale_removal_reported_once
else
    t_fail stale_removal_reported_once "$(cat next.err)"
fi
left=$(cd reports && ls -A | LC_ALL=C sort | tr '\n' ' ')
if [ "$left" = "$live_entry .other.tmp next " ] || [ "$left" = ".other.tmp $live_entry next " ]; then
    t_pass stale_only_dead_entry_removed
else
    t_fail stale_only_dead_entry_removed "left: $left" "dead: $dead_entry live: $live_entry"
fi
# the live run, continued, still publishes its own report
kill -CONT "$LIVE"
wait "$LIVE"
if [ -f reports/live/dcci-regression-analysis.json ] && ! ls -A reports | grep -q "^$live_entry\$"; then
    t_pass stale_live_run_completes
else
    t_fail stale_live_run_completes "$(ls -A reports)"
fi
# a single-file publication sweeps too: begin killed at its session record's
# staging file, then another begin writes its record into the same directory
cd "$W" && mkdir solo && cd solo
mkdir root
INTR=1; run_begin; INTR=0
DEAD=$IPID
if wait_stopped "$DEAD"; then kill -KILL "$DEAD"; fi
wait "$DEAD"
staged=$(find . -name '.*.tmp' | wc -l)
mkdir root2
"$SK_BUILD/bin/artifact_contract" begin --role dcci_o0 --root "$PWD/root2" --session-out "$PWD/other.json" >/dev/null 2>begin.err
if [ "$staged" = 1 ] && [ -z "$(find . -name '.*.tmp')" ] && [ "$(grep -c 'note: removed stale staging entry' begin.err)" = 1 ]; then
    t_pass stale_file_swept
else
    t_fail stale_file_swept "staged=$staged left=$(find . -name '.*.tmp')" "$(cat begin.err)"
fi
cd "$BASE"
