#include "analyzer/readers/rd_runtime_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fixed.h"
#include "analyzer/readers/rd_fused_log.h"
#include "analyzer/readers/rd_lines.h"
#include "analyzer/readers/rd_logline.h"
#include "analyzer/readers/rd_prof_capacity.h"
#include "analyzer/readers/rd_skname.h"

/* Message texts of the runtime (see rd_runtime_log.h for their sources). */
#define PROF_TAG "[sk time profiling]"
#define PROF_ON_KEY "ASCEND_PROF_SK_ON="
#define PROF_ON_CORE ", coreSize="
#define PROF_ON_TOTAL " KB (aligned), totalSize="
#define PROF_ON_END " MB for each device profiling"
#define PROF_OFF_TEXT "ASCEND_PROF_SK_ON is not set or is 0"
#define PROF_INVALID_TEXT "Invalid ASCEND_PROF_SK_ON value"
#define BUFFER_FULL_TEXT "buffer is full, stop dump the time of nodes"
#define OPTION_KEY "OptionName:"
#define OPTION_LIST_MARK ", value["
#define OPTION_SET_MARK ", set value: "
#define PATTERN_CHARS_TEXT \
    "pattern contains invalid characters, only alphanumeric, '_', '-', '.', '*' are allowed:"
#define PATTERN_STAR_TEXT "invalid pattern starts with '*':"
#define PATTERN_EMPTY_TEXT "pattern is empty after trim"
#define REORDER_LIST_TEXT "reordered task nodes: node count="
#define REORDER_OFF_TEXT "task reorder disabled"
#define REORDER_DONE_TEXT "task reorder finished: originalCount="
#define REORDER_MOVES_MARK ", moveCount="

/* ---- a small open-addressing index (hash -> array position) ---- */

typedef struct idmap {
    size_t *slots; /* position + 1; 0 = empty */
    size_t cap;    /* power of two */
    size_t used;
} idmap;

typedef int (*idmap_eq)(const void *ctx, size_t pos, const void *key);
typedef uint64_t (*idmap_hash)(const void *ctx, size_t pos);

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t hash_bytes(uint64_t seed, const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ seed; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return mix64(h);
}

static int idmap_grow(idmap *m, idmap_hash hash_of, const void *ctx)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    size_t *slots = sk_calloc(cap, sizeof *slots);
    if (!slots)
        return 0;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i])
            continue;
        size_t j = (size_t)hash_of(ctx, m->slots[i] - 1) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = m->slots[i];
    }
    sk_free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 1;
}

/* Finds key (hash h); returns its position, or SIZE_MAX when absent, in
 * which case *slot receives where to insert it. */
static size_t idmap_find(const idmap *m, uint64_t h, idmap_eq eq, const void *ctx,
                         const void *key, size_t *slot)
{
    size_t j = (size_t)h & (m->cap - 1);
    while (m->slots[j]) {
        if (eq(ctx, m->slots[j] - 1, key))
            return m->slots[j] - 1;
        j = (j + 1) & (m->cap - 1);
    }
    *slot = j;
    return SIZE_MAX;
}

/* ---- parser state ---- */

enum listing { L_NONE, L_SK_BLOCK, L_REORDER };

typedef struct rt {
    const char *label;
    rd_runtime_log *log;
    size_t cap_bf, cap_opt, cap_pat, cap_sk;
    idmap bf_map, pat_map;
    size_t total_nodes;
    enum listing open;
    rd_rtlog_sk *target;
    uint64_t expect;
    uint64_t open_line;
    int pending_disabled;
    int pending_has_move;
    uint64_t pending_move;
} rt;

static sk_err nomem(const rt *p, sk_diag *d, uint64_t line)
{
    return sk_diag_set(d, SK_E_NOMEM, p->label, line, "out of memory reading the runtime log");
}

/* Grows *arr (of elem-sized items) so that index n is valid. */
static int reserve(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 1;
    size_t c = *cap ? *cap * 2 : 16;
    void *p = sk_realloc(*arr, c * elem);
    if (!p)
        return 0;
    *arr = p;
    *cap = c;
    return 1;
}

static int starts(const char *s, size_t n, const char *prefix)
{
    size_t m = strlen(prefix);
    return n >= m && memcmp(s, prefix, m) == 0;
}

static const char *find(const char *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(s + i, needle, m) == 0)
            return s + i;
    return NULL;
}

