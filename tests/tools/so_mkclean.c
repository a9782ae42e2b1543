/* Writes a CLEAN root for the Stage O tests:
 *
 *   so_mkclean [--warm LIST] [--prefill V] [--junk] [--first-run K]
 *              [--record CONFIG [--env NAME=VALUE]... [--fail-correctness K] [--hold MS]]
 *              ROOT RANKS RUN...
 *
 * Creates ROOT/run-<k>/log_<r>.log for r in 0..RANKS-1 and one run directory
 * per RUN argument (k from --first-run, default 1).  RUN is a list of
 * per-rank sample lists separated by ';' (the last list is reused for the
 * remaining ranks); a sample list is ','-separated tokens "V" or "V*COUNT"
 * (V verbatim, repeated).  Each sample becomes a line
 * "<timestamp> INFO step=<i> Inference time (decode): V ms".  --warm LIST
 * prepends the same decode samples to every rank (e.g. the warmup steps),
 * --prefill V adds a prefill line, --junk adds lines the parser must ignore.
 * The reference's test helper (_write_performance_runs) corresponds to
 * "so_mkclean ROOT 8 V*9 ...".
 *
 * --record CONFIG makes every run a real clean run: the library's
 * `artifact_contract run` (ac_run, --purpose clean --config CONFIG) runs
 * this program again as the run's process, which writes the run's rank logs
 * and correctness.json (passed, or failed for run --fail-correctness K), so
 * the record, the attempt journal and the log times are the genuine
 * article.  --env adds a variable to the run's environment.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/ac_run.h"

extern char **environ;

typedef struct spec {
    const char *warm, *prefill, *hold;
    int junk;
} spec;

static int write_list(FILE *f, const char *list, int *step)
{
    char *copy = strdup(list);
    if (!copy)
        return -1;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        long count = 1;
        char *star = strchr(tok, '*');
        if (star) {
            *star = '\0';
            count = strtol(star + 1, NULL, 10);
        }
        for (long i = 0; i < count; i++)
            fprintf(f, "2026-01-05 10:00:%02d INFO step=%d Inference time (decode): %s ms\n",
                    *step % 60, *step, tok), (*step)++;
    }
    free(copy);
    return 0;
}

/* The rank logs of one run directory (which exists). */
static int write_run(const char *dir, int ranks, const char *run_spec, const spec *sp)
{
    char path[4200];
    char *specs = strdup(run_spec);
    if (!specs)
        return 1;
    char *lists[256];
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(specs, ";", &save); tok && n < 256;
         tok = strtok_r(NULL, ";", &save))
        lists[n++] = tok;
    for (int k = 0; k < ranks; k++) {
        snprintf(path, sizeof path, "%s/log_%d.log", dir, k);
        FILE *f = fopen(path, "w");
        if (!f)
            return perror(path), free(specs), 1;
        int step = 1;
        fprintf(f, "2026-01-05 10:00:01 INFO [rank %d] model loaded\n", k);
        if (sp->prefill)
            fprintf(f, "2026-01-05 10:00:09 INFO Inference time (prefill): %s ms\n", sp->prefill);
        if (sp->warm)
            write_list(f, sp->warm, &step);
        if (sp->junk)
            fputs("WARN Inference time (decode): -1 ms\n"
                  "WARN Inference time (decode): 1e3 ms\n"
                  "WARN Inference time (decode):  5 ms\n"
                  "WARN Inference time (Decode): 5 ms\n"
                  "WARN inference time (decode): 5 ms\n",
                  f);
        if (n)
            write_list(f, lists[k < n ? k : n - 1], &step);
        fclose(f);
    }
    free(specs);
    return 0;
}

static int write_correctness(const char *dir, int passed)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/correctness.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return perror(path), 1;
    fprintf(f, "{\"schema_version\": \"skdcci-correctness-1\", \"passed\": %s, "
               "\"compared\": \"logits\", \"tool\": \"so_mkclean\"}\n",
            passed ? "true" : "false");
    return fclose(f) != 0;
}

/* The options that shape a run's files, shared by both modes; 1 when
 * argv[*i] was one of them (*i then points at its last word). */
static int spec_option(int argc, char **argv, int *i, spec *sp)
{
    const char *o = argv[*i];
    int has_value = *i + 1 < argc;
    if (strcmp(o, "--junk") == 0)
        sp->junk = 1;
    else if (strcmp(o, "--warm") == 0 && has_value)
        sp->warm = argv[++*i];
    else if (strcmp(o, "--prefill") == 0 && has_value)
        sp->prefill = argv[++*i];
    else if (strcmp(o, "--hold") == 0 && has_value)
        sp->hold = argv[++*i];
    else
        return 0;
    return 1;
}

/* The run's process under --record: so_mkclean --as-run DIR RANKS SPEC PASSED
 * [--warm L] [--prefill V] [--junk] [--hold MS] (options after the four words). */
