/* The report of one Stage O attempt (docs/round-report.md): a trial of a
 * matrix item or its top-up, rendered from the ledger record that judged it.
 *
 * The document (skdcci-round-report-v1) holds exact values only: the runs
 * the gate used (top-up runs marked), worst-rank mean, median run, P50, P90,
 * stddev and spread of the trial and of the incumbent, every gate check with
 * its value and threshold, the incumbent before and after with the exact
 * pointer and values, the evidence files with SHA-256 and, for a failed
 * attempt, the eight items of its failure scene.  The Chinese Markdown and
 * the HTML page (with charts) are rendered from the document alone, with
 * numbers rounded for reading.
 *
 * Building a document reads the two files a record binds that the report
 * shows (the gate summary and the failure scene) and checks them against
 * the record's SHA-256: a replaced file is SK_E_CONTRACT with
 * SO_LEDGER_SUB_EVIDENCE, naming it.
 */
#ifndef SO_ROUND_H
#define SO_ROUND_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_ledger.h"

#define SO_ROUND_SCHEMA "skdcci-round-report-v1"
#define SO_ROUND_JSON_NAME "round-report.json"
#define SO_ROUND_MD_NAME "ROUND_REPORT.md"
#define SO_ROUND_HTML_NAME "ROUND_REPORT.html"

/* The records of item that are attempts (its trial and top-up records), in
 * ledger order, as record indexes.  *idx is owned by the caller (sk_free). */
sk_err so_round_attempts(const so_ledger *l, const char *item, size_t **idx, size_t *n,
                         sk_diag *d);
/* The directory name of the report of record i: the attempt name, with
 * "-top-up" for a top-up ("O2-a1", "O2-a1-top-up"). */
void so_round_dir_name(const so_ledger *l, size_t i, char *out, size_t size);

/* The document of record i (a trial or top_up record). */
sk_err so_round_doc(const so_ledger *l, size_t i, cJSON **out, sk_diag *d);
/* The Chinese Markdown of a document. */
sk_err so_round_md(const cJSON *doc, sk_buf *out, sk_diag *d);
/* The HTML page of a document: the same report with its charts. */
sk_err so_round_html(const cJSON *doc, sk_buf *out, sk_diag *d);

#endif
