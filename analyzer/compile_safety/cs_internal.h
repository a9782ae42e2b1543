/* Private to analyzer/compile_safety (tools/layers.sh keeps it there). */
#ifndef CS_INTERNAL_H
#define CS_INTERNAL_H

/* The report builders' one error path: a function with `sk_err e` and a
 * single `out:` label evaluates x, and on failure leaves with e set. */
#define TRY(x)                                                                                   \
    do {                                                                                         \
        e = (x);                                                                                 \
        if (e)                                                                                   \
            goto out;                                                                            \
    } while (0)

#endif