/* Decimal digits exactly filling [s, e). */
static int digits(const char *s, const char *e, uint64_t max, uint64_t *v)
{
    return e > s && sk_parse_uint(s, (size_t)(e - s), max, v, NULL, NULL) == SK_OK &&
           !sk_is_blank(*s) && !sk_is_blank(e[-1]);
}

/* ---- ASCEND_PROF_SK_ON ---- */

/* The env value as the runtime's strtol(env, &end, 10) with *end == '\0'
 * accepted it: optional leading white space and '+', then digits only. */
static int env_value(const char *s, size_t n, uint64_t *kb)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')))
        i++;
    if (i < n && s[i] == '+')
        i++;
    return digits(s + i, s + n, UINT64_MAX, kb);
}

static sk_err set_prof(rt *p, const rd_rtlog_prof *next, uint64_t line, sk_diag *d)
{
    rd_rtlog_prof *cur = &p->log->prof;
    if (cur->state == RD_PROF_UNKNOWN) {
        *cur = *next;
        cur->line = line;
        return SK_OK;
    }
    int same = cur->state == next->state &&
               (cur->state != RD_PROF_ON ||
                (cur->value_kb == next->value_kb && cur->core_size_kb == next->core_size_kb));
    if (same)
        return SK_OK;
    return sk_diag_set_sub(
        d, SK_E_FORMAT, RD_RTLOG_E_CONFLICT, p->label, line,
        "conflicting ASCEND_PROF_SK_ON messages: %s (%llu KB) here, %s (%llu KB) at line %llu",
        rd_prof_state_name(next->state), (unsigned long long)next->value_kb,
        rd_prof_state_name(cur->state), (unsigned long long)cur->value_kb,
        (unsigned long long)cur->line);
}

static sk_err prof_on(rt *p, const char *s, size_t n, uint64_t line, sk_diag *d)
{
    const char *end = s + n;
    const char *key = find(s, n, PROF_ON_KEY);
    const char *val = key + strlen(PROF_ON_KEY);
    const char *core = find(val, (size_t)(end - val), PROF_ON_CORE);
    const char *core_val = core ? core + strlen(PROF_ON_CORE) : NULL;
    const char *total = core ? find(core_val, (size_t)(end - core_val), PROF_ON_TOTAL) : NULL;
    const char *total_val = total ? total + strlen(PROF_ON_TOTAL) : NULL;
    const char *tail = total ? find(total_val, (size_t)(end - total_val), PROF_ON_END) : NULL;
    rd_rtlog_prof next;
    memset(&next, 0, sizeof next);
    next.state = RD_PROF_ON;
    if (!tail || tail + strlen(PROF_ON_END) != end ||
        !digits(core_val, total, UINT32_MAX, &next.core_size_kb) ||
        !digits(total_val, tail, UINT32_MAX, &next.total_size_mb))
        return sk_diag_set_sub(
            d, SK_E_FORMAT, RD_RTLOG_E_PROF, p->label, line,
            "malformed ASCEND_PROF_SK_ON line (expected 'ASCEND_PROF_SK_ON=<v>, coreSize=<n> "
            "KB (aligned), totalSize=<m> MB for each device profiling')");
    if (!env_value(val, (size_t)(core - val), &next.value_kb) || next.value_kb == 0 ||
        next.value_kb > RD_PROF_SK_ON_MAX_KB)
        return sk_diag_set_sub(
            d, SK_E_FORMAT, RD_RTLOG_E_PROF, p->label, line,
            "ASCEND_PROF_SK_ON value '%.*s' is not an integer in 1..%u, yet the runtime "
            "reports capture on",
            (int)(core - val), val, RD_PROF_SK_ON_MAX_KB);
    if (next.core_size_kb != rd_prof_core_size_kb(next.value_kb))
        return sk_diag_set_sub(
            d, SK_E_FORMAT, RD_RTLOG_E_PROF, p->label, line,
            "coreSize=%llu KB does not match ASCEND_PROF_SK_ON=%llu rounded up to a multiple "
            "of %u KB (%u KB)",
            (unsigned long long)next.core_size_kb, (unsigned long long)next.value_kb,
            RD_PROF_CORE_ALIGN_KB, rd_prof_core_size_kb(next.value_kb));
    next.records_per_core = rd_prof_capacity_records(next.value_kb);
    if (p->log->prof.state != RD_PROF_UNKNOWN)
        return set_prof(p, &next, line, d);
    next.raw_value = sk_strndup(val, (size_t)(core - val));
    if (!next.raw_value)
        return nomem(p, d, line);
    return set_prof(p, &next, line, d);
}

