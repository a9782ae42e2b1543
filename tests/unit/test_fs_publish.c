/* Publication without overwriting, every route, and atomic output sets. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/sk_fs.h"
#include "tests/unit/t.h"
#include "tests/unit/t_fs.h"

static char scratch[4096];

static void setup(void)
{
    snprintf(scratch, sizeof scratch, "%s", tfs_scratch());
}

static void teardown(void)
{
    tfs_hook_off();
    sk_fs_test_disable(0);
    tfs_rm_rf(scratch);
}

/* The feature sets that select each publication route. */
static const struct {
    unsigned disabled;
    const char *route;
} routes[] = {
    {0, "O_TMPFILE + linkat AT_EMPTY_PATH"},
    {SK_FS_TEST_NO_EMPTY_PATH, "O_TMPFILE + linkat of /proc/self/fd/N"},
    {SK_FS_TEST_NO_TMPFILE, "named temporary + link"},
    {SK_FS_TEST_NO_LINK, "O_TMPFILE refused at link, named temporary + renameat2"},
    {SK_FS_TEST_NO_TMPFILE | SK_FS_TEST_NO_LINK, "named temporary + renameat2"},
};
#define NROUTES (sizeof routes / sizeof routes[0])

static void publish_new_file_every_route(void)
{
    setup();
    mode_t old_umask = umask(077);
    for (size_t r = 0; r < NROUTES; r++) {
        printf("# route: %s\n", routes[r].route);
        sk_fs_test_disable(routes[r].disabled);
        const char *path = tfs_path("%s/out%zu.json", scratch, r);
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(sk_publish(path, "{\"a\":1}\n", 8, 0600, &d), SK_OK);
        size_t len = 0;
        T_EQ_STR(tfs_read(path, &len), "{\"a\":1}\n");
        T_EQ_INT(len, 8);
        T_EQ_INT(tfs_mode(path), 0600);
        /* the mode is applied exactly, whatever the umask */
        const char *wide = tfs_path("%s/wide%zu.txt", scratch, r);
        T_EQ_INT(sk_publish(wide, "", 0, 0644, &d), SK_OK);
        T_EQ_INT(tfs_mode(wide), 0644);
        T_EQ_STR(tfs_read(wide, &len), "");
    }
    umask(old_umask);
    T_EQ_STR(tfs_list(scratch), "out0.json,out1.json,out2.json,out3.json,out4.json,wide0.txt,"
                                "wide1.txt,wide2.txt,wide3.txt,wide4.txt");
    teardown();
}

static void existing_name_is_never_overwritten(void)
{
    setup();
    const char *path = tfs_path("%s/out.json", scratch);
    T_EQ_INT(tfs_write_str(path, "original"), 0);
    for (size_t r = 0; r < NROUTES; r++) {
        sk_fs_test_disable(routes[r].disabled);
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(sk_publish(path, "new", 3, 0600, &d), SK_E_EXISTS);
        T_EQ_INT(d.sub, SK_FS_SUB_EXISTS);
        T_EQ_STR(d.msg, tfs_path("output already exists: %s", path));
        T_EQ_STR(tfs_read(path, NULL), "original");
        T_EQ_STR(tfs_list(scratch), "out.json");
    }
    /* a symlink or a directory at the name is not replaced either */
    sk_fs_test_disable(0);
    T_EQ_INT(symlink("nowhere", tfs_path("%s/link", scratch)), 0);
    sk_diag d;
    T_EQ_INT(sk_publish(tfs_path("%s/link", scratch), "x", 1, 0600, &d), SK_E_EXISTS);
    T_EQ_INT(mkdir(tfs_path("%s/dir", scratch), 0755), 0);
    T_EQ_INT(sk_publish(tfs_path("%s/dir", scratch), "x", 1, 0600, &d), SK_E_EXISTS);
    T_EQ_STR(tfs_list(scratch), "dir,link,out.json");
    teardown();
}

typedef struct race {
    const char *dir;
    char listing[512]; /* directory listing seen by the hook */
} race;

static void target_absent(const char *path, void *arg);

static void plant_foreign_file(const char *path, void *arg)
{
    race *r = arg;
    snprintf(r->listing, sizeof r->listing, "%s", tfs_list(r->dir));
    T_EQ_INT(tfs_write_str(path, "foreign"), 0);
}

