#include "artifact_contract/base/sk_clock.h"

#include <time.h>

#ifdef SK_TEST_HOOKS
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_fixed.h"

/* Strict decimal int64 in text[0..len): optional '-', digits only. */
static int parse_i64(const char *text, size_t len, int64_t *out)
{
    return sk_parse_i64_strict(text, len, out, NULL) == SK_OK ? 0 : -1;
}

/* The list last seen and how many of its entries were consumed; a changed
 * variable restarts from the first entry. */
static char seen_list[4096];
static size_t consumed;

static int fake_clock(int64_t *out)
{
    const char *list = getenv("SK_TEST_CLOCK_NS");
    if (!list || !*list)
        return 0;
    if (strncmp(list, seen_list, sizeof seen_list - 1) != 0) {
        strncpy(seen_list, list, sizeof seen_list - 1);
        seen_list[sizeof seen_list - 1] = '\0';
        consumed = 0;
    }
    const char *entry = list;
    size_t index = 0;
    for (;;) {
        const char *comma = strchr(entry, ',');
        if (!comma || index == consumed) {
            size_t len = comma ? (size_t)(comma - entry) : strlen(entry);
            if (comma)
                consumed++;
            if (parse_i64(entry, len, out) != 0)
                *out = INT64_MIN;
            return 1;
        }
        entry = comma + 1;
        index++;
    }
}
#endif

int64_t sk_clock_realtime_ns(void)
{
#ifdef SK_TEST_HOOKS
    int64_t fake;
    if (fake_clock(&fake))
        return fake;
#endif
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
