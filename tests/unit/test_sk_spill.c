/* The bounded-memory sample store: order and values across blocks, the
 * write buffer and the file; the temporary file leaves no name behind (also
 * without O_TMPFILE); I/O and allocation failures are clean errors. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_spill.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "tests/unit/t.h"
#include "tests/unit/t_fs.h"

/* A value that depends on the series and the index (negative ones too). */
static int64_t value_of(size_t series, uint64_t i)
{
    uint64_t x = (series + 1) * 0x9E3779B97F4A7C15ull ^ (i * 0xBF58476D1CE4E5B9ull);
    return (int64_t)(x - (x >> 3)); /* unsigned arithmetic; the top bit gives negatives */
}

static size_t entries(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return (size_t)-1;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* nseries interleaved series of uneven lengths; every value comes back in
 * order.  Returns the bytes the store wrote to its file. */
static uint64_t round_trip(const char *dir, size_t nseries, uint64_t per_series)
{
    sk_spill *s = NULL;
    sk_diag d;
    sk_series *ser = calloc(nseries, sizeof *ser);
    T_CHECK(ser != NULL);
    T_EQ_INT(sk_spill_new(dir, &s, &d), SK_OK);
    for (uint64_t i = 0; i < per_series; i++)
        for (size_t k = 0; k < nseries; k++)
            if (i < per_series - k) /* series k is k values shorter */
                T_EQ_INT(sk_series_push(s, &ser[k], value_of(k, i), &d), SK_OK);
    uint64_t bytes = sk_spill_file_bytes(s);
    for (size_t k = 0; k < nseries; k++) {
        int64_t *v = NULL;
        uint64_t want = per_series > k ? per_series - k : 0;
        T_EQ_U64(ser[k].count, want);
        T_EQ_INT(sk_series_load(s, &ser[k], &v, &d), SK_OK);
        int same = 1;
        for (uint64_t i = 0; i < want; i++)
            same &= v[i] == value_of(k, i);
        T_CHECK(same);
        T_CHECK(want || v == NULL);
        free(v);
        sk_series_release(&ser[k]);
        T_EQ_U64(ser[k].count, 0);
    }
    sk_spill_free(s);
    free(ser);
    return bytes;
}

static void small_store_stays_in_memory(void)
{
    const char *dir = tfs_scratch();
    /* 3 series x 40 values: blocks go to the write buffer, never to a file */
    T_EQ_U64(round_trip(dir, 3, 40) > 0, 1);
    T_EQ_INT(entries(dir), 0);
    tfs_rm_rf(dir);
}

static void large_store_goes_through_the_file(void)
{
    const char *dir = tfs_scratch();
    /* 50 series x 3000 values = 1.2 MB: many write-buffer flushes */
    uint64_t bytes = round_trip(dir, 50, 3000);
    T_CHECK(bytes > 1000000);
    T_EQ_INT(entries(dir), 0); /* O_TMPFILE: never a name */
    tfs_rm_rf(dir);
}

static void named_fallback_leaves_nothing(void)
{
    const char *dir = tfs_scratch();
    sk_fs_test_disable(SK_FS_TEST_NO_TMPFILE);
    T_CHECK(round_trip(dir, 7, 20000) > 0);
    sk_fs_test_disable(0);
    T_EQ_INT(entries(dir), 0);
    tfs_rm_rf(dir);
}

static void load_while_pushing(void)
{
    sk_spill *s = NULL;
    sk_diag d;
    sk_series a = SK_SERIES_INIT, b = SK_SERIES_INIT;
    T_EQ_INT(sk_spill_new(NULL, &s, &d), SK_OK);
    for (int64_t i = 0; i < 100000; i++) {
        T_EQ_INT(sk_series_push(s, &a, i, &d), SK_OK);
        if (i % 3 == 0)
            T_EQ_INT(sk_series_push(s, &b, -i, &d), SK_OK);
        if (i == 50000) { /* part of a in the file, part in the buffer */
            int64_t *v = NULL;
            T_EQ_INT(sk_series_load(s, &a, &v, &d), SK_OK);
            T_EQ_INT(v[0], 0);
            T_EQ_INT(v[50000], 50000);
            free(v);
        }
    }
    int64_t *v = NULL;
    T_EQ_INT(sk_series_load(s, &b, &v, &d), SK_OK);
    T_EQ_U64(b.count, 33334);
    T_EQ_INT(v[33333], -99999);
    free(v);
    sk_series_release(&a);
    sk_series_release(&b);
    sk_spill_free(s);
}

static void missing_directory_is_io_error(void)
{
    sk_spill *s = NULL;
    sk_diag d;
    sk_series a = SK_SERIES_INIT;
    sk_err e = SK_OK;
    T_EQ_INT(sk_spill_new("/nonexistent-skdcci-dir", &s, &d), SK_OK);
    for (int i = 0; i < 200000 && !e; i++)
        e = sk_series_push(s, &a, i, &d);
    T_EQ_INT(e, SK_E_IO);
    T_EQ_STR(d.file, "/nonexistent-skdcci-dir");
    T_CONTAINS(d.msg, "cannot create the temporary sample file");
    T_CONTAINS(d.msg, "no such file or directory");
    sk_series_release(&a);
    sk_spill_free(s);
}

static void full_disk_is_io_error(void)
{
    sk_spill *s = NULL;
    sk_diag d;
    sk_series a = SK_SERIES_INIT;
    sk_err e = SK_OK;
    setenv("SK_TEST_SPILL_FILE", "/dev/full", 1);
    T_EQ_INT(sk_spill_new("/tmp", &s, &d), SK_OK);
    for (int i = 0; i < 200000 && !e; i++)
        e = sk_series_push(s, &a, i, &d);
    unsetenv("SK_TEST_SPILL_FILE");
    T_EQ_INT(e, SK_E_IO);
    T_CONTAINS(d.msg, "cannot write the temporary sample file: no space left on device");
    sk_series_release(&a);
    sk_spill_free(s);
}

static void allocation_failures(void)
{
    unsigned long n = 1;
    for (;; n++) {
        sk_spill *s = NULL;
        sk_diag d;
        sk_series a = SK_SERIES_INIT;
        int64_t *v = NULL;
        sk_alloc_fail_at(n);
        sk_err e = sk_spill_new(NULL, &s, &d);
        for (int i = 0; i < 20000 && !e; i++)
            e = sk_series_push(s, &a, i, &d);
        if (!e)
            e = sk_series_load(s, &a, &v, &d);
        sk_alloc_fail_at(0);
        free(v);
        sk_series_release(&a);
        sk_spill_free(s);
        if (!e)
            break;
        T_EQ_INT(e, SK_E_NOMEM);
    }
    T_CHECK(n > 3); /* store, name, block, write buffer, load */
}

static const t_case cases[] = {
    T(small_store_stays_in_memory),
    T(large_store_goes_through_the_file),
    T(named_fallback_leaves_nothing),
    T(load_while_pushing),
    T(missing_directory_is_io_error),
    T(full_disk_is_io_error),
    T(allocation_failures),
    {NULL, NULL},
};

T_MAIN(cases)
