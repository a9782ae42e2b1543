/* skdcci analyze O0 DISABLE_ALL: the DCCI regression analyzer (docs/analyze.md). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "analyzer/dcci/dcci_analyze.h"
#include "analyzer/dcci/dcci_report.h"
#include "analyzer/dcci/dcci_next.h"
#include "artifact_contract/base/sk_fixed.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"

#define DEFAULT_OUTDIR "dcci-analysis"

const char cmd_analyze_usage[] =
    "Usage: skdcci analyze O0 DISABLE_ALL [-o OUTDIR] [--unsealed] [--warmup-steps N]\n"
    "                      [--warmup-launches N] [--min-occurrences N]\n"
    "                      [--min-relative-pct X] [--min-abs-us X] [--tmpdir DIR] [-q]\n"
    "\n"
    "Compares the DCCI O0 capture with the dcci_disable_on_kernel=[\".*\"] capture: every\n"
    "SK, then the children of the significantly slower SKs, and derives the one list L\n"
    "of runtime patterns for dcci_before_kernel_start and dcci_after_kernel_end.\n"
    "O0 and DISABLE_ALL are capture roots holding collection-manifest.json (or the\n"
    "manifest paths).  The roots are only read, never written.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUTDIR      output directory (default ./" DEFAULT_OUTDIR "); must not\n"
    "                           exist or be empty, and must lie outside both roots\n"
    "      --unsealed           inventory and format check of raw roots (documented\n"
    "                           layout): always collection_blocked, nothing is compared\n"
    "      --warmup-steps N     drop the kernel_details rows of the first N Step Ids (0)\n"
    "      --warmup-launches N  drop the first N sk_prof launches of every SK (default:\n"
    "                           the workload warmup of the manifest, else 0)\n"
    "      --min-occurrences N  samples needed per side, at least 3 (3)\n"
    "      --min-relative-pct X relative significance floor in percent (3.0)\n"
    "      --min-abs-us X       absolute significance floor in microseconds (1.0)\n"
    "      --tmpdir DIR         directory of the anonymous sample file (default: $TMPDIR,\n"
    "                           else /tmp); nothing named is ever left there\n"
    "  -q, --quiet              no progress line on a terminal\n"
    "\n"
    "Outputs: dcci-regression-analysis.json, DCCI_REGRESSION_ANALYSIS.md (Chinese),\n"
    "DCCI_REGRESSION_ANALYSIS.html (the same report as one offline page with charts\n"
    "and sortable tables) and, for repair_candidate only, option-values.json and\n"
    "dcci-repair-options.json.  stdout: the status, the counts, the report path and\n"
    "the next step (for a blocked status, the step each reason asks for).\n"
    "\n"
    "Exit codes: 0 repair_candidate, no_regressed_child or no_significant_regression;\n"
    "3 collection_blocked, mapping_blocked, evidence_blocked or child_attribution_blocked;\n"
    "2 usage;\n"
    "1 unreadable or malformed input, I/O or internal error (nothing is written).\n";

enum {
    OPT_UNSEALED = 1000,
    OPT_WARMUP_STEPS,
    OPT_WARMUP_LAUNCHES,
    OPT_MIN_OCC,
    OPT_MIN_REL,
    OPT_MIN_ABS,
    OPT_TMPDIR
};

typedef struct progress_line {
    int active;
    int shown;
} progress_line;

static void show_progress(void *ctx, const char *phase, uint64_t done, uint64_t total)
{
    progress_line *p = ctx;
    if (!p->active)
        return;
    unsigned pct = total ? (unsigned)(done >= total ? 100 : done * 100 / total) : 0;
    fprintf(stderr, "\rskdcci analyze: %-28s %3u%% (%llu of %llu MB)", phase, pct,
            (unsigned long long)(done >> 20), (unsigned long long)(total >> 20));
    fflush(stderr);
    p->shown = 1;
}

static void clear_progress(progress_line *p)
{
    if (p->shown) {
        fprintf(stderr, "\r%80s\r", "");
        fflush(stderr);
        p->shown = 0;
    }
}

static int parse_count(const char *cmd, const char *opt, const char *v, uint64_t *out)
{
    if (cli_parse_u64(v, out))
        return cli_usage(cmd, "%s needs a non-negative integer, got '%s'", opt, v);
    return 0;
}

/* A mistyped path is named before anything else looks at it (the output
 * check would otherwise take the missing manifest's directory for a root). */
static int check_args_exist(const char *const args[2], sk_diag *d)
{
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (args[i][0] && lstat(args[i], &st) != 0 && errno == ENOENT) {
            sk_diag_set(d, SK_E_IO, args[i], 0, "no such file or directory (the %s capture "
                        "root or its collection-manifest.json)", i ? "disable-all" : "O0");
            cli_error_diag(d);
            return SKX_FAIL;
        }
    }
    return 0;
}

