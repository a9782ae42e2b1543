#include "analyzer/stage_o/so_probe.h"

#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "analyzer/stage_o/so_report.h"

/* Bytes of a report's error_code quoted in the reason (which has 512). */
#define ERROR_CODE_SHOWN 300

/* The longest prefix of the valid UTF-8 text s[0..len) that has at most max
 * bytes and ends on a character boundary. */
static size_t utf8_prefix(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--; /* s[n] continues a character: cut before that character */
    return n;
}

static const char *const k_categories[] = {"optimize_options", "debug_options", NULL};

const char *so_probe_state_name(so_probe_state s)
{
    switch (s) {
    case SO_PROBE_USABLE:
        return "usable";
    case SO_PROBE_NOT_RUN:
        return "not_run";
    case SO_PROBE_NOT_READY:
        return "not_ready";
    case SO_PROBE_CANN_NOT_LOADED:
        return "cann_not_loaded";
    case SO_PROBE_NO_RUNTIME_ENV:
        return "no_runtime_environment";
    }
    return "unknown";
}

const char *so_value_status_name(so_value_status s)
{
    switch (s) {
    case SO_VALUE_ACCEPTED:
        return "accepted";
    case SO_VALUE_REJECTED:
        return "rejected";
    case SO_VALUE_NOT_PROBED:
        return "not_probed";
    case SO_VALUE_UNKNOWN:
        return "unknown";
    }
    return "unknown";
}

static sk_err bad(sk_diag *d, const char *label, const char *field, const char *what)
{
    sk_err rc = sk_diag_set(d, SK_E_SCHEMA, label, 0, "%s", what);
    sk_diag_set_field(d, field);
    return rc;
}

/* Checks options.<category>.<name> = {accepted_values: [...], rejected_values:
 * [{value, error}...], ...}. */
static sk_err check_options(const cJSON *options, const char *label, sk_diag *d)
{
    char field[SK_DIAG_FIELD_MAX];
    if (!cJSON_IsObject(options))
        return bad(d, label, "options", "must be an object");
    for (size_t c = 0; k_categories[c]; c++) {
        const cJSON *cat = sk_json_get(options, k_categories[c]);
        if (!cat)
            continue;
        snprintf(field, sizeof field, "options.%s", k_categories[c]);
        if (!cJSON_IsObject(cat))
            return bad(d, label, field, "must be an object");
        for (const cJSON *opt = cat->child; opt; opt = opt->next) {
            snprintf(field, sizeof field, "options.%s.%s", k_categories[c], opt->string);
            if (!cJSON_IsObject(opt))
                return bad(d, label, field, "must be an object");
            const cJSON *acc = sk_json_get(opt, "accepted_values");
            const cJSON *rej = sk_json_get(opt, "rejected_values");
            if (!cJSON_IsArray(acc)) {
                snprintf(field, sizeof field, "options.%s.%s.accepted_values", k_categories[c],
                         opt->string);
                return bad(d, label, field, acc ? "must be a list" : "is missing");
            }
            if (rej && !cJSON_IsArray(rej)) {
                snprintf(field, sizeof field, "options.%s.%s.rejected_values", k_categories[c],
                         opt->string);
                return bad(d, label, field, "must be a list");
            }
            for (const cJSON *r = rej ? rej->child : NULL; r; r = r->next)
                if (!cJSON_IsObject(r) || !sk_json_get(r, "value")) {
                    snprintf(field, sizeof field, "options.%s.%s.rejected_values",
                             k_categories[c], opt->string);
                    return bad(d, label, field, "entries must be objects with a value");
                }
        }
    }
    return SK_OK;
}

