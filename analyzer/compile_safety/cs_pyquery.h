/* Asking a target Python interpreter, without running any start-up hook,
 * where it would look for modules.
 *
 * The interpreter runs as `PYTHON -S -c QUERY` under an explicit environment:
 * -S keeps the site module from processing .pth files and from importing
 * sitecustomize/usercustomize.  The query (a short constant script) records
 * sys.path, then cuts it to the standard-library entries before importing
 * site, so a module in PYTHONPATH cannot shadow what the query itself
 * imports.  Every path travels as hex of its file-system bytes, so the answer
 * is exact even for names that are not UTF-8.
 */
#ifndef CS_PYQUERY_H
#define CS_PYQUERY_H

#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/compile_safety/cs_env.h"
#include "analyzer/compile_safety/cs_text.h"

#define CS_PYQUERY_TIMEOUT_MS_DEFAULT 30000  /* a cold interpreter start is well below */
#define CS_PYQUERY_MAX_OUTPUT (4u * 1024u * 1024u)

extern const char cs_pyquery_script[];

typedef struct cs_pyinfo {
    char *program;            /* resolved interpreter path that was run */
    cs_strlist sys_path;      /* raw sys.path as seen under -S (includes the -c '' entry) */
    size_t query_entries;     /* leading entries that belong to the -c query (0 or 1) */
    size_t pythonpath_entries;/* entries that come from PYTHONPATH, after those */
    cs_strlist site_packages; /* site.getsitepackages() */
    char *user_site;          /* site.getusersitepackages() */
    int user_site_enabled;    /* 1, 0, or -1 (disabled for security: uid != euid) */
    int no_user_site, ignore_environment, isolated, safe_path;
    char *executable, *prefix, *base_prefix, *exec_prefix;
    char *version;            /* "3.11.2" */
    char *cache_tag;          /* "cpython-311" */
    cs_strlist extension_suffixes;
} cs_pyinfo;

/* Runs the query.  env is the launch environment (PYTHONINSPECT is removed
 * for the query so the interpreter cannot turn interactive); cwd is the
 * launcher's working directory (empty PYTHONPATH entries mean it).  Errors:
 * the interpreter cannot be found or run, exits non-zero (first stderr line
 * in the message), times out, or prints something that is not the expected
 * JSON. */
sk_err cs_pyquery_run(const char *python, const cs_env *env, const char *cwd, int timeout_ms,
                      cs_pyinfo *out, sk_diag *d);
/* Parses the query's output (exposed for tests). */
sk_err cs_pyquery_parse(const char *text, size_t len, cs_pyinfo *out, sk_diag *d);
void cs_pyinfo_free(cs_pyinfo *p);

#endif