static sk_err handle_prof(rt *p, const char *s, size_t n, uint64_t line, sk_diag *d, int *done)
{
    *done = 1;
    rd_rtlog_prof next;
    memset(&next, 0, sizeof next);
    if (find(s, n, BUFFER_FULL_TEXT)) {
        *done = 0;
        return SK_OK;
    }
    if (find(s, n, PROF_ON_KEY))
        return prof_on(p, s, n, line, d);
    if (find(s, n, PROF_OFF_TEXT)) {
        next.state = RD_PROF_OFF;
        return set_prof(p, &next, line, d);
    }
    if (find(s, n, PROF_INVALID_TEXT)) {
        next.state = RD_PROF_INVALID;
        return set_prof(p, &next, line, d);
    }
    *done = 0;
    return SK_OK;
}

/* ---- buffer full ---- */

static int bf_eq(const void *ctx, size_t pos, const void *key)
{
    const rd_rtlog_buffer_full *e = &((const rd_runtime_log *)ctx)->buffer_full[pos];
    const uint64_t *k = key;
    return e->device == k[0] && e->core == k[1];
}

static uint64_t bf_hash_of(uint64_t device, uint64_t core)
{
    return mix64(device << 32 ^ core);
}

static uint64_t bf_rehash(const void *ctx, size_t pos)
{
    const rd_rtlog_buffer_full *e = &((const rd_runtime_log *)ctx)->buffer_full[pos];
    return bf_hash_of(e->device, e->core);
}

/* "<word> <digits> core <digits>" at s, returning the end. */
static const char *device_core(const char *s, const char *end, uint64_t *dev, uint64_t *core)
{
    static const char dkey[] = "device ", ckey[] = " core ";
    if (!starts(s, (size_t)(end - s), dkey))
        return NULL;
    const char *a = s + strlen(dkey), *q = a;
    while (q < end && *q >= '0' && *q <= '9')
        q++;
    if (!digits(a, q, UINT32_MAX, dev) || !starts(q, (size_t)(end - q), ckey))
        return NULL;
    const char *b = q + strlen(ckey), *r = b;
    while (r < end && *r >= '0' && *r <= '9')
        r++;
    return digits(b, r, UINT32_MAX, core) ? r : NULL;
}

static sk_err buffer_full(rt *p, const char *s, size_t n, uint64_t line, sk_diag *d)
{
    const char *end = s + n;
    const char *q = s + strlen(PROF_TAG);
    while (q < end && *q == ' ')
        q++;
    uint64_t dev1, core1, dev2, core2;
    const char *r = device_core(q, end, &dev1, &core1);
    static const char mid[] = " buffer is full, stop dump the time of nodes on ";
    const char *t = r && starts(r, (size_t)(end - r), mid) ? r + strlen(mid) : NULL;
    const char *u = t ? device_core(t, end, &dev2, &core2) : NULL;
    if (!u || u != end)
        return sk_diag_set_sub(
            d, SK_E_FORMAT, RD_RTLOG_E_BUFFER_FULL, p->label, line,
            "malformed buffer-full line (expected '[sk time profiling]  device <d> core <c> "
            "buffer is full, stop dump the time of nodes on device <d> core <c>')");
    if (dev1 != dev2 || core1 != core2)
        return sk_diag_set_sub(
            d, SK_E_FORMAT, RD_RTLOG_E_BUFFER_FULL, p->label, line,
            "buffer-full line names device %llu core %llu, then device %llu core %llu",
            (unsigned long long)dev1, (unsigned long long)core1, (unsigned long long)dev2,
            (unsigned long long)core2);
    rd_runtime_log *log = p->log;
    uint64_t key[2] = {dev1, core1};
    uint64_t h = bf_hash_of(dev1, core1);
    if (p->bf_map.used * 2 >= p->bf_map.cap && !idmap_grow(&p->bf_map, bf_rehash, log))
        return nomem(p, d, line);
    size_t slot = 0;
    size_t pos = idmap_find(&p->bf_map, h, bf_eq, log, key, &slot);
    if (pos != SIZE_MAX) {
        log->buffer_full[pos].count++;
        return SK_OK;
    }
    if (log->n_buffer_full == RD_RTLOG_MAX_DISTINCT)
        return sk_diag_set(d, SK_E_LIMIT, p->label, line, "more than %u distinct buffer-full cores",
                           RD_RTLOG_MAX_DISTINCT);
    if (!reserve((void **)&log->buffer_full, &p->cap_bf, log->n_buffer_full,
                 sizeof *log->buffer_full))
        return nomem(p, d, line);
    rd_rtlog_buffer_full *e = &log->buffer_full[log->n_buffer_full];
    e->device = dev1;
    e->core = core1;
    e->first_line = line;
    e->count = 1;
    p->bf_map.slots[slot] = ++log->n_buffer_full;
    p->bf_map.used++;
    return SK_OK;
}

