/* Fuzz target: the streaming RFC 4180 reader (rd_csv.h).
 *
 * Input: any bytes, read as a CSV file.
 *
 * Promise: the reader never crashes, hangs, leaks or reads outside its input;
 *   1. the header, every record (line, fields, field lengths) and the final
 *      outcome (end, or error code, sub-code and message) are identical for
 *      one-byte reads, random-sized reads and whole reads, and identical to
 *      those of the general path alone (RD_CSV_GENERAL_ONLY);
 *   2. every record has as many fields as the header, every field is a C
 *      string of exactly its length, record lines increase, column lookup
 *      by name finds each column at its index, rd_csv_records counts records;
 *   3. with the default limits, the reader agrees with an independent
 *      in-memory implementation of the grammar written from rd_csv.h
 *      (accept/reject, header, records and their lines);
 *   4. when allocation k fails, the read ends with SK_E_NOMEM.
 * Small field, record and field-count limits (one input in four) exercise
 * SK_E_LIMIT; property 3 is skipped for those.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/readers/rd_csv.h"

#define FUZZ_MAX_INPUT (64u * 1024)

typedef struct outcome {
    fz_buf rec;
    sk_err err;
    sk_diag diag;
} outcome;

static void run(const uint8_t *data, size_t size, const rd_csv_opts *opts, fz_chunking mode,
                uint64_t seed, outcome *o)
{
    fz_reader rd;
    fz_reader_init(&rd, data, size, mode, seed);
    memset(o, 0, sizeof *o);
    sk_diag_clear(&o->diag);
    rd_csv *c = NULL;
    sk_err e = rd_csv_new(fz_read, &rd, "fuzz.csv", opts, &c, &o->diag);
    if (!e)
        e = rd_csv_read_header(c, &o->diag);
    if (!e) {
        size_t nc = rd_csv_ncolumns(c);
        FUZZ_ASSERT(nc >= 1);
        fz_buf_printf(&o->rec, "H%zu", nc);
        for (size_t i = 0; i < nc; i++) {
            const char *name = rd_csv_column_name(c, i);
            FUZZ_ASSERT(name != NULL);
            FUZZ_ASSERT_MSG(rd_csv_column(c, name) == (long)i, "column '%s' not found at %zu", name, i);
            fz_buf_printf(&o->rec, "[%zu]", strlen(name));
            fz_buf_add(&o->rec, name, strlen(name));
        }
        fz_buf_add(&o->rec, "\n", 1);
    }
    uint64_t prev_line = 0, records = 0;
    while (!e) {
        int have = 0;
        e = rd_csv_next(c, &have, &o->diag);
        if (e || !have)
            break;
        records++;
        FUZZ_ASSERT(rd_csv_records(c) == records);
        uint64_t line = rd_csv_line(c);
        FUZZ_ASSERT_MSG(line > prev_line && line >= 2, "record line %llu after %llu",
                        (unsigned long long)line, (unsigned long long)prev_line);
        prev_line = line;
        size_t nf = rd_csv_nfields(c);
        FUZZ_ASSERT(nf == rd_csv_ncolumns(c));
        fz_buf_printf(&o->rec, "L%llu", (unsigned long long)line);
        for (size_t i = 0; i < nf; i++) {
            size_t len = 0;
            const char *f = rd_csv_field(c, i, &len);
            FUZZ_ASSERT(f != NULL);
            FUZZ_ASSERT_MSG(strlen(f) == len, "field %zu: strlen %zu, len %zu", i, strlen(f), len);
            fz_buf_printf(&o->rec, "[%zu]", len);
            fz_buf_add(&o->rec, f, len);
        }
        FUZZ_ASSERT(rd_csv_field(c, nf, NULL) == NULL);
        fz_buf_add(&o->rec, "\n", 1);
    }
    o->err = e;
    rd_csv_free(c);
}

/* ------------------------------------------------------------ reference */

/* The grammar of rd_csv.h over the whole input in memory.  Returns 0 and the
 * same recording as run() (header, then "L<line>" records), or -1 when the
 * input must be rejected. */
