#include <stdarg.h>
#include <stdlib.h>

#include "artifact_contract/base/sk_alloc.h"
#include "tests/unit/t.h"

int t_failed_checks;

void t_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    t_failed_checks++;
    printf("# %s:%d: ", file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

int t_main(const char *file, const t_case *cases)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char *only = getenv("T_ONLY");
    int failed = 0;
    sk_alloc_install_library_hooks();
    for (const t_case *c = cases; c->name; c++) {
        if (only && strcmp(only, c->name) != 0)
            continue;
        int before = t_failed_checks;
        c->fn();
        int ok = t_failed_checks == before;
        printf("%s - %s:%s\n", ok ? "ok" : "not ok", base, c->name);
        fflush(stdout);
        if (!ok)
            failed++;
    }
    return failed ? 1 : 0;
}
