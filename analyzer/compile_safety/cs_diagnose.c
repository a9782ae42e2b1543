#include "analyzer/compile_safety/cs_diagnose.h"

#include <string.h>

#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/compile_safety/cs_pyhooks.h"
#include "analyzer/compile_safety/cs_record.h"
#include "analyzer/compile_safety/cs_text.h"

/* The contract's order; "command" is the comparison's precondition. */
enum { F_STARTUP, F_PROFILER, F_SK_TRACE, F_CACHE_SEED, F_COMPILE_JOBS, F_COMMAND, F_N };
static const char *const factor_names[F_N] = {"startup_override", "profiler", "sk_trace",
                                              "cache_seed", "compile_jobs", "command"};

#define REDACTED "<redacted>"

const char *cs_diag_verdict_name(cs_diag_verdict v)
{
    switch (v) {
    case CS_DV_NO_CHANGE:
        return "no_change";
    case CS_DV_SINGLE_FACTOR:
        return "single_factor";
    case CS_DV_CONFOUNDED:
        return "confounded";
    }
    return "confounded";
}

sk_err cs_diagnose_factor_arg(cs_diagnose_opts *o, const char *arg, sk_diag *d)
{
    const char *eq = strchr(arg, '=');
    const char **slot = NULL;
    if (eq && (size_t)(eq - arg) == strlen("profiler") && strncmp(arg, "profiler", 8) == 0)
        slot = &o->profiler_env;
    else if (eq && (size_t)(eq - arg) == strlen("cache_seed") && strncmp(arg, "cache_seed", 10) == 0)
        slot = &o->cache_seed_env;
    if (!slot)
        return sk_diag_set(d, SK_E_ARG, "", 0,
                           "--factor '%s' must be profiler=ENVVAR or cache_seed=ENVVAR", arg);
    if (*slot)
        return sk_diag_set(d, SK_E_ARG, "", 0, "--factor %.*s given more than once",
                           (int)(eq - arg), arg);
    if (!cs_is_identifier(eq + 1))
        return sk_diag_set(d, SK_E_ARG, "", 0,
                           "--factor '%s': '%s' is not an environment variable name", arg, eq + 1);
    *slot = eq + 1;
    return SK_OK;
}

/* One side of a comparison: what a record says about each factor. */
typedef struct side {
    cs_record record;       /* the final record, or the started one while there is none */
    const char *path;       /* the path of the record read (borrowed from record) */
    const ac_producer_record *rec;
    int recorded[F_N];
    int inventory;        /* a pyhooks inventory was given for this record */
    cJSON *factors;       /* owned: {name: {recorded, value}} */
} side;

static void side_free(side *s)
{
    cs_record_free(&s->record);
    cJSON_Delete(s->factors);
    memset(s, 0, sizeof *s);
}

/* A recorded environment variable: a string, null when unset; *recorded = 0
 * when its value was redacted. */
static cJSON *env_value(const ac_producer_record *rec, const char *name, int *recorded)
{
    const char *v = ac_producer_record_env(rec, name);
    *recorded = !(v && strcmp(v, REDACTED) == 0);
    return v && *recorded ? cJSON_CreateString(v) : cJSON_CreateNull();
}

static cJSON *pythonpath_value(const ac_producer_record *rec, int *recorded)
{
    const char *v = ac_producer_record_env(rec, "PYTHONPATH");
    *recorded = !(v && strcmp(v, REDACTED) == 0);
    if (!v || !*recorded)
        return cJSON_CreateNull();
    cJSON *arr = cJSON_CreateArray();
    for (const char *p = v; arr;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        char *entry = sk_strndup(p, n);
        cJSON *item = entry ? cJSON_CreateString(entry) : NULL;
        sk_free(entry);
        if (sk_json_append(arr, item)) {
            cJSON_Delete(arr);
            return NULL;
        }
        if (!colon)
            break;
        p = colon + 1;
    }
    return arr;
}