typedef struct ref_state {
    const uint8_t *p;
    size_t n, i;
    uint64_t line;
} ref_state;

static int ref_blank(uint8_t c)
{
    return c == ' ' || c == '\t';
}

/* Parses one record starting at s->i into fields (appended to out as
 * "[len]bytes"); *nf gets the field count, *blank whether the line held only
 * spaces and tabs (unquoted).  Returns -1 on a grammar error. */
static int ref_record(ref_state *s, fz_buf *out, size_t *nf, int *blank)
{
    *nf = 0;
    *blank = 1;
    for (;;) {
        fz_buf field = {0};
        while (s->i < s->n && ref_blank(s->p[s->i]))
            s->i++;
        if (s->i < s->n && s->p[s->i] == '"') {
            *blank = 0;
            s->i++;
            for (;;) {
                if (s->i >= s->n) {
                    fz_buf_free(&field);
                    return -1; /* unterminated */
                }
                uint8_t c = s->p[s->i++];
                if (c == '"') {
                    if (s->i < s->n && s->p[s->i] == '"') {
                        fz_buf_add(&field, "\"", 1);
                        s->i++;
                        continue;
                    }
                    break;
                }
                if (c == '\n')
                    s->line++;
                fz_buf_add(&field, &c, 1);
            }
            while (s->i < s->n && ref_blank(s->p[s->i]))
                s->i++;
            if (s->i < s->n && s->p[s->i] != ',' && s->p[s->i] != '\n' && s->p[s->i] != '\r') {
                fz_buf_free(&field);
                return -1; /* text after the closing quote */
            }
        } else {
            size_t start = s->i;
            while (s->i < s->n && s->p[s->i] != ',' && s->p[s->i] != '\n' && s->p[s->i] != '\r') {
                if (s->p[s->i] == '"')
                    return -1; /* stray quote */
                s->i++;
            }
            size_t end = s->i;
            while (end > start && ref_blank(s->p[end - 1]))
                end--;
            if (end > start || (s->i < s->n && s->p[s->i] == ','))
                *blank = 0;
            fz_buf_add(&field, s->p + start, end - start);
        }
        fz_buf_printf(out, "[%zu]", field.len);
        fz_buf_add(out, field.data ? field.data : "", field.len);
        fz_buf_free(&field);
        (*nf)++;
        if (s->i >= s->n)
            return 0;
        uint8_t c = s->p[s->i++];
        if (c == ',')
            continue;
        if (c == '\r') {
            if (s->i < s->n && s->p[s->i] != '\n')
                return -1; /* bare CR; a final CR ends the input like CRLF */
            if (s->i < s->n)
                s->i++;
        }
        s->line++;
        return 0;
    }
}

static int reference(const uint8_t *data, size_t size, fz_buf *out)
{
    ref_state s = {data, size, 0, 1};
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        s.i = 3;
    if (memchr(data, '\0', size))
        return -1;
    for (size_t k = 1; k + 3 <= size; k++)
        if (memcmp(data + k, "\xEF\xBB\xBF", 3) == 0)
            return -1;
    size_t ncol = 0;
    int have_header = 0;
    fz_buf header_names[1] = {{0}};
    while (s.i < s.n) {
        fz_buf rec = {0};
        size_t nf;
        int blank;
        uint64_t line = s.line;
        if (ref_record(&s, &rec, &nf, &blank) != 0) {
            fz_buf_free(&rec);
            fz_buf_free(header_names);
            return -1;
        }
        if (blank && nf == 1) {
            fz_buf_free(&rec);
            continue;
        }
        if (!have_header) {
            have_header = 1;
            ncol = nf;
            fz_buf_printf(out, "H%zu", nf);
            fz_buf_add(out, rec.data, rec.len);
            fz_buf_add(out, "\n", 1);
            fz_buf_add(header_names, rec.data, rec.len);
        } else {
            if (nf != ncol) {
                fz_buf_free(&rec);
                fz_buf_free(header_names);
                return -1;
            }
            fz_buf_printf(out, "L%llu", (unsigned long long)line);
            fz_buf_add(out, rec.data, rec.len);
            fz_buf_add(out, "\n", 1);
        }
        fz_buf_free(&rec);
    }
    fz_buf_free(header_names);
    return have_header ? 0 : -1;
}

