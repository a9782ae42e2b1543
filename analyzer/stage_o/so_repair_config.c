#include "analyzer/stage_o/so_repair_config.h"

#include <stdio.h>
#include <string.h>

#include <yaml.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"
#include "artifact_contract/base/sk_json_lex.h"
#include "artifact_contract/base/sk_json_pointer.h"
#include "analyzer/stage_o/so_config.h"
#include "analyzer/stage_o/so_repair.h"

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory building the repair config");
}

/* ------------------------------------------------------------ options */

sk_err so_repair_options_load(const char *path, cJSON **list, sk_diag *d)
{
    static const char *const keys[] = {SO_DCCI_AFTER, SO_DCCI_BEFORE, SO_DCCI_DISABLE, NULL};
    cJSON *doc = NULL;
    char why[SO_REPAIR_DETAIL_MAX];
    *list = NULL;
    sk_err rc = sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, "repair options", 0, &doc, NULL,
                                  NULL, d);
    if (rc != SK_OK)
        goto out;
    if ((rc = sk_json_check_keys(doc, "repair options", keys, NULL, d)) != SK_OK) {
        sk_diag_set_file(d, path);
        goto out;
    }
    const cJSON *dis = sk_json_get(doc, SO_DCCI_DISABLE);
    const cJSON *before = sk_json_get(doc, SO_DCCI_BEFORE), *after = sk_json_get(doc, SO_DCCI_AFTER);
    if (!cJSON_IsArray(dis) || !dis->child || dis->child->next || !cJSON_IsString(dis->child) ||
        strcmp(dis->child->valuestring, ".*") != 0) {
        rc = sk_diag_set(d, SK_E_SCHEMA, path, 0, "%s must be exactly [\".*\"]", SO_DCCI_DISABLE);
        goto out;
    }
    int eq = sk_json_equal(before, after);
    if (eq < 0) {
        rc = nomem(d);
        goto out;
    }
    if (!eq) {
        rc = sk_diag_set(d, SK_E_SCHEMA, path, 0, "%s and %s must be the same list (the joint "
                         "repair sets one list L at both)", SO_DCCI_BEFORE, SO_DCCI_AFTER);
        goto out;
    }
    if (!so_repair_list_valid(before, why, sizeof why)) {
        rc = sk_diag_set(d, SK_E_SCHEMA, path, 0, "%s: %s", SO_DCCI_BEFORE, why);
        goto out;
    }
    if (!(*list = cJSON_Duplicate(before, 1)))
        rc = nomem(d);
out:
    cJSON_Delete(doc);
    return rc;
}

/* ------------------------------------------------------------ analysis */

sk_err so_repair_config_check_analysis(const char *dir, const so_cdiff_input *da,
                                       const cJSON *list, so_rcfg_verdict *verdict, char *why,
                                       size_t why_size, sk_diag *d)
{
    sk_buf path = SK_BUF_INIT;
    cJSON *doc = NULL;
    *verdict = SO_RCFG_OK;
    why[0] = '\0';
    sk_err rc = sk_buf_printf(&path, "%s/%s", dir, SO_ANALYSIS_JSON_NAME);
    if (rc != SK_OK) {
        rc = nomem(d);
        goto out;
    }
    rc = sk_json_load_file(sk_buf_cstr(&path), SK_PATH_NOFOLLOW_LEAF, "analysis", 0, &doc, NULL,
                           NULL, d);
    if (rc != SK_OK)
        goto out;
    const cJSON *status = sk_json_get(doc, "status");
    if (!cJSON_IsString(status)) {
        rc = sk_diag_set(d, SK_E_SCHEMA, sk_buf_cstr(&path), 0, "status must be a string");
        goto out;
    }
    if (strcmp(status->valuestring, "repair_candidate") != 0) {
        *verdict = SO_RCFG_BLOCKED;
        snprintf(why, why_size, "the analysis status is %.80s, not repair_candidate: it gives no "
                 "repair list", status->valuestring);
        goto out;
    }
    const cJSON *inputs = sk_json_get(doc, "inputs");
    const cJSON *contract = sk_json_get(inputs, "contract");
    const cJSON *roles = sk_json_get(contract, "roles");
    const cJSON *fp = sk_json_get(sk_json_get(roles, "dcci_disable_all"), "config_fingerprint");
    if (!cJSON_IsString(fp)) {
        *verdict = SO_RCFG_BLOCKED;
        snprintf(why, why_size, "the analysis holds no sealed contract summary with the "
                 "disable-all config fingerprint: the config cannot be tied to the pair");
        goto out;
    }
    if (strcmp(fp->valuestring, da->fingerprint) != 0) {
        *verdict = SO_RCFG_REFUSED;
        snprintf(why, why_size, "%.300s is not the pair's disable-all config: its fingerprint %s "
                 "differs from the sealed %.64s", da->path, da->fingerprint, fp->valuestring);
        goto out;
    }
    int eq = sk_json_equal(sk_json_get(doc, "regexes"), list);
    if (eq < 0) {
        rc = nomem(d);
        goto out;
    }
    if (!eq) {
        *verdict = SO_RCFG_REFUSED;
        snprintf(why, why_size, "the repair list is not the analysis's regexes list");
    }
out:
    cJSON_Delete(doc);
    sk_buf_free(&path);
    return rc;
}

