#include "analyzer/compile_safety/cs_pyquery.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/compile_safety/cs_spawn.h"

/* Only builtin modules (sys, posix, _imp) and site (frozen from 3.11 on, and
 * found in the trimmed standard-library path before) are imported. */
const char cs_pyquery_script[] =
    "import sys\n"
    "E=sys.getfilesystemencoding();R=sys.getfilesystemencodeerrors()\n"
    "def h(s):return '\"'+(s if isinstance(s,bytes) else s.encode(E,R)).hex()+'\"'\n"
    "def l(v):return '['+','.join(h(x) for x in v)+']'\n"
    "P=list(sys.path)\n"
    "import posix\n"
    "V=posix.environ.get(b'PYTHONPATH',b'')\n"
    "N=len(V.split(b':')) if V else 0\n"
    "F=sys.flags\n"
    "K=0 if getattr(F,'safe_path',0) else 1\n"
    "sys.path[:]=P[K+N:]\n"
    "import site,_imp\n"
    "U=site.check_enableusersite()\n"
    "S=site.getsitepackages() if hasattr(site,'getsitepackages') else []\n"
    "G=lambda k:int(getattr(F,k,0))\n"
    "print('{\"sys_path\":'+l(P)+',\"query_entries\":%d,\"pythonpath_entries\":%d'%(K,N)"
    "+',\"site_packages\":'+l(S)+',\"user_site\":'+h(site.getusersitepackages())"
    "+',\"user_site_enabled\":'+('null' if U is None else 'true' if U else 'false')"
    "+',\"flags\":{\"no_user_site\":%d,\"ignore_environment\":%d,\"isolated\":%d,\"safe_path\":%d}'"
    "%(G('no_user_site'),G('ignore_environment'),G('isolated'),G('safe_path'))"
    "+',\"executable\":'+h(sys.executable)+',\"prefix\":'+h(sys.prefix)"
    "+',\"base_prefix\":'+h(getattr(sys,'base_prefix',sys.prefix))"
    "+',\"exec_prefix\":'+h(sys.exec_prefix)"
    "+',\"version\":\"%d.%d.%d\"'%tuple(sys.version_info[:3])"
    "+',\"cache_tag\":'+h(sys.implementation.cache_tag or '')"
    "+',\"extension_suffixes\":'+l(_imp.extension_suffixes())+'}')\n";

void cs_pyinfo_free(cs_pyinfo *p)
{
    if (!p)
        return;
    sk_free(p->program);
    cs_strlist_free(&p->sys_path);
    cs_strlist_free(&p->site_packages);
    cs_strlist_free(&p->extension_suffixes);
    sk_free(p->user_site);
    sk_free(p->executable);
    sk_free(p->prefix);
    sk_free(p->base_prefix);
    sk_free(p->exec_prefix);
    sk_free(p->version);
    sk_free(p->cache_tag);
    memset(p, 0, sizeof *p);
}

#define LABEL "interpreter query"

static sk_err hex_string(const cJSON *n, const char *field, char **out, sk_diag *d)
{
    if (!cJSON_IsString(n))
        return sk_diag_set(d, SK_E_SCHEMA, LABEL, 0, "%s must be a hex string", field);
    size_t len = 0;
    sk_err e = cs_hex_decode(n->valuestring, out, &len, d);
    if (e == SK_E_NOMEM)
        return e;
    if (e) {
        char why[SK_DIAG_MSG_MAX];
        snprintf(why, sizeof why, "%s", d ? d->msg : "");
        return sk_diag_set(d, SK_E_SCHEMA, LABEL, 0, "%s is not hex: %s", field, why);
    }
    if (strlen(*out) != len) {
        sk_free(*out);
        *out = NULL;
        return sk_diag_set(d, SK_E_SCHEMA, LABEL, 0, "%s holds a NUL byte", field);
    }
    return SK_OK;
}

static sk_err hex_list(const cJSON *arr, const char *field, cs_strlist *out, sk_diag *d)
{
    if (!cJSON_IsArray(arr))
        return sk_diag_set(d, SK_E_SCHEMA, LABEL, 0, "%s must be an array", field);
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        char *s = NULL;
        sk_err e = hex_string(it, field, &s, d);
        if (e)
            return e;
        e = cs_strlist_add(out, s);
        sk_free(s);
        if (e)
            return sk_diag_set(d, SK_E_NOMEM, LABEL, 0, "out of memory");
    }
    return SK_OK;
}

static sk_err small_int(const cJSON *n, const char *field, int64_t max, int64_t *out, sk_diag *d)
{
    if (!n || !sk_json_is_int(n) || sk_json_get_i64(n, out) || *out < 0 || *out > max)
        return sk_diag_set(d, SK_E_SCHEMA, LABEL, 0, "%s must be an integer in 0..%lld", field,
                           (long long)max);
    return SK_OK;
}

