/* skdcci ledger: the Stage O ledger of one winner (docs/ledger.md). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_ledger.h"
#include "analyzer/stage_o/so_ledger_ops.h"
#include "analyzer/stage_o/so_ledger_write.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/cli/so_cli.h"

#define CMD "ledger"
#define EVIDENCE_MAX 64
#define DEFAULT_LOCK_WAIT_S 600

const char cmd_ledger_usage[] =
    "Usage: skdcci ledger init --ledger FILE --seed-config CONFIG --o0 CLEAN_DIR\n"
    "                          --matrix MATRIX [--source-revision REV] [--workload FILE]\n"
    "                          [--control FILE] [--baseline-config CONFIG] [--command FILE]\n"
    "                          [--warmup N] [--expected-ranks N]\n"
    "       skdcci ledger trial --ledger FILE --item ID --config CONFIG --runs CLEAN_DIR\n"
    "                          --json-out FILE [--scene SCENE]\n"
    "       skdcci ledger top-up --ledger FILE --item ID --runs CLEAN_DIR [--json-out FILE]\n"
    "                          [--scene SCENE]\n"
    "       skdcci ledger settle --ledger FILE --item ID --status blocked|skipped\n"
    "                          --blocker CODE --reason-zh TEXT --evidence FILE...\n"
    "       skdcci ledger capture --ledger FILE --item ID --o0-manifest M\n"
    "                          --disable-all-manifest M --set-summary FILE\n"
    "       skdcci ledger analysis --ledger FILE --item ID --analysis OUTDIR\n"
    "       skdcci ledger probe --ledger FILE --item ID --report ENVIRONMENT.json\n"
    "       skdcci ledger repair --ledger FILE --item ID --config REPAIR_CONFIG\n"
    "       skdcci ledger freeze --ledger FILE\n"
    "       skdcci ledger stop --ledger FILE --status blocked|failed --blocker CODE\n"
    "                          --reason-zh TEXT --evidence FILE... [--scene SCENE]\n"
    "       skdcci ledger check --ledger FILE --config CONFIG\n"
    "       skdcci ledger show --ledger FILE [--json-out FILE]\n"
    "       skdcci ledger verify --ledger FILE [--head HASH]\n"
    "       skdcci ledger matrix --ledger FILE -o MATRIX\n"
    "       (every subcommand that appends also takes [--lock-wait SECONDS])\n"
    "\n"
    "The append-only record of one Stage O: JSON Lines, one canonical record per\n"
    "line with its sequence number, UTC time, the SHA-256 of the previous line\n"
    "and of its body; every append under an exclusive lock, synced; never\n"
    "rewritten.  Evidence must lie inside the ledger's directory.\n"
    "\n"
    "init      creates the ledger (never over an existing file): the Sbest-SEED\n"
    "          identity (five fingerprints, option-map digest), the frozen matrix\n"
    "          (it must pass matrix validate, every item pending) and O0-INCUMBENT\n"
    "          (five proven clean runs, stable).\n"
    "trial     one item against the current incumbent: the config differs at\n"
    "          exactly the item's pointer with its exact value (the DCCI joint\n"
    "          repair is the only exception), the gate runs on proven clean runs,\n"
    "          the result is bound to the runs (run record, correctness, config,\n"
    "          rank logs by SHA-256); a rejected or failed trial records the\n"
    "          rollback.  --scene records a failed attempt with its failure scene.\n"
    "top-up    after an accepted trial: the trial's runs unchanged plus new runs to\n"
    "          exactly five, stable: the value joins the incumbent; unstable: the\n"
    "          acceptance is revoked (needs --scene).  Refused after a rejection.\n"
    "settle    an item blocked or skipped with a legal blocker (probe_not_accepted,\n"
    "          probe_unknown, prerequisite_missing, risk_not_authorized,\n"
    "          budget_exhausted, diagnostic_collection_blocked) and a Chinese reason;\n"
    "          'no profiling evidence' is refused.\n"
    "capture, analysis, probe, repair\n"
    "          the DCCI family after a disable-all regression: the paired capture\n"
    "          (validate-set re-run), the sealed analysis and its list L, the probe\n"
    "          check of L, the joint repair config and its proof.\n"
    "freeze    Sbest-BASE, when every item is settled.\n"
    "stop      Stage O cannot go on: the terminal record, with the current\n"
    "          incumbent frozen as Sbest-BASE (unsettled items keep their state).\n"
    "          blocked: an external blocker (environment_unavailable,\n"
    "          o0_not_reproducible, prerequisite_missing, risk_not_authorized,\n"
    "          budget_exhausted), no --scene.  failed: a functional failure of the\n"
    "          incumbent's run (environment_unavailable or o0_not_reproducible) with\n"
    "          its failure scene (--scene, attempt <incumbent>-stop).  Chinese reason,\n"
    "          'no profiling evidence' refused.  Recorded: exit 0 blocked, 10 failed.\n"
    "check     a later (P/FINAL) config against BASE's option maps: exit 10 naming\n"
    "          each changed option.\n"
    "show      incumbent chain, item states, BASE, head hash, next action.\n"
    "matrix    writes the winner option matrix from the frozen matrix and the\n"
    "          records (statuses, trials, top-ups, DCCI D1-D4, blockers, scenes;\n"
    "          paths relative to MATRIX); it must pass matrix validate.\n"
    "verify    re-checks the chain, re-hashes every bound file and run, re-runs every\n"
    "          recorded gate; exit 10 naming the first diverging record and file.\n"
    "\n"
    "Options:\n"
    "  --ledger FILE         the ledger (only init creates it)\n"
    "  --lock-wait SECONDS   how long an append waits for the lock (600)\n"
    "  --warmup N, --expected-ranks N   gate settings kept by init for the whole\n"
    "                        ledger (8, 8)\n"
    "\n"
    "Exit: 0 ok (accepted, recorded), 10 rejected or failed (recorded) or refused\n"
    "(nothing written) or verify found a divergence, 3 blocked (evidence missing,\n"
    "nothing written), 1 input or I/O error, 2 usage error.\n"
    "Details: docs/ledger.md\n";

enum {
    OPT_LEDGER = 1000,
    OPT_SEED,
    OPT_O0,
    OPT_MATRIX,
    OPT_REV,
    OPT_WORKLOAD,
    OPT_CONTROL,
    OPT_BASELINE,
    OPT_COMMAND,
    OPT_WARMUP,
    OPT_RANKS,
    OPT_ITEM,
    OPT_CONFIG,
    OPT_RUNS,
    OPT_JSON_OUT,
    OPT_SCENE,
    OPT_STATUS,
    OPT_BLOCKER,
    OPT_REASON,
    OPT_EVIDENCE,
    OPT_O0_MANIFEST,
    OPT_DA_MANIFEST,
    OPT_SET_SUMMARY,
    OPT_ANALYSIS,
    OPT_REPORT,
    OPT_HEAD,
    OPT_LOCK_WAIT,
    OPT_OUTPUT
};

typedef struct args {
    const char *sub;
    const char *ledger, *seed, *o0, *matrix, *rev, *workload, *control, *baseline, *command;
    const char *item, *config, *runs, *json_out, *scene, *status, *blocker, *reason;
    const char *o0_manifest, *da_manifest, *set_summary, *analysis, *report, *head, *output;
    const char *evidence[EVIDENCE_MAX];
    size_t n_evidence;
    uint64_t warmup, ranks, lock_wait;
    int seen[OPT_OUTPUT - OPT_LEDGER + 1];
} args;

/* Which options each subcommand takes. */
typedef struct sub_spec {
    const char *name;
    const int *allowed; /* ends with 0 */
} sub_spec;

