/* skdcci handoff seal|verify: the Stage O result for the controller
 * (docs/handoff.md). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"
#include "analyzer/stage_o/so_handoff.h"
#include "analyzer/stage_o/so_ledger.h"
#include "analyzer/stage_o/so_ledger_ops.h"
#include "analyzer/stage_o/so_phase.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/cli/so_cli.h"

const char cmd_handoff_usage[] =
    "Usage: skdcci handoff seal --ledger FILE -o DIR [--task TASK_JSON]\n"
    "       skdcci handoff verify DIR [--against-config CONFIG]\n"
    "\n"
    "seal    writes the Stage O result for the auto-tune controller once, from the\n"
    "        ledger: DIR (inside the ledger's directory, never overwritten) gets\n"
    "          phase-result.json          the controller's phase-result v1 fields\n"
    "                                     and the stage_o block\n"
    "          STAGE_O_HANDOFF.md         the Chinese report\n"
    "          winner-option-matrix.json  the settled matrix (from the ledger)\n"
    "          option-maps.json           the exact option maps of Sbest-BASE\n"
    "        The status is derived from the ledger: accepted when a value joined\n"
    "        the incumbent, no_gain when none did, blocked or failed from the stop\n"
    "        record of a Stage O that cannot go on (ledger stop; its blocker comes\n"
    "        first in blockers[], the next steps say how to clear it).  The result\n"
    "        holds the matrix\n"
    "        and its digest, every evidence file and failure scene (relative path\n"
    "        and SHA-256), the option maps and their digest, the Sbest-BASE\n"
    "        identity, the ledger path and head hash, and Chinese summary and next\n"
    "        steps.  Refused (exit 10, nothing written) when BASE is not frozen\n"
    "        (neither ledger freeze nor ledger stop recorded),\n"
    "        when a failed attempt has no valid failure scene, or when evidence\n"
    "        the ledger binds changed.\n"
    "        --task TASK_JSON  the dispatch task: the result carries its session id\n"
    "                          and is bound to its SHA-256 and session fingerprint\n"
    "\n"
    "verify  checks a sealed hand-off: its shape, Chinese texts, the digests of its\n"
    "        files, the ledger up to the sealed head (only later-config checks may\n"
    "        follow it), every bound file re-hashed, and a rebuild from those\n"
    "        records compared member by member (the status re-derived).\n"
    "        --against-config CONFIG  a later (P/FINAL) config must hold exactly\n"
    "                          Sbest-BASE's option maps, compared by recomputed\n"
    "                          digest; each changed option is named (exit 10);\n"
    "                          changes outside the option maps are allowed\n"
    "\n"
    "Exit: 0 sealed / valid, 10 refused, violations, a changed option, or a ledger or\n"
    "bound file that is not what was recorded (one line naming the record and file),\n"
    "1 input or I/O error (an existing DIR included), 2 usage error.\n"
    "Details: docs/handoff.md\n";

/* A contract error is a refusal or a ledger or piece of evidence that is
 * not what was recorded (exit 10); anything else is an input error. */
static int fail(const sk_diag *d)
{
    cli_error_diag(d);
    return d->code == SK_E_CONTRACT && d->sub != SO_LEDGER_SUB_LOCKED ? SKX_REJECTED : SKX_FAIL;
}

/* The directories between dir and its deepest existing ancestor, created
 * for the hand-off; removed again (deepest first) when sealing fails. */
typedef struct made_dirs {
    char *path;      /* dir's parent, as created */
    size_t keep_len; /* length of the deepest ancestor that existed before */
    int made;
} made_dirs;

static sk_err make_parents(const char *dir, made_dirs *m, sk_diag *d)
{
    struct stat st;
    memset(m, 0, sizeof *m);
    const char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return SK_OK;
    if (!(m->path = sk_strndup(dir, (size_t)(slash - dir))))
        return sk_diag_set(d, SK_E_NOMEM, dir, 0, "out of memory");
    if (lstat(m->path, &st) == 0)
        return SK_OK;
    m->keep_len = strlen(m->path);
    while (m->keep_len > 0) {
        while (m->keep_len > 0 && m->path[m->keep_len - 1] != '/')
            m->keep_len--;
        if (m->keep_len == 0)
            break;
        m->path[m->keep_len - 1] = '\0';
        int exists = lstat(m->path, &st) == 0;
        m->path[m->keep_len - 1] = '/';
        if (exists)
            break;
        m->keep_len--;
    }
    m->made = 1;
    return sk_mkdir_p(m->path, 0755, d);
}

