/* skdcci pyhooks scan|freeze|diff: Python start-up hooks before a launch. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/compile_safety/cs_pyhooks.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cs_cli.h"
#include "analyzer/cli/skx_exit.h"

extern char **environ;

const char cmd_pyhooks_usage[] =
    "Usage: skdcci pyhooks scan   [SCAN OPTIONS] [--against INVENTORY] [--json-out FILE]\n"
    "       skdcci pyhooks freeze --out INVENTORY [SCAN OPTIONS]\n"
    "       skdcci pyhooks diff   APPROVED_INVENTORY CURRENT_INVENTORY [--json-out FILE]\n"
    "\n"
    "Detects Python interpreter start-up hooks that would change import order before a\n"
    "launcher runs: sitecustomize/usercustomize in any form, executable import lines in\n"
    ".pth files of site directories, PYTHONSTARTUP, PYTHONPATH entries not approved, and\n"
    "modules shadowing torch, torch_npu, application packages or the start-up modules\n"
    "site and encodings. The interpreter is queried with -S, so no hook runs.\n"
    "\n"
    "Scan options:\n"
    "  --python PATH              target interpreter (default python3, found through the\n"
    "                             PATH of the launch environment)\n"
    "  --env-file FILE            launch environment: NAME=VALUE lines, or NUL-separated\n"
    "                             entries (/proc/PID/environ); default: this environment\n"
    "  --cwd DIR                  launcher working directory (default: current directory);\n"
    "                             must exist\n"
    "  --script-dir DIR           launcher script directory, scanned too; repeatable; must\n"
    "                             exist and be readable\n"
    "  --app-package NAME         application package that must not be shadowed; repeatable\n"
    "  --approve-pythonpath DIR   approved PYTHONPATH entry (exact text) when no inventory\n"
    "                             is given; repeatable\n"
    "  --profiler-schedule JSON   effective profiler schedule to record, e.g.\n"
    "                             '{\"active\":5,\"warmup\":1,\"repeat\":1,\"skip_first\":10}'\n"
    "  --timeout SEC              bound for the interpreter query (default 30)\n"
    "\n"
    "scan: reports every hook; without --against anything not approved blocks, with\n"
    "  --against INVENTORY anything new, changed or removed since the inventory blocks.\n"
    "  JSON (schema skdcci-pyhooks-scan-1) on stdout or published at --json-out FILE.\n"
    "freeze: writes the approved inventory (paths + SHA-256 of every hook file, ordered\n"
    "  PYTHONPATH, interpreter, profiler schedule; canonical JSON, never overwritten).\n"
    "  Refuses while PYTHONSTARTUP is set, a start-up module is shadowed or a hook file\n"
    "  cannot be hashed.\n"
    "diff: compares two inventories (schema skdcci-pyhooks-diff-1).\n"
    "Every form prints one verdict line on stderr.\n"
    "\n"
    "Exit codes:\n"
    "   0  clean (scan, diff) or inventory written (freeze)\n"
    "  10  blocked: named blockers in the report (freeze: refused)\n"
    "   1  the interpreter cannot be queried, an input is unreadable or malformed, or an\n"
    "      output cannot be written\n"
    "   2  usage error\n";

enum { O_PYTHON = 1, O_ENV_FILE, O_CWD, O_SCRIPT_DIR, O_APP, O_APPROVE, O_SCHEDULE, O_TIMEOUT,
       O_AGAINST, O_JSON_OUT, O_OUT };

typedef struct pyargs {
    cs_pyhooks_opts o;
    cs_args script_dirs, apps, approved;
    const char *env_file, *against, *json_out, *out;
    int64_t timeout_s;
    cs_env env;
    int env_loaded;
} pyargs;

static void pyargs_free(pyargs *a)
{
    cs_args_free(&a->script_dirs);
    cs_args_free(&a->apps);
    cs_args_free(&a->approved);
    if (a->env_loaded)
        cs_env_free(&a->env);
}

/* Parses the options of scan and freeze; returns -1 on success, else the exit code. */
static int parse_scan_options(const char *cmd, int argc, char **argv, int allow_against,
                              int allow_out, pyargs *a)
{
    static const struct option longopts[] = {
        {"python", required_argument, NULL, O_PYTHON},
        {"env-file", required_argument, NULL, O_ENV_FILE},
        {"cwd", required_argument, NULL, O_CWD},
        {"script-dir", required_argument, NULL, O_SCRIPT_DIR},
        {"app-package", required_argument, NULL, O_APP},
        {"approve-pythonpath", required_argument, NULL, O_APPROVE},
        {"profiler-schedule", required_argument, NULL, O_SCHEDULE},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"against", required_argument, NULL, O_AGAINST},
        {"json-out", required_argument, NULL, O_JSON_OUT},
        {"out", required_argument, NULL, O_OUT},
        {NULL, 0, NULL, 0},
    };
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        int oom = 0;
        switch (c) {
        case O_PYTHON:
            a->o.python = optarg;
            break;
        case O_ENV_FILE:
            a->env_file = optarg;
            break;
        case O_CWD:
            a->o.cwd = optarg;
            break;
        case O_SCRIPT_DIR:
            oom = cs_args_add(&a->script_dirs, optarg);
            break;
        case O_APP:
            oom = cs_args_add(&a->apps, optarg);
            break;
        case O_APPROVE:
            oom = cs_args_add(&a->approved, optarg);
            break;
        case O_SCHEDULE:
            a->o.profiler_schedule = optarg;
            break;
        case O_TIMEOUT:
            if (cli_parse_i64(optarg, &a->timeout_s) || a->timeout_s < 1 || a->timeout_s > 3600)
                return cli_usage(cmd, "--timeout must be a whole number of seconds in 1..3600");
            break;
        case O_AGAINST:
            if (!allow_against)
                return cli_usage(cmd, "--against is only valid for pyhooks scan");
            a->against = optarg;
            break;
        case O_JSON_OUT:
            if (allow_out)
                return cli_usage(cmd, "--json-out is not valid for pyhooks freeze (use --out)");
            a->json_out = optarg;
            break;
        case O_OUT:
            if (!allow_out)
                return cli_usage(cmd, "--out is only valid for pyhooks freeze");
            a->out = optarg;
            break;
        default:
            return cli_bad_option(cmd, argv, c);
        }
        if (oom) {
            cli_error("out of memory");
            return SKX_FAIL;
        }
    }
    if (optind < argc)
        return cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    if (allow_out && !a->out)
        return cli_usage(cmd, "--out is required");
    a->o.script_dirs = a->script_dirs.v;
    a->o.nscript = a->script_dirs.n;
    a->o.app_packages = a->apps.v;
    a->o.napp = a->apps.n;
    a->o.approved_pythonpath = a->approved.v;
    a->o.napproved = a->approved.n;
    a->o.timeout_ms = (int)a->timeout_s * 1000;
    return -1;
}

