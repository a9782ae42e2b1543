# Fixture builders for the artifact_contract CLI tests (cases and scripts).
# Source after tests/lib.sh.  Conventions follow the reference tool's test
# suite (docs/artifact_contract.md "Test hooks of the contract layer"):
# capture start at fake time 1, finalize at
# 9e18, artifacts artifacts/<file_role>.dat holding "<tag>:<file_role>",
# producer started 11 + 10*index, ended started + 5, pid 1000 + index,
# command fingerprint = SHA-256 of canonical {"command": tag}.
#
# Everything is built under $S, a scratch directory outside the case's work
# directory (sessions and manifests bind absolute paths, so they cannot be
# shipped in in/); it is removed when the shell exits.  ac_guard runs a
# command and reports on stderr if it changed anything under $S, which
# extends the case runner's "no file left behind" rule to the scratch tree.

S=$(mktemp -d "${TMPDIR:-/tmp}/ac-case.XXXXXX")
trap 'chmod -R u+rwx "$S" 2>/dev/null; rm -rf "$S"' EXIT
AC_START=1
AC_FINAL=9000000000000000000

ac_roles_of() { # CAPTURE_ROLE -> required file roles
    case $1 in
        baseline_profile) echo "kernel_details task_time trace_view" ;;
        candidate_compat|candidate_verify) echo "sk_graph_origin sk_graph_updated sk_fused_nodes sk_scope_split super_kernel" ;;
        candidate_profile) echo "kernel_details task_time trace_view sk_graph_origin sk_graph_updated sk_fused_nodes sk_scope_split super_kernel" ;;
        dcci_o0|dcci_disable_all) echo "kernel_details sk_prof sk_graph_origin sk_graph_updated sk_fused_nodes super_kernel" ;;
    esac
}

ac_index_of() {
    case $1 in
        baseline_profile) echo 0 ;; candidate_compat) echo 1 ;; candidate_verify) echo 2 ;;
        candidate_profile) echo 3 ;; dcci_o0) echo 4 ;; dcci_disable_all) echo 5 ;;
    esac
}

# Canonical-JSON SHA-256 of {"command": TAG} without python: the canonical
# text is plain ASCII for our tags.
ac_command_fp() { printf '{"command":"%s"}' "$1" | sha256sum | cut -d' ' -f1; }

ac_inputs() { # [DIR]  default inputs (reference fixtures)
    local dir=${1:-$S/inputs}
    mkdir -p "$dir"
    printf '{"superkernel": false}\n' >"$dir/config.json"
    printf '{"rank": 0}\n' >"$dir/control.json"
    printf '{"model": "deepseek_v4", "input": 1, "batch": 1, "rank": 16, "mode": "decode", "warmup": 2, "iterations": 3, "runtime": {"backend": "npugraph_ex"}}\n' >"$dir/workload.json"
}

ac_dcci_inputs() { # DIR_O0 DIR_DA  execution configs differing in dcci_disable_on_kernel
    mkdir -p "$1" "$2"
    ac_inputs "$1"; ac_inputs "$2"
    printf '{"graph": "g", "optimize_options": {"auto_op_parallel": 1}}\n' >"$1/config.json"
    printf '{"graph": "g", "optimize_options": {"auto_op_parallel": 1, "dcci_disable_on_kernel": [".*"]}}\n' >"$2/config.json"
    printf '{"ASCEND_PROF_SK_ON": 1024, "rank": 0}\n' >"$1/control.json"
    printf '{"ASCEND_PROF_SK_ON": 1024, "rank": 0}\n' >"$2/control.json"
}

ac_begin() { # ROLE [ROOT] [SESSION] [START_NS]
    local role=$1 root=${2:-$S/$1/root} session=${3:-$S/$1-session.json}
    SK_TEST_CLOCK_NS=${4:-$AC_START} artifact_contract begin --role "$role" --root "$root" \
        --session-out "$session" >/dev/null
}

# ac_record_of ROLE [SESSION]: the run record of the DCCI role's producer
# (artifact_contract run writes it beside the session record)
ac_record_of() { local session=${2:-$S/$1-session.json}; echo "${session%.json}.producer.json"; }

