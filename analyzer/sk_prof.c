#include "sk_prof.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../artifact_contract/sk_alloc.h"
#include "../artifact_contract/sk_buf.h"
#include "../artifact_contract/sk_json_lex.h"
#include "sk_fixed.h"

/* µs text → ns: three decimal places; the runtime prints six (ticks divided
 * by the tick rate), so digits below 1 ns are float-formatting noise. */
#define TS_SCALE 3

/* ts and dur are parsed as soon as they are read; their text is kept only
 * when deliver() needs it for a message (an invalid or negative value). */
typedef struct time_field {
    sk_fixed_result v;
    int bad;   /* sk_fixed_parse failed: text holds the value, parsed again by deliver() */
    sk_buf text; /* the value as written, when bad or negative */
} time_field;

typedef struct event_fields {
    sk_buf name, pid, model, ktype;
    time_field ts, dur;
    int ph_is_x; /* ph is "X" (strings never hold a NUL, so this is strcmp's answer) */
    int has_name, has_ph, has_ts, has_dur, has_pid, has_tid;
    int64_t tid;
    int has_sk, has_node;
    int64_t sk, node;
} event_fields;

typedef struct reader {
    sk_json_lex *lx;
    const char *path;
    sk_prof_event_fn fn;
    void *ctx;
    sk_prof_summary sum;
    event_fields f;
} reader;

static int key_is(const sk_jtok *t, const char *k)
{
    size_t n = strlen(k);
    return t->len == n && memcmp(t->text, k, n) == 0;
}

/* The event keys the reader looks at, told apart by length and bytes
 * instead of trying each name in turn. */
enum event_key { EK_OTHER, EK_NAME, EK_PH, EK_TS, EK_DUR, EK_PID, EK_TID, EK_ARGS };

static enum event_key event_key(const sk_jtok *t)
{
    const char *k = t->text;
    switch (t->len) {
    case 2:
        if (k[0] == 'p' && k[1] == 'h')
            return EK_PH;
        if (k[0] == 't' && k[1] == 's')
            return EK_TS;
        break;
    case 3:
        if (memcmp(k, "dur", 3) == 0)
            return EK_DUR;
        if (memcmp(k, "pid", 3) == 0)
            return EK_PID;
        if (memcmp(k, "tid", 3) == 0)
            return EK_TID;
        break;
    case 4:
        if (memcmp(k, "name", 4) == 0)
            return EK_NAME;
        if (memcmp(k, "args", 4) == 0)
            return EK_ARGS;
        break;
    default:
        break;
    }
    return EK_OTHER;
}

