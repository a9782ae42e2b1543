#include "analyzer/readers/rd_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_testhook.h"

#define INPUT_CAP 65536u
/* Bytes allocated past INPUT_CAP (zeroed), so that the fast path's 16-byte
 * loads never leave the buffer. */
#define INPUT_SLACK 16u
#define BOM_BYTES 0xEFBBBFu

enum state {
    S_FIELD_START, /* before the first byte of a field (blanks skipped) */
    S_UNQUOTED,
    S_QUOTED,
    S_QUOTE_SEEN,  /* a quote inside a quoted field: closing, or the first of "" */
    S_AFTER_QUOTE, /* blanks after the closing quote */
    S_CR           /* a CR ended a field outside quotes: LF must follow */
};

struct rd_csv {
    sk_read_fn read;
    void *ctx;
    char *label;
    rd_csv_opts opts;
    unsigned char *in;
    size_t in_len;
    size_t in_pos;
    int eof;
    int started;       /* the leading byte order mark check is done */
    char *rec;         /* fields of the current record, each NUL-terminated */
    size_t rec_len;
    size_t rec_cap;
    size_t *off;       /* start of each field in rec, or in in when in_place */
    size_t *flen;      /* length of each field */
    size_t nf;
    size_t off_cap;
    int in_place;      /* the fast path left the current record's fields in in */
    int fast;          /* try the fast path (no RD_CSV_GENERAL_ONLY) */
    sk_err pending;    /* a read error met while topping the buffer up: */
    sk_diag pending_diag; /* the general path's next read returns it */
    uint64_t fast_records, general_records;
    size_t field_start;
    size_t field_keep; /* field length up to its last non-blank byte */
    enum state state;
    int quoted;        /* current field was quoted */
    uint64_t line;     /* current line, 1-based */
    uint64_t rec_line;
    uint64_t quote_line;
    uint32_t last3;    /* last three bytes, to spot a byte order mark */
    char **names;
    size_t ncols;
    int have_header;
    uint64_t records;
    sk_err failed;
    sk_diag fail_diag;
};

sk_err rd_csv_new(sk_read_fn read, void *ctx, const char *label, const rd_csv_opts *opts,
                  rd_csv **out, sk_diag *d)
{
    sk_err e = SK_OK;
    rd_csv *c = NULL;
    *out = NULL;
    if (!read)
        return sk_diag_set(d, SK_E_ARG, label, 0, "no reader given");
    c = sk_calloc(1, sizeof *c);
    if (!c) {
        e = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory creating a CSV reader");
        goto out;
    }
    c->read = read;
    c->ctx = ctx;
    if (opts)
        c->opts = *opts;
    if (!c->opts.max_field)
        c->opts.max_field = RD_CSV_DEFAULT_MAX_FIELD;
    if (!c->opts.max_record)
        c->opts.max_record = RD_CSV_DEFAULT_MAX_RECORD;
    if (!c->opts.max_fields)
        c->opts.max_fields = RD_CSV_DEFAULT_MAX_FIELDS;
    c->line = 1;
    c->label = sk_strdup(label ? label : "");
    c->in = sk_calloc(1, INPUT_CAP + INPUT_SLACK);
    c->rec_cap = 4096;
    c->rec = sk_malloc(c->rec_cap);
    c->off_cap = 64;
    c->off = sk_malloc(c->off_cap * sizeof *c->off);
    c->flen = sk_malloc(c->off_cap * sizeof *c->flen);
    c->fast = !(c->opts.flags & RD_CSV_GENERAL_ONLY);
#ifdef SK_TEST_HOOKS
    /* test builds: SK_TEST_READERS_GENERAL=1 reads every record with the
     * general path (tests/scripts/analyze_scenarios.sh compares the bytes) */
    if (getenv("SK_TEST_READERS_GENERAL"))
        c->fast = 0;
#endif
    if (!c->label || !c->in || !c->rec || !c->off || !c->flen) {
        e = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory creating a CSV reader");
        goto out;
    }
    *out = c;
    c = NULL;
out:
    rd_csv_free(c);
    return e;
}

static sk_err stick(rd_csv *c, sk_err e, sk_diag *d)
{
    c->failed = e;
    if (d)
        *d = c->fail_diag;
    return e;
}