/* ------------------------------------------------------------ locating the key */

/* Where the disable member's key starts in the text, and how its mapping is
 * written. */
typedef struct key_site {
    int found;
    size_t offset; /* byte offset of the key's first byte (its quote, if any) */
    int flow;      /* the mapping is {...} (JSON is always flow) */
} key_site;

/* The parent pointer and the member name of a pointer whose last token is a
 * member name without escapes (the disable member always is). */
static int split_pointer(const char *pointer, sk_buf *parent)
{
    const char *slash = strrchr(pointer, '/');
    return slash && sk_buf_append_slow(parent, pointer, (size_t)(slash - pointer)) == SK_OK;
}

typedef struct frame {
    int is_obj;
    size_t index;    /* arrays: next element */
    size_t base_len; /* length of the container's own pointer */
    int flow;
    int expect_key;  /* YAML mappings: the next node is a key */
} frame;

/* A stack of frames as deep as the JSON limit (configs are shallow; the
 * loaders already refused anything deeper). */
typedef struct walker {
    frame st[SK_JSON_MAX_DEPTH + 2];
    size_t depth;
    sk_buf path;
    const char *parent;   /* pointer of the mapping that holds the member */
    key_site *site;
} walker;

static void path_truncate(sk_buf *path, size_t len)
{
    path->len = len;
    if (path->data)
        path->data[len] = '\0';
}

/* A node starts: inside an array its pointer is the element's. */
static sk_err node_begins(walker *w)
{
    if (w->depth == 0)
        return SK_OK;
    frame *f = &w->st[w->depth - 1];
    if (f->is_obj)
        return SK_OK;
    char token[32];
    snprintf(token, sizeof token, "%zu", f->index++);
    path_truncate(&w->path, f->base_len);
    return sk_json_pointer_append(&w->path, token);
}

static sk_err push(walker *w, int is_obj, int flow)
{
    if (w->depth >= sizeof w->st / sizeof w->st[0])
        return SK_E_LIMIT;
    frame *f = &w->st[w->depth++];
    f->is_obj = is_obj;
    f->index = 0;
    f->base_len = w->path.len;
    f->flow = flow;
    f->expect_key = 1;
    return SK_OK;
}

/* A key inside the innermost mapping, at byte offset off. */
static sk_err key_seen(walker *w, const char *key, size_t off)
{
    frame *f = &w->st[w->depth - 1];
    path_truncate(&w->path, f->base_len);
    if (strcmp(key, SO_DCCI_DISABLE) == 0 && strcmp(sk_buf_cstr(&w->path), w->parent) == 0) {
        w->site->found++;
        w->site->offset = off;
        w->site->flow = f->flow;
    }
    return sk_json_pointer_append(&w->path, key);
}