/* ---- options ---- */

static sk_err add_option(rt *p, const char *name, size_t name_len, int is_list, uint64_t index,
                         const char *value, size_t value_len, uint64_t line, sk_diag *d)
{
    rd_runtime_log *log = p->log;
    if (log->n_options == RD_RTLOG_MAX_OPTIONS)
        return sk_diag_set(d, SK_E_LIMIT, p->label, line, "more than %u option value lines",
                           RD_RTLOG_MAX_OPTIONS);
    if (!reserve((void **)&log->options, &p->cap_opt, log->n_options, sizeof *log->options))
        return nomem(p, d, line);
    rd_rtlog_option *o = &log->options[log->n_options];
    memset(o, 0, sizeof *o);
    o->name = sk_strndup(name, name_len);
    o->value = sk_strndup(value, value_len);
    if (!o->name || !o->value) {
        sk_free(o->name);
        sk_free(o->value);
        return nomem(p, d, line);
    }
    o->is_list = is_list;
    o->index = index;
    o->line = line;
    log->n_options++;
    return SK_OK;
}

static sk_err option_line(rt *p, const char *s, size_t n, uint64_t line, sk_diag *d)
{
    const char *end = s + n;
    const char *name = s + strlen(OPTION_KEY);
    const char *list = find(name, (size_t)(end - name), OPTION_LIST_MARK);
    const char *comma = find(name, (size_t)(end - name), ", ");
    if (list && list == comma) {
        const char *idx = list + strlen(OPTION_LIST_MARK), *q = idx;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
        uint64_t index;
        if (q == idx || !digits(idx, q, UINT32_MAX, &index) || !starts(q, (size_t)(end - q), "]: ") ||
            list == name)
            return sk_diag_set_sub(
                d, SK_E_FORMAT, RD_RTLOG_E_OPTION, p->label, line,
                "malformed option value line (expected 'OptionName:<name>, value[<i>]: "
                "<value>')");
        const char *value = q + 3;
        return add_option(p, name, (size_t)(list - name), 1, index, value, (size_t)(end - value),
                          line, d);
    }
    const char *set = find(name, (size_t)(end - name), OPTION_SET_MARK);
    if (set && set == comma) {
        const char *nm = name;
        while (nm < set && *nm == ' ')
            nm++;
        const char *value = set + strlen(OPTION_SET_MARK);
        uint64_t v;
        if (nm == set || !digits(value, end, UINT32_MAX, &v))
            return sk_diag_set_sub(
                d, SK_E_FORMAT, RD_RTLOG_E_OPTION, p->label, line,
                "malformed option line (expected 'OptionName: <name>, set value: <n>')");
        return add_option(p, nm, (size_t)(set - nm), 0, 0, value, (size_t)(end - value), line, d);
    }
    return SK_OK; /* warnings and map options: not needed */
}

/* ---- invalid DCCI patterns ---- */

typedef struct pat_key {
    rd_pattern_issue issue;
    const char *s;
    size_t n;
} pat_key;

static int pat_eq(const void *ctx, size_t pos, const void *key)
{
    const rd_rtlog_bad_pattern *e = &((const rd_runtime_log *)ctx)->bad_patterns[pos];
    const pat_key *k = key;
    return e->issue == k->issue && strlen(e->pattern) == k->n && memcmp(e->pattern, k->s, k->n) == 0;
}

