#!/usr/bin/env bash
# The progress line: on a terminal only (a pty from script(1)), never with -q,
# never when stderr is a file.
source "$SK_REPO/tests/lib.sh"
cp -a "$SK_REPO/tests/data/dcci-mini" mini
if ! command -v script >/dev/null; then
    t_fail progress_on_terminal "script(1) is missing (util-linux, or bsdutils on Debian)"
else
    script -qec "$SK_BUILD/bin/skdcci analyze --unsealed mini/o0 mini/disable_all -o tty" /dev/null >tty.txt 2>&1
    if grep -q $'\rskdcci analyze: sk_prof' tty.txt && grep -q $'\rskdcci analyze: metadata and kernel_details' tty.txt; then
        t_pass progress_on_terminal
    else
        t_fail progress_on_terminal "$(od -c tty.txt | head -5)"
    fi
    script -qec "$SK_BUILD/bin/skdcci analyze --unsealed -q mini/o0 mini/disable_all -o quiet" /dev/null >quiet.txt 2>&1
    if grep -q $'\r\?skdcci analyze: sk_prof' quiet.txt || grep -q $'\rskdcci' quiet.txt; then
        t_fail quiet_on_terminal "$(od -c quiet.txt | head -5)"
    else
        t_pass quiet_on_terminal
    fi
fi
skdcci analyze --unsealed mini/o0 mini/disable_all -o file >/dev/null 2>err.txt
if grep -q $'\r' err.txt; then t_fail no_progress_into_a_file "$(od -c err.txt | head)"; else t_pass no_progress_into_a_file; fi