sk_err so_probe_assess(const cJSON *report, const char *label, so_probe_assessment *out,
                       sk_diag *d)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(report))
        return sk_diag_set(d, SK_E_SCHEMA, label, 0, "probe report must be a JSON object");
    const cJSON *status = sk_json_get(report, "option_probe_status");
    const cJSON *ready = sk_json_get(report, "ready");
    const cJSON *code = sk_json_get(report, "error_code");
    const cJSON *error = sk_json_get(report, "error");
    if (status && !(cJSON_IsString(status) && strcmp(status->valuestring, "not_run") == 0))
        return bad(d, label, "option_probe_status", "must be \"not_run\" when present");
    if (!cJSON_IsBool(ready))
        return bad(d, label, "ready", ready ? "must be a boolean" : "is missing");
    if (code && !cJSON_IsString(code) && !cJSON_IsNull(code))
        return bad(d, label, "error_code", "must be a string");
    if (error && !cJSON_IsString(error) && !cJSON_IsNull(error))
        return bad(d, label, "error", "must be a string");
    out->has_ready = 1;
    out->ready = cJSON_IsTrue(ready);
    out->error_code = cJSON_IsString(code) ? code->valuestring : NULL; /* NOLINT(clang-analyzer-core.NullDereference): cJSON_IsString(NULL) is false */
    out->error = cJSON_IsString(error) ? error->valuestring : NULL; /* NOLINT(clang-analyzer-core.NullDereference): cJSON_IsString(NULL) is false */
    if (status || (!out->ready && out->error_code)) {
        const char *why = out->error_code ? out->error_code : "no error_code";
        size_t len = strlen(why), shown = utf8_prefix(why, len, ERROR_CODE_SHOWN);
        out->state = SO_PROBE_NOT_RUN;
        snprintf(out->reason, sizeof out->reason,
                 "option probing was not run (%.*s%s): acceptance is unknown, not rejected",
                 (int)shown, why, shown < len ? "..." : "");
        return SK_OK;
    }
    const cJSON *env = sk_json_get(report, "runtime_environment");
    if (env) {
        const cJSON *loaded = cJSON_IsObject(env) ? sk_json_get(env, "loaded") : NULL;
        if (!cJSON_IsObject(env))
            return bad(d, label, "runtime_environment", "must be an object");
        if (!cJSON_IsBool(loaded))
            return bad(d, label, "runtime_environment.loaded",
                       loaded ? "must be a boolean" : "is missing");
        out->has_loaded = 1;
        out->loaded = cJSON_IsTrue(loaded);
    }
    const cJSON *options = sk_json_get(report, "options");
    if (options) {
        sk_err rc = check_options(options, label, d);
        if (rc != SK_OK)
            return rc;
    }
    if (!out->ready) {
        out->state = SO_PROBE_NOT_READY;
        snprintf(out->reason, sizeof out->reason,
                 "the probe ran but ready is false (unsupported device, missing APIs or "
                 "wrapper): its acceptance lists are not evidence");
    } else if (!env) {
        out->state = SO_PROBE_NO_RUNTIME_ENV;
        snprintf(out->reason, sizeof out->reason,
                 "the report has no runtime_environment, so nothing proves the probe ran "
                 "after the CANN setup script: acceptance is unknown");
    } else if (!out->loaded) {
        out->state = SO_PROBE_CANN_NOT_LOADED;
        snprintf(out->reason, sizeof out->reason,
                 "runtime_environment.loaded is false: the probe did not run in the inference "
                 "environment, acceptance is unknown");
    } else if (!options) {
        return bad(d, label, "options", "is missing from a ready report");
    } else {
        out->state = SO_PROBE_USABLE;
    }
    return SK_OK;
}

/* 1 when list holds value (canonical, type-aware), 0 when not, -1 when out
 * of memory. */
static int list_contains(const cJSON *list, const cJSON *value)
{
    for (const cJSON *v = list ? list->child : NULL; v; v = v->next) {
        int eq = sk_json_equal(v, value);
        if (eq != 0)
            return eq;
    }
    return 0;
}

sk_err so_probe_lookup(const cJSON *report, const so_probe_assessment *a, const char *category,
                       const char *option, const cJSON *value, so_value_status *status,
                       const char **rejection)
{
    if (rejection)
        *rejection = NULL;
    *status = SO_VALUE_UNKNOWN;
    if (a->state != SO_PROBE_USABLE)
        return SK_OK;
    *status = SO_VALUE_NOT_PROBED;
    const cJSON *opt = sk_json_get(sk_json_get(sk_json_get(report, "options"), category), option);
    if (!opt)
        return SK_OK;
    int found = list_contains(sk_json_get(opt, "accepted_values"), value);
    if (found < 0)
        return SK_E_NOMEM;
    if (found) {
        *status = SO_VALUE_ACCEPTED;
        return SK_OK;
    }
    const cJSON *rej = sk_json_get(opt, "rejected_values");
    for (const cJSON *r = rej ? rej->child : NULL; r; r = r->next) {
        const cJSON *listed = sk_json_get(r, "value");
        int eq = listed ? sk_json_equal(listed, value) : 0;
        if (eq < 0)
            return SK_E_NOMEM;
        if (eq) {
            const cJSON *err = sk_json_get(r, "error");
            if (rejection && cJSON_IsString(err))
                *rejection = err->valuestring;
            *status = SO_VALUE_REJECTED;
            return SK_OK;
        }
    }
    return SK_OK;
}

