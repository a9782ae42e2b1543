/* artifact_contract exit codes (documented in --help, README and
 * docs/errors.md). */
#ifndef AC_EXIT_H
#define AC_EXIT_H
enum ac_exit {
    AC_EXIT_OK = 0,   /* success: the result on stdout or in --json-out */
    AC_EXIT_FAIL = 2, /* any failure: usage, input, contract violation, I/O */
    /* run only: it passes on the wrapped command's own status N, and */
    AC_EXIT_TIMEOUT = 124,    /* timeout(1)'s "the time limit fired", below 128 so it can
                                 never be read as a death by signal */
    AC_EXIT_SIGNAL_BASE = 128 /* + N: the command died of signal N (shell convention) */
};
#endif
