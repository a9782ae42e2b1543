/* Throughput check of the streaming readers on a real file:
 *   readers_bench csv|lines|fused|rtlog|prof|prof-object|prof-general FILE
 * Prints records, raw and decoded MB, seconds (wall and CPU) and decoded
 * MB/s on stdout.  prof reads an sk_prof trace (records = events, with the
 * elements each path of the reader took); prof-object reads it without the
 * runtime-layout step (RD_PROF_NO_LAYOUT), prof-general without the record
 * fast path (RD_PROF_GENERAL_ONLY). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/readers/rd_fused_log.h"
#include "analyzer/readers/rd_kernel_details.h"
#include "analyzer/readers/rd_lines.h"
#include "analyzer/readers/rd_prof.h"
#include "analyzer/readers/rd_runtime_log.h"
#include "analyzer/readers/rd_source.h"

typedef struct fd_reader {
    int fd;
} fd_reader;

static sk_err fd_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    fd_reader *r = ctx;
    for (;;) {
        ssize_t n = read(r->fd, buf, cap);
        if (n >= 0) {
            *got = (size_t)n;
            return SK_OK;
        }
        if (errno != EINTR)
            return sk_diag_set(d, SK_E_IO, "", 0, "read failed: %s", strerror(errno));
    }
}

static sk_err count_event(void *ctx, const rd_prof_event *ev, sk_diag *d)
{
    (void)ev;
    (void)d;
    (*(uint64_t *)ctx)++;
    return SK_OK;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr,
                "usage: readers_bench csv|lines|fused|rtlog|prof|prof-object|prof-general FILE\n");
        return 2;
    }
    fd_reader fr = {open(argv[2], O_RDONLY)};
    if (fr.fd < 0) {
        fprintf(stderr, "readers_bench: cannot open %s\n", argv[2]);
        return 1;
    }
    sk_diag d;
    sk_diag_clear(&d);
    rd_source *src = NULL;
    uint64_t records = 0;
    rd_prof_summary sum;
    char paths[128] = "";
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    sk_err e = rd_source_new(fd_read, &fr, argv[2], &src, &d);
    if (e == SK_OK && strcmp(argv[1], "csv") == 0) {
        rd_kd_reader *r = NULL;
        e = rd_kd_open(rd_source_read, src, argv[2], NULL, &r, &d);
        while (e == SK_OK) {
            rd_kd_row row;
            int have;
            e = rd_kd_next(r, &row, &have, &d);
            if (!have)
                break;
            records++;
        }
        rd_kd_free(r);
    } else if (e == SK_OK && strcmp(argv[1], "lines") == 0) {
        rd_lines *lr = NULL;
        e = rd_lines_new(rd_source_read, src, argv[2], 0, &lr, &d);
        while (e == SK_OK) {
            rd_line line;
            int have;
            e = rd_lines_next(lr, &line, &have, &d);
            if (!have)
                break;
            records++;
        }
        rd_lines_free(lr);
    } else if (e == SK_OK && strcmp(argv[1], "fused") == 0) {
        rd_fused_log *log = NULL;
        e = rd_fused_log_parse(rd_source_read, src, argv[2], NULL, &log, &d);
        records = log ? log->n_nodes : 0;
        rd_fused_log_free(log);
    } else if (e == SK_OK && strcmp(argv[1], "rtlog") == 0) {
        rd_runtime_log *log = NULL;
        e = rd_runtime_log_parse(rd_source_read, src, argv[2], 0, &log, &d);
        records = log ? log->lines : 0;
        rd_runtime_log_free(log);
    } else if (e == SK_OK && strncmp(argv[1], "prof", 4) == 0 &&
               (!argv[1][4] || strcmp(argv[1], "prof-object") == 0 ||
                strcmp(argv[1], "prof-general") == 0)) {
        unsigned flags = strcmp(argv[1], "prof-object") == 0    ? RD_PROF_NO_LAYOUT
                         : strcmp(argv[1], "prof-general") == 0 ? RD_PROF_GENERAL_ONLY
                                                                : 0;
        e = rd_prof_read_with(rd_source_read, src, argv[2], flags, count_event, &records, &sum, &d);
        snprintf(paths, sizeof paths, " layout=%llu object=%llu general=%llu",
                 (unsigned long long)sum.layout_events,
                 (unsigned long long)(sum.fast_events - sum.layout_events),
                 (unsigned long long)(sum.elements - sum.fast_events));
    } else if (e == SK_OK) {
        fprintf(stderr, "readers_bench: unknown reader %s\n", argv[1]);
        e = SK_E_ARG;
    }
    char hex[65] = "";
    if (e == SK_OK)
        e = rd_source_finish(src, hex, &d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
    int rc = 0;
    if (e != SK_OK) {
        char msg[2048];
        sk_diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "readers_bench: %s\n", msg);
        rc = 1;
    } else {
        double raw = (double)rd_source_raw_bytes(src) / 1e6, dec = (double)rd_source_decoded_bytes(src) / 1e6;
        printf("%s records=%llu%s raw_MB=%.1f decoded_MB=%.1f seconds=%.3f cpu_seconds=%.3f "
               "decoded_MB_per_s=%.0f sha256=%s\n",
               argv[1], (unsigned long long)records, paths, raw, dec, secs, cpu,
               secs > 0 ? dec / secs : 0.0, hex);
    }
    rd_source_free(src);
    close(fr.fd);
    return rc;
}
