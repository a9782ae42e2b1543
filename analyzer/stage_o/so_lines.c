/* Report lines of the Stage O checkers (so_lines.h). */
#include "analyzer/stage_o/so_lines.h"

#include <stdio.h>

#include "artifact_contract/base/sk_alloc.h"

int so_line_vappend(char ***list, size_t *n, const char *code, const char *fmt, va_list ap)
{
    char raw[1536], line[1536];
    int pre = code ? snprintf(raw, sizeof raw, "%s ", code) : 0;
    vsnprintf(raw + pre, sizeof raw - (size_t)pre, fmt, ap);
    size_t o = 0;
    for (const unsigned char *c = (const unsigned char *)raw; *c && o + 5 < sizeof line; c++) {
        if (*c < 0x20 || *c == 0x7f)
            o += (size_t)snprintf(line + o, sizeof line - o, "\\x%02x", *c);
        else
            line[o++] = (char)*c;
    }
    line[o] = '\0';
    char *copy = sk_strdup(line);
    char **grown = copy ? sk_realloc(*list, (*n + 1) * sizeof *grown) : NULL;
    if (!grown) {
        sk_free(copy);
        return -1;
    }
    *list = grown;
    grown[(*n)++] = copy;
    return 0;
}

int so_line_append(char ***list, size_t *n, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = so_line_vappend(list, n, code, fmt, ap);
    va_end(ap);
    return rc;
}

void so_lines_free(char ***list, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        sk_free((*list)[i]);
    sk_free(*list);
    *list = NULL;
    *n = 0;
}