static void foreign_file_planted_before_link(void)
{
    setup();
    for (size_t r = 0; r < NROUTES; r++) {
        sk_fs_test_disable(routes[r].disabled);
        const char *path = tfs_path("%s/session.json", scratch);
        race rc = {scratch, ""};
        tfs_hook_on("before_publish", plant_foreign_file, &rc, 0);
        sk_diag d;
        T_EQ_INT(sk_publish(path, "ours", 4, 0600, &d), SK_E_EXISTS);
        T_EQ_STR(d.msg, tfs_path("output already exists: %s", path));
        T_EQ_STR(tfs_read(path, NULL), "foreign");
        T_EQ_STR(tfs_list(scratch), "session.json");
        /* with O_TMPFILE nothing is visible while the bytes are written;
         * the named route shows its hidden temporary */
        if (!(routes[r].disabled & SK_FS_TEST_NO_TMPFILE)) {
            T_EQ_STR(rc.listing, "");
        } else {
            T_CHECK(strncmp(rc.listing, ".session.json.", 14) == 0);
            T_EQ_INT(strlen(rc.listing), strlen(".session.json.") + 16 + 4);
            T_CHECK(strcmp(rc.listing + strlen(rc.listing) - 4, ".tmp") == 0);
        }
        T_EQ_INT(unlink(path), 0);
    }
    teardown();
}

static void route_switches_from_environment(void)
{
    setup();
    T_EQ_INT(setenv("SK_TEST_FS_DISABLE", "tmpfile,link", 1), 0);
    race rc = {scratch, ""};
    tfs_hook_on("before_publish", target_absent, &rc, 0);
    sk_diag d;
    T_EQ_INT(sk_publish(tfs_path("%s/o", scratch), "x", 1, 0600, &d), SK_OK);
    T_CHECK(strncmp(rc.listing, ".o.", 3) == 0); /* the named temporary was used */
    T_EQ_STR(tfs_list(scratch), "o");
    T_EQ_INT(setenv("SK_TEST_FS_DISABLE", "tmpfile,link,noreplace", 1), 0);
    T_EQ_INT(sk_publish(tfs_path("%s/p", scratch), "x", 1, 0600, &d), SK_E_UNSUPPORTED);
    unsetenv("SK_TEST_FS_DISABLE");
    T_EQ_STR(tfs_list(scratch), "o");
    teardown();
}

static void no_hard_links_and_no_noreplace_is_refused(void)
{
    setup();
    sk_fs_test_disable(SK_FS_TEST_NO_TMPFILE | SK_FS_TEST_NO_LINK | SK_FS_TEST_NO_NOREPLACE);
    sk_diag d;
    const char *path = tfs_path("%s/out.json", scratch);
    T_EQ_INT(sk_publish(path, "x", 1, 0600, &d), SK_E_UNSUPPORTED);
    T_CONTAINS(d.msg, "supports neither hard links nor RENAME_NOREPLACE");
    T_EQ_STR(tfs_list(scratch), "");
    teardown();
}

