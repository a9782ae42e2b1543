#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analyzer/stage_o/so_config.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"

/* Parses text and returns its canonical JSON (caller frees) or NULL with d set. */
static char *canon(const char *text, const char *path, int allow_ambiguity, sk_diag *d)
{
    so_config_opts o = {SO_CONFIG_BY_NAME, allow_ambiguity};
    cJSON *j = NULL;
    sk_diag_clear(d);
    if (so_config_parse(text, strlen(text), path, &o, &j, d) != SK_OK)
        return NULL;
    sk_buf b = SK_BUF_INIT;
    char *s = NULL;
    if (sk_json_write(j, SK_JSON_CANONICAL, &b, d) == SK_OK)
        s = sk_buf_take(&b);
    sk_buf_free(&b);
    cJSON_Delete(j);
    return s;
}

#define T_YAML(text, want)                                                        \
    do {                                                                          \
        sk_diag d_;                                                               \
        char *got_ = canon((text), "config.yaml", 0, &d_);                        \
        if (!got_)                                                                \
            t_fail(__FILE__, __LINE__, "%s: unexpected error: %s", (text), d_.msg); \
        else                                                                      \
            T_EQ_STR(got_, (want));                                               \
        sk_free(got_);                                                            \
    } while (0)

#define T_YAML_LAX(text, want)                                                    \
    do {                                                                          \
        sk_diag d_;                                                               \
        char *got_ = canon((text), "config.yaml", 1, &d_);                        \
        if (!got_)                                                                \
            t_fail(__FILE__, __LINE__, "%s: unexpected error: %s", (text), d_.msg); \
        else                                                                      \
            T_EQ_STR(got_, (want));                                               \
        sk_free(got_);                                                            \
    } while (0)

/* expects an error with the given code, line and message fragment */
#define T_YAML_ERR(text, want_code, want_line, fragment)                                    \
    do {                                                                          \
        sk_diag d_;                                                               \
        char *got_ = canon((text), "config.yaml", 0, &d_);                        \
        if (got_) {                                                               \
            t_fail(__FILE__, __LINE__, "%s: accepted as %s", (text), got_);       \
            sk_free(got_);                                                        \
        } else {                                                                  \
            T_EQ_STR(sk_err_name(d_.code), sk_err_name(want_code));                    \
            T_EQ_U64(d_.line, (want_line));                                            \
            T_CONTAINS(d_.msg, (fragment));                                       \
            T_EQ_STR(d_.file, "config.yaml");                                     \
        }                                                                         \
    } while (0)

static void reference_stage_a_config(void)
{
    T_YAML("model_config:\n"
           "  custom_params:\n"
           "    super_kernel_optimize_options: {}\n"
           "    super_kernel_debug_options: {}\n",
           "{\"model_config\":{\"custom_params\":{\"super_kernel_debug_options\":{},"
           "\"super_kernel_optimize_options\":{}}}}");
    T_YAML("model_config:\n"
           "  custom_params:\n"
           "    super_kernel_optimize_options:\n"
           "      dcci_disable_on_kernel: ['.*']\n"
           "      auto_op_parallel: 1\n",
           "{\"model_config\":{\"custom_params\":{\"super_kernel_optimize_options\":"
           "{\"auto_op_parallel\":1,\"dcci_disable_on_kernel\":[\".*\"]}}}}");
}

static void core_schema_nulls_and_bools(void)
{
    T_YAML("[null, Null, NULL, ~, ]", "[null,null,null,null]");
    T_YAML("a:\nb: ~\n", "{\"a\":null,\"b\":null}");
    T_YAML("[true, True, TRUE, false, False, FALSE]", "[true,true,true,false,false,false]");
    /* other spellings are strings in YAML 1.2 */
    T_YAML("[nULL, tRUE, 'true', \"null\"]", "[\"nULL\",\"tRUE\",\"true\",\"null\"]");
}

static void core_schema_integers_are_exact(void)
{
    T_YAML("[0, 12, +12, -7, -0, 123456789012345678901234567890]",
           "[0,12,12,-7,0,123456789012345678901234567890]");
    T_YAML("[0x1F, 0xff, 0x0]", "[31,255,0]");
    T_YAML("0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", "340282366920938463463374607431768211455");
    /* 0o is YAML 1.2 only: PyYAML reads "0o17" as a string, so the strict
     * mode refuses it and the lax mode converts it */
    T_YAML_LAX("[0o17, 0o0, 0o777]", "[15,0,511]");
    T_YAML_ERR("a: 0o17\n", SK_E_SCHEMA, 1, "reads differently in YAML 1.1");
    /* 1, 1.0 and true stay three different values */
    T_YAML("[1, 1.0, true]", "[1,1.0,true]");
}