sk_err so_probe_values_check(const cJSON *values, const char *label, sk_diag *d)
{
    static const char *const none[] = {NULL};
    char field[SK_DIAG_FIELD_MAX];
    sk_err rc = sk_json_check_keys(values, "option values", none, k_categories, d);
    if (rc != SK_OK) {
        sk_diag_set_file(d, label);
        return rc;
    }
    size_t total = 0;
    for (size_t c = 0; k_categories[c]; c++) {
        const cJSON *cat = sk_json_get(values, k_categories[c]);
        if (!cat)
            continue;
        if (!cJSON_IsObject(cat))
            return bad(d, label, k_categories[c], "must be an object");
        for (const cJSON *opt = cat->child; opt; opt = opt->next) {
            snprintf(field, sizeof field, "%s.%s", k_categories[c], opt->string);
            if (!cJSON_IsArray(opt))
                return bad(d, label, field, "must be a list of candidate values");
            if (!opt->child)
                return bad(d, label, field, "must list at least one value");
            for (const cJSON *v = opt->child; v; v = v->next) {
                for (const cJSON *w = opt->child; w != v; w = w->next) {
                    int eq = sk_json_equal(v, w);
                    if (eq < 0)
                        return sk_diag_set(d, SK_E_NOMEM, label, 0,
                                           "out of memory comparing option values");
                    if (eq)
                        return bad(d, label, field, "lists the same value twice");
                }
                total++;
            }
        }
    }
    if (!total)
        return sk_diag_set(d, SK_E_SCHEMA, label, 0, "option values file lists no values");
    return SK_OK;
}

const char *so_probe_verdict_name(so_probe_verdict v)
{
    switch (v) {
    case SO_PROBE_VERDICT_ACCEPTED:
        return "accepted";
    case SO_PROBE_VERDICT_REJECTED:
        return "rejected";
    case SO_PROBE_VERDICT_INCOMPLETE:
        return "incomplete";
    case SO_PROBE_VERDICT_UNKNOWN:
        return "unknown";
    }
    return "unknown";
}

