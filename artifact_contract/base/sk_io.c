#include "artifact_contract/base/sk_io.h"

#include <string.h>

sk_err sk_mem_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    (void)d;
    sk_mem_reader *r = ctx;
    size_t n = r->len - r->pos;
    if (n > cap)
        n = cap;
    if (r->max_chunk && n > r->max_chunk)
        n = r->max_chunk;
    if (n)
        memcpy(buf, r->data + r->pos, n);
    r->pos += n;
    *got = n;
    return SK_OK;
}
