/* skdcci compile-jobs check: NPU_STATIC_KERNEL_COMPILE_JOBS frozen across runs. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/compile_safety/cs_compile_jobs.h"
#include "analyzer/compile_safety/cs_text.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cs_cli.h"
#include "analyzer/cli/skx_exit.h"

const char cmd_compile_jobs_usage[] =
    "Usage: skdcci compile-jobs check --record RUN_RECORD [--record RUN_RECORD]...\n"
    "                                 [--json-out FILE]\n"
    "\n"
    "Proves that NPU_STATIC_KERNEL_COMPILE_JOBS was set explicitly, to a positive\n"
    "integer, and identically in the recorded environment of every compared run\n"
    "(producer records of `artifact_contract run`: the final record's path, whose\n"
    "started record is read while the final one does not exist yet, or the started\n"
    "record's path).  Drift needs at least two records; with one, only the explicit\n"
    "setting is checked.\n"
    "\n"
    "Each record is one row: set, unset, redacted (the recorder hid the value),\n"
    "malformed (not a positive decimal integer without sign, spaces or leading\n"
    "zeros, at most 2147483647) or drift (differs from the first set value).\n"
    "\n"
    "Output: a per-record table on stdout; JSON (schema skdcci-compile-jobs-1) published\n"
    "atomically at --json-out FILE; one verdict line on stderr.\n"
    "\n"
    "Exit codes:\n"
    "   0  consistent: every record sets the same explicit value\n"
    "  10  control mismatch (unset, redacted, malformed or drifting)\n"
    "   1  a record is unreadable or malformed, or an output cannot be written\n"
    "   2  usage error\n";

/* Columns: record path (display form), record state, status, value. */
static int print_table(const cs_jobs_result *r)
{
    int w = (int)strlen("record");
    for (size_t i = 0; i < r->n; i++) {
        char *shown = cs_display_dup(r->rows[i].record, strlen(r->rows[i].record));
        if (!shown)
            return -1;
        if ((int)strlen(shown) > w)
            w = (int)strlen(shown);
        sk_free(shown);
    }
    printf("%-*s  %-8s  %-9s  %s\n", w, "record", "state", "status", "value");
    for (size_t i = 0; i < r->n; i++) {
        char *shown = cs_display_dup(r->rows[i].record, strlen(r->rows[i].record));
        if (!shown)
            return -1;
        printf("%-*s  %-8s  %-9s  %s\n", w, shown, r->rows[i].state,
               cs_jobs_status_name(r->rows[i].status), r->rows[i].value ? r->rows[i].value : "-");
        sk_free(shown);
    }
    return 0;
}

int cmd_compile_jobs(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"record", required_argument, NULL, 'r'},
        {"json-out", required_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "compile-jobs check";
    cs_args records = {0};
    cs_jobs_result res = {0};
    const char *json_out = NULL;
    int rc = SKX_FAIL;
    sk_diag d;
    sk_diag_clear(&d);
    if (argc < 2) {
        rc = cli_usage("compile-jobs", "a subcommand is required (check)");
        goto out;
    }
    if (strcmp(argv[1], "check") != 0) {
        rc = cli_usage("compile-jobs", "unknown subcommand '%s' (expected check)", argv[1]);
        goto out;
    }
    argc--;
    argv++;
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (c == 'r') {
            if (cs_args_add(&records, optarg)) {
                cli_error("out of memory");
                goto out;
            }
        } else if (c == 'j') {
            json_out = optarg;
        } else {
            rc = cli_bad_option(cmd, argv, c);
            goto out;
        }
    }
    if (optind < argc) {
        rc = cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
        goto out;
    }
    if (records.n == 0) {
        rc = cli_usage(cmd, "at least one --record is required");
        goto out;
    }
    if (cs_compile_jobs_check(records.v, records.n, &res, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    if (json_out && cs_emit_json(res.report, json_out, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    if (print_table(&res)) {
        cli_error("out of memory");
        goto out;
    }
    cs_verdict_line(cmd, "%s", res.verdict);
    rc = res.consistent ? SKX_OK : SKX_REJECTED;
out:
    cs_jobs_result_free(&res);
    cs_args_free(&records);
    return rc;
}
