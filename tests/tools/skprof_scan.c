/* Benchmark/diagnostic helper: streams one sk_prof trace (plain file, or
 * zstd-compressed) through rd_prof_read and prints the event summary. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/readers/rd_prof.h"
#include "analyzer/readers/rd_source.h"
#include "artifact_contract/base/sk_alloc.h"

static sk_err fd_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    int fd = *(int *)ctx;
    for (;;) {
        ssize_t n = read(fd, buf, cap);
        if (n >= 0) {
            *got = (size_t)n;
            return SK_OK;
        }
        if (errno != EINTR)
            return sk_diag_set(d, SK_E_IO, "input", 0, "read failed: %s", strerror(errno));
    }
}

static sk_err count(void *ctx, const rd_prof_event *ev, sk_diag *d)
{
    (void)d;
    unsigned long long *sum = ctx;
    *sum += (unsigned long long)ev->dur_ns;
    return SK_OK;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: skprof_scan FILE\n");
        return 2;
    }
    sk_alloc_install_library_hooks();
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    rd_source *src = NULL;
    sk_diag d;
    unsigned long long total = 0;
    rd_prof_summary sum;
    sk_err e = rd_source_new(fd_read, &fd, argv[1], &src, &d);
    if (!e)
        e = rd_prof_read(rd_source_read, src, argv[1], count, &total, &sum, &d);
    close(fd);
    if (e) {
        char msg[2048];
        sk_diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "skprof_scan: error: %s\n", msg);
        rd_source_free(src);
        return 1;
    }
    printf("events=%llu parents=%llu skipped_no_ts=%llu bytes=%llu dur_sum_ns=%llu\n",
           (unsigned long long)sum.events, (unsigned long long)sum.parents,
           (unsigned long long)sum.skipped_no_ts, (unsigned long long)sum.bytes, total);
    rd_source_free(src);
    return 0;
}
