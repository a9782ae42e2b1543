#include "tests/unit/t_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const size_t t_chunks[] = {1, 2, 3, 7, 0};
const size_t t_nchunks = sizeof t_chunks / sizeof t_chunks[0];

sk_err t_fd_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    t_fd_reader *r = ctx;
    for (;;) {
        ssize_t n = read(r->fd, buf, cap);
        if (n >= 0) {
            *got = (size_t)n;
            return SK_OK;
        }
        if (errno != EINTR)
            return sk_diag_set(d, SK_E_IO, "fd", 0, "read failed: %s", strerror(errno));
    }
}

const char *t_fixture(const char *rel)
{
    static char path[4096];
    const char *repo = getenv("SK_REPO");
    snprintf(path, sizeof path, "%s/fixtures/%s", repo && *repo ? repo : ".", rel);
    return path;
}

char *t_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        char *bigger = realloc(buf, cap * 2 + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

sk_err t_failing_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    t_failing_reader *r = ctx;
    if (r->mem.pos >= r->fail_at) {
        *got = 0;
        return sk_diag_set(d, SK_E_IO, "failing", 0, "simulated read error");
    }
    size_t room = r->fail_at - r->mem.pos;
    return sk_mem_read(&r->mem, buf, cap < room ? cap : room, got, d);
}
