/* The Stage O ledger reader: chain verification, tamper detection with the
 * sequence number, torn tails, the state machine, and the option maps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/stage_o/so_ledger.h"
#include "analyzer/stage_o/so_optmap.h"
#include "tests/unit/t.h"

#define H "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define RUN(n)                                                                                 \
    "{\"name\":\"run-" #n "\",\"record_sha256\":\"" H "\",\"command_fingerprint\":\"" H       \
    "\",\"correctness_sha256\":\"" H "\",\"config\":{\"name\":\"config.json\",\"sha256\":\"" H \
    "\"},\"logs\":[{\"name\":\"log_0.log\",\"size\":10,\"sha256\":\"" H                       \
    "\"}],\"process\":{\"boot_id\":\"b\",\"pid\":" #n ",\"start_time_ticks\":1},\"timeout_s\":null}"

static const char init_template[] =
    "{\"seed\":{\"id\":\"Sbest-SEED\",\"config\":{\"path\":\"configs/seed.json\",\"sha256\":\"" H
    "\",\"fingerprint\":\"" H "\",\"option_maps_digest\":\"" H "\"},"
    "\"fingerprints\":{\"source_revision\":\"rev\",\"baseline_config_fingerprint\":null,"
    "\"candidate_config_fingerprint\":\"" H "\",\"control_fingerprint\":null,"
    "\"workload_fingerprint\":null},\"command_fingerprint\":null,"
    "\"inputs\":{\"baseline_config\":null,\"control\":null,\"workload\":null,\"command\":null}},"
    "\"matrix\":{\"path\":\"matrix.json\",\"sha256\":\"" H "\",\"plan_fingerprint\":\"" H "\","
    "\"plan\":{\"schema_version\":\"superkernel-winner-option-matrix-v1\",\"seed_id\":\"Sbest-SEED\","
    "\"o0_id\":\"O0\",\"items\":["
    "{\"id\":\"O1\",\"category\":\"dcci\",\"risk\":\"medium\",\"option\":\"dcci_disable_on_kernel\","
    "\"value\":[\".*\"],\"pointer\":\"/m/super_kernel_optimize_options/dcci_disable_on_kernel\","
    "\"original_value\":{\"present\":false}},"
    "{\"id\":\"O2\",\"category\":\"auto_op_parallel\",\"risk\":\"low\",\"option\":\"auto_op_parallel\","
    "\"value\":1,\"pointer\":\"/m/super_kernel_optimize_options/auto_op_parallel\","
    "\"original_value\":{\"present\":false}}]},\"probe_report\":null},"
    "\"settings\":{\"warmup\":0,\"expected_ranks\":1,\"allow_p90_regression_pct\":0.0,"
    "\"allow_stddev_regression_pct\":0.0},"
    "\"o0\":{\"id\":\"O0\",\"runs\":{\"clean_root\":\"clean/O0\",\"runs\":[" RUN(1) "," RUN(2) "," RUN(
        3) "," RUN(4) "," RUN(5) "]},"
    "\"stability\":{\"stable\":true,\"run_count\":5,\"run_worst_rank_means_exact_ms\":[\"10\",\"10\","
    "\"10\",\"10\",\"10\"],\"mean_exact_ms\":\"10\",\"spread_pct_exact\":\"0\",\"spread_pct\":0.0}}}";

static cJSON *init_body(void)
{
    cJSON *b = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    if (sk_json_parse(init_template, strlen(init_template), NULL, &b, &d) != SK_OK) {
        t_fail(__FILE__, __LINE__, "template: %s", d.msg);
        return NULL;
    }
    cJSON *matrix = cJSON_GetObjectItemCaseSensitive(b, "matrix");
    char fp[65];
    T_CHECK(sk_json_fingerprint(cJSON_GetObjectItemCaseSensitive(matrix, "plan"), fp, &d) == SK_OK);
    cJSON_ReplaceItemInObjectCaseSensitive(matrix, "plan_fingerprint", cJSON_CreateString(fp));
    return b;
}

static cJSON *settle_body(const char *item, const char *reason)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"item\":\"%s\",\"status\":\"skipped\",\"blocker_code\":\"budget_exhausted\","
             "\"reason_zh\":\"%s\",\"evidence\":[{\"path\":\"intake/budget.md\",\"sha256\":\"" H
             "\"}],\"incumbent_after\":\"O0\"}",
             item, reason);
    cJSON *b = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    T_CHECK(sk_json_parse(text, strlen(text), NULL, &b, &d) == SK_OK);
    return b;
}

/* Appends a record to text (a ledger's bytes) by reading it first. */
static void append(sk_buf *text, so_ledger_kind kind, cJSON *body, int64_t t)
{
    so_ledger *l = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    if (text->len && so_ledger_parse(text->data, text->len, "w/ledger.jsonl", &l, &d) != SK_OK)
        t_fail(__FILE__, __LINE__, "cannot read: %s", d.msg);
    T_CHECK(so_ledger_line(l, kind, body, t, text, &d) == SK_OK);
    so_ledger_free(l);
    cJSON_Delete(body);
}

