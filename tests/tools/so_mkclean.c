/* Writes a CLEAN root for the Stage O tests:
 *
 *   so_mkclean [--warm LIST] [--prefill V] [--junk] [--first-run K] ROOT RANKS RUN...
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
 * "so_mkclean ROOT 8 V*9 ...". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int main(int argc, char **argv)
{
    const char *warm = NULL, *prefill = NULL;
    int junk = 0, first_run = 1, i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (strcmp(argv[i], "--warm") == 0 && i + 1 < argc)
            warm = argv[++i];
        else if (strcmp(argv[i], "--prefill") == 0 && i + 1 < argc)
            prefill = argv[++i];
        else if (strcmp(argv[i], "--junk") == 0)
            junk = 1;
        else if (strcmp(argv[i], "--first-run") == 0 && i + 1 < argc)
            first_run = atoi(argv[++i]);
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
        char dir[4096], path[4200];
        snprintf(dir, sizeof dir, "%s/run-%d", root, first_run + (r - i - 2));
        if (mkdir(dir, 0755) != 0)
            return perror(dir), 1;
        char *specs = strdup(argv[r]);
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
                return perror(path), 1;
            int step = 1;
            fprintf(f, "2026-01-05 10:00:01 INFO [rank %d] model loaded\n", k);
            if (prefill)
                fprintf(f, "2026-01-05 10:00:09 INFO Inference time (prefill): %s ms\n", prefill);
            if (warm)
                write_list(f, warm, &step);
            if (junk)
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
    }
    return 0;
}