static int as_run(int argc, char **argv)
{
    spec sp = {NULL, NULL, NULL, 0};
    if (argc < 6)
        return 2;
    for (int i = 6; i < argc; i++)
        if (!spec_option(argc, argv, &i, &sp))
            return 2;
    if (sp.hold)
        usleep((useconds_t)atoi(sp.hold) * 1000u);
    if (write_run(argv[2], atoi(argv[3]), argv[4], &sp))
        return 1;
    return write_correctness(argv[2], strcmp(argv[5], "1") == 0);
}

/* One recorded clean run: ac_run of this program in --as-run mode. */
static int record_run(const char *dir, int ranks, const char *run_spec, const spec *sp,
                      const char *config, char **extra_env, int n_extra, int passed)
{
    char self[4096], record[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return perror("/proc/self/exe"), 1;
    self[n] = '\0';
    snprintf(record, sizeof record, "%s/run-record.json", dir);
    char ranks_text[16];
    snprintf(ranks_text, sizeof ranks_text, "%d", ranks);
    const char *argv[16];
    int a = 0;
    argv[a++] = self;
    argv[a++] = "--as-run";
    argv[a++] = dir;
    argv[a++] = ranks_text;
    argv[a++] = run_spec;
    argv[a++] = passed ? "1" : "0";
    if (sp->warm)
        argv[a++] = "--warm", argv[a++] = sp->warm;
    if (sp->prefill)
        argv[a++] = "--prefill", argv[a++] = sp->prefill;
    if (sp->junk)
        argv[a++] = "--junk";
    if (sp->hold)
        argv[a++] = "--hold", argv[a++] = sp->hold;
    argv[a] = NULL;
    size_t n_env = 0;
    while (environ[n_env])
        n_env++;
    const char **envp = calloc(n_env + (size_t)n_extra + 1, sizeof *envp);
    if (!envp)
        return 1;
    for (size_t i = 0; i < n_env; i++)
        envp[i] = environ[i];
    for (int i = 0; i < n_extra; i++)
        envp[n_env + (size_t)i] = extra_env[i];
    ac_run_opts o;
    ac_run_result res;
    sk_diag d;
    memset(&o, 0, sizeof o);
    sk_diag_clear(&d);
    o.purpose = AC_RUN_PURPOSE_CLEAN;
    o.config_path = config;
    o.record_path = record;
    o.argv = argv;
    o.envp = envp;
    o.grace_ms = 1000;
    sk_err e = ac_run(&o, &res, &d);
    free(envp);
    if (e)
        return fprintf(stderr, "so_mkclean: run %s: %s\n", dir, d.msg), 1;
    if (res.exit_kind != AC_EXIT_EXITED || res.exit_code != 0)
        return fprintf(stderr, "so_mkclean: run %s failed\n", dir), 1;
    return 0;
}

int main(int argc, char **argv)
{
    spec sp = {NULL, NULL, NULL, 0};
    const char *config = NULL;
    char *extra_env[32];
    int n_extra = 0, first_run = 1, fail_correctness = 0, i = 1;
    if (argc > 1 && strcmp(argv[1], "--as-run") == 0)
        return as_run(argc, argv);
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (spec_option(argc, argv, &i, &sp))
            continue;
        if (strcmp(argv[i], "--first-run") == 0 && i + 1 < argc)
            first_run = atoi(argv[++i]);
        else if (strcmp(argv[i], "--record") == 0 && i + 1 < argc)
            config = argv[++i];
        else if (strcmp(argv[i], "--env") == 0 && i + 1 < argc && n_extra < 32)
            extra_env[n_extra++] = argv[++i];
        else if (strcmp(argv[i], "--fail-correctness") == 0 && i + 1 < argc)
            fail_correctness = atoi(argv[++i]);
        else
            return fprintf(stderr, "so_mkclean: bad option %s\n", argv[i]), 2;
    }
    if (argc - i < 3)
        return fprintf(stderr, "usage: so_mkclean [opts] ROOT RANKS RUN...\n"), 2;
    const char *root = argv[i];
    int ranks = atoi(argv[i + 1]);
    if (mkdir(root, 0755) != 0 && errno != EEXIST)
        return perror(root), 1;
    for (int r = i + 2; r < argc; r++) {
        char dir[4096];
        int k = first_run + (r - i - 2);
        snprintf(dir, sizeof dir, "%s/run-%d", root, k);
        if (mkdir(dir, 0755) != 0)
            return perror(dir), 1;
        int rc = config ? record_run(dir, ranks, argv[r], &sp, config, extra_env, n_extra,
                                     k != fail_correctness)
                        : write_run(dir, ranks, argv[r], &sp);
        if (rc)
            return rc;
    }
    return 0;
}