static sk_err format_error(rd_csv *c, int sub, uint64_t line, const char *msg, sk_diag *d)
{
    sk_diag_set(&c->fail_diag, SK_E_FORMAT, c->label, line, "%s", msg);
    c->fail_diag.sub = sub;
    return stick(c, SK_E_FORMAT, d);
}

static sk_err limit_error(rd_csv *c, const char *what, size_t limit, sk_diag *d)
{
    sk_diag_set(&c->fail_diag, SK_E_LIMIT, c->label, c->line, "%s exceeds the limit of %zu",
                what, limit);
    c->fail_diag.sub = RD_CSV_E_TOO_BIG;
    return stick(c, SK_E_LIMIT, d);
}

static sk_err nomem(rd_csv *c, sk_diag *d)
{
    sk_diag_set(&c->fail_diag, SK_E_NOMEM, c->label, c->line, "out of memory reading a record");
    return stick(c, SK_E_NOMEM, d);
}

/* Grows the record buffer for one more byte. */
static sk_err grow(rd_csv *c, sk_diag *d)
{
    if (c->rec_len + 1 <= c->rec_cap)
        return SK_OK;
    char *p = sk_realloc(c->rec, c->rec_cap * 2);
    if (!p)
        return nomem(c, d);
    c->rec = p;
    c->rec_cap *= 2;
    return SK_OK;
}

/* Room for one more field offset and length. */
static int grow_fields(rd_csv *c)
{
    if (c->nf < c->off_cap)
        return 1;
    size_t *p = sk_realloc(c->off, c->off_cap * 2 * sizeof *p);
    if (!p)
        return 0;
    c->off = p;
    p = sk_realloc(c->flen, c->off_cap * 2 * sizeof *p);
    if (!p)
        return 0;
    c->flen = p;
    c->off_cap *= 2;
    return 1;
}

static sk_err end_field(rd_csv *c, sk_diag *d)
{
    if (c->nf == c->opts.max_fields)
        return limit_error(c, "number of fields", c->opts.max_fields, d);
    if (!c->quoted)
        c->rec_len = c->field_start + c->field_keep;
    sk_err e = grow(c, d);
    if (e != SK_OK)
        return e;
    c->rec[c->rec_len++] = '\0';
    if (!grow_fields(c))
        return nomem(c, d);
    c->flen[c->nf] = c->rec_len - 1 - c->field_start;
    c->off[c->nf++] = c->field_start;
    c->field_start = c->rec_len;
    c->field_keep = 0;
    c->quoted = 0;
    c->state = S_FIELD_START;
    return SK_OK;
}

static void reset_record(rd_csv *c)
{
    c->in_place = 0;
    c->rec_len = 0;
    c->nf = 0;
    c->field_start = 0;
    c->field_keep = 0;
    c->quoted = 0;
    c->state = S_FIELD_START;
    c->rec_line = c->line;
}

static sk_err fill(rd_csv *c, sk_diag *d)
{
    size_t got = 0;
    if (c->pending) {
        c->fail_diag = c->pending_diag;
        return stick(c, c->pending, d);
    }
    sk_diag_clear(&c->fail_diag);
    sk_err e = c->read(c->ctx, c->in, INPUT_CAP, &got, &c->fail_diag);
    if (e != SK_OK)
        return stick(c, e, d);
    c->in_len = got;
    c->in_pos = 0;
    if (got == 0)
        c->eof = 1;
    return SK_OK;
}

/* Skips a byte order mark at the very start.  The first three bytes are
 * gathered first (they may arrive over several reads) so that the decision
 * never depends on how the input is chunked. */
static sk_err skip_leading_bom(rd_csv *c, sk_diag *d)
{
    while (c->in_len < 3 && !c->eof) {
        size_t got = 0;
        sk_diag_clear(&c->fail_diag);
        sk_err e = c->read(c->ctx, c->in + c->in_len, INPUT_CAP - c->in_len, &got, &c->fail_diag);
        if (e != SK_OK)
            return stick(c, e, d);
        if (got == 0)
            c->eof = 1;
        c->in_len += got;
    }
    c->started = 1;
    if (c->in_len >= 3 && c->in[0] == 0xEF && c->in[1] == 0xBB && c->in[2] == 0xBF)
        c->in_pos = 3;
    return SK_OK;
}

