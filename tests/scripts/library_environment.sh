# The libraries read no environment variable in a release build: the
# programs (*/cli/) read it and pass the value in (SK_HASH_THREADS, TMPDIR).
# Only the test hooks (#ifdef SK_TEST_HOOKS: fault injection, fake clocks,
# allocation failures) may call getenv, and they are compiled out of a
# release build; this preprocesses every library source without them.
source "$SK_REPO/tests/lib.sh"
SK_SCRIPT=library_environment
cd "$SK_REPO" || exit 1
CC=${CC:-cc}
read -r -a PKG_CFLAGS <<<"$(pkg-config --cflags libpcre2-8 libcjson libzstd libcrypto yaml-0.1 2>/dev/null || true)"
bad="" n=0
while IFS= read -r f; do
    n=$((n + 1))
    if ! text=$("$CC" -std=c11 -I. -D_GNU_SOURCE -DOPENSSL_API_COMPAT=30000 "${PKG_CFLAGS[@]}" \
        -E -P "$f" 2>&1); then
        bad+=" $f(preprocessing failed)"
        continue
    fi
    # a call, not the declaration from <stdlib.h>
    if printf '%s\n' "$text" | grep -v '^extern ' | grep -q 'getenv *('; then
        bad+=" $f"
    fi
done < <(find artifact_contract analyzer -name '*.c' -not -path '*/cli/*' | LC_ALL=C sort)
if [ -n "$bad" ]; then
    t_fail "no_getenv_in_release_libraries" "library sources calling getenv without SK_TEST_HOOKS:$bad"
elif [ "$n" -lt 50 ]; then
    t_fail "no_getenv_in_release_libraries" "only $n library sources found"
else
    t_pass "no_getenv_in_release_libraries"
fi