static sk_err find_json_key(const char *text, size_t len, walker *w, sk_diag *d)
{
    sk_json_lex *lx = NULL;
    sk_jtok t;
    sk_err rc = sk_json_lex_new_mem(text, len, NULL, &lx);
    if (rc != SK_OK)
        return nomem(d);
    while ((rc = sk_json_lex_next(lx, &t, d)) == SK_OK && t.type != SK_JT_EOF) {
        switch (t.type) {
        case SK_JT_OBJ_BEGIN:
        case SK_JT_ARR_BEGIN:
            if ((rc = node_begins(w)) == SK_OK)
                rc = push(w, t.type == SK_JT_OBJ_BEGIN, 1);
            break;
        case SK_JT_OBJ_END:
        case SK_JT_ARR_END:
            w->depth--;
            break;
        case SK_JT_KEY:
            rc = key_seen(w, t.text, (size_t)t.offset);
            break;
        default:
            rc = node_begins(w);
            break;
        }
        if (rc != SK_OK)
            break;
    }
    sk_json_lex_free(lx);
    return rc == SK_E_NOMEM ? nomem(d) : rc;
}

/* libyaml counts marks in characters; the text is UTF-8 (the loader checked
 * it), so the byte offset is found by counting lead bytes. */
static size_t char_to_byte(const char *text, size_t len, size_t chars)
{
    size_t i = 0;
    for (size_t n = 0; i < len; i++) {
        if (((unsigned char)text[i] & 0xC0u) != 0x80u) {
            if (n == chars)
                break;
            n++;
        }
    }
    return i;
}

/* After a complete node inside a YAML mapping, a key comes next. */
static void yaml_node_done(walker *w)
{
    if (w->depth && w->st[w->depth - 1].is_obj)
        w->st[w->depth - 1].expect_key = !w->st[w->depth - 1].expect_key;
}