static sk_err at_event(reader *r, sk_diag *d, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static sk_err at_event(reader *r, sk_diag *d, uint64_t line, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sk_diag_set(d, SK_E_FORMAT, r->path, line, "sk_prof event %llu: %s",
                       (unsigned long long)r->sum.elements, what);
}

static sk_err copy_text(sk_buf *b, const sk_jtok *t, sk_diag *d, const char *path)
{
    sk_buf_reset(b);
    if (sk_buf_append(b, t->text, t->len))
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory reading sk_prof");
    return SK_OK;
}

/* Digits below which sk_parse_uint(..., INT64_MAX, ...) cannot fail. */
#define SAFE_INT_DIGITS 18u

static sk_err int_value(reader *r, const sk_jtok *t, const char *field, int64_t *out, sk_diag *d)
{
    if (t->type != SK_JT_NUMBER || !t->is_integer)
        return at_event(r, d, t->line, "%s must be an integer", field);
    uint64_t v = 0;
    int missing = 0;
    int neg = t->text[0] == '-';
    if (t->len - (size_t)neg <= SAFE_INT_DIGITS) {
        /* An integer token is -?[0-9]+ (the lexer's grammar); up to 18 digits
         * are below INT64_MAX, where sk_parse_uint gives the same value. */
        for (size_t i = (size_t)neg; i < t->len; i++)
            v = v * 10 + (unsigned)(t->text[i] - '0');
        *out = neg ? -(int64_t)v : (int64_t)v;
        return SK_OK;
    }
    if (sk_parse_uint(t->text + neg, t->len - (size_t)neg, INT64_MAX, &v, &missing, d))
        return at_event(r, d, t->line, "%s is out of range: %s", field, t->text);
    *out = neg ? -(int64_t)v : (int64_t)v;
    return SK_OK;
}

/* A string or a number, kept as text (ts/dur may be written either way). */
static sk_err scalar_text(reader *r, const sk_jtok *t, const char *field, sk_buf *b, sk_diag *d)
{
    if (t->type != SK_JT_STRING && t->type != SK_JT_NUMBER)
        return at_event(r, d, t->line, "%s must be a number or a string", field);
    return copy_text(b, t, d, r->path);
}

/* ts or dur: checked like scalar_text, parsed at once (errors wait for
 * deliver(), which reports them in the order it always did). */
static sk_err time_value(reader *r, const sk_jtok *t, const char *field, time_field *tf, sk_diag *d)
{
    if (t->type != SK_JT_STRING && t->type != SK_JT_NUMBER)
        return at_event(r, d, t->line, "%s must be a number or a string", field);
    tf->bad = sk_fixed_parse(t->text, t->len, TS_SCALE, SK_FIXED_ROUND_HALF_EVEN, &tf->v, NULL) !=
              SK_OK;
    if (tf->bad || tf->v.value < 0)
        return copy_text(&tf->text, t, d, r->path);
    return SK_OK;
}

static sk_err read_args(reader *r, sk_diag *d)
{
    event_fields *f = &r->f;
    sk_jtok t;
    sk_err e;
    for (;;) {
        e = sk_json_lex_next(r->lx, &t, d);
        if (e)
            return e;
        if (t.type == SK_JT_OBJ_END)
            return SK_OK;
        if (key_is(&t, "modelId") || key_is(&t, "modelRI")) {
            int is_ri = key_is(&t, "modelRI");
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e)
                e = scalar_text(r, &t, is_ri ? "args.modelRI" : "args.modelId", &f->model, d);
        } else if (key_is(&t, "skId")) {
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e)
                e = int_value(r, &t, "args.skId", &f->sk, d);
            f->has_sk = 1;
        } else if (key_is(&t, "nodeId")) {
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e)
                e = int_value(r, &t, "args.nodeId", &f->node, d);
            f->has_node = 1;
        } else if (key_is(&t, "kernelType")) {
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e && t.type != SK_JT_STRING)
                e = at_event(r, d, t.line, "args.kernelType must be a string");
            if (!e)
                e = copy_text(&f->ktype, &t, d, r->path);
        } else {
            e = sk_json_lex_skip_value(r->lx, d);
        }
        if (e)
            return e;
    }
}

static sk_err parse_time(reader *r, const sk_buf *text, const char *field, uint64_t line,
                         int64_t *ns, int *rounded, sk_diag *d)
{
    sk_fixed_result v;
    if (sk_fixed_parse(text->data, text->len, TS_SCALE, SK_FIXED_ROUND_HALF_EVEN, &v, d))
        return at_event(r, d, line, "%s is not a decimal number of microseconds: %s", field,
                        sk_buf_cstr(text));
    if (v.missing)
        return at_event(r, d, line, "%s is missing", field);
    *ns = v.value;
    *rounded |= v.rounded;
    return SK_OK;
}

/* parse_time on a value time_value has read. */
static sk_err time_result(reader *r, const time_field *tf, const char *field, uint64_t line,
                          int64_t *ns, int *rounded, sk_diag *d)
{
    if (tf->bad)
        return parse_time(r, &tf->text, field, line, ns, rounded, d);
    if (tf->v.missing)
        return at_event(r, d, line, "%s is missing", field);
    *ns = tf->v.value;
    *rounded |= tf->v.rounded;
    return SK_OK;
}

int sk_prof_parse_block_prefix(const char *name, size_t len, unsigned *idx, unsigned *num)
{
    if (len == 0 || name[0] != '[')
        return 0;
    size_t i = 1;
    unsigned a = 0, b = 0;
    size_t digits = 0;
    while (i < len && name[i] >= '0' && name[i] <= '9' && digits < 4) {
        a = a * 10 + (unsigned)(name[i++] - '0');
        digits++;
    }
    if (!digits || i >= len || name[i] != '/')
        return -1;
    i++;
    digits = 0;
    while (i < len && name[i] >= '0' && name[i] <= '9' && digits < 4) {
        b = b * 10 + (unsigned)(name[i++] - '0');
        digits++;
    }
    if (!digits || i >= len || name[i] != ']')
        return -1;
    /* blockIdx and blockNum are uint8 in the runtime's record */
    if (b == 0 || b > 255 || a >= b)
        return -1;
    *idx = a;
    *num = b;
    return (int)(i + 1);
}