static void core_schema_floats(void)
{
    T_YAML("[1.5, 0.1, -2.50, .5, 1., +3.25, 1.5e+3, 2.0E-2]",
           "[1.5,0.1,-2.5,0.5,1.0,3.25,1500.0,0.02]");
    T_YAML_LAX("[1e5, -.5]", "[100000.0,-0.5]");
    T_YAML_ERR("x: .inf\n", SK_E_SCHEMA, 1, "not finite");
    T_YAML_ERR("x:\n  - -.Inf\n", SK_E_SCHEMA, 2, "not finite");
    T_YAML_ERR("x: .NaN\n", SK_E_SCHEMA, 1, "not finite");
    T_YAML_ERR("x: 1.0e+999\n", SK_E_SCHEMA, 1, "out of the range");
}

static void quoted_and_block_scalars_are_strings(void)
{
    T_YAML("['1', \"2.5\", 'null', \"~\", '', \"0x10\"]",
           "[\"1\",\"2.5\",\"null\",\"~\",\"\",\"0x10\"]");
    T_YAML("a: |\n  line1\n  line2\nb: >\n  folded\n  text\n",
           "{\"a\":\"line1\\nline2\\n\",\"b\":\"folded text\\n\"}");
    T_YAML("s: \"caf\\u00e9 \\t\"", "{\"s\":\"caf\\u00e9 \\t\"}");
    T_YAML("path: /model_config/custom_params", "{\"path\":\"/model_config/custom_params\"}");
}

static void pyyaml_ambiguity_is_refused(void)
{
    T_YAML_ERR("auto_op_parallel: on\n", SK_E_SCHEMA, 1, "plain scalar 'on'");
    T_YAML_ERR("a: 1\nb: yes\n", SK_E_SCHEMA, 2, "'yes'");
    T_YAML_ERR("a: 010\n", SK_E_SCHEMA, 1, "'010'");
    T_YAML_ERR("a: 1_000\n", SK_E_SCHEMA, 1, "'1_000'");
    T_YAML_ERR("a: 1e5\n", SK_E_SCHEMA, 1, "'1e5'");
    T_YAML_ERR("a: 2026-01-05\n", SK_E_SCHEMA, 1, "'2026-01-05'");
    T_YAML_ERR("a: 1:30\n", SK_E_SCHEMA, 1, "'1:30'");
    T_YAML_ERR("a: 0b101\n", SK_E_SCHEMA, 1, "'0b101'");
    T_YAML_ERR("a: =\n", SK_E_SCHEMA, 1, "'='");
    /* quoting settles it */
    T_YAML("a: 'on'\nb: \"yes\"\nc: '010'\n", "{\"a\":\"on\",\"b\":\"yes\",\"c\":\"010\"}");
    /* lax mode applies YAML 1.2 */
    T_YAML_LAX("[on, yes, 010, 1_000, 2026-01-05]",
               "[\"on\",\"yes\",10,\"1_000\",\"2026-01-05\"]");
}

static void ambiguity_classifier(void)
{
    static const char *const ambiguous[] = {
        "on", "Off", "YES", "no", "010", "-012", "0b1", "1_0", "1:20", "1e3", "1.5e3",
        "-.5", "+.5e+1", "0o7", "-0x1F", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
        "2001-12-14 21:59:43.10 -5", "=", "<<", "190:20:30.15", NULL};
    static const char *const clear[] = {
        "0", "-0", "+0", "12", "-12", "0x1F", "1.5", "-1.5", "1.5e+3", ".5", "1.", "true",
        "False", "null", "~", "", "abc", "y", "n", ".inf", "-.Inf", ".nan", "0.5e-2",
        "2001-12-1", "Yes please", "1.2.3", NULL};
    for (const char *const *s = ambiguous; *s; s++)
        if (!so_yaml_is_ambiguous(*s, strlen(*s)))
            t_fail(__FILE__, __LINE__, "'%s' should be ambiguous", *s);
    for (const char *const *s = clear; *s; s++)
        if (so_yaml_is_ambiguous(*s, strlen(*s)))
            t_fail(__FILE__, __LINE__, "'%s' should not be ambiguous", *s);
    T_EQ_INT(so_pyyaml_resolve("0x_1F", 5), SO_YAML_INT);
    T_EQ_INT(so_yaml12_resolve("0x_1F", 5), SO_YAML_STR);
    T_EQ_INT(so_pyyaml_resolve("1e3", 3), SO_YAML_STR);
    T_EQ_INT(so_yaml12_resolve("1e3", 3), SO_YAML_FLOAT);
    T_EQ_INT(so_pyyaml_resolve("2001-12-14", 10), SO_YAML_TIMESTAMP);
    T_EQ_INT(so_pyyaml_resolve(".inf", 4), SO_YAML_NONFINITE);
    T_EQ_INT(so_yaml12_resolve("-.INF", 5), SO_YAML_NONFINITE);
}

