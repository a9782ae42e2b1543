#include "analyzer/stage_o/so_repair.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_lex.h"
#include "artifact_contract/base/sk_json_pointer.h"
#include "analyzer/dcci/dcci_pattern.h"

const char *const so_repair_check_names[SO_RC_COUNT] = {
    "disable_pointer_located", "o0_disable_absent",      "disable_all_value",
    "disable_all_vs_o0",       "repair_disable_value",   "repair_lists_identical",
    "repair_list_valid",       "repair_vs_disable_all",  "repair_vs_o0",
};

/* How many dcci_disable_on_kernel candidates are remembered for the message. */
#define MAX_CANDIDATES 8

typedef struct finder {
    sk_buf path;
    size_t count;     /* members named dcci_disable_on_kernel */
    size_t preferred; /* ... of which inside super_kernel_optimize_options */
    char *first;      /* pointer of the first candidate (owned) */
    char *first_preferred;
    sk_buf listing;   /* "a, b, ..." of the first MAX_CANDIDATES */
} finder;

static sk_err find_disable(finder *f, const cJSON *node, const char *parent_key, size_t depth)
{
    sk_err rc = SK_OK;
    if (depth > SK_JSON_MAX_DEPTH)
        return SK_E_LIMIT;
    int is_obj = cJSON_IsObject(node);
    if (!is_obj && !cJSON_IsArray(node))
        return SK_OK;
    size_t index = 0;
    for (const cJSON *c = node->child; c && rc == SK_OK; c = c->next, index++) {
        size_t keep = f->path.len;
        char token[32];
        const char *tok = c->string;
        if (!is_obj) {
            snprintf(token, sizeof token, "%zu", index);
            tok = token;
        }
        rc = sk_json_pointer_append(&f->path, tok);
        if (rc == SK_OK && is_obj && strcmp(c->string, SO_DCCI_DISABLE) == 0) {
            const char *here = sk_buf_cstr(&f->path);
            int pref = parent_key && strcmp(parent_key, SO_DCCI_OPTIONS_MAP) == 0;
            if (f->count < MAX_CANDIDATES)
                rc = sk_buf_printf(&f->listing, "%s%s", f->count ? ", " : "", here);
            f->count++;
            if (rc == SK_OK && !f->first && !(f->first = sk_strdup(here)))
                rc = SK_E_NOMEM;
            if (rc == SK_OK && pref) {
                f->preferred++;
                if (!f->first_preferred && !(f->first_preferred = sk_strdup(here)))
                    rc = SK_E_NOMEM;
            }
        }
        if (rc == SK_OK)
            rc = find_disable(f, c, is_obj ? c->string : NULL, depth + 1);
        f->path.len = keep;
        if (f->path.data)
            f->path.data[keep] = '\0';
    }
    return rc;
}

static void set_detail(so_repair_proof *p, enum so_repair_check k, int passed, const char *fmt,
                       ...) __attribute__((format(printf, 4, 5)));
static void set_detail(so_repair_proof *p, enum so_repair_check k, int passed, const char *fmt,
                       ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->detail[k], sizeof p->detail[k], fmt, ap);
    va_end(ap);
    p->passed[k] = passed;
}

/* The sibling of the disable pointer named token. */
static char *sibling(const char *disable_pointer, const char *token)
{
    sk_buf b = SK_BUF_INIT;
    const char *slash = strrchr(disable_pointer, '/');
    if (sk_buf_append_slow(&b, disable_pointer, (size_t)(slash - disable_pointer)) != SK_OK ||
        sk_json_pointer_append(&b, token) != SK_OK) {
        sk_buf_free(&b);
        return NULL;
    }
    return sk_buf_take(&b);
}

/* 1 when v is exactly [".*"]. */
static int is_disable_all(const cJSON *v)
{
    return cJSON_IsArray(v) && v->child && !v->child->next && cJSON_IsString(v->child) &&
           strcmp(v->child->valuestring, ".*") == 0;
}

