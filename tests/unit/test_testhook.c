/* Test hooks (C callback and shell command) and the fake clock. */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_clock.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_testhook.h"
#include "tests/unit/t.h"
#include "tests/unit/t_fs.h"

typedef struct seen {
    int calls;
    char point[64];
    char path[256];
} seen;

static void record(void *ctx, const char *point, const char *path)
{
    seen *s = ctx;
    s->calls++;
    snprintf(s->point, sizeof s->point, "%s", point);
    snprintf(s->path, sizeof s->path, "%s", path);
}

static void callback_receives_point_path_and_context(void)
{
    seen s = {0, "", ""};
    sk_test_hook_set(record, &s);
    T_EQ_INT(sk_test_hook_active("anything"), 1);
    sk_test_hook("after_open", "/x/y");
    sk_test_hook("after_open", "/x/z");
    T_EQ_INT(s.calls, 2); /* the once-per-process rule is for shell commands only */
    T_EQ_STR(s.point, "after_open");
    T_EQ_STR(s.path, "/x/z");
    sk_test_hook_set(NULL, NULL);
    T_EQ_INT(sk_test_hook_active("anything"), 0);
    sk_test_hook("after_open", "/x/y");
    T_EQ_INT(s.calls, 2);
}

static void shell_hook_runs_once_with_environment(void)
{
    const char *dir = tfs_scratch();
    char out[4200];
    snprintf(out, sizeof out, "%s/hook.out", dir);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "printf '%%s|%%s;' \"$SK_HOOK_PATH\" \"$SK_HOOK_POINT\" >> '%s'",
             out);
    sk_test_hook_reset();
    T_EQ_INT(setenv("SK_TEST_HOOK_MY_POINT_1", cmd, 1), 0);
    T_EQ_INT(sk_test_hook_active("my.point-1"), 1);
    T_EQ_INT(sk_test_hook_active("my.point-2"), 0);
    sk_test_hook("my.point-1", "/some/path");
    T_EQ_STR(tfs_read(out, NULL), "/some/path|my.point-1;");
    sk_test_hook("my.point-1", "/again");
    T_EQ_STR(tfs_read(out, NULL), "/some/path|my.point-1;");
    T_EQ_INT(setenv("SK_TEST_HOOK_REPEAT", "1", 1), 0);
    sk_test_hook("my.point-1", "/again");
    sk_test_hook("my.point-1", "/third");
    T_EQ_STR(tfs_read(out, NULL), "/some/path|my.point-1;/again|my.point-1;/third|my.point-1;");
    unsetenv("SK_TEST_HOOK_REPEAT");
    unsetenv("SK_TEST_HOOK_MY_POINT_1");
    sk_test_hook_reset();
    tfs_rm_rf(dir);
}

static void shell_hook_changes_a_file_under_the_reader(void)
{
    const char *dir = tfs_scratch();
    char root[4200];
    snprintf(root, sizeof root, "%s", dir);
    T_EQ_INT(tfs_write_str(tfs_path("%s/in.json", root), "{}"), 0);
    sk_test_hook_reset();
    T_EQ_INT(setenv("SK_TEST_HOOK_AFTER_OPEN", "echo more >> \"$SK_HOOK_PATH\"", 1), 0);
    char *data = NULL;
    sk_diag d;
    T_EQ_INT(sk_read_file(tfs_path("%s/in.json", root), SK_PATH_NOFOLLOW_ALL, "config", 0, &data,
                          NULL, NULL, NULL, &d),
             SK_E_CHANGED);
    T_EQ_STR(d.msg, "config changed while reading");
    /* the *_at readers hand the hook an absolute path too */
    sk_test_hook_reset();
    T_EQ_INT(mkdir(tfs_path("%s/sub", root), 0755), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/sub/a.dat", root), "a"), 0);
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char hex[65];
    T_EQ_INT(sk_hash_file_at(fd, "sub/a.dat", "artifact", hex, NULL, &d), SK_E_CHANGED);
    T_EQ_STR(d.msg, "artifact changed while hashing: sub/a.dat");
    T_EQ_STR(tfs_read(tfs_path("%s/sub/a.dat", root), NULL), "amore\n");
    /* once per process: the next read is undisturbed */
    T_EQ_INT(sk_hash_file_at(fd, "sub/a.dat", "artifact", hex, NULL, &d), SK_OK);
    close(fd);
    unsetenv("SK_TEST_HOOK_AFTER_OPEN");
    sk_test_hook_reset();
    tfs_rm_rf(root);
}

static void fake_clock_sequence(void)
{
    unsetenv("SK_TEST_CLOCK_NS");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t real = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    int64_t got = sk_clock_realtime_ns();
    T_CHECK(got >= real && got - real < 10 * (int64_t)1000000000);

    T_EQ_INT(setenv("SK_TEST_CLOCK_NS", "1,9000000000000000000", 1), 0);
    T_EQ_INT(sk_clock_realtime_ns(), 1);
    T_EQ_INT(sk_clock_realtime_ns(), 9000000000000000000LL);
    T_EQ_INT(sk_clock_realtime_ns(), 9000000000000000000LL);
    /* a new value starts over */
    T_EQ_INT(setenv("SK_TEST_CLOCK_NS", "5,-1", 1), 0);
    T_EQ_INT(sk_clock_realtime_ns(), 5);
    T_EQ_INT(sk_clock_realtime_ns(), -1);
    T_EQ_INT(sk_clock_realtime_ns(), -1);
    T_EQ_INT(setenv("SK_TEST_CLOCK_NS", "-9223372036854775808,9223372036854775807", 1), 0);
    T_EQ_INT(sk_clock_realtime_ns(), INT64_MIN);
    T_EQ_INT(sk_clock_realtime_ns(), INT64_MAX);
    /* malformed entries read as INT64_MIN, never as a plausible time */
    T_EQ_INT(setenv("SK_TEST_CLOCK_NS", "9223372036854775808,,1e5, 7,7", 1), 0);
    T_EQ_INT(sk_clock_realtime_ns(), INT64_MIN);
    T_EQ_INT(sk_clock_realtime_ns(), INT64_MIN);
    T_EQ_INT(sk_clock_realtime_ns(), INT64_MIN);
    T_EQ_INT(sk_clock_realtime_ns(), INT64_MIN);
    T_EQ_INT(sk_clock_realtime_ns(), 7);
    unsetenv("SK_TEST_CLOCK_NS");
}

static const t_case cases[] = {
    T(callback_receives_point_path_and_context),
    T(shell_hook_runs_once_with_environment),
    T(shell_hook_changes_a_file_under_the_reader),
    T(fake_clock_sequence),
    {NULL, NULL},
};
T_MAIN(cases)