static uint64_t pat_rehash(const void *ctx, size_t pos)
{
    const rd_rtlog_bad_pattern *e = &((const rd_runtime_log *)ctx)->bad_patterns[pos];
    return hash_bytes((uint64_t)e->issue, e->pattern, strlen(e->pattern));
}

static sk_err bad_pattern(rt *p, rd_pattern_issue issue, const char *pat, size_t n, uint64_t line,
                          sk_diag *d)
{
    if ((issue == RD_PATTERN_INVALID_CHARS && n == 0) ||
        (issue == RD_PATTERN_STARTS_WITH_STAR && (n == 0 || pat[0] != '*')))
        return sk_diag_set_sub(d, SK_E_FORMAT, RD_RTLOG_E_PATTERN, p->label, line,
                               "malformed invalid-pattern line: %s",
                               issue == RD_PATTERN_INVALID_CHARS
                                   ? "no pattern after the message"
                                   : "the quoted pattern does not start with '*'");
    rd_runtime_log *log = p->log;
    pat_key key = {issue, pat, n};
    uint64_t h = hash_bytes((uint64_t)issue, pat, n);
    if (p->pat_map.used * 2 >= p->pat_map.cap && !idmap_grow(&p->pat_map, pat_rehash, log))
        return nomem(p, d, line);
    size_t slot = 0;
    size_t pos = idmap_find(&p->pat_map, h, pat_eq, log, &key, &slot);
    if (pos != SIZE_MAX) {
        log->bad_patterns[pos].count++;
        return SK_OK;
    }
    if (log->n_bad_patterns == RD_RTLOG_MAX_DISTINCT)
        return sk_diag_set(d, SK_E_LIMIT, p->label, line, "more than %u distinct invalid patterns",
                           RD_RTLOG_MAX_DISTINCT);
    if (!reserve((void **)&log->bad_patterns, &p->cap_pat, log->n_bad_patterns,
                 sizeof *log->bad_patterns))
        return nomem(p, d, line);
    rd_rtlog_bad_pattern *e = &log->bad_patterns[log->n_bad_patterns];
    e->pattern = sk_strndup(pat, n);
    if (!e->pattern)
        return nomem(p, d, line);
    e->issue = issue;
    e->first_line = line;
    e->count = 1;
    p->pat_map.slots[slot] = ++log->n_bad_patterns;
    p->pat_map.used++;
    return SK_OK;
}

/* ---- node listings ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The reordered list must hold the same node ids as the SK block. */
static sk_err check_permutation(rt *p, const rd_rtlog_sk *sk, sk_diag *d)
{
    size_t n = sk->n_nodes;
    for (size_t i = 0; i < n; i++)
        if (sk->nodes[i].kind == RD_NODE_NULL || sk->reordered[i].kind == RD_NODE_NULL)
            return SK_OK; /* nullptr entries carry no id to compare */
    uint64_t *a = sk_malloc((n ? n : 1) * 2 * sizeof *a);
    if (!a)
        return nomem(p, d, sk->reordered_line);
    for (size_t i = 0; i < n; i++) {
        a[i] = sk->nodes[i].node_id;
        a[n + i] = sk->reordered[i].node_id;
    }
    qsort(a, n, sizeof *a, cmp_u64);
    qsort(a + n, n, sizeof *a, cmp_u64);
    int same = memcmp(a, a + n, n * sizeof *a) == 0;
    sk_free(a);
    if (!same)
        return sk_diag_set_sub(
            d, SK_E_FORMAT, RD_RTLOG_E_LISTING, p->label, sk->reordered_line,
            "reordered task nodes are not a permutation of the nodes of SK '%s' (line %llu)",
            sk->name, (unsigned long long)sk->line);
    return SK_OK;
}

static sk_err open_incomplete(rt *p, uint64_t line, sk_diag *d)
{
    size_t got = p->open == L_SK_BLOCK ? p->target->n_nodes : p->target->n_reordered;
    return sk_diag_set_sub(d, SK_E_FORMAT, RD_RTLOG_E_LISTING, p->label, line,
                           "%s listing at line %llu ended after %zu of %llu node lines",
                           p->open == L_SK_BLOCK ? "SK Function" : "reordered task nodes",
                           (unsigned long long)p->open_line, got, (unsigned long long)p->expect);
}