/* Duplicate column names are rejected; the reference finds them in the
 * recorded header ("H<n>[len]name..."). */
static int header_has_duplicates(const fz_buf *rec)
{
    char *p;
    size_t n = (size_t)strtoull(rec->data + 1, &p, 10);
    const char **names = calloc(n ? n : 1, sizeof *names);
    size_t *lens = calloc(n ? n : 1, sizeof *lens);
    FUZZ_ASSERT(names && lens);
    for (size_t i = 0; i < n; i++) {
        lens[i] = (size_t)strtoull(p + 1, &p, 10);
        names[i] = p + 1;
        p += 1 + lens[i];
    }
    int dup = 0;
    for (size_t i = 0; i < n && !dup; i++)
        for (size_t j = i + 1; j < n && !dup; j++)
            dup = lens[i] == lens[j] && memcmp(names[i], names[j], lens[i]) == 0;
    free(names);
    free(lens);
    return dup;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    uint64_t h = fz_hash(data, size);
    fz_rng rng = {h};
    rd_csv_opts opts = {0, 0, 0, 0};
    int limited = fz_below(&rng, 4) == 0;
    if (limited) {
        opts.max_field = 1 + fz_below(&rng, 64);
        opts.max_record = 1 + fz_below(&rng, 256);
        opts.max_fields = 1 + fz_below(&rng, 8);
    }

    outcome base, other;
    run(data, size, &opts, FZ_CHUNK_ALL, 0, &base);
    /* every read size, and the general path alone */
    static const fz_chunking modes[] = {FZ_CHUNK_ONE, FZ_CHUNK_RANDOM, FZ_CHUNK_ALL,
                                        FZ_CHUNK_RANDOM};
    for (size_t m = 0; m < 4; m++) {
        rd_csv_opts o = opts;
        o.flags = m >= 2 ? RD_CSV_GENERAL_ONLY : 0;
        run(data, size, &o, modes[m], fz_next(&rng), &other);
        FZ_SAME_OUTPUT(&base.rec, &other.rec, "records");
        FZ_SAME_ERROR(base.err, &base.diag, other.err, &other.diag);
        FUZZ_ASSERT(base.diag.sub == other.diag.sub && base.diag.line == other.diag.line);
        fz_buf_free(&other.rec);
    }
    if (base.err != SK_OK)
        FUZZ_ASSERT_MSG(base.err == SK_E_FORMAT || base.err == SK_E_LIMIT, "%s: %s",
                        sk_err_name(base.err), base.diag.msg);

    if (!limited) {
        fz_buf ref = {0};
        int ok = reference(data, size, &ref) == 0 && !header_has_duplicates(&ref);
        if (ok) {
            FUZZ_ASSERT_MSG(base.err == SK_OK, "reader rejects what the grammar accepts: %s",
                            base.diag.msg);
            FZ_SAME_OUTPUT(&ref, &base.rec, "reference vs reader");
        } else {
            FUZZ_ASSERT_MSG(base.err != SK_OK, "reader accepts what the grammar rejects");
        }
        fz_buf_free(&ref);
    }

    /* property 4 */
    fz_fail_alloc_at(0);
    run(data, size, &opts, FZ_CHUNK_RANDOM, h, &other);
    fz_buf_free(&other.rec);
    unsigned long n = fz_alloc_count();
    if (n > 0) {
        unsigned long k = 1 + fz_below(&rng, n);
        fz_fail_alloc_at(k);
        run(data, size, &opts, FZ_CHUNK_RANDOM, h, &other);
        FZ_CHECK_NOMEM(k, other.err, &other.diag, base.err);
        fz_fail_alloc_at(0);
        fz_buf_free(&other.rec);
    }
    fz_buf_free(&base.rec);
    return 0;
}
