/* Fuzz target: the Stage O ledger reader (so_ledger.h): the chain of
 * canonical records, the body shapes, the state machine replay and the state
 * document.
 *
 * Input: any bytes, read as a ledger file.  In one run of two (from the
 * input's hash) the harness first re-chains the input: every line that is a
 * JSON object with a body gets its body_sha256, seq and prev recomputed and
 * is written canonically again (an init body also gets its matrix
 * plan_fingerprint), so that mutations of record contents reach the state
 * machine instead of stopping at the first hash.
 *
 * Promise: nothing crashes, leaks or reads outside the input, and
 *   1. reading is deterministic: same outcome and message twice;
 *   2. a failure is SK_E_CONTRACT with a ledger sub-code and a message, or
 *      SK_E_NOMEM;
 *   3. a ledger that reads is coherent: at least one record, record i has
 *      seq i + 1 and its line hash, the head is the last line's SHA-256, the
 *      complete lines and the torn tail make up the input, the incumbent
 *      chain starts at O0, every item has a known status, and the state
 *      document has a canonical text; the record the writer would append
 *      next (a copy of the last body) is either refused by the state
 *      machine or reads back;
 *   4. when allocation k fails, the result is SK_E_NOMEM or the same as
 *      without failure.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/stage_o/so_ledger.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"

#define FUZZ_MAX_INPUT (256u * 1024)
#define FUZZ_PATH "/nonexistent-skdcci-fuzz/ledger.jsonl"

/* Re-chains data into out (plain malloc; the harness must not consume
 * sk_alloc allocations it does not test). */
static void rechain(const uint8_t *data, size_t size, fz_buf *out)
{
    char prev[65] = "0000000000000000000000000000000000000000000000000000000000000000";
    size_t start = 0, seq = 0;
    while (start < size) {
        const uint8_t *nl = memchr(data + start, '\n', size - start);
        size_t n = nl ? (size_t)(nl - (data + start)) : size - start;
        cJSON *rec = NULL;
        sk_buf line = SK_BUF_INIT;
        const cJSON *body = NULL;
        if (sk_json_parse((const char *)data + start, n, NULL, &rec, NULL) == SK_OK &&
            cJSON_IsObject(rec) && cJSON_IsObject(body = sk_json_get(rec, "body"))) {
            char fp[65];
            const cJSON *matrix = sk_json_get(body, "matrix");
            const cJSON *plan = sk_json_get(matrix, "plan");
            if (plan && sk_json_get(matrix, "plan_fingerprint") &&
                sk_json_fingerprint(plan, fp, NULL) == SK_OK)
                cJSON_ReplaceItemInObjectCaseSensitive((cJSON *)matrix, "plan_fingerprint",
                                                       cJSON_CreateString(fp));
            if (sk_json_fingerprint(body, fp, NULL) == SK_OK) {
                cJSON_DeleteItemFromObjectCaseSensitive(rec, "body_sha256");
                cJSON_AddItemToObject(rec, "body_sha256", cJSON_CreateString(fp));
            }
            cJSON_DeleteItemFromObjectCaseSensitive(rec, "seq");
            cJSON_AddItemToObject(rec, "seq", sk_json_new_uint(++seq));
            cJSON_DeleteItemFromObjectCaseSensitive(rec, "prev");
            cJSON_AddItemToObject(rec, "prev", cJSON_CreateString(prev));
        }
        if (rec && sk_json_write(rec, SK_JSON_CANONICAL, &line, NULL) == SK_OK) {
            fz_buf_add(out, line.data, line.len);
        } else {
            fz_buf_add(out, data + start, n);
        }
        if (nl) {
            fz_buf_add(out, "\n", 1);
            size_t ls = out->len - 1;
            while (ls > 0 && out->data[ls - 1] != '\n')
                ls--;
            FUZZ_ASSERT(sk_sha256_hex(out->data + ls, out->len - ls, prev) == SK_OK);
        }
        sk_buf_free(&line);
        cJSON_Delete(rec);
        start += n + (nl != NULL);
    }
}

static void record(fz_buf *out, sk_err e, const sk_diag *d, const so_ledger *l)
{
    fz_buf_printf(out, "%s", sk_err_name(e));
    if (e) {
        char msg[1024];
        sk_diag_format(d, msg, sizeof msg);
        fz_buf_printf(out, " %d %s", d->sub, msg);
        return;
    }
    fz_buf_printf(out, " records=%zu head=%s torn=%llu chain=%zu items=%zu frozen=%d next=%d",
                  l->n_records, l->head, (unsigned long long)l->torn_bytes, l->n_chain, l->n_items,
                  l->frozen, (int)l->next.action);
    for (size_t i = 0; i < l->n_items; i++)
        fz_buf_printf(out, "\n%s %d %s", l->items[i].id, (int)l->items[i].status,
                      l->items[i].phase ? l->items[i].phase : "-");
}

