/* Parses rank logs with analyzer/stage_o/so_ranklog.h and prints, per file, every
 * decode sample, every prefill sample, the exact decode sum and the decode
 * count in Python repr form, or "error <diagnostic>".
 *   so_ranklog_dump CHUNK FILE WARMUP [FILE WARMUP]...
 * CHUNK is the largest read the memory reader returns (0 = no limit), to
 * exercise chunk boundaries.  Used by tests/scripts/stage_o_python.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/stage_o/so_ranklog.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"

static int load(const char *path, sk_buf *in)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char tmp[65536];
    size_t got;
    int rc = 0;
    while ((got = fread(tmp, 1, sizeof tmp, f)) > 0)
        if (sk_buf_append(in, tmp, got) != SK_OK)
            rc = -1;
    fclose(f);
    return rc;
}

static void dump(const sk_buf *in, size_t chunk, uint64_t warmup)
{
    sk_mem_reader r = {in->data ? in->data : "", in->len, 0, chunk};
    so_rank_timings t;
    so_rank_timings_init(&t);
    sk_diag d;
    sk_diag_clear(&d);
    if (so_ranklog_read(sk_mem_read, &r, "stdin", warmup, &t, &d) != SK_OK) {
        char line[2048];
        sk_diag_format(&d, line, sizeof line);
        printf("error %s\n", line);
    } else {
        char num[40];
        for (size_t i = 0; i < t.n_decode; i++) {
            sk_json_format_double(t.decode[i], num, sizeof num);
            printf("decode %s\n", num);
        }
        for (size_t i = 0; i < t.n_prefill; i++) {
            sk_json_format_double(t.prefill[i], num, sizeof num);
            printf("prefill %s\n", num);
        }
        char sum[NUM_DEC_STR_MAX];
        num_dec_to_str(&t.decode_sum, sum, sizeof sum);
        printf("decode-sum %s\ndecode-seen %llu\n", sum, (unsigned long long)t.decode_seen);
    }
    so_rank_timings_free(&t);
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc % 2)
        return 2;
    size_t chunk = strtoull(argv[1], NULL, 10);
    for (int i = 2; i + 1 < argc; i += 2) {
        sk_buf in = SK_BUF_INIT;
        if (load(argv[i], &in) != 0)
            return 2;
        printf("== %s\n", argv[i]);
        dump(&in, chunk, strtoull(argv[i + 1], NULL, 10));
        sk_buf_free(&in);
    }
    return 0;
}