static sk_err find_yaml_key(const char *text, size_t len, const char *label, walker *w,
                            sk_diag *d)
{
    yaml_parser_t p;
    yaml_event_t e;
    sk_err rc = SK_OK;
    int done = 0;
    if (!yaml_parser_initialize(&p))
        return nomem(d);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    while (!done && rc == SK_OK) {
        if (!yaml_parser_parse(&p, &e)) {
            /* The loader accepted these bytes already: only memory can fail. */
            rc = sk_diag_set(d, SK_E_FORMAT, label, 0, "YAML re-read failed: %s",
                             p.problem ? p.problem : "unknown error");
            break;
        }
        frame *top = w->depth ? &w->st[w->depth - 1] : NULL;
        switch (e.type) {
        case YAML_SCALAR_EVENT:
            if (top && top->is_obj && top->expect_key) {
                rc = key_seen(w, (const char *)e.data.scalar.value,
                              char_to_byte(text, len, e.start_mark.index));
                top->expect_key = 0;
            } else {
                rc = node_begins(w);
                yaml_node_done(w);
            }
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (top && top->is_obj && top->expect_key) {
                rc = sk_diag_set(d, SK_E_UNSUPPORTED, label, 0, "a complex mapping key");
                break;
            }
            rc = node_begins(w);
            if (rc == SK_OK)
                rc = push(w, e.type == YAML_MAPPING_START_EVENT,
                          e.type == YAML_MAPPING_START_EVENT
                              ? e.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
                              : e.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            w->depth--;
            yaml_node_done(w);
            break;
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        default:
            break;
        }
        yaml_event_delete(&e);
    }
    yaml_parser_delete(&p);
    return rc == SK_E_NOMEM ? nomem(d) : rc;
}

/* ------------------------------------------------------------ splice */

/* L as a flow sequence of double-quoted strings: valid JSON and YAML (the
 * patterns were checked: letters, digits, '_', '.', '*', '-'). */
static sk_err list_text(const cJSON *list, sk_buf *out)
{
    sk_err rc = sk_buf_putc(out, '[');
    for (const cJSON *c = list->child; rc == SK_OK && c; c = c->next)
        rc = sk_buf_printf(out, "%s\"%s\"", c == list->child ? "" : ", ", c->valuestring);
    return rc == SK_OK ? sk_buf_putc(out, ']') : rc;
}

static sk_err splice(const char *text, size_t len, const key_site *site, int json,
                     const cJSON *list, sk_buf *out)
{
    sk_buf l = SK_BUF_INIT, indent = SK_BUF_INIT;
    const char *q = json ? "\"" : "";
    size_t line = site->offset;
    while (line > 0 && text[line - 1] != '\n')
        line--;
    int own_line = 1;
    for (size_t i = line; i < site->offset; i++)
        if (text[i] != ' ' && text[i] != '\t')
            own_line = 0;
    sk_err rc = list_text(list, &l);
    if (rc != SK_OK)
        goto out;
    if (!site->flow) {
        /* block mapping: the key's column is the mapping's indentation */
        for (size_t i = line; rc == SK_OK && i < site->offset; i++)
            rc = sk_buf_putc(&indent, ' ');
    } else if (own_line) {
        rc = sk_buf_append_slow(&indent, text + line, site->offset - line);
    }
    if (rc != SK_OK)
        goto out;
    const char *sep = site->flow ? "," : "";
    int newline = !site->flow || own_line;
    rc = sk_buf_append_slow(out, text, site->offset);
    for (int k = 0; rc == SK_OK && k < 2; k++)
        rc = sk_buf_printf(out, "%s%s%s: %s%s%s%s", q, k ? SO_DCCI_AFTER : SO_DCCI_BEFORE, q,
                           sk_buf_cstr(&l), sep, newline ? "\n" : " ",
                           newline ? sk_buf_cstr(&indent) : "");
    if (rc == SK_OK)
        rc = sk_buf_append_slow(out, text + site->offset, len - site->offset);
out:
    sk_buf_free(&l);
    sk_buf_free(&indent);
    return rc;
}

/* ------------------------------------------------------------ make */

void so_repair_config_free(so_repair_config *c)
{
    if (!c)
        return;
    sk_free(c->text);
    sk_free(c->pointer_before);
    sk_free(c->pointer_after);
    memset(c, 0, sizeof *c);
}

/* The O0 a disable-all config implies: the same tree without its disable
 * member. */
static sk_err derive_o0(const cJSON *da, const char *pointer, cJSON **out, sk_diag *d)
{
    sk_buf parent = SK_BUF_INIT;
    const cJSON *node = NULL;
    cJSON *o0 = cJSON_Duplicate(da, 1);
    sk_err rc = SK_OK;
    *out = NULL;
    if (!o0 || !split_pointer(pointer, &parent)) {
        rc = nomem(d);
        goto out;
    }
    if ((rc = sk_json_pointer_resolve(o0, sk_buf_cstr(&parent), &node, d)) != SK_OK)
        goto out;
    if (!cJSON_IsObject(node)) {
        rc = sk_diag_set(d, SK_E_INTERNAL, "", 0, "the disable member's parent is not a mapping");
        goto out;
    }
    cJSON_DeleteItemFromObjectCaseSensitive((cJSON *)node, SO_DCCI_DISABLE);
    *out = o0;
    o0 = NULL;
out:
    cJSON_Delete(o0);
    sk_buf_free(&parent);
    return rc;
}

sk_err so_repair_config_make(const so_cdiff_input *da, const char *text, size_t len,
                             const cJSON *list, so_repair_config *out, so_rcfg_verdict *verdict,
                             char *why, size_t why_size, sk_diag *d)
{
    so_repair_config c;
    walker w;
    key_site site = {0, 0, 0};
    sk_buf parent = SK_BUF_INIT, built = SK_BUF_INIT;
    char *pointer = NULL;
    cJSON *o0 = NULL, *repair = NULL;
    so_repair_proof proof;
    const cJSON *v = NULL;
    memset(&c, 0, sizeof c);
    memset(&w, 0, sizeof w);
    memset(&proof, 0, sizeof proof);
    memset(out, 0, sizeof *out);
    *verdict = SO_RCFG_REFUSED;
    int json = strcmp(da->syntax, "json") == 0;
    sk_err rc = so_repair_locate(da->tree, &pointer, why, why_size, d);
    if (rc != SK_OK || !pointer)
        goto out;
    if (!(c.pointer_before = so_repair_sibling(pointer, SO_DCCI_BEFORE)) ||
        !(c.pointer_after = so_repair_sibling(pointer, SO_DCCI_AFTER)) ||
        !split_pointer(pointer, &parent) || sk_buf_puts(&w.path, "") != SK_OK) {
        rc = nomem(d);
        goto out;
    }
    if ((rc = sk_json_pointer_resolve(da->tree, pointer, &v, d)) != SK_OK)
        goto out;
    if (!cJSON_IsArray(v) || !v->child || v->child->next || !cJSON_IsString(v->child) ||
        strcmp(v->child->valuestring, ".*") != 0) {
        snprintf(why, why_size, "%.300s is not a disable-all config: %s is not exactly [\".*\"]",
                 da->path, pointer);
        goto out;
    }
    for (int k = 0; k < 2; k++) {
        const char *p = k ? c.pointer_after : c.pointer_before;
        if ((rc = sk_json_pointer_resolve(da->tree, p, &v, d)) != SK_OK)
            goto out;
        if (v) {
            snprintf(why, why_size, "%.300s already sets %s: the disable-all trial changes "
                     "%s only", da->path, p, SO_DCCI_DISABLE);
            goto out;
        }
    }
    w.parent = sk_buf_cstr(&parent);
    w.site = &site;
    rc = json ? find_json_key(text, len, &w, d) : find_yaml_key(text, len, da->path, &w, d);
    if (rc != SK_OK)
        goto out;
    if (site.found != 1) {
        snprintf(why, why_size, "the %s key of %.300s was found %d times in its text",
                 SO_DCCI_DISABLE, da->path, site.found);
        goto out;
    }
    if (splice(text, len, &site, json, list, &built) != SK_OK) {
        rc = nomem(d);
        goto out;
    }
    /* Prove the result as config-diff --dcci-repair would. */
    if (so_config_parse(built.data, built.len, da->path, NULL, &repair, d) != SK_OK) {
        /* The splice wrote valid syntax by construction: this is a bug. */
        sk_diag_prefix(d, "the repair config built from it does not parse");
        rc = SK_E_INTERNAL;
        goto out;
    }
    if ((rc = derive_o0(da->tree, pointer, &o0, d)) != SK_OK ||
        (rc = so_repair_prove(o0, da->tree, repair, &proof, d)) != SK_OK)
        goto out;
    int eq = sk_json_equal(proof.repair_list, list);
    if (eq < 0) {
        rc = nomem(d);
        goto out;
    }
    if (!proof.proven || !eq) {
        for (int k = 0; k < SO_RC_COUNT; k++)
            if (proof.applicable[k] && !proof.passed[k]) {
                snprintf(why, why_size, "the layout of %.300s cannot take the two members "
                         "(check %s: %.200s)", da->path, so_repair_check_names[k],
                         proof.detail[k]);
                break;
            }
        if (proof.proven)
            snprintf(why, why_size, "the list read back differs from the list written");
        goto out;
    }
    c.len = built.len;
    c.text = sk_buf_take(&built);
    if (!c.text) {
        rc = nomem(d);
        goto out;
    }
    *out = c;
    memset(&c, 0, sizeof c);
    *verdict = SO_RCFG_OK;
    why[0] = '\0';
out:
    so_repair_proof_free(&proof);
    cJSON_Delete(repair);
    cJSON_Delete(o0);
    sk_free(pointer);
    sk_buf_free(&parent);
    sk_buf_free(&built);
    sk_buf_free(&w.path);
    so_repair_config_free(&c);
    return rc;
}
