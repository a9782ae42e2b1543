/* SHA-256 through OpenSSL libcrypto (EVP), lowercase hex output. */
#ifndef SK_SHA256_H
#define SK_SHA256_H

#include <stddef.h>

#include "sk_diag.h"

#define SK_SHA256_HEX_LEN 64

typedef struct sk_sha256 sk_sha256;

/* Initialises libcrypto and looks SHA-256 up once; 0 on success, -1 when it
 * is unavailable.  Tools call it first thing (before fault injection is
 * armed): OpenSSL 3.0 does not survive an allocation failure inside its own
 * lazy initialisation (a later EVP_MD_fetch dereferences a lock that was never
 * created), so that initialisation must not happen in the middle of a run. */
int sk_sha256_prepare(void);
sk_sha256 *sk_sha256_new(void); /* NULL when out of memory */
sk_err sk_sha256_update(sk_sha256 *h, const void *data, size_t len);
/* Writes 64 hex digits and a NUL; the context can then only be freed or reset. */
sk_err sk_sha256_final_hex(sk_sha256 *h, char hex[SK_SHA256_HEX_LEN + 1]);
sk_err sk_sha256_reset(sk_sha256 *h);
void sk_sha256_free(sk_sha256 *h);

/* One-shot digest of a memory block. */
sk_err sk_sha256_hex(const void *data, size_t len, char hex[SK_SHA256_HEX_LEN + 1]);

/* 1 when s is exactly 64 characters of [0-9a-f] (the manifest format). */
int sk_sha256_is_hex(const char *s);

#endif
