/* Reads decimal timings (one per line, the rank-log literal syntax), then
 * prints count, mean, p50, p90, stddev, min and max in Python repr form, for
 * tests/scripts/stage_o_stats_python.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/numeric/num_decimal.h"
#include "analyzer/numeric/num_pystats.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"

static void show(const char *name, double v)
{
    char buf[40];
    sk_json_format_double(v, buf, sizeof buf);
    printf("%s %s\n", name, buf);
}

int main(void)
{
    char line[256];
    size_t n = 0, cap = 0;
    double *v = NULL;
    int rc = 1;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0]) {
            if (!n)
                continue;
        } else {
            num_dec d;
            if (num_dec_parse(line, strlen(line), &d) != NUM_DEC_OK)
                goto out;
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                double *nv = sk_realloc(v, cap * sizeof *v);
                if (!nv)
                    goto out;
                v = nv;
            }
            if (num_dec_to_double(&d, &v[n]) != NUM_DEC_OK)
                goto out;
            n++;
            continue;
        }
        num_pystats st;
        if (num_pystats_compute(v, n, &st, NULL) != SK_OK)
            goto out;
        printf("count %zu\n", st.count);
        show("mean", st.mean_ms);
        show("p50", st.p50_ms);
        show("p90", st.p90_ms);
        show("stddev", st.stddev_ms);
        show("min", st.min_ms);
        show("max", st.max_ms);
        n = 0;
    }
    rc = 0;
out:
    sk_free(v);
    return rc;
}