static const int A_INIT[] = {OPT_LEDGER,  OPT_SEED,     OPT_O0,      OPT_MATRIX, OPT_REV,
                             OPT_WORKLOAD, OPT_CONTROL, OPT_BASELINE, OPT_COMMAND, OPT_WARMUP,
                             OPT_RANKS,   0};
static const int A_TRIAL[] = {OPT_LEDGER, OPT_ITEM,  OPT_CONFIG,    OPT_RUNS,
                              OPT_JSON_OUT, OPT_SCENE, OPT_LOCK_WAIT, 0};
static const int A_TOP_UP[] = {OPT_LEDGER, OPT_ITEM, OPT_RUNS, OPT_JSON_OUT,
                               OPT_SCENE,  OPT_LOCK_WAIT, 0};
static const int A_SETTLE[] = {OPT_LEDGER, OPT_ITEM,     OPT_STATUS,    OPT_BLOCKER,
                               OPT_REASON, OPT_EVIDENCE, OPT_LOCK_WAIT, 0};
static const int A_CAPTURE[] = {OPT_LEDGER,      OPT_ITEM,        OPT_O0_MANIFEST,
                                OPT_DA_MANIFEST, OPT_SET_SUMMARY, OPT_LOCK_WAIT, 0};
static const int A_ANALYSIS[] = {OPT_LEDGER, OPT_ITEM, OPT_ANALYSIS, OPT_LOCK_WAIT, 0};
static const int A_PROBE[] = {OPT_LEDGER, OPT_ITEM, OPT_REPORT, OPT_LOCK_WAIT, 0};
static const int A_REPAIR[] = {OPT_LEDGER, OPT_ITEM, OPT_CONFIG, OPT_LOCK_WAIT, 0};
static const int A_FREEZE[] = {OPT_LEDGER, OPT_LOCK_WAIT, 0};
static const int A_STOP[] = {OPT_LEDGER,   OPT_STATUS, OPT_BLOCKER,   OPT_REASON,
                             OPT_EVIDENCE, OPT_SCENE,  OPT_LOCK_WAIT, 0};
