# Replays every committed fuzz input (tests/fuzz/{corpus,seeds,regressions}/<target>/)
# through the target linked with tests/fuzz/regression_driver.c, in the build
# under test (so `make check-asan` replays under ASan+UBSan, `make
# check-valgrind` under memcheck).  One TAP line per target.  A target whose
# replay binary is missing, or that has no committed input, fails: test-bins
# builds every target in every variant.
source "$SK_REPO/tests/lib.sh"
for src in "$SK_REPO"/tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    name=${name#fuzz_}
    bin="$SK_BUILD/tests/fuzz/fuzz_$name"
    if [ ! -x "$bin" ]; then
        t_fail "replay_$name" "missing $bin (built by make test-bins)"
        continue
    fi
    dirs=()
    for k in corpus seeds regressions; do
        d="$SK_REPO/tests/fuzz/$k/$name"
        [ -d "$d" ] && [ -n "$(ls -A "$d")" ] && dirs+=("$d")
    done
    if [ ${#dirs[@]} -eq 0 ]; then
        t_fail "replay_$name" "no committed inputs under tests/fuzz/{corpus,seeds,regressions}/$name"
        continue
    fi
    log=$(mktemp)
    if $SK_WRAP "$bin" "${dirs[@]}" >"$log.out" 2>"$log"; then
        t_pass "replay_$name ($(cat "$log.out"))"
    else
        t_fail "replay_$name" "exit $?; last input and report:" "$(tail -40 "$log")"
    fi
    rm -f "$log" "$log.out"
done