static int load_env(pyargs *a, sk_diag *d)
{
    sk_err e = a->env_file ? cs_env_load(a->env_file, &a->env, d) : cs_env_from(environ, &a->env, d);
    if (e)
        return cs_fail(d);
    a->env_loaded = 1;
    a->o.env = &a->env;
    a->o.env_source = a->env_file ? a->env_file : "current environment";
    return -1;
}

static void first_blocker_line(const char *cmd, const char *what, cs_blockers *b)
{
    cJSON *tmp = NULL;
    if (cs_blockers_json(b, &tmp) == SK_OK && b->n) {
        char *shown = b->v[0].path ? cs_display_dup(b->v[0].path, strlen(b->v[0].path)) : NULL;
        cs_verdict_line(cmd, "%s: %zu blocker(s); first: %s%s%s: %s", what, b->n, b->v[0].name,
                        shown ? " " : "", shown ? shown : "", b->v[0].detail);
        sk_free(shown);
    }
    cJSON_Delete(tmp);
}

/* What scan and freeze do first: the options (scan takes --against, freeze
 * --out), the environment, the approved inventory (--against) and the scan.
 * Returns -1 when the scan ran (*scanned = 1), else the exit code. */
static int start_scan(const char *cmd, int argc, char **argv, int scan, pyargs *a,
                      cs_pyhooks_scan *s, int *scanned, cJSON **inv, char *inv_sha, sk_diag *d)
{
    int rc = parse_scan_options(cmd, argc, argv, scan, !scan, a);
    if (rc >= 0 || (rc = load_env(a, d)) >= 0)
        return rc;
    if ((a->against && cs_pyhooks_inventory_load(a->against, inv, inv_sha, d)) ||
        cs_pyhooks_scan_run(&a->o, s, d))
        return cs_fail(d);
    *scanned = 1;
    return -1;
}

