/* skdcci exit codes (documented in --help, README and docs/errors.md). */
#ifndef SKX_EXIT_H
#define SKX_EXIT_H
enum skx_exit {
    SKX_OK = 0,        /* success; for gates: accepted / stable / consistent */
    SKX_FAIL = 1,      /* input could not be read or parsed, I/O error, internal error */
    SKX_USAGE = 2,     /* invalid command line */
    SKX_BLOCKED = 3,   /* analysis blocked: the evidence does not allow a decision */
    SKX_REJECTED = 10, /* gate rejected, run unstable, check or lint found violations */
    /* compile-state: one code per state (succeeded is SKX_OK); all below 128
     * so they never look like a shell's "killed by signal" status */
    SKX_CS_IN_PROGRESS = 20, /* compile still running: wait, do not kill */
    SKX_CS_FAILED = 21,      /* final compile failure after natural return */
    SKX_CS_INTERRUPTED = 22, /* timed out or externally interrupted: clean retry required */
    SKX_CS_UNKNOWN = 23      /* evidence missing or contradictory: conclusion blocked */
};
#endif
