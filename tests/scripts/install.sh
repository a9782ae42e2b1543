# make install / uninstall into a temporary prefix, the installed programs,
# man pages (rendered with man -l, one section per command, each command's
# usage text in it) and bash completion (commands, sub-commands, options);
# --version names every linked library at the version pkg-config reports.
source "$SK_REPO/tests/lib.sh"
# The test build's binaries are installed as they are (-o: never rebuilt
# here with other flags); the man pages and completion are generated into it.
inst() {
    make -s --no-print-directory -C "$SK_REPO" B="$SK_BUILD" -o "$SK_BUILD/bin/skdcci" \
        -o "$SK_BUILD/bin/artifact_contract" "$@"
}
PROGS="artifact_contract skdcci"
x=$PWD/x
if inst install PREFIX="$x" >install.log 2>&1; then t_pass install_runs; else t_fail install_runs "$(tail -5 install.log)"; fi
want="bin/artifact_contract
bin/skdcci
share/bash-completion/completions/artifact_contract
share/bash-completion/completions/skdcci
share/man/man1/artifact_contract.1
share/man/man1/skdcci.1"
got=$(cd "$x" 2>/dev/null && find . -type f | sed 's,^\./,,' | LC_ALL=C sort)
if [ "$got" = "$want" ]; then t_pass installed_files; else t_fail installed_files "got: $got"; fi

for p in $PROGS; do
    if "$x/bin/$p" --help >help.txt 2>&1 && grep -q "^Usage: $p COMMAND" help.txt; then t_pass "${p}_help"
    else t_fail "${p}_help" "$(head -3 help.txt)"; fi

    # --version: the version, then each library as the loaded library reports it
    "$x/bin/$p" --version >version.txt 2>&1
    v=$(sed -n 's/^#define SK_VERSION "\(.*\)"$/\1/p' "$SK_REPO/artifact_contract/base/sk_version.h")
    bad=""
    [ "$(head -1 version.txt)" = "$p $v" ] || bad="first line: $(head -1 version.txt)"
    for lib in "PCRE2:libpcre2-8" "cJSON:libcjson" "zstd:libzstd" "OpenSSL:libcrypto" "libyaml:yaml-0.1"; do
        mv=$(pkg-config --modversion "${lib#*:}")
        grep -qE "^  ${lib%%:*} +.*$(sed 's/[.]/[.]/g' <<<"$mv")" version.txt || bad="$bad; ${lib%%:*} $mv missing"
    done
    grep -qE '^  PCRE2 .*\(JIT (available|not available)\)$' version.txt || bad="$bad; JIT state missing"
    if [ -z "$bad" ]; then t_pass "${p}_version"; else t_fail "${p}_version" "$bad" "$(cat version.txt)"; fi

    # the man page renders, and has every command with its complete usage
    # (a UTF-8 locale: some usage texts hold Chinese reasons)
    page=$x/share/man/man1/$p.1
    if LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$page" >man.txt 2>man.err && [ ! -s man.err ] &&
        grep -q "^NAME" man.txt; then
        t_pass "${p}_man_renders"
    else
        t_fail "${p}_man_renders" "$(head -5 man.err)"
    fi
    cmds=$("$SK_REPO/tools/help_commands.sh" "$x/bin/$p")
    rm -rf usage && mkdir usage
    for c in $cmds; do "$x/bin/$p" "$c" --help >"usage/$c"; done
    # every command has a subsection holding every line of its --help, in order
    if bad=$(python3 - man.txt usage $cmds <<'PY'
import sys, os
page = [l.rstrip() for l in open(sys.argv[1], encoding="utf-8")]
bad = [] if sys.argv[3:] else ["no commands in --help"]
for c in sys.argv[3:]:
    if "   " + c not in page:
        bad.append("no section for " + c)
        continue
    body = [l[7:] if l.startswith("       ") else l for l in page[page.index("   " + c) + 1:]]
    want = [l.rstrip() for l in open(os.path.join(sys.argv[2], c), encoding="utf-8") if l.strip()]
    i = 0
    for l in body:
        if i < len(want) and l == want[i]:
            i += 1
    if i < len(want):
        bad.append("%s: page lacks usage line %r" % (c, want[i]))
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
    ); then t_pass "${p}_man_has_every_command"; else t_fail "${p}_man_has_every_command" "$bad"; fi

    # completion, in one shell: the commands, then for each command every
    # option its --help names
    comp=$x/share/bash-completion/completions/$p
    bad=$(bash -c '
        source "$1"; prog=$2; shift 2
        f=$(complete -p "$prog" | sed "s/.*-F \([^ ]*\) .*/\1/")
        offer() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); "$f"; printf "%s\n" "${COMPREPLY[@]}"; }
        want=$(printf "%s\n" "$@" | LC_ALL=C sort)
        got=$(offer "$prog" "" | LC_ALL=C sort)
        [ "$got" = "$want" ] || echo "commands: $got"
        [ "$(offer "$prog" --v)" = --version ] || echo "--v: $(offer "$prog" --v)"
        for c in "$@"; do
            opts=$(offer "$prog" "$c" x -)
            for o in $(grep -oE -- "--[a-z0-9][a-z0-9-]*" "usage/$c" | sort -u); do
                grep -qx -- "$o" <<<"$opts" || echo "$c: $o not offered"
            done
        done' _ "$comp" "$p" $cmds 2>&1)
    if [ -z "$bad" ]; then t_pass "${p}_completion"; else t_fail "${p}_completion" "$bad"; fi
done
if [ "$(bash -c 'source "$1"; COMP_WORDS=(skdcci matrix ""); COMP_CWORD=2; _skdcci; printf "%s " "${COMPREPLY[@]}"' _ "$x/share/bash-completion/completions/skdcci")" = "validate status " ]; then
    t_pass completion_subcommands
else
    t_fail completion_subcommands "matrix offers: $(bash -c 'source "$1"; COMP_WORDS=(skdcci matrix ""); COMP_CWORD=2; _skdcci; printf "%s " "${COMPREPLY[@]}"' _ "$x/share/bash-completion/completions/skdcci")"
fi

# DESTDIR stages under another root with the same layout
if inst install PREFIX=/opt/sk DESTDIR="$PWD/stage" >/dev/null 2>&1 && [ -x stage/opt/sk/bin/skdcci ] &&
    [ -f stage/opt/sk/share/man/man1/skdcci.1 ] && [ ! -e /opt/sk/bin/skdcci ]; then
    t_pass destdir
else
    t_fail destdir "$(cd stage 2>/dev/null && find . | head)"
fi

# uninstall removes exactly what install put there
echo keep >"$x/bin/other"
if inst uninstall PREFIX="$x" >/dev/null 2>&1 && [ "$(cd "$x" && find . -type f)" = ./bin/other ]; then
    t_pass uninstall
else
    t_fail uninstall "left: $(cd "$x" && find . -type f | tr '\n' ' ')"
fi