static sk_err start_listing(rt *p, enum listing kind, rd_rtlog_sk *sk, uint64_t count,
                            uint64_t line, sk_diag *d)
{
    if (count > RD_RTLOG_MAX_NODES - p->total_nodes)
        return sk_diag_set(d, SK_E_LIMIT, p->label, line, "more than %u listed nodes",
                           RD_RTLOG_MAX_NODES);
    rd_sknode *nodes = sk_calloc(count ? count : 1, sizeof *nodes);
    if (!nodes)
        return nomem(p, d, line);
    if (kind == L_SK_BLOCK)
        sk->nodes = nodes;
    else
        sk->reordered = nodes;
    p->total_nodes += count;
    p->open = kind;
    p->target = sk;
    p->expect = count;
    p->open_line = line;
    if (count == 0)
        p->open = L_NONE;
    return SK_OK;
}

static sk_err sk_header(rt *p, const char *s, size_t n, uint64_t line, sk_diag *d)
{
    rd_runtime_log *log = p->log;
    char *name = NULL;
    uint64_t scope_id, count;
    sk_err e = rd_fused_parse_header(s, n, &name, &scope_id, &count, d);
    if (e != SK_OK) {
        sk_diag_set_file(d, p->label);
        if (d)
            d->line = line;
        return e;
    }
    if (log->n_sks == RD_RTLOG_MAX_SKS || !reserve((void **)&log->sks, &p->cap_sk, log->n_sks,
                                                   sizeof *log->sks)) {
        sk_free(name);
        return log->n_sks == RD_RTLOG_MAX_SKS
                   ? sk_diag_set(d, SK_E_LIMIT, p->label, line, "more than %u SK blocks",
                                 RD_RTLOG_MAX_SKS)
                   : nomem(p, d, line);
    }
    rd_rtlog_sk *sk = &log->sks[log->n_sks++];
    memset(sk, 0, sizeof *sk);
    sk->name = name;
    sk->scope_id = scope_id;
    sk->line = line;
    sk->reorder_disabled = p->pending_disabled;
    sk->has_move_count = p->pending_has_move;
    sk->move_count = p->pending_move;
    p->pending_disabled = p->pending_has_move = 0;
    p->pending_move = 0;
    return start_listing(p, L_SK_BLOCK, sk, count, line, d);
}

static sk_err check_duplicates(rt *p, sk_diag *d)
{
    rd_runtime_log *log = p->log;
    if (log->n_sks < 2)
        return SK_OK;
    rd_scope_line *v = sk_malloc(log->n_sks * sizeof *v);
    if (!v)
        return nomem(p, d, 0);
    for (size_t i = 0; i < log->n_sks; i++)
        v[i] = (rd_scope_line){log->sks[i].scope_id, log->sks[i].line};
    size_t i = rd_scope_first_repeat(v, log->n_sks);
    sk_err e = i == log->n_sks
                   ? SK_OK
                   : sk_diag_set_sub(d, SK_E_FORMAT, RD_RTLOG_E_DUPLICATE, p->label, v[i].line,
                                     "duplicate SK Function block for scope id %llu (first at "
                                     "line %llu)",
                                     (unsigned long long)v[i].scope_id,
                                     (unsigned long long)v[i - 1].line);
    sk_free(v);
    return e;
}

static sk_err reorder_header(rt *p, const char *s, size_t n, uint64_t line, sk_diag *d)
{
    const char *v = s + strlen(REORDER_LIST_TEXT);
    uint64_t count;
    if (!digits(v, s + n, UINT32_MAX, &count))
        return sk_diag_set_sub(d, SK_E_FORMAT, RD_RTLOG_E_LISTING, p->label, line,
                               "malformed 'reordered task nodes: node count=<n>' line");
    rd_runtime_log *log = p->log;
    rd_rtlog_sk *sk = log->n_sks ? &log->sks[log->n_sks - 1] : NULL;
    if (!sk || sk->has_reordered)
        return sk_diag_set_sub(
            d, SK_E_FORMAT, RD_RTLOG_E_ORPHAN, p->label, line,
            "reordered task nodes listing without a preceding SK Function block%s",
            sk ? " (the last block already has one)" : "");
    if (count != sk->n_nodes)
        return sk_diag_set_sub(
            d, SK_E_FORMAT, RD_RTLOG_E_LISTING, p->label, line,
            "reordered task nodes count %llu differs from Node Count %zu of SK '%s' (line "
            "%llu)",
            (unsigned long long)count, sk->n_nodes, sk->name, (unsigned long long)sk->line);
    sk->has_reordered = 1;
    sk->reordered_line = line;
    sk_err e = start_listing(p, L_REORDER, sk, count, line, d);
    if (e == SK_OK && count == 0)
        e = check_permutation(p, sk, d);
    return e;
}

