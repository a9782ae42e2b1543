/* Private to analyzer/stage_o: the record shapes of the ledger and the state
 * machine shared by the reader (replay) and the writers (so_ledger_apply
 * before every append). */
#ifndef SO_LEDGER_INTERNAL_H
#define SO_LEDGER_INTERNAL_H

#include <cjson/cJSON.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_ledger.h"

/* ------------------------------------------------------------ shapes */

enum {
    SH_STR = 1, /* non-empty string */
    SH_TEXT,    /* any string (reasons, details) */
    SH_PATH,    /* evidence path relative to the ledger directory */
    SH_HEX,     /* lowercase SHA-256 */
    SH_UINT,    /* integer >= 0 */
    SH_BOOL,
    SH_NUM,     /* any JSON number */
    SH_OBJ,     /* object with exactly the fields of sub */
    SH_ARR,     /* list whose elements are sub[0] */
    SH_ANY,     /* any JSON value */
    SH_MAP,     /* any object */
    SH_ENUM     /* one of values */
};
#define SH_NULL 1u /* the value may be null */

typedef struct sh_field {
    const char *key; /* NULL ends a table (and names an array element) */
    int type;
    unsigned flags;
    const struct sh_field *sub;
    const char *const *values; /* SH_ENUM: NULL-terminated */
} sh_field;

/* The body table of a kind. */
const sh_field *so_ledger_body_shape(so_ledger_kind k);
/* Checks v against one field description; path prefixes messages
 * ("body.runs.runs[2].name").  SK_E_SCHEMA with the path in the message. */
sk_err so_ledger_shape_check(const cJSON *v, const sh_field *f, const char *path, sk_diag *d);
/* 1 when s is a valid evidence path: non-empty, relative, "/"-separated, no
 * empty, "." or ".." component, no trailing "/", no control character. */
int so_ledger_relpath_valid(const char *s);

/* ------------------------------------------------------------ state */

/* The item and enumeration values records use. */
extern const char *const so_ledger_steps[];       /* ordinary, d1, d4 */
extern const char *const so_ledger_outcomes[];    /* accepted, rejected, failed, attempt_failed */
extern const char *const so_ledger_d1_outcomes[]; /* gain, neutral, regression, functional_failure */
extern const char *const so_ledger_blocker_codes[]; /* the legal blockers (matrix blocker_code) */

/* Applies the record at index i (already chain-checked and shape-checked)
 * to the state in l (records[0..i) applied).  SK_E_CONTRACT with
 * SO_LEDGER_SUB_STATE when the record is not allowed there.  l->records[i]
 * must be filled. */
sk_err so_ledger_apply(so_ledger *l, size_t i, sk_diag *d);
/* Builds the item list and the O0 incumbent from the init record (index 0). */
sk_err so_ledger_state_init(so_ledger *l, sk_diag *d);
/* Fills l->next from the state. */
void so_ledger_state_next(so_ledger *l);

/* The attempt name of the n-th (1-based) trial of item: "<id>-a<n>". */
void so_ledger_attempt_name(const char *item, size_t n, char *out, size_t size);

/* Diagnostic for record i: file = ledger path, line = its line,
 * "record <seq> (<kind>): <msg>". */
sk_err so_ledger_fail(const so_ledger *l, size_t i, int sub, sk_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
