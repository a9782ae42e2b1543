/* The wall clock used for evidence timestamps, replaceable in tests. */
#ifndef SK_CLOCK_H
#define SK_CLOCK_H

#include <stdint.h>

/* CLOCK_REALTIME in nanoseconds since the epoch.
 * Test builds (SK_TEST_HOOKS): when SK_TEST_CLOCK_NS is set to a
 * comma-separated list of decimal integers ("1,9000000000000000000"), each
 * call returns the next value and the last one repeats; a new value of the
 * variable starts from its first entry again.  An entry that is not a
 * decimal int64 yields INT64_MIN, which every caller rejects as a time. */
int64_t sk_clock_realtime_ns(void);

#endif
