/* Where the inputs of one side of a DCCI pair are (docs/analyze.md §3).
 *
 * A side is a capture root (the directory given on the command line, or the
 * directory of the manifest given) with a list of input files, each with its
 * file role (the manifest vocabulary: kernel_details, sk_prof, ...), its path
 * relative to the root and, when a manifest recorded one, the expected
 * SHA-256.  Sealed mode fills the list from the validated manifest
 * (dcci_input_add_file per record); --unsealed discovers it from the
 * documented layout (dcci_input_discover) and never globs anything else:
 *
 *   profiler/[<dir>/[<dir>/[<dir>/]]]kernel_details.csv[.zst]
 *   profiler/[<dir>/[<dir>/[<dir>/]]]sk_prof_*.json[.zst]
 *   sk_meta/<pid>/sk_prof_*.json[.zst]               (the raw trace)
 *   sk_meta/<pid>/model_<id>[_<k>]/{sk_fused_nodes.log, super_kernel.log,
 *                                  sk_graph_origin.json, sk_graph_updated.json}[.zst]
 *
 * The readers fill the per-file results (SHA-256 of the raw bytes as read,
 * byte counts, after-stat) so that the sealed path can confirm every
 * deferred file against the manifest.
 *
 * Ownership: dcci_side_input owns every string, the file array and the root
 * descriptor; dcci_side_input_clear releases them.
 */
#ifndef DCCI_INPUT_H
#define DCCI_INPUT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_sha256.h"

/* The manifest a capture root holds (artifact_contract finalize,
 * docs/artifact_contract.md "DCCI pair mode"). */
#define DCCI_MANIFEST_NAME "collection-manifest.json"

typedef enum dcci_kind {
    DCCI_KIND_KERNEL_DETAILS = 0,
    DCCI_KIND_SK_PROF = 1,
    DCCI_KIND_GRAPH_ORIGIN = 2,
    DCCI_KIND_GRAPH_UPDATED = 3,
    DCCI_KIND_FUSED_NODES = 4,
    DCCI_KIND_SUPER_KERNEL = 5,
    DCCI_KIND_OTHER = 6, /* listed by the manifest, not read by the analyzer */
    DCCI_KIND_COUNT = 7
} dcci_kind;

/* The manifest file role of a kind ("kernel_details", ...; "other"). */
const char *dcci_kind_role(dcci_kind k);
/* The kind of a manifest file role (DCCI_KIND_OTHER for roles not read). */
dcci_kind dcci_kind_from_role(const char *role);

typedef struct dcci_file {
    dcci_kind kind;
    char *role;                 /* manifest file role */
    char *relpath;              /* relative to the capture root, canonical */
    int has_expected;
    char expected_sha256[SK_SHA256_HEX_LEN + 1]; /* recorded in the manifest */
    uint64_t size;              /* at discovery (progress only) */
    /* sk_meta files: the process and model directory the file belongs to */
    char *pid_dir;              /* "<pid>", NULL when not below <pid>/model_<id> (nor a raw
                                   trace directly in sk_meta/<pid>/) */
    char *model_dir;            /* "model_48_1" */
    int raw_trace;              /* sk_prof directly in sk_meta/<pid>/: the runtime's own trace,
                                   of which the profiler output holds a copy (§3.3) */
    int has_copy;               /* raw trace read through its profiler copy (dcci_ranks.h) */
    size_t copy;                /* index of that copy in the side's files */
    int skipped_cycle;          /* kernel_details of a later profiler cycle of a process whose
                                   first cycle is analysed (dcci_ranks.h): not read */
    size_t cycle_kd;            /* skipped_cycle: the analysed kernel_details file's index */
    /* filled by the reader */
    int read;                   /* the analyzer parsed the whole file */
    char sha256[SK_SHA256_HEX_LEN + 1]; /* of the raw bytes as read */
    uint64_t raw_bytes;
    uint64_t decoded_bytes;
    int zstd;
    sk_stat after;              /* stat after the read (unsealed reads only) */
    const struct ac_set_file *contract_file; /* sealed: the validator's record (borrowed) */
    /* sealed: the contract reader refused the file (changed, moved, different
     * content); the analysis reports collection_blocked / contract_invalid */
    int contract_failed;
    sk_diag contract_diag;
} dcci_file;

typedef enum dcci_value_source {
    DCCI_SRC_NONE = 0,
    DCCI_SRC_MANIFEST = 1,             /* validated manifest */
    DCCI_SRC_UNVALIDATED_MANIFEST = 2, /* --unsealed: read, not validated */
    DCCI_SRC_OPTION = 3,               /* command line */
    DCCI_SRC_DEFAULT = 4
} dcci_value_source;

/* "none", "manifest", "unvalidated_manifest", "option", "default" */
const char *dcci_value_source_name(dcci_value_source s);

struct ac_set;

