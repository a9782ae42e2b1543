/* Error codes and diagnostic records shared by every skdcci library.
 *
 * Library functions never print and never exit: they return an sk_err and,
 * when given one, fill an sk_diag with where the problem is (file or label,
 * line or byte offset, field) and what it is.  The CLI decides how to show it.
 */
#ifndef SK_DIAG_H
#define SK_DIAG_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>

/* Pinned values: never renumber, only append (documented in docs/errors.md). */
typedef enum sk_err {
    SK_OK = 0,
    SK_E_NOMEM = 1,       /* an allocation failed */
    SK_E_IO = 2,          /* a system call failed (open, read, write, stat, fsync) */
    SK_E_ARG = 3,         /* the caller passed an invalid argument */
    SK_E_JSON = 4,        /* JSON text violates the strict grammar */
    SK_E_LIMIT = 5,       /* a size, depth or count limit was exceeded */
    SK_E_SCHEMA = 6,      /* well-formed document with the wrong shape or values */
    SK_E_PATH = 7,        /* unsafe path: symlink, special file, traversal, wrong type */
    SK_E_CHANGED = 8,     /* an input changed while it was being read */
    SK_E_EXISTS = 9,      /* the output already exists; evidence is never overwritten */
    SK_E_FORMAT = 10,     /* a text input (CSV, log, trace) violates its format */
    SK_E_COMPRESS = 11,   /* compressed input is corrupt or truncated */
    SK_E_CONTRACT = 12,   /* an evidence-contract rule is violated */
    SK_E_REGEX = 13,      /* a pattern is invalid for PCRE2 or the runtime grammar */
    SK_E_INTERNAL = 14,   /* an invariant is broken: a bug */
    SK_E_UNSUPPORTED = 15 /* valid input the tool does not handle */
} sk_err;

#define SK_DIAG_FILE_MAX 1024
#define SK_DIAG_FIELD_MAX 256
#define SK_DIAG_MSG_MAX 1024

/* Fixed-size so that reporting an error never needs an allocation
 * (allocation-failure paths must still be able to explain themselves). */
typedef struct sk_diag {
    sk_err code;
    int sub;                        /* module-specific stable code, 0 if none */
    char file[SK_DIAG_FILE_MAX];    /* path or label concerned, "" if none */
    uint64_t line;                  /* 1-based line, 0 if unknown */
    uint64_t offset;                /* byte offset, meaningful when has_offset */
    int has_offset;
    char field[SK_DIAG_FIELD_MAX];  /* field, column or JSON location, "" if none */
    char msg[SK_DIAG_MSG_MAX];      /* what is wrong (and what was expected) */
} sk_diag;

const char *sk_err_name(sk_err code);  /* "SK_E_JSON" */
const char *sk_err_text(sk_err code);  /* "invalid JSON" */

void sk_diag_clear(sk_diag *d);

/* Records code and message in d (if d is not NULL) and evaluates to code, so
 * that a failing function can `return sk_diag_set(d, SK_E_IO, path, 0, "...")`.
 * The message is printf-formatted and truncated to fit.  sk_diag_set_at
 * records a byte offset instead of a line.
 *
 * These are macros, not functions, so that the value returned is visibly the
 * `code` argument inside every translation unit: clang's static analyzer
 * neither looks into other files nor inlines variadic functions, and without
 * this it explores impossible "success" paths after a failure.  code is
 * evaluated once, before the other arguments (a GNU statement expression,
 * which gcc and clang both accept). */
#define sk_diag_set(d, code, file, line, ...)                                  \
    __extension__({                                                            \
        sk_err sk_diag_set_code_ = (code);                                     \
        sk_diag_set_impl((d), sk_diag_set_code_, (file), (line), __VA_ARGS__); \
        sk_diag_set_code_;                                                     \
    })
#define sk_diag_set_at(d, code, file, offset, ...)                                     \
    __extension__({                                                                    \
        sk_err sk_diag_set_at_code_ = (code);                                          \
        sk_diag_set_at_impl((d), sk_diag_set_at_code_, (file), (offset), __VA_ARGS__); \
        sk_diag_set_at_code_;                                                          \
    })
/* sk_diag_set plus the module's sub-code (docs/errors.md), the one way a
 * diagnostic gets both: the sub is set after the record, which clears it. */
#define sk_diag_set_sub(d, code, sub, file, line, ...)                                   \
    __extension__({                                                                      \
        sk_err sk_diag_set_sub_code_ = (code);                                           \
        sk_diag_set_impl((d), sk_diag_set_sub_code_, (file), (line), __VA_ARGS__);       \
        sk_diag_sub((d), (sub));                                                         \
        sk_diag_set_sub_code_;                                                           \
    })
/* Gives the record in d (if any) the sub-code sub. */
void sk_diag_sub(sk_diag *d, int sub);
/* The out-of-line parts of the macros above; call those instead. */
void sk_diag_set_impl(sk_diag *d, sk_err code, const char *file, uint64_t line,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void sk_diag_set_at_impl(sk_diag *d, sk_err code, const char *file, uint64_t offset,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Sets every field from a va_list (line 0, no offset): the one place a
 * diagnostic is filled; the sk_diag_set* macros and the sub-code helpers of
 * the other layers use it. */
void sk_diag_vset(sk_diag *d, sk_err code, int sub, const char *file, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
void sk_diag_set_field(sk_diag *d, const char *field);
/* Replaces the file/label without touching the rest of the record. */
void sk_diag_set_file(sk_diag *d, const char *file);
/* Prepends "prefix: " to the message (used to add context on the way up). */
void sk_diag_prefix(sk_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "<file>:<line>: <field>: <msg>", omitting the parts that are empty.
 * With only an offset: "<file>:@<offset>: ...". Always NUL-terminates. */
void sk_diag_format(const sk_diag *d, char *out, size_t n);

#endif
