/* The sub-code registry: every module's table of sk_diag.sub values in one
 * place, so that any sub-code maps to its module, name and meaning.  It
 * lives in the program layer because only this layer may include every
 * library (tools/layers.sh); the ranges are in
 * artifact_contract/base/sk_subcode.h and docs/errors.md lists every code
 * (tests/unit/test_subcodes.c checks all three agree). */
#ifndef SKX_SUBCODES_H
#define SKX_SUBCODES_H

#include <stddef.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/base/sk_fixed.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_subcode.h"
#include "analyzer/readers/rd_csv.h"
#include "analyzer/readers/rd_fused_log.h"
#include "analyzer/readers/rd_lines.h"
#include "analyzer/readers/rd_runtime_log.h"
#include "analyzer/readers/rd_sknode.h"
#include "analyzer/readers/rd_source.h"
#include "analyzer/stage_o/so_ledger.h"

typedef struct skx_subcode {
    const char *module; /* the range name in sk_subcode.h: "RD_CSV" */
    int value;
    const char *name;   /* "RD_CSV_E_BOM"; the contract's codes keep their published "E_..." */
    const char *meaning;
} skx_subcode;

/* One initializer per code of every table. */
#define SKX_SUB_ROW(module, name, value, meaning) {#module, (value), #name, (meaning)},
#define SKX_ROW_SK_FS(name, value, meaning) SKX_SUB_ROW(SK_FS, name, value, meaning)
#define SKX_ROW_AC(name, value, meaning) SKX_SUB_ROW(AC, name, value, meaning)
#define SKX_ROW_SK_FIXED(name, value, meaning) SKX_SUB_ROW(SK_FIXED, name, value, meaning)
#define SKX_ROW_RD_SOURCE(name, value, meaning) SKX_SUB_ROW(RD_SOURCE, name, value, meaning)
#define SKX_ROW_RD_LINES(name, value, meaning) SKX_SUB_ROW(RD_LINES, name, value, meaning)
#define SKX_ROW_RD_CSV(name, value, meaning) SKX_SUB_ROW(RD_CSV, name, value, meaning)
#define SKX_ROW_RD_NODE(name, value, meaning) SKX_SUB_ROW(RD_NODE, name, value, meaning)
#define SKX_ROW_RD_FUSED(name, value, meaning) SKX_SUB_ROW(RD_FUSED, name, value, meaning)
#define SKX_ROW_RD_RTLOG(name, value, meaning) SKX_SUB_ROW(RD_RTLOG, name, value, meaning)
#define SKX_ROW_SO_LEDGER(name, value, meaning) SKX_SUB_ROW(SO_LEDGER, name, value, meaning)
#define SKX_SUB_ROWS \
    SK_FS_SUB_TABLE(SKX_ROW_SK_FS) \
    AC_CODE_TABLE(SKX_ROW_AC) \
    SK_FIXED_SUB_TABLE(SKX_ROW_SK_FIXED) \
    RD_SOURCE_SUB_TABLE(SKX_ROW_RD_SOURCE) \
    RD_LINES_SUB_TABLE(SKX_ROW_RD_LINES) \
    RD_CSV_SUB_TABLE(SKX_ROW_RD_CSV) \
    RD_NODE_SUB_TABLE(SKX_ROW_RD_NODE) \
    RD_FUSED_SUB_TABLE(SKX_ROW_RD_FUSED) \
    RD_RTLOG_SUB_TABLE(SKX_ROW_RD_RTLOG) \
    SO_LEDGER_SUB_TABLE(SKX_ROW_SO_LEDGER)

/* The whole registry (every code of every module); *n receives its length. */
static inline const skx_subcode *skx_subcodes(size_t *n)
{
    static const skx_subcode all[] = {SKX_SUB_ROWS};
    *n = sizeof all / sizeof all[0];
    return all;
}

/* The registry row of sub-code sub, NULL when no module defines it. */
static inline const skx_subcode *skx_subcode_find(int sub)
{
    size_t n;
    const skx_subcode *all = skx_subcodes(&n);
    for (size_t i = 0; i < n; i++)
        if (all[i].value == sub)
            return &all[i];
    return NULL;
}

#endif
