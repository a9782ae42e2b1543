/* Minimal unit-test harness: each test_*.c is one binary printing TAP lines
 * ("ok - <file>:<test>" / "not ok - ..."), read by tests/run.sh. */
#ifndef T_H
#define T_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct t_case {
    const char *name;
    void (*fn)(void);
} t_case;

extern int t_failed_checks;
void t_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int t_main(const char *file, const t_case *cases);

#define T(fn) {#fn, fn}
#define T_MAIN(cases) \
    int main(void) { return t_main(__FILE__, cases); }

#define T_CHECK(cond)                                                  \
    do {                                                               \
        if (!(cond))                                                   \
            t_fail(__FILE__, __LINE__, "check failed: %s", #cond);     \
    } while (0)

#define T_EQ_INT(a, b)                                                                   \
    do {                                                                                 \
        long long a_ = (long long)(a), b_ = (long long)(b);                              \
        if (a_ != b_)                                                                    \
            t_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, a_, b_);        \
    } while (0)

#define T_EQ_U64(a, b)                                                                   \
    do {                                                                                 \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);   \
        if (a_ != b_)                                                                    \
            t_fail(__FILE__, __LINE__, "%s == %s: %llu != %llu", #a, #b, a_, b_);        \
    } while (0)

#define T_EQ_STR(a, b)                                                                   \
    do {                                                                                 \
        const char *a_ = (a), *b_ = (b);                                                 \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                           \
            t_fail(__FILE__, __LINE__, "%s == %s:\n#   got:  \"%s\"\n#   want: \"%s\"", #a, \
                   #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");                          \
    } while (0)

#define T_CONTAINS(hay, needle)                                                          \
    do {                                                                                 \
        const char *h_ = (hay), *n_ = (needle);                                          \
        if (!h_ || !n_ || !strstr(h_, n_))                                               \
            t_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", \
                   n_ ? n_ : "(null)");                                                  \
    } while (0)

#define T_NEAR(a, b, eps)                                                                \
    do {                                                                                 \
        double a_ = (a), b_ = (b);                                                       \
        if (!(a_ - b_ <= (eps) && b_ - a_ <= (eps)))                                     \
            t_fail(__FILE__, __LINE__, "%s ~= %s: %.17g vs %.17g", #a, #b, a_, b_);      \
    } while (0)

#endif
