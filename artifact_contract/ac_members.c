#include "artifact_contract/ac_members.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/ac_instr.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_pcre.h"

sk_err ac_observer_init(ac_observer *o, sk_diag *d)
{
    memset(o, 0, sizeof *o);
    o->cmdline = (sk_buf)SK_BUF_INIT;
    o->members = sk_calloc(AC_PRODUCER_MAX_MEMBERS, sizeof *o->members);
    if (!o->members)
        return sk_diag_set(d, SK_E_NOMEM, "run", 0, "out of memory");
    return SK_OK;
}

void ac_observer_free(ac_observer *o)
{
    if (!o->members)
        return;
    for (size_t i = 0; i < o->n; i++)
        cJSON_Delete(o->members[i].images);
    sk_free(o->members);
    sk_buf_free(&o->cmdline);
    memset(o, 0, sizeof *o);
}

sk_err ac_text_append_sanitized(sk_buf *out, const char *s, size_t len)
{
    while (len) {
        size_t bad = len;
        if (sk_utf8_validate(s, len, &bad))
            bad = len;
        if (sk_buf_append(out, s, bad))
            return SK_E_NOMEM;
        if (bad == len)
            break;
        if (sk_buf_printf(out, "\\x%02x", (unsigned)(unsigned char)s[bad]))
            return SK_E_NOMEM;
        s += bad + 1;
        len -= bad + 1;
    }
    return SK_OK;
}

/* The member slot of st, inserted when new; NULL when every slot is taken. */
static ac_member *slot(ac_observer *o, const ac_proc_stat *st)
{
    size_t lo = 0, hi = o->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ac_member *m = &o->members[mid];
        if (m->pid < st->pid ||
            (m->pid == st->pid && m->start_time_ticks < st->start_time_ticks))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < o->n && o->members[lo].pid == st->pid &&
        o->members[lo].start_time_ticks == st->start_time_ticks)
        return &o->members[lo];
    if (o->n == AC_PRODUCER_MAX_MEMBERS) {
        o->truncated = 1;
        return NULL;
    }
    memmove(&o->members[lo + 1], &o->members[lo], (o->n - lo) * sizeof *o->members);
    memset(&o->members[lo], 0, sizeof *o->members);
    o->members[lo].pid = st->pid;
    o->members[lo].start_time_ticks = st->start_time_ticks;
    o->n++;
    return &o->members[lo];
}

void ac_observer_note(ac_observer *o, const ac_proc_stat *st)
{
    (void)slot(o, st);
}

/* A string made from raw bytes, sanitized, with the mark when cut. */
static cJSON *text_item(const char *s, size_t len, int cut)
{
    sk_buf b = SK_BUF_INIT;
    cJSON *item = NULL;
    if (ac_text_append_sanitized(&b, s, len) == SK_OK &&
        (!cut || sk_buf_puts(&b, AC_TRUNCATION_MARK) == SK_OK))
        item = cJSON_CreateString(sk_buf_cstr(&b));
    sk_buf_free(&b);
    return item;
}

typedef struct env_ctx {
    cJSON *env;
    size_t bytes;
    int cut, nomem;
} env_ctx;

static int env_keep(const char *name, size_t len)
{
    return ac_instr_var_find(name, len) != NULL;
}

/* A listed variable: the first occurrence is recorded, unless a later one
 * (execve allows a name twice) turns the feature on where the first did not:
 * the program may read either, so the enabling one is kept. */