static sk_err deliver(reader *r, uint64_t line, uint64_t offset, sk_diag *d)
{
    event_fields *f = &r->f;
    if (!f->has_ts) {
        r->sum.skipped_no_ts++;
        return SK_OK;
    }
    if (f->has_ph && !f->ph_is_x) {
        r->sum.skipped_phase++;
        return SK_OK;
    }
    if (!f->has_name)
        return at_event(r, d, line, "name is missing");
    if (!f->has_dur)
        return at_event(r, d, line, "dur is missing");
    sk_prof_event ev;
    memset(&ev, 0, sizeof ev);
    sk_err e = time_result(r, &f->ts, "ts", line, &ev.ts_ns, &ev.rounded, d);
    if (!e)
        e = time_result(r, &f->dur, "dur", line, &ev.dur_ns, &ev.rounded, d);
    if (e)
        return e;
    if (ev.dur_ns < 0)
        return at_event(r, d, line, "dur is negative: %s", sk_buf_cstr(&f->dur.text));
    if (ev.dur_ns == 0) {
        r->sum.zero_duration++;
        return SK_OK;
    }
    if (ev.ts_ns > INT64_MAX - ev.dur_ns)
        return at_event(r, d, line, "ts + dur overflows");
    const char *name = sk_buf_cstr(&f->name);
    int pre = sk_prof_parse_block_prefix(name, f->name.len, &ev.block_idx, &ev.block_num);
    if (pre < 0)
        return at_event(r, d, line, "malformed [blockIdx/blockNum] prefix in name \"%.80s\"",
                        name);
    if (pre > 0) {
        ev.has_block = 1;
        if ((size_t)pre < f->name.len && name[pre] == ' ') {
            ev.is_parent = 1;
            pre++;
        }
    }
    ev.name = name + pre;
    ev.name_len = f->name.len - (size_t)pre;
    if (ev.name_len == 0)
        return at_event(r, d, line, "name is empty");
    ev.pid = sk_buf_cstr(&f->pid);
    ev.kernel_type = sk_buf_cstr(&f->ktype);
    /* The pid names the lane; only when it names neither does the kernel
     * type decide. */
    /* texts never hold a NUL: length and bytes are strcmp's answer */
    int pid_aic = f->pid.len == 3 && memcmp(ev.pid, "AIC", 3) == 0;
    int pid_aiv = f->pid.len == 3 && memcmp(ev.pid, "AIV", 3) == 0;
    int pid_names_lane = pid_aic || pid_aiv;
    if (pid_aic || (!pid_names_lane && strcmp(ev.kernel_type, "AIC_ONLY") == 0))
        ev.lane = SK_LANE_AIC;
    else if (pid_aiv || (!pid_names_lane && strcmp(ev.kernel_type, "AIV_ONLY") == 0))
        ev.lane = SK_LANE_AIV;
    ev.has_core = f->has_tid;
    ev.core = f->tid;
    ev.model_id = sk_buf_cstr(&f->model);
    ev.has_sk_id = f->has_sk;
    ev.sk_id = f->sk;
    ev.has_node_id = f->has_node;
    ev.node_id = f->node;
    ev.index = r->sum.events;
    ev.line = line;
    ev.offset = offset;
    r->sum.events++;
    if (ev.is_parent)
        r->sum.parents++;
    if (ev.rounded)
        r->sum.rounded++;
    return r->fn(r->ctx, &ev, d);
}

static void fields_reset(event_fields *f)
{
    sk_buf_reset(&f->name);
    sk_buf_reset(&f->pid);
    sk_buf_reset(&f->model);
    sk_buf_reset(&f->ktype);
    f->has_name = f->has_ph = f->has_ts = f->has_dur = f->has_pid = f->has_tid = 0;
    f->has_sk = f->has_node = 0;
    f->tid = f->sk = f->node = 0;
}

static void fields_free(event_fields *f)
{
    sk_buf_free(&f->name);
    sk_buf_free(&f->ts.text);
    sk_buf_free(&f->dur.text);
    sk_buf_free(&f->pid);
    sk_buf_free(&f->model);
    sk_buf_free(&f->ktype);
}

