#!/usr/bin/env bash
# uninstall-plan on a fake CANN tree: only scripts of packages this run
# produced, directly under $ASCEND_HOME_PATH/opp/static_kernel/ai_core, with
# no "..", no symlink and no redirection, are safe; --execute runs only those.
source "$SK_REPO/tests/lib.sh"
# call the interpreter directly: a version-manager shim costs a second per start
PYBIN=$(python3 -c 'import sys; print(sys.executable)')
python3() { "$PYBIN" "$@"; }
W=$PWD
mkdir -p cann/8.0 && ln -s 8.0 cann/latest            # the usual "latest" symlink
ROOT=$W/cann/8.0/opp/static_kernel/ai_core
mkscript() { # DIR EXIT_CODE
    mkdir -p "$1"
    printf '#!/bin/bash\necho "uninstalling %s"\necho ran >> "%s/ran.%s"\nexit %s\n' "$1" "$W" "$(basename "$1")" "$2" > "$1/uninstall.sh"
}
mkscript "$ROOT/pkgA" 0
mkscript "$ROOT/pkgB" 0                                # not produced by this run
mkscript "$W/evil/pkgA" 0                              # redirected (outside the install root)
mkscript "$W/elsewhere/pkgC" 0
mkdir -p "$ROOT/pkgC" && ln -s "$W/elsewhere/pkgC/uninstall.sh" "$ROOT/pkgC/uninstall.sh"
mkscript "$W/elsewhere/pkgD" 0
ln -s "$W/elsewhere/pkgD" "$ROOT/pkgD"                 # parent directory is a symlink
mkdir -p "$ROOT/pkgF/uninstall.sh"                     # not a regular file
mkscript "$ROOT/pkgG" 5                                # fails when run
mkdir -p out/static_kernel_compile_outputs/1_outputs
for p in pkgA pkgC pkgD pkgE pkgF pkgG; do : > "out/static_kernel_compile_outputs/1_outputs/$p.run"; done
ln -s "$W/out/static_kernel_compile_outputs/1_outputs/pkgA.run" out/pkgB.run   # a symlinked .run is no package
cat > run.log <<LOG
[INFO] install static kernel package: bash $ROOT/pkgA/uninstall.sh to remove
[INFO] again: '$ROOT/pkgA/uninstall.sh';
[INFO] $ROOT/pkgB/uninstall.sh
[INFO] via latest: $W/cann/latest/opp/static_kernel/ai_core/pkgG/uninstall.sh
[INFO] $ROOT/pkgA/../pkgA/uninstall.sh
[INFO] $W/evil/pkgA/uninstall.sh
[INFO] $ROOT/pkgC/uninstall.sh $ROOT/pkgD/uninstall.sh
[INFO] $ROOT/pkgE/uninstall.sh $ROOT/pkgF/uninstall.sh
[INFO] not candidates: /uninstall.sh uninstall.sh //uninstall.sh; the prefix of $ROOT/pkgA/uninstall.shx is (as in the reference)
LOG
check() { # NAME WANT_RC PYEXPR CMD...
    local name=$1 want=$2 expr=$3; shift 3
    "$@" >out.json 2>err.txt; local rc=$?
    if [ "$rc" -ne "$want" ]; then t_fail "$name" "exit $rc, want $want" "$(head -c 1500 err.txt)"; return; fi
    if ! W="$W" ROOT="$ROOT" python3 - "$expr" <<'PY'
import json, os, sys
W, ROOT = os.environ["W"], os.environ["ROOT"]
d = json.load(open("out.json"))
C = {c["path"].replace(W, "W"): (c["verdict"], tuple(c["reasons"]), c["executed"], c["exit"]) for c in d["candidates"]}
ok = eval("(" + sys.argv[1].strip() + "\n)")
if not ok:
    for k, v in sorted(C.items()): print("#", k, v)
sys.exit(0 if ok else 1)
PY
    then t_fail "$name" "JSON check failed"; return; fi
    t_pass "$name"
}
R=W/cann/8.0/opp/static_kernel/ai_core
export ASCEND_HOME_PATH=$W/cann/latest
check plan_classifies_every_candidate 10 "
len(C) == 9 and
C['$R/pkgA/uninstall.sh'] == ('safe', (), False, None) and
C['$R/pkgB/uninstall.sh'] == ('refused', ('not_produced_by_this_run',), False, None) and
C['W/cann/latest/opp/static_kernel/ai_core/pkgG/uninstall.sh'] == ('safe', (), False, None) and
C['$R/pkgA/../pkgA/uninstall.sh'][:2] == ('refused', ('dotdot',)) and
C['W/evil/pkgA/uninstall.sh'][:2] == ('refused', ('redirected',)) and
C['$R/pkgC/uninstall.sh'][:2] == ('refused', ('symlink', 'redirected', 'install_chain_symlink')) and
C['$R/pkgD/uninstall.sh'][:2] == ('refused', ('parent_symlink', 'redirected', 'install_chain_symlink')) and
C['$R/pkgE/uninstall.sh'][:2] == ('missing', ()) and
C['$R/pkgF/uninstall.sh'][:2] == ('not_regular', ()) and
d['packages'] == ['pkgA', 'pkgC', 'pkgD', 'pkgE', 'pkgF', 'pkgG'] and
d['install_root'] == '$W/cann/8.0/opp/static_kernel/ai_core' and d['executed'] is False and
[c['path'] for c in d['candidates']] == sorted(c['path'] for c in d['candidates'])" \
    skdcci uninstall-plan run.log --outputs out