int so_repair_list_valid(const cJSON *list, char *why, size_t why_size)
{
    if (!cJSON_IsArray(list)) {
        snprintf(why, why_size, "the repair list is not a list");
        return 0;
    }
    if (!list->child) {
        snprintf(why, why_size, "the repair list is empty");
        return 0;
    }
    size_t i = 0;
    for (const cJSON *e = list->child; e; e = e->next, i++) {
        if (!cJSON_IsString(e)) {
            snprintf(why, why_size, "element %zu is not a string", i);
            return 0;
        }
        const char *s = e->valuestring;
        size_t n = strlen(s);
        dcci_pattern_check chk;
        dcci_pattern_rule r = dcci_pattern_check_grammar(s, n, &chk);
        if (r != DCCI_PATTERN_OK) {
            snprintf(why, why_size, "element %zu '%.*s' is not a valid runtime pattern (%s)", i,
                     (int)(n > 200 ? 200 : n), s, dcci_pattern_rule_name(r));
            return 0;
        }
        if (chk.trim_start != 0 || chk.trim_len != n) {
            snprintf(why, why_size,
                     "element %zu '%.*s' has surrounding whitespace (the runtime trims it, "
                     "so the probed value would differ from the effective one)",
                     i, (int)(n > 200 ? 200 : n), s);
            return 0;
        }
        size_t j = 0;
        for (const cJSON *f = list->child; f != e; f = f->next, j++)
            if (strcmp(f->valuestring, s) == 0) {
                snprintf(why, why_size, "element %zu '%.*s' repeats element %zu", i,
                         (int)(n > 200 ? 200 : n), s, j);
                return 0;
            }
    }
    snprintf(why, why_size, "%zu valid runtime pattern%s", i, i == 1 ? "" : "s");
    return 1;
}

/* Checks that diff c has exactly the pointers want[0..n); detail on failure. */
static sk_err exact_set(so_repair_proof *p, enum so_repair_check k, const so_cdiff *c,
                        const char *const *want, size_t n, const char *what, sk_diag *d)
{
    so_cdiff_match m;
    sk_err rc = so_cdiff_expect(c, want, n, &m, d);
    if (rc != SK_OK)
        return rc;
    if (m.matched) {
        set_detail(p, k, 1, "%s differ exactly at the %zu expected pointer%s", what, n,
                   n == 1 ? "" : "s");
    } else {
        sk_buf b = SK_BUF_INIT;
        sk_err e = sk_buf_printf(&b, "%s differ at %zu pointer%s", what, c->count,
                                 c->count == 1 ? "" : "s");
        for (size_t i = 0; e == SK_OK && i < m.n_missing; i++)
            e = sk_buf_printf(&b, "%s%s", i ? ", " : "; missing: ", m.missing[i]);
        for (size_t i = 0; e == SK_OK && i < m.n_unexpected; i++)
            e = sk_buf_printf(&b, "%s%s", i ? ", " : "; unexpected: ", m.unexpected[i]);
        if (e != SK_OK)
            rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory proving the repair rule");
        else
            set_detail(p, k, 0, "%s", sk_buf_cstr(&b));
        sk_buf_free(&b);
    }
    so_cdiff_match_free(&m);
    return rc;
}

void so_repair_proof_free(so_repair_proof *p)
{
    if (!p)
        return;
    sk_free(p->pointer_disable);
    sk_free(p->pointer_before);
    sk_free(p->pointer_after);
    so_cdiff_free(&p->da_vs_o0);
    so_cdiff_free(&p->repair_vs_da);
    so_cdiff_free(&p->repair_vs_o0);
    memset(p, 0, sizeof *p);
}

static void not_evaluated(so_repair_proof *p, enum so_repair_check k)
{
    set_detail(p, k, 0, "not evaluated: the dcci_disable_on_kernel pointer of DISABLE_ALL is not "
                        "known");
}

static sk_err prove_located(so_repair_proof *p, const cJSON *o0, const cJSON *da, sk_diag *d)
{
    const cJSON *v = NULL;
    sk_err rc = sk_json_pointer_resolve(o0, p->pointer_disable, &v, d);
    if (rc != SK_OK)
        return rc;
    if (v) {
        sk_buf text = SK_BUF_INIT;
        rc = sk_json_write(v, SK_JSON_CANONICAL, &text, d);
        if (rc == SK_OK)
            set_detail(p, SO_RC_O0_DISABLE_ABSENT, 0, "O0 sets %s to %.200s", p->pointer_disable,
                       sk_buf_cstr(&text));
        sk_buf_free(&text);
        if (rc != SK_OK)
            return rc;
    } else {
        set_detail(p, SO_RC_O0_DISABLE_ABSENT, 1, "O0 has no %s", p->pointer_disable);
    }
    if ((rc = sk_json_pointer_resolve(da, p->pointer_disable, &v, d)) != SK_OK)
        return rc;
    if (is_disable_all(v))
        set_detail(p, SO_RC_DA_VALUE, 1, "DISABLE_ALL sets [\".*\"]");
    else
        set_detail(p, SO_RC_DA_VALUE, 0, "DISABLE_ALL's value is not exactly [\".*\"]");
    const char *want[1] = {p->pointer_disable};
    return exact_set(p, SO_RC_DA_VS_O0, &p->da_vs_o0, want, 1, "DISABLE_ALL and O0", d);
}

