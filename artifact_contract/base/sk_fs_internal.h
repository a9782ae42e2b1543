/* Helpers shared by the sk_fs*.c files; not part of the public interface. */
#ifndef SK_FS_INTERNAL_H
#define SK_FS_INTERNAL_H

#include <signal.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_fs.h"

/* Input chunk sizes of the reference tool's reader (docs/filesystem.md
 * "Whole-file readers and hashing"):
 * artifacts are hashed in 1 MiB reads, JSON inputs read in 64 KiB chunks. */
#define SK_FS_HASH_CHUNK ((size_t)1 << 20)
#define SK_FS_READ_CHUNK ((size_t)64 << 10)
#define SK_FS_MIB ((uint64_t)1 << 20)
/* Attempts at a fresh random temporary name before giving up (the
 * reference marker writer also tries 100 names). */
#define SK_FS_TEMP_ATTEMPTS 100
/* Symbolic links followed while resolving one path: Linux MAXSYMLINKS. */
#define SK_FS_MAX_SYMLINKS 40
/* Longest path prefix quoted in a message; longer ones show their tail
 * after "..." so that the reason still fits in SK_DIAG_MSG_MAX. */
#define SK_FS_SHOWN_PATH_MAX 256
/* Bytes of the target name kept in a temporary name so that
 * ".<name>.<16 hex>.tmp", and the stamped form with a pid of up to 7 digits
 * and a 20-digit start time, stay within NAME_MAX (255). */
#define SK_FS_TEMP_NAME_KEEP 200

/* One directory identity remembered by a walk. */
typedef struct sk_fs_ident {
    uint64_t dev;
    uint64_t ino;
} sk_fs_ident;

/* Records code, sub-code, file and message in d; evaluates to code.  A macro
 * for the reason given at sk_diag_set (sk_diag.h). */
#define sk_fs_fail(d, code, sub, file, ...)                              \
    __extension__({                                                   \
        sk_err sk_fs_fail_code_ = (code);                                \
        sk_fs_fail_impl((d), sk_fs_fail_code_, (sub), (file), __VA_ARGS__); \
        sk_fs_fail_code_;                                                \
    })