static const int A_CHECK[] = {OPT_LEDGER, OPT_CONFIG, OPT_LOCK_WAIT, 0};
static const int A_SHOW[] = {OPT_LEDGER, OPT_JSON_OUT, 0};
static const int A_VERIFY[] = {OPT_LEDGER, OPT_HEAD, 0};
static const int A_MATRIX[] = {OPT_LEDGER, OPT_OUTPUT, 0};

static const sub_spec subs[] = {
    {"init", A_INIT},         {"trial", A_TRIAL},     {"top-up", A_TOP_UP},
    {"settle", A_SETTLE},     {"capture", A_CAPTURE}, {"analysis", A_ANALYSIS},
    {"probe", A_PROBE},       {"repair", A_REPAIR},   {"freeze", A_FREEZE},
    {"check", A_CHECK},       {"show", A_SHOW},       {"verify", A_VERIFY},
    {"matrix", A_MATRIX},     {"stop", A_STOP},       {NULL, NULL},
};

static const struct option opts[] = {
    {"ledger", required_argument, NULL, OPT_LEDGER},
    {"seed-config", required_argument, NULL, OPT_SEED},
    {"o0", required_argument, NULL, OPT_O0},
    {"matrix", required_argument, NULL, OPT_MATRIX},
    {"source-revision", required_argument, NULL, OPT_REV},
    {"workload", required_argument, NULL, OPT_WORKLOAD},
    {"control", required_argument, NULL, OPT_CONTROL},
    {"baseline-config", required_argument, NULL, OPT_BASELINE},
    {"command", required_argument, NULL, OPT_COMMAND},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"expected-ranks", required_argument, NULL, OPT_RANKS},
    {"item", required_argument, NULL, OPT_ITEM},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"runs", required_argument, NULL, OPT_RUNS},
    {"json-out", required_argument, NULL, OPT_JSON_OUT},
    {"scene", required_argument, NULL, OPT_SCENE},
    {"status", required_argument, NULL, OPT_STATUS},
    {"blocker", required_argument, NULL, OPT_BLOCKER},
    {"reason-zh", required_argument, NULL, OPT_REASON},
    {"evidence", required_argument, NULL, OPT_EVIDENCE},
    {"o0-manifest", required_argument, NULL, OPT_O0_MANIFEST},
    {"disable-all-manifest", required_argument, NULL, OPT_DA_MANIFEST},
    {"set-summary", required_argument, NULL, OPT_SET_SUMMARY},
    {"analysis", required_argument, NULL, OPT_ANALYSIS},
    {"report", required_argument, NULL, OPT_REPORT},
    {"head", required_argument, NULL, OPT_HEAD},
    {"lock-wait", required_argument, NULL, OPT_LOCK_WAIT},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {NULL, 0, NULL, 0},
};

