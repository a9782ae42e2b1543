#!/usr/bin/env bash
# make dist: OUTDIR/skdcci-VERSION.tar.gz, the source tree as committed to git
# plus uncommitted edits of tracked files (outside a git checkout, e.g. in an
# unpacked tarball: every file but build/).  Reproducible: sorted names,
# owner 0, one modification time (SOURCE_DATE_EPOCH, else the last commit's,
# else the version header's), gzip without a name or time stamp.
# Prints the tarball's path.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
out=${1:?usage: dist.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
cd "$REPO"
version=$(sed -n 's/^#define SK_VERSION "\(.*\)"$/\1/p' artifact_contract/base/sk_version.h)
[ -n "$version" ] || { echo "dist: no SK_VERSION in artifact_contract/base/sk_version.h" >&2; exit 1; }
name=skdcci-$version
stage=$(mktemp -d "${TMPDIR:-/tmp}/skdcci-dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # tracked files, less those deleted in the work tree
    git ls-files -z >"$stage/all"
    git ls-files -z --deleted >"$stage/deleted"
    if [ -s "$stage/deleted" ]; then
        grep -zvxF -f "$stage/deleted" "$stage/all" >"$stage/list" || true
    else
        mv "$stage/all" "$stage/list"
    fi
    epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || true)}
else
    find . -path ./build -prune -o \( -type f -o -type l \) -print0 | sed -z 's,^\./,,' >"$stage/list"
    epoch=${SOURCE_DATE_EPOCH:-}
fi
[ -n "$epoch" ] || epoch=$(stat -c %Y artifact_contract/base/sk_version.h)
mkdir "$stage/$name"
tar --null -T "$stage/list" -cf - | tar -xf - -C "$stage/$name"
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
    --format=gnu -cf - "$name" | gzip -9n >"$stage/out.tar.gz"
mv "$stage/out.tar.gz" "$out/$name.tar.gz"
echo "$out/$name.tar.gz"
