/* Private to analyzer/stage_o: the record shapes of the ledger and the state
 * machine shared by the reader (replay) and the writers (so_ledger_apply
 * before every append). */
#ifndef SO_LEDGER_INTERNAL_H
#define SO_LEDGER_INTERNAL_H

#include <cjson/cJSON.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_cdiff.h"
#include "analyzer/stage_o/so_ledger.h"
#include "analyzer/stage_o/so_optmap.h"

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
/* The blockers that stop a whole Stage O (docs/ledger.md "stop"), and those
 * of them a failed stop may name. */
extern const char *const so_ledger_stop_codes[];
extern const char *const so_ledger_stop_failed_codes[];

/* Applies the record at index i (already chain-checked and shape-checked)
 * to the state in l (records[0..i) applied).  SK_E_CONTRACT with
 * SO_LEDGER_SUB_STATE when the record is not allowed there.  l->records[i]
 * must be filled. */
sk_err so_ledger_apply(so_ledger *l, size_t i, sk_diag *d);
/* Builds the item list and the O0 incumbent from the init record (index 0). */
sk_err so_ledger_state_init(so_ledger *l, sk_diag *d);
/* Fills l->next from the state. */
void so_ledger_state_next(so_ledger *l);

/* The step of the item's next trial ("ordinary", "d1", "d4"), or NULL when
 * the DCCI family's next record is not a trial. */
const char *so_ledger_expected_step(const so_ledger_item *it);

/* Members of a record body (NULL or 0 when absent or of another type). */
const char *so_lb_str(const cJSON *o, const char *key);
uint64_t so_lb_uint(const cJSON *o, const char *key);

/* The attempt name of the n-th (1-based) trial of item: "<id>-a<n>". */
void so_ledger_attempt_name(const char *item, size_t n, char *out, size_t size);
/* The attempt a failed stop's scene names: "<current incumbent>-stop" (the
 * run of the incumbent that failed; a ledger has at most one stop). */
void so_ledger_stop_attempt(const so_ledger *l, char *out, size_t size);

/* Diagnostic for record i: file = ledger path, line = its line,
 * "record <seq> (<kind>): <msg>"; evaluates to SK_E_CONTRACT (a macro, so
 * that the code is visible to the static analyzer, as sk_diag_set is). */
void so_ledger_fail_impl(const so_ledger *l, size_t i, int sub, sk_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#define so_ledger_fail(l, i, sub, d, ...) \
    (so_ledger_fail_impl((l), (i), (sub), (d), __VA_ARGS__), SK_E_CONTRACT)

/* ------------------------------------------------------------ evidence (so_ledger_bind.c) */

struct sk_jb;
struct so_set;
struct so_set_hygiene;
struct so_stability;
struct so_trial_eval;

/* The lexical absolute path of arg (relative to the working directory) and
 * its path relative to dir, which it must lie strictly inside
 * (SO_LEDGER_SUB_REFUSED "<arg>: <what> must lie inside the ledger's
 * directory ...").  Both owned by the caller. */
sk_err so_lb_rel(const char *dir, const char *arg, const char *what, char **rel, char **abs,
                 sk_diag *d);
/* {path, sha256} of a file given by the user; sha (65 bytes, may be NULL). */
sk_err so_lb_file(const char *dir, const char *arg, const char *what, cJSON **ref, char *sha,
                  sk_diag *d);

/* A config read for the ledger: its tree, digests and option maps. */
typedef struct so_lb_config {
    char *rel, *abs;
    so_cdiff_input in;
    so_optmaps maps;
} so_lb_config;

sk_err so_lb_config_load(const char *dir, const char *arg, const char *what, so_lb_config *c,
                         sk_diag *d);
/* Re-reads the config a record bound (ref: {path, sha256, fingerprint,
 * option_maps_digest}) and proves it unchanged (SO_LEDGER_SUB_EVIDENCE,
 * naming record rec and the file). */
sk_err so_lb_config_bound(const so_ledger *l, size_t rec, const cJSON *ref, so_lb_config *c,
                          sk_diag *d);
void so_lb_config_free(so_lb_config *c);
cJSON *so_lb_config_ref(struct sk_jb *b, const so_lb_config *c);

/* The runs binding {clean_root, runs} of a loaded CLEAN root whose
 * hygiene is proven; every run's archived config must be config_sha. */
sk_err so_lb_runs_bind(const char *root_abs, const char *root_rel, const struct so_set *set,
                       const struct so_set_hygiene *h, const char *config_sha, cJSON **runs,
                       sk_diag *d);
/* Loads exactly the runs a record bound (other runs of the folder are left
 * out) and proves every bound file unchanged; with exact_folder the folder
 * must hold no other run.  Failures are SO_LEDGER_SUB_EVIDENCE naming record
 * rec and the file.  *set may be NULL when only the check is wanted. */
sk_err so_lb_runs_load(const so_ledger *l, size_t rec, const cJSON *runs, int exact_folder,
                       struct so_set **set, sk_diag *d);
/* Re-hashes a {path, sha256} a record bound. */
sk_err so_lb_file_bound(const so_ledger *l, size_t rec, const cJSON *ref, const char *what,
                        sk_diag *d);
/* The latest record (index) whose runs binding names clean_root, or
 * SO_LEDGER_NONE; limit: only records before it. */
size_t so_lb_latest_binding(const so_ledger *l, const char *clean_root, size_t limit);
/* The runs binding of record i (init: o0.runs; trial, top_up: runs), or NULL. */
const cJSON *so_lb_record_runs(const so_ledger *l, size_t i);

/* The record shapes of docs/ledger.md §2 built from the gate structures. */
cJSON *so_lb_stability_json(struct sk_jb *b, const struct so_set *s,
                            const struct so_stability *st);
cJSON *so_lb_gate_json(struct sk_jb *b, const struct so_set *base,
                       const struct so_stability *base_st, const struct so_set *cand,
                       const struct so_trial_eval *e);

#endif
