#include "artifact_contract/base/sk_sha256.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_testhook.h"

struct sk_sha256 {
    EVP_MD_CTX *ctx;
};

/* Fetched once per process: EVP_sha256() makes every init look the
 * algorithm up again (OpenSSL 3 implicit fetch), which costs allocations and
 * time for the many small fingerprints.  Never freed: process lifetime.
 * OpenSSL 1.1.1 has no fetching and EVP_sha256() is a static table there
 * (docs/install.md: both are supported). */
static const EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void fetch_sha256(void)
{
    /* an explicit, checked initialisation: EVP_MD_fetch would run it
     * implicitly and carry on with a half-initialised library */
    if (OPENSSL_init_crypto(0, NULL) == 1) {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
        sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
#else
        sha256_md = EVP_sha256();
#endif
    }
}

sk_err sk_sha256_global_init(void)
{
    pthread_once(&sha256_once, fetch_sha256);
    return sha256_md ? SK_OK : SK_E_NOMEM;
}

static const EVP_MD *md(void)
{
    pthread_once(&sha256_once, fetch_sha256);
    return sha256_md ? sha256_md : EVP_sha256();
}

static void to_hex(const unsigned char *md, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[64] = '\0';
}

sk_sha256 *sk_sha256_new(void)
{
    sk_sha256 *h = sk_calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->ctx = EVP_MD_CTX_new();
    if (!h->ctx || EVP_DigestInit_ex(h->ctx, md(), NULL) != 1) {
        sk_sha256_free(h);
        return NULL;
    }
    return h;
}

sk_err sk_sha256_update(sk_sha256 *h, const void *data, size_t len)
{
    if (len && EVP_DigestUpdate(h->ctx, data, len) != 1)
        return SK_E_INTERNAL;
    sk_test_count("sha256_bytes", len);
    return SK_OK;
}

sk_err sk_sha256_final_hex(sk_sha256 *h, char hex[SK_SHA256_HEX_LEN + 1])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_DigestFinal_ex(h->ctx, md, &n) != 1 || n != 32)
        return SK_E_INTERNAL;
    to_hex(md, hex);
    return SK_OK;
}

sk_err sk_sha256_reset(sk_sha256 *h)
{
    return EVP_DigestInit_ex(h->ctx, md(), NULL) == 1 ? SK_OK : SK_E_INTERNAL;
}

void sk_sha256_free(sk_sha256 *h)
{
    if (!h)
        return;
    EVP_MD_CTX_free(h->ctx);
    sk_free(h);
}

sk_err sk_sha256_hex(const void *data, size_t len, char hex[SK_SHA256_HEX_LEN + 1])
{
    sk_sha256 *h = sk_sha256_new();
    if (!h)
        return SK_E_NOMEM;
    sk_err e = sk_sha256_update(h, data, len);
    if (!e)
        e = sk_sha256_final_hex(h, hex);
    sk_sha256_free(h);
    return e;
}

int sk_sha256_is_hex(const char *s)
{
    if (!s || strlen(s) != SK_SHA256_HEX_LEN)
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}
