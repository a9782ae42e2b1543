/* Fuzz target: RFC 6901 JSON Pointers and the structural diff
 * (sk_json_pointer.h).
 *
 * Input: pieces separated by the first byte (fz_pieces): a pointer text, a
 * JSON document A and a JSON document B (the strict loader; a piece that
 * does not load is left out).  Missing pieces skip the properties that need
 * them.
 *
 * Promise: nothing crashes, leaks or reads outside the input, and
 *   1. sk_json_pointer_parse accepts exactly "" and the texts that start
 *      with '/' and have every '~' followed by '0' or '1'; the tokens equal a
 *      reference split-and-unescape, and appending them again with
 *      sk_json_pointer_append rebuilds the text byte for byte;
 *   2. sk_json_pointer_resolve fails exactly on invalid syntax (SK_E_ARG) and
 *      otherwise names the same node as a reference walk (first member of
 *      that name, array index "0" or digits without a leading zero and in
 *      range, nothing below a scalar);
 *   3. diff(A, A) and diff(A, duplicate(A)) are empty;
 *   4. diff(A, B) is empty iff canonical(A) == canonical(B);
 *   5. diff(B, A) lists the same pointers in the same order;
 *   6. every reported pointer resolves on at least one side, and where it
 *      resolves on both the two values have different canonical texts; no
 *      reported pointer lies below another (differences are reported at the
 *      highest location), and no pointer is reported twice;
 *   7. with a limit k the result is the first k pointers of the unlimited
 *      diff, truncated iff more exist;
 *   8. when allocation k of resolve + diff fails, the result is SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_pointer.h"

#define FUZZ_MAX_INPUT (16u * 1024)

/* A NUL-terminated copy (plain malloc: not counted by sk_alloc). */
static char *cstr(const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);
    FUZZ_ASSERT(s != NULL);
    if (n)
        memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

static cJSON *load(const uint8_t *p, size_t n)
{
    cJSON *v = NULL;
    sk_diag d;
    sk_json_lex_opts opts = {.label = "fuzz"};
    if (sk_json_parse((const char *)p, n, &opts, &v, &d) != SK_OK)
        return NULL;
    return v;
}

static char *canonical(const cJSON *v)
{
    sk_buf b = SK_BUF_INIT;
    sk_diag d;
    sk_err e = sk_json_write(v, SK_JSON_CANONICAL, &b, &d);
    FUZZ_ASSERT_MSG(e == SK_OK, "canonical text of a loaded document: %s", d.msg);
    char *s = cstr((const uint8_t *)sk_buf_cstr(&b), b.len);
    sk_buf_free(&b);
    return s;
}

/* ------------------------------------------------------------ reference pointer */

typedef struct ref_pointer {
    size_t count;
    char *tokens[512];
} ref_pointer;

/* 1 valid (tokens filled, or count > 512 and tokens dropped), 0 invalid. */
static int ref_parse(const char *t, ref_pointer *out, size_t *count)
{
    out->count = 0;
    *count = 0;
    if (!*t)
        return 1;
    if (*t != '/')
        return 0;
    for (const char *p = t; *p; p++)
        if (*p == '~' && p[1] != '0' && p[1] != '1')
            return 0;
    const char *p = t;
    while (*p == '/') {
        p++;
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (out->count < 512) {
            char *tok = malloc(n + 1);
            FUZZ_ASSERT(tok != NULL);
            size_t k = 0;
            for (size_t i = 0; i < n; i++) {
                if (p[i] == '~') {
                    tok[k++] = p[i + 1] == '0' ? '~' : '/';
                    i++;
                } else {
                    tok[k++] = p[i];
                }
            }
            tok[k] = '\0';
            out->tokens[out->count++] = tok;
        }
        (*count)++;
        p += n;
    }
    return 1;
}

static void ref_free(ref_pointer *r)
{
    for (size_t i = 0; i < r->count; i++)
        free(r->tokens[i]);
    r->count = 0;
}

/* RFC 6901 §4 array index in [0, size), or -1. */
static long ref_index(const char *tok, int size)
{
    size_t n = strlen(tok);
    if (n == 0 || n > 9 || (n > 1 && tok[0] == '0'))
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (tok[i] < '0' || tok[i] > '9')
            return -1;
        v = v * 10 + (tok[i] - '0');
    }
    return v < size ? v : -1;
}