/* The output must not lie inside a capture root: the roots stay read-only. */
static int check_outdir(const char *outdir, const char *const args[2])
{
    sk_diag d;
    sk_diag_clear(&d);
    char *pub = sk_path_publication(outdir, &d);
    if (!pub)
        return 0; /* sk_outdir_begin reports the path problem */
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++) {
        char *root = NULL, *manifest = NULL;
        struct stat st;
        /* a missing input would resolve as a manifest in ".", and the
         * refusal would blame the output: the analysis names it instead */
        if (stat(args[i], &st) != 0)
            continue;
        if (dcci_input_resolve_arg(args[i], &root, &manifest, &d))
            continue;
        char real[PATH_MAX];
        if (realpath(root, real) && sk_path_is_within(pub, real))
            rc = cli_usage("analyze", "output directory %s lies inside capture root %s: the "
                           "analysis never writes into a capture root", outdir, root);
        sk_free(root);
        sk_free(manifest);
    }
    sk_free(pub);
    return rc;
}

/* The summary and the next steps (dcci_next.h) with OUTDIR filled in, built
 * before the outputs are published so that a failure leaves nothing. */
static sk_err summary(const dcci_analysis *a, const char *outdir, sk_buf *text, sk_diag *d)
{
    dcci_next nx;
    sk_err e = dcci_next_build(a, &nx, d);
    if (e)
        return e;
    e = sk_buf_printf(text, "status: %s\n", dcci_status_name(a->status));
    if (!e)
        e = sk_buf_printf(text, "occurrence mode: %s\n",
                          a->occ_mode == DCCI_OCC_STEP_ID ? "step_id (kernel_details Step Id)"
                          : a->occ_mode == DCCI_OCC_LAUNCH_ORDER
                              ? "launch_order (no Step Id: per-SK launch order by start time)"
                              : "undetermined (no SK row)");
    for (size_t i = 0; !e && a->multi_rank && i < a->ndevices; i++)
        e = sk_buf_printf(text, "%s%llu%s", i ? ", " : "devices: ",
                          (unsigned long long)a->devices[i].device,
                          i + 1 < a->ndevices ? "" : "\n");
    if (!e)
        e = sk_buf_printf(text, "matched SKs: %zu, significantly slower: %zu, tokens: %zu, "
                          "patterns: %zu\n", dcci_analysis_count_matched(a),
                          dcci_analysis_count_slow(a), a->ntokens, a->nregexes);
    if (!e)
        e = sk_buf_printf(text, "report: %s/%s\nnext: %s\n", outdir, DCCI_REPORT_JSON_NAME,
                          nx.action);
    for (size_t i = 0; !e && i < nx.n; i++) {
        e = sk_buf_printf(text, "next %zu: %s\n", i + 1, nx.steps[i].what);
        if (!e && nx.steps[i].command) {
            e = sk_buf_append(text, "  ", 2);
            if (!e)
                e = dcci_next_render(nx.steps[i].command, outdir, text, d);
            if (!e)
                e = sk_buf_putc(text, '\n');
        }
    }
    dcci_next_free(&nx);
    if (e)
        e = sk_diag_set(d, SK_E_NOMEM, outdir, 0, "out of memory writing the summary");
    return e;
}

/* The first issue of the gate that blocked, the devices' included. */
static const dcci_issue *first_reason(const dcci_analysis *a)
{
    dcci_gate g = a->status == DCCI_STATUS_COLLECTION_BLOCKED ? DCCI_GATE_COLLECTION
                  : a->status == DCCI_STATUS_MAPPING_BLOCKED  ? DCCI_GATE_MAPPING
                  : a->status == DCCI_STATUS_EVIDENCE_BLOCKED ? DCCI_GATE_EVIDENCE
                                                              : DCCI_GATE_ATTRIBUTION;
    return dcci_analysis_first_issue(a, g);
}