/* Takes value (NULL: out of memory); an unrecorded factor's value is null. */
static sk_err put_factor(side *s, int f, int recorded, cJSON *value)
{
    s->recorded[f] = recorded;
    if (!value)
        return SK_E_NOMEM;
    if (!recorded) {
        cJSON_Delete(value);
        value = cJSON_CreateNull();
    }
    cJSON *o = cJSON_CreateObject();
    if (sk_json_add(s->factors, factor_names[f], o) || sk_json_add_bool(o, "recorded", recorded)) {
        cJSON_Delete(value);
        return SK_E_NOMEM;
    }
    return sk_json_add(o, "value", value);
}

static cJSON *command_value(const ac_producer_record *rec)
{
    cJSON *o = cJSON_CreateObject();
    if (sk_json_add(o, "argv", cJSON_Duplicate(sk_json_get(rec->command, "argv"), 1)) ||
        sk_json_add(o, "cwd", cJSON_Duplicate(sk_json_get(rec->command, "cwd"), 1))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A factor named by --factor: not recorded when no variable names it. */
static cJSON *named_env_value(const ac_producer_record *rec, const char *name, int *recorded)
{
    if (name)
        return env_value(rec, name, recorded);
    *recorded = 0;
    return cJSON_CreateNull();
}

static sk_err startup_value(side *s, const char *inventory, cJSON **out, int *recorded,
                            sk_diag *d)
{
    int r1, r2;
    cJSON *inv = NULL, *o = cJSON_CreateObject();
    char sha[65], files_sha[65];
    sk_err e = SK_OK;
    *out = NULL;
    if (!o || sk_json_add(o, "PYTHONSTARTUP", env_value(s->rec, "PYTHONSTARTUP", &r1)) ||
        sk_json_add(o, "PYTHONPATH", pythonpath_value(s->rec, &r2))) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    *recorded = r1 && r2;
    if (inventory) {
        s->inventory = 1;
        e = cs_pyhooks_inventory_load(inventory, &inv, sha, d);
        if (!e)
            e = sk_json_fingerprint(sk_json_get(inv, "files"), files_sha, d);
        if (e)
            goto out;
        if (sk_json_add_str(o, "pyhooks_files_sha256", files_sha)) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
    }
    *out = o;
    o = NULL;
out:
    cJSON_Delete(inv);
    cJSON_Delete(o);
    return e;
}

static sk_err side_load(side *s, const char *path, const char *inventory,
                        const cs_diagnose_opts *o, sk_diag *d)
{
    sk_err e = cs_record_open(path, &s->record, d);
    if (e)
        return e;
    s->rec = s->record.rec;
    s->path = cs_record_loaded_path(&s->record);
    s->factors = cJSON_CreateObject();
    if (!s->factors)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    for (int f = 0; f < F_N; f++) {
        cJSON *v = NULL;
        int rec = 1;
        switch (f) {
        case F_STARTUP:
            e = startup_value(s, inventory, &v, &rec, d);
            if (e)
                return e;
            break;
        case F_PROFILER:
            v = named_env_value(s->rec, o->profiler_env, &rec);
            break;
        case F_SK_TRACE:
            v = env_value(s->rec, "ASCEND_PROF_SK_ON", &rec);
            break;
        case F_CACHE_SEED:
            v = named_env_value(s->rec, o->cache_seed_env, &rec);
            break;
        case F_COMPILE_JOBS:
            v = env_value(s->rec, "NPU_STATIC_KERNEL_COMPILE_JOBS", &rec);
            break;
        default:
            v = command_value(s->rec);
            break;
        }
        if (put_factor(s, f, rec, v))
            return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    }
    return SK_OK;
}

static const char *inventory_for(const cs_diagnose_opts *o, const char *record)
{
    for (size_t i = 0; i < o->ninv; i++)
        if (strcmp(o->inv_records[i], record) == 0)
            return o->inv_paths[i];
    return NULL;
}

static sk_err check_inventories(const cs_diagnose_opts *o, sk_diag *d)
{
    for (size_t i = 0; i < o->ninv; i++) {
        int known = strcmp(o->inv_records[i], o->baseline) == 0;
        for (size_t j = 0; !known && j < o->nattempts; j++)
            known = strcmp(o->inv_records[i], o->attempts[j]) == 0;
        if (!known)
            return sk_diag_set(d, SK_E_ARG, "", 0,
                               "--pyhooks-inventory names '%s', which is not a --baseline or "
                               "--attempt record",
                               o->inv_records[i]);
        for (size_t j = 0; j < i; j++)
            if (strcmp(o->inv_records[i], o->inv_records[j]) == 0)
                return sk_diag_set(d, SK_E_ARG, "", 0,
                                   "--pyhooks-inventory given more than once for '%s'",
                                   o->inv_records[i]);
    }
    return SK_OK;
}

static sk_err side_json(cJSON *obj, const char *key, const side *s, cJSON **factors)
{
    cJSON *o = cJSON_CreateObject();
    if (sk_json_add(obj, key, o) || cs_json_add_display(o, "path", s->path) ||
        sk_json_add_str(o, "sha256", s->rec->file_sha256) ||
        sk_json_add_bool(o, "pyhooks_inventory", s->inventory))
        return SK_E_NOMEM;
    sk_err e = sk_json_add(o, "factors", *factors);
    *factors = NULL;
    return e;
}

/* Compares one attempt with the baseline and appends the comparison. */
static sk_err compare(cJSON *arr, const side *b, const side *a, cs_diag_verdict *verdict)
{
    /* each item is created by the call that takes it, so a failure leaves
     * nothing unowned */
    cJSON *o = NULL, *changed = NULL, *one_sided = NULL, *unrec = NULL;
    if (sk_json_append(arr, o = cJSON_CreateObject()) ||
        sk_json_add(o, "changed", changed = cJSON_CreateArray()) ||
        sk_json_add(o, "recorded_on_one_side_only", one_sided = cJSON_CreateArray()) ||
        sk_json_add(o, "not_recorded", unrec = cJSON_CreateArray()) ||
        cs_json_add_display(o, "attempt", a->path))
        return SK_E_NOMEM;
    size_t nchanged = 0, none = 0;
    const char *first = NULL;
    for (int f = 0; f < F_N; f++) {
        const char *name = factor_names[f];
        cJSON *dst = NULL;
        int asym = b->recorded[f] != a->recorded[f] ||
                   (f == F_STARTUP && b->inventory != a->inventory);
        if (asym) {
            dst = one_sided;
            none++;
        } else if (!b->recorded[f]) {
            dst = unrec;
        } else {
            const cJSON *bv = sk_json_get(sk_json_get(b->factors, name), "value");
            const cJSON *av = sk_json_get(sk_json_get(a->factors, name), "value");
            int eq = sk_json_equal(bv, av);
            if (eq < 0)
                return SK_E_NOMEM;
            if (!eq) {
                dst = changed;
                if (!nchanged++)
                    first = name;
            }
        }
        if (dst && sk_json_append(dst, cJSON_CreateString(name)))
            return SK_E_NOMEM;
    }
    *verdict = none || nchanged > 1 ? CS_DV_CONFOUNDED
               : nchanged == 1      ? CS_DV_SINGLE_FACTOR
                                    : CS_DV_NO_CHANGE;
    sk_buf c = SK_BUF_INIT;
    sk_err e;
    if (*verdict == CS_DV_SINGLE_FACTOR)
        e = sk_buf_printf(&c, "only conclusion allowed: the change of %s is located as the "
                              "trigger; it proves nothing about the other factors, the profiler "
                              "schedule value or a named operator",
                          first);
    else if (*verdict == CS_DV_NO_CHANGE)
        e = sk_buf_puts(&c, "a repeat: no factor changed, so a different result is not the effect "
                            "of any factor");
    else if (none)
        e = sk_buf_puts(&c, "no conclusion: a factor is recorded on one side only, so it cannot "
                            "be compared");
    else
        e = sk_buf_printf(&c, "no conclusion: %zu factors changed together; change one at a time",
                          nchanged);
    if (!e)
        e = sk_json_add_str(o, "conclusion", sk_buf_cstr(&c));
    if (!e)
        e = sk_json_add_str(o, "verdict", cs_diag_verdict_name(*verdict));
    sk_buf_free(&c);
    return e;
}

static sk_err sources_json(cJSON *root, const cs_diagnose_opts *o)
{
    cJSON *s = NULL;
    sk_buf p = SK_BUF_INIT, c = SK_BUF_INIT;
    sk_err e = SK_OK;
    if (o->profiler_env)
        e = sk_buf_printf(&p, "environment %s", o->profiler_env);
    if (!e && o->cache_seed_env)
        e = sk_buf_printf(&c, "environment %s", o->cache_seed_env);
    if (e || sk_json_add(root, "factor_sources", s = cJSON_CreateObject()) ||
        sk_json_add_str(s, "startup_override",
                        "environment PYTHONSTARTUP and PYTHONPATH (ordered entries), and the "
                        "SHA-256 of a pyhooks inventory's files list when one is given") ||
        sk_json_add_str(s, "profiler", o->profiler_env ? sk_buf_cstr(&p) : NULL) ||
        sk_json_add_str(s, "sk_trace", "environment ASCEND_PROF_SK_ON") ||
        sk_json_add_str(s, "cache_seed", o->cache_seed_env ? sk_buf_cstr(&c) : NULL) ||
        sk_json_add_str(s, "compile_jobs", "environment NPU_STATIC_KERNEL_COMPILE_JOBS") ||
        sk_json_add_str(s, "command", "command argv and cwd"))
        e = SK_E_NOMEM;
    sk_buf_free(&p);
    sk_buf_free(&c);
    return e;
}

sk_err cs_diagnose_run(const cs_diagnose_opts *o, cs_diagnose_result *r, sk_diag *d)
{
    sk_err e = SK_OK;
    side base = {0};
    side *att = NULL;
    cJSON *root = NULL;
    sk_buf h = SK_BUF_INIT;
    size_t count[3] = {0, 0, 0};
    memset(r, 0, sizeof *r);
    e = check_inventories(o, d);
    if (e)
        goto out;
    att = sk_calloc(o->nattempts ? o->nattempts : 1, sizeof *att);
    if (!att) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    e = side_load(&base, o->baseline, inventory_for(o, o->baseline), o, d);
    for (size_t i = 0; !e && i < o->nattempts; i++)
        e = side_load(&att[i], o->attempts[i], inventory_for(o, o->attempts[i]), o, d);
    if (e)
        goto out;
    root = cJSON_CreateObject();
    cJSON *comps = NULL, *atts = NULL;
    if (sk_json_add(root, "comparisons", comps = cJSON_CreateArray()) ||
        sk_json_add(root, "attempts", atts = cJSON_CreateArray()) ||
        sources_json(root, o)) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < o->nattempts; i++) {
        cs_diag_verdict v;
        if (compare(comps, &base, &att[i], &v)) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
        count[v]++;
    }
    for (size_t i = 0; i < o->nattempts; i++) {
        cJSON *ao = cJSON_CreateObject();
        if (sk_json_append(atts, ao) || side_json(ao, "record", &att[i], &att[i].factors)) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
    }
    r->confounded = count[CS_DV_CONFOUNDED] > 0;
    if (side_json(root, "baseline", &base, &base.factors) ||
        sk_json_add_str(root, "schema_version", CS_DIAGNOSE_SCHEMA) ||
        sk_json_add_str(root, "diagnosis", r->confounded ? "confounded" : "attributable") ||
        sk_buf_printf(&h, "%s: %zu comparison(s): %zu single_factor, %zu no_change, %zu confounded",
                      r->confounded ? "confounded" : "attributable", o->nattempts,
                      count[CS_DV_SINGLE_FACTOR], count[CS_DV_NO_CHANGE],
                      count[CS_DV_CONFOUNDED]) ||
        !(r->human = sk_buf_take(&h))) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    r->report = root;
    root = NULL;
out:
    sk_buf_free(&h);
    cJSON_Delete(root);
    side_free(&base);
    for (size_t i = 0; att && i < o->nattempts; i++)
        side_free(&att[i]);
    sk_free(att);
    if (e)
        cs_diagnose_result_free(r);
    return e;
}

void cs_diagnose_result_free(cs_diagnose_result *r)
{
    if (r)
        cs_report_clear(&r->report, &r->human);
}