static int do_scan(int argc, char **argv)
{
    const char *cmd = "pyhooks scan";
    pyargs a;
    memset(&a, 0, sizeof a);
    cs_pyhooks_scan s;
    memset(&s, 0, sizeof s);
    int scanned = 0;
    cs_blockers b = {0};
    cJSON *inv = NULL, *cur = NULL, *report = NULL;
    char inv_sha[65] = "";
    sk_diag d;
    sk_diag_clear(&d);
    int rc = start_scan(cmd, argc, argv, 1, &a, &s, &scanned, &inv, inv_sha, &d);
    if (rc >= 0)
        goto out;
    sk_err e;
    if (inv) {
        e = cs_pyhooks_blockers_forbidden(&s, &b, &d);
        if (!e && !s.query_skipped) {
            e = cs_pyhooks_inventory(&s, &cur, &d);
            if (!e)
                e = cs_pyhooks_blockers_diff(inv, cur, &b, &d);
        }
    } else {
        e = cs_pyhooks_blockers_unapproved(&s, &a.o, &b, &d);
    }
    if (!e)
        e = cs_pyhooks_report(&s, &b, a.against, a.against ? inv_sha : NULL, &report, &d);
    if (!e)
        e = cs_emit_json(report, a.json_out, &d);
    if (e) {
        rc = cs_fail(&d);
        goto out;
    }
    if (b.n) {
        first_blocker_line(cmd, "blocked", &b);
        rc = SKX_REJECTED;
    } else {
        cs_verdict_line(cmd, "clean: %zu hook file(s) %s", s.hooks.n,
                        inv ? "all match the approved inventory" : "and none needs approval");
        rc = SKX_OK;
    }
out:
    cJSON_Delete(report);
    cJSON_Delete(cur);
    cJSON_Delete(inv);
    cs_blockers_free(&b);
    if (scanned)
        cs_pyhooks_scan_free(&s);
    pyargs_free(&a);
    return rc;
}

