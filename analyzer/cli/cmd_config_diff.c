/* skdcci config-diff: the RFC 6901 pointers at which two configs differ,
 * optionally checked against an expected set, and the proof of the DCCI
 * joint repair rule on three configs (docs/stage-o.md §8.1, §8.2). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_cdiff.h"
#include "analyzer/stage_o/so_repair.h"
#include "analyzer/stage_o/so_report.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/cli/so_cli.h"

#define CMD "config-diff"

const char cmd_config_diff_usage[] =
    "Usage: skdcci config-diff A B [--expect-pointer P... | --expect-none] [--json OUT]\n"
    "       skdcci config-diff --dcci-repair O0 DISABLE_ALL REPAIR [--json OUT]\n"
    "\n"
    "Structural diff of two configs (JSON when the name ends in .json, otherwise\n"
    "YAML read by the YAML 1.2 core schema; anchors, aliases, duplicate keys and\n"
    "scalars PyYAML reads differently are errors; the top level must be a mapping):\n"
    "the RFC 6901 pointers at which they differ, each added, removed or changed,\n"
    "compared as canonical JSON (1, 1.0 and true differ).  The result document\n"
    "(skdcci-config-diff-v1: both files' SHA-256 and canonical fingerprints, the\n"
    "changes with old and new values) is printed on stdout as canonical JSON.\n"
    "\n"
    "Options:\n"
    "  --expect-pointer P  the changed set must equal the set of these pointers\n"
    "                      exactly (repeatable; '~0' is '~', '~1' is '/')\n"
    "  --expect-none       the two configs must be identical (no changed pointer):\n"
    "                      \"SEED is O0\", \"BASE stays frozen\" in a script\n"
    "  --json OUT          write the document to OUT instead (atomic, never\n"
    "                      overwrites) and print a short summary\n"
    "  --dcci-repair       prove the DCCI joint repair rule: DISABLE_ALL sets\n"
    "                      dcci_disable_on_kernel to exactly [\".*\"] (absent in O0);\n"
    "                      REPAIR differs from DISABLE_ALL exactly at its siblings\n"
    "                      dcci_before_kernel_start and dcci_after_kernel_end, both\n"
    "                      the same non-empty list of valid runtime patterns, and\n"
    "                      from O0 exactly at the three DCCI pointers\n"
    "                      (skdcci-dcci-repair-proof-v1, every check with pass/fail)\n"
    "\n"
    "A rejection or disproof prints one stderr line 'failed <check> measured <value>\n"
    "threshold <rule>' per pointer or proof check that fails, then its verdict line.\n"
    "\n"
    "Exit: 0 diff written / expectation met / repair proven, 10 rejected (changed\n"
    "set differs from the expectation; under --expect-none, any difference) or\n"
    "disproven, 1 unreadable or malformed config or I/O error, 2 usage error.\n"
    "Details: docs/stage-o.md\n";

/* Canonical JSON text plus newline. */
static sk_err render(const cJSON *doc, sk_buf *text, sk_diag *d)
{
    sk_err rc = sk_json_write(doc, SK_JSON_CANONICAL, text, d);
    if (rc == SK_OK && sk_buf_putc(text, '\n') != SK_OK)
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing JSON");
    return rc;
}

static sk_err diff_summary(const so_cdiff *c, const so_cdiff_match *m, int expecting, sk_buf *out)
{
    sk_err rc = SK_OK;
    for (size_t i = 0; rc == SK_OK && i < c->count; i++)
        rc = sk_buf_printf(out, "%s %s\n", so_cdiff_kind_name(c->changes[i].kind),
                           c->changes[i].pointer);
    if (rc == SK_OK)
        rc = sk_buf_printf(out, "differences %zu\n", c->count);
    if (rc == SK_OK && expecting)
        rc = sk_buf_printf(out, "expectation %s\n", m->matched ? "matched" : "rejected");
    return rc;
}

