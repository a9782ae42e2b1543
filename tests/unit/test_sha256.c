#include "artifact_contract/base/sk_sha256.h"
#include "tests/unit/t.h"

static void sha256_known_vectors(void)
{
    char hex[65];
    T_EQ_INT(sk_sha256_hex("", 0, hex), SK_OK);
    T_EQ_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    T_EQ_INT(sk_sha256_hex("{}", 2, hex), SK_OK);
    T_EQ_STR(hex, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    T_EQ_INT(sk_sha256_hex("null", 4, hex), SK_OK);
    T_EQ_STR(hex, "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b");
}

static void sha256_streaming_equals_oneshot(void)
{
    const char *text = "{\"superkernel\":false}";
    sk_sha256 *h = sk_sha256_new();
    T_CHECK(h != NULL);
    for (const char *p = text; *p; p++)
        T_EQ_INT(sk_sha256_update(h, p, 1), SK_OK);
    char hex[65];
    T_EQ_INT(sk_sha256_final_hex(h, hex), SK_OK);
    T_EQ_STR(hex, "c4c843a18df69eb7d03387a20c0aa3316615bd3007f4888be2be02c49b848277");
    T_EQ_INT(sk_sha256_reset(h), SK_OK);
    T_EQ_INT(sk_sha256_update(h, "{}", 2), SK_OK);
    T_EQ_INT(sk_sha256_final_hex(h, hex), SK_OK);
    T_EQ_STR(hex, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    sk_sha256_free(h);
}

static void sha256_hex_format(void)
{
    T_CHECK(sk_sha256_is_hex("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"));
    T_CHECK(!sk_sha256_is_hex("44136FA355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"));
    T_CHECK(!sk_sha256_is_hex("short"));
    T_CHECK(!sk_sha256_is_hex("gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg"));
    T_CHECK(!sk_sha256_is_hex(NULL));
}

static const t_case cases[] = {
    T(sha256_known_vectors),
    T(sha256_streaming_equals_oneshot),
    T(sha256_hex_format),
    {NULL, NULL},
};
T_MAIN(cases)