static const char **slot(args *a, int c)
{
    switch (c) {
    case OPT_LEDGER: return &a->ledger;
    case OPT_SEED: return &a->seed;
    case OPT_O0: return &a->o0;
    case OPT_MATRIX: return &a->matrix;
    case OPT_REV: return &a->rev;
    case OPT_WORKLOAD: return &a->workload;
    case OPT_CONTROL: return &a->control;
    case OPT_BASELINE: return &a->baseline;
    case OPT_COMMAND: return &a->command;
    case OPT_ITEM: return &a->item;
    case OPT_CONFIG: return &a->config;
    case OPT_RUNS: return &a->runs;
    case OPT_JSON_OUT: return &a->json_out;
    case OPT_SCENE: return &a->scene;
    case OPT_STATUS: return &a->status;
    case OPT_BLOCKER: return &a->blocker;
    case OPT_REASON: return &a->reason;
    case OPT_O0_MANIFEST: return &a->o0_manifest;
    case OPT_DA_MANIFEST: return &a->da_manifest;
    case OPT_SET_SUMMARY: return &a->set_summary;
    case OPT_ANALYSIS: return &a->analysis;
    case OPT_REPORT: return &a->report;
    case OPT_HEAD: return &a->head;
    case OPT_OUTPUT: return &a->output;
    default: return NULL;
    }
}

static const char *opt_name(int c)
{
    for (const struct option *o = opts; o->name; o++)
        if (o->val == c)
            return o->name;
    return "?";
}

static int parse(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->warmup = 8;
    a->ranks = 8;
    a->lock_wait = DEFAULT_LOCK_WAIT_S;
    if (argc < 2)
        return cli_usage(CMD, "a subcommand is required: init, trial, top-up, settle, capture, "
                              "analysis, probe, repair, freeze, stop, check, show, verify, matrix");
    const sub_spec *spec = NULL;
    for (const sub_spec *s = subs; s->name; s++)
        if (strcmp(s->name, argv[1]) == 0)
            spec = s;
    if (!spec)
        return cli_usage(CMD, "unknown subcommand '%s'", argv[1]);
    a->sub = spec->name;
    argc--;
    argv++;
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1;) {
        if (c == 'o')
            c = OPT_OUTPUT;
        int ok = 0;
        for (const int *p = spec->allowed; *p && !ok; p++)
            ok = *p == c;
        if (!ok && c >= OPT_LEDGER && c <= OPT_OUTPUT)
            return cli_usage(CMD, "ledger %s does not take --%s", a->sub, opt_name(c));
        if (!ok)
            return cli_bad_option(CMD, argv, c);
        if (!optarg[0])
            return cli_usage(CMD, "--%s must not be empty", opt_name(c));
        if (c == OPT_EVIDENCE) {
            if (a->n_evidence == EVIDENCE_MAX)
                return cli_usage(CMD, "at most %d --evidence files", EVIDENCE_MAX);
            a->evidence[a->n_evidence++] = optarg;
            continue;
        }
        if (a->seen[c - OPT_LEDGER]++)
            return cli_usage(CMD, "--%s is given twice", opt_name(c));
        if (c == OPT_WARMUP || c == OPT_RANKS || c == OPT_LOCK_WAIT) {
            uint64_t *dst = c == OPT_WARMUP ? &a->warmup : c == OPT_RANKS ? &a->ranks : &a->lock_wait;
            if (so_cli_parse_count(optarg, dst) != 0 || (c == OPT_RANKS && *dst == 0) ||
                (c == OPT_LOCK_WAIT && *dst > 86400))
                return cli_usage(CMD, "--%s must be a %s integer, got '%s'", opt_name(c),
                                 c == OPT_RANKS ? "positive" : "non-negative", optarg);
            continue;
        }
        *slot(a, c) = optarg;
    }
    if (optind < argc)
        return cli_usage(CMD, "unexpected argument '%s'", argv[optind]);
    if (!a->ledger)
        return cli_usage(CMD, "--ledger FILE is required");
    /* required options per subcommand */
    static const struct {
        const char *sub;
        int opt;
    } reqs[] = {
        {"init", OPT_SEED},        {"init", OPT_O0},           {"init", OPT_MATRIX},
        {"trial", OPT_ITEM},       {"trial", OPT_CONFIG},      {"top-up", OPT_ITEM},
        {"top-up", OPT_RUNS},      {"settle", OPT_ITEM},       {"settle", OPT_STATUS},
        {"settle", OPT_BLOCKER},   {"settle", OPT_REASON},     {"capture", OPT_ITEM},
        {"capture", OPT_O0_MANIFEST}, {"capture", OPT_DA_MANIFEST}, {"capture", OPT_SET_SUMMARY},
        {"analysis", OPT_ITEM},    {"analysis", OPT_ANALYSIS}, {"probe", OPT_ITEM},
        {"probe", OPT_REPORT},     {"repair", OPT_ITEM},       {"repair", OPT_CONFIG},
        {"check", OPT_CONFIG},     {"matrix", OPT_OUTPUT},     {"stop", OPT_STATUS},
        {"stop", OPT_BLOCKER},     {"stop", OPT_REASON},
    };
    for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++)
        if (strcmp(reqs[i].sub, a->sub) == 0 && !a->seen[reqs[i].opt - OPT_LEDGER])
            return cli_usage(CMD, "ledger %s needs --%s", a->sub, opt_name(reqs[i].opt));
    if (strcmp(a->sub, "settle") == 0 && strcmp(a->status, "blocked") != 0 &&
        strcmp(a->status, "skipped") != 0)
        return cli_usage(CMD, "--status must be blocked or skipped, got '%s'", a->status);
    if (strcmp(a->sub, "settle") == 0 && !a->n_evidence)
        return cli_usage(CMD, "ledger settle needs --evidence FILE (the proof of the blocker)");
    if (strcmp(a->sub, "stop") == 0 && strcmp(a->status, "blocked") != 0 &&
        strcmp(a->status, "failed") != 0)
        return cli_usage(CMD, "--status must be blocked or failed, got '%s'", a->status);
    if (strcmp(a->sub, "stop") == 0 && !a->n_evidence)
        return cli_usage(CMD, "ledger stop needs --evidence FILE (the proof of the blocker)");
    if (strcmp(a->sub, "trial") == 0 && !a->runs && !a->scene)
        return cli_usage(CMD, "ledger trial needs --runs CLEAN_DIR (or --scene SCENE for a failed "
                              "attempt)");
    if (strcmp(a->sub, "trial") == 0 && a->runs && !a->scene && !a->json_out)
        return cli_usage(CMD, "ledger trial needs --json-out FILE: the gate summary it binds");
    return 0;
}