static const cJSON *ref_resolve(const cJSON *root, const ref_pointer *r)
{
    const cJSON *n = root;
    for (size_t i = 0; n && i < r->count; i++) {
        const char *tok = r->tokens[i];
        if (cJSON_IsObject(n)) {
            const cJSON *c = n->child;
            while (c && strcmp(c->string, tok) != 0)
                c = c->next;
            n = c;
        } else if (cJSON_IsArray(n)) {
            long k = ref_index(tok, cJSON_GetArraySize(n));
            n = k < 0 ? NULL : cJSON_GetArrayItem(n, (int)k);
        } else {
            n = NULL;
        }
    }
    return n;
}

/* ------------------------------------------------------------ properties */

static void check_pointer(const char *text, const cJSON *doc)
{
    ref_pointer ref;
    size_t ref_count = 0;
    int valid = ref_parse(text, &ref, &ref_count);
    sk_json_pointer p = {0};
    sk_diag d;
    sk_err e = sk_json_pointer_parse(text, &p, &d);
    FUZZ_ASSERT_MSG((e == SK_OK) == valid, "\"%.200s\": parse %s, reference %d", text,
                    sk_err_name(e), valid);
    if (e) {
        FUZZ_ASSERT_MSG(e == SK_E_ARG && d.msg[0], "%s", sk_err_name(e));
    } else {
        FUZZ_ASSERT_MSG(p.count == ref_count, "%zu tokens, reference %zu", p.count, ref_count);
        sk_buf back = SK_BUF_INIT;
        FUZZ_ASSERT(sk_buf_puts(&back, "") == SK_OK);
        for (size_t i = 0; i < p.count; i++) {
            if (i < ref.count)
                FUZZ_ASSERT_MSG(strcmp(p.tokens[i], ref.tokens[i]) == 0, "token %zu \"%s\" vs \"%s\"",
                                i, p.tokens[i], ref.tokens[i]);
            FUZZ_ASSERT(sk_json_pointer_append(&back, p.tokens[i]) == SK_OK);
        }
        FUZZ_ASSERT_MSG(strcmp(sk_buf_cstr(&back), text) == 0, "\"%s\" rebuilt as \"%s\"", text,
                        sk_buf_cstr(&back));
        sk_buf_free(&back);
    }
    sk_json_pointer_free(&p);

    if (doc) {
        const cJSON *got = (const cJSON *)1;
        sk_err re = sk_json_pointer_resolve(doc, text, &got, &d);
        FUZZ_ASSERT_MSG((re == SK_OK) == valid, "resolve %s, reference %d", sk_err_name(re), valid);
        if (re == SK_OK && ref_count == ref.count) {
            const cJSON *want = ref_resolve(doc, &ref);
            FUZZ_ASSERT_MSG(got == want, "\"%.200s\" resolves to %p, reference %p", text,
                            (const void *)got, (const void *)want);
        }
    }
    ref_free(&ref);
}

static void diff(const cJSON *a, const cJSON *b, size_t max, sk_json_diff *out)
{
    sk_diag d;
    sk_err e = sk_json_diff_compute(a, b, max, out, &d);
    FUZZ_ASSERT_MSG(e == SK_OK, "diff of two loaded documents: %s %s", sk_err_name(e), d.msg);
}

static const cJSON *resolve(const cJSON *doc, const char *ptr)
{
    const cJSON *n = NULL;
    sk_diag d;
    sk_err e = sk_json_pointer_resolve(doc, ptr, &n, &d);
    FUZZ_ASSERT_MSG(e == SK_OK, "reported pointer \"%s\" does not resolve: %s", ptr, d.msg);
    return n;
}

