/* The recorded identity of a producer command: argv, physical working
 * directory and environment with secret-looking values redacted, and the
 * executable lookup `artifact_contract run` performs before starting it.
 * Format: docs/producer-record.md ("command"). */
#ifndef AC_COMMAND_H
#define AC_COMMAND_H

#include <cjson/cJSON.h>

#include "artifact_contract/base/sk_diag.h"

/* The value recorded instead of a secret-looking variable's value. */
#define AC_REDACTED_VALUE "<redacted>"

/* 1 when the variable name contains (ASCII case-insensitively) one of the
 * secret markers of the reference's explicit-environment rule: TOKEN,
 * PASSWORD, PASSWD, SECRET, PRIVATE, CREDENTIAL, API_KEY, ACCESS_KEY,
 * AUTHORIZATION, COOKIE. */
int ac_env_name_is_secret(const char *name);

/* 1 when s is well-formed UTF-8 (no overlong forms, no surrogates, at most
 * U+10FFFF), the only text a JSON record can hold exactly. */
int ac_utf8_is_valid(const char *s);

/* The physical current directory (getcwd: symlinks resolved by the kernel).
 * Fails when the directory is unreachable or deleted.  Caller frees. */
sk_err ac_physical_cwd(char **out, sk_diag *d);

/* Builds {"argv": [...], "cwd": cwd, "environment": {name: value}} from a
 * NULL-terminated argv (at least one element) and envp ("NAME=VALUE"
 * entries).  Refuses what a JSON object cannot represent exactly: invalid
 * UTF-8, an entry without "=", an empty name, a name given twice (the child
 * would see both).  Secret-looking values become AC_REDACTED_VALUE.
 * *out owns the tree. */
sk_err ac_command_build(const char *const *argv, const char *cwd, const char *const *envp,
                        cJSON **out, sk_diag *d);

/* execvp's lookup done in advance: a name containing "/" is used as given;
 * otherwise the directories of PATH taken from envp (confstr(_CS_PATH) when
 * PATH is absent, an empty entry meaning ".") are searched for a regular
 * file this process may execute.  Fails with SK_E_ARG "command not found" or
 * "command is not executable".  *path is allocated (caller frees). */
sk_err ac_command_resolve(const char *file, const char *const *envp, char **path, sk_diag *d);

#endif