static sk_err listing_node(rt *p, const char *s, size_t n, uint64_t line, sk_diag *d)
{
    rd_rtlog_sk *sk = p->target;
    size_t *have = p->open == L_SK_BLOCK ? &sk->n_nodes : &sk->n_reordered;
    rd_sknode *dest = p->open == L_SK_BLOCK ? sk->nodes : sk->reordered;
    rd_sknode node;
    sk_err e = rd_sknode_read_line(s, n,
                                   p->open == L_SK_BLOCK ? "an SK Function block cannot contain "
                                                           "nullptr"
                                                         : NULL,
                                   p->label, line, &node, d);
    if (e != SK_OK)
        return e;
    if (!node.has_index || node.index != *have) {
        rd_sknode_clear(&node);
        return sk_diag_set_sub(d, SK_E_FORMAT, RD_RTLOG_E_LISTING, p->label, line,
                               "expected node line [%zu] of the listing at line %llu", *have,
                               (unsigned long long)p->open_line);
    }
    node.line = line;
    dest[(*have)++] = node;
    if (*have < p->expect)
        return SK_OK;
    enum listing closed = p->open;
    p->open = L_NONE;
    return closed == L_REORDER ? check_permutation(p, sk, d) : SK_OK;
}

static sk_err reorder_done(rt *p, const char *s, size_t n, uint64_t line, sk_diag *d)
{
    const char *v = s + strlen(REORDER_DONE_TEXT);
    const char *moves = find(v, (size_t)(s + n - v), REORDER_MOVES_MARK);
    uint64_t original, moved;
    if (!moves || !digits(v, moves, UINT64_MAX, &original) ||
        !digits(moves + strlen(REORDER_MOVES_MARK), s + n, UINT64_MAX, &moved))
        return sk_diag_set_sub(
            d, SK_E_FORMAT, RD_RTLOG_E_REORDER, p->label, line,
            "malformed 'task reorder finished: originalCount=<n>, moveCount=<m>' line");
    p->pending_has_move = 1;
    p->pending_move = moved;
    return SK_OK;
}

static sk_err handle_line(void *ctx, char *text, size_t len, uint64_t line, sk_diag *d)
{
    rt *p = ctx;
    rd_logline ll;
    rd_logline_split(text, &len, &ll);
    const char *s = ll.payload;
    size_t n = ll.payload_len;
    if (n == 0)
        return SK_OK;
    if (p->open != L_NONE) {
        if (n > 1 && s[0] == '[' && s[1] >= '0' && s[1] <= '9')
            return listing_node(p, s, n, line, d);
        if (rd_logline_is_format_error(&ll))
            return sk_diag_set_sub(
                d, SK_E_FORMAT, RD_RTLOG_E_LISTING, p->label, line,
                "the runtime logger dropped a message inside the listing at line %llu "
                "([FORMAT_ERROR])",
                (unsigned long long)p->open_line);
        if (rd_fused_is_header(s, n) || starts(s, n, REORDER_LIST_TEXT))
            return open_incomplete(p, line, d);
    }
    if (rd_fused_is_header(s, n))
        return sk_header(p, s, n, line, d);
    if (starts(s, n, REORDER_LIST_TEXT))
        return reorder_header(p, s, n, line, d);
    if (starts(s, n, PROF_TAG)) {
        int done = 0;
        sk_err e = handle_prof(p, s, n, line, d, &done);
        if (e != SK_OK || done)
            return e;
        if (find(s, n, BUFFER_FULL_TEXT))
            return buffer_full(p, s, n, line, d);
        return SK_OK;
    }
    if (starts(s, n, OPTION_KEY))
        return option_line(p, s, n, line, d);
    /* The message ends with ": <pattern>"; the payload's trailing blanks are
     * trimmed, so an empty pattern leaves just ":". */
    if (starts(s, n, PATTERN_CHARS_TEXT) || starts(s, n, PATTERN_STAR_TEXT)) {
        rd_pattern_issue issue = starts(s, n, PATTERN_CHARS_TEXT) ? RD_PATTERN_INVALID_CHARS
                                                                  : RD_PATTERN_STARTS_WITH_STAR;
        size_t skip = strlen(issue == RD_PATTERN_INVALID_CHARS ? PATTERN_CHARS_TEXT
                                                               : PATTERN_STAR_TEXT);
        if (skip < n && s[skip] == ' ')
            skip++;
        else if (skip < n)
            return SK_OK; /* some other message that starts alike */
        return bad_pattern(p, issue, s + skip, n - skip, line, d);
    }
    if (n == strlen(PATTERN_EMPTY_TEXT) && starts(s, n, PATTERN_EMPTY_TEXT))
        return bad_pattern(p, RD_PATTERN_EMPTY, "", 0, line, d);
    if (starts(s, n, REORDER_OFF_TEXT)) {
        p->pending_disabled = 1;
        return SK_OK;
    }
    if (starts(s, n, REORDER_DONE_TEXT))
        return reorder_done(p, s, n, line, d);
    return SK_OK;
}