sk_err cs_pyquery_parse(const char *text, size_t len, cs_pyinfo *out, sk_diag *d)
{
    static const char *const keys[] = {"sys_path", "query_entries", "pythonpath_entries",
                                       "site_packages", "user_site", "user_site_enabled",
                                       "flags", "executable", "prefix", "base_prefix",
                                       "exec_prefix", "version", "cache_tag",
                                       "extension_suffixes", NULL};
    static const char *const flag_keys[] = {"no_user_site", "ignore_environment", "isolated",
                                            "safe_path", NULL};
    sk_err e = SK_OK;
    cJSON *root = NULL;
    sk_json_lex_opts o = {.label = LABEL};
    memset(out, 0, sizeof *out);
    e = sk_json_parse(text, len, &o, &root, d);
    if (e)
        goto out;
    e = sk_json_check_keys(root, LABEL, keys, NULL, d);
    if (e)
        goto out;
    const cJSON *flags = sk_json_get(root, "flags");
    e = sk_json_check_keys(flags, LABEL " flags", flag_keys, NULL, d);
    if (e)
        goto out;
    int64_t v;
    int *fdst[4] = {&out->no_user_site, &out->ignore_environment, &out->isolated, &out->safe_path};
    for (int i = 0; i < 4; i++) {
        if ((e = small_int(sk_json_get(flags, flag_keys[i]), flag_keys[i], 1, &v, d)))
            goto out;
        *fdst[i] = (int)v;
    }
    if ((e = hex_list(sk_json_get(root, "sys_path"), "sys_path", &out->sys_path, d)) ||
        (e = hex_list(sk_json_get(root, "site_packages"), "site_packages", &out->site_packages, d)) ||
        (e = hex_list(sk_json_get(root, "extension_suffixes"), "extension_suffixes",
                      &out->extension_suffixes, d)) ||
        (e = hex_string(sk_json_get(root, "user_site"), "user_site", &out->user_site, d)) ||
        (e = hex_string(sk_json_get(root, "executable"), "executable", &out->executable, d)) ||
        (e = hex_string(sk_json_get(root, "prefix"), "prefix", &out->prefix, d)) ||
        (e = hex_string(sk_json_get(root, "base_prefix"), "base_prefix", &out->base_prefix, d)) ||
        (e = hex_string(sk_json_get(root, "exec_prefix"), "exec_prefix", &out->exec_prefix, d)) ||
        (e = hex_string(sk_json_get(root, "cache_tag"), "cache_tag", &out->cache_tag, d)))
        goto out;
    if ((e = small_int(sk_json_get(root, "query_entries"), "query_entries", 1, &v, d)))
        goto out;
    out->query_entries = (size_t)v;
    if ((e = small_int(sk_json_get(root, "pythonpath_entries"), "pythonpath_entries", 100000, &v, d)))
        goto out;
    out->pythonpath_entries = (size_t)v;
    if (out->query_entries + out->pythonpath_entries > out->sys_path.n) {
        e = sk_diag_set(d, SK_E_SCHEMA, LABEL, 0,
                        "sys_path has %zu entries, fewer than the %zu query and PYTHONPATH entries",
                        out->sys_path.n, out->query_entries + out->pythonpath_entries);
        goto out;
    }
    const cJSON *u = sk_json_get(root, "user_site_enabled");
    if (cJSON_IsNull(u))
        out->user_site_enabled = -1;
    else if (cJSON_IsBool(u))
        out->user_site_enabled = cJSON_IsTrue(u);
    else {
        e = sk_diag_set(d, SK_E_SCHEMA, LABEL, 0, "user_site_enabled must be true, false or null");
        goto out;
    }
    const cJSON *ver = sk_json_get(root, "version");
    if (!cJSON_IsString(ver) || strlen(ver->valuestring) > 32) {
        e = sk_diag_set(d, SK_E_SCHEMA, LABEL, 0, "version must be a short string");
        goto out;
    }
    out->version = sk_strdup(ver->valuestring);
    if (!out->version)
        e = sk_diag_set(d, SK_E_NOMEM, LABEL, 0, "out of memory");
out:
    cJSON_Delete(root);
    if (e)
        cs_pyinfo_free(out);
    return e;
}

sk_err cs_pyquery_run(const char *python, const cs_env *env, const char *cwd, int timeout_ms,
                      cs_pyinfo *out, sk_diag *d)
{
    sk_err e = SK_OK;
    cs_env qenv = {0};
    sk_buf so = SK_BUF_INIT, se = SK_BUF_INIT;
    char *program = NULL;
    memset(out, 0, sizeof *out);
    e = cs_env_resolve_program(env, python, &program, d);
    if (e)
        goto out;
    e = cs_env_from(env->v, &qenv, d);
    if (e)
        goto out;
    cs_env_unset(&qenv, "PYTHONINSPECT");
    char *argv[] = {program, (char *)"-S", (char *)"-c", (char *)cs_pyquery_script, NULL};
    cs_exit st;
    e = cs_spawn_capture(program, argv, qenv.v, cwd,
                         timeout_ms > 0 ? timeout_ms : CS_PYQUERY_TIMEOUT_MS_DEFAULT,
                         CS_PYQUERY_MAX_OUTPUT, &so, &se, &st, d);
    if (e) {
        sk_diag_prefix(d, "interpreter query");
        goto out;
    }
    if (!st.exited || st.code != 0) {
        char how[64];
        cs_exit_describe(&st, how, sizeof how);
        const char *first = sk_buf_cstr(&se);
        /* the last stderr line of a Python traceback names the error */
        const char *last = first;
        for (const char *p = first; *p; p++)
            if (*p == '\n' && p[1])
                last = p + 1;
        const char *nl = strchr(last, '\n');
        e = sk_diag_set(d, SK_E_IO, program, 0, "interpreter query failed (%s): %.*s", how,
                        (int)(nl ? (size_t)(nl - last) : strlen(last)), last);
        goto out;
    }
    e = cs_pyquery_parse(so.data ? so.data : "", so.len, out, d);
    if (e)
        goto out;
    out->program = program;
    program = NULL;
out:
    sk_free(program);
    cs_env_free(&qenv);
    sk_buf_free(&so);
    sk_buf_free(&se);
    return e;
}