/* "missing: a, b; unexpected: c" */
static sk_err mismatch_text(const so_cdiff_match *m, sk_buf *out)
{
    sk_err rc = SK_OK;
    for (size_t i = 0; rc == SK_OK && i < m->n_missing; i++)
        rc = sk_buf_printf(out, "%s%s", i ? ", " : "missing: ", m->missing[i]);
    for (size_t i = 0; rc == SK_OK && i < m->n_unexpected; i++)
        rc = sk_buf_printf(out, "%s%s", i ? ", " : m->n_missing ? "; unexpected: " : "unexpected: ",
                           m->unexpected[i]);
    return rc;
}

/* The failed lines of an expectation (docs/stage-o.md §12), one per pointer:
 * an expected pointer that did not change, a change that was not expected. */
static sk_err mismatch_failed(const so_cdiff *c, const so_cdiff_match *m, int expect_none,
                              sk_buf *out)
{
    sk_err rc = SK_OK;
    for (size_t i = 0; rc == SK_OK && i < m->n_missing; i++)
        rc = so_failed_line(out, m->missing[i], "unchanged", "changed (--expect-pointer)");
    for (size_t i = 0; rc == SK_OK && i < m->n_unexpected; i++) {
        const char *kind = "changed";
        for (size_t k = 0; k < c->count; k++)
            if (strcmp(c->changes[k].pointer, m->unexpected[i]) == 0)
                kind = so_cdiff_kind_name(c->changes[k].kind);
        rc = so_failed_line(out, m->unexpected[i], kind, "unchanged (%s)",
                            expect_none ? "--expect-none" : "not an --expect-pointer");
    }
    return rc;
}

static int run_diff(const char *path_a, const char *path_b, const char *const *expected,
                    size_t n_expected, int expecting, const char *json_out)
{
    int rc = SKX_FAIL;
    sk_diag d;
    sk_diag_clear(&d);
    so_cdiff_input a, b;
    so_cdiff c = {0, NULL};
    so_cdiff_match m = {0, NULL, 0, NULL, 0};
    cJSON *doc = NULL;
    sk_buf text = SK_BUF_INIT, summary = SK_BUF_INIT, why = SK_BUF_INIT, failed = SK_BUF_INIT;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if ((json_out && so_cli_output_free(json_out, &d) != SK_OK) ||
        so_cdiff_load(path_a, &a, &d) != SK_OK || so_cdiff_load(path_b, &b, &d) != SK_OK ||
        so_cdiff_compute(a.tree, b.tree, &c, &d) != SK_OK ||
        (expecting && so_cdiff_expect(&c, expected, n_expected, &m, &d) != SK_OK) ||
        so_cdiff_document(&a, &b, &c, expecting ? expected : NULL, n_expected, &m, &doc, &d) !=
            SK_OK ||
        render(doc, &text, &d) != SK_OK)
        goto fail;
    if (json_out) {
        if (diff_summary(&c, &m, expecting, &summary) != SK_OK) {
            sk_diag_set(&d, SK_E_NOMEM, "", 0, "out of memory");
            goto fail;
        }
        if (so_cli_publish_text(json_out, text.data, text.len, &d) != SK_OK)
            goto fail;
    }
    if (expecting && !m.matched &&
        (mismatch_failed(&c, &m, !n_expected, &failed) != SK_OK ||
         mismatch_text(&m, &why) != SK_OK)) {
        sk_diag_set(&d, SK_E_NOMEM, "", 0, "out of memory");
        goto fail;
    }
    if (json_out)
        fputs(sk_buf_cstr(&summary), stdout);
    else
        fwrite(text.data, 1, text.len, stdout);
    rc = SKX_OK;
    if (expecting && !m.matched) {
        fputs(sk_buf_cstr(&failed), stderr);
        fprintf(stderr, "skdcci " CMD ": rejected: %s; %s\n",
                n_expected ? "the changed pointers differ from the expected set"
                           : "the configs differ (--expect-none)",
                sk_buf_cstr(&why));
        rc = SKX_REJECTED;
    }
    goto out;
fail:
    rc = so_cli_fail(&d);
out:
    sk_buf_free(&text);
    sk_buf_free(&summary);
    sk_buf_free(&why);
    sk_buf_free(&failed);
    cJSON_Delete(doc);
    so_cdiff_match_free(&m);
    so_cdiff_free(&c);
    so_cdiff_input_free(&a);
    so_cdiff_input_free(&b);
    return rc;
}

