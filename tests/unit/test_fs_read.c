/* Stable reads: path policies, special files, limits, change detection. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_sha256.h"
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
    tfs_rm_rf(scratch);
}

/* Reads path and returns the error code; d receives the diagnostic. */
static sk_err read_code(const char *path, sk_path_policy policy, size_t max, sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    sk_diag_clear(d);
    sk_err e = sk_read_file(path, policy, "config", max, &data, &len, NULL, NULL, d);
    sk_free(data);
    return e;
}

static sk_err read_at_code(const char *root, const char *rel, size_t max, sk_diag *d)
{
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    T_CHECK(fd >= 0);
    char *data = NULL;
    sk_diag_clear(d);
    sk_err e = sk_read_file_at(fd, rel, "artifact", max, &data, NULL, NULL, NULL, d);
    sk_free(data);
    close(fd);
    return e;
}

static sk_err hash_at_code(const char *root, const char *rel, char hex[65], sk_diag *d)
{
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    T_CHECK(fd >= 0);
    sk_diag_clear(d);
    sk_err e = sk_hash_file_at(fd, rel, "artifact", hex, NULL, d);
    close(fd);
    return e;
}

static void read_regular_file(void)
{
    setup();
    const char *path = tfs_path("%s/in.json", scratch);
    T_EQ_INT(tfs_write_str(path, "hello world"), 0);
    char *data = NULL;
    size_t len = 0;
    sk_stat st;
    char hex[65], want[65];
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(sk_read_file(path, SK_PATH_NOFOLLOW_ALL, "config", 0, &data, &len, &st, hex, &d),
             SK_OK);
    T_EQ_STR(data, "hello world");
    T_EQ_INT(len, 11);
    T_EQ_U64(st.size, 11);
    struct stat real;
    T_EQ_INT(stat(path, &real), 0);
    T_EQ_U64(st.ino, real.st_ino);
    T_EQ_U64(st.dev, real.st_dev);
    T_EQ_INT(sk_sha256_hex("hello world", 11, want), SK_OK);
    T_EQ_STR(hex, want);
    T_EQ_STR(hex, "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9");
    sk_free(data);

    /* an empty file is fine and gives an empty NUL-terminated buffer */
    const char *empty = tfs_path("%s/empty", scratch);
    T_EQ_INT(tfs_write_str(empty, ""), 0);
    T_EQ_INT(sk_read_file(empty, SK_PATH_NOFOLLOW_LEAF, "config", 0, &data, &len, NULL, NULL, &d),
             SK_OK);
    T_EQ_INT(len, 0);
    T_EQ_STR(data, "");
    sk_free(data);
    teardown();
}

static void read_relative_path_gives_absolute_evidence(void)
{
    setup();
    char old[4096];
    T_CHECK(getcwd(old, sizeof old) != NULL);
    T_EQ_INT(mkdir(tfs_path("%s/sub", scratch), 0755), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/sub/x.json", scratch), "{}"), 0);
    T_EQ_INT(chdir(tfs_path("%s/sub", scratch)), 0);
    sk_rfile *f = NULL;
    sk_diag d;
    T_EQ_INT(sk_rfile_open("./../sub/x.json", SK_PATH_NOFOLLOW_ALL, "config", &f, &d), SK_OK);
    T_EQ_STR(sk_rfile_path(f), tfs_path("%s/sub/x.json", scratch));
    T_EQ_U64(sk_rfile_stat(f)->size, 2);
    T_CHECK(sk_rfile_fd(f) >= 0);
    /* the descriptor is blocking again after the type check */
    T_EQ_INT(fcntl(sk_rfile_fd(f), F_GETFL) & O_NONBLOCK, 0);
    char buf[1];
    size_t got, total = 0;
    do {
        T_EQ_INT(sk_rfile_read(f, buf, sizeof buf, &got, &d), SK_OK);
        total += got;
    } while (got);
    T_EQ_INT(total, 2);
    sk_stat after;
    T_EQ_INT(sk_rfile_finish(f, &after, &d), SK_OK);
    T_EQ_U64(after.ino, sk_rfile_stat(f)->ino);
    sk_rfile_free(f);
    T_EQ_INT(chdir(old), 0);
    teardown();
}

static void symlink_in_ancestor(void)
{
    setup();
    T_EQ_INT(mkdir(tfs_path("%s/real", scratch), 0755), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/real/f.json", scratch), "1"), 0);
    T_EQ_INT(symlink("real", tfs_path("%s/link", scratch)), 0);
    const char *path = tfs_path("%s/link/f.json", scratch);
    sk_diag d;
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_INT(d.sub, SK_FS_SUB_SYMLINK);
    T_EQ_STR(d.msg, tfs_path("config path contains a symlink: %s/link", scratch));
    T_EQ_STR(d.file, path);
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_LEAF, 0, &d), SK_OK);
    teardown();
}

