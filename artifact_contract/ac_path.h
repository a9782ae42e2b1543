/* The artifact path grammar and ROLE=PATH specifications
 * (docs/artifact_contract.md "Artifact paths"; the checks run in the
 * reference tool's order, so the first failing rule decides the message). */
#ifndef AC_PATH_H
#define AC_PATH_H

#include "artifact_contract/ac_roles.h"
#include "artifact_contract/base/sk_diag.h"

/* Rules 4-9 of the grammar on an artifact path relative to the capture root:
 * printable ASCII only, no backslash, relative, not the marker itself, no
 * ".." segment, no empty or "." segment.  label names the spec in d->file. */
sk_err ac_artifact_path_check(const char *path, const char *label, sk_diag *d);

/* Splits a --file spec "ROLE=RELPATH" at the first '=' and checks it (rules
 * 1-9; the role must be a file role of schema).  *role and *path are
 * allocated (sk_free). */
sk_err ac_file_spec_parse(const char *spec, ac_schema schema, char **role, char **path,
                          sk_diag *d);

/* Splits a --manifest spec "ROLE=PATH" ("manifest must use ROLE=PATH",
 * "manifest role must be a trimmed non-empty string", "manifest path must be
 * a trimmed non-empty string"); the role is not looked up here. */
sk_err ac_manifest_spec_parse(const char *spec, char **role, char **path, sk_diag *d);

#endif
