/* Sub-codes (sk_diag.sub): one range of values per module, so that a
 * sub-code names one meaning wherever it is set.
 *
 * This header only assigns the ranges.  Each module keeps its codes in its
 * own header as an X-macro table X(NAME, value, "meaning") and checks at
 * compile time that every value lies in its range (SK_SUB_IN_RANGE).  The
 * registry that maps any sub-code to its name and meaning is
 * analyzer/cli/skx_subcodes.h, which includes every table; docs/errors.md
 * lists every code and a unit test keeps the three in step.  Values are
 * pinned once published: append only, never reuse.
 */
#ifndef SK_SUBCODE_H
#define SK_SUBCODE_H

/* X(module, first, last) */
#define SK_SUB_RANGES(X)           \
    X(SK_FS, 1, 99)                \
    X(AC, 100, 999)                \
    X(SK_FIXED, 1001, 1099)        \
    X(RD_SOURCE, 1101, 1199)       \
    X(RD_LINES, 1201, 1299)        \
    X(RD_CSV, 1301, 1399)          \
    X(RD_NODE, 1401, 1499)         \
    X(RD_FUSED, 1501, 1599)        \
    X(RD_RTLOG, 1601, 1699)        \
    X(SO_LEDGER, 1701, 1799)

enum {
#define SK_SUB_RANGE_ENUM(module, first, last) \
    SK_SUB_FIRST_##module = (first), SK_SUB_LAST_##module = (last),
    SK_SUB_RANGES(SK_SUB_RANGE_ENUM)
#undef SK_SUB_RANGE_ENUM
};

/* An enumerator of a table row: X(NAME, value, meaning) -> NAME = value, */
#define SK_SUB_ENUM(name, value, meaning) name = (value),
/* A compile-time check that a table row lies in module's range; use as
 *   #define M_SUB_CHECK(name, value, meaning) SK_SUB_IN_RANGE(M, name, value)
 *   M_SUB_TABLE(M_SUB_CHECK) */
#define SK_SUB_IN_RANGE(module, name, value)                                              \
    _Static_assert((value) >= SK_SUB_FIRST_##module && (value) <= SK_SUB_LAST_##module, \
                   #name " lies outside the " #module " sub-code range");

#endif