static void check_diff(const cJSON *a, const cJSON *b, fz_rng *rng)
{
    sk_json_diff ab = {0}, ba = {0}, lim = {0};
    diff(a, b, 0, &ab);
    FUZZ_ASSERT(!ab.truncated);
    char *ca = canonical(a), *cb = canonical(b);
    FUZZ_ASSERT_MSG((ab.count == 0) == (strcmp(ca, cb) == 0),
                    "%zu differences between \"%.100s\" and \"%.100s\"", ab.count, ca, cb);

    diff(b, a, 0, &ba);
    FUZZ_ASSERT_MSG(ba.count == ab.count, "diff(a,b) has %zu pointers, diff(b,a) %zu", ab.count,
                    ba.count);
    for (size_t i = 0; i < ab.count; i++) {
        const char *p = ab.pointers[i];
        FUZZ_ASSERT_MSG(strcmp(p, ba.pointers[i]) == 0, "pointer %zu: \"%s\" vs \"%s\"", i, p,
                        ba.pointers[i]);
        const cJSON *na = resolve(a, p), *nb = resolve(b, p);
        FUZZ_ASSERT_MSG(na || nb, "\"%s\" names nothing on either side", p);
        if (na && nb) {
            char *x = canonical(na), *y = canonical(nb);
            FUZZ_ASSERT_MSG(strcmp(x, y) != 0, "\"%s\" reported but both sides are %.200s", p, x);
            free(x);
            free(y);
        }
        size_t pl = strlen(p);
        for (size_t j = 0; j < ab.count; j++) {
            if (j == i)
                continue;
            const char *q = ab.pointers[j];
            FUZZ_ASSERT_MSG(strcmp(p, q) != 0, "\"%s\" reported twice", p);
            FUZZ_ASSERT_MSG(!(strncmp(q, p, pl) == 0 && q[pl] == '/'), "\"%s\" lies below \"%s\"",
                            q, p);
        }
    }

    if (ab.count) {
        size_t k = 1 + fz_below(rng, ab.count + 1);
        diff(a, b, k, &lim);
        size_t want = k < ab.count ? k : ab.count;
        FUZZ_ASSERT_MSG(lim.count == want && lim.truncated == (ab.count > k),
                        "limit %zu: %zu pointers, truncated %d, of %zu", k, lim.count,
                        lim.truncated, ab.count);
        for (size_t i = 0; i < lim.count; i++)
            FUZZ_ASSERT(strcmp(lim.pointers[i], ab.pointers[i]) == 0);
    }
    sk_json_diff_free(&lim);
    sk_json_diff_free(&ba);
    sk_json_diff_free(&ab);
    free(ca);
    free(cb);
}

static void check_self(const cJSON *a)
{
    sk_json_diff s = {0};
    diff(a, a, 0, &s);
    FUZZ_ASSERT_MSG(s.count == 0 && !s.truncated, "diff(a,a) reports \"%s\"",
                    s.count ? s.pointers[0] : "");
    sk_json_diff_free(&s);
    cJSON *dup = cJSON_Duplicate(a, 1);
    FUZZ_ASSERT(dup != NULL);
    diff(a, dup, 0, &s);
    FUZZ_ASSERT_MSG(s.count == 0, "diff(a,dup(a)) reports \"%s\"", s.pointers[0]);
    sk_json_diff_free(&s);
    cJSON_Delete(dup);
}

static sk_err resolve_and_diff(const cJSON *a, const cJSON *b, const char *ptr, sk_diag *d)
{
    const cJSON *n = NULL;
    sk_err e = sk_json_pointer_resolve(a, ptr, &n, d);
    if (e == SK_E_ARG)
        e = SK_OK;
    sk_json_diff df = {0};
    if (!e && b)
        e = sk_json_diff_compute(a, b, 0, &df, d);
    sk_json_diff_free(&df);
    return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    fz_rng rng = {fz_hash(data, size)};
    fz_pieces ps;
    fz_pieces_init(&ps, data, size);
    const uint8_t *piece[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0};
    int n = 0;
    while (n < 3 && fz_pieces_next(&ps, &piece[n], &len[n]))
        n++;
    if (n == 0)
        return 0;

    char *ptr = cstr(piece[0], len[0]);
    cJSON *a = n > 1 ? load(piece[1], len[1]) : NULL;
    cJSON *b = n > 2 ? load(piece[2], len[2]) : NULL;

    check_pointer(ptr, a);
    if (a) {
        check_self(a);
        if (b)
            check_diff(a, b, &rng);

        sk_diag d0, d1;
        sk_diag_clear(&d0);
        sk_diag_clear(&d1);
        sk_err e0 = resolve_and_diff(a, b, ptr, &d0);
        FUZZ_ASSERT(e0 == SK_OK);
        unsigned long k = 1 + fz_below(&rng, 64);
        fz_fail_alloc_at(k);
        sk_err e1 = resolve_and_diff(a, b, ptr, &d1);
        FZ_CHECK_NOMEM(k, e1, &d1, e0);
        fz_fail_alloc_at(0);
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
    free(ptr);
    return 0;
}
