/* compile-scene: an interrupted (or any finished) attempt's scene is kept
 * before a retry or cleanup overwrites it, and later attempts append
 * (docs/compile-safety.md, "compile-scene").
 *
 * save classifies the attempt with compile-state and refuses while it is
 * in_progress (nothing is created).  Otherwise it builds the next attempt
 * directory DIR/attempt-NNN-<state>/ under an exclusive lock on DIR, in a
 * hidden temporary directory renamed into place without replacing anything:
 *   records/<name>        the final and started producer records
 *   logs/<k>/<name>       every --log file (k = its position, from 1)
 *   outputs/<k>/<rel>     every *_compile_error.log and *_compile_succ.log
 *                         under the k-th outputs root, relative path kept
 *   scene.json            schema skdcci-compile-scene-1
 * Earlier attempt directories are only listed, never opened for writing.
 * verify re-hashes every copy against its scene.json and checks that the
 * attempt numbers run 1..N without gaps or duplicates. */
#ifndef CS_SCENE_H
#define CS_SCENE_H

#include <cjson/cJSON.h>

#include "analyzer/compile_safety/cs_compile_state.h"

#define CS_SCENE_SCHEMA "skdcci-compile-scene-1"
/* Attempt numbers: at least three digits, and a bound far beyond any history. */
#define CS_SCENE_MAX_ATTEMPT 999999u

typedef struct cs_scene_save_result {
    int in_progress;     /* refused: the attempt is still running, nothing created */
    cs_state state;
    unsigned attempt;
    char *path;          /* owned: DIR/attempt-NNN-<state> (NULL when refused) */
    char *human;         /* owned: one line */
} cs_scene_save_result;

/* o is the compile-state evidence of the attempt. */
sk_err cs_scene_save(const char *history, const cs_compile_state_opts *o,
                     cs_scene_save_result *r, sk_diag *d);
void cs_scene_save_result_free(cs_scene_save_result *r);

/* Discrepancies found by verify, one line each ("<file>: <what>"). */
sk_err cs_scene_verify(const char *history, cs_strlist *problems, unsigned *attempts, sk_diag *d);

#endif