/* Appends one data byte to the current field. */
static sk_err put(rd_csv *c, unsigned char ch, sk_diag *d)
{
    if (c->rec_len - c->field_start >= c->opts.max_field)
        return limit_error(c, "field size in bytes", c->opts.max_field, d);
    if (c->rec_len - c->nf >= c->opts.max_record)
        return limit_error(c, "record size in bytes", c->opts.max_record, d);
    sk_err e = grow(c, d);
    if (e != SK_OK)
        return e;
    c->rec[c->rec_len++] = (char)ch;
    if (c->quoted || (ch != ' ' && ch != '\t'))
        c->field_keep = c->rec_len - c->field_start;
    return SK_OK;
}

/* Bytes that end a fast run inside a field: delimiters, quotes, line ends,
 * NUL, and the bytes of a UTF-8 byte order mark (so that the slow path sees
 * every byte of one).  A table: this test runs once per input byte. */
static const unsigned char special[256] = {
    ['\0'] = 1, ['\n'] = 1, ['\r'] = 1, [','] = 1, ['"'] = 1, [0xBB] = 1, [0xBF] = 1, [0xEF] = 1,
};
#define is_special(ch) (special[(unsigned char)(ch)])

/* Appends a run of ordinary bytes to the current field. */
static sk_err put_run(rd_csv *c, const unsigned char *run, size_t n, sk_diag *d)
{
    /* Report the limit that byte-by-byte appending (put) would hit first, so
     * that the error does not depend on how long the run is. */
    size_t field_len = c->rec_len - c->field_start, rec_size = c->rec_len - c->nf;
    size_t field_room = c->opts.max_field > field_len ? c->opts.max_field - field_len : 0;
    size_t rec_room = c->opts.max_record > rec_size ? c->opts.max_record - rec_size : 0;
    if (n > field_room || n > rec_room) {
        if (field_room <= rec_room)
            return limit_error(c, "field size in bytes", c->opts.max_field, d);
        return limit_error(c, "record size in bytes", c->opts.max_record, d);
    }
    if (c->rec_len + n > c->rec_cap) {
        size_t cap = c->rec_cap;
        while (cap < c->rec_len + n)
            cap *= 2;
        char *p = sk_realloc(c->rec, cap);
        if (!p)
            return nomem(c, d);
        c->rec = p;
        c->rec_cap = cap;
    }
    memcpy(c->rec + c->rec_len, run, n);
    c->rec_len += n;
    if (c->quoted) {
        c->field_keep = c->rec_len - c->field_start;
    } else {
        size_t k = n;
        while (k && (run[k - 1] == ' ' || run[k - 1] == '\t'))
            k--;
        if (k)
            c->field_keep = c->rec_len - (n - k) - c->field_start;
    }
    return SK_OK;
}

/* Parses bytes until a record is complete (*done = 1) or the input ends
 * with no pending record (*done = 0). */
