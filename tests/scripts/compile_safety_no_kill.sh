#!/usr/bin/env bash
# compile-state, compile-lease, compile-scene and compile-diagnose never signal a process:
# no signal-sending call in their sources or in their object files.  Across the whole compile-safety code the
# only signal is cs_spawn.c's SIGKILL to the session it created itself (the
# pyhooks interpreter query at its timeout).
source "$SK_REPO/tests/lib.sh"
cd "$SK_REPO" || exit 1
COMPILE_STATE_SRC="analyzer/compile_safety/cs_proc.c analyzer/compile_safety/cs_liveness.c analyzer/compile_safety/cs_summary.c analyzer/compile_safety/cs_outputs.c
analyzer/compile_safety/cs_state.c analyzer/compile_safety/cs_compile_state.c analyzer/compile_safety/cs_text.c analyzer/cli/cmd_compile_state.c
analyzer/cli/cs_cli.c analyzer/compile_safety/cs_proc_info.c analyzer/compile_safety/cs_lease.c
analyzer/cli/cmd_compile_lease.c analyzer/compile_safety/cs_diagnose.c analyzer/cli/cmd_compile_diagnose.c
analyzer/compile_safety/cs_scene.c analyzer/cli/cmd_compile_scene.c"
SIGNAL_CALLS='\<(kill|killpg|tgkill|tkill|sigqueue|pidfd_send_signal|raise)[[:space:]]*\('
hits=$(grep -nE "$SIGNAL_CALLS" $COMPILE_STATE_SRC)
[ -z "$hits" ] && t_pass compile_state_sources_have_no_signal_call || t_fail compile_state_sources_have_no_signal_call "$hits"
# <signal.h> only where no signal is sent: cs_state.c names signals, cs_scene.c
# blocks three while it builds an attempt (pthread_sigmask, sigpending); the
# object check below proves that neither imports a signal-sending function.
hits=$(grep -n 'cs_spawn\.h\|<signal\.h>' $COMPILE_STATE_SRC | grep -v 'cs_state.c:.*<signal.h>\|cs_scene.c:.*<signal.h>')
[ -z "$hits" ] && t_pass compile_state_does_not_include_spawn || t_fail compile_state_does_not_include_spawn "$hits"
objs=""
for s in $COMPILE_STATE_SRC; do objs="$objs $SK_BUILD/obj/${s%.c}.o"; done
missing=""; for o in $objs; do [ -f "$o" ] || missing="$missing $o"; done
if [ -n "$missing" ]; then
    t_fail compile_state_objects_import_no_signal_function "objects not built:$missing"
else
    und=$(nm -u $objs 2>/dev/null | grep -E '\<(kill|killpg|tgkill|tkill|sigqueue|pidfd_send_signal|raise|pthread_kill)\>')
    [ -z "$und" ] && t_pass compile_state_objects_import_no_signal_function || t_fail compile_state_objects_import_no_signal_function "$und"
fi
all=$(grep -nE "$SIGNAL_CALLS" analyzer/compile_safety/cs_*.c analyzer/cli/cmd_compile_*.c \
      analyzer/cli/cmd_pyhooks.c analyzer/cli/cmd_report_lint.c analyzer/cli/cmd_uninstall_plan.c analyzer/cli/cs_cli.c)
if [ "$(printf '%s\n' "$all" | grep -c .)" -eq 1 ] && printf '%s\n' "$all" | grep -q '^analyzer/compile_safety/cs_spawn.c:[0-9]*: *kill(-pid, SIGKILL);'; then
    t_pass only_signal_is_spawn_timeout_of_own_session
else
    t_fail only_signal_is_spawn_timeout_of_own_session "$all"
fi
