#include "analyzer/readers/rd_fused_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fixed.h"
#include "analyzer/readers/rd_lines.h"
#include "analyzer/readers/rd_logline.h"
#include "analyzer/readers/rd_skname.h"

#define HEADER_MARK "SK Function:"
#define SCOPE_MARK ", scope id: "
#define COUNT_MARK ", Node Count: "
/* The runtime prints the scope id of a uint16; accept any 32-bit id. */
#define MAX_SCOPE_ID 4294967295u

int rd_fused_is_header(const char *payload, size_t len)
{
    return len >= strlen(HEADER_MARK) && memcmp(payload, HEADER_MARK, strlen(HEADER_MARK)) == 0;
}

static sk_err header_error(sk_diag *d, const char *what)
{
    sk_diag_set(d, SK_E_FORMAT, "", 0, "malformed SK Function header: %s", what);
    sk_diag_sub(d, RD_FUSED_E_HEADER);
    return SK_E_FORMAT;
}

sk_err rd_fused_parse_header(const char *payload, size_t len, char **name, uint64_t *scope_id,
                             uint64_t *node_count, sk_diag *d)
{
    *name = NULL;
    if (!rd_fused_is_header(payload, len))
        return header_error(d, "expected 'SK Function: '");
    const char *p = payload + strlen(HEADER_MARK);
    const char *end = payload + len;
    /* the name may itself contain ", ": split at the LAST ", scope id: " */
    const char *scope = NULL;
    for (const char *q = p; q + strlen(SCOPE_MARK) <= end; q++)
        if (memcmp(q, SCOPE_MARK, strlen(SCOPE_MARK)) == 0)
            scope = q;
    if (!scope)
        return header_error(d, "no ', scope id: '");
    const char *count = NULL;
    for (const char *q = scope; q + strlen(COUNT_MARK) <= end; q++)
        if (memcmp(q, COUNT_MARK, strlen(COUNT_MARK)) == 0) {
            count = q;
            break;
        }
    if (!count)
        return header_error(d, "no ', Node Count: ' after the scope id");
    const char *n0 = p;
    while (n0 < scope && sk_is_blank(*n0))
        n0++;
    if (n0 == scope)
        return header_error(d, "empty SK name");
    const char *id_text = scope + strlen(SCOPE_MARK);
    const char *count_text = count + strlen(COUNT_MARK);
    for (const char *q = id_text; q < count; q++)
        if (*q < '0' || *q > '9')
            return header_error(d, "scope id is not a decimal number");
    for (const char *q = count_text; q < end; q++)
        if (*q < '0' || *q > '9')
            return header_error(d, "Node Count is not a decimal number");
    if (count == id_text || count_text == end)
        return header_error(d, "empty scope id or Node Count");
    sk_err e = sk_parse_uint(id_text, (size_t)(count - id_text), MAX_SCOPE_ID, scope_id, NULL, d);
    if (e == SK_OK)
        e = sk_parse_uint(count_text, (size_t)(end - count_text), UINT32_MAX, node_count, NULL, d);
    if (e != SK_OK) {
        sk_diag_prefix(d, "malformed SK Function header");
        sk_diag_sub(d, RD_FUSED_E_HEADER);
        return e;
    }
    *name = sk_strndup(n0, (size_t)(scope - n0));
    if (!*name)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory storing an SK name");
    return SK_OK;
}

typedef struct parser {
    const char *label;
    rd_fused_opts opts;
    rd_fused_log *log;
    size_t sk_cap;
    size_t node_cap;     /* of the open block's node array */
    rd_fused_sk *open;   /* block being filled, or NULL */
    uint64_t expect;     /* its Node Count */
    unsigned char *seen; /* its local indices seen */
} parser;

/* Checks a complete block (Node Count reached or the block ended). */
static sk_err close_block(parser *p, sk_diag *d)
{
    rd_fused_sk *sk = p->open;
    if (!sk)
        return SK_OK;
    p->open = NULL;
    sk_free(p->seen);
    p->seen = NULL;
    if (sk->n_nodes != p->expect)
        return sk_diag_set_sub(d, SK_E_FORMAT, RD_FUSED_E_COUNT, p->label, sk->line,
                               "SK '%s' has %zu node lines but its header says Node Count: %llu",
                               sk->name, sk->n_nodes, (unsigned long long)p->expect);
    const rd_sknode *first = NULL, *last = NULL;
    for (size_t i = 0; i < sk->n_nodes; i++) {
        if (sk->nodes[i].kind != RD_NODE_KERNEL)
            continue;
        if (!first)
            first = &sk->nodes[i];
        last = &sk->nodes[i];
        sk->n_kernels++;
    }
    if (!first)
        return sk_diag_set_sub(d, SK_E_FORMAT, RD_FUSED_E_NO_KERNEL, p->label, sk->line,
                               "SK '%s' (scope id %llu) has no kernel node", sk->name,
                               (unsigned long long)sk->scope_id);
    if (!rd_skname_matches(sk->name, strlen(sk->name), sk->scope_id, first->func_name,
                           last->func_name, &sk->scope, &sk->scope_len)) {
        rd_skname parsed;
        if (rd_skname_parse(sk->name, strlen(sk->name), &parsed) && parsed.id != sk->scope_id)
            return sk_diag_set_sub(
                d, SK_E_FORMAT, RD_FUSED_E_NAME, p->label, sk->line,
                "SK '%s': header scope id %llu differs from the id %llu in the name", sk->name,
                (unsigned long long)sk->scope_id, (unsigned long long)parsed.id);
        char msg[SK_DIAG_MSG_MAX];
        snprintf(msg, sizeof msg,
                 "SK name '%s' is not sk_%llu_<scope>_start_%s_end_%s (scope id and first/last "
                 "kernel funcName)",
                 sk->name, (unsigned long long)sk->scope_id, first->func_name, last->func_name);
        sk_diag_set(d, SK_E_FORMAT, p->label, sk->line, "%s", msg);
        sk_diag_sub(d, RD_FUSED_E_NAME);
        return SK_E_FORMAT;
    }
    return SK_OK;
}