static sk_err parse(const sk_buf *text, so_ledger **l, sk_diag *d)
{
    sk_diag_clear(d);
    return so_ledger_parse(text->data, text->len, "w/ledger.jsonl", l, d);
}

static void build(sk_buf *text)
{
    append(text, SO_LEDGER_INIT, init_body(), 1767607200000000000);
    append(text, SO_LEDGER_SETTLE, settle_body("O1", "本轮预算已用完，用户未要求继续。"),
           1767607201000000000);
    append(text, SO_LEDGER_SETTLE, settle_body("O2", "本轮预算已用完。"), 1767607202000000000);
}

static void reads_a_chain(void)
{
    sk_buf text = SK_BUF_INIT;
    build(&text);
    so_ledger *l = NULL;
    sk_diag d;
    T_CHECK(parse(&text, &l, &d) == SK_OK);
    if (l) {
        T_EQ_U64(l->n_records, 3);
        T_EQ_STR(l->records[0].time, "2026-01-05T10:00:00.000000000Z");
        T_EQ_U64(l->n_items, 2);
        T_EQ_STR(so_item_status_name(l->items[0].status), "skipped");
        T_EQ_STR(l->items[0].incumbent_after, "O0");
        T_EQ_STR(so_ledger_current(l)->id, "O0");
        T_EQ_INT(l->next.action, SO_NEXT_FREEZE);
        char head[65];
        const char *last = strrchr(text.data, '\n');
        const char *prev_nl = last - 1;
        while (prev_nl > text.data && *prev_nl != '\n')
            prev_nl--;
        T_CHECK(sk_sha256_hex(prev_nl + 1, (size_t)(last - prev_nl), head) == SK_OK);
        T_EQ_STR(l->head, head);
        T_CHECK(strlen(l->dir) > 2 && strcmp(l->dir + strlen(l->dir) - 2, "/w") == 0);
        cJSON *st = NULL;
        T_CHECK(so_ledger_state_json(l, &st, &d) == SK_OK);
        cJSON_Delete(st);
    }
    so_ledger_free(l);
    sk_buf_free(&text);
}

/* Copy of text with the bytes [at, at+n) replaced by rep. */
static void edit(const sk_buf *text, size_t at, size_t n, const char *rep, sk_buf *out)
{
    sk_buf_reset(out);
    sk_buf_append(out, text->data, at);
    sk_buf_puts(out, rep);
    sk_buf_append(out, text->data + at + n, text->len - at - n);
}

static size_t line_start(const sk_buf *text, int line)
{
    size_t at = 0;
    for (int k = 1; k < line; k++)
        at = (size_t)(strchr(text->data + at, '\n') - text->data) + 1;
    return at;
}