static sk_err repair_document(so_cdiff_input *in[3], const so_repair_proof *p, cJSON **out,
                              sk_diag *d)
{
    static const char *const roles[3] = {"o0", "disable_all", "repair"};
    cJSON *doc = NULL, *configs = NULL, *item = NULL;
    sk_err rc = so_repair_proof_json(p, &doc, d);
    if (rc != SK_OK)
        return rc;
    if (sk_json_add_str(doc, "schema_version", SO_REPAIR_SCHEMA) != SK_OK ||
        !(configs = cJSON_CreateObject()) || sk_json_add(doc, "configs", configs) != SK_OK)
        goto nomem;
    for (int i = 0; i < 3; i++) {
        if ((rc = so_cdiff_input_json(in[i], &item, d)) != SK_OK)
            goto out;
        if (sk_json_add(configs, roles[i], item) != SK_OK)
            goto nomem;
    }
    *out = doc;
    return SK_OK;
nomem:
    rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory building the repair proof");
out:
    cJSON_Delete(doc);
    return rc;
}

static int run_repair(char **paths, const char *json_out)
{
    int rc = SKX_FAIL;
    sk_diag d;
    sk_diag_clear(&d);
    so_cdiff_input o0, da, rp;
    so_cdiff_input *in[3] = {&o0, &da, &rp};
    so_repair_proof proof;
    cJSON *doc = NULL;
    sk_buf text = SK_BUF_INIT, summary = SK_BUF_INIT, failed = SK_BUF_INIT, lines = SK_BUF_INIT;
    memset(&o0, 0, sizeof o0);
    memset(&da, 0, sizeof da);
    memset(&rp, 0, sizeof rp);
    memset(&proof, 0, sizeof proof);
    if ((json_out && so_cli_output_free(json_out, &d) != SK_OK) ||
        so_cdiff_load(paths[0], &o0, &d) != SK_OK || so_cdiff_load(paths[1], &da, &d) != SK_OK ||
        so_cdiff_load(paths[2], &rp, &d) != SK_OK ||
        so_repair_prove(o0.tree, da.tree, rp.tree, &proof, &d) != SK_OK ||
        repair_document(in, &proof, &doc, &d) != SK_OK || render(doc, &text, &d) != SK_OK)
        goto fail;
    sk_err e = SK_OK;
    for (int k = 0; e == SK_OK && k < SO_RC_COUNT; k++) {
        e = sk_buf_printf(&summary, "check %s %s: %s\n", so_repair_check_names[k],
                          proof.passed[k] ? "pass" : "fail", proof.detail[k]);
        if (e == SK_OK && !proof.passed[k])
            e = sk_buf_printf(&failed, "%s%s", failed.len ? ", " : "", so_repair_check_names[k]);
        if (e == SK_OK && !proof.passed[k])
            e = so_failed_line(&lines, so_repair_check_names[k], "false", "true (%s)",
                               proof.detail[k]);
    }
    if (e == SK_OK)
        e = sk_buf_printf(&summary, "proven %s\n", proof.proven ? "true" : "false");
    if (e != SK_OK) {
        sk_diag_set(&d, SK_E_NOMEM, "", 0, "out of memory");
        goto fail;
    }
    if (json_out && so_cli_publish_text(json_out, text.data, text.len, &d) != SK_OK)
        goto fail;
    if (json_out)
        fputs(sk_buf_cstr(&summary), stdout);
    else
        fwrite(text.data, 1, text.len, stdout);
    rc = SKX_OK;
    if (!proof.proven) {
        fputs(sk_buf_cstr(&lines), stderr);
        fprintf(stderr, "skdcci " CMD ": disproven: the joint repair rule fails: %s\n",
                sk_buf_cstr(&failed));
        rc = SKX_REJECTED;
    }
    goto out;
fail:
    rc = so_cli_fail(&d);
out:
    sk_buf_free(&text);
    sk_buf_free(&summary);
    sk_buf_free(&failed);
    sk_buf_free(&lines);
    cJSON_Delete(doc);
    so_repair_proof_free(&proof);
    for (int i = 0; i < 3; i++)
        so_cdiff_input_free(in[i]);
    return rc;
}

