/* Every allocation of a read + hash + publish sequence is failed in turn:
 * each failure must surface as SK_E_NOMEM with a message, leave no file
 * behind and leak nothing (ASan and valgrind runs check the leaks). */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "tests/unit/t.h"
#include "tests/unit/t_fs.h"

static sk_err read_publish_sequence(const char *root, sk_diag *d)
{
    sk_err e = SK_OK;
    char *data = NULL, *pub = NULL, *abs = NULL;
    sk_rfile *f = NULL;
    sk_outdir *o = NULL;
    size_t len = 0;
    char hex[65];
    sk_stat st;
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return SK_E_IO;
    e = sk_read_file(tfs_path("%s/in/config.json", root), SK_PATH_NOFOLLOW_ALL, "config", 1 << 20,
                     &data, &len, &st, hex, d);
    if (e)
        goto out;
    sk_free(data);
    data = NULL;
    e = sk_rfile_open(tfs_path("%s/in/config.json", root), SK_PATH_NOFOLLOW_LEAF, "control", &f, d);
    if (e)
        goto out;
    char buf[4];
    size_t got;
    do {
        e = sk_rfile_read(f, buf, sizeof buf, &got, d);
    } while (!e && got);
    if (!e)
        e = sk_rfile_finish(f, NULL, d);
    if (e)
        goto out;
    e = sk_hash_file_at(fd, "art/kernel_details.csv", "artifact", hex, &st, d);
    if (e)
        goto out;
    e = sk_read_file_at(fd, "art/kernel_details.csv", "collection marker", 1 << 20, &data, &len,
                        NULL, hex, d);
    if (e)
        goto out;
    pub = sk_path_publication(tfs_path("%s/out/./manifest.json", root), d);
    if (!pub) {
        e = d->code;
        goto out;
    }
    e = sk_publish(pub, data, len, 0600, d);
    if (e)
        goto out;
    e = sk_outdir_begin(tfs_path("%s/out/set", root), 0755, &o, d);
    if (!e)
        e = sk_outdir_add(o, "a.json", data, len, 0644, d);
    if (!e)
        e = sk_outdir_add(o, "b.json", "{}\n", 3, 0644, d);
    if (!e)
        e = sk_outdir_commit(o, d);
    if (e)
        goto out;
    abs = sk_path_abspath("x/../y");
    if (!abs) {
        e = SK_E_NOMEM;
        goto out;
    }
out:
    sk_outdir_free(o);
    sk_rfile_free(f);
    sk_free(abs);
    sk_free(pub);
    sk_free(data);
    close(fd);
    return e;
}

static int only_final_outputs(const char *listing)
{
    return strcmp(listing, "") == 0 || strcmp(listing, "manifest.json") == 0 ||
           strcmp(listing, "manifest.json,set") == 0;
}

static void every_allocation_failure_is_clean(void)
{
    char root[4096];
    snprintf(root, sizeof root, "%s", tfs_scratch());
    T_EQ_INT(mkdir(tfs_path("%s/in", root), 0755), 0);
    T_EQ_INT(mkdir(tfs_path("%s/art", root), 0755), 0);
    T_EQ_INT(mkdir(tfs_path("%s/out", root), 0755), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/in/config.json", root), "{\"superkernel\":false}\n"), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/art/kernel_details.csv", root), "Name,Duration(us)\n"), 0);
    sk_diag d;
    /* warm-up: library-internal one-time allocations happen here */
    sk_alloc_fail_at(0);
    T_EQ_INT(read_publish_sequence(root, &d), SK_OK);
    tfs_rm_rf(tfs_path("%s/out", root));
    T_EQ_INT(mkdir(tfs_path("%s/out", root), 0755), 0);
    sk_alloc_fail_at(0);
    T_EQ_INT(read_publish_sequence(root, &d), SK_OK);
    unsigned long total = sk_alloc_count();
    T_EQ_STR(tfs_list(tfs_path("%s/out", root)), "manifest.json,set");
    T_CHECK(total >= 10);
    unsigned long nomem = 0;
    for (unsigned long n = 1; n <= total + 1; n++) {
        tfs_rm_rf(tfs_path("%s/out", root));
        T_EQ_INT(mkdir(tfs_path("%s/out", root), 0755), 0);
        sk_diag_clear(&d);
        sk_alloc_fail_at(n);
        sk_err e = read_publish_sequence(root, &d);
        sk_alloc_fail_at(0);
        if (getenv("T_VERBOSE"))
            printf("# n=%lu e=%s msg=%s\n", n, sk_err_name(e), d.msg);
        const char *listing = tfs_list(tfs_path("%s/out", root));
        if (e == SK_E_NOMEM) {
            nomem++;
            /* sk_path_abspath reports through errno, every other step in d */
            if (d.code != SK_OK && (d.code != SK_E_NOMEM || !d.msg[0]))
                t_fail(__FILE__, __LINE__, "allocation %lu: diag %s \"%s\"", n, sk_err_name(d.code),
                       d.msg);
            if (!only_final_outputs(listing))
                t_fail(__FILE__, __LINE__, "allocation %lu left: %s", n, listing);
        } else if (e == SK_OK) {
            /* OpenSSL absorbs a few failures of its own (name-map caching
             * during EVP_MD_fetch); the results must then be complete. */
            T_EQ_STR(listing, "manifest.json,set");
            T_EQ_STR(tfs_read(tfs_path("%s/out/manifest.json", root), NULL), "Name,Duration(us)\n");
            T_EQ_STR(tfs_list(tfs_path("%s/out/set", root)), "a.json,b.json");
        } else {
            t_fail(__FILE__, __LINE__, "allocation %lu: %s: %s", n, sk_err_name(e), d.msg);
        }
        if (n == total + 1)
            T_EQ_INT(e, SK_OK);
    }
    printf("# %lu allocations, %lu failures reported as SK_E_NOMEM\n", total, nomem);
    T_CHECK(nomem >= total / 2);
    tfs_rm_rf(root);
}

static const t_case cases[] = {
    T(every_allocation_failure_is_clean),
    {NULL, NULL},
};
T_MAIN(cases)
