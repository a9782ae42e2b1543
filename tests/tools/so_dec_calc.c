/* Reads "OP A B" lines (OP one of add sub mul div cmp float) and prints the
 * result of the Python-compatible decimal arithmetic of analyzer/numeric/num_decimal.h,
 * one line each, for tests/scripts/stage_o_decimal_python.sh. */
#include <stdio.h>
#include <string.h>

#include "analyzer/numeric/num_decimal.h"

static int parse(const char *s, num_dec *d)
{
    return num_dec_parse(s, strlen(s), d) == NUM_DEC_OK ? 0 : -1;
}

int main(void)
{
    char line[512], op[16], as[256], bs[256];
    while (fgets(line, sizeof line, stdin)) {
        num_dec a, b, r;
        int n = sscanf(line, "%15s %255s %255s", op, as, bs);
        if (n < 2 || parse(as, &a) != 0 || (n == 3 && parse(bs, &b) != 0)) {
            printf("parse-error\n");
            continue;
        }
        num_dec_status st = NUM_DEC_OK;
        if (strcmp(op, "str") == 0) {
            r = a;
        } else if (strcmp(op, "float") == 0) {
            double v;
            num_dec_to_double(&a, &v);
            printf("%.17g\n", v);
            continue;
        } else if (strcmp(op, "cmp") == 0) {
            printf("%d\n", num_dec_cmp(&a, &b));
            continue;
        } else if (strcmp(op, "add") == 0) {
            st = num_dec_add(&a, &b, &r);
        } else if (strcmp(op, "sub") == 0) {
            st = num_dec_sub(&a, &b, &r);
        } else if (strcmp(op, "mul") == 0) {
            st = num_dec_mul(&a, &b, &r);
        } else if (strcmp(op, "div") == 0) {
            st = num_dec_div(&a, &b, &r);
        } else {
            printf("bad-op\n");
            continue;
        }
        if (st != NUM_DEC_OK) {
            printf("error %s\n", num_dec_status_text(st));
            continue;
        }
        char out[NUM_DEC_STR_MAX];
        num_dec_to_str(&r, out, sizeof out);
        printf("%s\n", out);
    }
    return 0;
}
