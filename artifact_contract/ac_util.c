#include "artifact_contract/ac_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_clock.h"
#include "artifact_contract/base/sk_json.h"

int64_t ac_now_ns(void)
{
    return sk_clock_realtime_ns();
}

static int fake_clock_active(void)
{
#ifdef SK_TEST_HOOKS
    const char *v = getenv("SK_TEST_CLOCK_NS");
    return v && *v;
#else
    return 0;
#endif
}

int64_t ac_session_start_ns(void)
{
    int64_t fine = sk_clock_realtime_ns();
    if (fake_clock_active())
        return fine;
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME_COARSE, &ts) != 0)
        return fine;
    int64_t coarse = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return coarse < fine ? coarse : fine;
}

int64_t ac_timestamp_tolerance_ns(void)
{
    struct timespec res;
    int64_t tick = 0;
    if (clock_getres(CLOCK_REALTIME_COARSE, &res) == 0)
        tick = (int64_t)res.tv_sec * 1000000000 + res.tv_nsec;
    int64_t tol = 2 * tick;
    return tol < 1000000 ? 1000000 : tol;
}

#ifdef SK_TEST_HOOKS
int ac_test_fault(const char *point)
{
    static char fired[16][64];
    static size_t nfired;
    char name[128] = "SK_TEST_FAULT_";
    size_t n = strlen(name);
    for (const char *p = point; *p && n + 1 < sizeof name; p++) {
        char c = *p;
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            c = '_';
        name[n++] = c;
    }
    name[n] = '\0';
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    for (size_t i = 0; i < nfired; i++)
        if (strcmp(fired[i], point) == 0)
            return 0;
    if (nfired < sizeof fired / sizeof fired[0]) {
        strncpy(fired[nfired], point, sizeof fired[0] - 1);
        fired[nfired][sizeof fired[0] - 1] = '\0';
        nfired++;
    }
    static const struct {
        const char *name;
        int value;
    } names[] = {{"EIO", EIO}, {"ENOSPC", ENOSPC}, {"EACCES", EACCES}, {"EROFS", EROFS},
                 {"EPERM", EPERM}, {"EMFILE", EMFILE}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(v, names[i].name) == 0)
            return names[i].value;
    char *end = NULL;
    long e = strtol(v, &end, 10);
    /* Linux errno values lie below the kernel's MAX_ERRNO (4095) */
    return *end == '\0' && e > 0 && e < 4096 ? (int)e : EIO;
}
#else
int ac_test_fault(const char *point)
{
    (void)point;
    return 0;
}
#endif

sk_err ac_canonical_file_text(const cJSON *v, sk_buf *out, sk_diag *d)
{
    sk_err e = sk_json_write(v, SK_JSON_CANONICAL, out, d);
    if (!e)
        e = sk_buf_putc(out, '\n');
    if (e == SK_E_NOMEM)
        ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, "", "out of memory writing JSON");
    return e;
}

void ac_names_free(ac_names *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->count; i++)
        sk_free(n->names[i]);
    sk_free(n->names);
    n->names = NULL;
    n->count = 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

sk_err ac_list_dir(int dirfd, const char *label, ac_names *out, sk_diag *d)
{
    sk_err e = SK_OK;
    DIR *dir = NULL;
    size_t cap = 0;
    out->count = 0;
    out->names = NULL;
    /* fdopendir takes ownership of the descriptor, so list through a duplicate
     * opened on "." (a dup would share the read position with dirfd) */
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return ac_fail(d, SK_E_IO, AC_E_IO, label, "cannot list directory: %s", strerror(errno));
    dir = fdopendir(fd);
    if (!dir) {
        int err = errno;
        close(fd);
        return ac_fail(d, SK_E_IO, AC_E_IO, label, "cannot list directory: %s", strerror(err));
    }
    for (;;) {
        errno = 0;
        struct dirent *ent = readdir(dir);
        if (!ent) {
            if (errno) {
                e = ac_fail(d, SK_E_IO, AC_E_IO, label, "cannot list directory: %s",
                            strerror(errno));
                goto out;
            }
            break;
        }
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
            continue;
        if (out->count == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char **grown = sk_realloc(out->names, ncap * sizeof *grown);
            if (!grown)
                goto nomem;
            out->names = grown;
            cap = ncap;
        }
        out->names[out->count] = sk_strdup(ent->d_name);
        if (!out->names[out->count])
            goto nomem;
        out->count++;
    }
    if (out->count > 1)
        qsort(out->names, out->count, sizeof *out->names, cmp_names);
    goto out;
nomem:
    e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, label, "out of memory listing directory");
out:
    closedir(dir);
    if (e)
        ac_names_free(out);
    return e;
}

int ac_json_int_at_least(const cJSON *v, int64_t min, int64_t *out)
{
    int64_t x;
    if (!cJSON_IsNumber(v) || !sk_json_is_int(v) || sk_json_get_i64(v, &x) != SK_OK || x < min)
        return 0;
    if (out)
        *out = x;
    return 1;
}

int ac_json_trimmed_string(const cJSON *v)
{
    return cJSON_IsString(v) && v->valuestring && v->valuestring[0] &&
           sk_py_is_trimmed(v->valuestring);
}

char *ac_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return sk_strdup(".");
    if (slash == path)
        return sk_strdup("/");
    return sk_strndup(path, (size_t)(slash - path));
}

const char *ac_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}
