/* JSON inputs outside the capture root, read stably and remembered as
 * evidence so that they can be proven unchanged before anything is published
 * (docs/json.md "Rules", docs/filesystem.md "Opening an input"). */
#ifndef AC_INPUT_H
#define AC_INPUT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_fs.h"

typedef struct ac_evidence {
    char *path;       /* lexical absolute path (Python os.path.abspath) */
    sk_stat st;       /* stat after the read */
    char sha256[65];  /* of the bytes read */
} ac_evidence;

/* Reads path with no symlink anywhere in it (the reference's input rule),
 * at most max_bytes (0 = AC_JSON_MAX_BYTES), parses it strictly with label
 * in messages ("invalid <label> JSON: ...") and fills *ev.  *value owns the
 * tree.  Failures carry a contract code in d->sub. */
sk_err ac_input_load_json(const char *path, const char *label, size_t max_bytes, cJSON **value,
                          ac_evidence *ev, sk_diag *d);
/* Re-reads ev->path and requires identical stat and bytes:
 * "<label> input changed: <why>" when it cannot be read again,
 * "<label> input changed after it was read" when it differs. */
sk_err ac_input_revalidate(const ac_evidence *ev, const char *label, size_t max_bytes,
                           sk_diag *d);
/* The same for an input read under another path policy (the producer record
 * is read with a no-follow leaf only, like every record reader). */
sk_err ac_input_revalidate_policy(const ac_evidence *ev, const char *label, sk_path_policy policy,
                                  sk_diag *d);
void ac_evidence_clear(ac_evidence *ev);

#endif