static void tags(void)
{
    T_YAML("[!!str 12, !!str true, !!int '12', !!float 1, !!float '2.5', !!bool true, !!null '']",
           "[\"12\",\"true\",12,1.0,2.5,true,null]");
    T_YAML("! 12", "\"12\"");
    T_YAML("!!map {a: !!seq [1]}", "{\"a\":[1]}");
    T_YAML_ERR("a: !!bool yes\n", SK_E_SCHEMA, 1, "not a valid !!bool value");
    T_YAML_ERR("a: !!int 1.5\n", SK_E_SCHEMA, 1, "not a valid !!int value");
    T_YAML_ERR("a: !!float 0x10\n", SK_E_SCHEMA, 1, "not a decimal number");
    T_YAML_ERR("a: !custom x\n", SK_E_UNSUPPORTED, 1, "tag '!custom'");
    T_YAML_ERR("a: !!binary aGk=\n", SK_E_UNSUPPORTED, 1, "tag:yaml.org,2002:binary");
    T_YAML_ERR("a: !!seq {b: 1}\n", SK_E_UNSUPPORTED, 1, "not a YAML 1.2 core schema tag");
    T_YAML_ERR("a: !!set {b: null}\n", SK_E_UNSUPPORTED, 1, "tag:yaml.org,2002:set");
}

static void anchors_aliases_merges_refused(void)
{
    T_YAML_ERR("a: &x 1\nb: *x\n", SK_E_UNSUPPORTED, 1, "anchor '&x'");
    T_YAML_ERR("base: &b {k: 1}\n", SK_E_UNSUPPORTED, 1, "anchor '&b'");
    T_YAML_ERR("- &s [1]\n", SK_E_UNSUPPORTED, 1, "anchor '&s'");
    T_YAML_ERR("a: 1\nb:\n  <<: {k: 1}\n", SK_E_UNSUPPORTED, 3, "merge key");
    T_YAML("'<<': 1", "{\"<<\":1}");
    /* an alias without its anchor is a YAML error of its own */
    T_YAML_ERR("a: 1\nb: *nowhere\n", SK_E_UNSUPPORTED, 2, "alias '*nowhere'");
}

static void keys_must_be_unique_strings(void)
{
    T_YAML_ERR("a: 1\nb: 2\na: 3\n", SK_E_SCHEMA, 3, "duplicate mapping key 'a'");
    T_YAML_ERR("x:\n  k: 1\n  'k': 2\n", SK_E_SCHEMA, 3, "duplicate mapping key 'k'");
    T_YAML_ERR("1: a\n", SK_E_SCHEMA, 1, "mapping key '1' is not a string");
    T_YAML_ERR("null: a\n", SK_E_SCHEMA, 1, "mapping key 'null' is not a string");
    T_YAML_ERR("? [a]\n: b\n", SK_E_SCHEMA, 1, "mapping key is a sequence");
    T_YAML_ERR("? {a: 1}\n: b\n", SK_E_SCHEMA, 1, "mapping key is a mapping");
    T_YAML("'1': a\n\"true\": b\n", "{\"1\":\"a\",\"true\":\"b\"}");
    /* keys that differ only in case are different keys */
    T_YAML("K: 1\nk: 2\n", "{\"K\":1,\"k\":2}");
}

static void documents_and_syntax(void)
{
    T_YAML("", "null");
    T_YAML("# only a comment\n", "null");
    T_YAML("---\na: 1\n...\n", "{\"a\":1}");
    T_YAML("%YAML 1.2\n---\na: 1\n", "{\"a\":1}");
    T_YAML_ERR("a: 1\n---\nb: 2\n", SK_E_UNSUPPORTED, 2, "more than one YAML document");
    T_YAML_ERR("%YAML 1.1\n---\na: 1\n", SK_E_UNSUPPORTED, 1, "%YAML 1.1 directive");
    T_YAML_ERR("a: [1, 2\nb: 3\n", SK_E_FORMAT, 2, "invalid YAML");
    T_YAML_ERR("a: b: c\n", SK_E_FORMAT, 1, "invalid YAML");
    T_YAML_ERR("a:\n\t- 1\n", SK_E_FORMAT, 2, "invalid YAML");
    T_YAML_ERR("s: \"x\\0y\"\n", SK_E_SCHEMA, 1, "NUL character");
}

