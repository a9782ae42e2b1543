/* The Stage O ledger of one winner: reading API (docs/ledger.md).
 *
 * A ledger is a JSON Lines file, one record per line, each line the
 * canonical JSON text (sk_json SK_JSON_CANONICAL) of
 *
 *   {"body": {...}, "body_sha256": H(canonical body), "kind": K,
 *    "prev": H(previous line with its "\n") or 64 zeros, "schema_version":
 *    "skdcci-stage-o-ledger-v1", "seq": N, "time": "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ"}
 *
 * followed by "\n".  The head hash is the SHA-256 of the last line with its
 * newline.  so_ledger_read verifies the whole chain (canonical text,
 * consecutive sequence numbers from 1, prev, body digest, the shape of every
 * body) and then replays the records in order, checking that each one is
 * allowed in the state the earlier ones left (the same rules the appending
 * commands enforce, so_ledger_apply): what it returns is the derived Stage O
 * state, never a value copied from the file.
 *
 * Bound evidence (files, CLEAN roots, gates) is not touched by reading;
 * so_ledger_verify re-checks it (docs/ledger.md "Verification").
 *
 * Evidence paths inside records are relative to the ledger's directory
 * ("/"-separated, no "." or ".." components); so_ledger_path resolves them.
 *
 * Library rule: never prints; errors are SK_E_CONTRACT with a sub-code of
 * SO_LEDGER_SUB_TABLE and the file and line of the record concerned.
 */
#ifndef SO_LEDGER_H
#define SO_LEDGER_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_subcode.h"

#define SO_LEDGER_SCHEMA "skdcci-stage-o-ledger-v1"
/* A ledger is a few hundred small records; this bounds memory. */
#define SO_LEDGER_MAX_BYTES (256u * 1024 * 1024)
#define SO_LEDGER_MAX_LINE (16u * 1024 * 1024)
#define SO_LEDGER_MAX_RECORDS 100000u
/* The identity the protocol names Sbest-BASE by. */
#define SO_LEDGER_BASE_ID "Sbest-BASE"
/* "no record" in the record indexes below */
#define SO_LEDGER_NONE ((size_t)-1)

/* Stable values of sk_diag.sub for ledger errors (append only). */
#define SO_LEDGER_SUB_TABLE(X)                                                                     \
    X(SO_LEDGER_SUB_LINE, 1701, "a ledger line is not one canonical record")                      \
    X(SO_LEDGER_SUB_SEQUENCE, 1702, "a ledger sequence number is out of order")                   \
    X(SO_LEDGER_SUB_CHAIN, 1703, "a record's prev is not the SHA-256 of the line before it")      \
    X(SO_LEDGER_SUB_BODY_HASH, 1704, "a record's body_sha256 is not the SHA-256 of its body")     \
    X(SO_LEDGER_SUB_SHAPE, 1705, "a record body has the wrong shape")                             \
    X(SO_LEDGER_SUB_STATE, 1706, "a record is not allowed in the state the records before it left") \
    X(SO_LEDGER_SUB_TORN, 1707, "the last record lacks its newline")                              \
    X(SO_LEDGER_SUB_EVIDENCE, 1708, "evidence bound by a record changed")                         \
    X(SO_LEDGER_SUB_GATE, 1709, "a recorded gate gives another result on its bound runs")         \
    X(SO_LEDGER_SUB_LOCKED, 1710, "another command holds the ledger's lock")                      \
    X(SO_LEDGER_SUB_REFUSED, 1711, "the ledger's state does not allow the operation")             \
    X(SO_LEDGER_SUB_EMPTY, 1712, "the file holds no ledger record")                               \
    X(SO_LEDGER_SUB_HEAD, 1713, "the head hash is not the expected one")                          \
    X(SO_LEDGER_SUB_BLOCKED, 1714, "the evidence does not allow the operation yet")
typedef enum so_ledger_sub { SO_LEDGER_SUB_NONE = 0, SO_LEDGER_SUB_TABLE(SK_SUB_ENUM) } so_ledger_sub;
#define SO_LEDGER_SUB_CHECK(name, value, meaning) SK_SUB_IN_RANGE(SO_LEDGER, name, value)
SO_LEDGER_SUB_TABLE(SO_LEDGER_SUB_CHECK)

