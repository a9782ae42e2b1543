#include "analyzer/dcci/dcci_read.h"

#include <string.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_set.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"

char *dcci_file_label(const dcci_side_input *in, const dcci_file *file)
{
    sk_buf b = SK_BUF_INIT;
    const char *root = in->root ? in->root : ".";
    if (sk_buf_puts(&b, root) || (strcmp(root, "/") != 0 && sk_buf_putc(&b, '/')) ||
        sk_buf_puts(&b, file->relpath)) {
        sk_buf_free(&b);
        return NULL;
    }
    return sk_buf_take(&b);
}

int dcci_contract_violation(sk_err e, const sk_diag *d)
{
    if (e == SK_OK || e == SK_E_NOMEM || e == SK_E_INTERNAL)
        return 0;
    int sub = d ? d->sub : 0;
    return sub != AC_E_NOMEM && sub != AC_E_INTERNAL && sub != AC_E_IO;
}

/* Remembers a refusal of the contract reader on the file (see the header). */
static sk_err contract_refused(dcci_reader *r, sk_err e, sk_diag *d)
{
    if (d && dcci_contract_violation(e, d) && !r->file->contract_failed) {
        r->file->contract_failed = 1;
        r->file->contract_diag = *d;
    }
    return e;
}

/* sk_read_fn over the stable reader, counting raw bytes for the progress line. */
static sk_err counted_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    dcci_reader *r = ctx;
    sk_err e = r->cr ? ac_set_reader_read(r->cr, buf, cap, got, d)
                     : sk_rfile_read(r->rf, buf, cap, got, d);
    if (e == SK_OK && r->progress && *got)
        atomic_fetch_add_explicit(r->progress, *got, memory_order_relaxed);
    if (e && r->cr)
        return contract_refused(r, e, d);
    if (e)
        sk_diag_set_file(d, r->label);
    return e;
}

sk_err dcci_reader_open(dcci_reader *r, const dcci_side_input *in, dcci_file *file,
                        _Atomic uint64_t *progress, sk_diag *d)
{
    memset(r, 0, sizeof *r);
    r->file = file;
    r->progress = progress;
    r->label = dcci_file_label(in, file);
    if (!r->label)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    if (in->contract && file->contract_file) {
        sk_err e = ac_set_reader_open(in->contract, file->contract_file, &r->cr, d);
        if (e)
            return contract_refused(r, e, d);
        return rd_source_new_unhashed(counted_read, r, r->label, &r->src, d);
    }
    sk_err e = sk_rfile_openat(in->root_fd, file->relpath, dcci_kind_role(file->kind), &r->rf, d);
    if (e) {
        sk_diag_set_file(d, r->label);
        return e;
    }
    return rd_source_new(counted_read, r, r->label, &r->src, d);
}

sk_err dcci_reader_finish(dcci_reader *r, sk_diag *d)
{
    dcci_file *f = r->file;
    sk_err e = rd_source_finish(r->src, f->sha256, d);
    if (e)
        return e;
    if (r->cr) {
        /* proves the binding and confirms size, times and SHA-256 */
        e = ac_set_reader_close(r->cr, d);
        memcpy(f->sha256, ac_set_reader_sha256(r->cr), sizeof f->sha256);
        if (e)
            return contract_refused(r, e, d);
    } else {
        e = sk_rfile_finish(r->rf, &f->after, d);
        if (e) {
            sk_diag_set_file(d, r->label);
            return e;
        }
    }
    f->raw_bytes = rd_source_raw_bytes(r->src);
    f->decoded_bytes = rd_source_decoded_bytes(r->src);
    f->zstd = rd_source_is_zstd(r->src);
    f->read = 1;
    return SK_OK;
}

/* Scratch size for reading the rest of a sealed file the parser gave up on. */
#define CONFIRM_CHUNK 16384

void dcci_reader_close(dcci_reader *r)
{
    /* A sealed file the parser gave up on: read the rest through the
     * contract reader, so that a file that is not the sealed one is reported
     * as a contract violation rather than as malformed input. */
    if (r->cr && r->file && !r->file->read && !r->file->contract_failed) {
        unsigned char buf[CONFIRM_CHUNK];
        size_t got = 0;
        sk_diag cd;
        sk_err e;
        sk_diag_clear(&cd);
        do
            e = ac_set_reader_read(r->cr, buf, sizeof buf, &got, &cd);
        while (!e && got);
        if (!e)
            e = ac_set_reader_close(r->cr, &cd);
        if (e)
            contract_refused(r, e, &cd);
    }
    rd_source_free(r->src);
    sk_rfile_free(r->rf);
    ac_set_reader_free(r->cr);
    sk_free(r->label);
    memset(r, 0, sizeof *r);
}