static void depth_is_limited(void)
{
    char text[1200];
    size_t n = 0;
    for (int i = 0; i < 300; i++)
        text[n++] = '[';
    for (int i = 0; i < 300; i++)
        text[n++] = ']';
    text[n] = '\0';
    T_YAML_ERR(text, SK_E_LIMIT, 1, "maximum nesting depth 256");
    n = 0;
    for (int i = 0; i < 256; i++)
        text[n++] = '[';
    for (int i = 0; i < 256; i++)
        text[n++] = ']';
    text[n] = '\0';
    sk_diag d;
    char *ok = canon(text, "config.yaml", 0, &d);
    T_CHECK(ok != NULL);
    sk_free(ok);
}

static void json_syntax_by_name(void)
{
    sk_diag d;
    char *s = canon("{\"b\": [1, 1.0, true], \"a\": null}", "cfg.json", 0, &d);
    T_EQ_STR(s, "{\"a\":null,\"b\":[1,1.0,true]}");
    sk_free(s);
    s = canon("{\"a\": 1, \"a\": 2}", "cfg.json", 0, &d);
    T_CHECK(s == NULL);
    T_CONTAINS(d.msg, "duplicate JSON key: a");
    /* YAML-only syntax in a .json file is a JSON error */
    s = canon("a: 1", "cfg.json", 0, &d);
    T_CHECK(s == NULL);
    T_EQ_INT(d.code, SK_E_JSON);
    /* explicit syntax overrides the name */
    so_config_opts o = {SO_CONFIG_YAML, 0};
    cJSON *j = NULL;
    T_EQ_INT(so_config_parse("a: 1", 4, "cfg.json", &o, &j, &d), SK_OK);
    cJSON_Delete(j);
    o.syntax = SO_CONFIG_JSON;
    T_EQ_INT(so_config_parse("a: 1", 4, "config.yaml", &o, &j, &d), SK_E_JSON);
}

static void load_from_file(void)
{
    char dir[] = "/tmp/so_config_XXXXXX";
    T_CHECK(mkdtemp(dir) != NULL);
    char path[64];
    snprintf(path, sizeof path, "%s/config.yaml", dir);
    FILE *f = fopen(path, "w");
    T_CHECK(f != NULL);
    if (!f)
        return;
    fputs("model_config:\n  custom_params: {a: 1}\n", f);
    fclose(f);
    cJSON *j = NULL;
    char sha[65];
    sk_diag d;
    T_EQ_INT(so_config_load(path, NULL, &j, sha, &d), SK_OK);
    /* sha256sum of the bytes written above */
    T_EQ_STR(sha, "5d7ff37018cdaaa4ec02e6b2e7a1470186c1fbbed0be29f19533b9df4dde6101");
    cJSON_Delete(j);
    j = NULL;
    char missing[80];
    snprintf(missing, sizeof missing, "%s/none.yaml", dir);
    T_CHECK(so_config_load(missing, NULL, &j, NULL, &d) != SK_OK);
    T_CHECK(j == NULL);
    remove(path);
    rmdir(dir);
}

static void allocation_failures_are_clean(void)
{
#ifdef SK_TEST_HOOKS
    const char *doc = "model_config:\n  custom_params:\n    super_kernel_optimize_options:\n"
                      "      dcci_before_kernel_start: ['.*A.*', '.*B.*']\n"
                      "      auto_op_parallel: 0x1\n      x: 1.5\n";
    int saw_nomem = 0, saw_ok = 0;
    for (unsigned long n = 1; n < 200; n++) {
        sk_alloc_fail_at(n);
        cJSON *j = NULL;
        sk_diag d;
        sk_err e = so_config_parse(doc, strlen(doc), "c.yaml", NULL, &j, &d);
        sk_alloc_fail_at(0);
        if (e == SK_E_NOMEM)
            saw_nomem = 1;
        else if (e == SK_OK)
            saw_ok = 1;
        else
            t_fail(__FILE__, __LINE__, "n=%lu: unexpected %s: %s", n, sk_err_name(e), d.msg);
        cJSON_Delete(j);
    }
    T_CHECK(saw_nomem && saw_ok);
#endif
}

static const t_case cases[] = {
    T(reference_stage_a_config),
    T(core_schema_nulls_and_bools),
    T(core_schema_integers_are_exact),
    T(core_schema_floats),
    T(quoted_and_block_scalars_are_strings),
    T(pyyaml_ambiguity_is_refused),
    T(ambiguity_classifier),
    T(tags),
    T(anchors_aliases_merges_refused),
    T(keys_must_be_unique_strings),
    T(documents_and_syntax),
    T(depth_is_limited),
    T(json_syntax_by_name),
    T(load_from_file),
    T(allocation_failures_are_clean),
    {NULL, NULL},
};

T_MAIN(cases)
