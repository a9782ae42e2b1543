/* Fuzz target: the Stage O config loader (so_config.h), YAML through libyaml
 * and JSON through the strict loader.
 *
 * Input: any bytes, one config file.  The syntax (by name ".json"/".yaml",
 * or forced) and the ambiguity option come from the input's hash.
 *
 * Promise: nothing crashes, leaks or reads outside the input, and
 *   1. parsing is deterministic: the same bytes give the same canonical text
 *      or the same complete error message;
 *   2. choosing the syntax by name is the same as forcing it (".json" is
 *      JSON, anything else YAML);
 *   3. an accepted config is a valid JSON data model: its canonical text is
 *      produced (every number node carries a JSON number literal, no
 *      non-finite value, no duplicate key) and parses back through the JSON
 *      path of the same loader to the same canonical text;
 *   4. rejecting scalars that PyYAML reads differently only ever adds
 *      errors: a config accepted in the strict mode is accepted with
 *      allow_yaml11_ambiguity and gives the same tree;
 *   5. an error carries a message, and a YAML error names the input;
 *   6. when allocation k fails (sk_alloc; libyaml's own allocations are not
 *      counted), the result is SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/stage_o/so_config.h"
#include "artifact_contract/base/sk_json.h"

#define FUZZ_MAX_INPUT (16u * 1024)

/* Canonical text or the rendered error, for comparing two loads. */
static void outcome(fz_buf *out, sk_err e, const sk_diag *d, const cJSON *v)
{
    fz_buf_printf(out, "%s ", sk_err_name(e));
    if (e) {
        char msg[1024];
        sk_diag_format(d, msg, sizeof msg);
        fz_buf_printf(out, "%s", msg);
        return;
    }
    sk_buf b = SK_BUF_INIT;
    sk_diag wd;
    sk_err we = sk_json_write(v, SK_JSON_CANONICAL, &b, &wd);
    FUZZ_ASSERT_MSG(we == SK_OK, "accepted config has no canonical text: %s", wd.msg);
    fz_buf_add(out, sk_buf_cstr(&b), b.len);
    sk_buf_free(&b);
}

static sk_err load(const uint8_t *data, size_t size, const char *path, so_config_syntax syn,
                   int allow, cJSON **v, sk_diag *d)
{
    so_config_opts o = {.syntax = syn, .allow_yaml11_ambiguity = allow};
    *v = NULL;
    sk_diag_clear(d);
    return so_config_parse((const char *)data, size, path, &o, v, d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    fz_rng rng = {fz_hash(data, size)};
    int json = fz_below(&rng, 4) == 0;
    int allow = (int)fz_below(&rng, 2);
    const char *path = json ? "config.json" : "config.yaml";
    so_config_syntax forced = json ? SO_CONFIG_JSON : SO_CONFIG_YAML;

    cJSON *v1 = NULL, *v2 = NULL;
    sk_diag d1, d2;
    fz_buf o1 = {0}, o2 = {0};
    sk_err e1 = load(data, size, path, SO_CONFIG_BY_NAME, allow, &v1, &d1);
    outcome(&o1, e1, &d1, v1);
    sk_err e2 = load(data, size, path, forced, allow, &v2, &d2);
    outcome(&o2, e2, &d2, v2);
    FZ_SAME_OUTPUT(&o1, &o2, "syntax by name and forced");
    if (e1) {
        FUZZ_ASSERT_MSG(d1.msg[0] != '\0', "%s without a message", sk_err_name(e1));
        FUZZ_ASSERT_MSG(json || strcmp(d1.file, path) == 0, "YAML error names \"%s\"", d1.file);
        FUZZ_ASSERT_MSG(e1 != SK_E_INTERNAL, "%s", d1.msg);
    } else {
        /* 3: the JSON path reads the canonical text back to itself */
        const char *canon = strchr(o1.data, ' ') + 1;
        size_t clen = o1.len - (size_t)(canon - o1.data);
        cJSON *back = NULL;
        sk_diag bd;
        fz_buf ob = {0};
        sk_err be = load((const uint8_t *)canon, clen, "back.json", SO_CONFIG_BY_NAME, 0, &back,
                         &bd);
        outcome(&ob, be, &bd, back);
        FZ_SAME_OUTPUT(&o1, &ob, "config and its canonical text read as JSON");
        cJSON_Delete(back);
        fz_buf_free(&ob);
        /* 4 */
        if (!json && !allow) {
            cJSON *lax = NULL;
            sk_diag ld;
            fz_buf ol = {0};
            sk_err le = load(data, size, path, forced, 1, &lax, &ld);
            outcome(&ol, le, &ld, lax);
            FZ_SAME_OUTPUT(&o1, &ol, "strict and lax YAML");
            cJSON_Delete(lax);
            fz_buf_free(&ol);
        }
    }
    cJSON_Delete(v1);
    cJSON_Delete(v2);
    fz_buf_free(&o1);
    fz_buf_free(&o2);

    unsigned long k = 1 + fz_below(&rng, 32);
    cJSON *vf = NULL;
    sk_diag df;
    fz_fail_alloc_at(k);
    sk_err ef = load(data, size, path, forced, allow, &vf, &df);
    FZ_CHECK_NOMEM(k, ef, &df, e1);
    fz_fail_alloc_at(0);
    cJSON_Delete(vf);
    return 0;
}
