#!/usr/bin/env bash
# Prints the usage block of PROGRAM for README.md: the synopsis of every
# command, in the order PROGRAM --help lists the commands, exactly as
# `PROGRAM COMMAND --help` prints it (the lines up to its first empty line,
# without the "Usage: " prefix).  tests/scripts/readme_usage.sh compares the
# README's blocks with this text, so a command or option added to a --help
# and not to the README fails the suite with the line to add.
set -euo pipefail
# awk reads each help text to its end: stopping at the first empty line would
# let --help die of SIGPIPE, which pipefail turns into a failure.
prog_path=${1:?usage: usage_block.sh PROGRAM}
here=$(cd "$(dirname "$0")" && pwd)
while read -r cmd; do
    "$prog_path" "$cmd" --help |
        awk 'done { next } /^$/ { done = 1; next } { sub(/^Usage: /, ""); sub(/^       /, ""); print }'
done < <("$here/help_commands.sh" "$prog_path")