static void tampering_names_the_record(void)
{
    sk_buf text = SK_BUF_INIT, bad = SK_BUF_INIT;
    build(&text);
    so_ledger *l = NULL;
    sk_diag d;
    /* a canonical edit of a body: the reason with another (escaped) character */
    const char *p = strstr(text.data, "\\u672c\\u8f6e\\u9884\\u7b97\\u5df2\\u7528\\u5b8c\\u3002\"");
    T_CHECK(p != NULL);
    if (p) {
        edit(&text, (size_t)(p - text.data), 6, "\\u8fd9", &bad);
        T_EQ_INT(parse(&bad, &l, &d), SK_E_CONTRACT);
        T_EQ_INT(d.sub, SO_LEDGER_SUB_BODY_HASH);
        T_EQ_U64(d.line, 3);
        T_CONTAINS(d.msg, "record 3 (settle)");
    }
    /* a deleted line: the sequence number */
    size_t l2 = line_start(&text, 2), l3 = line_start(&text, 3);
    edit(&text, l2, l3 - l2, "", &bad);
    T_EQ_INT(parse(&bad, &l, &d), SK_E_CONTRACT);
    T_EQ_INT(d.sub, SO_LEDGER_SUB_SEQUENCE);
    T_CONTAINS(d.msg, "record 2 (settle)");
    /* two lines swapped */
    sk_buf swapped = SK_BUF_INIT;
    sk_buf_append(&swapped, text.data, l2);
    sk_buf_append(&swapped, text.data + l3, text.len - l3);
    sk_buf_append(&swapped, text.data + l2, l3 - l2);
    T_EQ_INT(parse(&swapped, &l, &d), SK_E_CONTRACT);
    T_EQ_INT(d.sub, SO_LEDGER_SUB_SEQUENCE);
    sk_buf_free(&swapped);
    /* whitespace added: not canonical */
    edit(&text, l3, 1, "{ ", &bad);
    T_EQ_INT(parse(&bad, &l, &d), SK_E_CONTRACT);
    T_EQ_INT(d.sub, SO_LEDGER_SUB_LINE);
    T_EQ_U64(d.line, 3);
    /* the final newline removed: a complete record without newline */
    edit(&text, text.len - 1, 1, "", &bad);
    T_EQ_INT(parse(&bad, &l, &d), SK_E_CONTRACT);
    T_EQ_INT(d.sub, SO_LEDGER_SUB_TORN);
    /* a torn final line: tolerated, not a record */
    edit(&text, text.len, 0, "{\"body\":{\"it", &bad);
    T_EQ_INT(parse(&bad, &l, &d), SK_OK);
    if (l) {
        T_EQ_U64(l->n_records, 3);
        T_EQ_U64(l->torn_bytes, 12);
        T_EQ_U64(l->valid_len, text.len);
    }
    so_ledger_free(l);
    l = NULL;
    /* empty file */
    sk_buf empty = SK_BUF_INIT;
    sk_buf_puts(&empty, "");
    T_EQ_INT(parse(&empty, &l, &d), SK_E_CONTRACT);
    T_EQ_INT(d.sub, SO_LEDGER_SUB_EMPTY);
    sk_buf_free(&empty);
    sk_buf_free(&bad);
    sk_buf_free(&text);
}