static sk_err read_and_state(const char *data, size_t size, sk_diag *d)
{
    so_ledger *l = NULL;
    cJSON *doc = NULL;
    sk_err e = so_ledger_parse(data, size, FUZZ_PATH, &l, d);
    if (!e)
        e = so_ledger_state_json(l, &doc, d);
    cJSON_Delete(doc);
    so_ledger_free(l);
    return e;
}

static void coherent(const so_ledger *l, const char *data, size_t size)
{
    FUZZ_ASSERT(l->n_records >= 1);
    FUZZ_ASSERT_MSG(l->valid_len + l->torn_bytes == size, "%zu + %llu != %zu", l->valid_len,
                    (unsigned long long)l->torn_bytes, size);
    for (size_t i = 0; i < l->n_records; i++) {
        const so_ledger_record *r = &l->records[i];
        char h[65];
        FUZZ_ASSERT(r->seq == i + 1);
        FUZZ_ASSERT(r->offset + r->length <= l->valid_len && data[r->offset + r->length - 1] == '\n');
        FUZZ_ASSERT(sk_sha256_hex(data + r->offset, r->length, h) == SK_OK);
        FUZZ_ASSERT_MSG(strcmp(h, r->line_sha256) == 0, "record %zu line hash", i + 1);
    }
    FUZZ_ASSERT(strcmp(l->head, l->records[l->n_records - 1].line_sha256) == 0);
    FUZZ_ASSERT(l->n_chain >= 1 && l->chain[0].record == 0);
    for (size_t i = 0; i < l->n_items; i++)
        FUZZ_ASSERT(l->items[i].status <= SO_ITEM_SKIPPED);
    cJSON *doc = NULL;
    sk_buf canon = SK_BUF_INIT;
    sk_diag d;
    FUZZ_ASSERT_MSG(so_ledger_state_json(l, &doc, &d) == SK_OK, "state document: %s", d.msg);
    FUZZ_ASSERT(sk_json_write(doc, SK_JSON_CANONICAL, &canon, &d) == SK_OK);
    cJSON_Delete(doc);
    /* the next line a writer would build from the last body */
    sk_buf next = SK_BUF_INIT;
    const so_ledger_record *last = &l->records[l->n_records - 1];
    FUZZ_ASSERT(sk_buf_append(&next, data, l->valid_len) == SK_OK);
    if (so_ledger_line(l, last->kind, last->body, 1767607200000000000, &next, &d) == SK_OK) {
        so_ledger *again = NULL;
        sk_err e = so_ledger_parse(next.data, next.len, FUZZ_PATH, &again, &d);
        FUZZ_ASSERT_MSG(e == SK_OK || (e == SK_E_CONTRACT && d.sub == SO_LEDGER_SUB_STATE) ||
                            e == SK_E_NOMEM,
                        "an appended copy of the last record: %s %d %s", sk_err_name(e), d.sub,
                        d.msg);
        FUZZ_ASSERT(e != SK_OK || again->n_records == l->n_records + 1);
        so_ledger_free(again);
    }
    sk_buf_free(&next);
    sk_buf_free(&canon);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    fz_rng rng = {fz_hash(data, size)};
    fz_buf in = {0};
    if (fz_below(&rng, 2))
        rechain(data, size, &in);
    else
        fz_buf_add(&in, data, size);

    so_ledger *l1 = NULL, *l2 = NULL;
    sk_diag d1, d2;
    fz_buf o1 = {0}, o2 = {0};
    sk_diag_clear(&d1);
    sk_diag_clear(&d2);
    sk_err e1 = so_ledger_parse(in.data, in.len, FUZZ_PATH, &l1, &d1);
    record(&o1, e1, &d1, l1);
    sk_err e2 = so_ledger_parse(in.data, in.len, FUZZ_PATH, &l2, &d2);
    record(&o2, e2, &d2, l2);
    FZ_SAME_OUTPUT(&o1, &o2, "two readings");
    if (e1) {
        FUZZ_ASSERT_MSG((e1 == SK_E_CONTRACT && d1.sub >= SO_LEDGER_SUB_LINE &&
                         d1.sub <= SO_LEDGER_SUB_BLOCKED && d1.msg[0]) ||
                            e1 == SK_E_NOMEM,
                        "%s %d \"%s\"", sk_err_name(e1), d1.sub, d1.msg);
    } else {
        coherent(l1, in.data, in.len);
    }
    so_ledger_free(l1);
    so_ledger_free(l2);
    fz_buf_free(&o1);
    fz_buf_free(&o2);

    sk_diag d0, df;
    sk_err e0 = read_and_state(in.data, in.len, &d0);
    unsigned long k = 1 + fz_below(&rng, 512);
    fz_fail_alloc_at(k);
    sk_err ef = read_and_state(in.data, in.len, &df);
    FZ_CHECK_NOMEM(k, ef, &df, e0);
    fz_fail_alloc_at(0);
    fz_buf_free(&in);
    return 0;
}
