#include "analyzer/readers/rd_logline.h"

#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_fixed.h"

#define FORMAT_ERROR_MARK "[FORMAT_ERROR]"

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Removes "[CONT:k] " markers at their exact positions. */
static void unsplice(char *line, size_t *len)
{
    for (unsigned k = 1;; k++) {
        size_t pos = (size_t)RD_LOG_SEGMENT_BYTES * k;
        char mark[32];
        int mlen = snprintf(mark, sizeof mark, "[CONT:%u] ", k);
        if (*len < pos + (size_t)mlen || memcmp(line + pos, mark, (size_t)mlen) != 0)
            return;
        memmove(line + pos, line + pos + mlen, *len - pos - (size_t)mlen + 1);
        *len -= (size_t)mlen;
    }
}

/* "YYYY-MM-DD HH:MM:SS.mmm " */
static size_t match_timestamp(const char *s, size_t n)
{
    static const char shape[] = "DDDD-DD-DD DD:DD:DD.DDD ";
    size_t m = sizeof shape - 1;
    if (n < m)
        return 0;
    for (size_t i = 0; i < m; i++) {
        if (shape[i] == 'D' ? !is_digit(s[i]) : s[i] != shape[i])
            return 0;
    }
    return m;
}

/* "[<digits>:<no ] or space>] " */
static size_t match_pid_tid(const char *s, size_t n)
{
    size_t i = 0;
    if (n < 5 || s[0] != '[')
        return 0;
    for (i = 1; i < n && is_digit(s[i]); i++) {
    }
    if (i == 1 || i >= n || s[i] != ':')
        return 0;
    size_t t = ++i;
    for (; i < n && s[i] != ']' && s[i] != ' ' && s[i] != '['; i++) {
    }
    if (i == t || i + 1 >= n || s[i] != ']' || s[i + 1] != ' ')
        return 0;
    return i + 2;
}

static size_t match_level(const char *s, size_t n, const char **level, size_t *level_len)
{
    static const char *const levels[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "UNKNOWN"};
    for (size_t k = 0; k < sizeof levels / sizeof levels[0]; k++) {
        size_t m = strlen(levels[k]);
        if (n >= m + 3 && s[0] == '[' && memcmp(s + 1, levels[k], m) == 0 && s[m + 1] == ']' &&
            s[m + 2] == ' ') {
            *level = s + 1;
            *level_len = m;
            return m + 3;
        }
    }
    return 0;
}

/* "[<file>:<digits>] " with no spaces in file */
static size_t match_file_line(const char *s, size_t n)
{
    if (n < 6 || s[0] != '[')
        return 0;
    size_t i = 1;
    for (; i < n && s[i] != ':' && s[i] != ']' && s[i] != ' ' && s[i] != '['; i++) {
    }
    if (i == 1 || i >= n || s[i] != ':')
        return 0;
    size_t d = ++i;
    for (; i < n && is_digit(s[i]); i++) {
    }
    if (i == d || i + 1 >= n || s[i] != ']' || s[i + 1] != ' ')
        return 0;
    return i + 2;
}

/* "[<identifier>] " (C++ function names: letters, digits, '_', ':', '~') */
static size_t match_func(const char *s, size_t n, const char **func, size_t *func_len)
{
    if (n < 4 || s[0] != '[' ||
        !(s[1] == '_' || (s[1] >= 'a' && s[1] <= 'z') || (s[1] >= 'A' && s[1] <= 'Z')))
        return 0;
    size_t i = 1;
    for (; i < n; i++) {
        char c = s[i];
        if (!(is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              c == ':' || c == '~'))
            break;
    }
    if (i >= n - 1 || s[i] != ']' || s[i + 1] != ' ')
        return 0;
    *func = s + 1;
    *func_len = i - 1;
    return i + 2;
}

void rd_logline_split(char *line, size_t *len, rd_logline *out)
{
    memset(out, 0, sizeof *out);
    if (*len > RD_LOG_SEGMENT_BYTES)
        unsplice(line, len);
    char *p = line;
    size_t n = *len;
    size_t ts = match_timestamp(p, n);
    size_t pt = match_pid_tid(p + ts, n - ts);
    size_t lv = match_level(p + ts + pt, n - ts - pt, &out->level, &out->level_len);
    if (lv) {
        size_t at = ts + pt + lv;
        at += match_file_line(p + at, n - at);
        at += match_func(p + at, n - at, &out->func, &out->func_len);
        out->has_prefix = 1;
        p += at;
        n -= at;
    } else {
        out->level = NULL;
        out->level_len = 0;
    }
    while (n && sk_is_blank(*p)) {
        p++;
        n--;
    }
    while (n && sk_is_blank(p[n - 1]))
        n--;
    p[n] = '\0';
    out->payload = p;
    out->payload_len = n;
}

int rd_logline_is_format_error(const rd_logline *l)
{
    return l->payload_len >= strlen(FORMAT_ERROR_MARK) &&
           memcmp(l->payload, FORMAT_ERROR_MARK, strlen(FORMAT_ERROR_MARK)) == 0;
}