static sk_err open_block(parser *p, const char *payload, size_t len, uint64_t line, sk_diag *d)
{
    char *name = NULL;
    uint64_t scope_id = 0, count = 0;
    sk_err e = rd_fused_parse_header(payload, len, &name, &scope_id, &count, d);
    if (e != SK_OK) {
        sk_diag_set_file(d, p->label);
        if (d)
            d->line = line;
        return e;
    }
    rd_fused_log *log = p->log;
    if (log->n_sks == p->opts.max_sks) {
        sk_free(name);
        return sk_diag_set(d, SK_E_LIMIT, p->label, line, "more than %zu SK blocks",
                           p->opts.max_sks);
    }
    if (count > p->opts.max_nodes - log->n_nodes) {
        sk_free(name);
        return sk_diag_set(d, SK_E_LIMIT, p->label, line,
                           "Node Count %llu exceeds the node limit %zu", (unsigned long long)count,
                           p->opts.max_nodes);
    }
    if (log->n_sks == p->sk_cap) {
        size_t cap = p->sk_cap ? p->sk_cap * 2 : 16;
        rd_fused_sk *grown = sk_realloc(log->sks, cap * sizeof *grown);
        if (!grown) {
            sk_free(name);
            return sk_diag_set(d, SK_E_NOMEM, p->label, line, "out of memory storing SK blocks");
        }
        log->sks = grown;
        p->sk_cap = cap;
    }
    rd_fused_sk *sk = &log->sks[log->n_sks++];
    memset(sk, 0, sizeof *sk);
    sk->name = name;
    sk->scope_id = scope_id;
    sk->line = line;
    p->open = sk;
    p->expect = count;
    p->node_cap = 0;
    p->seen = sk_calloc(count ? count : 1, 1);
    if (!p->seen)
        return sk_diag_set(d, SK_E_NOMEM, p->label, line, "out of memory for Node Count %llu",
                           (unsigned long long)count);
    return SK_OK;
}

static sk_err add_node(parser *p, const char *payload, size_t len, uint64_t line, sk_diag *d)
{
    rd_fused_sk *sk = p->open;
    if (!sk)
        return sk_diag_set_sub(d, SK_E_FORMAT, RD_FUSED_E_STRAY, p->label, line,
                               "node line before any SK Function header");
    if (sk->n_nodes == p->expect)
        return sk_diag_set_sub(d, SK_E_FORMAT, RD_FUSED_E_COUNT, p->label, line,
                               "SK '%s' has more node lines than its Node Count: %llu", sk->name,
                               (unsigned long long)p->expect);
    rd_sknode node;
    sk_err e = rd_sknode_read_line(payload, len, "a fused node list cannot contain nullptr",
                                   p->label, line, &node, d);
    if (e != SK_OK)
        return e;
    node.line = line;
    size_t pos = sk->n_nodes;
    if (pos == 0)
        sk->indexed = node.has_index;
    if (node.has_index != sk->indexed)
        e = sk_diag_set_sub(d, SK_E_FORMAT, RD_FUSED_E_INDEX, p->label, line,
                            "SK '%s' mixes node lines with and without [i]", sk->name);
    else if (node.has_index && node.index < p->expect && p->seen[node.index])
        e = sk_diag_set_sub(d, SK_E_FORMAT, RD_FUSED_E_INDEX, p->label, line,
                            "duplicate local index [%llu]", (unsigned long long)node.index);
    else if (node.has_index && node.index >= p->expect)
        e = sk_diag_set_sub(d, SK_E_FORMAT, RD_FUSED_E_INDEX, p->label, line,
                            "local index [%llu] out of range for Node Count %llu",
                            (unsigned long long)node.index, (unsigned long long)p->expect);
    else if (node.has_index && node.index != pos)
        e = sk_diag_set_sub(d, SK_E_FORMAT, RD_FUSED_E_INDEX, p->label, line,
                            "local index [%llu] out of order, expected [%zu]",
                            (unsigned long long)node.index, pos);
    if (e != SK_OK) {
        rd_sknode_clear(&node);
        return e;
    }
    if (pos == p->node_cap) {
        size_t cap = p->node_cap ? p->node_cap * 2 : 8;
        if (cap > p->expect)
            cap = p->expect;
        rd_sknode *grown = sk_realloc(sk->nodes, cap * sizeof *grown);
        if (!grown) {
            rd_sknode_clear(&node);
            return sk_diag_set(d, SK_E_NOMEM, p->label, line, "out of memory storing nodes");
        }
        sk->nodes = grown;
        p->node_cap = cap;
    }
    node.index = pos;
    p->seen[pos] = 1;
    sk->nodes[sk->n_nodes++] = node;
    p->log->n_nodes++;
    return SK_OK;
}

