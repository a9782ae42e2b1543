#include "analyzer/stage_o/so_reason.h"

#include <stdint.h>
#include <string.h>

/* Decodes one UTF-8 sequence (input already validated by the JSON loader);
 * returns its length, 1 for a stray byte. */
static size_t utf8_next(const unsigned char *p, uint32_t *cp)
{
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    if ((p[0] & 0xE0) == 0xC0 && p[1]) {
        *cp = (uint32_t)(p[0] & 0x1F) << 6 | (p[1] & 0x3F);
        return 2;
    }
    if ((p[0] & 0xF0) == 0xE0 && p[1] && p[2]) {
        *cp = (uint32_t)(p[0] & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
        return 3;
    }
    if ((p[0] & 0xF8) == 0xF0 && p[1] && p[2] && p[3]) {
        *cp = (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3F) << 12 |
              (uint32_t)(p[2] & 0x3F) << 6 | (p[3] & 0x3F);
        return 4;
    }
    *cp = 0xFFFD;
    return 1;
}

static int is_cjk(uint32_t cp)
{
    return (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x2FA1F);
}

int so_has_cjk(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp;
        p += utf8_next(p, &cp);
        if (is_cjk(cp))
            return 1;
    }
    return 0;
}

/* Sentence separators: ASCII ; , ! ? newline and ". ", full-width
 * 。；，！？、 */
static int is_separator(const unsigned char *p, size_t *len)
{
    static const char *const wide[] = {"\xe3\x80\x82", "\xef\xbc\x9b", "\xef\xbc\x8c",
                                       "\xef\xbc\x81", "\xef\xbc\x9f", "\xe3\x80\x81", NULL};
    if (*p == ';' || *p == ',' || *p == '!' || *p == '?' || *p == '\n') {
        *len = 1;
        return 1;
    }
    if (*p == '.' && (p[1] == ' ' || p[1] == '\0')) {
        *len = 1;
        return 1;
    }
    for (size_t i = 0; wide[i]; i++)
        if (strncmp((const char *)p, wide[i], 3) == 0) {
            *len = 3;
            return 1;
        }
    return 0;
}

static const char *const k_zh_profiling[] = {
    "剖析", "性能分析", "性能数据", "采集", "假设", "逐SK", "逐 SK", "单SK", "单 SK", NULL};
static const char *const k_zh_absent[] = {"无", "没有", "缺", "未", "不足", "暂无", "尚无",
                                          "不存在", NULL};
static const char *const k_en_absent[] = {
    "no", "not", "without", "missing", "lack", "lacks", "lacking", "lacked", "absent",
    "absence", "insufficient", "unavailable", "none", "cannot", "cant", "dont", "doesnt",
    "didnt", "isnt", "arent", "wasnt", "werent", "hasnt", "havent", "hadnt", NULL};

static int in_list(const char *word, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(word, *list) == 0)
            return 1;
    return 0;
}

static int en_profiling_word(const char *w, const char *prev)
{
    return strncmp(w, "profil", 6) == 0 || strcmp(w, "prof") == 0 ||
           strcmp(w, "msprof") == 0 ||
           strncmp(w, "hypothes", 8) == 0 || strcmp(w, "persk") == 0 ||
           (strcmp(w, "sk") == 0 && strcmp(prev, "per") == 0) ||
           (strcmp(w, "details") == 0 && strcmp(prev, "kernel") == 0);
}

/* Scans the English words of clause[0..n): runs of ASCII letters and digits,
 * lowercased, with apostrophes dropped ("doesn't" -> "doesnt"); anything
 * else, '_' and '-' included, separates words ("no_profiling_evidence",
 * "per-SK", "sk_prof"). */
static void scan_words(const char *clause, size_t n, int *profiling, int *absent)
{
    char word[64], prev[64] = "";
    size_t w = 0;
    for (size_t i = 0; i <= n; i++) {
        unsigned char c = i < n ? (unsigned char)clause[i] : ' ';
        if (c == '\'')
            continue;
        int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
        if (alnum) {
            if (w + 1 < sizeof word)
                word[w++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
            continue;
        }
        if (!w)
            continue;
        word[w] = '\0';
        if (en_profiling_word(word, prev))
            *profiling = 1;
        if (in_list(word, k_en_absent))
            *absent = 1;
        memcpy(prev, word, w + 1);
        w = 0;
    }
}

static int contains_any(const char *clause, size_t n, const char *const *list)
{
    for (; *list; list++) {
        size_t k = strlen(*list);
        for (size_t i = 0; i + k <= n; i++)
            if (memcmp(clause + i, *list, k) == 0)
                return 1;
    }
    return 0;
}

int so_cites_missing_profiling(const char *s, char *clause, size_t clause_size)
{
    const unsigned char *p = (const unsigned char *)s;
    const char *start = s;
    for (;;) {
        size_t sep_len = 0;
        int end = *p == '\0';
        if (end || is_separator(p, &sep_len)) {
            size_t n = (size_t)((const char *)p - start);
            int profiling = 0, absent = 0;
            scan_words(start, n, &profiling, &absent);
            profiling |= contains_any(start, n, k_zh_profiling);
            absent |= contains_any(start, n, k_zh_absent);
            if (profiling && absent) {
                if (clause_size) {
                    size_t c = n < clause_size - 1 ? n : clause_size - 1;
                    /* never cut a UTF-8 sequence in half */
                    while (c > 0 && c < n && ((unsigned char)start[c] & 0xC0) == 0x80)
                        c--;
                    memcpy(clause, start, c);
                    clause[c] = '\0';
                }
                return 1;
            }
            if (end)
                return 0;
            p += sep_len;
            start = (const char *)p;
            continue;
        }
        uint32_t cp;
        p += utf8_next(p, &cp);
    }
}