static void symlink_leaf(void)
{
    setup();
    T_EQ_INT(tfs_write_str(tfs_path("%s/f.json", scratch), "1"), 0);
    T_EQ_INT(symlink("f.json", tfs_path("%s/l.json", scratch)), 0);
    const char *path = tfs_path("%s/l.json", scratch);
    sk_diag d;
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "config path contains a symlink");
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_LEAF, 0, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "config path contains a symlink");
    T_EQ_INT(d.sub, SK_FS_SUB_SYMLINK);
    T_EQ_INT(read_at_code(scratch, "l.json", 0, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "artifact path contains a symlink");
    /* a dangling symlink is still a symlink, not a missing file */
    T_EQ_INT(symlink("nowhere", tfs_path("%s/dangling", scratch)), 0);
    T_EQ_INT(read_code(tfs_path("%s/dangling", scratch), SK_PATH_NOFOLLOW_LEAF, 0, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "config path contains a symlink");
    teardown();
}

static void missing_component_and_leaf(void)
{
    setup();
    sk_diag d;
    const char *path = tfs_path("%s/nodir/f.json", scratch);
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_INT(d.sub, SK_FS_SUB_MISSING_COMPONENT);
    T_EQ_STR(d.msg, tfs_path("config path contains a missing or non-directory component: "
                             "%s/nodir (no such file or directory)",
                             scratch));
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_LEAF, 0, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "config path contains a missing or non-directory component");
    T_CONTAINS(d.msg, "(no such file or directory)");
    T_EQ_INT(read_at_code(scratch, "nodir/f.json", 0, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "artifact path contains a missing or non-directory component: nodir "
                    "(no such file or directory)");

    T_EQ_INT(read_code(tfs_path("%s/none.json", scratch), SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_INT(d.sub, SK_FS_SUB_CANNOT_OPEN);
    T_EQ_STR(d.msg, "config does not exist or cannot be opened: no such file or directory");
    T_EQ_INT(read_at_code(scratch, "none.dat", 0, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "artifact does not exist or cannot be opened: no such file or directory");
    T_EQ_STR(d.file, "none.dat");
    teardown();
}

static void non_directory_component(void)
{
    setup();
    T_EQ_INT(tfs_write_str(tfs_path("%s/file.txt", scratch), "x"), 0);
    sk_diag d;
    const char *path = tfs_path("%s/file.txt/x.json", scratch);
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_STR(d.msg, tfs_path("config path contains a missing or non-directory component: "
                             "%s/file.txt (not a directory)",
                             scratch));
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_LEAF, 0, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "non-directory component");
    T_CONTAINS(d.msg, "(not a directory)");
    T_EQ_INT(read_at_code(scratch, "file.txt/x.json", 0, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "artifact path contains a missing or non-directory component: file.txt");
    teardown();
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void swap_for_fifo(const char *path, void *arg)
{
    (void)arg;
    T_EQ_INT(unlink(path), 0);
    T_EQ_INT(mkfifo(path, 0600), 0);
}

static void fifo_returns_promptly(void)
{
    setup();
    /* If an open ever blocked, SIGALRM would kill the binary: a visible failure. */
    alarm(20);
    const char *fifo = tfs_path("%s/pipe", scratch);
    T_EQ_INT(mkfifo(fifo, 0600), 0);
    sk_diag d;
    double start = now_s();
    T_EQ_INT(read_code(fifo, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_INT(d.sub, SK_FS_SUB_NOT_REGULAR);
    T_EQ_STR(d.msg, "config must be a regular file (found a named pipe (FIFO))");
    char hex[65];
    T_EQ_INT(hash_at_code(scratch, "pipe", hex, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "artifact must be a regular file (found a named pipe (FIFO))");

    /* A FIFO swapped in after the type pre-check reaches the open itself:
     * O_NONBLOCK keeps it from blocking and fstat refuses it. */
    const char *swapped = tfs_path("%s/swapped", scratch);
    T_EQ_INT(tfs_write_str(swapped, "x"), 0);
    tfs_hook_on("before_open", swap_for_fifo, NULL, 0);
    T_EQ_INT(read_code(swapped, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "config must be a regular file (found a named pipe (FIFO))");
    tfs_hook_off();
    T_CHECK(now_s() - start < 5.0);
    alarm(0);
    teardown();
}

static void directory_or_empty_path_is_not_a_file(void)
{
    setup();
    T_EQ_INT(mkdir(tfs_path("%s/dir", scratch), 0755), 0);
    sk_diag d;
    T_EQ_INT(read_code(tfs_path("%s/dir", scratch), SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "config must be a regular file (found a directory)");
    T_EQ_INT(read_code(tfs_path("%s/dir/", scratch), SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "config must be a regular file");
    T_EQ_INT(read_code("/", SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "config must be a regular file");
    T_EQ_INT(read_code("", SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "config path must be non-empty text");
    T_EQ_INT(read_at_code(scratch, "dir", 0, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "artifact must be a regular file (found a directory)");
    /* the root-relative grammar is enforced */
    const char *bad[] = {"", "/abs", "a//b", "./a", "a/./b", "a/../b", "..", "a/", NULL};
    for (int i = 0; bad[i]; i++) {
        T_EQ_INT(read_at_code(scratch, bad[i], 0, &d), SK_E_PATH);
        T_EQ_STR(d.msg, "artifact path must be a canonical relative path");
        T_EQ_INT(d.sub, SK_FS_SUB_BAD_PATH);
    }
    teardown();
}

/* In a child with the identity of "nobody": a 0600 root file and a 0700
 * root directory must give EACCES.  Exit status: 0 pass, 1 leaf message
 * wrong, 2 directory message wrong, 3 could not drop privileges. */
static int eacces_child(const char *file, const char *inner)
{
    if (setgid(65534) != 0 || setuid(65534) != 0)
        return 3;
    sk_diag d;
    if (read_code(file, SK_PATH_NOFOLLOW_ALL, 0, &d) != SK_E_IO ||
        strcmp(d.msg, "config does not exist or cannot be opened: permission denied") != 0 ||
        d.sub != SK_FS_SUB_CANNOT_OPEN) {
        printf("# child leaf: %s\n", d.msg);
        return 1;
    }
    if (read_code(inner, SK_PATH_NOFOLLOW_ALL, 0, &d) != SK_E_IO ||
        !strstr(d.msg, "config path contains an inaccessible directory: ") ||
        !strstr(d.msg, "(permission denied)") || d.sub != SK_FS_SUB_ACCESS) {
        printf("# child dir: %s\n", d.msg);
        return 2;
    }
    return 0;
}

static void permission_denied(void)
{
    setup();
    const char *file = tfs_path("%s/secret.json", scratch);
    T_EQ_INT(tfs_write_str(file, "{}"), 0);
    T_EQ_INT(chmod(file, 0600), 0);
    T_EQ_INT(mkdir(tfs_path("%s/closed", scratch), 0700), 0);
    const char *inner = tfs_path("%s/closed/x.json", scratch);
    T_EQ_INT(tfs_write_str(inner, "{}"), 0);
    T_EQ_INT(chmod(scratch, 0755), 0);
    if (geteuid() != 0) {
        T_EQ_INT(chmod(file, 0), 0);
        T_EQ_INT(chmod(tfs_path("%s/closed", scratch), 0), 0);
        sk_diag d;
        T_EQ_INT(read_code(file, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_IO);
        T_EQ_STR(d.msg, "config does not exist or cannot be opened: permission denied");
        T_EQ_INT(read_code(inner, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_IO);
        T_CONTAINS(d.msg, "config path contains an inaccessible directory: ");
        T_EQ_INT(chmod(tfs_path("%s/closed", scratch), 0700), 0);
    } else {
        printf("# running as root: chmod-based EACCES is bypassed by root, so the assertion "
               "runs in a child process switched to uid/gid 65534\n");
        fflush(stdout);
        pid_t pid = fork();
        T_CHECK(pid >= 0);
        if (pid == 0) {
            int rc = eacces_child(file, inner);
            fflush(stdout);
            _exit(rc);
        }
        int status = 0;
        T_EQ_INT(waitpid(pid, &status, 0), pid);
        T_CHECK(WIFEXITED(status));
        if (WEXITSTATUS(status) == 3)
            printf("# skipped: setuid(65534) not permitted here\n");
        else
            T_EQ_INT(WEXITSTATUS(status), 0);
    }
    teardown();
}

static void byte_limit_before_reading(void)
{
    setup();
    const char *path = tfs_path("%s/eleven", scratch);
    T_EQ_INT(tfs_write_str(path, "hello world"), 0);
    sk_diag d;
    tfs_hook_on("none", NULL, NULL, 0);
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_ALL, 4, &d), SK_E_LIMIT);
    T_EQ_STR(d.msg, "config exceeds byte limit 4 bytes");
    T_EQ_INT(d.sub, SK_FS_SUB_TOO_LARGE);
    /* refused at open time: the file was never read to the end */
    T_EQ_STR(tfs_hook_log(), "before_open,after_open,");
    tfs_hook_off();
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_ALL, 1, &d), SK_E_LIMIT);
    T_EQ_STR(d.msg, "config exceeds byte limit 1 byte");
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_ALL, 11, &d), SK_OK);
    T_EQ_INT(read_at_code(scratch, "eleven", 10, &d), SK_E_LIMIT);
    T_EQ_STR(d.msg, "artifact exceeds byte limit 10 bytes");

    /* MiB wording for whole mebibytes */
    static char big[(1 << 20) + 1];
    memset(big, 'a', sizeof big);
    const char *bigpath = tfs_path("%s/big", scratch);
    T_EQ_INT(tfs_write(bigpath, big, sizeof big), 0);
    T_EQ_INT(read_code(bigpath, SK_PATH_NOFOLLOW_ALL, 1 << 20, &d), SK_E_LIMIT);
    T_EQ_STR(d.msg, "config exceeds byte limit 1 MiB (1048576 bytes)");
    T_EQ_INT(read_code(bigpath, SK_PATH_NOFOLLOW_ALL, (1 << 20) + 1, &d), SK_OK);
    T_EQ_INT(tfs_write(bigpath, big, 0), 0);
    T_EQ_INT(read_code(bigpath, SK_PATH_NOFOLLOW_ALL, (1 << 20) + 1, &d), SK_OK);
    teardown();
}

static void append_byte(const char *path, void *arg)
{
    (void)arg;
    int fd = open(path, O_WRONLY | O_APPEND);
    T_CHECK(fd >= 0);
    T_EQ_INT(write(fd, "!", 1), 1);
    close(fd);
}

static void byte_limit_while_reading(void)
{
    setup();
    const char *path = tfs_path("%s/two", scratch);
    T_EQ_INT(tfs_write_str(path, "ab"), 0);
    sk_diag d;
    /* 2 bytes at open time pass the limit of 2; the read then sees 3 */
    tfs_hook_on("after_open", append_byte, NULL, 0);
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_ALL, 2, &d), SK_E_LIMIT);
    T_EQ_STR(d.msg, "config exceeds byte limit 2 bytes");
    T_EQ_INT(tfs_write_str(path, "ab"), 0);
    tfs_hook_on("after_open", append_byte, NULL, 0);
    T_EQ_INT(read_at_code(scratch, "two", 2, &d), SK_E_LIMIT);
    T_EQ_STR(d.msg, "artifact exceeds byte limit 2 bytes");
    /* without a limit the growth is caught as a change instead */
    T_EQ_INT(tfs_write_str(path, "ab"), 0);
    tfs_hook_on("after_open", append_byte, NULL, 0);
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_CHANGED);
    T_EQ_STR(d.msg, "config changed while reading");
    teardown();
}

static void rewrite_in_place(const char *path, void *arg)
{
    const char *text = arg;
    int fd = open(path, O_WRONLY | O_TRUNC);
    T_CHECK(fd >= 0);
    T_EQ_INT(write(fd, text, strlen(text)), (long long)strlen(text));
    close(fd);
}

static void rewritten_during_read(void)
{
    setup();
    const char *path = tfs_path("%s/in.json", scratch);
    T_EQ_INT(tfs_write_str(path, "{\"a\":1}"), 0);
    sk_diag d;
    tfs_hook_on("after_open", rewrite_in_place, "{\"a\":22}", 0);
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_CHANGED);
    T_EQ_INT(d.sub, SK_FS_SUB_CONTENT_CHANGED);
    T_EQ_STR(d.msg, "config changed while reading");

    /* same size, different bytes, during hashing of a two-chunk artifact */
    T_EQ_INT(mkdir(tfs_path("%s/sub", scratch), 0755), 0);
    static char big[(1 << 20) + 100];
    memset(big, 'x', sizeof big);
    const char *art = tfs_path("%s/sub/f.dat", scratch);
    T_EQ_INT(tfs_write(art, big, sizeof big), 0);
    tfs_hook_on("during_hash", rewrite_in_place, "y", 0);
    char hex[65];
    T_EQ_INT(hash_at_code(scratch, "sub/f.dat", hex, &d), SK_E_CHANGED);
    T_EQ_STR(d.msg, "artifact changed while hashing: sub/f.dat");
    T_EQ_STR(d.file, "sub/f.dat");
    teardown();
}

static void replace_atomically(const char *path, void *arg)
{
    T_EQ_INT(tfs_replace(path, arg), 0);
}

static void replaced_after_read(void)
{
    setup();
    const char *path = tfs_path("%s/in.json", scratch);
    T_EQ_INT(tfs_write_str(path, "{}"), 0);
    sk_diag d;
    tfs_hook_on("after_read", replace_atomically, "{}", 0);
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_CHANGED);
    T_EQ_INT(d.sub, SK_FS_SUB_BINDING_CHANGED);
    T_EQ_STR(d.msg, "config path binding changed while reading");
    tfs_hook_on("after_read", replace_atomically, "{}", 0);
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_LEAF, 0, &d), SK_E_CHANGED);
    T_EQ_STR(d.msg, "config path binding changed while reading");
    tfs_hook_on("after_read", replace_atomically, "{}", 0);
    T_EQ_INT(read_at_code(scratch, "in.json", 0, &d), SK_E_CHANGED);
    T_EQ_STR(d.msg, "artifact path changed while hashing: in.json");
    teardown();
}

static void symlink_swap(const char *path, void *arg)
{
    (void)arg;
    T_EQ_INT(rename(path, tfs_path("%s.moved", path)), 0);
    T_EQ_INT(symlink(tfs_path("%s.moved", path), path), 0);
}

static void symlink_swapped_after_hash(void)
{
    setup();
    T_EQ_INT(tfs_write_str(tfs_path("%s/f.dat", scratch), "data"), 0);
    sk_diag d;
    char hex[65];
    tfs_hook_on("after_read", symlink_swap, NULL, 0);
    T_EQ_INT(hash_at_code(scratch, "f.dat", hex, &d), SK_E_CHANGED);
    T_EQ_STR(d.msg, "artifact path changed while hashing: f.dat");
    teardown();
}

/* Moves directory x away and builds a new x holding the old x/y, so the leaf
 * x/y/f.dat is the same untouched inode reached through a different x. */
static void swap_ancestor(const char *path, void *arg)
{
    (void)path;
    const char *root = arg;
    T_EQ_INT(rename(tfs_path("%s/x", root), tfs_path("%s/x_old", root)), 0);
    T_EQ_INT(mkdir(tfs_path("%s/x", root), 0755), 0);
    T_EQ_INT(rename(tfs_path("%s/x_old/y", root), tfs_path("%s/x/y", root)), 0);
}

static void directory_swapped_during_read(void)
{
    setup();
    T_EQ_INT(mkdir(tfs_path("%s/x", scratch), 0755), 0);
    T_EQ_INT(mkdir(tfs_path("%s/x/y", scratch), 0755), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/x/y/f.dat", scratch), "data"), 0);
    sk_diag d;
    tfs_hook_on("after_read", swap_ancestor, scratch, 0);
    T_EQ_INT(read_at_code(scratch, "x/y/f.dat", 0, &d), SK_E_CHANGED);
    T_EQ_INT(d.sub, SK_FS_SUB_BINDING_CHANGED);
    T_EQ_STR(d.msg, "artifact path changed while hashing: x/y/f.dat");

    /* the same swap under an input outside the root: the reference checks
     * only the leaf and would accept this; the full chain is re-verified */
    tfs_rm_rf(tfs_path("%s/x_old", scratch));
    tfs_hook_on("after_read", swap_ancestor, scratch, 0);
    T_EQ_INT(read_code(tfs_path("%s/x/y/f.dat", scratch), SK_PATH_NOFOLLOW_ALL, 0, &d),
             SK_E_CHANGED);
    T_EQ_STR(d.msg, "config path binding changed while reading");
    /* Under the kernel-resolved policy the binding is "this name resolves
     * to the same parent and leaf", which still holds here. */
    tfs_rm_rf(tfs_path("%s/x_old", scratch));
    tfs_hook_on("after_read", swap_ancestor, scratch, 0);
    T_EQ_INT(read_code(tfs_path("%s/x/y/f.dat", scratch), SK_PATH_NOFOLLOW_LEAF, 0, &d), SK_OK);
    T_CONTAINS(tfs_hook_log(), "after_read");
    teardown();
}

static void symlink_loop(void)
{
    setup();
    T_EQ_INT(symlink("loop2", tfs_path("%s/loop1", scratch)), 0);
    T_EQ_INT(symlink("loop1", tfs_path("%s/loop2", scratch)), 0);
    sk_diag d;
    const char *through = tfs_path("%s/loop1/f.json", scratch);
    T_EQ_INT(read_code(through, SK_PATH_NOFOLLOW_LEAF, 0, &d), SK_E_PATH);
    T_EQ_INT(d.sub, SK_FS_SUB_LOOP);
    T_EQ_STR(d.msg, tfs_path("config path contains a symlink loop: %s/loop1 "
                             "(too many levels of symbolic links)",
                             scratch));
    T_EQ_INT(read_code(through, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_STR(d.msg, tfs_path("config path contains a symlink: %s/loop1", scratch));
    T_EQ_INT(read_code(tfs_path("%s/loop1", scratch), SK_PATH_NOFOLLOW_LEAF, 0, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "config path contains a symlink");
    int fd = -1;
    T_EQ_INT(sk_dir_open(tfs_path("%s/loop1/sub", scratch), SK_PATH_NOFOLLOW_LEAF, "root", &fd, &d),
             SK_E_PATH);
    T_CONTAINS(d.msg, "root path contains a symlink loop");
    teardown();
}

/* Creates depth nested directories named name below base and a file
 * "f.dat" at the bottom; returns the relative path of the file. */
static const char *make_deep(const char *base, const char *name, int depth)
{
    static char rel[65536];
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    T_CHECK(fd >= 0);
    rel[0] = '\0';
    for (int i = 0; i < depth; i++) {
        T_EQ_INT(mkdirat(fd, name, 0755), 0);
        int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        T_CHECK(next >= 0);
        close(fd);
        fd = next;
        strcat(rel, name);
        strcat(rel, "/");
    }
    int f = openat(fd, "f.dat", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    T_CHECK(f >= 0);
    T_EQ_INT(write(f, "deep", 4), 4);
    close(f);
    close(fd);
    strcat(rel, "f.dat");
    return rel;
}

static void deep_directory_300_levels(void)
{
    setup();
    const char *rel = make_deep(scratch, "d", 300);
    char *path = malloc(strlen(scratch) + strlen(rel) + 2);
    sprintf(path, "%s/%s", scratch, rel);
    sk_diag d;
    char *data = NULL;
    size_t len = 0;
    T_EQ_INT(sk_read_file(path, SK_PATH_NOFOLLOW_ALL, "config", 0, &data, &len, NULL, NULL, &d),
             SK_OK);
    T_EQ_STR(data, "deep");
    sk_free(data);
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_LEAF, 0, &d), SK_OK);
    char *relcopy = strdup(rel);
    T_EQ_INT(read_at_code(scratch, relcopy, 0, &d), SK_OK);
    char hex[65], want[65];
    T_EQ_INT(hash_at_code(scratch, relcopy, hex, &d), SK_OK);
    T_EQ_INT(sk_sha256_hex("deep", 4, want), SK_OK);
    T_EQ_STR(hex, want);
    free(relcopy);
    free(path);

    /* 300 levels of 30-byte names: about 9300 bytes, beyond PATH_MAX.  The
     * no-follow walk opens one component at a time and still works; the
     * kernel-resolved policy gets a clean "too long" error. */
    const char *longname = "abcdefghijklmnopqrstuvwxyz0123";
    T_EQ_INT(mkdir(tfs_path("%s/long", scratch), 0755), 0);
    rel = make_deep(tfs_path("%s/long", scratch), longname, 300);
    path = malloc(strlen(scratch) + strlen(rel) + 8);
    sprintf(path, "%s/long/%s", scratch, rel);
    T_CHECK(strlen(path) > 4096);
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_ALL, 0, &d), SK_OK);
    T_EQ_INT(read_code(path, SK_PATH_NOFOLLOW_LEAF, 0, &d), SK_E_PATH);
    T_EQ_INT(d.sub, SK_FS_SUB_TOO_LONG);
    T_CONTAINS(d.msg, "config path is too long: ");
    T_CONTAINS(d.msg, "(file name too long)");
    char *abs = sk_path_abspath(path);
    T_CHECK(abs && strcmp(abs, path) == 0);
    sk_free(abs);
    free(path);
    /* tear the long tree down through relative paths (rm -rf in C via nftw
     * cannot go beyond PATH_MAX) */
    char old[4096];
    T_CHECK(getcwd(old, sizeof old) != NULL);
    T_EQ_INT(chdir(tfs_path("%s/long", scratch)), 0);
    for (int i = 0; i < 300; i++)
        T_EQ_INT(chdir(longname), 0);
    T_EQ_INT(unlink("f.dat"), 0);
    for (int i = 0; i < 300; i++) {
        T_EQ_INT(chdir(".."), 0);
        T_EQ_INT(rmdir(longname), 0);
    }
    T_EQ_INT(chdir(old), 0);
    teardown();
}

static void component_name_too_long(void)
{
    setup();
    char name[300];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    sk_diag d;
    T_EQ_INT(read_code(tfs_path("%s/%s/f", scratch, name), SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_INT(d.sub, SK_FS_SUB_TOO_LONG);
    T_CONTAINS(d.msg, "config path is too long: ");
    T_EQ_INT(read_code(tfs_path("%s/%s", scratch, name), SK_PATH_NOFOLLOW_ALL, 0, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "config does not exist or cannot be opened: file name too long");
    teardown();
}

static void dir_open_policies(void)
{
    setup();
    T_EQ_INT(mkdir(tfs_path("%s/real", scratch), 0755), 0);
    T_EQ_INT(mkdir(tfs_path("%s/real/root", scratch), 0755), 0);
    T_EQ_INT(symlink("real", tfs_path("%s/link", scratch)), 0);
    T_EQ_INT(symlink("real/root", tfs_path("%s/rootlink", scratch)), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/file", scratch), "x"), 0);
    sk_diag d;
    int fd = -1;
    T_EQ_INT(sk_dir_open(tfs_path("%s/real/root", scratch), SK_PATH_NOFOLLOW_ALL, "capture root",
                         &fd, &d),
             SK_OK);
    struct stat a, b;
    T_EQ_INT(fstat(fd, &a), 0);
    T_EQ_INT(stat(tfs_path("%s/real/root", scratch), &b), 0);
    T_EQ_U64(a.st_ino, b.st_ino);
    close(fd);
    T_EQ_INT(sk_dir_open(tfs_path("%s/link/root", scratch), SK_PATH_NOFOLLOW_ALL, "capture root",
                         &fd, &d),
             SK_E_PATH);
    T_EQ_STR(d.msg, tfs_path("capture root path contains a symlink: %s/link", scratch));
    T_EQ_INT(sk_dir_open(tfs_path("%s/link/root/", scratch), SK_PATH_NOFOLLOW_LEAF, "capture root",
                         &fd, &d),
             SK_OK);
    close(fd);
    T_EQ_INT(sk_dir_open(tfs_path("%s/rootlink", scratch), SK_PATH_NOFOLLOW_LEAF, "capture root",
                         &fd, &d),
             SK_E_PATH);
    T_CONTAINS(d.msg, "capture root path contains a symlink");
    T_EQ_INT(
        sk_dir_open(tfs_path("%s/file", scratch), SK_PATH_NOFOLLOW_ALL, "capture root", &fd, &d),
        SK_E_PATH);
    T_EQ_STR(d.msg, "capture root must be a directory (found a regular file)");
    T_EQ_INT(
        sk_dir_open(tfs_path("%s/none", scratch), SK_PATH_NOFOLLOW_ALL, "capture root", &fd, &d),
        SK_E_PATH);
    T_EQ_STR(d.msg, "capture root does not exist or cannot be opened: no such file or directory");
    T_EQ_INT(sk_dir_open("/", SK_PATH_NOFOLLOW_ALL, "capture root", &fd, &d), SK_OK);
    T_EQ_INT(fstat(fd, &a), 0);
    T_EQ_INT(stat("/", &b), 0);
    T_EQ_U64(a.st_ino, b.st_ino);
    close(fd);
    T_EQ_INT(sk_dir_open("", SK_PATH_NOFOLLOW_ALL, "capture root", &fd, &d), SK_E_PATH);
    T_EQ_INT(fd, -1);
    teardown();
}

static void mkdir_p_creates_and_refuses(void)
{
    setup();
    sk_diag d;
    T_EQ_INT(sk_mkdir_p(tfs_path("%s/a/b/c", scratch), 0755, &d), SK_OK);
    struct stat st;
    T_EQ_INT(stat(tfs_path("%s/a/b/c", scratch), &st), 0);
    T_CHECK(S_ISDIR(st.st_mode));
    T_EQ_INT(sk_mkdir_p(tfs_path("%s/a/b/c/", scratch), 0755, &d), SK_OK);
    T_EQ_INT(tfs_write_str(tfs_path("%s/a/file", scratch), "x"), 0);
    T_EQ_INT(sk_mkdir_p(tfs_path("%s/a/file/sub", scratch), 0755, &d), SK_E_PATH);
    T_EQ_STR(d.msg, tfs_path("path contains a non-directory component: %s/a/file", scratch));
    T_EQ_INT(sk_mkdir_p("", 0755, &d), SK_E_PATH);
    /* symlinked ancestors are followed, as mkdir -p does */
    T_EQ_INT(symlink("a", tfs_path("%s/l", scratch)), 0);
    T_EQ_INT(sk_mkdir_p(tfs_path("%s/l/b/new", scratch), 0755, &d), SK_OK);
    T_EQ_INT(stat(tfs_path("%s/a/b/new", scratch), &st), 0);
    teardown();
}

/* In a child: use up every descriptor but `spare`, then read.  Exit 0 when
 * the message is as expected, 1 otherwise, 3 when the limit cannot be set. */
static int emfile_child(const char *rel, int spare, const char *want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 3;
    rl.rlim_cur = 64;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 3;
    int held[64], n = 0;
    for (int fd; n < 64 && (fd = dup(0)) >= 0;)
        held[n++] = fd;
    for (int i = 0; i < spare && n > 0; i++)
        close(held[--n]);
    sk_diag d;
    sk_err e = read_code(rel, SK_PATH_NOFOLLOW_ALL, 0, &d);
    if (e != SK_E_IO || d.sub != SK_FS_SUB_NO_FDS || strcmp(d.msg, want) != 0) {
        printf("# child got %s sub %d: %s\n", sk_err_name(e), d.sub, d.msg);
        return 1;
    }
    return 0;
}

static void too_many_open_files(void)
{
    setup();
    char old[4096];
    T_CHECK(getcwd(old, sizeof old) != NULL);
    T_EQ_INT(mkdir(tfs_path("%s/a", scratch), 0755), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/a/f", scratch), "x"), 0);
    T_EQ_INT(tfs_write_str(tfs_path("%s/f", scratch), "x"), 0);
    T_EQ_INT(chdir(scratch), 0);
    static const struct {
        const char *rel;
        int spare;
        const char *want;
    } cases_[] = {
        /* the walk holds the start directory and its duplicate; the third
         * descriptor is either the next directory or the leaf */
        {"a/f", 2,
         "config path component cannot be opened: a (too many open files in this "
         "process)"},
        {"f", 2, "config does not exist or cannot be opened: too many open files in this process"},
        {"f", 1, "config cannot be opened: too many open files in this process"},
    };
    for (size_t i = 0; i < sizeof cases_ / sizeof cases_[0]; i++) {
        fflush(stdout);
        pid_t pid = fork();
        T_CHECK(pid >= 0);
        if (pid == 0) {
            int rc = emfile_child(cases_[i].rel, cases_[i].spare, cases_[i].want);
            fflush(stdout);
            _exit(rc);
        }
        int status = 0;
        T_EQ_INT(waitpid(pid, &status, 0), pid);
        T_CHECK(WIFEXITED(status));
        if (WEXITSTATUS(status) == 3)
            printf("# skipped: RLIMIT_NOFILE cannot be lowered here\n");
        else
            T_EQ_INT(WEXITSTATUS(status), 0);
    }
    T_EQ_INT(chdir(old), 0);
    teardown();
}

static void hash_five_megabytes(void)
{
    setup();
    size_t n = 5 * 1000 * 1000 + 7; /* not a multiple of the 1 MiB chunk */
    unsigned char *buf = malloc(n);
    T_CHECK(buf != NULL);
    uint32_t x = 2463534242u; /* xorshift32: deterministic, incompressible */
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (unsigned char)x;
    }
    T_EQ_INT(mkdir(tfs_path("%s/prof", scratch), 0755), 0);
    T_EQ_INT(tfs_write(tfs_path("%s/prof/trace_view.json", scratch), buf, n), 0);
    char want[65], got[65];
    T_EQ_INT(sk_sha256_hex(buf, n, want), SK_OK);
    sk_diag d;
    int fd = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    sk_stat st;
    T_EQ_INT(sk_hash_file_at(fd, "prof/trace_view.json", "artifact", got, &st, &d), SK_OK);
    T_EQ_STR(got, want);
    T_EQ_U64(st.size, n);
    /* the in-memory readers agree */
    char *data = NULL;
    size_t len = 0;
    char hex2[65];
    T_EQ_INT(
        sk_read_file_at(fd, "prof/trace_view.json", "artifact", 0, &data, &len, NULL, hex2, &d),
        SK_OK);
    T_EQ_INT(len, n);
    T_CHECK(memcmp(data, buf, n) == 0);
    T_EQ_STR(hex2, want);
    sk_free(data);
    close(fd);
    free(buf);
    teardown();
}

static const t_case cases[] = {
    T(read_regular_file),
    T(read_relative_path_gives_absolute_evidence),
    T(symlink_in_ancestor),
    T(symlink_leaf),
    T(missing_component_and_leaf),
    T(non_directory_component),
    T(fifo_returns_promptly),
    T(directory_or_empty_path_is_not_a_file),
    T(permission_denied),
    T(byte_limit_before_reading),
    T(byte_limit_while_reading),
    T(rewritten_during_read),
    T(replaced_after_read),
    T(symlink_swapped_after_hash),
    T(directory_swapped_during_read),
    T(symlink_loop),
    T(deep_directory_300_levels),
    T(component_name_too_long),
    T(dir_open_policies),
    T(mkdir_p_creates_and_refuses),
    T(hash_five_megabytes),
    T(too_many_open_files),
    {NULL, NULL},
};
T_MAIN(cases)