typedef enum so_ledger_kind {
    SO_LEDGER_INIT = 0, /* Sbest-SEED identity, frozen matrix, O0-INCUMBENT */
    SO_LEDGER_TRIAL,    /* one trial of an item against the incumbent (with its rollback) */
    SO_LEDGER_TOP_UP,   /* the accepted trial extended to five runs */
    SO_LEDGER_SETTLE,   /* an item blocked or skipped with its legal blocker */
    SO_LEDGER_CAPTURE,  /* DCCI D2: the paired diagnostic capture */
    SO_LEDGER_ANALYSIS, /* DCCI D3: the sealed analysis and its list L */
    SO_LEDGER_PROBE,    /* DCCI: the probe check of L */
    SO_LEDGER_REPAIR,   /* DCCI D4: the joint repair config and its proof */
    SO_LEDGER_FREEZE,   /* Sbest-BASE */
    SO_LEDGER_CHECK,    /* a later (P/FINAL) config checked against BASE's option maps */
    SO_LEDGER_STOP,     /* Stage O ends blocked or failed; Sbest-BASE is the incumbent then */
    SO_LEDGER_KIND_COUNT
} so_ledger_kind;

/* "init", "trial", "top_up", "settle", "capture", "analysis", "probe",
 * "repair", "freeze", "check", "stop" */
const char *so_ledger_kind_name(so_ledger_kind k);

/* The matrix statuses of an item (docs/stage-o.md §7). */
typedef enum so_item_status {
    SO_ITEM_PENDING = 0,
    SO_ITEM_RUNNING,
    SO_ITEM_ACCEPTED,
    SO_ITEM_REJECTED,
    SO_ITEM_FAILED,
    SO_ITEM_BLOCKED,
    SO_ITEM_SKIPPED
} so_item_status;

const char *so_item_status_name(so_item_status s);
/* 1 for accepted, rejected, failed, blocked and skipped. */
int so_item_status_settled(so_item_status s);

typedef struct so_ledger_record {
    uint64_t seq;          /* 1-based; record i has seq i + 1 */
    uint64_t line;         /* 1-based line number in the file */
    uint64_t offset;       /* byte offset of the line */
    uint64_t length;       /* bytes of the line including its "\n" */
    so_ledger_kind kind;
    const char *time;      /* borrowed from the record */
    char prev[65];
    char body_sha256[65];
    char line_sha256[65];  /* SHA-256 of the line with its "\n" */
    const cJSON *record;   /* the whole record (borrowed from the ledger) */
    const cJSON *body;     /* its body */
} so_ledger_record;

/* One matrix item as the records left it.  Record indexes point into
 * so_ledger.records (SO_LEDGER_NONE when there is none). */
typedef struct so_ledger_item {
    const char *id;           /* borrowed from the init record's plan */
    const char *category;     /* dcci, auto_op_parallel, aggressive, other_experimental */
    const cJSON *plan;        /* the plan entry: id, category, risk, option, value, pointer,
                                 original_value (DCCI: the disable-all trial's) */
    int dcci;
    so_item_status status;
    const char *phase;        /* DCCI only: "D1".."D4"; NULL for other items */
    const char *d1_outcome;   /* DCCI: NULL before the disable-all trial, then gain, neutral,
                                 regression or functional_failure */
    size_t attempts;          /* trial records of this item */
    size_t trial;             /* its latest trial record */
    size_t pending_top_up;    /* an accepted trial still waiting for its top-up */
    size_t top_up;            /* its top-up record */
    size_t d1_trial;          /* DCCI records: the latest of each kind */
    size_t capture;
    size_t analysis;
    size_t probe;
    size_t repair;
    size_t repair_trial;
    size_t settled_by;        /* the record that settled the item */
    const char *incumbent_after; /* settled items: the incumbent after them */
} so_ledger_item;

/* One link of the incumbent chain: O0, then every accepted item in order. */
typedef struct so_ledger_incumbent {
    const char *id;        /* "O0" or the item id */
    size_t record;         /* the init or top_up record that made it the incumbent */
    const cJSON *config;   /* {path, sha256, fingerprint, option_maps_digest} */
    const cJSON *runs;     /* {clean_root, runs: [...]}: its five bound runs */
} so_ledger_incumbent;

