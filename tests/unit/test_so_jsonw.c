/* so_jsonw: a tree whose float arrays stay in the caller's doubles is written
 * exactly as the same tree with the arrays expanded into cJSON numbers, also
 * when values repeat and when more distinct values than the text memo holds
 * meet in its slots, and when the memo cannot be allocated. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "analyzer/stage_o/so_jsonw.h"
#include "tests/unit/t.h"

#define N_VALUES 30000

/* values[0..n): repeats, every shape of Python's repr, and more distinct
 * values than slots, so that different values share a slot */
static size_t fill(double *v)
{
    static const double special[] = {0.0,    -0.0,     1.0,     0.1,   10.123, 1e16,  1e-05,
                                      1e-07, 123456789012345678.0, 0.30000000000000004,
                                      5e-324, DBL_MAX, -DBL_MAX, 2.5e-300, 1e22,  1e21};
    size_t n = 0;
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        v[n++] = special[i];
    unsigned long x = 12345;
    while (n < N_VALUES) {
        x = (x * 48271UL) % 2147483647UL;
        /* a third repeat a few hundred log-like values, the rest are distinct */
        v[n] = n % 3 == 0 ? 10.0 + (double)(x % 300) / 1000.0 : (double)x / 7919.0 - 1e5;
        n++;
    }
    return n;
}

/* values as the builder's numbers, or as a placeholder when t is given */
static cJSON *array(sk_jb *b, so_jarrays *t, const double *v, size_t n)
{
    if (t)
        return b->err ? NULL : sk_jb_mark(b, so_jarrays_node(t, v, n));
    cJSON *a = sk_jb_arr(b);
    for (size_t i = 0; i < n && !b->err; i++)
        sk_jb_put(b, a, NULL, sk_jb_float(b, v[i]));
    return a;
}

/* {"a": [values], "b": {"c": [values from the 8th], "d": 1.5}, "e": []} */
static cJSON *tree(const double *v, size_t n, so_jarrays *t)
{
    sk_diag d;
    sk_diag_clear(&d);
    sk_jb b = SK_JB_INIT(&d);
    cJSON *root = sk_jb_obj(&b), *inner = sk_jb_obj(&b);
    sk_jb_put(&b, root, "a", array(&b, t, v, n));
    sk_jb_put(&b, inner, "c", array(&b, t, v + 7, n - 7));
    sk_jb_put(&b, inner, "d", sk_jb_float(&b, 1.5));
    sk_jb_put(&b, root, "b", inner);
    sk_jb_put(&b, root, "e", array(&b, t, v, 0));
    if (sk_jb_finish(&b, &d, "the test tree") != SK_OK) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

static int same_text(const sk_buf *a, const sk_buf *b)
{
    return a->len == b->len &&
           (!a->len || (a->data && b->data && memcmp(a->data, b->data, a->len) == 0));
}

/* The values and the text of their expanded tree; 0 when out of memory. */
static int prepare(double **v, size_t *n, sk_buf *want)
{
    *v = malloc(N_VALUES * sizeof **v);
    if (!*v)
        return 0;
    *n = fill(*v);
    cJSON *expanded = tree(*v, *n, NULL);
    sk_diag d;
    sk_diag_clear(&d);
    int ok = expanded && sk_json_write(expanded, SK_JSON_PRETTY, want, &d) == SK_OK && want->len;
    cJSON_Delete(expanded);
    return ok;
}

static void same_text_as_the_expanded_tree(void)
{
    double *v = NULL;
    size_t n = 0;
    sk_buf want = SK_BUF_INIT;
    T_CHECK(prepare(&v, &n, &want));
    for (int round = 0; round < 2 && v; round++) { /* a second write starts with a new memo */
        so_jarrays t = {0};
        cJSON *root = tree(v, n, &t);
        sk_buf got = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        T_CHECK(root != NULL);
        T_EQ_INT(so_json_write_pretty(root, &t, &got, &d), SK_OK);
        T_CHECK(same_text(&got, &want));
        sk_buf_free(&got);
        cJSON_Delete(root);
        so_jarrays_free(&t);
    }
    sk_buf_free(&want);
    free(v);
}

static void non_finite_is_an_error(void)
{
    double v[] = {1.0, NAN, 2.0};
    so_jarrays t = {0};
    cJSON *root = cJSON_CreateObject();
    cJSON *a = so_jarrays_node(&t, v, 3);
    T_CHECK(root && a);
    if (root && a) {
        cJSON_AddItemToObject(root, "a", a);
        sk_buf got = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(so_json_write_pretty(root, &t, &got, &d), SK_E_INTERNAL);
        T_CONTAINS(d.msg, "non-finite");
        sk_buf_free(&got);
    } else {
        cJSON_Delete(a);
    }
    cJSON_Delete(root);
    so_jarrays_free(&t);
}

/* every allocation of the write failing in turn: out of memory, or (the
 * memo) absorbed with the same text */
static void allocation_failures_are_clean(void)
{
#ifdef SK_TEST_HOOKS
    double *v = NULL;
    size_t nv = 0;
    sk_buf want = SK_BUF_INIT;
    T_CHECK(prepare(&v, &nv, &want));
    so_jarrays t = {0};
    cJSON *root = v ? tree(v, nv, &t) : NULL;
    T_CHECK(root != NULL);
    int saw_nomem = 0, saw_same = 0;
    for (unsigned long n = 1; n < 64 && root; n++) {
        sk_buf got = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        sk_alloc_fail_at(n);
        sk_err e = so_json_write_pretty(root, &t, &got, &d);
        sk_alloc_fail_at(0);
        if (e == SK_OK) {
            saw_same |= same_text(&got, &want);
            if (!same_text(&got, &want))
                t_fail(__FILE__, __LINE__, "n=%lu: other text after an absorbed failure", n);
        } else if (e == SK_E_NOMEM) {
            saw_nomem = 1;
        } else {
            t_fail(__FILE__, __LINE__, "n=%lu: %s: %s", n, sk_err_name(e), d.msg);
        }
        sk_buf_free(&got);
    }
    T_CHECK(saw_nomem && saw_same);
    cJSON_Delete(root);
    so_jarrays_free(&t);
    sk_buf_free(&want);
    free(v);
#endif
}

static const t_case cases[] = {
    T(same_text_as_the_expanded_tree),
    T(non_finite_is_an_error),
    T(allocation_failures_are_clean),
    {NULL, NULL},
};

T_MAIN(cases)
