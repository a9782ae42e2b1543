#include "analyzer/readers/rd_prof.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json_lex.h"
#include "artifact_contract/base/sk_testhook.h"
#include "artifact_contract/base/sk_fixed.h"

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

/* A text of the event, NUL-terminated (p[len] == '\0'): the general path's
 * copy of a token in own, or the bytes of a record the fast path took, in
 * the tokenizer's buffer. */
typedef struct text_field {
    const char *p;
    size_t len;
    int borrowed; /* p is a token's text in a record not yet taken */
    sk_buf own;
} text_field;

typedef struct event_fields {
    text_field name, pid, model, ktype;
    time_field ts, dur;
    int ph_is_x; /* ph is "X" (strings never hold a NUL, so this is strcmp's answer) */
    int has_name, has_ph, has_ts, has_dur, has_pid, has_tid;
    int64_t tid;
    int has_sk, has_node;
    int64_t sk, node;
    rd_prof_model_key model_key;
} event_fields;

typedef struct reader {
    sk_json_lex *lx;
    const char *path;
    rd_prof_event_fn fn;
    void *ctx;
    rd_prof_summary sum;
    event_fields f;
    int fast;   /* try read_event_fast before the general path */
    int layout; /* and in it, layout_record before fast_object */
    int borrow; /* the fast path is reading a record: texts are borrowed */
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

static sk_err copy_bytes(sk_buf *b, const char *text, size_t len, sk_diag *d, const char *path)
{
    sk_buf_reset(b);
    if (sk_buf_append(b, text, len))
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory reading sk_prof");
    return SK_OK;
}

/* A text field from token t.  The fast paths only note where the text is
 * (borrow), and terminate or copy it once the record is taken (settle). */
static sk_err copy_text(text_field *f, const sk_jtok *t, int borrow, sk_diag *d, const char *path)
{
    f->len = t->len;
    f->borrowed = borrow;
    if (borrow) {
        f->p = t->text;
        return SK_OK;
    }
    sk_err e = copy_bytes(&f->own, t->text, t->len, d, path);
    f->p = sk_buf_cstr(&f->own);
    return e;
}

static sk_err int_value(reader *r, const sk_jtok *t, const char *field, int64_t *out, sk_diag *d)
{
    if (t->type != SK_JT_NUMBER || !t->is_integer)
        return at_event(r, d, t->line, "%s must be an integer", field);
    /* an integer token is -?[0-9]+ (the lexer's grammar) */
    if (sk_parse_i64_strict(t->text, t->len, out, d))
        return at_event(r, d, t->line, "%s is out of range: %s", field, t->text);
    return SK_OK;
}

/* A string or a number, kept as text (ts/dur may be written either way). */
static sk_err scalar_text(reader *r, const sk_jtok *t, const char *field, text_field *f, sk_diag *d)
{
    if (t->type != SK_JT_STRING && t->type != SK_JT_NUMBER)
        return at_event(r, d, t->line, "%s must be a number or a string", field);
    return copy_text(f, t, r->borrow, d, r->path);
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
        return copy_bytes(&tf->text, t->text, t->len, d, r->path);
    return SK_OK;
}

/* The args keys the reader looks at. */
enum arg_key { AK_OTHER, AK_MODEL_ID, AK_MODEL_RI, AK_SK, AK_NODE, AK_KTYPE };

static enum arg_key arg_key(const sk_jtok *t)
{
    if (key_is(t, "modelId"))
        return AK_MODEL_ID;
    if (key_is(t, "modelRI"))
        return AK_MODEL_RI;
    if (key_is(t, "skId"))
        return AK_SK;
    if (key_is(t, "nodeId"))
        return AK_NODE;
    if (key_is(t, "kernelType"))
        return AK_KTYPE;
    return AK_OTHER;
}

/* The value t of a known args key (both paths). */
static sk_err on_arg(reader *r, enum arg_key key, const sk_jtok *t, sk_diag *d)
{
    event_fields *f = &r->f;
    switch (key) {
    case AK_MODEL_ID:
    case AK_MODEL_RI:
        if (f->model_key != RD_PROF_MODEL_NONE)
            return at_event(r, d, t->line, "args names the model twice (modelId and modelRI)");
        if (key == AK_MODEL_ID) {
            f->model_key = RD_PROF_MODEL_ID;
            return scalar_text(r, t, "args.modelId", &f->model, d);
        }
        /* an integer token is -?[0-9]+ (the lexer's grammar) */
        if (t->type != SK_JT_NUMBER || !t->is_integer || t->text[0] == '-')
            return at_event(r, d, t->line, "args.modelRI must be a non-negative integer");
        f->model_key = RD_PROF_MODEL_RI;
        return copy_text(&f->model, t, r->borrow, d, r->path);
    case AK_SK:
        f->has_sk = 1;
        return int_value(r, t, "args.skId", &f->sk, d);
    case AK_NODE:
        f->has_node = 1;
        return int_value(r, t, "args.nodeId", &f->node, d);
    case AK_KTYPE:
        if (t->type != SK_JT_STRING)
            return at_event(r, d, t->line, "args.kernelType must be a string");
        return copy_text(&f->ktype, t, r->borrow, d, r->path);
    case AK_OTHER:
        break;
    }
    return SK_OK;
}

static sk_err read_args(reader *r, sk_diag *d)
{
    sk_jtok t;
    sk_err e;
    for (;;) {
        e = sk_json_lex_next(r->lx, &t, d);
        if (e)
            return e;
        if (t.type == SK_JT_OBJ_END)
            return SK_OK;
        enum arg_key key = arg_key(&t);
        if (key == AK_OTHER) {
            e = sk_json_lex_skip_value(r->lx, d);
        } else {
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e)
                e = on_arg(r, key, &t, d);
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

/* blockIdx and blockNum are uint8 in the runtime's record: at most 3
 * digits, and up to 4 are read (a fifth makes the prefix malformed). */
#define BLOCK_DIGITS 4

/* The short forms "[i/n]" and "[i/nn]" with one-digit i (most records):
 * the prefix length, -1 when malformed, 0 when name has another form. */
static inline int short_block_prefix(const char *name, size_t len, unsigned *idx, unsigned *num)
{
    if (len < 6 || !sk_is_digit(name[1]) || name[2] != '/' || !sk_is_digit(name[3]))
        return 0;
    unsigned a = (unsigned)(name[1] - '0'), b = (unsigned)(name[3] - '0');
    int end = 4;
    if (sk_is_digit(name[4]) && name[5] == ']') {
        b = b * 10 + (unsigned)(name[4] - '0');
        end = 5;
    } else if (name[4] != ']') {
        return 0;
    }
    if (b == 0 || a >= b)
        return -1;
    *idx = a;
    *num = b;
    return end + 1;
}

int rd_prof_parse_block_prefix(const char *name, size_t len, unsigned *idx, unsigned *num)
{
    if (len == 0 || name[0] != '[')
        return 0;
    int pre = short_block_prefix(name, len, idx, num);
    if (pre != 0)
        return pre;
    uint64_t a = 0, b = 0;
    size_t k = sk_digits_scan(name + 1, len - 1, BLOCK_DIGITS, &a);
    if (k == 0 || name[1 + k] != '/')
        return -1;
    size_t at = 2 + k;
    k = sk_digits_scan(name + at, len - at, BLOCK_DIGITS, &b);
    if (k == 0 || name[at + k] != ']')
        return -1;
    if (b == 0 || b > 255 || a >= b)
        return -1;
    *idx = (unsigned)a;
    *num = (unsigned)b;
    return (int)(at + k + 1);
}

/* The rest of an event whose times are checked: the name's prefix, the
 * lane, the count, the callback.  name and pid are NUL-terminated texts. */
static sk_err emit(reader *r, rd_prof_event *ev, const text_field *name, const text_field *pid,
                   const char *kernel_type, uint64_t line, uint64_t offset, sk_diag *d)
{
    int pre = rd_prof_parse_block_prefix(name->p, name->len, &ev->block_idx, &ev->block_num);
    if (pre < 0)
        return at_event(r, d, line, "malformed [blockIdx/blockNum] prefix in name \"%.80s\"",
                        name->p);
    if (pre > 0) {
        ev->has_block = 1;
        if ((size_t)pre < name->len && name->p[pre] == ' ') {
            ev->is_parent = 1;
            pre++;
        }
    }
    ev->name = name->p + pre;
    ev->name_len = name->len - (size_t)pre;
    if (ev->name_len == 0)
        return at_event(r, d, line, "name is empty");
    ev->pid = pid->p;
    ev->kernel_type = kernel_type;
    /* The pid names the lane; only when it names neither does the kernel
     * type decide. */
    /* texts never hold a NUL: length and bytes are strcmp's answer */
    int pid_aic = pid->len == 3 && memcmp(pid->p, "AIC", 3) == 0;
    int pid_aiv = pid->len == 3 && memcmp(pid->p, "AIV", 3) == 0;
    int pid_names_lane = pid_aic || pid_aiv;
    if (pid_aic || (!pid_names_lane && strcmp(kernel_type, "AIC_ONLY") == 0))
        ev->lane = RD_LANE_AIC;
    else if (pid_aiv || (!pid_names_lane && strcmp(kernel_type, "AIV_ONLY") == 0))
        ev->lane = RD_LANE_AIV;
    ev->index = r->sum.events;
    ev->line = line;
    ev->offset = offset;
    r->sum.events++;
    if (ev->is_parent)
        r->sum.parents++;
    if (ev->rounded)
        r->sum.rounded++;
    return r->fn(r->ctx, ev, d);
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
    rd_prof_event ev;
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
    ev.has_core = f->has_tid;
    ev.core = f->tid;
    ev.model_id = f->model.p;
    ev.model_id_len = f->model.len;
    ev.model_key = f->model_key;
    ev.has_sk_id = f->has_sk;
    ev.sk_id = f->sk;
    ev.has_node_id = f->has_node;
    ev.node_id = f->node;
    return emit(r, &ev, &f->name, &f->pid, f->ktype.p, line, offset, d);
}

static void text_reset(text_field *f)
{
    f->p = "";
    f->len = 0;
    f->borrowed = 0;
}

static void fields_reset(event_fields *f)
{
    text_reset(&f->name);
    text_reset(&f->pid);
    text_reset(&f->model);
    text_reset(&f->ktype);
    f->has_name = f->has_ph = f->has_ts = f->has_dur = f->has_pid = f->has_tid = 0;
    f->has_sk = f->has_node = 0;
    f->tid = f->sk = f->node = 0;
    f->model_key = RD_PROF_MODEL_NONE;
}

static void fields_free(event_fields *f)
{
    sk_buf_free(&f->name.own);
    sk_buf_free(&f->ts.text);
    sk_buf_free(&f->dur.text);
    sk_buf_free(&f->pid.own);
    sk_buf_free(&f->model.own);
    sk_buf_free(&f->ktype.own);
}

/* The value t of a known event key other than args (both paths). */
static sk_err on_member(reader *r, enum event_key key, const sk_jtok *t, sk_diag *d)
{
    event_fields *f = &r->f;
    switch (key) {
    case EK_NAME:
        f->has_name = 1;
        if (t->type != SK_JT_STRING)
            return at_event(r, d, t->line, "name must be a string");
        return copy_text(&f->name, t, r->borrow, d, r->path);
    case EK_PH:
        f->has_ph = 1;
        if (t->type != SK_JT_STRING)
            return at_event(r, d, t->line, "ph must be a string");
        f->ph_is_x = t->len == 1 && t->text[0] == 'X';
        return SK_OK;
    case EK_TS:
        f->has_ts = 1;
        return time_value(r, t, "ts", &f->ts, d);
    case EK_DUR:
        f->has_dur = 1;
        return time_value(r, t, "dur", &f->dur, d);
    case EK_PID:
        f->has_pid = 1;
        return scalar_text(r, t, "pid", &f->pid, d);
    case EK_TID: {
        f->has_tid = 1;
        sk_err e = int_value(r, t, "tid", &f->tid, d);
        if (!e && f->tid < 0)
            e = at_event(r, d, t->line, "tid must not be negative");
        return e;
    }
    case EK_ARGS:
    case EK_OTHER:
        break;
    }
    return SK_OK;
}

/* The opening brace of the event was just read. */
static sk_err read_event(reader *r, const sk_jtok *open, sk_diag *d)
{
    sk_jtok t;
    sk_err e;
    fields_reset(&r->f);
    for (;;) {
        e = sk_json_lex_next(r->lx, &t, d);
        if (e)
            return e;
        if (t.type == SK_JT_OBJ_END)
            break;
        /* t is a key */
        enum event_key key = event_key(&t);
        if (key == EK_OTHER) {
            e = sk_json_lex_skip_value(r->lx, d);
        } else {
            e = sk_json_lex_next(r->lx, &t, d);
            if (!e && key == EK_ARGS) {
                if (t.type != SK_JT_OBJ_BEGIN)
                    e = at_event(r, d, t.line, "args must be an object");
                else
                    e = read_args(r, d);
            } else if (!e) {
                e = on_member(r, key, &t, d);
            }
        }
        if (e)
            return e;
    }
    return deliver(r, open->line, open->offset, d);
}

/* ------------------------------------------------------------ fast path */

/* How much of the trace the fast path looks at for one event: runtime
 * records are 150 to 400 bytes; a longer one takes the general path. */
#define FAST_WINDOW 2048u
/* Members per object the fast path keeps (more: the general path). */
#define FAST_MEMBERS 8
/* Integer digits the fast path accepts: 18 digits always fit an int64. */
#define FAST_INT_DIGITS 18u

/* One member of a flat object, checked by fast_object. */
typedef struct fast_member {
    int key;        /* enum event_key, or enum arg_key inside args */
    sk_jtok value;  /* type, text, len, is_integer; EK_ARGS: unused */
    size_t args_at; /* EK_ARGS: index of its first member in fast_scan.args */
    size_t nargs;
} fast_member;

typedef struct fast_scan {
    fast_member ev[FAST_MEMBERS];
    size_t nev;
    fast_member args[FAST_MEMBERS];
    size_t nargs;
} fast_scan;

/* A known key as written in a record, quotes and colon included: a key
 * matches when its bytes are exactly these (a plain key needs no decoding). */
typedef struct fast_key_text {
    char text[16]; /* zero-padded, so that it is read as two words */
    size_t len;
    int key;
} fast_key_text;

#define FAST_KEY(s, k) {s, sizeof(s) - 1, k}
static const fast_key_text event_keys[] = {
    FAST_KEY("\"ph\":", EK_PH),   FAST_KEY("\"name\":", EK_NAME), FAST_KEY("\"pid\":", EK_PID),
    FAST_KEY("\"tid\":", EK_TID), FAST_KEY("\"ts\":", EK_TS),     FAST_KEY("\"dur\":", EK_DUR),
    FAST_KEY("\"args\":", EK_ARGS)};
static const fast_key_text arg_keys[] = {
    FAST_KEY("\"modelId\":", AK_MODEL_ID), FAST_KEY("\"skId\":", AK_SK),
    FAST_KEY("\"nodeId\":", AK_NODE), FAST_KEY("\"modelRI\":", AK_MODEL_RI),
    FAST_KEY("\"kernelType\":", AK_KTYPE)};
#undef FAST_KEY

static inline uint64_t word_at(const char *s)
{
    uint64_t w;
    memcpy(&w, s, sizeof w);
    return w;
}

/* The low len bytes of a word. */
static inline uint64_t low_bytes(size_t len)
{
    return len >= 8 ? ~0ull : (1ull << (8 * len)) - 1;
}

/* Whether the n bytes at s start with key k: two word compares under masks
 * when 16 bytes are there to load (keys are shorter), else memcmp. */
static inline int key_at_start(const char *s, size_t n, const fast_key_text *k)
{
    if (n < sizeof k->text)
        return k->len <= n && memcmp(s, k->text, k->len) == 0;
    size_t rest = k->len > 8 ? k->len - 8 : 0;
    return (word_at(s) & low_bytes(k->len)) == word_at(k->text) &&
           (word_at(s + 8) & low_bytes(rest)) == word_at(k->text + 8);
}

/* The known key at s, tried in the order the runtime writes them starting
 * after the previous one (*hint); its length with quotes and colon, or 0. */
static size_t fast_key(const char *s, size_t n, const fast_key_text *keys, size_t nkeys,
                       size_t *hint, int *key)
{
    size_t at = *hint; /* below nkeys */
    for (size_t j = 0; j < nkeys; j++) {
        const fast_key_text *k = &keys[at];
        at = at + 1 == nkeys ? 0 : at + 1;
        if (key_at_start(s, n, k)) {
            *hint = at;
            *key = k->key;
            return k->len;
        }
    }
    return 0;
}

/* A string at s[0] == '"' of plain printable ASCII (no escape): its length
 * with both quotes, or 0. */
static inline size_t fast_string(const char *s, size_t n, sk_jtok *t)
{
    size_t k = 1 + sk_json_plain_span(s + 1, n - 1);
    if (k >= n || s[k] != '"')
        return 0;
    t->type = SK_JT_STRING;
    t->text = s + 1;
    t->len = k - 1;
    t->is_integer = 0;
    return k + 1;
}

static inline size_t fast_value(const char *s, size_t n, sk_jtok *t)
{
    if (s[0] == '"')
        return fast_string(s, n, t);
    int integer = 0;
    size_t k = sk_json_number_span(s, n, &integer);
    t->type = SK_JT_NUMBER;
    t->text = s;
    t->len = k;
    t->is_integer = integer;
    return k;
}

/* An integer that int_value reads without a range check. */
static int fast_int(const sk_jtok *t)
{
    return t->type == SK_JT_NUMBER && t->is_integer &&
           t->len - (size_t)(t->text[0] == '-') <= FAST_INT_DIGITS;
}

/* Whether the general path would accept value t of key without an error
 * (the fast path only takes events the general path reads cleanly; every
 * error is reported by the general path). */
static int fast_value_ok(int in_args, int key, const sk_jtok *t)
{
    if (in_args) {
        if (key == AK_SK || key == AK_NODE)
            return fast_int(t);
        if (key == AK_MODEL_RI)
            return fast_int(t) && t->text[0] != '-';
        return key != AK_KTYPE || t->type == SK_JT_STRING;
    }
    if (key == EK_NAME || key == EK_PH)
        return t->type == SK_JT_STRING;
    if (key == EK_TID)
        return fast_int(t) && t->text[0] != '-';
    return 1; /* ts, dur, pid: a string or a number */
}

/* Checks the flat object at s[0] == '{' with the tokenizer's grammar: no
 * whitespace, plain ASCII strings, numbers, known keys each at most once
 * (so no duplicate), and (outside args only) one args object.  Returns its
 * length, or 0 when the general path must read it. */
static size_t fast_object(const char *s, size_t n, fast_scan *fs, int in_args)
{
    size_t i = 1, hint = 0;
    unsigned seen = 0;
    fast_member *m = in_args ? fs->args : fs->ev;
    size_t *count = in_args ? &fs->nargs : &fs->nev;
    const fast_key_text *keys = in_args ? arg_keys : event_keys;
    size_t nkeys = in_args ? sizeof arg_keys / sizeof arg_keys[0]
                           : sizeof event_keys / sizeof event_keys[0];
    if (i < n && s[i] == '}')
        return i + 1;
    for (;;) {
        int key = 0;
        size_t kl = fast_key(s + i, n - i, keys, nkeys, &hint, &key);
        if (!kl || (seen & (1u << key)) || *count >= FAST_MEMBERS)
            return 0;
        i += kl;
        if (i >= n)
            return 0;
        seen |= 1u << key;
        fast_member *f = &m[(*count)++];
        f->key = key;
        size_t vl;
        if (!in_args && key == EK_ARGS) {
            if (s[i] != '{')
                return 0;
            f->args_at = fs->nargs;
            vl = fast_object(s + i, n - i, fs, 1);
            f->nargs = fs->nargs - f->args_at;
        } else {
            vl = fast_value(s + i, n - i, &f->value);
            if (vl && !fast_value_ok(in_args, key, &f->value))
                return 0;
        }
        if (!vl)
            return 0;
        i += vl;
        if (i >= n)
            return 0;
        if (s[i] == '}')
            return i + 1;
        if (s[i] != ',')
            return 0;
        i++;
    }
}

/* ------------------------------------------------------------ runtime layout */

/* Every record the runtime writes has the same keys in the same order,
 * without whitespace (docs/analyze.md §7):
 *   {"ph":"X","name":"…","pid":"…","tid":N,"ts":T,"dur":T,
 *    "args":{"modelId":"…","skId":N[,"nodeId":N]}}
 * layout_record reads exactly that in one pass over its bytes: the literal
 * parts are compared as they stand, the strings scanned for their closing
 * quote, and the numbers converted while they are found (sk_fixed's JSON
 * scanners).  It takes only plain strings, unsigned integers of at most 18
 * digits and unsigned times without exponent, i.e. a subset of what
 * fast_object takes, and reads them as the general path does; anything else
 * (another order, another key, a sign, a string time) goes to fast_object. */
typedef struct layout_rec {
    size_t name, name_len, pid, pid_len, model, model_len; /* offsets in the record */
    uint64_t tid, sk, node;
    int has_node;
    sk_fixed_result ts, dur;
} layout_rec;

static inline uint32_t word32_at(const char *s)
{
    uint32_t w;
    memcpy(&w, s, sizeof w);
    return w;
}

static inline uint16_t word16_at(const char *s)
{
    uint16_t w;
    memcpy(&w, s, sizeof w);
    return w;
}

/* memcmp(a, b, len) == 0 for a constant len, in overlapping word loads
 * that read no byte outside either (inlined: the literal's words become
 * immediates). */
static inline int same_bytes(const char *a, const char *b, size_t len)
{
    if (len >= 8) {
        for (size_t k = 0; k + 8 < len; k += 8)
            if (word_at(a + k) != word_at(b + k))
                return 0;
        return word_at(a + len - 8) == word_at(b + len - 8);
    }
    if (len >= 4)
        return word32_at(a) == word32_at(b) && word32_at(a + len - 4) == word32_at(b + len - 4);
    if (len >= 2)
        return word16_at(a) == word16_at(b) && word16_at(a + len - 2) == word16_at(b + len - 2);
    return len == 0 || a[0] == b[0];
}

/* The literal lit (len bytes) at s[*i]. */
static inline int layout_lit(const char *s, size_t n, size_t *i, const char *lit, size_t len)
{
    if (n - *i < len || !same_bytes(s + *i, lit, len))
        return 0;
    *i += len;
    return 1;
}
#define LAYOUT_LIT(s, n, i, lit) layout_lit(s, n, i, lit, sizeof(lit) - 1)

/* A plain string whose opening quote was just passed: its offset and length;
 * *i moves past the closing quote. */
static inline int layout_str(const char *s, size_t n, size_t *i, size_t *at, size_t *len)
{
    size_t j = *i + sk_json_plain_span(s + *i, n - *i);
    if (j >= n || s[j] != '"')
        return 0;
    *at = *i;
    *len = j - *i;
    *i = j + 1;
    return 1;
}

static inline int layout_uint(const char *s, size_t n, size_t *i, uint64_t *v)
{
    size_t k = sk_uint_scan_json(s + *i, n - *i, v);
    *i += k;
    return k != 0;
}

static inline int layout_time(const char *s, size_t n, size_t *i, sk_fixed_result *v)
{
    size_t k = sk_fixed_scan_json(s + *i, n - *i, TS_SCALE, v);
    *i += k;
    return k != 0;
}

/* The length of the runtime record at s[0..n), or 0. */
static size_t layout_record(const char *s, size_t n, layout_rec *o)
{
    size_t i = 0;
    if (!LAYOUT_LIT(s, n, &i, "{\"ph\":\"X\",\"name\":\"") ||
        !layout_str(s, n, &i, &o->name, &o->name_len) || !LAYOUT_LIT(s, n, &i, ",\"pid\":\"") ||
        !layout_str(s, n, &i, &o->pid, &o->pid_len) || !LAYOUT_LIT(s, n, &i, ",\"tid\":") ||
        !layout_uint(s, n, &i, &o->tid) || !LAYOUT_LIT(s, n, &i, ",\"ts\":") ||
        !layout_time(s, n, &i, &o->ts) || !LAYOUT_LIT(s, n, &i, ",\"dur\":") ||
        !layout_time(s, n, &i, &o->dur) ||
        !LAYOUT_LIT(s, n, &i, ",\"args\":{\"modelId\":\"") ||
        !layout_str(s, n, &i, &o->model, &o->model_len) ||
        !LAYOUT_LIT(s, n, &i, ",\"skId\":") || !layout_uint(s, n, &i, &o->sk))
        return 0;
    o->has_node = LAYOUT_LIT(s, n, &i, ",\"nodeId\":");
    if ((o->has_node && !layout_uint(s, n, &i, &o->node)) || !LAYOUT_LIT(s, n, &i, "}}"))
        return 0;
    return i;
}

/* ------------------------------------------------------------ taking a record */

/* Makes a borrowed text of the record just taken (whose bytes start at
 * win, and at base in the tokenizer's writable buffer, NULL when there is
 * none) a C string: in place, over the byte after it (the closing quote or
 * the delimiter after a number, which belongs to the record), or as a copy. */
static sk_err settle(reader *r, text_field *f, const char *win, char *base, sk_diag *d)
{
    if (!f->borrowed)
        return SK_OK;
    f->borrowed = 0;
    size_t at = (size_t)(f->p - win);
    if (base) {
        base[at + f->len] = '\0';
        f->p = base + at;
        return SK_OK;
    }
    sk_err e = copy_bytes(&f->own, win + at, f->len, d, r->path);
    f->p = sk_buf_cstr(&f->own);
    return e;
}

static sk_err settle_texts(reader *r, const char *win, sk_diag *d)
{
    char *base = sk_json_lex_taken(r->lx);
    event_fields *f = &r->f;
    sk_err e = settle(r, &f->name, win, base, d);
    if (!e)
        e = settle(r, &f->pid, win, base, d);
    if (!e)
        e = settle(r, &f->model, win, base, d);
    if (!e)
        e = settle(r, &f->ktype, win, base, d);
    return e;
}

static void borrow_text(text_field *f, const char *win, size_t at, size_t len)
{
    f->p = win + at;
    f->len = len;
    f->borrowed = 1;
}

/* The fields of a runtime record layout_record has read. */
static void layout_fields(reader *r, const char *win, const layout_rec *o)
{
    event_fields *f = &r->f;
    fields_reset(f);
    f->has_ph = f->ph_is_x = 1;
    f->has_name = f->has_pid = f->has_tid = f->has_ts = f->has_dur = f->has_sk = 1;
    borrow_text(&f->name, win, o->name, o->name_len);
    borrow_text(&f->pid, win, o->pid, o->pid_len);
    borrow_text(&f->model, win, o->model, o->model_len);
    f->model_key = RD_PROF_MODEL_ID;
    f->tid = (int64_t)o->tid;
    f->sk = (int64_t)o->sk;
    f->has_node = o->has_node;
    f->node = o->has_node ? (int64_t)o->node : 0;
    f->ts.v = o->ts;
    f->ts.bad = 0;
    f->dur.v = o->dur;
    f->dur.bad = 0;
}

/* deliver() for a runtime record the tokenizer has just taken: built
 * directly when it is an event with texts terminated in place; through the
 * fields and deliver() when it is skipped or wrong (a zero duration, a time
 * overflow) or read from a caller's memory block. */
static sk_err layout_deliver(reader *r, const char *win, const layout_rec *o, uint64_t line,
                             uint64_t offset, sk_diag *d)
{
    char *base = sk_json_lex_taken(r->lx);
    if (!base || o->dur.value == 0 || o->ts.value > INT64_MAX - o->dur.value) {
        layout_fields(r, win, o);
        sk_err e = settle_texts(r, win, d);
        return e ? e : deliver(r, line, offset, d);
    }
    /* the closing quotes belong to the record: NUL-terminate in place */
    base[o->name + o->name_len] = '\0';
    base[o->pid + o->pid_len] = '\0';
    base[o->model + o->model_len] = '\0';
    text_field name = {base + o->name, o->name_len, 0, SK_BUF_INIT};
    text_field pid = {base + o->pid, o->pid_len, 0, SK_BUF_INIT};
    rd_prof_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ts_ns = o->ts.value;
    ev.dur_ns = o->dur.value;
    ev.rounded = o->ts.rounded | o->dur.rounded;
    ev.has_core = 1;
    ev.core = (int64_t)o->tid;
    ev.model_id = base + o->model;
    ev.model_id_len = o->model_len;
    ev.model_key = RD_PROF_MODEL_ID;
    ev.has_sk_id = 1;
    ev.sk_id = (int64_t)o->sk;
    ev.has_node_id = o->has_node;
    ev.node_id = o->has_node ? (int64_t)o->node : 0;
    return emit(r, &ev, &name, &pid, "", line, offset, d);
}

/* Reads the next element through the fast path when it is a flat event the
 * general path would read cleanly; *done tells whether it did. */
static sk_err read_event_fast(reader *r, int *done, sk_diag *d)
{
    const char *p;
    size_t n;
    *done = 0;
    sk_err e = sk_json_lex_peek_element(r->lx, FAST_WINDOW, &p, &n, d);
    if (e || n == 0 || p[0] != '{')
        return e;
    /* the same window however the input was split into reads (peek makes
     * FAST_WINDOW bytes available unless the input ends first), so the
     * same events take the fast path */
    if (n > FAST_WINDOW)
        n = FAST_WINDOW;
    uint64_t offset = sk_json_lex_offset(r->lx);
    uint64_t line = sk_json_lex_line(r->lx);
    layout_rec lr;
    size_t len = r->layout ? layout_record(p, n, &lr) : 0;
    if (len) {
        if (!sk_json_lex_take_element(r->lx, len, 2))
            return SK_OK;
        *done = 1;
        r->sum.fast_events++;
        r->sum.layout_events++;
        e = layout_deliver(r, p, &lr, line, offset, d);
        /* the records that follow in the same window, one after the other
         * (the caller counts the last element) */
        size_t at = len;
        while (!e) {
            size_t sep = 1;
            if (at >= n || p[at] != ',')
                break;
            while (at + sep < n && (p[at + sep] == '\n' || p[at + sep] == ' ' ||
                                    p[at + sep] == '\r' || p[at + sep] == '\t'))
                sep++;
            if (at + sep >= n || p[at + sep] != '{')
                break;
            const char *rec = p + at + sep;
            len = layout_record(rec, n - at - sep, &lr);
            if (!len || !sk_json_lex_take_next(r->lx, sep, len, 2))
                break;
            r->sum.elements++;
            r->sum.fast_events++;
            r->sum.layout_events++;
            e = layout_deliver(r, rec, &lr, sk_json_lex_line(r->lx),
                               sk_json_lex_offset(r->lx) - len, d);
            at += sep + len;
        }
        return e;
    }
    fast_scan fs;
    fs.nev = fs.nargs = 0;
    len = fast_object(p, n, &fs, 0);
    int has_args = 0, model_keys = 0;
    for (size_t i = 0; i < fs.nev; i++)
        has_args |= fs.ev[i].key == EK_ARGS;
    for (size_t i = 0; i < fs.nargs; i++)
        model_keys += fs.args[i].key == AK_MODEL_ID || fs.args[i].key == AK_MODEL_RI;
    if (model_keys > 1) /* an error: the general path reports it */
        return SK_OK;
    if (!len || !sk_json_lex_take_element(r->lx, len, has_args ? 2 : 1))
        return SK_OK;
    *done = 1;
    r->sum.fast_events++;
    fields_reset(&r->f);
    r->borrow = 1;
    for (size_t i = 0; i < fs.nev && !e; i++) {
        fast_member *m = &fs.ev[i];
        if (m->key != EK_ARGS) {
            m->value.line = line;
            e = on_member(r, (enum event_key)m->key, &m->value, d);
            continue;
        }
        for (size_t j = 0; j < m->nargs && !e; j++) {
            fast_member *a = &fs.args[m->args_at + j];
            a->value.line = line;
            e = on_arg(r, (enum arg_key)a->key, &a->value, d);
        }
    }
    r->borrow = 0;
    if (!e)
        e = settle_texts(r, p, d);
    if (!e)
        e = deliver(r, line, offset, d);
    return e;
}

static sk_err read_event_array(reader *r, sk_diag *d)
{
    sk_jtok t;
    for (;;) {
        int done = 0;
        sk_err e = r->fast ? read_event_fast(r, &done, d) : SK_OK;
        if (!done && !e) {
            e = sk_json_lex_next(r->lx, &t, d);
            if (e)
                return e;
            if (t.type == SK_JT_ARR_END)
                return SK_OK;
            if (t.type != SK_JT_OBJ_BEGIN)
                return sk_diag_set(d, SK_E_FORMAT, r->path, t.line,
                                   "sk_prof element %llu is not an object",
                                   (unsigned long long)r->sum.elements);
            e = read_event(r, &t, d);
            done = 1;
        }
        if (done)
            r->sum.elements++;
        if (e)
            return e;
    }
}

sk_err rd_prof_read(sk_read_fn read, void *rctx, const char *path, rd_prof_event_fn fn, void *ctx,
                    rd_prof_summary *sum, sk_diag *d)
{
    return rd_prof_read_with(read, rctx, path, 0, fn, ctx, sum, d);
}

sk_err rd_prof_read_with(sk_read_fn read, void *rctx, const char *path, unsigned flags,
                         rd_prof_event_fn fn, void *ctx, rd_prof_summary *sum, sk_diag *d)
{
    reader r;
    memset(&r, 0, sizeof r);
#ifdef SK_TEST_HOOKS
    /* test builds: SK_TEST_READERS_GENERAL=1 reads every element with the
     * general path (tests/scripts/analyze_scenarios.sh compares the bytes) */
    if (getenv("SK_TEST_READERS_GENERAL"))
        flags |= RD_PROF_GENERAL_ONLY;
#endif
    r.fast = !(flags & RD_PROF_GENERAL_ONLY);
    r.layout = !(flags & RD_PROF_NO_LAYOUT);
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
        r.sum.shape = RD_PROF_SHAPE_ARRAY;
        e = read_event_array(&r, d);
    } else if (t.type == SK_JT_OBJ_BEGIN) {
        r.sum.shape = RD_PROF_SHAPE_TRACE_EVENTS;
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
    /* which path read the elements (tests/scripts/analyze_work.sh) */
    sk_test_count("sk_prof_layout_records", r.sum.layout_events);
    sk_test_count("sk_prof_object_records", r.sum.fast_events - r.sum.layout_events);
    sk_test_count("sk_prof_general_records", r.sum.elements - r.sum.fast_events);
    if (sum)
        *sum = r.sum;
    fields_free(&r.f);
    sk_json_lex_free(r.lx);
    return e;
}
