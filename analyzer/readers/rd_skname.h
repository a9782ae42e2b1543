/* The SuperKernel function name grammar.
 *
 * The runtime names every fused kernel (GetSkFuncName; docs/readers.md §5):
 *     sk_<scopeId>_<scopeName>_start_<first kernel funcName>_end_<last kernel funcName>
 *     sk_<scopeId>_no_kernel_scope_<scopeName>          (scope without kernels)
 * with scopeId printed as a plain decimal (std::to_string of a uint16) and
 * scopeName possibly empty ("sk_7__start_...").  kernel_details.csv shows
 * this name for SK rows and sk_fused_nodes.log prints it in each header.
 *
 * Reading it back is ambiguous when a scope name contains "_start_" or the
 * last function name contains "_end_"; like the reference, rd_skname_parse
 * takes the scope up to the FIRST "_start_" and the end function after the
 * LAST "_end_".  Where the kernel list is known (the fused log),
 * rd_skname_matches checks the name exactly instead.
 */
#ifndef RD_SKNAME_H
#define RD_SKNAME_H

#include <stddef.h>
#include <stdint.h>

/* Parts borrowed from the parsed string (not NUL-terminated). */
typedef struct rd_skname {
    uint64_t id;         /* scope id */
    int no_kernel;       /* the "_no_kernel_scope_" form: first/last empty */
    const char *scope;
    size_t scope_len;    /* may be 0 */
    const char *first;   /* first kernel funcName */
    size_t first_len;
    const char *last;    /* last kernel funcName */
    size_t last_len;
} rd_skname;

#define RD_SKNAME_MAX_ID 4294967295u

/* Returns 1 and fills out when name[0..len) follows the grammar, else 0.
 * The id must be canonical decimal (no sign, no leading zero except "0"),
 * at most RD_SKNAME_MAX_ID; first and last must be non-empty. */
int rd_skname_parse(const char *name, size_t len, rd_skname *out);

/* 1 when name is exactly "sk_<id>_<scope>_start_<first>_end_<last>" for
 * these id, first and last (any scope); on success *scope and *scope_len give
 * the scope part. */
int rd_skname_matches(const char *name, size_t len, uint64_t id, const char *first,
                      const char *last, const char **scope, size_t *scope_len);

/* An SK block of a log: its scope id and the line of its header. */
typedef struct rd_scope_line {
    uint64_t scope_id;
    uint64_t line;
} rd_scope_line;

/* Sorts v[0..n) by scope id, then line, and returns the first position
 * i >= 1 whose scope id repeats that of v[i - 1] (the later block of a
 * duplicate scope id, v[i - 1] the first), or n when every id is distinct. */
size_t rd_scope_first_repeat(rd_scope_line *v, size_t n);

#endif
