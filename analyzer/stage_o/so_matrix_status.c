/* The status view of a winner option matrix: incumbent, settled items and
 * the next action. */
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_matrix.h"
#include "analyzer/stage_o/so_matrix_internal.h"

/* The next step of the item at index i, in words.  SK_E_NOMEM when the
 * trial value cannot be written (the action would silently lose it). */
static sk_err next_action(const cJSON *it, const char *incumbent, const char *o0, char *out,
                          size_t n)
{
    const char *id = so_mx_str(it, "id");
    int status = so_mx_enum(it, "status", so_mx_statuses);
    if (so_mx_enum(it, "category", so_mx_categories) != 0) {
        char value[200] = "";
        sk_buf b = SK_BUF_INIT;
        sk_diag d;
        sk_err e = sk_json_write(sk_json_get(it, "value"), SK_JSON_CANONICAL, &b, &d);
        if (e == SK_OK)
            snprintf(value, sizeof value, "%s", sk_buf_cstr(&b));
        sk_buf_free(&b);
        if (e == SK_E_NOMEM)
            return e;
        if (status == SO_MX_PENDING)
            snprintf(out, n, "%s: run the trial %s=%s (one pointer) against %s", id,
                     so_mx_str(it, "option"), value, incumbent);
        else
            snprintf(out, n, "%s: finish the running trial %s=%s against %s (gate, then top-up "
                             "to 5 runs if accepted)",
                     id, so_mx_str(it, "option"), value, so_mx_str(it, "compare_to")
                                                          ? so_mx_str(it, "compare_to")
                                                          : incumbent);
        return SK_OK;
    }
    int phase = so_mx_enum(it, "phase", so_mx_phases);
    int o1 = so_mx_enum(sk_json_get(it, "d1"), "outcome", so_mx_d1_outcomes);
    switch (phase) {
    case SO_MX_D1:
        if (o1 == SO_MX_D1_GAIN)
            snprintf(out, n, "%s: DCCI D1 gained: top up disable-all to 5 clean runs and re-check "
                             "the spread against %s",
                     id, o0);
        else
            snprintf(out, n, "%s: DCCI D1: run disable-all [\".*\"] against %s (>= 3 clean runs, "
                             "option-trial gate)",
                     id, o0);
        break;
    case SO_MX_D2:
        snprintf(out, n, "%s: DCCI D2: collect paired diagnostic profiles of %s and disable-all "
                         "into two fresh roots (begin, finalize, validate-set)",
                 id, o0);
        break;
    case SO_MX_D3:
        snprintf(out, n, "%s: DCCI D3: attribute every SK and its regressed children; build the "
                         "token union",
                 id);
        break;
    default:
        snprintf(out, n, "%s: DCCI D4: run the one combined repair (before = after = the repair "
                         "list, disable-all kept) against %s",
                 id, o0);
        break;
    }
    return SK_OK;
}

sk_err so_matrix_status(const cJSON *m, const so_matrix_report *r, cJSON **json, sk_buf *text,
                        sk_diag *d)
{
    const char *o0 = so_mx_str(sk_json_get(m, "o0"), "id");
    int failed = 0;
    cJSON *root = cJSON_CreateObject(), *items = cJSON_CreateArray(), *next = NULL;
    char action[512] = "";
    const cJSON *open_item = NULL;
    int i = 0;
    for (const cJSON *it = sk_json_get(m, "items")->child; it; it = it->next, i++)
        if (i == r->next_index)
            open_item = it;
    if (open_item)
        failed |= next_action(open_item, r->incumbent, o0, action, sizeof action) != SK_OK;
    else if (r->settled)
        snprintf(action, sizeof action, "none: the matrix is settled; %s is frozen as %s",
                 r->incumbent, so_mx_str(m, "sbest_base_id") ? so_mx_str(m, "sbest_base_id") : "?");
    else
        snprintf(action, sizeof action, "none: every item is settled; freeze %s as Sbest-BASE "
                                        "and mark the matrix settled",
                 r->incumbent);
    failed |= sk_buf_printf(text, "matrix %s seed %s\nincumbent %s\nsettled %zu/%zu%s\n",
                            SO_MATRIX_SCHEMA, so_mx_str(m, "seed_id"), r->incumbent, r->n_settled,
                            r->n_items, r->settled ? " (matrix settled)" : "") != SK_OK;
    i = 0;
    for (const cJSON *it = sk_json_get(m, "items")->child; it; it = it->next, i++) {
        int dcci = so_mx_enum(it, "category", so_mx_categories) == 0;
        const char *status = so_mx_str(it, "status");
        const char *phase = dcci ? so_mx_str(it, "phase") : NULL;
        failed |= sk_buf_printf(text, "item %s %s %s%s%s%s%s\n", so_mx_str(it, "id"),
                                so_mx_str(it, "category"), status, phase ? " " : "",
                                phase ? phase : "", so_mx_str(it, "incumbent_after") ? " -> " : "",
                                so_mx_str(it, "incumbent_after") ? so_mx_str(it, "incumbent_after")
                                                              : "") != SK_OK;
        cJSON *e = cJSON_CreateObject();
        if (!e || !items) {
            cJSON_Delete(e);
            failed = 1;
            continue;
        }
        failed |= sk_json_add_str(e, "id", so_mx_str(it, "id")) != SK_OK;
        failed |= sk_json_add_str(e, "category", so_mx_str(it, "category")) != SK_OK;
        failed |= sk_json_add_str(e, "status", status) != SK_OK;
        failed |= sk_json_add_str(e, "phase", phase) != SK_OK;
        failed |= sk_json_add_str(e, "incumbent_after", so_mx_str(it, "incumbent_after")) != SK_OK;
        failed |= sk_json_append(items, e) != SK_OK;
    }
    failed |= sk_buf_printf(text, "next %s\n", action) != SK_OK;
    if (root) {
        failed |= sk_json_add_str(root, "schema_version", SO_MATRIX_STATUS_SCHEMA) != SK_OK;
        failed |= sk_json_add_str(root, "seed_id", so_mx_str(m, "seed_id")) != SK_OK;
        failed |= sk_json_add_str(root, "o0_id", o0) != SK_OK;
        failed |= sk_json_add_str(root, "incumbent", r->incumbent) != SK_OK;
        failed |= sk_json_add_bool(root, "settled", r->settled) != SK_OK;
        failed |= sk_json_add_uint(root, "settled_items", r->n_settled) != SK_OK;
        failed |= sk_json_add_uint(root, "total_items", r->n_items) != SK_OK;
        failed |= sk_json_add_str(root, "plan_fingerprint", r->plan_fingerprint) != SK_OK;
        failed |= sk_json_add_uint(root, "violations", r->n_violations) != SK_OK;
        if (open_item) {
            next = cJSON_CreateObject();
            if (next) {
                failed |= sk_json_add_str(next, "id", so_mx_str(open_item, "id")) != SK_OK;
                failed |= sk_json_add_str(next, "action", action) != SK_OK;
            }
            failed |= sk_json_add(root, "next", next) != SK_OK;
        } else {
            failed |= sk_json_add_null(root, "next") != SK_OK;
        }
        failed |= sk_json_add(root, "items", items) != SK_OK;
    } else {
        cJSON_Delete(items);
        failed = 1;
    }
    if (failed) {
        cJSON_Delete(root);
        *json = NULL;
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory building the matrix status");
    }
    *json = root;
    return SK_OK;
}