# A DCCI capture is bound to its producer's run record (finalize refuses
# asserted values for these roles), so for dcci_* roles the artifacts are
# written by a producer under `artifact_contract run` of the session that
# belongs to ROOT (SESSION, by default X/ROLE-session.json for ROOT =
# X/ROLE/root); the shell code in AC_PRODUCER_EXTRA (with $root set) runs in
# the producer too.
ac_artifacts() { # ROLE [ROOT] [TAG] [SESSION]
    local role=$1 root=${2:-$S/$1/root} tag=${3:-$1} f
    local session=${4:-${root%/"$role"/root}/$role-session.json}
    case $role in
    dcci_*)
        artifact_contract run --session "$session" -- \
            sh -c 'root=$1 tag=$2; shift 2; mkdir -p "$root/artifacts" &&
                for f; do printf "%s:%s" "$tag" "$f" >"$root/artifacts/$f.dat" || exit 1; done &&
                eval "${AC_PRODUCER_EXTRA:-:}"' \
            sh "$root" "$tag" $(ac_roles_of "$role") >/dev/null
        return ;;
    esac
    mkdir -p "$root/artifacts"
    for f in $(ac_roles_of "$role"); do printf '%s:%s' "$tag" "$f" >"$root/artifacts/$f.dat"; done
}

# ac_finalize ROLE [extra finalize args...]: default finalize of ROLE's root
# with the reference's producer values (dcci_* roles: the producer's run
# record); extra args come last (last wins).
ac_finalize() {
    local role=$1; shift
    local i; i=$(ac_index_of "$role")
    local started=$((11 + 10 * i))
    local inputs=${AC_INPUTS:-$S/inputs}
    local producer=(--native-pid $((1000 + i)) --started-ns $started --ended-ns $((started + 5))
        --command-fingerprint "$(ac_command_fp "$role")")
    local session=$S/$role-session.json a prev=""
    for a in "$@"; do [ "$prev" = --session ] && session=$a; prev=$a; done
    case $role in dcci_*) producer=(--producer-record "$(ac_record_of "$role" "$session")") ;; esac
    local args=(--session "$S/$role-session.json" --source-revision "${AC_REV:-revision-a}"
        "${producer[@]}"
        --workload "$inputs/workload.json" --config "$inputs/config.json" --control "$inputs/control.json"
        --out "$S/$role/root/collection-manifest.json")
    local f
    for f in $(ac_roles_of "$role"); do args+=(--file "$f=artifacts/$f.dat"); done
    case $role in dcci_*) args+=(--round-id "S5-$role") ;; esac
    SK_TEST_CLOCK_NS=${AC_FINAL_NS:-$AC_FINAL} artifact_contract finalize "${args[@]}" "$@"
}

ac_collect() { # ROLE: begin + artifacts + finalize (quiet)
    ac_begin "$1" && ac_artifacts "$1" && ac_finalize "$1" >/dev/null
}

ac_manifest_of() { echo "$S/$1/root/collection-manifest.json"; }

ac_snapshot() { (cd "$S" && find . -printf '%p %y %s %T@ %m\n' | LC_ALL=C sort); }

# Runs CMD...; when anything under $S changed, says so on stderr.
ac_guard() {
    local before after rc
    before=$(ac_snapshot)
    "$@"
    rc=$?
    after=$(ac_snapshot)
    if [ "$before" != "$after" ]; then
        echo "ac_guard: the command changed the scratch tree:" \
            "$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -3 | tr '\n' ' ')" >&2
    fi
    return $rc
}

# first_line CMD...: CMD's exit code with only the first line of its stderr
# (usage errors add a hint line)
first_line() { local err rc; err=$("$@" 2>&1 >/dev/null); rc=$?; printf '%s\n' "${err%%$'\n'*}" >&2; return $rc; }

# Rewrites a manifest with python3 (stdlib only): applies the expression
# EXPR to the dict `m` and recomputes manifest_fingerprint.
ac_rewrite_manifest() { # PATH PYTHON_STATEMENTS
    python3 - "$1" "$2" <<'PY'
import hashlib, json, sys
path, stmts = sys.argv[1], sys.argv[2]
with open(path) as f:
    m = json.load(f)
def fp(v):
    return hashlib.sha256(json.dumps(v, ensure_ascii=True, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()).hexdigest()
exec(stmts)
m.pop("manifest_fingerprint", None)
m["manifest_fingerprint"] = fp(m)
with open(path, "w") as f:
    f.write(json.dumps(m, ensure_ascii=True, sort_keys=True, separators=(",", ":")) + "\n")
PY
}
