/* pyhooks: Python interpreter start-up hooks that would change import order
 * before a launcher runs (docs/compile-safety.md "pyhooks").
 *
 * A scan asks the target interpreter (cs_pyquery) for its path, site
 * directories and user site, then looks at the hook surface:
 *   - sitecustomize / usercustomize in any form (source, sourceless .pyc,
 *     cached .pyc, package directory, extension module) in every surface dir;
 *   - *.pth files in the site directories, classified line by line
 *     (executable "import" lines vs path lines; path lines are resolved and
 *     their directories scanned for customize modules too); *.pth files in
 *     other surface dirs are inert and only reported;
 *   - PYTHONSTARTUP; PYTHONPATH entries (approved list or frozen inventory);
 *     modules in PYTHONPATH or script dirs that shadow torch, torch_npu,
 *     application packages, or the start-up modules site and encodings;
 *   - other PYTHON* variables (informational).
 * An inventory (freeze) approves what exists at intake: paths + SHA-256 of
 * every hook file, the ordered PYTHONPATH, the interpreter and the profiler
 * schedule.  Compared against an inventory, anything new, changed or removed
 * is a named blocker.
 */
#ifndef CS_PYHOOKS_H
#define CS_PYHOOKS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/compile_safety/cs_env.h"
#include "analyzer/compile_safety/cs_pyquery.h"
#include "analyzer/compile_safety/cs_text.h"

#define CS_PYHOOKS_REPORT_SCHEMA "skdcci-pyhooks-scan-1"
#define CS_PYHOOKS_INVENTORY_SCHEMA "skdcci-pyhooks-inventory-1"
#define CS_PYHOOKS_DIFF_SCHEMA "skdcci-pyhooks-diff-1"
/* A .pth file is a few lines; anything larger is refused. */
#define CS_PTH_MAX_BYTES (1024u * 1024u)
/* Directory listings (site dirs, __pycache__) larger than this are refused. */
#define CS_PYHOOKS_MAX_DIR_ENTRIES 100000u

typedef struct cs_pyhooks_opts {
    const char *python;                     /* "python3" when NULL */
    const cs_env *env;                      /* launch environment (borrowed) */
    const char *env_source;                 /* "env-file <path>" or "current environment" */
    const char *cwd;                        /* launcher working directory; NULL = getcwd */
    int timeout_ms;                         /* 0 = CS_PYQUERY_TIMEOUT_MS_DEFAULT */
    const char *const *app_packages;
    size_t napp;
    const char *const *approved_pythonpath; /* used when no inventory is given */
    size_t napproved;
    const char *const *script_dirs;
    size_t nscript;
    const char *profiler_schedule;          /* JSON object text, or NULL */
} cs_pyhooks_opts;

typedef struct cs_hook {
    const char *kind;  /* "sitecustomize", "usercustomize", "pth", "inert_pth", "shadow",
                          "startup_shadow" */
    const char *form;  /* "source", "bytecode", "cached_bytecode", "package",
                          "namespace_package", "extension", "file" */
    char *path;        /* raw bytes of the path */
    char *module;      /* module name concerned */
    char sha256[65];   /* "" when there is no file to hash (namespace package) */
    int symlink;       /* the path itself is a symlink (followed, as Python does) */
    size_t exec_lines; /* pth: executable "import" lines */
    char *detail;      /* may be NULL */
} cs_hook;

typedef struct cs_hooklist {
    cs_hook *v;
    size_t n, cap;
} cs_hooklist;

typedef struct cs_blocker {
    const char *name;  /* named blocker, docs/compile-safety.md */
    char *path;        /* raw, may be NULL */
    char *detail;
} cs_blocker;

typedef struct cs_blockers {
    cs_blocker *v;
    size_t n, cap;
} cs_blockers;

typedef struct cs_pyhooks_scan {
    cs_pyinfo info;
    cs_hooklist hooks;         /* sorted by path */
    cJSON *surface;            /* report fragments, owned */
    cJSON *pth_files;
    cJSON *python_env;
    cJSON *profiler_schedule;  /* effective schedule or NULL */
    int pythonpath_set;
    cs_strlist pythonpath;     /* ordered raw entries */
    char *pythonstartup;       /* raw, NULL when unset or empty */
    int query_skipped;         /* PYTHONPATH shadows a start-up module: the interpreter was
                                  not run (its code would have executed), info is empty */
} cs_pyhooks_scan;

/* Parses and checks a profiler schedule (JSON object with integer members
 * wait, warmup, active, repeat, skip_first; active >= 1, others >= 0;
 * missing members take torch.profiler.schedule's defaults 0) into the
 * effective schedule. */
sk_err cs_profiler_schedule_parse(const char *text, cJSON **out, sk_diag *d);

sk_err cs_pyhooks_scan_run(const cs_pyhooks_opts *o, cs_pyhooks_scan *s, sk_diag *d);
void cs_pyhooks_scan_free(cs_pyhooks_scan *s);

/* ------------------------------------------------------------ inventory */

/* Builds the inventory document of a scan. */
sk_err cs_pyhooks_inventory(const cs_pyhooks_scan *s, cJSON **out, sk_diag *d);
/* Loads and validates an inventory file. */
sk_err cs_pyhooks_inventory_load(const char *path, cJSON **out, char sha256[65], sk_diag *d);

/* Blockers of a scan without an inventory: every start-up hook, executable
 * .pth line, shadowing module, PYTHONSTARTUP and PYTHONPATH entry that is
 * not approved. */
sk_err cs_pyhooks_blockers_unapproved(const cs_pyhooks_scan *s, const cs_pyhooks_opts *o,
                                      cs_blockers *b, sk_diag *d);
/* Blockers that no inventory can approve (PYTHONSTARTUP, start-up module
 * shadowing): freeze refuses to write an inventory while they exist. */
sk_err cs_pyhooks_blockers_forbidden(const cs_pyhooks_scan *s, cs_blockers *b, sk_diag *d);
/* Blockers between an approved inventory and a current one (both documents
 * of the inventory schema): new, changed or removed hook files, PYTHONPATH
 * order, interpreter, profiler schedule. */
sk_err cs_pyhooks_blockers_diff(const cJSON *approved, const cJSON *current, cs_blockers *b,
                                sk_diag *d);
/* Sorts by (name, path) and renders as a JSON array. */
sk_err cs_blockers_json(cs_blockers *b, cJSON **out);
void cs_blockers_free(cs_blockers *b);

/* The scan report (with blockers; inventory_path/sha may be NULL). */
sk_err cs_pyhooks_report(const cs_pyhooks_scan *s, cs_blockers *b, const char *inventory_path,
                         const char *inventory_sha256, cJSON **out, sk_diag *d);

#endif
