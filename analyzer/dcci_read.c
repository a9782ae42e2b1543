#include "dcci_read.h"

#include <string.h>

#include "../artifact_contract/sk_alloc.h"
#include "../artifact_contract/sk_buf.h"

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

/* sk_read_fn over the stable reader, counting raw bytes for the progress line. */
static sk_err counted_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    dcci_reader *r = ctx;
    sk_err e = sk_rfile_read(r->rf, buf, cap, got, d);
    if (e == SK_OK && r->progress && *got)
        atomic_fetch_add_explicit(r->progress, *got, memory_order_relaxed);
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
    sk_err e = sk_rfile_openat(in->root_fd, file->relpath, dcci_kind_role(file->kind), &r->rf, d);
    if (e) {
        sk_diag_set_file(d, r->label);
        return e;
    }
    return sk_source_new(counted_read, r, r->label, &r->src, d);
}

sk_err dcci_reader_finish(dcci_reader *r, sk_diag *d)
{
    dcci_file *f = r->file;
    sk_err e = sk_source_finish(r->src, f->sha256, d);
    if (e)
        return e;
    e = sk_rfile_finish(r->rf, &f->after, d);
    if (e) {
        sk_diag_set_file(d, r->label);
        return e;
    }
    f->raw_bytes = sk_source_raw_bytes(r->src);
    f->decoded_bytes = sk_source_decoded_bytes(r->src);
    f->zstd = sk_source_is_zstd(r->src);
    f->read = 1;
    return SK_OK;
}

void dcci_reader_close(dcci_reader *r)
{
    sk_source_free(r->src);
    sk_rfile_free(r->rf);
    sk_free(r->label);
    memset(r, 0, sizeof *r);
}
