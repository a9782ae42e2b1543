#!/usr/bin/env bash
# pyhooks on fake site trees with the real python3: PYTHONPATH and
# PYTHONUSERBASE point into directories built here.  Assertions only look at
# findings under this work directory (the host's own site-packages may hold
# hooks of its own, e.g. setuptools' distutils-precedence.pth).
source "$SK_REPO/tests/lib.sh"
# call the interpreter directly: a version-manager shim costs a second per start
PYBIN=$(python3 -c 'import sys; print(sys.executable)')
python3() { "$PYBIN" "$@"; }
# the real interpreter (a pyenv shim would add a second to every start)
PY=$(python3 -c 'import sys; print(sys.executable)')
W=$PWD
UB=$W/ub
USITE=$(PYTHONUSERBASE=$UB "$PY" -S -c 'import site; print(site.getusersitepackages())')
mkdir -p "$USITE" "$W/pp1/torch" "$W/pp1/__pycache__" "$W/pp2" "$W/extra" "$W/launcher"
printf 'print("site hook")\n' > "$W/pp1/sitecustomize.py"
printf 'cached' > "$W/pp1/__pycache__/sitecustomize.cpython-311.pyc"
printf '' > "$W/pp1/torch/__init__.py"
printf 'x = 1\n' > "$W/pp2/myapp.py"
printf 'import sys\n' > "$USITE/usercustomize.py"
printf '# comment\nimport os; os.environ.setdefault("X", "1")\n../../../../extra\n\nmissing-dir\n' > "$USITE/hook.pth"
printf 'import sys\n' > "$W/extra/sitecustomize.py"
envfile() { # extra NAME=VALUE lines
    { echo "PATH=$PATH"; echo "HOME=$W"; echo "PYTHONUSERBASE=$UB"; for kv in "$@"; do echo "$kv"; done; } > env.txt
}
# check NAME WANT_RC PYEXPR CMD...: rc and a Python expression over the JSON d
# (helpers: B = set of (blocker, path relative to W) under W)
check() {
    local name=$1 want=$2 expr=$3; shift 3
    "$@" >out.json 2>err.txt; local rc=$?
    if [ "$rc" -ne "$want" ]; then t_fail "$name" "exit $rc, want $want" "$(head -c 1500 err.txt)"; return; fi
    if [ "$(wc -l <err.txt)" -ne 1 ]; then t_fail "$name" "want one stderr line" "$(cat err.txt)"; return; fi
    if ! W="$W" python3 - "$expr" <<'PY'
import json, os, sys
W = os.environ["W"] + "/"
d = json.load(open("out.json"))
rel = lambda p: p[len(W):] if p and p.startswith(W) else None
B = {(b["blocker"], rel(b["path"])) for b in d.get("blockers", []) if b["path"] is None or rel(b["path"])}
H = {(h["kind"], h["form"], rel(h["path"])) for h in d.get("hooks", []) if rel(h["path"])}
ok = eval("(" + sys.argv[1].strip() + "\n)")
if not ok:
    print("# blockers:", sorted(B, key=str)); print("# hooks:", sorted(H, key=str))
sys.exit(0 if ok else 1)
PY
    then t_fail "$name" "JSON check failed: $expr"; return; fi
    t_pass "$name"
}

envfile "PYTHONPATH=$W/pp1:$W/pp2"
check scan_finds_every_hook 10 "
('startup_hook', 'pp1/sitecustomize.py') in B and
('startup_hook', 'pp1/__pycache__/sitecustomize.cpython-311.pyc') in B and
('startup_hook', rel('$USITE/usercustomize.py')) in B and
('pth_import_hook', rel('$USITE/hook.pth')) in B and
('startup_hook', 'extra/sitecustomize.py') in B and
('shadowing_module', 'pp1/torch') in B and ('shadowing_module', 'pp2/myapp.py') in B and
('unapproved_pythonpath_entry', 'pp1') in B and ('unapproved_pythonpath_entry', 'pp2') in B and
('sitecustomize', 'cached_bytecode', 'pp1/__pycache__/sitecustomize.cpython-311.pyc') in H and
d['environment']['pythonpath'] == ['$W/pp1', '$W/pp2'] and d['verdict'] == 'blocked'" \
    skdcci pyhooks scan --python "$PY" --env-file env.txt --app-package myapp
