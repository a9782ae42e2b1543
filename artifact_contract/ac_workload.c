#include "artifact_contract/ac_workload.h"

#include <math.h>
#include <string.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_lex.h"

/* The workload concepts and aliases (docs/artifact_contract.md "Workload"):
 * concepts in processing order, aliases in priority order (the first present
 * one supplies the value). */
static const struct {
    const char *concept;
    const char *aliases[5];
} workload_aliases[AC_WORKLOAD_CONCEPTS] = {
    {"model", {"model", "model_name", NULL}},
    {"input", {"input", "inputs", "input_shape", "sequence_length", NULL}},
    {"batch", {"batch", "batch_size", NULL}},
    {"rank", {"rank", "rank_size", "world_size", NULL}},
    {"mode", {"mode", "inference_mode", "prefill_decode_mode", NULL}},
    {"warmup", {"warmup", "warmup_runs", "warmup_iterations", NULL}},
    {"iterations", {"iterations", "iteration_count", "measurement_runs", NULL}},
    {"runtime", {"runtime", "runtime_parameters", "runtime_options", NULL}},
};

/* ------------------------------------------------------------ standard values */

/* RFC 8259 number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int is_json_number_literal(const char *s)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return 0;
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

static int number_is_standard(const cJSON *n)
{
    const char *lit = sk_json_number_literal(n);
    if (!lit || !is_json_number_literal(lit))
        return 0;
    if (sk_json_is_int(n))
        return strlen(lit) <= SK_JSON_MAX_INT_DIGITS + 1; /* + sign */
    double v;
    return sk_json_get_double(n, &v) == SK_OK && isfinite(v);
}

typedef struct check_frame {
    const cJSON *node;
    const cJSON *next; /* next child to visit */
    int index;         /* array index of next */
} check_frame;

/* "<label>.a[3].b" for the child about to be visited at stack depth n. */
static void location(sk_buf *out, const char *label, const check_frame *st, size_t n,
                     const cJSON *child)
{
    sk_buf_reset(out);
    (void)sk_buf_puts(out, label);
    for (size_t i = 0; i < n; i++) {
        const cJSON *c = i + 1 < n ? st[i + 1].node : child;
        if (cJSON_IsArray(st[i].node))
            (void)sk_buf_printf(out, "[%d]", st[i].index - 1); /* index was advanced past c */
        else
            (void)sk_buf_printf(out, ".%s", c && c->string ? c->string : "?");
    }
}

sk_err ac_json_check_standard(const cJSON *v, const char *label, sk_diag *d)
{
    check_frame st[SK_JSON_MAX_DEPTH + 1];
    size_t n = 0;
    sk_err e = SK_OK;
    sk_buf where = SK_BUF_INIT;
    const cJSON *cur = v;
    /* Visit cur, then walk the explicit stack: no recursion, so a hostile
     * tree cannot exhaust the C stack. */
    for (;;) {
        if (cur) {
            int container = cJSON_IsArray(cur) || cJSON_IsObject(cur);
            int bad = 0;
            if (cJSON_IsNumber(cur))
                bad = !number_is_standard(cur);
            else if (cJSON_IsString(cur))
                bad = cur->valuestring == NULL;
            else if (!container && !cJSON_IsBool(cur) && !cJSON_IsNull(cur))
                bad = 1;
            if (!bad && n > 0 && cJSON_IsObject(st[n - 1].node) && !cur->string)
                bad = 1;
            if (bad) {
                location(&where, label, st, n, cur);
                e = ac_fail(d, SK_E_SCHEMA, AC_E_JSON_INVALID, label,
                            "%s must contain only standard JSON values", sk_buf_cstr(&where));
                goto out;
            }
            if (container) {
                for (size_t i = 0; i < n; i++)
                    if (st[i].node == cur) {
                        e = ac_fail(d, SK_E_SCHEMA, AC_E_JSON_INVALID, label,
                                    "%s contains a cyclic JSON value", label);
                        goto out;
                    }
                if (n == SK_JSON_MAX_DEPTH) {
                    e = ac_fail(d, SK_E_LIMIT, AC_E_JSON_DEPTH, label,
                                "%s exceeds maximum JSON depth %d (JSON nesting limit)", label,
                                SK_JSON_MAX_DEPTH);
                    goto out;
                }
                st[n].node = cur;
                st[n].next = cur->child;
                st[n].index = 0;
                n++;
            }
        }
        /* next node: the next unvisited child of the innermost open container */
        cur = NULL;
        while (n > 0 && !st[n - 1].next)
            n--;
        if (n == 0)
            break;
        cur = st[n - 1].next;
        st[n - 1].next = cur->next;
        st[n - 1].index++;
    }
out:
    sk_buf_free(&where);
    return e;
}

/* ------------------------------------------------------------ workload */

sk_err ac_workload_normalize(const cJSON *in, const char *label, cJSON **out, sk_diag *d)
{
    sk_err e = SK_OK;
    cJSON *result = NULL;
    *out = NULL;
    if (!label)
        label = "workload";
    if (!cJSON_IsObject(in))
        return ac_fail(d, SK_E_SCHEMA, AC_E_WORKLOAD, label, "%s must be an object", label);
    e = ac_json_check_standard(in, label, d);
    if (e)
        return e;
    result = cJSON_CreateObject();
    if (!result)
        goto nomem;
    for (size_t c = 0; c < AC_WORKLOAD_CONCEPTS; c++) {
        const cJSON *chosen = NULL;
        for (size_t a = 0; workload_aliases[c].aliases[a]; a++) {
            const cJSON *v = sk_json_get(in, workload_aliases[c].aliases[a]);
            if (!v)
                continue;
            if (!chosen) {
                chosen = v;
                continue;
            }
            int same = sk_json_equal(chosen, v);
            if (same < 0)
                goto nomem; /* the standard check passed, so only memory can fail */
            if (!same) {
                e = ac_fail(d, SK_E_SCHEMA, AC_E_WORKLOAD, label, "%s.%s aliases conflict",
                            label, workload_aliases[c].concept);
                goto out;
            }
        }
        if (!chosen) {
            e = ac_fail(d, SK_E_SCHEMA, AC_E_WORKLOAD, label, "%s.%s is required", label,
                        workload_aliases[c].concept);
            goto out;
        }
        cJSON *copy = cJSON_Duplicate(chosen, 1);
        if (!copy)
            goto nomem;
        if (sk_json_add(result, workload_aliases[c].concept, copy))
            goto nomem;
    }
    *out = result;
    result = NULL;
    goto out;
nomem:
    e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, label, "out of memory normalising %s", label);
out:
    cJSON_Delete(result);
    return e;
}

/* ------------------------------------------------------------ round ids */

int ac_round_belongs_to_candidate(const char *candidate, const char *round_id)
{
    if (!candidate || !round_id || !*candidate || !*round_id)
        return 0;
    if (!sk_py_is_trimmed(candidate) || !sk_py_is_trimmed(round_id))
        return 0;
    size_t n = strlen(candidate);
    if (strncmp(round_id, candidate, n) != 0 || round_id[n] != '-')
        return 0;
    const char *suffix = round_id + n + 1;
    if (strcmp(suffix, "AUTO") == 0 || strcmp(suffix, "BASE") == 0 ||
        strcmp(suffix, "FINAL") == 0)
        return 1;
    if (suffix[0] != 'P' || suffix[1] < '1' || suffix[1] > '9')
        return 0;
    for (const char *p = suffix + 2; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}
