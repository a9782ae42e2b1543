/* The derived state of a ledger as a JSON document (`ledger show --json-out`,
 * docs/ledger.md "State document"). */
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "analyzer/stage_o/so_ledger_internal.h"

#define SO_LEDGER_STATE_SCHEMA "skdcci-stage-o-ledger-state-v1"

/* The sequence number of record index i, or null. */
static cJSON *seq_of(sk_jb *b, size_t i)
{
    return i == SO_LEDGER_NONE ? sk_jb_null(b) : sk_jb_uint(b, (uint64_t)i + 1);
}

static cJSON *item_json(sk_jb *b, const so_ledger_item *it)
{
    cJSON *o = sk_jb_obj(b), *recs = sk_jb_obj(b);
    sk_jb_put_str(b, o, "id", it->id);
    sk_jb_put_str(b, o, "category", it->category);
    sk_jb_put_str(b, o, "status", so_item_status_name(it->status));
    sk_jb_put_str(b, o, "phase", it->phase);
    sk_jb_put_str(b, o, "d1_outcome", it->d1_outcome);
    sk_jb_put_uint(b, o, "attempts", it->attempts);
    sk_jb_put_bool(b, o, "awaiting_top_up", it->pending_top_up != SO_LEDGER_NONE);
    sk_jb_put_str(b, o, "incumbent_after", it->incumbent_after);
    sk_jb_put(b, recs, "trial", seq_of(b, it->trial));
    sk_jb_put(b, recs, "top_up", seq_of(b, it->top_up));
    sk_jb_put(b, recs, "settled_by", seq_of(b, it->settled_by));
    if (it->dcci) {
        sk_jb_put(b, recs, "d1_trial", seq_of(b, it->d1_trial));
        sk_jb_put(b, recs, "capture", seq_of(b, it->capture));
        sk_jb_put(b, recs, "analysis", seq_of(b, it->analysis));
        sk_jb_put(b, recs, "probe", seq_of(b, it->probe));
        sk_jb_put(b, recs, "repair", seq_of(b, it->repair));
        sk_jb_put(b, recs, "repair_trial", seq_of(b, it->repair_trial));
    }
    sk_jb_put(b, o, "records", recs);
    return o;
}

sk_err so_ledger_state_json(const so_ledger *l, cJSON **out, sk_diag *d)
{
    sk_jb b = SK_JB_INIT(d);
    const cJSON *init = so_ledger_init_body(l);
    cJSON *doc = sk_jb_obj(&b), *led = sk_jb_obj(&b), *chain = sk_jb_arr(&b);
    cJSON *items = sk_jb_arr(&b), *next = sk_jb_obj(&b);
    sk_jb_put_str(&b, doc, "schema_version", SO_LEDGER_STATE_SCHEMA);
    sk_jb_put_str(&b, led, "path", l->path);
    sk_jb_put_uint(&b, led, "records", l->n_records);
    sk_jb_put_str(&b, led, "head", l->head);
    sk_jb_put_uint(&b, led, "torn_bytes", l->torn_bytes);
    sk_jb_put(&b, doc, "ledger", led);
    sk_jb_put(&b, doc, "seed", sk_jb_copy(&b, sk_json_get(init, "seed")));
    sk_jb_put(&b, doc, "settings", sk_jb_copy(&b, l->settings));
    const cJSON *matrix = sk_json_get(init, "matrix");
    cJSON *mx = sk_jb_obj(&b);
    sk_jb_put(&b, mx, "path", sk_jb_copy(&b, sk_json_get(matrix, "path")));
    sk_jb_put(&b, mx, "sha256", sk_jb_copy(&b, sk_json_get(matrix, "sha256")));
    sk_jb_put(&b, mx, "plan_fingerprint", sk_jb_copy(&b, sk_json_get(matrix, "plan_fingerprint")));
    sk_jb_put(&b, doc, "matrix", mx);
    for (size_t i = 0; i < l->n_chain; i++) {
        cJSON *o = sk_jb_obj(&b);
        sk_jb_put_str(&b, o, "id", l->chain[i].id);
        sk_jb_put_uint(&b, o, "record", (uint64_t)l->chain[i].record + 1);
        sk_jb_put(&b, o, "config", sk_jb_copy(&b, l->chain[i].config));
        sk_jb_put(&b, o, "clean_root", sk_jb_copy(&b, sk_json_get(l->chain[i].runs, "clean_root")));
        sk_jb_put(&b, chain, NULL, o);
    }
    sk_jb_put_str(&b, doc, "incumbent", so_ledger_current(l)->id);
    sk_jb_put(&b, doc, "chain", chain);
    for (size_t i = 0; i < l->n_items; i++)
        sk_jb_put(&b, items, NULL, item_json(&b, &l->items[i]));
    sk_jb_put(&b, doc, "items", items);
    sk_jb_put_bool(&b, doc, "frozen", l->frozen);
    sk_jb_put(&b, doc, "base",
              l->frozen ? sk_jb_copy(&b, l->records[l->freeze].body) : sk_jb_null(&b));
    sk_jb_put_str(&b, next, "action", so_ledger_action_name(l->next.action));
    sk_jb_put_str(&b, next, "item", l->next.item ? l->next.item->id : NULL);
    sk_jb_put_str(&b, next, "detail", l->next.detail);
    sk_jb_put(&b, doc, "next", next);
    sk_err rc = sk_jb_finish(&b, d, "building the ledger state");
    if (rc != SK_OK) {
        cJSON_Delete(doc);
        doc = NULL;
    }
    *out = doc;
    return rc;
}
