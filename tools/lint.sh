#!/usr/bin/env bash
# Static analysis (`make lint`): cppcheck and clang-tidy over every C source of
# the libraries and the command-line tools.  Fails on any finding.  Checks and
# the reason for each exclusion: .clang-tidy; inline suppressions carry their
# justification next to them.  LINT_JOBS (default: online CPUs, at most 2)
# parallelises clang-tidy; LINT_FILES restricts both tools to some files.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in cppcheck clang-tidy; do
    command -v "$tool" >/dev/null || { echo "lint: $tool not found (Debian package: $tool)" >&2; exit 2; }
done
PKGS="libpcre2-8 libcjson libzstd libcrypto yaml-0.1"
# The test build's configuration: it compiles the most code (the test hooks).
DEFS=(-D_GNU_SOURCE -DOPENSSL_API_COMPAT=30000 -DOPENSSL_NO_DEPRECATED -DSK_TEST_HOOKS)
read -r -a PKG_CFLAGS <<<"$(pkg-config --cflags $PKGS 2>/dev/null || true)"
if [ -n "${LINT_FILES:-}" ]; then
    read -r -a FILES <<<"$LINT_FILES"
else
    mapfile -t FILES < <(find artifact_contract analyzer -name "*.c" | LC_ALL=C sort)
fi
JOBS=${LINT_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$JOBS" -gt 2 ] && JOBS=2
start=$SECONDS

# cppcheck: warnings (real bugs), portability and performance; style is left
# to the compiler's -Wall -Wextra.  Only our include directories are given:
# system headers are not analysed (missingIncludeSystem is expected).
echo "lint: cppcheck on ${#FILES[@]} files"
cppcheck -q -j "$JOBS" --std=c11 --language=c --enable=warning,portability,performance \
    --inline-suppr --error-exitcode=1 --suppress=missingIncludeSystem \
    "${DEFS[@]}" -I . "${FILES[@]}"
echo "lint: cppcheck clean ($((SECONDS - start)) s)"

# clang-tidy: one process per file, JOBS at a time; any diagnostic fails.
t0=$SECONDS
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "lint: clang-tidy on ${#FILES[@]} files ($JOBS jobs)"
if ! printf '%s\n' "${FILES[@]}" |
    xargs -P "$JOBS" -I{} clang-tidy --quiet {} -- -std=c11 -I. "${DEFS[@]}" "${PKG_CFLAGS[@]}" \
        >"$out" 2>/dev/null; then
    grep -E 'warning:|error:' -A3 "$out" >&2 || cat "$out" >&2
    echo "lint: clang-tidy found problems ($(grep -cE 'warning:|error:' "$out") diagnostics)" >&2
    exit 1
fi
echo "lint: clang-tidy clean ($((SECONDS - t0)) s)"
echo "lint: all clean in $((SECONDS - start)) s"