/* What the state allows next, in the protocol's order. */
typedef enum so_ledger_action {
    SO_NEXT_TRIAL = 0,   /* the first unsettled item: its (next) trial */
    SO_NEXT_TOP_UP,      /* an accepted trial waits for its top-up to five runs */
    SO_NEXT_CAPTURE,     /* DCCI: the disable-all trial regressed: paired capture */
    SO_NEXT_ANALYSIS,    /* DCCI: analyse the recorded capture */
    SO_NEXT_PROBE,       /* DCCI: probe check of the analysis's list L */
    SO_NEXT_REPAIR,      /* DCCI: record the joint repair config and its proof */
    SO_NEXT_REPAIR_TRIAL,/* DCCI: the repair trial against O0 */
    SO_NEXT_FREEZE,      /* every item settled: freeze Sbest-BASE */
    SO_NEXT_HANDOFF      /* frozen or stopped: seal the hand-off; only later-config checks
                            remain */
} so_ledger_action;

/* "trial", "top_up", "capture", "analysis", "probe", "repair", "repair_trial",
 * "freeze", "handoff" */
const char *so_ledger_action_name(so_ledger_action a);

typedef struct so_ledger_next {
    so_ledger_action action;
    const so_ledger_item *item; /* NULL for freeze and handoff */
    char detail[512];           /* one English sentence: what to do and the alternatives */
} so_ledger_next;

typedef struct so_ledger {
    char *path;               /* as given */
    char *dir;                /* lexical absolute directory of the ledger: base of evidence paths */
    char *data;               /* the bytes read */
    size_t len;
    size_t valid_len;         /* bytes of complete records (len minus a torn tail) */
    uint64_t torn_bytes;      /* bytes after the last newline: an interrupted append, no record */
    so_ledger_record *records;
    size_t n_records;
    char head[65];            /* SHA-256 of the last record's line */
    /* derived state */
    const cJSON *settings;    /* init body.settings {warmup, expected_ranks, allow_*} */
    so_ledger_item *items;    /* in the frozen matrix order */
    size_t n_items;
    so_ledger_incumbent *chain;
    size_t n_chain;           /* >= 1; chain[n_chain - 1] is the current incumbent */
    int frozen;               /* Sbest-BASE is recorded: by a freeze or a stop record */
    size_t freeze;            /* that record, SO_LEDGER_NONE before it */
    int stopped;              /* it is a stop record: Stage O ended blocked or failed */
    so_ledger_next next;
    /* private */
    cJSON **trees;
} so_ledger;

/* Reads the ledger at path (no-follow leaf, regular file, stable read, at
 * most SO_LEDGER_MAX_BYTES), verifies the chain and replays the records.  A
 * missing file is an error ("only ledger init creates a ledger"). */
sk_err so_ledger_read(const char *path, so_ledger **out, sk_diag *d);
/* The same on bytes in memory (path names the file in messages and gives the
 * directory evidence paths are relative to).  Takes no ownership of buf. */
sk_err so_ledger_parse(const char *buf, size_t len, const char *path, so_ledger **out,
                       sk_diag *d);
void so_ledger_free(so_ledger *l);

const so_ledger_item *so_ledger_item_find(const so_ledger *l, const char *id);
const so_ledger_incumbent *so_ledger_current(const so_ledger *l);
/* The init record's body (never NULL for a ledger that was read). */
const cJSON *so_ledger_init_body(const so_ledger *l);
/* The record with sequence number seq, or NULL. */
const so_ledger_record *so_ledger_record_at(const so_ledger *l, uint64_t seq);

/* An evidence path of a record resolved against the ledger's directory
 * (caller frees with sk_free; NULL when out of memory). */
char *so_ledger_path(const so_ledger *l, const char *relpath);

/* The line (canonical record text + "\n") that would follow the ledger l
 * (NULL: the first record of a new ledger) with kind and body at time_ns
 * (ns since the epoch, rendered as UTC).  Appends to out. */
struct sk_buf;
sk_err so_ledger_line(const so_ledger *l, so_ledger_kind kind, const cJSON *body, int64_t time_ns,
                      struct sk_buf *out, sk_diag *d);
/* time_ns as "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ" (31 bytes with the NUL);
 * SK_E_ARG for a negative or out-of-range time. */
sk_err so_ledger_time(int64_t time_ns, char out[32], sk_diag *d);

/* The state as a JSON document (skdcci-stage-o-ledger-state-v1; `ledger show
 * --json-out`): ledger {path, records, head, torn_bytes}, seed, settings,
 * incumbent chain, items, frozen, base, next. */
sk_err so_ledger_state_json(const so_ledger *l, cJSON **out, sk_diag *d);

#endif