/* Exit code of a failure: refusals 10, blocked 3, other errors 1. */
static int fail(const sk_diag *d)
{
    cli_error_diag(d);
    if (d->code == SK_E_CONTRACT &&
        (d->sub == SO_LEDGER_SUB_REFUSED || d->sub == SO_LEDGER_SUB_STATE))
        return SKX_REJECTED;
    if (d->code == SK_E_CONTRACT && d->sub == SO_LEDGER_SUB_BLOCKED)
        return SKX_BLOCKED;
    return SKX_FAIL;
}

static int run_init(const args *a)
{
    sk_diag d;
    sk_diag_clear(&d);
    so_ledger_result r;
    so_ledger_init_args ia = {a->ledger, a->seed,     a->o0,       a->matrix, a->rev,
                              a->workload, a->control, a->baseline, a->command, a->warmup,
                              a->ranks};
    so_ledger *l = NULL;
    int rc = SKX_OK;
    if (so_ledger_build_init(&ia, &r, &d) != SK_OK ||
        so_ledger_create(a->ledger, r.body, &l, &d) != SK_OK) {
        rc = fail(&d);
    } else {
        fputs(sk_buf_cstr(&r.text), stdout);
        printf("record 1 init\nhead %s\nnext %s %s\n", l->head, so_ledger_action_name(l->next.action),
               l->next.item ? l->next.item->id : "-");
    }
    so_ledger_free(l);
    so_ledger_result_free(&r);
    return rc;
}