static void publish_bad_paths_and_at(void)
{
    setup();
    sk_diag d;
    T_EQ_INT(sk_publish(tfs_path("%s/", scratch), "x", 1, 0600, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "output path must end with a file name");
    T_EQ_INT(sk_publish(tfs_path("%s/..", scratch), "x", 1, 0600, &d), SK_E_PATH);
    T_EQ_INT(sk_publish("", "x", 1, 0600, &d), SK_E_PATH);
    T_EQ_INT(sk_publish(tfs_path("%s/missing/out.json", scratch), "x", 1, 0600, &d), SK_E_PATH);
    T_EQ_STR(d.msg, tfs_path("output directory cannot be opened: %s/missing (no such file or "
                             "directory)",
                             scratch));
    int dirfd = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    T_CHECK(dirfd >= 0);
    T_EQ_INT(sk_publish_at(dirfd, "a/b", "x", 1, 0600, &d), SK_E_ARG);
    T_EQ_INT(sk_publish_at(dirfd, ".", "x", 1, 0600, &d), SK_E_ARG);
    T_EQ_INT(sk_publish_at(dirfd, "marker", "m\n", 2, 0600, &d), SK_OK);
    T_EQ_STR(tfs_read(tfs_path("%s/marker", scratch), NULL), "m\n");
    T_EQ_INT(sk_publish_at(dirfd, "marker", "m\n", 2, 0600, &d), SK_E_EXISTS);
    T_EQ_STR(d.msg, "output already exists: marker");
    close(dirfd);
    /* a relative path publishes below the current directory */
    char old[4096];
    T_CHECK(getcwd(old, sizeof old) != NULL);
    T_EQ_INT(chdir(scratch), 0);
    T_EQ_INT(sk_publish("rel.txt", "r", 1, 0600, &d), SK_OK);
    T_EQ_INT(chdir(old), 0);
    T_EQ_STR(tfs_list(scratch), "marker,rel.txt");
    teardown();
}

static void target_absent(const char *path, void *arg)
{
    race *r = arg;
    struct stat st;
    T_CHECK(lstat(path, &st) != 0);
    snprintf(r->listing, sizeof r->listing, "%s", tfs_list(r->dir));
}

static void outdir_commit_publishes_all_at_once(void)
{
    setup();
    const char *path = tfs_path("%s/report", scratch);
    sk_outdir *o = NULL;
    sk_diag d;
    T_EQ_INT(sk_outdir_begin(path, 0750, &o, &d), SK_OK);
    T_EQ_INT(sk_outdir_add(o, "a.json", "{}\n", 3, 0600, &d), SK_OK);
    T_EQ_INT(sk_outdir_add(o, "b.txt", "bee", 3, 0644, &d), SK_OK);
    T_EQ_INT(sk_outdir_add(o, "a.json", "{}\n", 3, 0600, &d), SK_E_ARG);
    T_EQ_STR(d.msg, "output file added twice: a.json");
    T_EQ_INT(sk_outdir_add(o, "sub/c", "x", 1, 0600, &d), SK_E_ARG);
    /* until the rename nothing exists at the target: one hidden directory */
    race rc = {scratch, ""};
    tfs_hook_on("before_publish", target_absent, &rc, 0);
    T_EQ_INT(sk_outdir_commit(o, &d), SK_OK);
    T_CHECK(strncmp(rc.listing, ".report.", 8) == 0);
    T_CHECK(strchr(rc.listing, ',') == NULL);
    T_EQ_STR(tfs_list(scratch), "report");
    T_EQ_STR(tfs_list(path), "a.json,b.txt");
    T_EQ_STR(tfs_read(tfs_path("%s/a.json", path), NULL), "{}\n");
    T_EQ_STR(tfs_read(tfs_path("%s/b.txt", path), NULL), "bee");
    T_EQ_INT(tfs_mode(tfs_path("%s/a.json", path)), 0600);
    T_EQ_INT(tfs_mode(tfs_path("%s/b.txt", path)), 0644);
    T_EQ_INT(tfs_mode(path), 0750);
    T_EQ_INT(sk_outdir_commit(o, &d), SK_E_ARG);
    T_EQ_INT(sk_outdir_add(o, "late", "x", 1, 0600, &d), SK_E_ARG);
    sk_outdir_free(o);
    T_EQ_STR(tfs_list(path), "a.json,b.txt");
    teardown();
}

static void outdir_refuses_non_empty_target(void)
{
    setup();
    const char *path = tfs_path("%s/report", scratch);
    T_EQ_INT(mkdir(path, 0755), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/keep", path), "old"), 0);
    sk_outdir *o = NULL;
    sk_diag d;
    T_EQ_INT(sk_outdir_begin(path, 0755, &o, &d), SK_E_EXISTS);
    T_EQ_STR(d.msg, tfs_path("output already exists: %s", path));
    T_CHECK(o == NULL);
    /* a file at the name is refused too */
    const char *file = tfs_path("%s/file", scratch);
    T_EQ_INT(tfs_write_str(file, "f"), 0);
    T_EQ_INT(sk_outdir_begin(file, 0755, &o, &d), SK_E_EXISTS);
    T_EQ_STR(tfs_list(scratch), "file,report");
    T_EQ_STR(tfs_list(path), "keep");
    teardown();
}

static void fill_target(const char *path, void *arg)
{
    (void)arg;
    struct stat st;
    if (lstat(path, &st) != 0)
        T_EQ_INT(mkdir(path, 0755), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/foreign", path), "theirs"), 0);
}

static void outdir_target_filled_before_commit(void)
{
    setup();
    static const unsigned modes[] = {0, SK_FS_TEST_NO_NOREPLACE};
    for (size_t m = 0; m < 2; m++) {
        sk_fs_test_disable(modes[m]);
        const char *path = tfs_path("%s/report", scratch);
        sk_outdir *o = NULL;
        sk_diag d;
        T_EQ_INT(sk_outdir_begin(path, 0755, &o, &d), SK_OK);
        T_EQ_INT(sk_outdir_add(o, "a", "x", 1, 0600, &d), SK_OK);
        tfs_hook_on("before_publish", fill_target, NULL, 0);
        T_EQ_INT(sk_outdir_commit(o, &d), SK_E_EXISTS);
        T_EQ_STR(d.msg, tfs_path("output already exists: %s", path));
        /* the failed set is gone at once, the foreign content stays */
        T_EQ_STR(tfs_list(scratch), "report");
        T_EQ_STR(tfs_list(path), "foreign");
        sk_outdir_free(o);
        T_EQ_STR(tfs_list(scratch), "report");
        tfs_hook_off();
        tfs_rm_rf(path);
    }
    teardown();
}

static void outdir_replaces_empty_target(void)
{
    setup();
    static const unsigned modes[] = {0, SK_FS_TEST_NO_NOREPLACE};
    for (size_t m = 0; m < 2; m++) {
        sk_fs_test_disable(modes[m]);
        const char *path = tfs_path("%s/report", scratch);
        T_EQ_INT(mkdir(path, 0700), 0);
        sk_outdir *o = NULL;
        sk_diag d;
        T_EQ_INT(sk_outdir_begin(path, 0755, &o, &d), SK_OK);
        T_EQ_INT(sk_outdir_add(o, "x.csv", "1,2\n", 4, 0644, &d), SK_OK);
        T_EQ_INT(sk_outdir_commit(o, &d), SK_OK);
        sk_outdir_free(o);
        T_EQ_STR(tfs_list(scratch), "report");
        T_EQ_STR(tfs_list(path), "x.csv");
        T_EQ_INT(tfs_mode(path), 0755);
        tfs_rm_rf(path);
    }
    teardown();
}

static void outdir_free_without_commit_leaves_nothing(void)
{
    setup();
    const char *path = tfs_path("%s/report", scratch);
    sk_outdir *o = NULL;
    sk_diag d;
    T_EQ_INT(sk_outdir_begin(path, 0755, &o, &d), SK_OK);
    T_EQ_INT(sk_outdir_add(o, "a", "x", 1, 0600, &d), SK_OK);
    T_EQ_INT(sk_outdir_add(o, "b", "y", 1, 0600, &d), SK_OK);
    T_CHECK(strncmp(tfs_list(scratch), ".report.", 8) == 0);
    sk_outdir_free(o);
    T_EQ_STR(tfs_list(scratch), "");
    /* a set with no file at all */
    T_EQ_INT(sk_outdir_begin(path, 0755, &o, &d), SK_OK);
    sk_outdir_free(o);
    T_EQ_STR(tfs_list(scratch), "");
    sk_outdir_free(NULL);
    /* a trailing slash names the same directory */
    T_EQ_INT(sk_outdir_begin(tfs_path("%s/report//", scratch), 0755, &o, &d), SK_OK);
    T_EQ_INT(sk_outdir_add(o, "a", "x", 1, 0600, &d), SK_OK);
    T_EQ_INT(sk_outdir_commit(o, &d), SK_OK);
    sk_outdir_free(o);
    T_EQ_STR(tfs_list(scratch), "report");
    T_EQ_STR(tfs_list(path), "a");
    T_EQ_INT(sk_outdir_begin(tfs_path("%s/report/", scratch), 0755, &o, &d), SK_E_EXISTS);
    T_EQ_STR(d.msg, tfs_path("output already exists: %s/report", scratch));
    T_EQ_INT(sk_outdir_begin("/", 0755, &o, &d), SK_E_PATH);
    T_EQ_INT(sk_outdir_begin(NULL, 0755, &o, &d), SK_E_PATH);
    /* a missing parent is reported, not created */
    T_EQ_INT(sk_outdir_begin(tfs_path("%s/no/report", scratch), 0755, &o, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "output directory cannot be opened: ");
    teardown();
}

static const t_case cases[] = {
    T(publish_new_file_every_route),
    T(existing_name_is_never_overwritten),
    T(foreign_file_planted_before_link),
    T(no_hard_links_and_no_noreplace_is_refused),
    T(route_switches_from_environment),
    T(publish_bad_paths_and_at),
    T(outdir_commit_publishes_all_at_once),
    T(outdir_refuses_non_empty_target),
    T(outdir_target_filled_before_commit),
    T(outdir_replaces_empty_target),
    T(outdir_free_without_commit_leaves_nothing),
    {NULL, NULL},
};
T_MAIN(cases)