static sk_err parse_record(rd_csv *c, int *done, sk_diag *d)
{
    *done = 0;
    reset_record(c);
    int blank = 1; /* only spaces and tabs so far on this line */
    for (;;) {
        if (c->in_pos == c->in_len) {
            if (!c->eof) {
                sk_err e = fill(c, d);
                if (e != SK_OK)
                    return e;
            }
            if (c->eof) {
                if (c->state == S_QUOTED)
                    return format_error(c, RD_CSV_E_UNTERMINATED, c->quote_line,
                                        "unterminated quoted field", d);
                if (blank && c->nf == 0)
                    return SK_OK;
                sk_err e = c->state == S_CR ? SK_OK : end_field(c, d);
                if (e != SK_OK)
                    return e;
                *done = 1;
                return SK_OK;
            }
        }
        if (c->state == S_FIELD_START && !is_special(c->in[c->in_pos]) &&
            c->in[c->in_pos] != ' ' && c->in[c->in_pos] != '\t') {
            c->state = S_UNQUOTED;
            blank = 0;
        }
        if (c->state == S_UNQUOTED || c->state == S_QUOTED) {
            size_t i = c->in_pos;
            while (i < c->in_len && !is_special(c->in[i]))
                i++;
            if (i > c->in_pos) {
                sk_err e = put_run(c, c->in + c->in_pos, i - c->in_pos, d);
                if (e != SK_OK)
                    return e;
                c->in_pos = i;
                c->last3 = 0; /* ordinary bytes break any byte order mark */
                continue;
            }
        }
        unsigned char ch = c->in[c->in_pos++];
        c->last3 = ((c->last3 << 8) | ch) & 0xFFFFFFu;
        if (c->last3 == BOM_BYTES)
            return format_error(c, RD_CSV_E_BOM, c->line,
                                "byte order mark inside the data (concatenated files?)", d);
        if (ch == '\0')
            return format_error(c, RD_CSV_E_NUL, c->line, "NUL byte in CSV data", d);
        sk_err e = SK_OK;
        switch (c->state) {
        case S_FIELD_START:
            if (ch == ' ' || ch == '\t')
                break;
            if (ch == '\n' || ch == '\r')
                goto line_end;
            blank = 0;
            if (ch == '"') {
                c->quoted = 1;
                c->quote_line = c->line;
                c->state = S_QUOTED;
            } else if (ch == ',') {
                e = end_field(c, d);
            } else {
                c->state = S_UNQUOTED;
                e = put(c, ch, d);
            }
            break;
        case S_UNQUOTED:
            if (ch == ',')
                e = end_field(c, d);
            else if (ch == '\n' || ch == '\r')
                goto line_end;
            else if (ch == '"')
                return format_error(c, RD_CSV_E_STRAY_QUOTE, c->line,
                                    "quote inside an unquoted field", d);
            else
                e = put(c, ch, d);
            break;
        case S_QUOTED:
            if (ch == '"')
                c->state = S_QUOTE_SEEN;
            else {
                if (ch == '\n')
                    c->line++;
                e = put(c, ch, d);
            }
            break;
        case S_QUOTE_SEEN:
            if (ch == '"') {
                c->state = S_QUOTED;
                e = put(c, ch, d);
            } else if (ch == ',') {
                e = end_field(c, d);
            } else if (ch == ' ' || ch == '\t') {
                c->state = S_AFTER_QUOTE;
            } else if (ch == '\n' || ch == '\r') {
                goto line_end;
            } else {
                return format_error(c, RD_CSV_E_AFTER_QUOTE, c->line,
                                    "unexpected character after a closing quote", d);
            }
            break;
        case S_AFTER_QUOTE:
            if (ch == ',')
                e = end_field(c, d);
            else if (ch == '\n' || ch == '\r')
                goto line_end;
            else if (ch != ' ' && ch != '\t')
                return format_error(c, RD_CSV_E_AFTER_QUOTE, c->line,
                                    "unexpected character after a closing quote", d);
            break;
        case S_CR:
            if (ch != '\n')
                return format_error(c, RD_CSV_E_BARE_CR, c->line, "CR not followed by LF", d);
            c->line++;
            *done = 1;
            return SK_OK;
        }
        if (e != SK_OK)
            return e;
        continue;
    line_end:
        if (blank && c->nf == 0) {
            /* an empty or blank line: skip it */
            if (ch == '\n') {
                c->line++;
                reset_record(c);
            } else {
                c->state = S_CR;
                /* finish the skip once the LF arrives */
                for (;;) {
                    if (c->in_pos == c->in_len) {
                        if (!c->eof && (e = fill(c, d)) != SK_OK)
                            return e;
                        if (c->eof)
                            return SK_OK;
                    }
                    unsigned char nx = c->in[c->in_pos++];
                    c->last3 = ((c->last3 << 8) | nx) & 0xFFFFFFu;
                    if (nx != '\n')
                        return format_error(c, RD_CSV_E_BARE_CR, c->line, "CR not followed by LF",
                                            d);
                    c->line++;
                    reset_record(c);
                    break;
                }
            }
            continue;
        }
        e = end_field(c, d);
        if (e != SK_OK)
            return e;
        if (ch == '\r') {
            c->state = S_CR;
            continue;
        }
        c->line++;
        *done = 1;
        return SK_OK;
    }
}

/* ------------------------------------------------------------ fast path */

/* Moves the unread bytes to the front of the buffer and reads more behind
 * them, so that a line that began near the end of the buffer is whole in
 * it.  A read error is kept for the general path's next read, which would
 * have met it at the same place in the input. */
static void top_up(rd_csv *c)
{
    size_t n = c->in_len - c->in_pos, got = 0;
    memmove(c->in, c->in + c->in_pos, n);
    c->in_pos = 0;
    c->in_len = n;
    sk_diag_clear(&c->pending_diag);
    sk_err e = c->read(c->ctx, c->in + n, INPUT_CAP - n, &got, &c->pending_diag);
    if (e != SK_OK) {
        c->pending = e;
        return;
    }
    if (got == 0)
        c->eof = 1;
    c->in_len += got;
}