/* Every appending subcommand: lock, verify the evidence, build, commit. */
static int run_append(const args *a)
{
    sk_diag d;
    sk_diag_clear(&d);
    so_ledger_writer *w = NULL;
    so_ledger_result r;
    memset(&r, 0, sizeof r);
    int rc = SKX_OK;
    size_t torn = 0;
    sk_err e = so_ledger_writer_open(a->ledger, (unsigned)(a->lock_wait * 1000), &w, &d);
    const so_ledger *l = e == SK_OK ? so_ledger_writer_ledger(w) : NULL;
    if (e == SK_OK) {
        const char *s = a->sub;
        if (strcmp(s, "trial") == 0) {
            so_ledger_trial_args t = {a->item, a->config, a->runs, a->scene, a->json_out};
            e = so_ledger_build_trial(l, &t, &r, &d);
        } else if (strcmp(s, "top-up") == 0) {
            so_ledger_top_up_args t = {a->item, a->runs, a->scene, a->json_out};
            e = so_ledger_build_top_up(l, &t, &r, &d);
        } else if (strcmp(s, "settle") == 0) {
            so_ledger_settle_args t = {a->item, a->status, a->blocker, a->reason, a->evidence,
                                       a->n_evidence};
            e = so_ledger_build_settle(l, &t, &r, &d);
        } else if (strcmp(s, "capture") == 0) {
            so_ledger_capture_args t = {a->item, a->o0_manifest, a->da_manifest, a->set_summary};
            e = so_ledger_build_capture(l, &t, &r, &d);
        } else if (strcmp(s, "analysis") == 0) {
            e = so_ledger_build_analysis(l, a->item, a->analysis, &r, &d);
        } else if (strcmp(s, "probe") == 0) {
            e = so_ledger_build_probe(l, a->item, a->report, &r, &d);
        } else if (strcmp(s, "repair") == 0) {
            e = so_ledger_build_repair(l, a->item, a->config, &r, &d);
        } else if (strcmp(s, "freeze") == 0) {
            e = so_ledger_build_freeze(l, &r, &d);
        } else if (strcmp(s, "stop") == 0) {
            so_ledger_stop_args t = {a->status,  a->blocker,    a->reason,
                                     a->evidence, a->n_evidence, a->scene};
            e = so_ledger_build_stop(l, &t, &r, &d);
        } else {
            e = so_ledger_build_check(l, a->config, &r, &d);
        }
    }
    /* every bound file and CLEAN root, after the operation's own refusals */
    if (e == SK_OK)
        e = so_ledger_verify(l, SO_LEDGER_LEVEL_FILES, &d);
    if (e == SK_OK)
        e = so_ledger_commit(w, &r, &torn, &d);
    if (e != SK_OK) {
        fputs(sk_buf_cstr(&r.failed), stdout); /* the failed checks before the error line */
        fflush(stdout);
        rc = fail(&d);
        goto out;
    }
    l = so_ledger_writer_ledger(w);
    if (torn)
        printf("removed %zu bytes of an interrupted append (never a record)\n", torn);
    fputs(sk_buf_cstr(&r.text), stdout);
    printf("record %zu %s\nhead %s\nnext %s %s\n", l->n_records, so_ledger_kind_name(r.kind),
           l->head, so_ledger_action_name(l->next.action), l->next.item ? l->next.item->id : "-");
    rc = r.rejected ? SKX_REJECTED : SKX_OK;
out:
    so_ledger_result_free(&r);
    so_ledger_writer_close(w);
    return rc;
}

static void show_text(const so_ledger *l)
{
    const cJSON *seed = sk_json_get(so_ledger_init_body(l), "seed");
    printf("ledger %s\nrecords %zu\nhead %s\n", l->path, l->n_records, l->head);
    if (l->torn_bytes)
        printf("torn-bytes %llu (an interrupted append: not a record)\n",
               (unsigned long long)l->torn_bytes);
    printf("seed %s config %s\n", sk_json_get(seed, "id")->valuestring,
           sk_json_get(sk_json_get(seed, "config"), "path")->valuestring);
    printf("chain");
    for (size_t i = 0; i < l->n_chain; i++)
        printf(" %s%s", i ? "-> " : "", l->chain[i].id);
    printf("\nincumbent %s\n", so_ledger_current(l)->id);
    for (size_t i = 0; i < l->n_items; i++) {
        const so_ledger_item *it = &l->items[i];
        printf("item %s %s %s", it->id, it->category, so_item_status_name(it->status));
        if (it->phase)
            printf(" %s", it->phase);
        if (it->pending_top_up != SO_LEDGER_NONE)
            printf(" awaiting-top-up");
        if (it->incumbent_after)
            printf(" -> %s", it->incumbent_after);
        printf("\n");
    }
    printf("frozen %s\n", l->frozen ? "yes" : "no");
    if (l->stopped) {
        const cJSON *b = l->records[l->freeze].body;
        printf("stopped %s %s record %zu\nbase %s incumbent %s\n",
               sk_json_get(b, "status")->valuestring, sk_json_get(b, "blocker_code")->valuestring,
               l->freeze + 1, SO_LEDGER_BASE_ID, sk_json_get(b, "incumbent")->valuestring);
    } else if (l->frozen) {
        printf("base %s %s\n", SO_LEDGER_BASE_ID,
               sk_json_get(l->records[l->freeze].body, "status")->valuestring);
    }
    printf("next %s %s\n", so_ledger_action_name(l->next.action),
           l->next.item ? l->next.item->id : "-");
    printf("next-detail %s\n", l->next.detail);
}