static void state_rules(void)
{
    sk_buf text = SK_BUF_INIT;
    so_ledger *l = NULL;
    sk_diag d;
    append(&text, SO_LEDGER_INIT, init_body(), 1767607200000000000);
    /* a reason citing missing profiling evidence is refused by the reader too */
    sk_buf bad = SK_BUF_INIT;
    sk_buf_append(&bad, text.data, text.len);
    T_CHECK(parse(&bad, &l, &d) == SK_OK);
    cJSON *b = settle_body("O1", "没有 profiling 证据");
    T_CHECK(so_ledger_line(l, SO_LEDGER_SETTLE, b, 1767607201000000000, &bad, &d) == SK_OK);
    cJSON_Delete(b);
    so_ledger_free(l);
    l = NULL;
    T_EQ_INT(parse(&bad, &l, &d), SK_E_CONTRACT);
    T_EQ_INT(d.sub, SO_LEDGER_SUB_STATE);
    T_CONTAINS(d.msg, "not a legal blocker");
    /* English reason */
    sk_buf_reset(&bad);
    sk_buf_append(&bad, text.data, text.len);
    T_CHECK(parse(&bad, &l, &d) == SK_OK);
    b = settle_body("O2", "budget gone");
    T_CHECK(so_ledger_line(l, SO_LEDGER_SETTLE, b, 1767607201000000000, &bad, &d) == SK_OK);
    cJSON_Delete(b);
    so_ledger_free(l);
    l = NULL;
    T_EQ_INT(parse(&bad, &l, &d), SK_E_CONTRACT);
    T_CONTAINS(d.msg, "must be Chinese");
    /* settling twice */
    append(&text, SO_LEDGER_SETTLE, settle_body("O2", "预算已用完。"), 1767607201000000000);
    sk_buf_reset(&bad);
    sk_buf_append(&bad, text.data, text.len);
    T_CHECK(parse(&bad, &l, &d) == SK_OK);
    b = settle_body("O2", "预算已用完。");
    T_CHECK(so_ledger_line(l, SO_LEDGER_SETTLE, b, 1767607202000000000, &bad, &d) == SK_OK);
    cJSON_Delete(b);
    so_ledger_free(l);
    l = NULL;
    T_EQ_INT(parse(&bad, &l, &d), SK_E_CONTRACT);
    T_CONTAINS(d.msg, "already settled");
    T_CONTAINS(d.msg, "record 3 (settle)");
    sk_buf_free(&bad);
    sk_buf_free(&text);
}

static void times(void)
{
    char t[32];
    sk_diag d;
    sk_diag_clear(&d);
    T_CHECK(so_ledger_time(0, t, &d) == SK_OK);
    T_EQ_STR(t, "1970-01-01T00:00:00.000000000Z");
    T_CHECK(so_ledger_time(951782400123456789, t, &d) == SK_OK);
    T_EQ_STR(t, "2000-02-29T00:00:00.123456789Z");
    T_CHECK(so_ledger_time(-1, t, &d) == SK_E_ARG);
}

