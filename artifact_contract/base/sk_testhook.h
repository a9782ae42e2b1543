/* Fault-injection points for tests.
 *
 * Library code calls sk_test_hook("after_open", path) at moments where a test
 * needs to change the filesystem under the running code (the reference's
 * mocked-I/O tests).  In release builds the call compiles to nothing.  In
 * test builds (SK_TEST_HOOKS) it
 *   1. calls the C callback registered with sk_test_hook_set (unit tests), then
 *   2. if the environment variable SK_TEST_HOOK_<POINT> is set (POINT upper-
 *      cased, every non-alphanumeric character replaced by '_'), runs its
 *      value with /bin/sh -c, with SK_HOOK_PATH=<path> and
 *      SK_HOOK_POINT=<point> in the environment, and waits for it.  Each
 *      point runs its command at most once per process unless
 *      SK_TEST_HOOK_REPEAT=1.
 * docs/testing.md lists the points.
 */
#ifndef SK_TESTHOOK_H
#define SK_TESTHOOK_H

#include <stdint.h>

/* Work counters (test builds): sk_test_count("sha256_bytes", n) adds n to a
 * named process-wide counter; when SK_TEST_COUNTS=<file> is set, the
 * counters are written there at exit, one "<name> <value>" line each, in
 * the order they were first counted.  Tests compare them between runs to
 * guard the amount of work per input byte or record without timing
 * anything (tests/scripts/analyze_work.sh; docs/testing.md lists them).
 * In release builds the call compiles to nothing. */
#ifdef SK_TEST_HOOKS

void sk_test_count(const char *name, uint64_t n);

typedef void (*sk_test_hook_fn)(void *ctx, const char *point, const char *path);

/* Registers the callback (NULL removes it); ctx is passed back unchanged. */
void sk_test_hook_set(sk_test_hook_fn fn, void *ctx);
void sk_test_hook(const char *point, const char *path);
/* 1 when a callback is registered or SK_TEST_HOOK_<POINT> is set, so that a
 * caller only builds an expensive path argument when someone listens. */
int sk_test_hook_active(const char *point);
/* Forgets which points already ran their command (for unit tests). */
void sk_test_hook_reset(void);

#else

static inline void sk_test_count(const char *name, uint64_t n)
{
    (void)name;
    (void)n;
}

static inline void sk_test_hook(const char *point, const char *path)
{
    (void)point;
    (void)path;
}

static inline int sk_test_hook_active(const char *point)
{
    (void)point;
    return 0;
}

#endif

#endif