static int run_show(const args *a)
{
    sk_diag d;
    sk_diag_clear(&d);
    so_ledger *l = NULL;
    cJSON *doc = NULL;
    int rc = SKX_OK;
    if ((a->json_out && so_cli_output_free(a->json_out, &d) != SK_OK) ||
        so_ledger_read(a->ledger, &l, &d) != SK_OK ||
        so_ledger_verify(l, SO_LEDGER_LEVEL_FILES, &d) != SK_OK ||
        (a->json_out && (so_ledger_state_json(l, &doc, &d) != SK_OK ||
                         so_cli_publish_json(a->json_out, doc, &d) != SK_OK))) {
        rc = fail(&d);
    } else {
        show_text(l);
    }
    cJSON_Delete(doc);
    so_ledger_free(l);
    return rc;
}

static int run_verify(const args *a)
{
    sk_diag d;
    sk_diag_clear(&d);
    so_ledger *l = NULL;
    int rc = SKX_OK;
    sk_err e = so_ledger_read(a->ledger, &l, &d);
    if (e == SK_OK && a->head && strcmp(a->head, l->head) != 0)
        e = sk_diag_set_sub(&d, SK_E_CONTRACT, SO_LEDGER_SUB_HEAD, a->ledger, 0,
                            "the head hash is %s, not %s: records were appended or removed at "
                            "the end",
                            l->head, a->head);
    if (e == SK_OK)
        e = so_ledger_verify(l, SO_LEDGER_LEVEL_GATES, &d);
    if (e != SK_OK) {
        cli_error_diag(&d);
        rc = e == SK_E_CONTRACT ? SKX_REJECTED : SKX_FAIL;
    } else {
        printf("verified %zu records\nhead %s\n", l->n_records, l->head);
        if (l->torn_bytes)
            printf("torn-bytes %llu (an interrupted append: not a record)\n",
                   (unsigned long long)l->torn_bytes);
    }
    so_ledger_free(l);
    return rc;
}

/* Pretty JSON (as so_cli_publish_json) into an existing directory: every
 * allocation happens before the file appears. */
static sk_err publish_matrix(const char *path, const cJSON *doc, sk_diag *d)
{
    sk_buf text = SK_BUF_INIT;
    char *target = NULL;
    sk_err rc = sk_json_write(doc, SK_JSON_PRETTY, &text, d);
    if (rc == SK_OK && sk_buf_putc(&text, '\n') != SK_OK)
        rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory writing the matrix");
    if (rc == SK_OK) {
        target = sk_path_publication(path, d);
        if (!target)
            rc = d->code != SK_OK ? d->code : SK_E_NOMEM;
    }
    if (rc == SK_OK)
        rc = sk_publish(target, text.data, text.len, 0644, d);
    sk_free(target);
    sk_buf_free(&text);
    return rc;
}

static int run_matrix(const args *a)
{
    sk_diag d;
    sk_diag_clear(&d);
    so_ledger *l = NULL;
    cJSON *doc = NULL;
    int rc = SKX_OK;
    if (so_cli_output_free(a->output, &d) != SK_OK || so_ledger_read(a->ledger, &l, &d) != SK_OK ||
        so_ledger_verify(l, SO_LEDGER_LEVEL_FILES, &d) != SK_OK ||
        so_ledger_matrix(l, a->output, &doc, &d) != SK_OK || publish_matrix(a->output, doc, &d) != SK_OK) {
        rc = fail(&d);
    } else {
        const cJSON *fi = sk_json_get(doc, "final_incumbent");
        printf("matrix %s\nsettled %s\nincumbent %s\n", a->output,
               cJSON_IsTrue(sk_json_get(doc, "settled")) ? "true" : "false",
               cJSON_IsObject(fi) ? sk_json_get(fi, "id")->valuestring : so_ledger_current(l)->id);
    }
    cJSON_Delete(doc);
    so_ledger_free(l);
    return rc;
}

int cmd_ledger(int argc, char **argv)
{
    args a;
    int rc = parse(argc, argv, &a);
    if (rc || !a.sub)
        return rc ? rc : SKX_USAGE;
    if (strcmp(a.sub, "init") == 0)
        return run_init(&a);
    if (strcmp(a.sub, "show") == 0)
        return run_show(&a);
    if (strcmp(a.sub, "verify") == 0)
        return run_verify(&a);
    if (strcmp(a.sub, "matrix") == 0)
        return run_matrix(&a);
    return run_append(&a);
}
