#!/bin/sh
# Installs the Debian packages skdcci needs, or says exactly which are missing.
set -eu
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "deps: all packages present"
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
    echo "deps: installing$missing"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
else
    echo "deps: missing packages:$missing" >&2
    echo "deps: run as root:  apt-get update && apt-get install -y$missing" >&2
    exit 1
fi