static int env_visit(const char *name, size_t name_len, const char *value, size_t value_len,
                     int value_cut, void *ctx)
{
    env_ctx *c = ctx;
    const ac_instr_var *var = ac_instr_var_find(name, name_len);
    cJSON *item = text_item(value, value_len, value_cut);
    if (!item) {
        c->nomem = 1;
        return 1;
    }
    const cJSON *old = sk_json_get(c->env, var->name);
    if (old) {
        if (ac_instr_value_on(old->valuestring) || !ac_instr_value_on(item->valuestring)) {
            cJSON_Delete(item);
            return 0;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(c->env, var->name);
    }
    if (sk_json_add(c->env, var->name, item)) {
        c->nomem = 1;
        return 1;
    }
    c->bytes += value_len;
    c->cut |= value_cut;
    return 0;
}

static const char *look_reason(ac_proc_look l)
{
    switch (l) {
    case AC_LOOK_EXITED:
        return "exited";
    case AC_LOOK_DENIED:
        return "permission_denied";
    case AC_LOOK_FAILED:
    case AC_LOOK_OK:
        break;
    }
    return "read_error";
}

/* {argv, environment, truncated, unreadable}, taking argv and env (NULL:
 * null); NULL when out of memory (both are freed then). */
static cJSON *image_new(cJSON *argv, cJSON *env, int truncated, const char *unreadable)
{
    cJSON *im = cJSON_CreateObject();
    cJSON *a = argv ? argv : cJSON_CreateNull();
    cJSON *e = env ? env : cJSON_CreateNull();
    if (!im || !a || !e)
        goto fail;
    /* sk_json_add frees the item when it cannot add it */
    sk_err err = sk_json_add(im, "argv", a);
    a = NULL;
    if (err)
        goto fail;
    err = sk_json_add(im, "environment", e);
    e = NULL;
    if (err || sk_json_add_bool(im, "truncated", truncated) ||
        sk_json_add_str(im, "unreadable", unreadable))
        goto fail;
    return im;
fail:
    cJSON_Delete(im);
    cJSON_Delete(a);
    cJSON_Delete(e);
    return NULL;
}

#ifdef SK_TEST_HOOKS
/* Test builds: SK_TEST_ENVIRON_DENIED=<comm> makes the environment of
 * processes with that command name unreadable (as for another user's or a
 * set-id process, which a test running as root cannot produce). */
static int test_denied(const char *comm)
{
    const char *v = getenv("SK_TEST_ENVIRON_DENIED");
    return v && *v && strcmp(v, comm) == 0;
}
#else
static int test_denied(const char *comm)
{
    (void)comm;
    return 0;
}
#endif

/* What the process shows now; *bytes counts the recorded text. */
static cJSON *take_image(ac_observer *o, const ac_proc_stat *st, size_t *bytes, int *nomem)
{
    int cut = 0;
    cJSON *argv = NULL, *env = NULL;
    *bytes = 0;
    if (st->state == 'Z')
        return image_new(NULL, NULL, 0, "exited");
    ac_proc_look l = ac_proc_read_cmdline(st->pid, AC_MEMBER_ARGV_BYTES, &o->cmdline, &cut);
    if (l != AC_LOOK_OK)
        return image_new(NULL, NULL, 0, look_reason(l));
    argv = cJSON_CreateArray();
    for (size_t i = 0; argv && i < o->cmdline.len;) {
        const char *a = o->cmdline.data + i;
        size_t n = strnlen(a, o->cmdline.len - i);
        int last_cut = cut && i + n >= o->cmdline.len;
        if (sk_json_append(argv, text_item(a, n, last_cut))) {
            cJSON_Delete(argv);
            argv = NULL;
            break;
        }
        i += n + 1;
    }
    if (!argv) {
        *nomem = 1;
        return NULL;
    }
    *bytes = o->cmdline.len;
    env_ctx ec = {cJSON_CreateObject(), 0, 0, 0};
    l = !ec.env                 ? AC_LOOK_FAILED
        : test_denied(st->comm) ? AC_LOOK_DENIED
                                : ac_proc_read_environ(st->pid, AC_INSTR_NAME_MAX,
                                                       AC_MEMBER_VALUE_BYTES, env_keep,
                                                       env_visit, &ec);
    if (!ec.env || ec.nomem) {
        cJSON_Delete(argv);
        cJSON_Delete(ec.env);
        *nomem = 1;
        return NULL;
    }
    /* the pid must still name the process that was read (not a reused pid) */
    ac_proc_stat again;
    if (ac_proc_stat_read(st->pid, &again, NULL) != SK_OK ||
        again.start_time_ticks != st->start_time_ticks) {
        cJSON_Delete(argv);
        cJSON_Delete(ec.env);
        *bytes = 0;
        return image_new(NULL, NULL, 0, "exited");
    }
    if (l != AC_LOOK_OK) {
        cJSON_Delete(ec.env);
        return image_new(argv, NULL, cut, look_reason(l));
    }
    env = ec.env;
    *bytes += ec.bytes;
    return image_new(argv, env, cut || ec.cut, NULL);
}

static int image_unreadable(const cJSON *im, const char *reason)
{
    const cJSON *u = sk_json_get(im, "unreadable");
    return cJSON_IsString(u) && (!reason || strcmp(u->valuestring, reason) == 0);
}

sk_err ac_observer_look(const ac_proc_stat *st, void *ctx, sk_diag *d)
{
    (void)d;
    ac_observer *o = ctx;
    ac_member *m = slot(o, st);
    if (!m || m->images_truncated)
        return SK_OK;
    size_t bytes = 0;
    int nomem = 0;
    cJSON *im = take_image(o, st, &bytes, &nomem);
    if (im && bytes > AC_MEMBER_BUDGET_BYTES - o->budget_used) {
        cJSON_Delete(im);
        bytes = 0;
        im = image_new(NULL, NULL, 0, "budget_exhausted");
        nomem = !im;
    }
    if (!im) {
        m->images_truncated = 1;
        return SK_OK;
    }
    int n = m->images ? cJSON_GetArraySize(m->images) : 0;
    const cJSON *last = n ? cJSON_GetArrayItem(m->images, n - 1) : NULL;
    /* nothing new: the same look again, or "exited" after a real look */
    int eq = last ? sk_json_equal(last, im) : 0;
    if (eq < 0 || eq == 1 || (n && image_unreadable(im, "exited"))) {
        m->images_truncated |= eq < 0;
        cJSON_Delete(im);
        return SK_OK;
    }
    if (n == AC_MEMBER_MAX_IMAGES) {
        m->images_truncated = 1;
        cJSON_Delete(im);
        return SK_OK;
    }
    if (!m->images && !(m->images = cJSON_CreateArray())) {
        m->images_truncated = 1;
        cJSON_Delete(im);
        return SK_OK;
    }
    if (sk_json_append(m->images, im)) {
        m->images_truncated = 1;
        return SK_OK;
    }
    o->budget_used += bytes;
    return SK_OK;
}

void ac_observer_finish(ac_observer *o)
{
    for (size_t i = 0; i < o->n; i++) {
        ac_member *m = &o->members[i];
        if (m->images && cJSON_GetArraySize(m->images) > 0)
            continue;
        if (m->images_truncated)
            continue;
        if (!m->images)
            m->images = cJSON_CreateArray();
        /* sk_json_append frees im when it cannot add it */
        if (!m->images || sk_json_append(m->images, image_new(NULL, NULL, 0, "exited")))
            m->images_truncated = 1;
    }
}
