/* skdcci exit codes (documented in --help, README and docs/errors.md). */
#ifndef SKX_EXIT_H
#define SKX_EXIT_H
enum skx_exit {
    SKX_OK = 0,        /* success; for gates: accepted / stable / consistent */
    SKX_FAIL = 1,      /* input could not be read or parsed, I/O error, internal error */
    SKX_USAGE = 2,     /* invalid command line */
    SKX_BLOCKED = 3,   /* analysis blocked: the evidence does not allow a decision */
    SKX_REJECTED = 10  /* gate rejected, run unstable, check or lint found violations */
};
#endif