/* The out-of-line part of sk_fs_fail; call sk_fs_fail instead. */
void sk_fs_fail_impl(sk_diag *d, sk_err code, sk_fs_sub sub, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Fixed English text for an errno value (locale independent). */
const char *sk_fs_errno_text(int err);
/* "a directory", "a named pipe (FIFO)", ... for a file type in st_mode. */
const char *sk_fs_type_text(mode_t mode);

int sk_fs_openat(int dirfd, const char *name, int flags, mode_t mode); /* retries EINTR */
int sk_fs_close(int fd); /* ignores fd < 0; keeps errno */
/* Writes all bytes (retrying EINTR and short writes); 0 or an errno. */
int sk_fs_write_all(int fd, const void *data, size_t len);
/* fsync of a directory; EINVAL, EROFS and ENOTSUP count as success. */
int sk_fs_fsync_dir(int fd);
/* 16 lowercase hex digits from getrandom(2); 0 or an errno. */
int sk_fs_random_hex(char out[17]);
/* A fresh staging name for name into out (NAME_MAX + 1 bytes): once the
 * process has an identity (sk_fs_staging_set_identity)
 * ".<name>.<tag>-<pid>-<start>-<8 hex>.tmp", otherwise ".<name>.<16 hex>.tmp".
 * 0 or an errno. */
int sk_fs_temp_name(const char *name, char *out, size_t n);
/* 1 when ent is a stamped staging name; fills tag (8 hex + NUL), pid, start. */
int sk_fs_parse_stamped(const char *ent, char tag[9], int64_t *pid, uint64_t *start);
/* Calls fn(ctx, fd, name) for each entry of the directory fd except "." and
 * ".." (getdents64 into a stack buffer: no allocation), from fd's current
 * offset, until fn returns nonzero.  Returns that value, 0 at the end of the
 * listing, or -1 with errno when listing fails. */
int sk_fs_each_entry(int fd, int (*fn)(void *ctx, int fd, const char *name), void *ctx);
/* 1 when name is one usable path component: not empty, ".", ".." and no "/". */
int sk_fs_is_plain_name(const char *name);
/* Counts the non-empty "/"-separated components of path[0..len). */
size_t sk_fs_count_components(const char *path, size_t len);
/* The byte limit as the reference prints it: "N MiB (B bytes)", "B bytes", "1 byte". */
void sk_fs_byte_limit_text(uint64_t limit, char *out, size_t n);

/* Fires a test hook with a path a shell command can use: path itself when
 * dirfd is AT_FDCWD or path is absolute, otherwise the directory of dirfd
 * (from /proc/self/fd) joined with path.  Nothing in release builds. */
void sk_fs_hook(const char *point, int dirfd, const char *path);

/* Directory walk for inputs.  path[0..dir_len) is the directory part of the
 * path (label names it in messages, file is the diag file).  With follow = 0
 * every non-empty component is opened with O_DIRECTORY|O_NOFOLLOW relative to
 * its parent ("." and ".." literally); with follow = 1 the whole directory
 * part is opened in one openat and the kernel resolves symlinks.  Each
 * opened directory's identity goes to idents (room for
 * sk_fs_walk_ident_count()).  With expect != NULL the walk re-verifies a
 * previous one: any failure or identity difference returns SK_E_CHANGED and
 * leaves d untouched.  *out_fd receives the innermost directory (a dup of
 * start_fd when the directory part is empty). */
typedef struct sk_fs_walk {
    int start_fd;     /* borrowed */
    const char *path; /* borrowed */
    size_t dir_len;
    int follow;
    const char *label; /* borrowed */
    const char *file;  /* borrowed */
} sk_fs_walk;

size_t sk_fs_walk_ident_count(const sk_fs_walk *w);
sk_err sk_fs_walk_dirs(const sk_fs_walk *w, sk_fs_ident *idents, const sk_fs_ident *expect, int *out_fd,
                    sk_diag *d);

/* Opens leaf (one component) in parent_fd for reading without following a
 * symlink or blocking on a special file: lstat pre-check, the "before_open"
 * hook, open O_RDONLY|O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC|O_NOCTTY, fstat,
 * regular-file check, then O_NONBLOCK cleared.  hook_dirfd/hook_path name the
 * file for sk_fs_hook. */
sk_err sk_fs_open_leaf(int parent_fd, const char *leaf, const char *label, const char *file,
                    int hook_dirfd, const char *hook_path, int *out_fd, struct stat *st,
                    sk_diag *d);

/* Publication pieces shared by sk_fs_publish.c and sk_fs_outdir.c.
 * display names the output in messages. */
sk_err sk_fs_exists_error(const char *display, sk_diag *d); /* "output already exists: <display>" */
sk_err sk_fs_output_error(const char *display, const char *what, int err, sk_diag *d);
/* Writes data, applies mode exactly with fchmod and fsyncs. */
sk_err sk_fs_fill_output(int fd, const void *data, size_t len, unsigned mode, const char *display,
                      sk_diag *d);
/* renameat2(RENAME_NOREPLACE) within one directory; -1 with errno. */
int sk_fs_rename_noreplace(int dirfd, const char *from, const char *to);
/* Opens the directory part of path (following symlinks) into *dirfd and
 * points *name at the last component, which must be a plain name. */
sk_err sk_fs_open_output_parent(const char *path, int *dirfd, const char **name, sk_diag *d);

/* One live staging entry: a file, or a directory whose files are
 * (*files)[0 .. *nfiles) (pointers into the owner, so that the list always
 * shows what exists).  Add, remove and every change of those files happen
 * between sk_fs_stage_hold and sk_fs_stage_release, which block every signal
 * in the calling thread, so sk_fs_staging_abort sees consistent data. */
typedef struct sk_fs_stage {
    struct sk_fs_stage *next;
    int dirfd; /* the directory holding name; open while listed */
    char name[NAME_MAX + 1];
    char ***files; /* NULL for a file */
    size_t *nfiles;
} sk_fs_stage;
void sk_fs_stage_hold(sigset_t *old);
void sk_fs_stage_release(const sigset_t *old);
void sk_fs_stage_add(sk_fs_stage *s);    /* while held */
void sk_fs_stage_remove(sk_fs_stage *s); /* while held */
/* Removes the stale staging entries in dirfd (see sk_fs_staging_set_identity)
 * and reports each with the directory's path from /proc/self/fd. */
void sk_fs_sweep_stale(int dirfd);

#ifdef SK_TEST_HOOKS
unsigned sk_fs_test_disabled(void); /* SK_FS_TEST_* bits */
#else
static inline unsigned sk_fs_test_disabled(void)
{
    return 0;
}
#endif

#endif
