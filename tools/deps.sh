#!/bin/sh
# make deps: finds what the build and the tests need (docs/install.md) and, as
# root, installs the missing packages with the host's package manager
# (apt-get, dnf or yum); otherwise prints the exact command to run.
#   tools/deps.sh [--print] [--pm apt-get|dnf|yum]
#     --print   only print the install command (never install)
#     --pm      name the package manager instead of detecting it
# Libraries are checked with pkg-config, so one built from source and found
# through PKG_CONFIG_PATH counts as present.  Exit 0 when everything is
# present or was installed, 1 when something is missing.
set -eu
print_only=0
pm=""
while [ $# -gt 0 ]; do
    case $1 in
    --print) print_only=1 ;;
    --pm) shift; pm=${1:-} ;;
    *) echo "deps: unknown argument '$1' (usage: tools/deps.sh [--print] [--pm apt-get|dnf|yum])" >&2; exit 2 ;;
    esac
    shift
done
if [ -z "$pm" ]; then
    for p in apt-get dnf yum; do
        if command -v "$p" >/dev/null 2>&1; then pm=$p; break; fi
    done
fi
case $pm in
apt-get|dnf|yum) ;;
"") echo "deps: no apt-get, dnf or yum found; install by hand what docs/install.md lists" >&2; exit 1 ;;
*) echo "deps: unknown package manager '$pm' (apt-get, dnf or yum)" >&2; exit 2 ;;
esac

# need KIND NAME APT-PACKAGE RPM-PACKAGE: KIND is cmd (a program), pc (a
# pkg-config module) or file (a path)
missing=""
need() {
    present=1
    case $1 in
    cmd) command -v "$2" >/dev/null 2>&1 || present=0 ;;
    pc) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$2" 2>/dev/null || present=0 ;;
    file) [ -e "$2" ] || present=0 ;;
    esac
    [ "$present" = 1 ] && return 0
    if [ "$pm" = apt-get ]; then missing="$missing $3"; else missing="$missing $4"; fi
}
need cmd cc build-essential gcc
need cmd make build-essential make
need cmd pkg-config pkg-config pkgconfig
need pc libpcre2-8 libpcre2-dev pcre2-devel
need pc libcjson libcjson-dev cjson-devel
need pc libzstd libzstd-dev libzstd-devel
need pc libcrypto libssl-dev openssl-devel
need pc yaml-0.1 libyaml-dev libyaml-devel
need cmd python3 python3 python3
need cmd zstd zstd zstd
need cmd man man-db man-db
# the source of a comma-decimal locale for the determinism test (localedef
# builds it when it is not installed)
need file /usr/share/i18n/locales/de_DE locales glibc-locale-source
# the browser test of the HTML reports (tests/scripts/html_browser.sh); Fedora's
# package installs the program as chromium-browser
command -v chromium-browser >/dev/null 2>&1 || need cmd chromium chromium chromium
# one name once, in order
missing=$(printf '%s\n' $missing | awk 'NF && !seen[$0]++' | tr '\n' ' ' | sed 's/ $//')

if [ -z "$missing" ]; then
    echo "deps: all packages present"
    exit 0
fi
case $pm in
apt-get) line="apt-get update && apt-get install -y --no-install-recommends $missing" ;;
*) line="$pm install -y $missing" ;;
esac
cjson_note() {
    echo "deps: cjson-devel is in Fedora, openEuler and EPEL (CentOS/RHEL/Rocky: enable EPEL first);" >&2
    echo "deps: where no repository has it, build cJSON >= 1.7.10 from source, e.g. into ~/.local:" >&2
    echo "  cmake -S cJSON-1.7.18 -B cjson-build -DENABLE_CJSON_TEST=OFF -DCMAKE_INSTALL_PREFIX=\$HOME/.local &&" >&2
    echo "  cmake --build cjson-build && cmake --install cjson-build" >&2
    echo "  export PKG_CONFIG_PATH=\$HOME/.local/lib64/pkgconfig:\$HOME/.local/lib/pkgconfig LD_LIBRARY_PATH=\$HOME/.local/lib64:\$HOME/.local/lib" >&2
}
if [ "$print_only" = 1 ] || [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing packages: $missing" >&2
    echo "deps: run as root:  $line" >&2
    case " $missing " in *" cjson-devel "*) cjson_note ;; esac
    exit 1
fi
echo "deps: installing $missing"
case $pm in
apt-get)
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
    ;;
*)
    # cJSON on its own: a repository without it must not block the others
    rest=$(printf '%s\n' $missing | grep -vx cjson-devel | tr '\n' ' ')
    [ -z "$rest" ] || $pm install -y $rest
    case " $missing " in
    *" cjson-devel "*) $pm install -y cjson-devel || { cjson_note; exit 1; } ;;
    esac
    ;;
esac
