#!/usr/bin/env bash
# Prints the commands that PROGRAM --help lists, one a line, in its order: the
# one source of the command list for tools/manpage.sh and tools/completion.sh,
# so that a command added to a program's table appears in both.
set -euo pipefail
"${1:?usage: help_commands.sh PROGRAM}" --help |
    awk '/^Commands:$/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }'
