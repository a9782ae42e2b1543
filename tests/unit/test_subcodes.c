/* The sub-code registry: every module's table is in it, values are unique
 * and lie in their module's range, and docs/errors.md lists every code with
 * its value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/cli/skx_subcodes.h"
#include "tests/unit/t.h"

typedef struct range {
    const char *module;
    int first, last;
} range;

static const range k_ranges[] = {
#define RANGE_ROW(module, first, last) {#module, (first), (last)},
    SK_SUB_RANGES(RANGE_ROW)
#undef RANGE_ROW
};

static const range *range_of(const char *module)
{
    for (size_t i = 0; i < sizeof k_ranges / sizeof k_ranges[0]; i++)
        if (strcmp(k_ranges[i].module, module) == 0)
            return &k_ranges[i];
    return NULL;
}

static void ranges_do_not_overlap(void)
{
    size_t n = sizeof k_ranges / sizeof k_ranges[0];
    for (size_t i = 0; i < n; i++) {
        T_CHECK(k_ranges[i].first >= 1 && k_ranges[i].first <= k_ranges[i].last);
        for (size_t j = i + 1; j < n; j++)
            T_CHECK(k_ranges[i].last < k_ranges[j].first || k_ranges[j].last < k_ranges[i].first);
    }
}

static void codes_unique_and_in_range(void)
{
    size_t n;
    const skx_subcode *all = skx_subcodes(&n);
    T_CHECK(n > 100);
    size_t modules_seen = 0;
    for (size_t r = 0; r < sizeof k_ranges / sizeof k_ranges[0]; r++)
        for (size_t i = 0; i < n; i++)
            if (strcmp(all[i].module, k_ranges[r].module) == 0) {
                modules_seen++;
                break;
            }
    T_EQ_U64(modules_seen, sizeof k_ranges / sizeof k_ranges[0]); /* every range has a table */
    for (size_t i = 0; i < n; i++) {
        const range *rg = range_of(all[i].module);
        T_CHECK(rg != NULL);
        if (rg && (all[i].value < rg->first || all[i].value > rg->last))
            t_fail(__FILE__, __LINE__, "%s = %d is outside %s %d..%d", all[i].name, all[i].value,
                   rg->module, rg->first, rg->last);
        T_CHECK(all[i].meaning[0] != '\0');
        for (size_t j = i + 1; j < n; j++) {
            if (all[i].value == all[j].value)
                t_fail(__FILE__, __LINE__, "%s and %s share %d", all[i].name, all[j].name,
                       all[i].value);
            T_CHECK(strcmp(all[i].name, all[j].name) != 0);
        }
        T_CHECK(skx_subcode_find(all[i].value) == &all[i]);
    }
    T_CHECK(skx_subcode_find(0) == NULL);
    T_EQ_STR(skx_subcode_find(RD_CSV_E_BOM)->name, "RD_CSV_E_BOM");
    T_EQ_STR(skx_subcode_find(AC_E_ROOT_NOT_EMPTY)->name, "E_ROOT_NOT_EMPTY");
    T_EQ_INT(AC_E_USAGE, 100); /* published in --json-errors: pinned */
    T_EQ_INT(SK_FS_SUB_SYMLINK, 1);
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static void docs_list_every_code(void)
{
    const char *repo = getenv("SK_REPO");
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/errors.md", repo ? repo : ".");
    char *doc = read_all(path);
    T_CHECK(doc != NULL);
    if (!doc)
        return;
    size_t n;
    const skx_subcode *all = skx_subcodes(&n);
    for (size_t i = 0; i < n; i++) {
        char row[256];
        snprintf(row, sizeof row, "| %d | `%s` |", all[i].value, all[i].name);
        if (!strstr(doc, row))
            t_fail(__FILE__, __LINE__, "docs/errors.md lacks the row \"%s\"", row);
    }
    free(doc);
}

static const t_case cases[] = {
    T(ranges_do_not_overlap),
    T(codes_unique_and_in_range),
    T(docs_list_every_code),
    {NULL, NULL},
};

T_MAIN(cases)
