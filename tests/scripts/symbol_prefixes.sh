# Every global symbol a library defines carries that library's prefix, so the
# libraries can be linked into one program (and into other programs) without
# clashes, and a symbol names the folder it comes from (docs/architecture.md).
# Runs on the static libraries of the build under test.
source "$SK_REPO/tests/lib.sh"
SK_SCRIPT=symbol_prefixes
# library (without lib and .a) -> the prefix of every defined global symbol
for pair in skbase:sk_ skcli:cli_ artifact_contract:ac_ skreaders:rd_ sknumeric:num_ skchart:ch_ \
    skdcci:dcci_ skstageo:so_ skcompilesafety:cs_; do
    lib=${pair%%:*} prefix=${pair#*:}
    a="$SK_BUILD/lib/lib$lib.a"
    if [ ! -f "$a" ]; then
        t_fail "$lib" "no library $a"
        continue
    fi
    # nm prints "address type name" for defined symbols; the name is the last field
    if ! syms=$(nm -g --defined-only "$a" 2>&1); then
        t_fail "$lib" "nm failed: $syms"
        continue
    fi
    # AddressSanitizer adds one "__odr_asan.<symbol>" per global variable: the
    # compiler's name, checked through the <symbol> it carries
    bad=$(printf '%s\n' "$syms" | awk -v p="$prefix" 'NF == 3 { n = $3; sub(/^__odr_asan\./, "", n); if (index(n, p) != 1) print $3 }' | sort -u)
    count=$(printf '%s\n' "$syms" | awk 'NF == 3' | wc -l)
    if [ -n "$bad" ]; then
        t_fail "$lib" "global symbols without the prefix $prefix:" $bad
    elif [ "$count" -eq 0 ]; then
        t_fail "$lib" "no defined global symbol found in $a"
    else
        t_pass "$lib"
    fi
done
