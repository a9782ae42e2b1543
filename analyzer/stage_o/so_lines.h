/* Report lines of the Stage O checkers: one violation or note per line,
 * "<code> <message>" (or the message alone), kept in a growable list.
 *
 * Lines quote strings from the documents they check (ids, pointers, paths),
 * so control bytes are written as \xHH: a crafted value can neither add nor
 * fake report lines. */
#ifndef SO_LINES_H
#define SO_LINES_H

#include <stdarg.h>
#include <stddef.h>

/* Appends one formatted line to *list (*n entries).  code may be NULL.
 * Returns 0, or -1 when out of memory (the list is left as it was). */
int so_line_vappend(char ***list, size_t *n, const char *code, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/* The same with variable arguments. */
int so_line_append(char ***list, size_t *n, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Frees every line and the list; sets *list = NULL, *n = 0. */
void so_lines_free(char ***list, size_t *n);

#endif
