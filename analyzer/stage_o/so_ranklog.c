#include "analyzer/stage_o/so_ranklog.h"

#include <string.h>

#include "artifact_contract/base/sk_alloc.h"

/* The reference pattern, split at its alternation. */
static const char k_prefix[] = "Inference time (";
static const char k_decode[] = "decode): ";
static const char k_prefill[] = "prefill): ";
static const char k_suffix[] = " ms";
#define PREFIX_LEN (sizeof k_prefix - 1)
#define SUFFIX_LEN (sizeof k_suffix - 1)

/* 'I' occurs in the pattern only as its first character, so after any
 * mismatch the scan restarts at the current byte with nothing carried over:
 * the automaton finds exactly the matches of the regular expression. */
typedef enum scan_state {
    ST_PREFIX,  /* matched k_prefix[0..pos) */
    ST_PHASE,   /* matched k_decode/k_prefill[0..pos) */
    ST_NUMBER,  /* collecting [0-9.] */
    ST_SUFFIX   /* matched k_suffix[0..pos) after the number */
} scan_state;

struct so_ranklog {
    const char *label; /* borrowed */
    uint64_t warmup;
    so_rank_timings *out; /* borrowed */
    scan_state state;
    size_t pos;
    int is_decode;
    uint64_t line; /* 1-based line of the current byte */
    char number[NUM_DEC_INPUT_MAX_CHARS + 1];
    size_t number_len; /* may exceed the buffer; only the first bytes are kept */
};

void so_rank_timings_init(so_rank_timings *t)
{
    memset(t, 0, sizeof *t);
    num_dec_zero(&t->decode_sum);
}

void so_rank_timings_free(so_rank_timings *t)
{
    sk_free(t->decode);
    sk_free(t->prefill);
    t->decode = t->prefill = NULL;
    t->n_decode = t->cap_decode = t->n_prefill = t->cap_prefill = 0;
}

sk_err so_ranklog_new(const char *label, uint64_t warmup, so_rank_timings *out,
                      so_ranklog **scanner, sk_diag *d)
{
    so_ranklog *s = sk_calloc(1, sizeof *s);
    if (!s)
        return sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory");
    s->label = label;
    s->warmup = warmup;
    s->out = out;
    s->state = ST_PREFIX;
    s->line = 1;
    *scanner = s;
    return SK_OK;
}

void so_ranklog_free(so_ranklog *s)
{
    sk_free(s);
}

static sk_err push(double **arr, size_t *n, size_t *cap, double v, const so_ranklog *s,
                   sk_diag *d)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 256;
        double *na = sk_realloc(*arr, ncap * sizeof *na);
        if (!na)
            return sk_diag_set(d, SK_E_NOMEM, s->label, s->line,
                               "out of memory storing %zu timing samples", *n + 1);
        *arr = na;
        *cap = ncap;
    }
    (*arr)[(*n)++] = v;
    return SK_OK;
}

static sk_err record(so_ranklog *s, sk_diag *d)
{
    const char *phase = s->is_decode ? "decode" : "prefill";
    if (s->number_len > NUM_DEC_INPUT_MAX_CHARS)
        return sk_diag_set(d, SK_E_FORMAT, s->label, s->line,
                           "%s time has %zu characters, the limit is %d", phase, s->number_len,
                           NUM_DEC_INPUT_MAX_CHARS);
    num_dec value;
    if (num_dec_parse(s->number, s->number_len, &value) != NUM_DEC_OK)
        return sk_diag_set(d, SK_E_FORMAT, s->label, s->line,
                           "malformed %s time '%.*s' (expected digits with at most one '.')",
                           phase, (int)s->number_len, s->number);
    double v;
    if (num_dec_to_double(&value, &v) != NUM_DEC_OK)
        return sk_diag_set(d, SK_E_INTERNAL, s->label, s->line, "C locale unavailable");
    so_rank_timings *t = s->out;
    if (!s->is_decode)
        return push(&t->prefill, &t->n_prefill, &t->cap_prefill, v, s, d);
    if (t->decode_seen++ < s->warmup)
        return SK_OK;
    num_dec_status st = num_dec_add(&t->decode_sum, &value, &t->decode_sum);
    if (st != NUM_DEC_OK)
        return sk_diag_set(d, SK_E_INTERNAL, s->label, s->line, "exact decode sum: %s",
                           num_dec_status_text(st));
    return push(&t->decode, &t->n_decode, &t->cap_decode, v, s, d);
}

