/* Replays fuzz inputs without libFuzzer (zstd's tests/fuzz/regression_driver.c).
 *
 *   fuzz_<target> PATH...
 *
 * Every regular file named (directories are walked recursively, entries in
 * byte order, dot files skipped) is read into a buffer of exactly its size,
 * so the sanitizers see any read past the end, and passed to
 * LLVMFuzzerTestOneInput.  The name of each input goes to stderr before it
 * runs, so a crash report ends with the input that caused it.  Exit status:
 * 0 when every input ran, 1 when a path could not be read (a property
 * violation aborts the process).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz_helpers.h"

static unsigned long inputs_run;

static int read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return -1;
    }
    /* exactly len bytes, so an over-read is caught (malloc(0) may be NULL) */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    *data = exact;
    *size = len;
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path);

static int run_dir(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir) {
        fprintf(stderr, "regression_driver: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) {
                rc = 1;
                break;
            }
            names = nn;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) {
            rc = 1;
            break;
        }
        snprintf(names[n], len, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(dir);
    if (rc == 0 && n > 1)
        qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0)
            rc = run_path(names[i]);
        free(names[i]);
    }
    free(names);
    return rc;
}

static int run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "regression_driver: cannot stat %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (S_ISDIR(st.st_mode))
        return run_dir(path);
    uint8_t *data = NULL;
    size_t size = 0;
    if (read_file(path, &data, &size) != 0) {
        fprintf(stderr, "regression_driver: cannot read %s\n", path);
        return 1;
    }
    fprintf(stderr, "%s\n", path);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    inputs_run++;
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc && rc == 0; i++)
        rc = run_path(argv[i]);
    printf("%lu inputs\n", inputs_run);
    return rc;
}