check pth_lines_classified 10 "
[p for p in d['pth_files'] if p['path'].endswith('/hook.pth')][0]['lines'] == [
 {'line': 1, 'kind': 'comment', 'text': '# comment'},
 {'line': 2, 'kind': 'import', 'text': 'import os; os.environ.setdefault(\"X\", \"1\")'},
 {'line': 3, 'kind': 'path', 'text': '../../../../extra', 'resolved': '$W/extra', 'exists': True},
 {'line': 5, 'kind': 'path', 'text': 'missing-dir', 'resolved': '$USITE/missing-dir', 'exists': False}]
 and any(s['path'] == '$W/extra' and s['roles'] == ['pth_path'] for s in d['surface'])" \
    skdcci pyhooks scan --python "$PY" --env-file env.txt
check approved_pythonpath_entries 10 "
not any(b[0] == 'unapproved_pythonpath_entry' for b in B)" \
    skdcci pyhooks scan --python "$PY" --env-file env.txt --approve-pythonpath "$W/pp1" --approve-pythonpath "$W/pp2"

# PYTHONSTARTUP is forbidden outright: scan blocks, freeze refuses and writes nothing
envfile "PYTHONPATH=$W/pp1:$W/pp2" "PYTHONSTARTUP=$W/startup.py"
check pythonstartup_blocks 10 "('pythonstartup_set', None) in B and d['environment']['pythonstartup'] == '$W/startup.py'" \
    skdcci pyhooks scan --python "$PY" --env-file env.txt
t_expect freeze_refuses_pythonstartup 10 "refused: 1 blocker(s); first: pythonstartup_set" \
    skdcci pyhooks freeze --python "$PY" --env-file env.txt --out inv.json
[ ! -e inv.json ] && t_pass freeze_refused_writes_nothing || t_fail freeze_refused_writes_nothing

# freeze, then scans against the inventory
envfile "PYTHONPATH=$W/pp1:$W/pp2"
SCHED='{"active":5,"warmup":1,"repeat":1,"skip_first":10}'
t_expect freeze_writes_inventory 0 "froze" \
    skdcci pyhooks freeze --python "$PY" --env-file env.txt --app-package myapp --profiler-schedule "$SCHED" --out inv.json
python3 - <<PY && t_pass inventory_content || t_fail inventory_content "$(head -c 800 inv.json)"
import json, os
d = json.load(open("inv.json"))
assert d["schema_version"] == "skdcci-pyhooks-inventory-1"
assert d["pythonpath"] == ["$W/pp1", "$W/pp2"]
assert d["profiler_schedule"] == {"active": 5, "repeat": 1, "skip_first": 10, "wait": 0, "warmup": 1}
files = {f["path"]: f for f in d["files"]}
import hashlib
f = files["$W/pp1/sitecustomize.py"]
assert f["kind"] == "sitecustomize" and f["form"] == "source"
assert f["sha256"] == hashlib.sha256(open("$W/pp1/sitecustomize.py", "rb").read()).hexdigest()
assert files["$USITE/hook.pth"]["kind"] == "pth"
assert files["$W/pp1/torch"]["form"] == "package"
assert [f["path"] for f in d["files"]] == sorted(files)
assert open("inv.json").read() == json.dumps(d, sort_keys=True, separators=(",", ":")) + "\n"
PY
t_expect freeze_never_overwrites 1 "output already exists" \
    skdcci pyhooks freeze --python "$PY" --env-file env.txt --out inv.json
check against_inventory_clean 0 "d['verdict'] == 'clean' and d['blockers'] == [] and d['inventory']['path'] == 'inv.json'" \
    skdcci pyhooks scan --python "$PY" --env-file env.txt --app-package myapp --profiler-schedule "$SCHED" --against inv.json