static int is_number_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || c == '.';
}

/* Number of '\n' bytes in p[0..n), eight bytes at a time: a byte of
 * x = word ^ 0x0a.. is zero exactly when the high bit of
 * ~(((x & 0x7f..) + 0x7f..) | x | 0x7f..) is set. */
static uint64_t count_newlines(const unsigned char *p, size_t n)
{
    const uint64_t ones7 = UINT64_C(0x7f7f7f7f7f7f7f7f), nl = UINT64_C(0x0a0a0a0a0a0a0a0a);
    uint64_t count = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, sizeof w);
        uint64_t x = w ^ nl;
        uint64_t zero = ~(((x & ones7) + ones7) | x | ones7);
        count += (uint64_t)__builtin_popcountll(zero);
    }
    for (; i < n; i++)
        count += p[i] == '\n';
    return count;
}

static void restart(so_ranklog *s, unsigned char c)
{
    s->state = ST_PREFIX;
    s->pos = c == (unsigned char)k_prefix[0] ? 1 : 0;
}

sk_err so_ranklog_feed(so_ranklog *s, const void *buf, size_t n, sk_diag *d)
{
    const unsigned char *p = buf, *end = p + n;
    while (p < end) {
        if (s->state == ST_PREFIX && s->pos == 0) {
            /* fast path: jump to the next 'I', counting the lines skipped */
            const unsigned char *next = memchr(p, 'I', (size_t)(end - p));
            const unsigned char *stop = next ? next : end;
            s->line += count_newlines(p, (size_t)(stop - p));
            p = stop;
            if (p == end)
                break;
        }
        unsigned char c = *p++;
        switch (s->state) {
        case ST_PREFIX:
            if (c == (unsigned char)k_prefix[s->pos]) {
                if (++s->pos == PREFIX_LEN) {
                    s->state = ST_PHASE;
                    s->pos = 0;
                    s->is_decode = -1;
                }
            } else {
                restart(s, c);
            }
            break;
        case ST_PHASE: {
            if (s->is_decode < 0) {
                if (c == 'd' || c == 'p') {
                    s->is_decode = c == 'd';
                    s->pos = 1;
                } else {
                    restart(s, c);
                }
                break;
            }
            const char *want = s->is_decode ? k_decode : k_prefill;
            size_t want_len = s->is_decode ? sizeof k_decode - 1 : sizeof k_prefill - 1;
            if (c == (unsigned char)want[s->pos]) {
                if (++s->pos == want_len) {
                    s->state = ST_NUMBER;
                    s->number_len = 0;
                }
            } else {
                restart(s, c);
            }
            break;
        }
        case ST_NUMBER:
            if (is_number_char(c)) {
                if (s->number_len < NUM_DEC_INPUT_MAX_CHARS)
                    s->number[s->number_len] = (char)c;
                s->number_len++;
            } else if (c == ' ' && s->number_len > 0) {
                s->state = ST_SUFFIX;
                s->pos = 1;
            } else {
                restart(s, c);
            }
            break;
        case ST_SUFFIX:
            if (c == (unsigned char)k_suffix[s->pos]) {
                if (++s->pos == SUFFIX_LEN) {
                    sk_err rc = record(s, d);
                    if (rc != SK_OK)
                        return rc;
                    s->state = ST_PREFIX;
                    s->pos = 0;
                }
            } else {
                restart(s, c);
            }
            break;
        }
        if (c == '\n')
            s->line++;
    }
    return SK_OK;
}

sk_err so_ranklog_read(sk_read_fn read, void *ctx, const char *label, uint64_t warmup,
                       so_rank_timings *out, sk_diag *d)
{
    enum { CHUNK = 256 * 1024 };
    sk_err rc = SK_OK;
    so_ranklog *s = NULL;
    char *buf = sk_malloc(CHUNK);
    if (!buf) {
        rc = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory");
        goto out;
    }
    rc = so_ranklog_new(label, warmup, out, &s, d);
    if (rc != SK_OK)
        goto out;
    for (;;) {
        size_t got = 0;
        rc = read(ctx, buf, CHUNK, &got, d);
        if (rc != SK_OK || got == 0)
            break;
        rc = so_ranklog_feed(s, buf, got, d);
        if (rc != SK_OK)
            break;
    }
out:
    so_ranklog_free(s);
    sk_free(buf);
    return rc;
}
