/* SHA-256 through OpenSSL libcrypto (EVP), lowercase hex output. */
#ifndef SK_SHA256_H
#define SK_SHA256_H

#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

#define SK_SHA256_HEX_LEN 64

typedef struct sk_sha256 sk_sha256;

/* Initialises libcrypto and fetches SHA-256 once per process; SK_E_NOMEM
 * when that fails.  OpenSSL 3 does not survive an allocation failure during
 * its lazy initialisation (a later call locks a lock it never created), so
 * the tools call this first thing and stop when it fails; afterwards an
 * allocation failure inside OpenSSL is an ordinary, reported error.  Calling
 * it again returns the first outcome. */
sk_err sk_sha256_global_init(void);

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
