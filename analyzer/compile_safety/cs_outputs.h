/* Compile artifacts under output roots: *_compile_error.log,
 * *_compile_succ.log and *.run packages, counted and listed.
 *
 * The walk is iterative, never follows a symlink (symlinks are counted as
 * skipped, not as artifacts), only counts regular files, and is bounded in
 * depth and entries.  Whether the counts are final or provisional is decided
 * by the caller from the process state, never from the names.
 */
#ifndef CS_OUTPUTS_H
#define CS_OUTPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

/* Bounds of one walk: the reference layout is 3 levels deep
 * (static_kernel_compile_outputs/<ts>_outputs/compile_log/...); 64 levels and
 * a million entries are far beyond any real output tree. */
#define CS_OUTPUTS_MAX_DEPTH 64
#define CS_OUTPUTS_MAX_ENTRIES 1000000u

typedef struct cs_path_list {
    char **v; /* raw paths "<root>/<relative>", sorted bytewise by cs_outputs_finish */
    size_t n, cap;
} cs_path_list;

typedef struct cs_output_root {
    char *path;
    int exists;
} cs_output_root;

typedef struct cs_outputs {
    cs_output_root *roots;
    size_t nroots, roots_cap;
    cs_path_list error_logs;   /* *_compile_error.log */
    cs_path_list succ_logs;    /* *_compile_succ.log */
    cs_path_list run_packages; /* *.run */
    int list_all;              /* set by the caller: also list every regular file in all */
    cs_path_list all;
    uint64_t entries;          /* directory entries examined */
    uint64_t symlinks_skipped;
} cs_outputs;

/* Walks one root and adds what it finds.  A root that does not exist is
 * recorded (exists = 0); a root that is a symlink or not a directory is an
 * SK_E_PATH error. */
sk_err cs_outputs_walk(cs_outputs *o, const char *root, sk_diag *d);

/* Refuses an option's directory argument that is not there: SK_E_PATH with
 * file = option and "<path> does not exist", "<path> is not a directory" or,
 * when readable is set, "<path> cannot be read: <why>".  A path that could
 * not be looked at must not pass for an empty or absent one. */
sk_err cs_require_dir(const char *option, const char *path, int readable, sk_diag *d);
/* Sorts the lists (bytewise) so output is deterministic. */
void cs_outputs_finish(cs_outputs *o);
void cs_outputs_free(cs_outputs *o);

/* 1 when name ends with suffix (name may equal suffix). */
int cs_name_has_suffix(const char *name, const char *suffix);

#endif