static sk_err check_duplicates(parser *p, sk_diag *d)
{
    rd_fused_log *log = p->log;
    if (log->n_sks < 2)
        return SK_OK;
    rd_scope_line *v = sk_malloc(log->n_sks * sizeof *v);
    if (!v)
        return sk_diag_set(d, SK_E_NOMEM, p->label, 0, "out of memory checking scope ids");
    for (size_t i = 0; i < log->n_sks; i++)
        v[i] = (rd_scope_line){log->sks[i].scope_id, log->sks[i].line};
    size_t i = rd_scope_first_repeat(v, log->n_sks);
    sk_err e = i == log->n_sks
                   ? SK_OK
                   : sk_diag_set_sub(d, SK_E_FORMAT, RD_FUSED_E_DUPLICATE, p->label, v[i].line,
                                     "duplicate SK block for scope id %llu (first at line %llu)",
                                     (unsigned long long)v[i].scope_id,
                                     (unsigned long long)v[i - 1].line);
    sk_free(v);
    return e;
}

static sk_err handle_line(void *ctx, char *text, size_t len, uint64_t number, sk_diag *d)
{
    parser *p = ctx;
    rd_logline ll;
    rd_logline_split(text, &len, &ll);
    if (ll.payload_len == 0 || ll.payload[0] == '#')
        return SK_OK;
    if (rd_logline_is_format_error(&ll))
        return sk_diag_set_sub(
            d, SK_E_FORMAT, RD_FUSED_E_LOST_LINE, p->label, number,
            "the runtime logger dropped a message here ([FORMAT_ERROR]); the node list is "
            "incomplete");
    if (rd_fused_is_header(ll.payload, ll.payload_len)) {
        sk_err e = close_block(p, d);
        return e != SK_OK ? e : open_block(p, ll.payload, ll.payload_len, number, d);
    }
    if (ll.payload[0] == '[')
        return add_node(p, ll.payload, ll.payload_len, number, d);
    return sk_diag_set_sub(d, SK_E_FORMAT, RD_FUSED_E_STRAY, p->label, number,
                           "unrecognised line in a fused node log");
}

sk_err rd_fused_log_parse(sk_read_fn read, void *ctx, const char *label,
                          const rd_fused_opts *opts, rd_fused_log **out, sk_diag *d)
{
    sk_err e = SK_OK;
    rd_lines *lr = NULL;
    parser p;
    memset(&p, 0, sizeof p);
    *out = NULL;
    p.label = label ? label : "";
    if (opts)
        p.opts = *opts;
    if (!p.opts.max_line)
        p.opts.max_line = RD_FUSED_DEFAULT_MAX_LINE;
    if (!p.opts.max_sks)
        p.opts.max_sks = RD_FUSED_DEFAULT_MAX_SKS;
    if (!p.opts.max_nodes)
        p.opts.max_nodes = RD_FUSED_DEFAULT_MAX_NODES;
    p.log = sk_calloc(1, sizeof *p.log);
    if (!p.log) {
        e = sk_diag_set(d, SK_E_NOMEM, p.label, 0, "out of memory parsing a fused node log");
        goto out;
    }
    e = rd_lines_new(read, ctx, p.label, p.opts.max_line, &lr, d);
    if (e == SK_OK)
        e = rd_lines_each(lr, handle_line, &p, d);
    if (e == SK_OK)
        e = close_block(&p, d);
    if (e == SK_OK)
        e = check_duplicates(&p, d);
    if (e == SK_OK) {
        *out = p.log;
        p.log = NULL;
    }
out:
    sk_free(p.seen);
    rd_lines_free(lr);
    rd_fused_log_free(p.log);
    return e;
}

const rd_fused_sk *rd_fused_log_find(const rd_fused_log *log, uint64_t scope_id)
{
    for (size_t i = 0; i < log->n_sks; i++)
        if (log->sks[i].scope_id == scope_id)
            return &log->sks[i];
    return NULL;
}

void rd_fused_log_free(rd_fused_log *log)
{
    if (!log)
        return;
    for (size_t i = 0; i < log->n_sks; i++) {
        for (size_t j = 0; j < log->sks[i].n_nodes; j++)
            rd_sknode_clear(&log->sks[i].nodes[j]);
        sk_free(log->sks[i].nodes);
        sk_free(log->sks[i].name);
    }
    sk_free(log->sks);
    sk_free(log);
}
