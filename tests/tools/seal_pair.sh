#!/usr/bin/env bash
# Seals a raw pair written by skdcci_gen into two evidence-contract capture
# roots (DCCI pair mode of artifact_contract, docs/artifact_contract.md):
#
#   tests/tools/seal_pair.sh [options] DIR
#
# For each side (o0 -> role dcci_o0, disable_all -> role dcci_disable_all):
#   1. the generated files move to DIR/.raw-<side> (outside the root) and the
#      root DIR/<side> is recreated empty;
#   2. artifact_contract begin --role ROLE --root DIR/<side>
#        --session-out DIR/<side>.session.json
#   3. artifact_contract run --session DIR/<side>.session.json -- cp -R STAGING/. ROOT/
#      so the files are created inside the recorded producer window (cp -R
#      gives them fresh mtimes and ctimes; copying with -a/-p would not).
#      This copying producer stands in for the profiling run the generator
#      simulates: one child process per sk_meta/<pid>/ directory (one per
#      rank of a multi-rank pair, all at once) renames it, with the raw
#      trace it holds, to its own pid, as the runtime's inference process
#      writes sk_meta/<its pid>/, so that the analyzer finds the writer among
#      the processes the run observed (docs/artifact_contract.md "Copied
#      captures"); the same child renames the process's profiler directories
#      <worker>_<pid>_<time>_ascend_pt (torch_npu layout, every cycle) to its
#      pid, as torch_npu names them after the process; the pids inside the
#      runtime logs keep the generated value;
#   4. artifact_contract finalize --producer-record DIR/<side>.session.producer.json
#        --round-id ID --source-revision REV --workload/--config/--control
#        DIR/inputs/<side>/*.json --file ROLE=PATH (every file of the root)
#        --out DIR/<side>/collection-manifest.json
# then artifact_contract validate-set on the two manifests, with the summary
# in DIR/set-summary.json.
#
# Options:
#   --artifact-contract BIN   the binary (default: $ARTIFACT_CONTRACT or
#                             artifact_contract on PATH)
#   --source-revision REV     default: skdcci_gen-<scenario>-seed<seed> from
#                             DIR/ground-truth.json
#   --round-o0 ID             default DCCI-O0
#   --round-disable-all ID    default DCCI-DISABLE-ALL
#
# Exit status: 0 sealed and validated; 1 a step failed (its own message is
# shown; DIR is left as the failing step left it); 2 usage.
set -euo pipefail

usage() {
    echo "usage: seal_pair.sh [--artifact-contract BIN] [--source-revision REV] [--round-o0 ID]" \
         "[--round-disable-all ID] DIR" >&2
    exit 2
}

AC=${ARTIFACT_CONTRACT:-artifact_contract}
REV=""
ROUND_O0=DCCI-O0
ROUND_DA=DCCI-DISABLE-ALL
DIR=""
while [ $# -gt 0 ]; do
    case $1 in
        --artifact-contract) [ $# -ge 2 ] || usage; AC=$2; shift 2 ;;
        --source-revision) [ $# -ge 2 ] || usage; REV=$2; shift 2 ;;
        --round-o0) [ $# -ge 2 ] || usage; ROUND_O0=$2; shift 2 ;;
        --round-disable-all) [ $# -ge 2 ] || usage; ROUND_DA=$2; shift 2 ;;
        -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
        -*) usage ;;
        *) [ -z "$DIR" ] || usage; DIR=$1; shift ;;
    esac
done
[ -n "$DIR" ] || usage
DIR=$(cd "$DIR" && pwd -P)

fail() { echo "seal_pair.sh: $*" >&2; exit 1; }

[ -f "$DIR/ground-truth.json" ] || fail "$DIR/ground-truth.json: not a skdcci_gen pair"
if [ -z "$REV" ]; then
    scenario=$(grep -o '"scenario":"[a-z0-9_]*"' "$DIR/ground-truth.json" | head -1 | cut -d'"' -f4)
    seed=$(grep -o '"seed":[0-9]*' "$DIR/ground-truth.json" | head -1 | cut -d: -f2)
    REV="skdcci_gen-${scenario}-seed${seed}"
fi

# The file role of a root-relative path (the DCCI file roles of
# docs/artifact_contract.md "Roles"; sk_prof may be
# .zst-compressed like every analyzer input).
file_role() {
    case ${1##*/} in
        kernel_details.csv|kernel_details.csv.zst) echo kernel_details ;;
        sk_prof_device_*.json|sk_prof_device_*.json.zst) echo sk_prof ;;
        sk_graph_origin.json|sk_graph_origin.json.zst) echo sk_graph_origin ;;
        sk_graph_updated.json|sk_graph_updated.json.zst) echo sk_graph_updated ;;
        sk_fused_nodes.log) echo sk_fused_nodes ;;
        sk_scope_split.log) echo sk_scope_split ;;
        sk_fusion_fail_reasons.log) echo sk_fusion_fail_reasons ;;
        super_kernel.log) echo super_kernel ;;
        *) return 1 ;;
    esac
}

