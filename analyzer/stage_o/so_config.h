/* Loading inference configs (config.yaml as the reference launchers write
 * it, or JSON) into the JSON data model, for structural comparison.
 *
 * JSON is read with the strict loader (sk_json_parse).  YAML is read with
 * libyaml and mapped by the YAML 1.2 core schema (docs/stage-o.md has the
 * full table):
 *   plain null | Null | NULL | ~ | (empty)           -> null
 *   plain true | True | TRUE | false | False | FALSE  -> boolean
 *   plain [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+       -> exact integer
 *   plain [-+]?(.[0-9]+|[0-9]+(.[0-9]*)?)([eE][-+]?[0-9]+)?  -> float
 *   plain .inf / .nan variants                        -> error (not JSON)
 *   any other plain scalar, every quoted or block scalar -> string
 *   tags !!str !!int !!float !!bool !!null !!map !!seq and "!" are honoured;
 * anchors, aliases, other tags, merge keys (<<), non-string keys, duplicate
 * keys, %YAML 1.1 directives and streams with more than one document are
 * errors with file:line.  An empty stream is null.
 *
 * Unless allow_yaml11_ambiguity is set, a plain scalar that PyYAML (YAML 1.1,
 * which the reference's Python tools use to read the same file) resolves to a
 * different type or value is an error too ("on", "yes", "0755", "1_000",
 * "1e5", "2026-01-05", "0o17", ...): a diff computed on a value the
 * launcher reads differently would prove nothing.
 *
 * libyaml allocates with plain malloc (it has no allocator hooks); its
 * out-of-memory reports become SK_E_NOMEM.
 */
#ifndef SO_CONFIG_H
#define SO_CONFIG_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

typedef enum so_config_syntax {
    SO_CONFIG_BY_NAME = 0, /* ".json" -> JSON, anything else -> YAML */
    SO_CONFIG_JSON,
    SO_CONFIG_YAML
} so_config_syntax;

typedef struct so_config_opts {
    so_config_syntax syntax;
    int allow_yaml11_ambiguity; /* 0 = reject plain scalars PyYAML reads differently */
} so_config_opts;

/* Largest config file accepted (a config is a few KB; this bounds memory). */
#define SO_CONFIG_MAX_BYTES (64u * 1024 * 1024)
/* Hex and 0o octal integers are converted to decimal up to this many digits. */
#define SO_CONFIG_MAX_RADIX_DIGITS 256

/* Parses buf[0..len).  path names the input in messages and chooses the
 * syntax for SO_CONFIG_BY_NAME.  opts may be NULL (defaults).  *out owns the
 * tree (cJSON_Delete). */
sk_err so_config_parse(const char *buf, size_t len, const char *path, const so_config_opts *opts,
                       cJSON **out, sk_diag *d);

/* Reads path stably (no-follow leaf, change detection, at most
 * SO_CONFIG_MAX_BYTES) and parses it as so_config_parse does; sha256_hex (65
 * bytes, may be NULL) receives the SHA-256 of the exact bytes read. */
sk_err so_config_load(const char *path, const so_config_opts *opts, cJSON **out,
                      char *sha256_hex, sk_diag *d);

/* How a plain YAML scalar resolves, exposed for tests and documentation. */
typedef enum so_yaml_kind {
    SO_YAML_STR = 0,
    SO_YAML_NULL,
    SO_YAML_BOOL,
    SO_YAML_INT,
    SO_YAML_FLOAT,
    SO_YAML_NONFINITE, /* .inf, .nan: no JSON value */
    SO_YAML_TIMESTAMP, /* PyYAML only */
    SO_YAML_MERGE,     /* "<<", PyYAML only */
    SO_YAML_VALUE      /* "=", PyYAML only */
} so_yaml_kind;

so_yaml_kind so_yaml12_resolve(const char *s, size_t n);
so_yaml_kind so_pyyaml_resolve(const char *s, size_t n);
/* 1 when PyYAML and the YAML 1.2 core schema may give s different values. */
int so_yaml_is_ambiguous(const char *s, size_t n);

#endif
