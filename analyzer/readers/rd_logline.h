/* Splitting a line of an SK runtime log file into logger prefix and payload.
 *
 * The runtime file logger (FormatMessage; docs/readers.md §6)
 * writes each message as
 *     YYYY-MM-DD HH:MM:SS.mmm [<pid>:<tid>] [<LEVEL>] [<file>:<line>] [<Func>] <payload>
 * where the timestamp and the [pid:tid] part can be switched off and LEVEL is
 * TRACE, DEBUG, INFO, WARN, ERROR or UNKNOWN.  Files without the prefix (or
 * with only the payload, like the reference fixtures) are accepted too.
 *
 * Two logger artefacts are undone or exposed here:
 *   - a message (prefix + payload + newline) longer than 4096 bytes is cut
 *     into 4096-byte segments written back to back, each later one starting
 *     with "[CONT:<k>] " (WriteLog); the physical line therefore carries
 *     "[CONT:1] " at byte 4096, "[CONT:2] " 4096 bytes of message later, and
 *     so on.  rd_logline_split removes these markers in place.
 *   - a payload that does not fit the logger's 4096-byte format buffer is
 *     replaced by "[FORMAT_ERROR] Failed to format log message" (the secure
 *     vsnprintf reports truncation as an error): the original line is lost.
 *     rd_logline_is_format_error tells such lines apart.
 */
#ifndef RD_LOGLINE_H
#define RD_LOGLINE_H

#include <stddef.h>

/* sk_log.h LoggerConfig::maxLineLength. */
#define RD_LOG_SEGMENT_BYTES 4096u

typedef struct rd_logline {
    int has_prefix;
    const char *level;    /* "INFO", ... when has_prefix (not NUL-terminated) */
    size_t level_len;
    const char *func;     /* function name, or NULL */
    size_t func_len;
    char *payload;        /* trimmed of spaces and tabs, NUL-terminated in place */
    size_t payload_len;
} rd_logline;

/* line must be NUL-terminated at *len; it is modified in place (markers
 * removed, payload end NUL-terminated) and *len updated. */
void rd_logline_split(char *line, size_t *len, rd_logline *out);

/* 1 when the payload is the logger's replacement for a lost message. */
int rd_logline_is_format_error(const rd_logline *l);

#endif