static sk_err prove_repair(so_repair_proof *p, const cJSON *repair, sk_diag *d)
{
    const cJSON *v = NULL, *before = NULL, *after = NULL;
    sk_err rc = sk_json_pointer_resolve(repair, p->pointer_disable, &v, d);
    if (rc == SK_OK)
        rc = sk_json_pointer_resolve(repair, p->pointer_before, &before, d);
    if (rc == SK_OK)
        rc = sk_json_pointer_resolve(repair, p->pointer_after, &after, d);
    if (rc != SK_OK)
        return rc;
    if (is_disable_all(v))
        set_detail(p, SO_RC_REPAIR_DISABLE_VALUE, 1, "REPAIR keeps [\".*\"]");
    else
        set_detail(p, SO_RC_REPAIR_DISABLE_VALUE, 0, "REPAIR's %s is not exactly [\".*\"]",
                   p->pointer_disable);
    p->repair_list = before;
    if (!before || !after) {
        set_detail(p, SO_RC_REPAIR_LISTS_IDENTICAL, 0, "REPAIR has no %s",
                   !before ? p->pointer_before : p->pointer_after);
    } else {
        int eq = sk_json_equal(before, after);
        if (eq < 0)
            return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory proving the repair rule");
        if (eq)
            set_detail(p, SO_RC_REPAIR_LISTS_IDENTICAL, 1, "before and after lists are identical");
        else
            set_detail(p, SO_RC_REPAIR_LISTS_IDENTICAL, 0,
                       "before and after lists differ (the joint repair needs one identical "
                       "list)");
    }
    char why[SO_REPAIR_DETAIL_MAX];
    if (!before)
        set_detail(p, SO_RC_REPAIR_LIST_VALID, 0, "REPAIR has no %s", p->pointer_before);
    else if (so_repair_list_valid(before, why, sizeof why))
        set_detail(p, SO_RC_REPAIR_LIST_VALID, 1, "%s", why);
    else
        set_detail(p, SO_RC_REPAIR_LIST_VALID, 0, "%s", why);
    const char *two[2] = {p->pointer_before, p->pointer_after};
    const char *three[3] = {p->pointer_disable, p->pointer_before, p->pointer_after};
    rc = exact_set(p, SO_RC_REPAIR_VS_DA, &p->repair_vs_da, two, 2, "REPAIR and DISABLE_ALL", d);
    if (rc == SK_OK)
        rc = exact_set(p, SO_RC_REPAIR_VS_O0, &p->repair_vs_o0, three, 3, "REPAIR and O0", d);
    return rc;
}

sk_err so_repair_locate(const cJSON *da, char **pointer, char *why, size_t why_size, sk_diag *d)
{
    finder f = {SK_BUF_INIT, 0, 0, NULL, NULL, SK_BUF_INIT};
    *pointer = NULL;
    sk_err rc = sk_buf_puts(&f.path, "");
    if (rc == SK_OK)
        rc = find_disable(&f, da, NULL, 0);
    if (rc == SK_E_LIMIT) {
        rc = sk_diag_set(d, SK_E_LIMIT, "", 0, "DISABLE_ALL is nested deeper than %d levels",
                         SK_JSON_MAX_DEPTH);
        goto out;
    }
    if (rc != SK_OK) {
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory locating %s", SO_DCCI_DISABLE);
        goto out;
    }
    const char *chosen = f.count == 1 ? f.first : f.preferred == 1 ? f.first_preferred : NULL;
    if (chosen) {
        if (!(*pointer = sk_strdup(chosen)))
            rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory locating %s", SO_DCCI_DISABLE);
        else
            snprintf(why, why_size, "%s", chosen);
    } else if (f.count == 0) {
        snprintf(why, why_size, "DISABLE_ALL has no %s member", SO_DCCI_DISABLE);
    } else {
        snprintf(why, why_size, "DISABLE_ALL has %zu %s members and not exactly one inside %s: %s%s",
                 f.count, SO_DCCI_DISABLE, SO_DCCI_OPTIONS_MAP, sk_buf_cstr(&f.listing),
                 f.count > MAX_CANDIDATES ? ", ..." : "");
    }
out:
    sk_buf_free(&f.path);
    sk_buf_free(&f.listing);
    sk_free(f.first);
    sk_free(f.first_preferred);
    return rc;
}

char *so_repair_sibling(const char *disable_pointer, const char *token)
{
    return sibling(disable_pointer, token);
}

