/* skdcci round report: one report per attempt of a matrix item, from the
 * ledger (docs/round-report.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_ledger.h"
#include "analyzer/stage_o/so_ledger_ops.h"
#include "analyzer/stage_o/so_round.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/cli/so_cli.h"

#define CMD "round report"

const char cmd_round_usage[] =
    "Usage: skdcci round report --ledger FILE --item ID -o DIR\n"
    "\n"
    "The Chinese report of every attempt of one matrix item, from the records of\n"
    "the Stage O ledger that judged them: each trial (ordinary, DCCI disable-all\n"
    "or joint repair) and each top-up gets its own directory DIR/<attempt>/\n"
    "(DIR/<attempt>-top-up/ for a top-up) with\n"
    "  round-report.json   skdcci-round-report-v1, exact values\n"
    "  ROUND_REPORT.md     the Chinese report, numbers rounded for reading\n"
    "  ROUND_REPORT.html   the same with charts: per-run distributions of trial and\n"
    "                      incumbent with the noise band, each gate check against\n"
    "                      its threshold (one offline page)\n"
    "The report holds the runs the gate used (top-up runs marked), worst-rank\n"
    "mean, median run, P50, P90, stddev and spread, every gate check with its\n"
    "value and threshold, the incumbent before and after with the exact pointer\n"
    "and values, the evidence files with SHA-256 and, for a failed attempt, the\n"
    "eight items of its failure scene.  Every file and CLEAN root the ledger\n"
    "binds must still be what it recorded (as ledger verify checks them).\n"
    "\n"
    "Reports are never replaced: an attempt whose directory exists is kept when it\n"
    "holds exactly this report, and refused (nothing written) otherwise.\n"
    "\n"
    "Exit: 0 reports written or kept, 3 the item has no attempt yet, 1 unreadable\n"
    "or tampered ledger or evidence, an unknown item, or an existing report that\n"
    "differs, 2 usage error.\n"
    "Details: docs/round-report.md\n";

typedef struct report {
    size_t record;
    char name[160];
    sk_buf json, md, html;
    int exists;    /* the directory exists and holds this report */
    int published; /* written by this run (removed again when a later one fails) */
} report;

static void report_free(report *r)
{
    sk_buf_free(&r->json);
    sk_buf_free(&r->md);
    sk_buf_free(&r->html);
}

/* a + "/" + b into out. */
static int join(char *out, size_t n, const char *a, const char *b)
{
    return snprintf(out, n, "%s/%s", a, b) >= (int)n;
}

/* An existing attempt directory must hold exactly the report we would
 * write: then it is kept; anything else is refused. */
static sk_err check_existing(const char *dir, report *r, sk_diag *d)
{
    char path[4096], file[4200];
    struct stat st;
    if (join(path, sizeof path, dir, r->name))
        return sk_diag_set(d, SK_E_ARG, dir, 0, "output path too long");
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return SK_OK;
        return sk_diag_set(d, SK_E_IO, path, 0, "cannot inspect: %s", strerror(errno));
    }
    const char *names[3] = {SO_ROUND_JSON_NAME, SO_ROUND_MD_NAME, SO_ROUND_HTML_NAME};
    const sk_buf *want[3] = {&r->json, &r->md, &r->html};
    for (int k = 0; k < 3; k++) {
        char *data = NULL;
        size_t len = 0;
        snprintf(file, sizeof file, "%s/%s", path, names[k]);
        sk_diag rd;
        sk_diag_clear(&rd);
        sk_err e = sk_read_file(file, SK_PATH_NOFOLLOW_LEAF, "round report", 64u << 20, &data,
                                &len, NULL, NULL, &rd);
        int same = e == SK_OK && len == want[k]->len && memcmp(data, want[k]->data, len) == 0;
        sk_free(data);
        if (e == SK_E_NOMEM)
            return sk_diag_set(d, SK_E_NOMEM, file, 0, "out of memory");
        if (!same)
            return sk_diag_set(d, SK_E_EXISTS, path, 0,
                               "output already exists and is not the report of this attempt "
                               "(%s differs); reports are never replaced",
                               names[k]);
    }
    r->exists = 1;
    return SK_OK;
}

static sk_err build(const so_ledger *l, report *r, sk_diag *d)
{
    cJSON *doc = NULL;
    so_round_dir_name(l, r->record, r->name, sizeof r->name);
    sk_err e = so_round_doc(l, r->record, &doc, d);
    if (!e)
        e = sk_json_write(doc, SK_JSON_PRETTY, &r->json, d);
    if (!e)
        e = sk_buf_putc(&r->json, '\n');
    if (!e)
        e = so_round_md(doc, &r->md, d);
    if (!e)
        e = so_round_html(doc, &r->html, d);
    if (e == SK_E_NOMEM && !d->msg[0])
        sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    cJSON_Delete(doc);
    return e;
}

/* Removes the reports this run wrote (and DIR when this run created it), so
 * that a failure leaves no partial output. */