/* The opening brace of the event was just read. */
static sk_err read_event(reader *r, const sk_jtok *open, sk_diag *d)
{
    event_fields *f = &r->f;
    sk_jtok t;
    sk_err e;
    fields_reset(f);
    for (;;) {
        e = sk_json_lex_next(r->lx, &t, d);
        if (e)
            return e;
        if (t.type == SK_JT_OBJ_END)
            break;
        /* t is a key */
        enum event_key key = event_key(&t);
        if (key == EK_NAME) {
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e && t.type != SK_JT_STRING)
                e = at_event(r, d, t.line, "name must be a string");
            if (!e)
                e = copy_text(&f->name, &t, d, r->path);
            f->has_name = 1;
        } else if (key == EK_PH) {
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e && t.type != SK_JT_STRING)
                e = at_event(r, d, t.line, "ph must be a string");
            if (!e)
                f->ph_is_x = t.len == 1 && t.text[0] == 'X';
            f->has_ph = 1;
        } else if (key == EK_TS) {
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e)
                e = time_value(r, &t, "ts", &f->ts, d);
            f->has_ts = 1;
        } else if (key == EK_DUR) {
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e)
                e = time_value(r, &t, "dur", &f->dur, d);
            f->has_dur = 1;
        } else if (key == EK_PID) {
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e)
                e = scalar_text(r, &t, "pid", &f->pid, d);
            f->has_pid = 1;
        } else if (key == EK_TID) {
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e)
                e = int_value(r, &t, "tid", &f->tid, d);
            if (!e && f->tid < 0)
                e = at_event(r, d, t.line, "tid must not be negative");
            f->has_tid = 1;
        } else if (key == EK_ARGS) {
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e && t.type != SK_JT_OBJ_BEGIN)
                e = at_event(r, d, t.line, "args must be an object");
            if (!e)
                e = read_args(r, d);
        } else {
            e = sk_json_lex_skip_value(r->lx, d);
        }
        if (e)
            return e;
    }
    return deliver(r, open->line, open->offset, d);
}

static sk_err read_event_array(reader *r, sk_diag *d)
{
    sk_jtok t;
    for (;;) {
        sk_err e = sk_json_lex_next(r->lx, &t, d);
        if (e)
            return e;
        if (t.type == SK_JT_ARR_END)
            return SK_OK;
        if (t.type != SK_JT_OBJ_BEGIN)
            return sk_diag_set(d, SK_E_FORMAT, r->path, t.line,
                               "sk_prof element %llu is not an object",
                               (unsigned long long)r->sum.elements);
        e = read_event(r, &t, d);
        r->sum.elements++;
        if (e)
            return e;
    }
}

sk_err sk_prof_read(sk_read_fn read, void *rctx, const char *path, sk_prof_event_fn fn, void *ctx,
                    sk_prof_summary *sum, sk_diag *d)
{
    reader r;
    memset(&r, 0, sizeof r);
    r.path = path ? path : "sk_prof";
    r.fn = fn;
    r.ctx = ctx;
    sk_json_lex_opts o = {.label = "sk_prof", .path = r.path};
    sk_jtok t;
    int found = 0;
    sk_err e = sk_json_lex_new(read, rctx, &o, &r.lx);
    if (e) {
        e = sk_diag_set(d, SK_E_NOMEM, r.path, 0, "out of memory reading sk_prof");
        goto out;
    }
    e = sk_json_lex_next(r.lx, &t, d);
    if (e)
        goto out;
    if (t.type == SK_JT_ARR_BEGIN) {
        r.sum.shape = SK_PROF_SHAPE_ARRAY;
        e = read_event_array(&r, d);
    } else if (t.type == SK_JT_OBJ_BEGIN) {
        r.sum.shape = SK_PROF_SHAPE_TRACE_EVENTS;
        for (;;) {
            e = sk_json_lex_next(r.lx, &t, d);
            if (e || t.type == SK_JT_OBJ_END)
                break;
            if (key_is(&t, "traceEvents")) {
                e = sk_json_lex_next(r.lx, &t, d);
                if (!e && t.type != SK_JT_ARR_BEGIN)
                    e = sk_diag_set(d, SK_E_FORMAT, r.path, t.line,
                                    "sk_prof traceEvents must be an array");
                if (!e)
                    e = read_event_array(&r, d);
                found = 1;
            } else {
                e = sk_json_lex_skip_value(r.lx, d);
            }
            if (e)
                break;
        }
        if (!e && !found)
            e = sk_diag_set(d, SK_E_FORMAT, r.path, t.line,
                            "sk_prof object has no traceEvents array");
    } else {
        e = sk_diag_set(d, SK_E_FORMAT, r.path, t.line,
                        "sk_prof trace must be a JSON array of events or an object with "
                        "traceEvents");
    }
    if (!e)
        e = sk_json_lex_next(r.lx, &t, d); /* trailing data is an error */
out:
    if (r.lx)
        r.sum.bytes = sk_json_lex_offset(r.lx);
    if (sum)
        *sum = r.sum;
    fields_free(&r.f);
    sk_json_lex_free(r.lx);
    return e;
}