sk_err so_probe_check(const so_probe_inputs *in, const so_probe_assessment *a,
                      so_probe_verdict *verdict, cJSON **doc, sk_buf *text, sk_diag *d)
{
    int rejected = 0, not_probed = 0;
    sk_jb b = SK_JB_INIT(d);
    sk_buf value_text = SK_BUF_INIT, failed = SK_BUF_INIT, name = SK_BUF_INIT;
    cJSON *root = sk_jb_obj(&b);
    cJSON *rep = sk_jb_obj(&b), *vals = sk_jb_obj(&b), *list = sk_jb_arr(&b);
    sk_jb_put(&b, root, "schema_version", sk_jb_str(&b, SO_PROBE_CHECK_SCHEMA));
    sk_jb_put(&b, rep, "path", sk_jb_str(&b, in->report_path));
    sk_jb_put(&b, rep, "sha256", sk_jb_str(&b, in->report_sha256));
    sk_jb_put(&b, rep, "state", sk_jb_str(&b, so_probe_state_name(a->state)));
    sk_jb_put(&b, rep, "ready", sk_jb_bool(&b, a->ready));
    sk_jb_put(&b, rep, "runtime_environment_loaded",
              a->has_loaded ? sk_jb_bool(&b, a->loaded) : sk_jb_null(&b));
    sk_jb_put(&b, rep, "error_code", sk_jb_str(&b, a->error_code));
    sk_jb_put(&b, rep, "reason", sk_jb_str(&b, a->state == SO_PROBE_USABLE ? NULL : a->reason));
    sk_jb_put(&b, root, "report", rep);
    sk_jb_put(&b, vals, "path", sk_jb_str(&b, in->values_path));
    sk_jb_put(&b, vals, "sha256", sk_jb_str(&b, in->values_sha256));
    sk_jb_put(&b, root, "values_file", vals);
    for (size_t c = 0; k_categories[c] && !b.err; c++) {
        const cJSON *cat = sk_json_get(in->values, k_categories[c]);
        for (const cJSON *opt = cat ? cat->child : NULL; opt && !b.err; opt = opt->next)
            for (const cJSON *v = opt->child; v && !b.err; v = v->next) {
                const char *why = NULL;
                so_value_status st = SO_VALUE_UNKNOWN;
                if (so_probe_lookup(in->report, a, k_categories[c], opt->string, v, &st, &why) !=
                    SK_OK) {
                    sk_jb_fail(&b, SK_E_NOMEM);
                    break;
                }
                rejected += st == SO_VALUE_REJECTED;
                not_probed += st == SO_VALUE_NOT_PROBED;
                cJSON *e = sk_jb_obj(&b);
                sk_jb_put(&b, e, "category", sk_jb_str(&b, k_categories[c]));
                sk_jb_put(&b, e, "option", sk_jb_str(&b, opt->string));
                sk_jb_put(&b, e, "value", sk_jb_copy(&b, v));
                sk_jb_put(&b, e, "status", sk_jb_str(&b, so_value_status_name(st)));
                sk_jb_put(&b, e, "rejection_error", sk_jb_str(&b, why));
                sk_jb_put(&b, list, NULL, e);
                sk_buf_reset(&value_text);
                if (!b.err && sk_json_write(v, SK_JSON_CANONICAL, &value_text, d) != SK_OK)
                    sk_jb_fail(&b, SK_E_NOMEM);
                if (!b.err && sk_buf_printf(text, "%s %s %s %s\n", so_value_status_name(st),
                                            k_categories[c], opt->string,
                                            sk_buf_cstr(&value_text)) != SK_OK)
                    sk_jb_fail(&b, SK_E_NOMEM);
                /* a failed line per value a usable report does not accept */
                sk_buf_reset(&name);
                if (!b.err && a->state == SO_PROBE_USABLE && st != SO_VALUE_ACCEPTED &&
                    (sk_buf_printf(&name, "%s.%s=%s", k_categories[c], opt->string,
                                   sk_buf_cstr(&value_text)) != SK_OK ||
                     so_failed_line(&failed, sk_buf_cstr(&name), so_value_status_name(st),
                                    "accepted%s%s", why ? "; wrapper error: " : "",
                                    why ? why : "") != SK_OK))
                    sk_jb_fail(&b, SK_E_NOMEM);
            }
    }
    sk_jb_put(&b, root, "values", list);
    *verdict = a->state != SO_PROBE_USABLE ? SO_PROBE_VERDICT_UNKNOWN
               : rejected                  ? SO_PROBE_VERDICT_REJECTED
               : not_probed                ? SO_PROBE_VERDICT_INCOMPLETE
                                           : SO_PROBE_VERDICT_ACCEPTED;
    sk_jb_put(&b, root, "verdict", sk_jb_str(&b, so_probe_verdict_name(*verdict)));
    if (!b.err && a->state != SO_PROBE_USABLE &&
        (sk_buf_printf(text, "report %s: %s\n", so_probe_state_name(a->state), a->reason) !=
             SK_OK ||
         so_failed_line(&failed, "report", so_probe_state_name(a->state),
                        "usable (ready true, runtime_environment.loaded true)") != SK_OK))
        sk_jb_fail(&b, SK_E_NOMEM);
    if (!b.err && (sk_buf_puts(text, sk_buf_cstr(&failed)) != SK_OK ||
                   sk_buf_printf(text, "verdict %s\n", so_probe_verdict_name(*verdict)) != SK_OK))
        sk_jb_fail(&b, SK_E_NOMEM);
    sk_buf_free(&value_text);
    sk_buf_free(&failed);
    sk_buf_free(&name);
    if (b.err) {
        cJSON_Delete(root);
        *doc = NULL;
        return sk_diag_set(d, SK_E_NOMEM, in->values_path, 0, "out of memory checking values");
    }
    *doc = root;
    return SK_OK;
}
