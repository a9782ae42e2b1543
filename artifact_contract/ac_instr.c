#include "artifact_contract/ac_instr.h"

#include <string.h>
#include <strings.h>

/* Where each name comes from: docs/producer-record.md "What is recorded
 * about the group's members" (repository, path and commit per variable). */
const ac_instr_var ac_instr_vars[] = {
    {"ACL_DUMP_DATA", "env_dump", "the ACL operator data dump"},
    {"ASCEND_LAUNCH_BLOCKING", "env_debug_sync", "synchronous (blocking) operator launch"},
    {"ASCEND_OP_COMPILE_SAVE_KERNEL_META", "env_sk_metadata", "the SK metadata and log dump"},
    {"ASCEND_PROF_SK_ON", "env_sk_prof", "the sk_prof child-event trace"},
    {"ASCEND_SK_OP_TRACE_ON", "env_trace", "the SK op execution trace"},
    {"KINETO_USE_DAEMON", "env_profiling", "torch_npu daemon (dynolog) profiling"},
    {"MSMONITOR_USE_DAEMON", "env_profiling", "torch_npu daemon (msmonitor) profiling"},
    {"PROFILER_SAMPLECONFIG", "env_profiling", "msprof collection (the config msprof hands its "
                                               "application)"},
    {"PROFILING_MODE", "env_profiling", "CANN profiling by environment"},
    {"PROF_CONFIG_PATH", "env_profiling", "the torch_npu dynamic profiler"},
};
const size_t ac_instr_var_count = sizeof ac_instr_vars / sizeof ac_instr_vars[0];

const ac_instr_var *ac_instr_var_find(const char *name, size_t len)
{
    size_t lo = 0, hi = ac_instr_var_count;
    if (len == 0 || len > AC_INSTR_NAME_MAX)
        return NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *m = ac_instr_vars[mid].name;
        int c = strncmp(m, name, len);
        if (c == 0)
            c = m[len] == '\0' ? 0 : 1;
        if (c == 0)
            return &ac_instr_vars[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int ac_instr_value_on(const char *value)
{
    return value != NULL && value[0] != '\0' && strcmp(value, "0") != 0 &&
           strcasecmp(value, "false") != 0 && strcasecmp(value, "off") != 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

const char *ac_instr_profiler(const char *const *argv, size_t argc)
{
    static const char *const programs[] = {"msprof", "msopprof", "nsys",     "perf",
                                           "strace", "ltrace",   "valgrind", "py-spy"};
    if (argc == 0 || !argv[0])
        return NULL;
    const char *b = base_name(argv[0]);
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++)
        if (strcmp(b, programs[i]) == 0)
            return programs[i];
    if (strncmp(b, "python", 6) != 0)
        return NULL;
    for (size_t i = 1; i + 1 < argc; i++)
        if (argv[i] && argv[i + 1] && strcmp(argv[i], "-m") == 0 &&
            (strcmp(argv[i + 1], "cProfile") == 0 || strcmp(argv[i + 1], "profile") == 0))
            return strcmp(argv[i + 1], "cProfile") == 0 ? "python -m cProfile"
                                                        : "python -m profile";
    return NULL;
}

static int name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_';
}

static int value_end(char c)
{
    return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' ||
           c == '"' || c == '\'' || c == ')';
}

size_t ac_instr_scan_assignments(const char *arg, char *value_buf, size_t value_cap,
                                 ac_instr_found_fn found, void *ctx)
{
    size_t calls = 0;
    if (!arg || value_cap == 0)
        return 0;
    for (const char *p = arg; *p; p++) {
        if (!name_char(*p) || (p > arg && name_char(p[-1])))
            continue;
        size_t n = 0;
        while (name_char(p[n]))
            n++;
        if (p[n] != '=') {
            p += n - 1;
            continue;
        }
        const ac_instr_var *v = ac_instr_var_find(p, n);
        if (!v) {
            p += n; /* another name's value may itself hold an assignment */
            continue;
        }
        const char *val = p + n + 1;
        size_t vlen = 0;
        while (!value_end(val[vlen]))
            vlen++;
        /* a quoted value: NAME="1024" or NAME='1024' */
        if (vlen == 0 && (val[0] == '"' || val[0] == '\'')) {
            char q = val[0];
            val++;
            while (val[vlen] && val[vlen] != q)
                vlen++;
        }
        size_t keep = vlen < value_cap - 1 ? vlen : value_cap - 1;
        memcpy(value_buf, val, keep);
        value_buf[keep] = '\0';
        if (ac_instr_value_on(value_buf)) {
            found(v, value_buf, ctx);
            calls++;
        }
        p = val + vlen - 1; /* the loop's p++ continues after the value */
    }
    return calls;
}