sk_err rd_runtime_log_parse(sk_read_fn read, void *ctx, const char *label, size_t max_line,
                            rd_runtime_log **out, sk_diag *d)
{
    sk_err e = SK_OK;
    rd_lines *lr = NULL;
    rt p;
    memset(&p, 0, sizeof p);
    *out = NULL;
    p.label = label ? label : "";
    p.log = sk_calloc(1, sizeof *p.log);
    if (!p.log) {
        e = sk_diag_set(d, SK_E_NOMEM, p.label, 0, "out of memory reading the runtime log");
        goto out;
    }
    e = rd_lines_new(read, ctx, p.label, max_line ? max_line : RD_RTLOG_DEFAULT_MAX_LINE, &lr, d);
    if (e == SK_OK)
        e = rd_lines_each(lr, handle_line, &p, d);
    if (e == SK_OK && p.open != L_NONE)
        e = open_incomplete(&p, rd_lines_count(lr), d);
    if (e == SK_OK)
        e = check_duplicates(&p, d);
    if (e == SK_OK) {
        p.log->lines = rd_lines_count(lr);
        *out = p.log;
        p.log = NULL;
    }
out:
    sk_free(p.bf_map.slots);
    sk_free(p.pat_map.slots);
    rd_lines_free(lr);
    rd_runtime_log_free(p.log);
    return e;
}

const rd_rtlog_sk *rd_runtime_log_find_sk(const rd_runtime_log *log, uint64_t scope_id)
{
    for (size_t i = 0; i < log->n_sks; i++)
        if (log->sks[i].scope_id == scope_id)
            return &log->sks[i];
    return NULL;
}

static void free_nodes(rd_sknode *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        rd_sknode_clear(&nodes[i]);
    sk_free(nodes);
}

void rd_runtime_log_free(rd_runtime_log *log)
{
    if (!log)
        return;
    sk_free(log->prof.raw_value);
    sk_free(log->buffer_full);
    for (size_t i = 0; i < log->n_options; i++) {
        sk_free(log->options[i].name);
        sk_free(log->options[i].value);
    }
    sk_free(log->options);
    for (size_t i = 0; i < log->n_bad_patterns; i++)
        sk_free(log->bad_patterns[i].pattern);
    sk_free(log->bad_patterns);
    for (size_t i = 0; i < log->n_sks; i++) {
        free_nodes(log->sks[i].nodes, log->sks[i].n_nodes);
        free_nodes(log->sks[i].reordered, log->sks[i].n_reordered);
        sk_free(log->sks[i].name);
    }
    sk_free(log->sks);
    sk_free(log);
}

const char *rd_prof_state_name(rd_prof_state s)
{
    switch (s) {
    case RD_PROF_UNKNOWN:
        return "unknown";
    case RD_PROF_ON:
        return "on";
    case RD_PROF_OFF:
        return "off";
    case RD_PROF_INVALID:
        return "invalid";
    }
    return "?";
}

const char *rd_pattern_issue_name(rd_pattern_issue i)
{
    switch (i) {
    case RD_PATTERN_INVALID_CHARS:
        return "invalid characters";
    case RD_PATTERN_STARTS_WITH_STAR:
        return "starts with '*'";
    case RD_PATTERN_EMPTY:
        return "empty after trim";
    }
    return "?";
}