/* The first byte of s[i..end) the fast path stops at, or end: the delimiter
 * and the quote, which it handles, and CR, NUL and non-ASCII bytes, which
 * send the record to the general path (a CR is only allowed right before
 * the LF).  Sixteen bytes per step with SSE2 (the buffer's slack keeps the
 * loads inside it), else one at a time. */
static inline size_t next_special(const unsigned char *s, size_t i, size_t end)
{
#ifdef __SSE2__
    const __m128i comma = _mm_set1_epi8(','), quote = _mm_set1_epi8('"');
    const __m128i cr = _mm_set1_epi8('\r'), one = _mm_set1_epi8(1);
    for (; i < end; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        /* signed: NUL (below 1) and every byte from 0x80 on are negative or 0 */
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, quote)),
                                   _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmplt_epi8(v, one)));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m) {
            size_t at = i + (size_t)__builtin_ctz(m);
            return at < end ? at : end;
        }
    }
    return end;
#else
    for (; i < end; i++) {
        unsigned char ch = s[i];
        if (ch == ',' || ch == '"' || ch == '\r' || ch == '\0' || ch >= 0x80)
            break;
    }
    return i;
#endif
}

static inline int is_blank(unsigned char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Reads the record at in_pos when it is one line in the buffer (topping the
 * buffer up first when the line began near its end) made of plain fields:
 * unquoted ones without a quote, quoted ones without "" , CR or LF, no NUL
 * and no non-ASCII byte anywhere (so no byte order mark), within the
 * limits.  The fields are left in place, NUL-terminated where they end.
 * Returns 1 when it read the record; 0 when the general path must (nothing
 * read, nothing changed but the buffer's compaction); -1 when it ran out of
 * memory for the field table. */
static int fast_record(rd_csv *c)
{
    const unsigned char *nl = memchr(c->in + c->in_pos, '\n', c->in_len - c->in_pos);
    if (!nl && !c->eof && !c->pending && c->in_len - c->in_pos < INPUT_CAP) {
        top_up(c);
        nl = memchr(c->in + c->in_pos, '\n', c->in_len - c->in_pos);
    }
    if (!nl)
        return 0;
    unsigned char *s = c->in + c->in_pos;
    size_t len = (size_t)(nl - s), end = len;
    if (end && s[end - 1] == '\r')
        end--;
    /* no limit can be reached by fewer bytes than the line has */
    if (len >= c->opts.max_field || len >= c->opts.max_record)
        return 0;
    size_t nf = 0, i = 0, sp = next_special(s, 0, end);
    int quoted_any = 0;
    for (;;) {
        while (i < end && is_blank(s[i]))
            i++;
        size_t from, to, after;
        if (i < end && s[i] == '"') {
            quoted_any = 1;
            sp = next_special(s, i + 1, end);
            while (sp < end && s[sp] == ',')
                sp = next_special(s, sp + 1, end);
            /* unterminated on this line, CR, NUL or non-ASCII inside, or "" */
            if (sp >= end || s[sp] != '"' || (sp + 1 < end && s[sp + 1] == '"'))
                return 0;
            from = i + 1;
            to = sp;
            after = sp + 1;
            while (after < end && is_blank(s[after]))
                after++;
            if (after < end && s[after] != ',')
                return 0; /* text after the closing quote */
        } else {
            if (sp < i)
                sp = next_special(s, i, end);
            if (sp < end && s[sp] != ',')
                return 0; /* a quote inside, CR, NUL or non-ASCII */
            from = i;
            to = sp;
            while (to > from && is_blank(s[to - 1]))
                to--;
            after = sp;
        }
        if (nf == c->opts.max_fields)
            return 0; /* the general path reports the limit */
        if (nf == c->off_cap) {
            c->nf = nf;
            if (!grow_fields(c))
                return -1;
        }
        c->off[nf] = c->in_pos + from;
        c->flen[nf++] = to - from;
        if (after >= end)
            break;
        i = after + 1;
        sp = next_special(s, i, end);
    }
    /* an empty or blank line is skipped: the general path's */
    if (nf == 1 && !quoted_any && c->flen[0] == 0)
        return 0;
    for (size_t k = 0; k < nf; k++)
        c->in[c->off[k] + c->flen[k]] = '\0';
    c->nf = nf;
    c->in_place = 1;
    c->rec_line = c->line++;
    c->in_pos += len + 1;
    c->last3 = '\n'; /* ASCII bytes: no byte order mark can span them */
    c->fast_records++;
    return 1;
}

static sk_err next_record(rd_csv *c, int *have, sk_diag *d)
{
    *have = 0;
    if (c->failed) {
        if (d)
            *d = c->fail_diag;
        return c->failed;
    }
    if (!c->started) {
        sk_err e = skip_leading_bom(c, d);
        if (e != SK_OK)
            return e;
    }
    int fast = c->fast ? fast_record(c) : 0;
    if (fast < 0)
        return nomem(c, d);
    if (fast) {
        *have = 1;
        return SK_OK;
    }
    sk_err e = parse_record(c, have, d);
    if (e == SK_OK && *have)
        c->general_records++;
    return e;
}

sk_err rd_csv_read_header(rd_csv *c, sk_diag *d)
{
    if (c->have_header)
        return sk_diag_set(d, SK_E_ARG, c->label, 0, "header already read");
    int have = 0;
    sk_err e = next_record(c, &have, d);
    if (e != SK_OK)
        return e;
    if (!have)
        return format_error(c, RD_CSV_E_HEADER, 1, "no header row: the file is empty", d);
    c->names = sk_calloc(c->nf, sizeof *c->names);
    if (!c->names)
        return nomem(c, d);
    c->ncols = c->nf;
    for (size_t i = 0; i < c->nf; i++) {
        c->names[i] = sk_strdup(rd_csv_field(c, i, NULL));
        if (!c->names[i])
            return nomem(c, d);
        for (size_t j = 0; j < i; j++) {
            if (strcmp(c->names[j], c->names[i]) == 0) {
                sk_diag_set(&c->fail_diag, SK_E_FORMAT, c->label, c->rec_line,
                            "duplicate column name '%s' (columns %zu and %zu)", c->names[i], j + 1,
                            i + 1);
                c->fail_diag.sub = RD_CSV_E_HEADER;
                return stick(c, SK_E_FORMAT, d);
            }
        }
    }
    c->have_header = 1;
    return SK_OK;
}

sk_err rd_csv_next(rd_csv *c, int *have, sk_diag *d)
{
    *have = 0;
    if (!c->have_header)
        return sk_diag_set(d, SK_E_ARG, c->label, 0, "rd_csv_next called before the header");
    sk_err e = next_record(c, have, d);
    if (e != SK_OK || !*have)
        return e;
    if (c->nf != c->ncols) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected %zu fields, found %zu", c->ncols, c->nf);
        *have = 0;
        return format_error(c, RD_CSV_E_FIELD_COUNT, c->rec_line, msg, d);
    }
    c->records++;
    return SK_OK;
}

size_t rd_csv_ncolumns(const rd_csv *c)
{
    return c->ncols;
}

const char *rd_csv_column_name(const rd_csv *c, size_t i)
{
    return i < c->ncols ? c->names[i] : NULL;
}

long rd_csv_column(const rd_csv *c, const char *name)
{
    for (size_t i = 0; i < c->ncols; i++)
        if (strcmp(c->names[i], name) == 0)
            return (long)i;
    return -1;
}

size_t rd_csv_nfields(const rd_csv *c)
{
    return c->nf;
}

const char *rd_csv_field(const rd_csv *c, size_t i, size_t *len)
{
    if (i >= c->nf) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = c->flen[i];
    return (c->in_place ? (const char *)c->in : c->rec) + c->off[i];
}

uint64_t rd_csv_line(const rd_csv *c)
{
    return c->rec_line;
}

uint64_t rd_csv_records(const rd_csv *c)
{
    return c->records;
}

const char *rd_csv_label(const rd_csv *c)
{
    return c->label;
}

void rd_csv_free(rd_csv *c)
{
    if (!c)
        return;
    /* which path read the records (tests/scripts/analyze_work.sh) */
    sk_test_count("csv_fast_records", c->fast_records);
    sk_test_count("csv_general_records", c->general_records);
    if (c->names)
        for (size_t i = 0; i < c->ncols; i++)
            sk_free(c->names[i]);
    sk_free(c->names);
    sk_free(c->in);
    sk_free(c->rec);
    sk_free(c->off);
    sk_free(c->flen);
    sk_free(c->label);
    sk_free(c);
}
