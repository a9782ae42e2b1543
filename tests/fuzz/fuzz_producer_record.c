/* Fuzz target: producer run records (ac_producer_record.h).
 *
 * Input: any bytes, read as a record file.
 *
 * Promise: the reader never crashes, leaks or reads outside the bytes, and
 *   1. it is deterministic (same outcome and message twice);
 *   2. a record it accepts is exactly what the writer produces for the
 *      parsed fields: write(parse(x)) == x byte for byte (records are
 *      canonical JSON plus "\n", so nothing may be lost or reinterpreted);
 *   3. the parsed record holds together: lowercase 64-digit hashes, the
 *      file hash is the SHA-256 of the input, pgid == sid == pid, a finished
 *      record names its started record's hash; a version 2 record names an
 *      absolute run directory, an attempt exactly when it is a clean run, and
 *      members whose images hold only listed instrumentation variables (huge
 *      argv, bytes that are not UTF-8, members listed twice, foreign names:
 *      never accepted);
 *   4. when allocation k fails, the parse ends with SK_E_NOMEM (or, where
 *      OpenSSL absorbs a failure inside a hash, exactly as without it).
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "artifact_contract/ac_instr.h"
#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/base/sk_sha256.h"

#define FUZZ_MAX_INPUT (64u * 1024)

static int is_hex64(const char *s)
{
    return sk_sha256_is_hex(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    /* an exact-size copy, so a read past the bytes is caught */
    char *buf = malloc(size ? size : 1);
    FUZZ_ASSERT(buf != NULL);
    memcpy(buf, data, size);

    ac_producer_record *r = NULL, *r2 = NULL;
    sk_diag d, d2;
    sk_diag_clear(&d);
    sk_diag_clear(&d2);
    fz_fail_alloc_at(0);
    sk_err e = ac_producer_record_parse(buf, size, "run.json", &r, &d);
    unsigned long n = fz_alloc_count();
    sk_err e2 = ac_producer_record_parse(buf, size, "run.json", &r2, &d2);
    FZ_SAME_ERROR(e, &d, e2, &d2);
    ac_producer_record_free(r2);
    r2 = NULL;
    FUZZ_ASSERT((e == SK_OK) == (r != NULL));

    if (e == SK_OK) {
        sk_buf out = SK_BUF_INIT;
        sk_err we = ac_producer_record_write(r, &out, &d);
        FUZZ_ASSERT_MSG(we == SK_OK, "the writer refuses a record the reader accepted: %s", d.msg);
        FUZZ_ASSERT_MSG(out.len == size && memcmp(out.data, buf, size) == 0,
                        "write(parse(x)) != x: %.300s", sk_buf_cstr(&out));
        sk_buf_free(&out);
        char want[65];
        FUZZ_ASSERT(sk_sha256_hex(buf, size, want) == SK_OK);
        FUZZ_ASSERT(strcmp(r->file_sha256, want) == 0);
        FUZZ_ASSERT(is_hex64(r->command_fingerprint));
        FUZZ_ASSERT(ac_producer_purpose_is_sessionless(r->purpose)
                        ? r->session_fingerprint[0] == '\0'
                        : is_hex64(r->session_fingerprint));
        FUZZ_ASSERT(r->schema == 1 || r->schema == 2);
        if (r->schema == 2) {
            /* version 2: where the run was made, and (clean runs) its attempt */
            FUZZ_ASSERT(r->run_dir_path && r->run_dir_path[0] == '/');
            FUZZ_ASSERT(!r->has_config || (r->config_path[0] == '/' && is_hex64(r->config_sha256)));
            FUZZ_ASSERT(r->has_attempt == (strcmp(r->purpose, AC_RUN_PURPOSE_CLEAN) == 0));
            FUZZ_ASSERT(r->state != AC_RUN_FINISHED || r->nmembers >= 1);
            /* every member's images are there, or it says they are incomplete;
             * only listed names are in an image's environment */
            for (size_t i = 0; i < r->nmembers; i++) {
                const ac_member *m = &r->members[i];
                int nim = m->images ? cJSON_GetArraySize(m->images) : 0;
                FUZZ_ASSERT(nim <= AC_MEMBER_MAX_IMAGES && (nim >= 1 || m->images_truncated));
                for (const cJSON *im = nim ? m->images->child : NULL; im; im = im->next) {
                    const cJSON *env = cJSON_GetObjectItemCaseSensitive(im, "environment");
                    for (const cJSON *c = cJSON_IsObject(env) ? env->child : NULL; c; c = c->next)
                        FUZZ_ASSERT(ac_instr_var_find(c->string, strlen(c->string)) != NULL);
                }
            }
        }
        FUZZ_ASSERT(r->pid == r->pgid && r->pid == r->sid);
        FUZZ_ASSERT(r->state == AC_RUN_STARTED || r->state == AC_RUN_FINISHED);
        if (r->state == AC_RUN_FINISHED)
            FUZZ_ASSERT(is_hex64(r->started_record_sha256));
        FUZZ_ASSERT(r->capture_role && r->capture_root && r->command && r->boot_id);
    }
    ac_producer_record_free(r);

    if (n > 0) {
        fz_rng rng = {fz_hash(data, size)};
        unsigned long k = 1 + fz_below(&rng, n);
        fz_fail_alloc_at(k);
        sk_err ek = ac_producer_record_parse(buf, size, "run.json", &r2, &d2);
        int reached = fz_alloc_count() >= k;
        fz_fail_alloc_at(0);
        if (!(ek == SK_OK && e == SK_OK)) /* success: OpenSSL absorbed it */
            FUZZ_ASSERT_MSG(reached ? ek == SK_E_NOMEM : ek == e, "allocation %lu: %s %s", k,
                            sk_err_name(ek), d2.msg);
        ac_producer_record_free(r2);
    }
    free(buf);
    return 0;
}