static void unmake_parents(made_dirs *m, int failed)
{
    if (failed && m->made) {
        for (size_t n = strlen(m->path); n > m->keep_len;) {
            rmdir(m->path);
            while (n > m->keep_len && m->path[n - 1] != '/')
                n--;
            while (n > m->keep_len && m->path[n - 1] == '/')
                n--;
            m->path[n] = '\0';
        }
    }
    sk_free(m->path);
    memset(m, 0, sizeof *m);
}

static int seal(int argc, char **argv)
{
    static const char *const cmd = "handoff seal";
    enum { OPT_LEDGER = 1000, OPT_TASK };
    static const struct option opts[] = {
        {"ledger", required_argument, NULL, OPT_LEDGER},
        {"task", required_argument, NULL, OPT_TASK},
        {"out", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    const char *ledger = NULL, *dir = NULL, *task_path = NULL;
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1;) {
        const char **slot = c == OPT_LEDGER ? &ledger : c == OPT_TASK ? &task_path : c == 'o' ? &dir : NULL;
        if (!slot)
            return cli_bad_option(cmd, argv, c);
        const char *name = c == OPT_LEDGER ? "--ledger" : c == OPT_TASK ? "--task" : "-o";
        if (*slot)
            return cli_usage(cmd, "%s is given twice", name);
        if (!optarg[0])
            return cli_usage(cmd, "%s needs a non-empty value", name);
        *slot = optarg;
    }
    if (optind != argc)
        return cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    if (!ledger || !dir)
        return cli_usage(cmd, "--ledger and -o are required");
    int rc = SKX_FAIL;
    so_ledger *l = NULL;
    cJSON *task = NULL;
    so_handoff h;
    memset(&h, 0, sizeof h);
    sk_outdir *od = NULL;
    char task_sha[65];
    sk_diag d;
    sk_diag_clear(&d);
    so_handoff_opts o = {dir, NULL, NULL, NULL};
    made_dirs parents = {NULL, 0, 0};
    if (task_path) {
        if (sk_json_load_file(task_path, SK_PATH_NOFOLLOW_LEAF, "dispatch task", 0, &task, NULL,
                              task_sha, &d) != SK_OK ||
            so_phase_task_shape(task, task_path, &d) != SK_OK)
            goto fail;
        const cJSON *step = sk_json_get(task, "step");
        if (strcmp(sk_json_get(step, "step_id")->valuestring, SO_PHASE_STAGE_O_STEP) != 0 ||
            strcmp(sk_json_get(step, "phase")->valuestring, SO_PHASE_STAGE_O) != 0) {
            sk_diag_set(&d, SK_E_SCHEMA, task_path, 0,
                        "step: the task dispatches step %s, not the Stage O step %s",
                        sk_json_get(step, "step_id")->valuestring, SO_PHASE_STAGE_O_STEP);
            goto fail;
        }
        o.session_id = sk_json_get(task, "session_id")->valuestring;
        o.task_sha256 = task_sha;
        o.task_session_fingerprint = sk_json_get(task, "session_fingerprint")->valuestring;
    }
    if (so_cli_output_free(dir, &d) != SK_OK || so_ledger_read(ledger, &l, &d) != SK_OK ||
        so_ledger_verify(l, SO_LEDGER_LEVEL_FILES, &d) != SK_OK ||
        so_handoff_build(l, &o, &h, &d) != SK_OK || make_parents(dir, &parents, &d) != SK_OK ||
        sk_outdir_begin(dir, 0755, &od, &d) != SK_OK)
        goto fail;
    for (int k = 0; k < SO_HANDOFF_FILES; k++)
        if (sk_outdir_add(od, h.names[k], h.files[k].data, h.files[k].len, 0644, &d) != SK_OK)
            goto fail;
    if (sk_outdir_commit(od, &d) != SK_OK)
        goto fail;
    const cJSON *so = sk_json_get(h.result, "stage_o");
    printf("handoff %s\nstatus %s\nbase %s incumbent %s\nledger %s records %zu head %s\n"
           "evidence %d files, %d failure scenes\n",
           dir, h.status, SO_LEDGER_BASE_ID,
           sk_json_get(sk_json_get(so, "sbest_base"), "incumbent")->valuestring, ledger,
           l->n_records, l->head, cJSON_GetArraySize(sk_json_get(so, "evidence")),
           cJSON_GetArraySize(sk_json_get(so, "failure_scenes")));
    rc = SKX_OK;
    goto out;
fail:
    rc = fail(&d);
out:
    sk_outdir_free(od);
    unmake_parents(&parents, rc != SKX_OK);
    so_handoff_free(&h);
    so_ledger_free(l);
    cJSON_Delete(task);
    return rc;
}

static int verify(int argc, char **argv)
{
    static const char *const cmd = "handoff verify";
    enum { OPT_AGAINST = 1000 };
    static const struct option opts[] = {
        {"against-config", required_argument, NULL, OPT_AGAINST},
        {NULL, 0, NULL, 0},
    };
    const char *config = NULL;
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":", opts, NULL)) != -1;) {
        if (c != OPT_AGAINST)
            return cli_bad_option(cmd, argv, c);
        if (config)
            return cli_usage(cmd, "--against-config is given twice");
        if (!optarg[0])
            return cli_usage(cmd, "--against-config needs a non-empty value");
        config = optarg;
    }
    if (optind + 1 != argc)
        return cli_usage(cmd, optind >= argc ? "the hand-off directory is required"
                                              : "exactly one hand-off directory is expected");
    so_handoff_check c;
    sk_diag d;
    sk_diag_clear(&d);
    if (so_handoff_verify(argv[optind], config, &c, &d) != SK_OK) {
        so_handoff_check_free(&c);
        return fail(&d);
    }
    printf("handoff %s\n", argv[optind]);
    if (c.status)
        printf("status %s (derived from the ledger)\nledger records %zu head %s\n"
               "evidence %zu files re-hashed\n",
               c.status, c.records, c.head, c.evidence);
    for (size_t i = 0; i < c.n_violations; i++)
        printf("violation %s\n", c.violations[i]);
    if (c.config_checked) {
        printf("config %s option-maps %s\n", config, c.config_digest);
        for (size_t i = 0; i < c.n_changes; i++)
            printf("option-changed %s\n", c.changes[i]);
        if (c.config_keeps_base)
            printf("config keeps the option maps of Sbest-BASE%s\n",
                   c.config_differs_elsewhere ? " (it differs outside them: allowed)" : "");
        else
            printf("config changes %zu option%s of Sbest-BASE\n", c.n_changes,
                   c.n_changes == 1 ? "" : "s");
    }
    int bad = c.n_violations || (c.config_checked && !c.config_keeps_base);
    if (c.n_violations)
        printf("invalid: %zu violation%s\n", c.n_violations, c.n_violations == 1 ? "" : "s");
    else
        printf("valid\n");
    if (c.config_checked && !c.config_keeps_base)
        cli_error("%s: changes the option maps frozen into Sbest-BASE (%zu option%s, listed on "
                  "stdout)", config, c.n_changes, c.n_changes == 1 ? "" : "s");
    so_handoff_check_free(&c);
    return bad ? SKX_REJECTED : SKX_OK;
}

int cmd_handoff(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage("handoff", "a subcommand is required: seal or verify");
    if (strcmp(argv[1], "seal") == 0)
        return seal(argc - 1, argv + 1);
    if (strcmp(argv[1], "verify") == 0)
        return verify(argc - 1, argv + 1);
    return cli_usage("handoff", "unknown subcommand '%s' (expected: seal or verify)", argv[1]);
}