int cmd_analyze(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"unsealed", no_argument, NULL, OPT_UNSEALED},
        {"warmup-steps", required_argument, NULL, OPT_WARMUP_STEPS},
        {"warmup-launches", required_argument, NULL, OPT_WARMUP_LAUNCHES},
        {"min-occurrences", required_argument, NULL, OPT_MIN_OCC},
        {"min-relative-pct", required_argument, NULL, OPT_MIN_REL},
        {"min-abs-us", required_argument, NULL, OPT_MIN_ABS},
        {"tmpdir", required_argument, NULL, OPT_TMPDIR},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "analyze";
    const char *outdir = DEFAULT_OUTDIR;
    const char *tmpdir = getenv("TMPDIR");
    int quiet = 0, rc = 0, opt;
    dcci_analysis a;
    sk_outdir *out = NULL;
    sk_diag d;
    progress_line pl = {0, 0};
    sk_buf text = SK_BUF_INIT;
    dcci_analysis_init(&a);
    sk_diag_clear(&d);
    optind = 1;
    opterr = 0;
    while (rc == 0 && (opt = getopt_long(argc, argv, ":o:q", opts, NULL)) != -1) {
        uint64_t v;
        switch (opt) {
        case 'o': outdir = optarg; break;
        case 'q': quiet = 1; break;
        case OPT_TMPDIR:
            tmpdir = optarg;
            if (!*tmpdir)
                rc = cli_usage(cmd, "--tmpdir needs a directory");
            break;
        case OPT_UNSEALED: a.opts.unsealed = 1; break;
        case OPT_WARMUP_STEPS: rc = parse_count(cmd, "--warmup-steps", optarg, &a.opts.warmup_steps); break;
        case OPT_WARMUP_LAUNCHES:
            rc = parse_count(cmd, "--warmup-launches", optarg, &a.opts.warmup_launches);
            a.opts.has_warmup_launches = 1;
            break;
        case OPT_MIN_OCC:
            rc = parse_count(cmd, "--min-occurrences", optarg, &v);
            if (!rc && v < DCCI_CLASSIFY_HARD_MIN_OCCURRENCES)
                rc = cli_usage(cmd, "--min-occurrences can only be raised: at least %d, got %s",
                               DCCI_CLASSIFY_HARD_MIN_OCCURRENCES, optarg);
            if (!rc && v > 1000000000u)
                rc = cli_usage(cmd, "--min-occurrences is too large: %s", optarg);
            a.opts.classify.min_occurrences = (size_t)v;
            break;
        case OPT_MIN_REL:
            if (dcci_classify_parse_pct(optarg, &a.opts.classify.min_relative_milli_pct, &d) ||
                a.opts.classify.min_relative_milli_pct > DCCI_CLASSIFY_MAX_RELATIVE_MILLI_PCT)
                rc = cli_usage(cmd, "--min-relative-pct needs a decimal percentage with at most 3 "
                               "decimals, got '%s'", optarg);
            break;
        case OPT_MIN_ABS: {
            sk_fixed_result fr;
            if (sk_fixed_parse(optarg, strlen(optarg), 3, SK_FIXED_STRICT, &fr, &d) ||
                fr.missing || fr.value < 0 || optarg[0] == ' ' || optarg[0] == '\t')
                rc = cli_usage(cmd, "--min-abs-us needs a non-negative decimal number of "
                               "microseconds with at most 3 decimals, got '%s'", optarg);
            else
                a.opts.classify.min_abs_ns = fr.value;
            break;
        }
        default: rc = cli_bad_option(cmd, argv, opt); break;
        }
    }
    if (rc)
        goto out;
    if (argc - optind != 2) {
        rc = cli_usage(cmd, "expected two capture roots (O0 and DISABLE_ALL), got %d",
                       argc - optind);
        goto out;
    }
    const char *args[2] = {argv[optind], argv[optind + 1]};
    if ((rc = check_args_exist(args, &d)))
        goto out;
    if ((rc = check_outdir(outdir, args)))
        goto out;
    if (sk_outdir_begin(outdir, 0755, &out, &d)) {
        cli_error_diag(&d);
        rc = SKX_FAIL;
        goto out;
    }
    pl.active = !quiet && isatty(STDERR_FILENO);
    a.opts.tmpdir = tmpdir; /* the sample store's temporary file (docs/analyze.md §12) */
    a.opts.hash_threads = cli_hash_threads();
#ifdef SK_TEST_HOOKS
    /* test builds: everything on this thread (tests/scripts/analyze_scenarios.sh
     * compares the bytes with those of the threaded run) */
    a.opts.serial = getenv("SK_TEST_SERIAL") != NULL;
#endif
    a.opts.progress = show_progress;
    a.opts.progress_ctx = &pl;
    sk_err e = dcci_analyze_run(&a, args[0], args[1], &d);
    clear_progress(&pl);
    if (!e)
        e = dcci_report_write(&a, out, &d);
    if (!e)
        e = summary(&a, outdir, &text, &d);
    if (!e)
        e = sk_outdir_commit(out, &d);
    if (e) {
        cli_error_diag(&d);
        rc = SKX_FAIL;
        goto out;
    }
    fputs(sk_buf_cstr(&text), stdout);
    if (dcci_status_blocked(a.status)) {
        const dcci_issue *r = first_reason(&a);
        fprintf(stderr, "skdcci analyze: %s: %s%s%s\n", dcci_status_name(a.status),
                r ? r->code : "blocked", r ? ": " : "", r ? r->message : "");
        rc = SKX_BLOCKED;
    }
out:
    sk_buf_free(&text);
    sk_outdir_free(out);
    dcci_analysis_free(&a);
    return rc;
}