grep -q "refused: 9 candidate(s): 2 safe, 5 refused, 1 missing, 1 not regular (nothing executed)" err.txt \
    && t_pass plan_verdict_line || t_fail plan_verdict_line "$(cat err.txt)"
ls "$W"/ran.* >/dev/null 2>&1 && t_fail plan_runs_nothing || t_pass plan_runs_nothing

check execute_runs_only_safe_scripts 10 "
C['$R/pkgA/uninstall.sh'] == ('safe', (), True, {'code': 0, 'signal': None}) and
C['W/cann/latest/opp/static_kernel/ai_core/pkgG/uninstall.sh'] == ('safe', (), True, {'code': 5, 'signal': None}) and
C['W/evil/pkgA/uninstall.sh'][2] is False and d['executed'] is True" \
    skdcci uninstall-plan run.log --outputs out --execute
[ "$(cat ran.pkgA)" = ran ] && [ "$(cat ran.pkgG)" = ran ] && [ ! -e ran.pkgB ] && [ ! -e ran.pkgC ] && [ ! -e ran.pkgD ] \
    && t_pass execute_touched_only_safe || t_fail execute_touched_only_safe "$(ls ran.* 2>&1)"
grep -q "uninstalling $ROOT/pkgA" err.txt && ! grep -q uninstalling out.json && t_pass script_output_on_stderr || t_fail script_output_on_stderr

# all safe and succeeding: exit 0
grep -E "pkgA/uninstall.sh to remove" run.log > ok.log
rm -f ran.*
check execute_all_safe_ok 0 "len(C) == 1 and C['$R/pkgA/uninstall.sh'][2:] == (True, {'code': 0, 'signal': None})" \
    skdcci uninstall-plan ok.log --outputs out --execute
# no candidates: nothing to validate, ASCEND_HOME_PATH not needed
echo "nothing here" > none.log
t_expect no_candidates_ok 0 "ok: 0 candidate(s)" env -u ASCEND_HOME_PATH "$SK_BUILD/bin/skdcci" uninstall-plan none.log --outputs out
t_expect ascend_home_required 3 "cannot validate uninstall paths without ASCEND_HOME_PATH (9 candidate(s) in the log)" \
    env -u ASCEND_HOME_PATH "$SK_BUILD/bin/skdcci" uninstall-plan run.log --outputs out
t_expect ascend_home_unresolvable 3 "ASCEND_HOME_PATH cannot be resolved" \
    env ASCEND_HOME_PATH=$W/nope "$SK_BUILD/bin/skdcci" uninstall-plan run.log --outputs out
# a symlink inside the installation chain refuses everything below it
mkdir -p chain/real/static_kernel/ai_core/pkgA chain/home/opp
cp "$ROOT/pkgA/uninstall.sh" chain/real/static_kernel/ai_core/pkgA/
ln -s "$W/chain/real/static_kernel" chain/home/opp/static_kernel
echo "$W/chain/home/opp/static_kernel/ai_core/pkgA/uninstall.sh" > chain.log
check install_chain_symlink_refused 10 "C['W/chain/home/opp/static_kernel/ai_core/pkgA/uninstall.sh'][:2] == ('refused', ('redirected', 'install_chain_symlink'))" \
    env ASCEND_HOME_PATH=$W/chain/home "$SK_BUILD/bin/skdcci" uninstall-plan chain.log --outputs out

# differential: candidate extraction equals Python's re.findall(r"/[^\s]+/uninstall\.sh")
python3 - <<'PY'
import random
random.seed(7)
alphabet = ["/", "a", "b", ".", "-", "uninstall.sh", "/uninstall.sh", " ", "\t", "\x1c", "\x1f", ";", "'", "..", "\n", "\r", "\x0b"]
lines = ["".join(random.choice(alphabet) for _ in range(random.randint(1, 40))) for _ in range(3000)]
open("fuzz.log", "w").write("\n".join(lines) + "\n")
PY
skdcci uninstall-plan fuzz.log --outputs out >fuzz.json 2>/dev/null
python3 - <<'PY' && t_pass candidates_match_python_findall || t_fail candidates_match_python_findall
import json, re, sys
want = sorted(set(re.findall(r"/[^\s]+/uninstall\.sh", open("fuzz.log").read())))
got = [c["path"] for c in json.load(open("fuzz.json"))["candidates"]]
if want != got or len(want) < 50:
    print("# want", len(want), "got", len(got), [x for x in want if x not in got][:5], [x for x in got if x not in want][:5])
    sys.exit(1)
PY
