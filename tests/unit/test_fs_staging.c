/* Staging entries: the abort a signal handler calls, stamped names and the
 * sweep of stale entries (sk_fs.h, docs/filesystem.md). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/sk_fs.h"
#include "tests/unit/t.h"
#include "tests/unit/t_fs.h"

static char seen[4096];

static void list_into_seen(const char *path, void *arg)
{
    (void)path;
    snprintf(seen, sizeof seen, "%s", tfs_list((const char *)arg));
}

static void abort_then_list(const char *path, void *arg)
{
    (void)path;
    sk_fs_staging_abort();
    snprintf(seen, sizeof seen, "%s", tfs_list((const char *)arg));
}

static void test_abort_removes_output_set(void)
{
    const char *dir = tfs_scratch();
    sk_outdir *o = NULL;
    sk_diag d;
    T_EQ_INT(sk_outdir_begin(tfs_path("%s/set", dir), 0755, &o, &d), SK_OK);
    T_EQ_INT(sk_outdir_add(o, "a.json", "{}", 2, 0644, &d), SK_OK);
    T_EQ_INT(sk_outdir_add(o, "b.md", "x", 1, 0644, &d), SK_OK);
    T_CHECK(strlen(tfs_list(dir)) > 0);
    sk_fs_staging_abort();
    T_EQ_STR(tfs_list(dir), "");
    sk_outdir_free(o); /* its own cleanup finds nothing left and harms nothing */
    T_EQ_STR(tfs_list(dir), "");
    tfs_rm_rf(dir);
}

static void test_abort_after_commit_keeps_output(void)
{
    const char *dir = tfs_scratch();
    sk_outdir *o = NULL;
    sk_diag d;
    T_EQ_INT(sk_outdir_begin(tfs_path("%s/set", dir), 0755, &o, &d), SK_OK);
    T_EQ_INT(sk_outdir_add(o, "a.json", "{}", 2, 0644, &d), SK_OK);
    T_EQ_INT(sk_outdir_commit(o, &d), SK_OK);
    sk_fs_staging_abort();
    T_EQ_STR(tfs_list(dir), "set");
    T_EQ_STR(tfs_list(tfs_path("%s/set", dir)), "a.json");
    sk_outdir_free(o);
    tfs_rm_rf(dir);
}

static void test_abort_removes_named_staging_file(void)
{
    const char *dir = tfs_scratch();
    char keep[4096];
    snprintf(keep, sizeof keep, "%s", dir);
    sk_diag d;
    sk_fs_test_disable(SK_FS_TEST_NO_TMPFILE);
    seen[0] = '\0';
    tfs_hook_on("before_publish", abort_then_list, keep, 0);
    /* the entry vanishes under the publication, which then fails cleanly */
    T_CHECK(sk_publish(tfs_path("%s/out.json", keep), "{}", 2, 0644, &d) != SK_OK);
    tfs_hook_off();
    sk_fs_test_disable(0);
    T_EQ_STR(seen, "");
    T_EQ_STR(tfs_list(keep), "");
    tfs_rm_rf(keep);
}

static int fake_gone(int64_t pid, uint64_t start)
{
    (void)start;
    return pid == 999999;
}

static int reports;
static char reported[512];

static void count_report(void *ctx, const char *dir, const char *name)
{
    (void)ctx;
    (void)dir;
    reports++;
    snprintf(reported, sizeof reported, "%s", name);
}

static void test_stamped_names_and_sweep(void)
{
    const char *dir = tfs_scratch();
    char keep[4096];
    snprintf(keep, sizeof keep, "%s", dir);
    sk_fs_identity id = {.tag = "0123abcd", .pid = (int64_t)getpid(), .start = 7, .gone = fake_gone};
    sk_fs_staging_set_identity(&id);
    sk_fs_staging_set_reporter(count_report, NULL);
    reports = 0;
    /* dead creator, a staging directory with a file in it: removed */
    T_EQ_INT(mkdir(tfs_path("%s/.a.0123abcd-999999-5-0011aabb.tmp", keep), 0700), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/.a.0123abcd-999999-5-0011aabb.tmp/x", keep), "x"), 0);
    /* live creator, another tag, a malformed stamp, a plain name: kept */
    T_EQ_INT(tfs_write_str(tfs_path("%s/.b.0123abcd-999998-5-0011aabb.tmp", keep), "b"), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/.c.ffffffff-999999-5-0011aabb.tmp", keep), "c"), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/.d.0123abcd-999999-5-0011aab.tmp", keep), "d"), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/.0123abcd-999999-5-0011aabb.tmp", keep), "e"), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/f", keep), "f"), 0);
    sk_diag d;
    sk_fs_test_disable(SK_FS_TEST_NO_TMPFILE);
    seen[0] = '\0';
    tfs_hook_on("before_publish", list_into_seen, keep, 0);
    T_EQ_INT(sk_publish(tfs_path("%s/out.json", keep), "{}", 2, 0644, &d), SK_OK);
    tfs_hook_off();
    sk_fs_test_disable(0);
    T_EQ_INT(reports, 1);
    T_EQ_STR(reported, ".a.0123abcd-999999-5-0011aabb.tmp");
    T_EQ_STR(tfs_list(keep), ".0123abcd-999999-5-0011aabb.tmp,.b.0123abcd-999998-5-0011aabb.tmp,"
                             ".c.ffffffff-999999-5-0011aabb.tmp,.d.0123abcd-999999-5-0011aab.tmp,"
                             "f,out.json");
    /* the publication's own staging name carried this process's stamp */
    char stamp[64];
    snprintf(stamp, sizeof stamp, ".out.json.0123abcd-%lld-7-", (long long)getpid());
    T_CONTAINS(seen, stamp);
    sk_fs_staging_set_identity(NULL);
    sk_fs_staging_set_reporter(NULL, NULL);
    tfs_rm_rf(keep);
}

static const t_case cases[] = {
    T(test_abort_removes_output_set),
    T(test_abort_after_commit_keeps_output),
    T(test_abort_removes_named_staging_file),
    T(test_stamped_names_and_sweep),
    {NULL, NULL},
};
T_MAIN(cases)
