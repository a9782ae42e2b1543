/* Command-line plumbing shared by the Stage O commands (trial, stability,
 * probe, matrix, config-diff): number options, output files. */
#ifndef SO_CLI_H
#define SO_CLI_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

/* Options every clean-set command (trial, stability) takes, with these ids. */
enum { SO_OPT_WARMUP = 900, SO_OPT_EXPECTED_RANKS };
struct so_set_opts;
/* Handles --warmup N (>= 0) and --expected-ranks N (> 0) of command cmd:
 * 0 when handled, -1 when opt is not one of them, else the usage exit code. */
int so_cli_set_option(const char *cmd, int opt, const char *arg, struct so_set_opts *o);

/* Non-negative decimal integer ("8"); 0 on success. */
int so_cli_parse_count(const char *s, uint64_t *out);
/* A percentage: optional '-', digits, optional fraction ("0", "1.5", "-2");
 * no exponent, NaN or infinity.  0 on success. */
int so_cli_parse_pct(const char *s, double *out);

/* Fails with SK_E_EXISTS "output already exists: <path>" when something
 * (of any type, symlinks included) exists at path, so that a long analysis
 * does not run only to be refused at the end. */
sk_err so_cli_output_free(const char *path, sk_diag *d);

/* Writes doc as Python json.dumps(doc, indent=2, sort_keys=True) + "\n"
 * atomically and without overwriting; missing parent directories are
 * created first (as the reference does). */
sk_err so_cli_publish_json(const char *path, const cJSON *doc, sk_diag *d);

/* Publishes data[0..len) the same way (atomic, no overwrite, parents created). */
sk_err so_cli_publish_text(const char *path, const char *data, size_t len, sk_diag *d);

/* Prints doc the same way on stdout. */
sk_err so_cli_print_json(const cJSON *doc, sk_diag *d);

/* Reports d on stderr (one line) and returns the skdcci failure exit code. */
int so_cli_fail(const sk_diag *d);

#endif