static int do_freeze(int argc, char **argv)
{
    const char *cmd = "pyhooks freeze";
    pyargs a;
    memset(&a, 0, sizeof a);
    cs_pyhooks_scan s;
    memset(&s, 0, sizeof s);
    int scanned = 0;
    cs_blockers b = {0};
    cJSON *inv = NULL;
    char inv_sha[65] = "";
    sk_diag d;
    sk_diag_clear(&d);
    int rc = start_scan(cmd, argc, argv, 0, &a, &s, &scanned, &inv, inv_sha, &d);
    if (rc >= 0)
        goto out;
    if (cs_pyhooks_blockers_forbidden(&s, &b, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    if (b.n) {
        first_blocker_line(cmd, "refused", &b);
        rc = SKX_REJECTED;
        goto out;
    }
    if (cs_pyhooks_inventory(&s, &inv, &d) || cs_emit_json(inv, a.out, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    cs_verdict_line(cmd, "froze %d hook file(s) and a PYTHONPATH of %zu entr%s into %s",
                    cJSON_GetArraySize(sk_json_get(inv, "files")), s.pythonpath.n,
                    s.pythonpath.n == 1 ? "y" : "ies", a.out);
    rc = SKX_OK;
out:
    cJSON_Delete(inv);
    cs_blockers_free(&b);
    if (scanned)
        cs_pyhooks_scan_free(&s);
    pyargs_free(&a);
    return rc;
}

static sk_err side_json(cJSON *report, const char *key, const char *path, const char *sha)
{
    cJSON *o = cJSON_CreateObject();
    sk_err e = sk_json_add(report, key, o);
    char *shown = e ? NULL : cs_display_dup(path, strlen(path));
    if (!e)
        e = shown ? sk_json_add_str(o, "path", shown) : SK_E_NOMEM;
    sk_free(shown);
    if (!e)
        e = sk_json_add_str(o, "sha256", sha);
    return e;
}

static sk_err diff_report(cs_blockers *b, const char *pa, const char *sa, const char *pc,
                          const char *sc, cJSON **out, sk_diag *d)
{
    cJSON *report = cJSON_CreateObject(), *bl = NULL;
    sk_err e = report ? SK_OK : SK_E_NOMEM;
    if (!e)
        e = sk_json_add_str(report, "schema_version", CS_PYHOOKS_DIFF_SCHEMA);
    if (!e)
        e = sk_json_add_str(report, "verdict", b->n ? "blocked" : "clean");
    if (!e)
        e = cs_blockers_json(b, &bl);
    if (!e)
        e = sk_json_add(report, "blockers", bl);
    if (!e)
        e = side_json(report, "approved", pa, sa);
    if (!e)
        e = side_json(report, "current", pc, sc);
    if (e) {
        cJSON_Delete(report);
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    }
    *out = report;
    return SK_OK;
}

static int do_diff(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json-out", required_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "pyhooks diff", *json_out = NULL;
    cJSON *a = NULL, *c = NULL, *report = NULL;
    char sa[65], sc[65];
    cs_blockers b = {0};
    int rc = SKX_FAIL;
    sk_diag d;
    sk_diag_clear(&d);
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch != 'j') {
            rc = cli_bad_option(cmd, argv, ch);
            goto out;
        }
        json_out = optarg;
    }
    if (argc - optind != 2) {
        rc = cli_usage(cmd, "expected APPROVED_INVENTORY and CURRENT_INVENTORY");
        goto out;
    }
    const char *pa = argv[optind], *pc = argv[optind + 1];
    sk_err e = cs_pyhooks_inventory_load(pa, &a, sa, &d);
    if (!e)
        e = cs_pyhooks_inventory_load(pc, &c, sc, &d);
    if (!e)
        e = cs_pyhooks_blockers_diff(a, c, &b, &d);
    if (!e)
        e = diff_report(&b, pa, sa, pc, sc, &report, &d);
    if (!e)
        e = cs_emit_json(report, json_out, &d);
    if (e) {
        rc = cs_fail(&d);
        goto out;
    }
    if (b.n) {
        first_blocker_line(cmd, "blocked", &b);
        rc = SKX_REJECTED;
    } else {
        cs_verdict_line(cmd, "clean: the inventories agree");
        rc = SKX_OK;
    }
out:
    cJSON_Delete(report);
    cJSON_Delete(a);
    cJSON_Delete(c);
    cs_blockers_free(&b);
    return rc;
}

int cmd_pyhooks(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage("pyhooks", "a subcommand is required (scan, freeze or diff)");
    if (strcmp(argv[1], "scan") == 0)
        return do_scan(argc - 1, argv + 1);
    if (strcmp(argv[1], "freeze") == 0)
        return do_freeze(argc - 1, argv + 1);
    if (strcmp(argv[1], "diff") == 0)
        return do_diff(argc - 1, argv + 1);
    return cli_usage("pyhooks", "unknown subcommand '%s' (expected scan, freeze or diff)", argv[1]);
}