static void roll_back(const char *dir, report *reps, size_t n, int made_dir)
{
    char path[4096], file[4200];
    const char *names[3] = {SO_ROUND_JSON_NAME, SO_ROUND_MD_NAME, SO_ROUND_HTML_NAME};
    for (size_t i = 0; i < n; i++) {
        if (!reps[i].published || join(path, sizeof path, dir, reps[i].name))
            continue;
        for (int k = 0; k < 3; k++) {
            snprintf(file, sizeof file, "%s/%s", path, names[k]);
            unlink(file);
        }
        rmdir(path);
    }
    if (made_dir)
        rmdir(dir);
}

static sk_err publish(const char *dir, report *r, sk_diag *d)
{
    char path[4096];
    sk_outdir *od = NULL;
    if (join(path, sizeof path, dir, r->name))
        return sk_diag_set(d, SK_E_ARG, dir, 0, "output path too long");
    sk_err e = sk_outdir_begin(path, 0755, &od, d);
    if (!e)
        e = sk_outdir_add(od, SO_ROUND_JSON_NAME, r->json.data, r->json.len, 0644, d);
    if (!e)
        e = sk_outdir_add(od, SO_ROUND_MD_NAME, r->md.data, r->md.len, 0644, d);
    if (!e)
        e = sk_outdir_add(od, SO_ROUND_HTML_NAME, r->html.data, r->html.len, 0644, d);
    if (!e)
        e = sk_outdir_commit(od, d);
    sk_outdir_free(od);
    return e;
}

int cmd_round(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage("round", "a subcommand is required: report");
    if (strcmp(argv[1], "report") != 0)
        return cli_usage("round", "unknown subcommand '%s' (expected: report)", argv[1]);
    argc--;
    argv++;
    enum { OPT_LEDGER = 1000, OPT_ITEM };
    static const struct option opts[] = {
        {"ledger", required_argument, NULL, OPT_LEDGER},
        {"item", required_argument, NULL, OPT_ITEM},
        {"out", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    const char *ledger = NULL, *item = NULL, *dir = NULL;
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1;) {
        const char **slot = c == OPT_LEDGER ? &ledger : c == OPT_ITEM ? &item : c == 'o' ? &dir : NULL;
        if (!slot)
            return cli_bad_option(CMD, argv, c);
        const char *name = c == OPT_LEDGER ? "--ledger" : c == OPT_ITEM ? "--item" : "-o";
        if (*slot)
            return cli_usage(CMD, "%s is given twice", name);
        if (!optarg[0])
            return cli_usage(CMD, "%s needs a non-empty value", name);
        *slot = optarg;
    }
    if (optind != argc)
        return cli_usage(CMD, "unexpected argument '%s'", argv[optind]);
    if (!ledger || !item || !dir)
        return cli_usage(CMD, "--ledger, --item and -o are required");
    int rc = SKX_FAIL;
    so_ledger *l = NULL;
    size_t *idx = NULL, n = 0;
    report *reps = NULL;
    int made_dir = 0;
    sk_diag d;
    sk_diag_clear(&d);
    /* the chain, the state and every bound file and CLEAN root */
    if (so_ledger_read(ledger, &l, &d) != SK_OK ||
        so_ledger_verify(l, SO_LEDGER_LEVEL_FILES, &d) != SK_OK)
        goto fail;
    if (!so_ledger_item_find(l, item)) {
        sk_diag_set(&d, SK_E_ARG, ledger, 0, "the frozen matrix has no item %s", item);
        goto fail;
    }
    if (so_round_attempts(l, item, &idx, &n, &d) != SK_OK)
        goto fail;
    if (!n) {
        cli_error("%s: item %s has no attempt yet (no trial or top-up record): nothing to report",
                  ledger, item);
        rc = SKX_BLOCKED;
        goto out;
    }
    reps = sk_calloc(n, sizeof *reps);
    if (!reps) {
        sk_diag_set(&d, SK_E_NOMEM, "", 0, "out of memory");
        goto fail;
    }
    /* everything is built and checked before anything is written */
    for (size_t i = 0; i < n; i++) {
        reps[i].record = idx[i];
        if (build(l, &reps[i], &d) != SK_OK || check_existing(dir, &reps[i], &d) != SK_OK)
            goto fail;
    }
    struct stat st;
    made_dir = lstat(dir, &st) != 0;
    if (sk_mkdir_p(dir, 0755, &d) != SK_OK)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        if (!reps[i].exists) {
            if (publish(dir, &reps[i], &d) != SK_OK)
                goto fail;
            reps[i].published = 1;
        }
    }
    for (size_t i = 0; i < n; i++)
        printf("%s %s/%s (record %llu)\n", reps[i].exists ? "kept" : "written", dir,
               reps[i].name, (unsigned long long)l->records[reps[i].record].seq);
    rc = SKX_OK;
    goto out;
fail:
    if (reps)
        roll_back(dir, reps, n, made_dir);
    rc = so_cli_fail(&d);
out:
    for (size_t i = 0; reps && i < n; i++)
        report_free(&reps[i]);
    sk_free(reps);
    sk_free(idx);
    so_ledger_free(l);
    return rc;
}