int cmd_config_diff(int argc, char **argv)
{
    enum { OPT_EXPECT = 1000, OPT_EXPECT_NONE, OPT_JSON, OPT_REPAIR };
    static const struct option opts[] = {
        {"expect-pointer", required_argument, NULL, OPT_EXPECT},
        {"expect-none", no_argument, NULL, OPT_EXPECT_NONE},
        {"json", required_argument, NULL, OPT_JSON},
        {"dcci-repair", no_argument, NULL, OPT_REPAIR},
        {NULL, 0, NULL, 0},
    };
    const char *json_out = NULL;
    int repair = 0, expecting = 0, expect_none = 0, rc = SKX_USAGE;
    const char **expected = NULL;
    size_t n_expected = 0;
    expected = sk_calloc((size_t)argc + 1, sizeof *expected);
    if (!expected) {
        cli_error("out of memory");
        return SKX_FAIL;
    }
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":", opts, NULL)) != -1;) {
        switch (c) {
        case OPT_EXPECT: {
            sk_diag d;
            sk_diag_clear(&d);
            if (so_cdiff_pointer_check(optarg, &d) != SK_OK) {
                rc = cli_usage(CMD, "--expect-pointer: %s", d.msg);
                goto out;
            }
            for (size_t i = 0; i < n_expected; i++)
                if (strcmp(expected[i], optarg) == 0) { /* NOLINT(clang-analyzer-core.NonNullParamChecker): getopt_long sets optarg for a required argument */
                    rc = cli_usage(CMD, "--expect-pointer '%s' is given twice", optarg);
                    goto out;
                }
            expected[n_expected++] = optarg;
            expecting = 1;
            break;
        }
        case OPT_EXPECT_NONE:
            expect_none = expecting = 1;
            break;
        case OPT_JSON:
            if (json_out) {
                rc = cli_usage(CMD, "--json is given twice");
                goto out;
            }
            json_out = optarg;
            break;
        case OPT_REPAIR:
            repair = 1;
            break;
        default:
            rc = cli_bad_option(CMD, argv, c);
            goto out;
        }
    }
    int nargs = argc - optind;
    if (expect_none && n_expected) {
        rc = cli_usage(CMD, "--expect-none cannot be combined with --expect-pointer");
        goto out;
    }
    if (json_out && !json_out[0]) {
        rc = cli_usage(CMD, "--json needs a file name");
        goto out;
    }
    for (int i = optind; i < argc; i++)
        if (!argv[i][0]) {
            rc = cli_usage(CMD, "config paths must not be empty");
            goto out;
        }
    if (repair) {
        if (expecting) {
            rc = cli_usage(CMD, "%s cannot be combined with --dcci-repair (the repair rule "
                                "fixes the expected pointers)",
                           expect_none ? "--expect-none" : "--expect-pointer");
            goto out;
        }
        if (nargs != 3) {
            rc = cli_usage(CMD, "--dcci-repair needs three configs: O0 DISABLE_ALL REPAIR");
            goto out;
        }
        rc = run_repair(argv + optind, json_out);
    } else {
        if (nargs != 2) {
            rc = cli_usage(CMD, nargs < 2 ? "two configs A and B are required"
                                          : "exactly two configs are expected");
            goto out;
        }
        rc = run_diff(argv[optind], argv[optind + 1], expected, n_expected, expecting, json_out);
    }
out:
    sk_free(expected);
    return rc;
}
