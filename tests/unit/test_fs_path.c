/* Path strings: lexical abspath, publication path, containment. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "tests/unit/t.h"
#include "tests/unit/t_fs.h"

static char scratch[4096];
static char old_cwd[4096];

/* Works inside a fresh scratch directory as the current directory. */
static void setup(void)
{
    snprintf(scratch, sizeof scratch, "%s", tfs_scratch());
    T_CHECK(getcwd(old_cwd, sizeof old_cwd) != NULL);
    T_EQ_INT(chdir(scratch), 0);
}

static void teardown(void)
{
    T_EQ_INT(chdir(old_cwd), 0);
    tfs_rm_rf(scratch);
}

static void check_abspath(const char *in, const char *want)
{
    char *got = sk_path_abspath(in);
    if (!got || strcmp(got, want) != 0)
        t_fail(__FILE__, __LINE__, "abspath(\"%s\") = \"%s\", want \"%s\"", in,
               got ? got : "(null)", want);
    sk_free(got);
}

static void abspath_vectors(void)
{
    setup();
    check_abspath("a/../b", tfs_path("%s/b", scratch));
    check_abspath("//x", "/x");
    check_abspath("///x//y/", "/x/y");
    check_abspath("./y/.", tfs_path("%s/y", scratch));
    check_abspath("/..", "/");
    check_abspath("/../a", "/a");
    check_abspath("/a/b/../../..", "/");
    check_abspath("x/./../y", tfs_path("%s/y", scratch));
    check_abspath("", scratch);
    check_abspath(".", scratch);
    check_abspath("/", "/");
    check_abspath("a/b/", tfs_path("%s/a/b", scratch));
    /* no symlink resolution: "link/.." is the directory holding the link */
    T_EQ_INT(mkdir("real", 0755), 0);
    T_EQ_INT(mkdir("real/inner", 0755), 0);
    T_EQ_INT(symlink("real/inner", "link"), 0);
    check_abspath("link/..", scratch);
    teardown();
}

static void check_publication(const char *in, const char *want)
{
    sk_diag d;
    sk_diag_clear(&d);
    char *got = sk_path_publication(in, &d);
    if (!got || strcmp(got, want) != 0)
        t_fail(__FILE__, __LINE__, "publication(\"%s\") = \"%s\" (%s), want \"%s\"", in,
               got ? got : "(null)", d.msg, want);
    sk_free(got);
}

static void publication_path_resolves_parent_only(void)
{
    setup();
    T_EQ_INT(mkdir("real", 0755), 0);
    T_EQ_INT(mkdir("real/inner", 0755), 0);
    T_EQ_INT(symlink("real", "link"), 0);
    T_EQ_INT(symlink(tfs_path("%s/real", scratch), "abslink"), 0);
    T_EQ_INT(symlink("real/inner", "innerlink"), 0);
    T_EQ_INT(symlink("nowhere", "final.json"), 0);
    check_publication("out.json", tfs_path("%s/out.json", scratch));
    check_publication("link/out.json", tfs_path("%s/real/out.json", scratch));
    check_publication("abslink/out.json", tfs_path("%s/real/out.json", scratch));
    /* ".." after a symlink applies to the target, as realpath does */
    check_publication("innerlink/../out.json", tfs_path("%s/real/out.json", scratch));
    /* components that do not exist are kept lexically (non-strict) */
    check_publication("missing/sub/../out.json", tfs_path("%s/missing/out.json", scratch));
    check_publication("./link/./x.json", tfs_path("%s/real/x.json", scratch));
    /* the name itself is appended verbatim, even when it is a symlink */
    check_publication("final.json", tfs_path("%s/final.json", scratch));
    check_publication("/out.json", "/out.json");
    check_publication(tfs_path("%s//link//o", scratch), tfs_path("%s/real/o", scratch));
    teardown();
}

static void publication_path_errors(void)
{
    setup();
    const char *bad[] = {"", "dir/", "dir/.", "dir/..", ".", "..", "/", NULL};
    for (int i = 0; bad[i]; i++) {
        sk_diag d;
        sk_diag_clear(&d);
        T_CHECK(sk_path_publication(bad[i], &d) == NULL);
        T_EQ_INT(d.code, SK_E_PATH);
        T_EQ_INT(d.sub, SK_FS_SUB_BAD_PATH);
    }
    T_EQ_INT(symlink("loop2", "loop1"), 0);
    T_EQ_INT(symlink("loop1", "loop2"), 0);
    sk_diag d;
    T_CHECK(sk_path_publication("loop1/out.json", &d) == NULL);
    T_EQ_INT(d.code, SK_E_PATH);
    T_EQ_INT(d.sub, SK_FS_SUB_LOOP);
    T_EQ_STR(d.msg, "output path contains a symlink loop (more than 40 symbolic links)");
    T_EQ_STR(d.file, "loop1/out.json");

    /* a chain of exactly 40 links resolves; 41 is refused like a loop */
    T_EQ_INT(mkdir("end", 0755), 0);
    for (int i = 0; i < 41; i++) {
        char from[32], to[32];
        snprintf(from, sizeof from, "c%d", i);
        snprintf(to, sizeof to, i == 40 ? "end" : "c%d", i + 1);
        T_EQ_INT(symlink(to, from), 0);
    }
    check_publication("c1/x", tfs_path("%s/end/x", scratch));
    T_CHECK(sk_path_publication("c0/x", &d) == NULL);
    T_EQ_INT(d.sub, SK_FS_SUB_LOOP);
    teardown();
}

static void is_within_on_component_boundaries(void)
{
    T_EQ_INT(sk_path_is_within("/a/b", "/a"), 1);
    T_EQ_INT(sk_path_is_within("/a", "/a"), 1);
    T_EQ_INT(sk_path_is_within("/a/b", "/a/"), 1);
    T_EQ_INT(sk_path_is_within("/ab", "/a"), 0);
    T_EQ_INT(sk_path_is_within("/a", "/a/b"), 0);
    T_EQ_INT(sk_path_is_within("/x/y", "/"), 1);
    T_EQ_INT(sk_path_is_within("/", "/"), 1);
    T_EQ_INT(sk_path_is_within("relative", "/"), 0);
}

static const t_case cases[] = {
    T(abspath_vectors),
    T(publication_path_resolves_parent_only),
    T(publication_path_errors),
    T(is_within_on_component_boundaries),
    {NULL, NULL},
};
T_MAIN(cases)
