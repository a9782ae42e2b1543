/* Failure scenes (docs/stage-o.md §11, schema
 * docs/schemas/failure-scene-v1.schema.json): the sealed record of one
 * failed attempt, with the eight items the protocol requires — identity and
 * phase, the frozen invocation, the observable failure, the scene's
 * artifacts, gate progress, the first judgement, control and fallback, and
 * the next entry point for localisation.
 *
 * Two passes.  The shape pass (SK_E_SCHEMA with the field path, exit 1 in the
 * CLI) checks every member and type; the rule pass collects violations, each
 * "code: message" (exit 10).  The classification follows
 * invocation.launched: a scene of a command that never launched is an
 * environment blocker (environment probe and parent report only, never an
 * experiment attempt); any other is a post-launch failure.
 *
 * Not to be confused with compile-scene (analyzer/compile_safety/cs_scene.h),
 * which saves a compile attempt's files; this one validates the report of
 * any failed attempt.
 */
#ifndef SO_SCENE_H
#define SO_SCENE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

/* Version 2 lists each artifact's size ("bytes"); version 1 scenes are
 * still read (their artifacts are checked by SHA-256 only). */
#define SO_SCENE_SCHEMA "skdcci-failure-scene-v2"
#define SO_SCENE_SCHEMA_V1 "skdcci-failure-scene-v1"

typedef enum so_scene_class {
    SO_SCENE_POST_LAUNCH = 0,   /* post_launch_failure */
    SO_SCENE_ENVIRONMENT_BLOCKER /* environment_blocker */
} so_scene_class;

const char *so_scene_class_name(so_scene_class c);

typedef struct so_scene_result {
    int version;       /* 1 or 2 */
    so_scene_class cls;
    const char *trial, *attempt, *phase, *failed_gate; /* borrowed from the document */
    size_t n_violations;
    char **violations; /* owned: "code: message" */
} so_scene_result;

/* Shape, then rules.  label names the document in messages.  SK_E_SCHEMA
 * (field set) for a shape error; SK_E_NOMEM; otherwise SK_OK with the
 * violations (possibly none) in *r. */
sk_err so_scene_check(const cJSON *doc, const char *label, so_scene_result *r, sk_diag *d);

/* Opens every artifact the scene lists as intact, relative to scene_dir
 * (the directory holding the scene) with no symlink followed anywhere on
 * the way, so that nothing outside the scene root is read: adds the
 * violations artifact_not_found, artifact_outside_scene, artifact_changed
 * (size or SHA-256 other than listed) and artifact_unreadable.  A path that
 * is not relative or climbs out with ".." is already a rule violation and
 * is not opened.  SK_E_NOMEM, or SK_E_IO when scene_dir cannot be opened. */
sk_err so_scene_verify_artifacts(const cJSON *doc, const char *scene_dir, so_scene_result *r,
                                 sk_diag *d);

/* so_scene_check of a file (read with sk_json_load_file, no symlink leaf),
 * then so_scene_verify_artifacts against the file's directory: a scene is
 * checked, not trusted.  *doc receives the document (caller frees; the
 * result borrows from it); sha256_hex (65 bytes, may be NULL) the file's
 * SHA-256. */
sk_err so_scene_load(const char *path, cJSON **doc, char *sha256_hex, so_scene_result *r,
                     sk_diag *d);

void so_scene_result_free(so_scene_result *r);

/* 1 when failure.kind is a functional failure of a trial (correctness,
 * crash, hang, timeout, execution): the DCCI family is rejected and a
 * ledger item failed; the other kinds (collection, profiling, ...) need a
 * new attempt, not a verdict. */
int so_scene_kind_functional(const char *kind);

#endif
