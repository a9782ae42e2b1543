#!/usr/bin/env bash
# make distcheck: unpacks TARBALL into a fresh temporary directory and runs
# the README's set-up command there, `make deps && make TARGET` (TARGET
# defaults to check: the whole suite).  The directory is removed on success
# and kept, with its path printed, on failure.
set -euo pipefail
tarball=${1:?usage: distcheck.sh TARBALL [TARGET]}
target=${2:-check}
case $tarball in /*) ;; *) tarball=$PWD/$tarball ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/skdcci-distcheck.XXXXXX")
tar -xzf "$tarball" -C "$work"
dir=$(find "$work" -mindepth 1 -maxdepth 1 -type d)
[ "$(wc -l <<<"$dir")" = 1 ] || { echo "distcheck: $tarball must hold one top directory" >&2; exit 1; }
echo "distcheck: make deps && make $target in $dir"
if (cd "$dir" && make deps && make "$target"); then
    rm -rf "$work"
    echo "distcheck: passed"
else
    echo "distcheck: failed; the unpacked tree is kept in $dir" >&2
    exit 1
fi
