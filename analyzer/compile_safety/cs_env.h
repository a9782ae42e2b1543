/* An explicit process environment for running a target interpreter: loaded
 * from a file (NAME=VALUE lines, or NUL-separated entries such as
 * /proc/<pid>/environ) or copied from the current environment. */
#ifndef CS_ENV_H
#define CS_ENV_H

#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

/* An environment file larger than this is not an environment. */
#define CS_ENV_FILE_MAX (16u * 1024u * 1024u)

typedef struct cs_env {
    char **v;   /* "NAME=VALUE" strings, NULL-terminated (usable as envp) */
    size_t n, cap;
} cs_env;

/* Parses text: when it holds a NUL byte, entries are NUL-separated (empty
 * entries skipped); otherwise one entry per line, where empty lines and lines
 * starting with '#' are skipped and a trailing "\r" is kept as part of the
 * value.  Each entry is NAME=VALUE with NAME matching [A-Za-z_][A-Za-z0-9_]*;
 * a repeated NAME is an error (SK_E_FORMAT with label:line). */
sk_err cs_env_parse(const char *text, size_t len, const char *label, cs_env *env, sk_diag *d);
/* Reads and parses a file (no symlinked leaf, at most CS_ENV_FILE_MAX bytes). */
sk_err cs_env_load(const char *path, cs_env *env, sk_diag *d);
/* Copies envp (e.g. environ). */
sk_err cs_env_from(char *const *envp, cs_env *env, sk_diag *d);
void cs_env_free(cs_env *env);

/* Value of name, or NULL.  Borrowed. */
const char *cs_env_get(const cs_env *env, const char *name);
/* Removes name (no-op when absent). */
void cs_env_unset(cs_env *env, const char *name);

/* Resolves a program name the way execvp would with this environment's PATH
 * (default "/usr/bin:/bin"): a name containing '/' is used as is; otherwise
 * the first PATH entry holding an executable regular file wins.  Caller frees. */
sk_err cs_env_resolve_program(const cs_env *env, const char *name, char **out, sk_diag *d);

#endif
