# make dist: the tarball holds exactly the source tree (the files git tracks,
# or every file but build/ outside git) under skdcci-VERSION/, is
# reproducible, and an unpacked tarball makes the same tarball again.  Its own
# `make deps && make check` is `make distcheck` (docs/testing.md): the whole
# suite is too long to repeat inside the suite.
source "$SK_REPO/tests/lib.sh"
v=$(sed -n 's/^#define SK_VERSION "\(.*\)"$/\1/p' "$SK_REPO/artifact_contract/base/sk_version.h")
export SOURCE_DATE_EPOCH=1700000000
if out=$("$SK_REPO/tools/dist.sh" one 2>&1) && [ "$out" = "$PWD/one/skdcci-$v.tar.gz" ]; then t_pass makes_tarball
else t_fail makes_tarball "$out"; fi
"$SK_REPO/tools/dist.sh" two >/dev/null 2>&1
if cmp -s "one/skdcci-$v.tar.gz" "two/skdcci-$v.tar.gz"; then t_pass reproducible; else t_fail reproducible; fi

# the expected list: what git tracks (and still exists), else the tree
if git -C "$SK_REPO" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$SK_REPO" && git ls-files -z | xargs -0 -r ls -d 2>/dev/null) | LC_ALL=C sort >want.txt
else
    (cd "$SK_REPO" && find . -path ./build -prune -o \( -type f -o -type l \) -print | sed 's,^\./,,') |
        LC_ALL=C sort >want.txt
fi
tar -tzf "one/skdcci-$v.tar.gz" | grep -v '/$' | LC_ALL=C sort >got.txt
if ! grep -qv "^skdcci-$v/" got.txt && sed "s,^skdcci-$v/,," got.txt | cmp -s - want.txt; then
    t_pass holds_the_source_tree
else
    t_fail holds_the_source_tree "$(sed "s,^skdcci-$v/,," got.txt | diff - want.txt | head -10)"
fi
for f in Makefile mk/hosts.mk tools/deps.sh README.md fixtures/demo/ground-truth.json; do
    grep -qx "skdcci-$v/$f" got.txt || t_fail "holds_$f" "missing"
done

# unpacked (no git), it makes the same file list again; modes and symlinks survive
mkdir un && tar -xzf "one/skdcci-$v.tar.gz" -C un
if [ -x "un/skdcci-$v/tools/deps.sh" ] && [ -x "un/skdcci-$v/tests/run.sh" ]; then t_pass modes_kept
else t_fail modes_kept; fi
if [ "$(cd "$SK_REPO" && find tests/cases -type l | LC_ALL=C sort)" = "$(cd "un/skdcci-$v" && find tests/cases -type l | LC_ALL=C sort)" ]; then
    t_pass symlinks_kept
else
    t_fail symlinks_kept
fi
(cd "un/skdcci-$v" && GIT_CEILING_DIRECTORIES=$PWD/.. tools/dist.sh "$PWD/../../three") >/dev/null 2>&1
if [ "$(tar -tzf "three/skdcci-$v.tar.gz" | grep -v '/$' | LC_ALL=C sort)" = "$(cat got.txt)" ]; then
    t_pass redist_from_tarball
else
    t_fail redist_from_tarball "$(tar -tzf "three/skdcci-$v.tar.gz" 2>&1 | grep -v '/$' | LC_ALL=C sort | diff - got.txt | head -5)"
fi