static void option_maps(void)
{
    static const char a_text[] =
        "{\"model_config\":{\"custom_params\":{\"super_kernel_optimize_options\":{\"auto_op_parallel\":1,"
        "\"dcci_disable_on_kernel\":[\".*\"]},\"super_kernel_debug_options\":{}}},\"scopes\":[{"
        "\"super_kernel_optimize_options\":{\"x\":true}}]}";
    static const char b_text[] =
        "{\"model_config\":{\"custom_params\":{\"super_kernel_optimize_options\":{\"auto_op_parallel\":1.0,"
        "\"dcci_disable_on_kernel\":[\".*\"],\"early_start\":1},\"super_kernel_debug_options\":{}}},"
        "\"other\":2}";
    cJSON *a = NULL, *b = NULL, *doc = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    T_CHECK(sk_json_parse(a_text, strlen(a_text), NULL, &a, &d) == SK_OK);
    T_CHECK(sk_json_parse(b_text, strlen(b_text), NULL, &b, &d) == SK_OK);
    so_optmaps ma, mb, mc;
    T_CHECK(so_optmaps_collect(a, "a.json", &ma, &d) == SK_OK);
    T_CHECK(so_optmaps_collect(b, "b.json", &mb, &d) == SK_OK);
    T_EQ_U64(ma.count, 3);
    T_EQ_STR(ma.maps[0].pointer, "/model_config/custom_params/super_kernel_debug_options");
    T_EQ_STR(ma.maps[2].pointer, "/scopes/0/super_kernel_optimize_options");
    T_CHECK(strcmp(ma.digest, mb.digest) != 0);
    /* the document round trip keeps the digest */
    T_CHECK(so_optmaps_json(&ma, &doc, &d) == SK_OK);
    T_CHECK(so_optmaps_from_json(doc, "doc", &mc, &d) == SK_OK);
    T_EQ_STR(mc.digest, ma.digest);
    so_optmap_diff diff;
    T_CHECK(so_optmaps_diff(&ma, &mb, &diff, &d) == SK_OK);
    /* auto_op_parallel 1 -> 1.0 changed, early_start added, the scope map removed + its x */
    T_EQ_U64(diff.count, 4);
    if (diff.count == 4) {
        T_EQ_STR(diff.changes[0].option, "auto_op_parallel");
        T_EQ_INT(diff.changes[0].kind, SO_CDIFF_CHANGED);
        T_EQ_STR(diff.changes[1].option, "early_start");
        T_EQ_INT(diff.changes[1].kind, SO_CDIFF_ADDED);
        T_CHECK(diff.changes[2].option == NULL);
        T_EQ_INT(diff.changes[2].kind, SO_CDIFF_REMOVED);
        T_EQ_STR(diff.changes[3].option, "x");
    }
    so_optmap_diff_free(&diff);
    /* the other member of b is not an option: same maps, same digest */
    cJSON_DeleteItemFromObjectCaseSensitive(b, "other");
    so_optmaps mb2;
    T_CHECK(so_optmaps_collect(b, "b.json", &mb2, &d) == SK_OK);
    T_EQ_STR(mb2.digest, mb.digest);
    /* a map that is not a mapping */
    cJSON *bad = cJSON_Parse("{\"a\":{\"super_kernel_debug_options\":[1]}}");
    so_optmaps mx;
    T_EQ_INT(so_optmaps_collect(bad, "c.json", &mx, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "/a/super_kernel_debug_options: super_kernel_debug_options must be a "
                      "mapping, found a list");
    cJSON_Delete(bad);
    so_optmaps_free(&ma);
    so_optmaps_free(&mb);
    so_optmaps_free(&mb2);
    so_optmaps_free(&mc);
    cJSON_Delete(doc);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* A ledger that replays every kind of state comparison (a top-up that keeps
 * its trial's runs, trials against the incumbent, a failed stop with
 * Sbest-BASE): with each allocation failing in turn, reading gives
 * SK_E_NOMEM or succeeds, never a false state violation. */
static void allocation_failure_is_never_a_verdict(void)
{
#ifdef SK_TEST_HOOKS
    char path[1024];
    const char *repo = getenv("SK_REPO");
    snprintf(path, sizeof path, "%s/tests/fuzz/seeds/ledger/stopped_failed.jsonl",
             repo && *repo ? repo : ".");
    FILE *f = fopen(path, "rb");
    T_CHECK(f != NULL);
    if (!f)
        return;
    sk_buf text = SK_BUF_INIT;
    char chunk[4096];
    for (size_t n; (n = fread(chunk, 1, sizeof chunk, f)) > 0;)
        sk_buf_append(&text, chunk, n);
    fclose(f);
    so_ledger *l = NULL;
    sk_diag d;
    T_CHECK(parse(&text, &l, &d) == SK_OK);
    T_CHECK(l && l->stopped && l->n_records == 6);
    so_ledger_free(l);
    for (unsigned long n = 1;; n++) {
        l = NULL;
        sk_alloc_fail_at(n);
        sk_err e = parse(&text, &l, &d);
        sk_alloc_fail_at(0);
        so_ledger_free(l);
        if (e == SK_OK)
            break;
        if (e != SK_E_NOMEM) {
            t_fail(__FILE__, __LINE__, "allocation %lu failing gives %d: %s", n, (int)e, d.msg);
            break;
        }
    }
    sk_buf_free(&text);
#endif
}

static const t_case cases[] = {
    T(reads_a_chain),
    T(allocation_failure_is_never_a_verdict),
    T(tampering_names_the_record),
    T(state_rules),
    T(times),
    T(option_maps),
    {NULL, NULL},
};

T_MAIN(cases)
