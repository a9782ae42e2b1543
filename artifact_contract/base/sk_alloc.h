/* One allocation path for the whole toolkit.
 *
 * Every library allocation (ours, cJSON's, PCRE2's, zstd's and OpenSSL's) goes
 * through these wrappers so that tests can fail the Nth allocation and prove
 * that each failure path cleans up (curl's CURL_MEMLIMIT, SQLite's OOM tests).
 * The fault-injection controls exist only in test builds (SK_TEST_HOOKS).
 */
#ifndef SK_ALLOC_H
#define SK_ALLOC_H

#include <stddef.h>

void *sk_malloc(size_t n);
void *sk_calloc(size_t count, size_t size);
/* Like realloc; on failure the old block is untouched and NULL is returned. */
void *sk_realloc(void *p, size_t n);
char *sk_strdup(const char *s);
char *sk_strndup(const char *s, size_t n);
void *sk_memdup(const void *p, size_t n);
void sk_free(void *p);

/* Routes cJSON and OpenSSL allocations through the wrappers above.  Call once,
 * first thing in main(), before any other library call. */
void sk_alloc_install_library_hooks(void);

/* Adapters with the signatures PCRE2 (general context) and zstd (customMem)
 * expect; the opaque pointer is unused. */
void *sk_alloc_opaque_malloc(size_t n, void *opaque);
void sk_alloc_opaque_free(void *p, void *opaque);
void *sk_alloc_zstd_malloc(void *opaque, size_t n);
void sk_alloc_zstd_free(void *opaque, void *p);

#ifdef SK_TEST_HOOKS
/* Test builds read SK_FAIL_ALLOC_AT=N (fail exactly the Nth allocation, 1-based)
 * and SK_ALLOC_STATS=FILE (write the number of allocations at exit).  Counting
 * starts at sk_alloc_init_from_env(): the CLI calls it after the one-time
 * OpenSSL initialisation, which does not survive a failed allocation. */
void sk_alloc_init_from_env(void);
void sk_alloc_fail_at(unsigned long n);
unsigned long sk_alloc_count(void);
#else
static inline void sk_alloc_init_from_env(void) {}
#endif

#endif