seal_side() { # SIDE ROLE ROUND
    local side=$1 role=$2 round=$3
    local root=$DIR/$side staging=$DIR/.raw-$side session=$DIR/$side.session.json
    local inputs=$DIR/inputs/$side
    [ -d "$root" ] || fail "$root: missing"
    [ ! -e "$root/collection-manifest.json" ] || fail "$root: already sealed"
    [ ! -e "$staging" ] || fail "$staging: exists (an earlier run failed half-way?)"
    local args=() rel r
    while IFS= read -r rel; do
        file_role "$rel" >/dev/null || fail "$root/$rel: no file role for this file"
    done < <(cd "$root" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
    mv "$root" "$staging"
    mkdir "$root"
    "$AC" begin --role "$role" --root "$root" --session-out "$session" >/dev/null ||
        fail "begin failed for $side (raw files in $staging)"
    # the producer copies the side, then one child process per SK metadata
    # directory renames sk_meta/<generated pid> (and the process's
    # <worker>_<generated pid>_<time>_ascend_pt directories) to its own pid
    # and lives long enough for the runner's group scan to observe it (as
    # the runtime's inference process writes sk_meta/<its pid>/ and
    # torch_npu names the profiler directory after it).  The directories
    # first get names no pid has, so that a child whose pid equals a
    # generated one cannot meet a directory not yet renamed; the children
    # run at once.
    "$AC" run --session "$session" -- sh -c '
        cp -R "$1/." "$2/" || exit 1
        [ -d "$2/sk_meta" ] || exit 0
        for d in "$2"/sk_meta/*/; do
            [ -d "$d" ] || continue
            d=${d%/}
            old=${d##*/}
            find "$2" -depth -type d -name "*_${old}_*_ascend_pt" | while IFS= read -r a; do
                printf "%s\n" "${a##*/}" | grep -Eq "_${old}_[0-9]{17}_ascend_pt\$" || continue
                mv -T "$a" "${a%/*}/.producer-$old.${a##*/}" || exit 1
            done || exit 1
            mv -T "$d" "${d%/*}/.producer-$old" || exit 1
        done
        pids=
        for d in "$2"/sk_meta/.producer-*/; do
            [ -d "$d" ] || continue
            sh -c '\''
                old=${1##*/.producer-}
                # listed before any rename; the other children rename their own
                # directories meanwhile, so find may meet one that just moved
                # (its complaint is noise: a directory of this child that
                # kept its .producer name fails the seal check below)
                list=$(find "$2" -depth -type d -name ".producer-$old.*" 2>/dev/null)
                printf "%s\n" "$list" | while IFS= read -r a; do
                    [ -n "$a" ] || continue
                    new=$(printf "%s\n" "${a##*/.producer-$old.}" |
                          sed -E "s/_${old}_([0-9]{17})_ascend_pt\$/_$$_\1_ascend_pt/")
                    mv -T "$a" "${a%/*}/$new" || exit 1
                done || exit 1
                mv -T "$1" "${1%/*}/$$" && sleep 0.5'\'' sh "${d%/}" "$2" &
            pids="$pids $!"
        done
        for p in $pids; do wait "$p" || exit 1; done' sh "$staging" "$root" ||
        fail "run failed for $side (raw files in $staging)"
    left=$(cd "$root" && find . -name ".producer-*" | head -1)
    [ -z "$left" ] || fail "$side: $left was not renamed by its producer child"
    while IFS= read -r rel; do
        args+=(--file "$(file_role "$rel")=$rel")
    done < <(cd "$root" && find . -type f ! -name .collection-session.json | sed 's|^\./||' | LC_ALL=C sort)
    "$AC" finalize --session "$session" --producer-record "${session%.json}.producer.json" \
        --round-id "$round" --source-revision "$REV" \
        --workload "$inputs/workload.json" --config "$inputs/config.json" --control "$inputs/control.json" \
        "${args[@]}" --out "$root/collection-manifest.json" >/dev/null ||
        fail "finalize failed for $side (raw files in $staging)"
    rm -rf "$staging"
}

seal_side o0 dcci_o0 "$ROUND_O0"
seal_side disable_all dcci_disable_all "$ROUND_DA"
"$AC" validate-set --manifest "dcci_o0=$DIR/o0/collection-manifest.json" \
    --manifest "dcci_disable_all=$DIR/disable_all/collection-manifest.json" \
    --json-out "$DIR/set-summary.json" || fail "validate-set rejected the pair"
echo "sealed $DIR (o0: $ROUND_O0, disable_all: $ROUND_DA, revision $REV)"