printf 'import sys  # changed\n' > "$USITE/usercustomize.py"
printf 'import json\n' > "$USITE/new.pth"
rm "$W/pp2/myapp.py"
check against_inventory_changes 10 "
('changed_hook_file', rel('$USITE/usercustomize.py')) in B and ('new_hook_file', rel('$USITE/new.pth')) in B and
('removed_hook_file', 'pp2/myapp.py') in B" \
    skdcci pyhooks scan --python "$PY" --env-file env.txt --app-package myapp --profiler-schedule "$SCHED" --against inv.json
envfile "PYTHONPATH=$W/pp2:$W/pp1"
check pythonpath_order_changed 10 "('pythonpath_changed', None) in B and ('profiler_schedule_changed', None) in B" \
    skdcci pyhooks scan --python "$PY" --env-file env.txt --app-package myapp --profiler-schedule '{"active":6}' --against inv.json
envfile "PYTHONPATH=$W/pp1:$W/pp2"
skdcci pyhooks freeze --python "$PY" --env-file env.txt --app-package myapp --profiler-schedule "$SCHED" --out inv2.json 2>/dev/null
check diff_inventories 10 "
d['schema_version'] == 'skdcci-pyhooks-diff-1' and ('changed_hook_file', rel('$USITE/usercustomize.py')) in B and
('new_hook_file', rel('$USITE/new.pth')) in B and ('removed_hook_file', 'pp2/myapp.py') in B" \
    skdcci pyhooks diff inv.json inv2.json
check diff_identical 0 "d['verdict'] == 'clean'" skdcci pyhooks diff inv2.json inv2.json

# a shadowed start-up module: the interpreter is never run (its code would execute)
mkdir -p "$W/pp3/encodings"
printf 'open("%s/ran", "w").close()\n' "$W" > "$W/pp3/encodings/__init__.py"
envfile "PYTHONPATH=$W/pp3"
check startup_module_shadow_blocks_without_running 10 "
('startup_module_shadowed', 'pp3/encodings') in B and d['interpreter'] is None" \
    skdcci pyhooks scan --python "$PY" --env-file env.txt
[ ! -e "$W/ran" ] && t_pass shadowed_encodings_never_ran || t_fail shadowed_encodings_never_ran
t_expect freeze_refuses_startup_shadow 10 "startup_module_shadowed" \
    skdcci pyhooks freeze --python "$PY" --env-file env.txt --out inv3.json

# NUL-separated environment (the /proc/PID/environ format)
printf 'PATH=%s\0HOME=%s\0PYTHONPATH=%s\0' "$PATH" "$W" "$W/pp1" > env0.bin
check nul_separated_env_file 10 "d['environment']['pythonpath'] == ['$W/pp1'] and ('unapproved_pythonpath_entry', 'pp1') in B" \
    skdcci pyhooks scan --python "$PY" --env-file env0.bin

# interpreters that misbehave
envfile
printf '#!/bin/sh\necho $$ > %s/sleeper.pid\nexec sleep 30\n' "$W" > slow.sh; chmod +x slow.sh
t_expect query_timeout 1 "did not finish within 1000 ms" skdcci pyhooks scan --python ./slow.sh --env-file env.txt --timeout 1
SP=$(cat sleeper.pid 2>/dev/null)
sleep 0.2
{ [ -n "$SP" ] && [ ! -e "/proc/$SP" ]; } && t_pass query_timeout_reaps_its_own_group || t_fail query_timeout_reaps_its_own_group "pid $SP"
printf '#!/bin/sh\necho "not json"\n' > garbage.sh; chmod +x garbage.sh
t_expect query_garbage 1 "invalid interpreter query JSON" skdcci pyhooks scan --python ./garbage.sh --env-file env.txt
printf '#!/bin/sh\necho "Traceback (most recent call last):" >&2\necho "ModuleNotFoundError: No module named site" >&2\nexit 1\n' > broken.sh; chmod +x broken.sh
t_expect query_failure_names_error 1 "interpreter query failed (exit 1): ModuleNotFoundError: No module named site" \
    skdcci pyhooks scan --python ./broken.sh --env-file env.txt
t_expect python_not_found 1 "not found in the environment's PATH" skdcci pyhooks scan --python no-such-python-xyz --env-file env.txt