/* At most this many entries in ASCEND_RT_VISIBLE_DEVICES (the driver's
 * device ids are below 64). */
#define DCCI_MAX_VISIBLE 64

/* The manifest control's ASCEND_RT_VISIBLE_DEVICES (docs/analyze.md §3.4):
 * the driver device id of each device the process numbers 0, 1, ... */
typedef enum dcci_visible_state {
    DCCI_VISIBLE_ABSENT = 0,
    DCCI_VISIBLE_LIST = 1,   /* ids[0..n) */
    DCCI_VISIBLE_INVALID = 2 /* present, but not a list of distinct device ids */
} dcci_visible_state;

typedef struct dcci_visible {
    dcci_visible_state state;
    size_t n;
    uint32_t ids[DCCI_MAX_VISIBLE];
} dcci_visible;

typedef struct dcci_side_input {
    char *root;                 /* capture root as given (or the manifest's directory) */
    struct ac_set *contract;    /* sealed: the validated set the files are read through
                                   (borrowed from the analysis), else NULL */
    int root_fd;                /* -1 when not open */
    int sealed;
    int has_manifest;
    char *manifest_path;        /* as given, or <root>/collection-manifest.json */
    char manifest_sha256[SK_SHA256_HEX_LEN + 1];      /* of the manifest bytes */
    char manifest_fingerprint[SK_SHA256_HEX_LEN + 1]; /* as recorded ("" if none) */
    char *capture_role;         /* the manifest's capture_role, or NULL */
    char *round_id;             /* the manifest's round_id, or NULL */
    int has_warmup;             /* workload warmup (alias-resolved) */
    int64_t warmup;
    int has_sk_on;              /* control ASCEND_PROF_SK_ON */
    int64_t sk_on;
    dcci_visible visible;       /* control ASCEND_RT_VISIBLE_DEVICES */
    dcci_file *files;           /* sorted by relpath */
    size_t nfiles;
} dcci_side_input;

void dcci_side_input_init(dcci_side_input *in);
void dcci_side_input_clear(dcci_side_input *in);

/* Splits a command-line argument into a capture root and a manifest path:
 * a directory is the root (manifest <dir>/collection-manifest.json); anything
 * else names the manifest and its directory is the root.  *root and
 * *manifest are allocated. */
sk_err dcci_input_resolve_arg(const char *arg, char **root, char **manifest, sk_diag *d);

/* Adds one file record (sealed mode: from the manifest).  relpath must be a
 * canonical relative path; expected_sha256 may be NULL.  The model and pid
 * directories are read from the path (<pid>/model_<id>[_<k>]/<file>). */
sk_err dcci_input_add_file(dcci_side_input *in, const char *role, const char *relpath,
                           const char *expected_sha256, uint64_t size, sk_diag *d);
/* Sorts the files by relpath (strcmp) for a deterministic order. */
void dcci_input_sort(dcci_side_input *in);

/* --unsealed: opens arg's root, discovers the documented layout and, when
 * the root holds collection-manifest.json, reads its workload warmup,
 * control ASCEND_PROF_SK_ON, round id and fingerprint without validating it.
 * Both X and X.zst present is an error (SK_E_FORMAT), as is a manifest that
 * is not strict JSON. */
sk_err dcci_input_discover(const char *arg, dcci_side_input *in, sk_diag *d);

/* Reads in->manifest_path, when it exists, as strict JSON without validating
 * it: manifest SHA-256 of its bytes, recorded fingerprint, capture role,
 * round id, workload warmup and control ASCEND_PROF_SK_ON (has_manifest = 1).
 * A missing manifest is not an error; one that is not a JSON object is. */
sk_err dcci_input_read_unvalidated_manifest(dcci_side_input *in, sk_diag *d);

/* Reads warmup (aliases warmup, warmup_runs, warmup_iterations; the first
 * present integer >= 0) from a workload object, ASCEND_PROF_SK_ON (a
 * positive integer, as a number or decimal text) and ASCEND_RT_VISIBLE_DEVICES
 * (decimal ids joined by single commas, or an array of integers; distinct,
 * below 64) from a control object into in.  Absent or unusable values leave
 * has_* at 0; an unusable ASCEND_RT_VISIBLE_DEVICES is DCCI_VISIBLE_INVALID. */
void dcci_input_take_manifest_values(dcci_side_input *in, const cJSON *workload,
                                     const cJSON *control);

/* The device an sk_prof file name gives (sk_prof_device_<device>.json,
 * ".zst" may follow): 1 and *dev, else 0. */
int dcci_sk_prof_device(const char *relpath, uint64_t *dev);

/* Parses "model_<digits>[_<digits>]": 1 and the profiler model id (the first
 * number) and the runtime model id text ("48_1", pointer into dir) on
 * success, else 0. */
int dcci_model_dir_parse(const char *dir, uint64_t *profiler_id, const char **runtime_id);

#endif
