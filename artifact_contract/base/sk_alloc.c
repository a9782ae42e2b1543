#include "artifact_contract/base/sk_alloc.h"

#include <cjson/cJSON.h>
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

#ifdef SK_TEST_HOOKS
#include <stdatomic.h>
#include <stdio.h>

static atomic_ulong alloc_count;
static unsigned long fail_at; /* 0 = never */
static const char *stats_path;

static int should_fail(void)
{
    unsigned long n = atomic_fetch_add(&alloc_count, 1) + 1;
    return fail_at != 0 && n == fail_at;
}

static void write_stats(void)
{
    if (!stats_path)
        return;
    FILE *f = fopen(stats_path, "w");
    if (!f)
        return;
    fprintf(f, "%lu\n", (unsigned long)atomic_load(&alloc_count));
    fclose(f);
}

void sk_alloc_init_from_env(void)
{
    /* allocations are counted from here: what ran before (library
     * initialisation that cannot be failed) is neither failed nor counted */
    atomic_store(&alloc_count, 0);
    const char *v = getenv("SK_FAIL_ALLOC_AT");
    if (v && *v)
        fail_at = strtoul(v, NULL, 10);
    stats_path = getenv("SK_ALLOC_STATS");
    if (stats_path && *stats_path)
        atexit(write_stats);
}

void sk_alloc_fail_at(unsigned long n)
{
    atomic_store(&alloc_count, 0);
    fail_at = n;
}

unsigned long sk_alloc_count(void)
{
    return atomic_load(&alloc_count);
}
#else
static int should_fail(void)
{
    return 0;
}
#endif

void *sk_malloc(size_t n)
{
    if (should_fail())
        return NULL;
    return malloc(n ? n : 1);
}

void *sk_calloc(size_t count, size_t size)
{
    if (should_fail())
        return NULL;
    if (count == 0 || size == 0)
        count = size = 1;
    return calloc(count, size);
}

void *sk_realloc(void *p, size_t n)
{
    if (should_fail())
        return NULL;
    return realloc(p, n ? n : 1);
}

void sk_free(void *p)
{
    free(p);
}

void *sk_memdup(const void *p, size_t n)
{
    void *q = sk_malloc(n);
    if (q && n)
        memcpy(q, p, n);
    return q;
}

char *sk_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *q = sk_malloc(len + 1);
    if (!q)
        return NULL;
    memcpy(q, s, len);
    q[len] = '\0';
    return q;
}

char *sk_strdup(const char *s)
{
    return sk_strndup(s, strlen(s));
}

void *sk_alloc_opaque_malloc(size_t n, void *opaque)
{
    (void)opaque;
    return sk_malloc(n);
}

void sk_alloc_opaque_free(void *p, void *opaque)
{
    (void)opaque;
    sk_free(p);
}

void *sk_alloc_zstd_malloc(void *opaque, size_t n)
{
    (void)opaque;
    return sk_malloc(n);
}

void sk_alloc_zstd_free(void *opaque, void *p)
{
    (void)opaque;
    sk_free(p);
}

static void *cjson_malloc(size_t n)
{
    return sk_malloc(n);
}

static void *ossl_malloc(size_t n, const char *file, int line)
{
    (void)file;
    (void)line;
    return sk_malloc(n);
}

static void *ossl_realloc(void *p, size_t n, const char *file, int line)
{
    (void)file;
    (void)line;
    return sk_realloc(p, n);
}

static void ossl_free(void *p, const char *file, int line)
{
    (void)file;
    (void)line;
    sk_free(p);
}

void sk_alloc_install_library_hooks(void)
{
    cJSON_Hooks hooks = {cjson_malloc, sk_free};
    cJSON_InitHooks(&hooks);
    /* Fails harmlessly (returns 0) if OpenSSL already allocated; then it keeps
     * its own allocator, which only affects fault injection coverage. */
    (void)CRYPTO_set_mem_functions(ossl_malloc, ossl_realloc, ossl_free);
}