sk_err so_repair_prove(const cJSON *o0, const cJSON *da, const cJSON *repair,
                       so_repair_proof *out, sk_diag *d)
{
    so_repair_proof p;
    char why[SO_REPAIR_DETAIL_MAX];
    memset(&p, 0, sizeof p);
    memset(out, 0, sizeof *out);
    p.has_repair = repair != NULL;
    for (int k = 0; k < SO_RC_COUNT; k++)
        p.applicable[k] = p.has_repair || k <= SO_RC_DA_VS_O0;
    sk_err rc = so_cdiff_compute(o0, da, &p.da_vs_o0, d);
    if (rc == SK_OK && repair)
        rc = so_cdiff_compute(da, repair, &p.repair_vs_da, d);
    if (rc == SK_OK && repair)
        rc = so_cdiff_compute(o0, repair, &p.repair_vs_o0, d);
    if (rc == SK_OK)
        rc = so_repair_locate(da, &p.pointer_disable, why, sizeof why, d);
    if (rc != SK_OK)
        goto out;
    if (p.pointer_disable) {
        if (!(p.pointer_before = sibling(p.pointer_disable, SO_DCCI_BEFORE)) ||
            !(p.pointer_after = sibling(p.pointer_disable, SO_DCCI_AFTER))) {
            rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory proving the repair rule");
            goto out;
        }
        set_detail(&p, SO_RC_DISABLE_LOCATED, 1, "%s", why);
        rc = prove_located(&p, o0, da, d);
        if (rc == SK_OK && repair)
            rc = prove_repair(&p, repair, d);
        if (rc != SK_OK)
            goto out;
    } else {
        set_detail(&p, SO_RC_DISABLE_LOCATED, 0, "%s", why);
        for (int k = SO_RC_DISABLE_LOCATED + 1; k < SO_RC_COUNT; k++)
            not_evaluated(&p, (enum so_repair_check)k);
    }
    p.proven = 1;
    for (int k = 0; k < SO_RC_COUNT; k++)
        if (p.applicable[k] && !p.passed[k])
            p.proven = 0;
    *out = p;
    memset(&p, 0, sizeof p);
out:
    so_repair_proof_free(&p);
    return rc;
}

sk_err so_repair_proof_json(const so_repair_proof *p, cJSON **out, sk_diag *d)
{
    cJSON *o = cJSON_CreateObject(), *ptrs = NULL, *checks = NULL, *diffs = NULL, *arr = NULL;
    sk_err rc = SK_OK;
    *out = NULL;
    if (!o || !(ptrs = cJSON_CreateObject()) || sk_json_add(o, "pointers", ptrs) != SK_OK ||
        sk_json_add_str(ptrs, "disable", p->pointer_disable) != SK_OK ||
        sk_json_add_str(ptrs, "before", p->has_repair ? p->pointer_before : NULL) != SK_OK ||
        sk_json_add_str(ptrs, "after", p->has_repair ? p->pointer_after : NULL) != SK_OK)
        goto nomem;
    if (p->repair_list) {
        if (sk_json_add(o, "repair_list", cJSON_Duplicate(p->repair_list, 1)) != SK_OK)
            goto nomem;
    } else if (sk_json_add_null(o, "repair_list") != SK_OK) {
        goto nomem;
    }
    if (!(checks = cJSON_CreateArray()) || sk_json_add(o, "checks", checks) != SK_OK)
        goto nomem;
    for (int k = 0; k < SO_RC_COUNT; k++) {
        if (!p->applicable[k])
            continue;
        cJSON *c = cJSON_CreateObject();
        if (!c || sk_json_append(checks, c) != SK_OK ||
            sk_json_add_str(c, "name", so_repair_check_names[k]) != SK_OK ||
            sk_json_add_bool(c, "passed", p->passed[k]) != SK_OK ||
            sk_json_add_str(c, "detail", p->detail[k]) != SK_OK)
            goto nomem;
    }
    if (!(diffs = cJSON_CreateObject()) || sk_json_add(o, "diffs", diffs) != SK_OK)
        goto nomem;
    if ((rc = so_cdiff_changes_json(&p->da_vs_o0, &arr, d)) != SK_OK)
        goto out;
    if (sk_json_add(diffs, "disable_all_vs_o0", arr) != SK_OK)
        goto nomem;
    if (p->has_repair) {
        if ((rc = so_cdiff_changes_json(&p->repair_vs_da, &arr, d)) != SK_OK)
            goto out;
        if (sk_json_add(diffs, "repair_vs_disable_all", arr) != SK_OK)
            goto nomem;
        if ((rc = so_cdiff_changes_json(&p->repair_vs_o0, &arr, d)) != SK_OK)
            goto out;
        if (sk_json_add(diffs, "repair_vs_o0", arr) != SK_OK)
            goto nomem;
    }
    if (sk_json_add_bool(o, "proven", p->proven) != SK_OK)
        goto nomem;
    *out = o;
    o = NULL;
    goto out;
nomem:
    rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory building the repair proof");
out:
    cJSON_Delete(o);
    return rc;
}
