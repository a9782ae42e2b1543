/* Safe file access: no-follow path walks, stable reads that detect change,
 * and atomic publication that never overwrites.
 *
 * Every open of an input uses O_NOFOLLOW|O_CLOEXEC|O_NONBLOCK (so a FIFO or
 * device never blocks) and checks the type with fstat before reading;
 * O_NONBLOCK is then cleared for regular files.  No function here prints or
 * exits.  docs/filesystem.md describes the policies, the messages and the
 * publication algorithms.
 *
 * Diagnostics: d->file is the path concerned (the lexical absolute path for
 * sk_rfile_open, the relative path for the *_at functions, the output path
 * for publication), d->msg starts with the caller's label where there is one
 * ("config must be a regular file"), and d->sub holds an sk_fs_sub value so
 * that a caller can reword a message without parsing it.
 */
#ifndef SK_FS_H
#define SK_FS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"
#include "artifact_contract/base/sk_subcode.h"

/* Stable values of sk_diag.sub for errors of this module (append only).
 * X(name, value, meaning); values in the SK_FS range of sk_subcode.h. */
#define SK_FS_SUB_TABLE(X)                                                                        \
    X(SK_FS_SUB_SYMLINK, 1, "a path contains a symlink")                                          \
    X(SK_FS_SUB_MISSING_COMPONENT, 2, "a path contains a missing or non-directory component")     \
    X(SK_FS_SUB_NOT_DIRECTORY, 3, "a path component or the path is not a directory")             \
    X(SK_FS_SUB_CANNOT_OPEN, 4, "a file does not exist or cannot be opened")                      \
    X(SK_FS_SUB_NOT_REGULAR, 5, "a file is not a regular file")                                   \
    X(SK_FS_SUB_TOO_LARGE, 6, "a file exceeds its byte limit")                                    \
    X(SK_FS_SUB_CONTENT_CHANGED, 7, "a file changed while it was read or hashed")                 \
    X(SK_FS_SUB_BINDING_CHANGED, 8, "a path was bound to another file while it was read")         \
    X(SK_FS_SUB_EXISTS, 9, "the output already exists")                                           \
    X(SK_FS_SUB_ACCESS, 10, "a path contains an inaccessible directory")                          \
    X(SK_FS_SUB_LOOP, 11, "a path contains a symlink loop")                                       \
    X(SK_FS_SUB_NO_FDS, 12, "too many open files")                                                \
    X(SK_FS_SUB_TOO_LONG, 13, "a path is too long")                                               \
    X(SK_FS_SUB_BAD_PATH, 14, "empty path, trailing '/' or non-canonical relative path")          \
    X(SK_FS_SUB_SYSCALL, 15, "another system call failed (read, write, fsync, ...)")
typedef enum sk_fs_sub { SK_FS_SUB_NONE = 0, SK_FS_SUB_TABLE(SK_SUB_ENUM) } sk_fs_sub;
#define SK_FS_SUB_CHECK(name, value, meaning) SK_SUB_IN_RANGE(SK_FS, name, value)
SK_FS_SUB_TABLE(SK_FS_SUB_CHECK)

typedef struct sk_stat {
    uint64_t dev;
    uint64_t ino;
    uint32_t mode; /* st_mode including the type bits */
    uint64_t nlink;
    uint64_t size;
    int64_t ctime_ns; /* st_ctim in ns since the epoch */
    int64_t mtime_ns; /* st_mtim in ns since the epoch */
} sk_stat;

void sk_stat_from(sk_stat *out, const struct stat *st);
/* (dev, ino, size, ctime_ns, mtime_ns) equal: the reference descriptor
 * "signature" used for root-relative reads. */
int sk_stat_same_content(const sk_stat *a, const sk_stat *b);
/* (dev, ino, mode, size, ctime_ns, mtime_ns) equal: the reference "binding
 * signature" used for inputs outside the root. */
int sk_stat_same_binding(const sk_stat *a, const sk_stat *b);
int sk_stat_same_inode(const sk_stat *a, const sk_stat *b);

typedef enum sk_path_policy {
    /* The reference input rule: every component, from "/" for absolute paths
     * or "." for relative ones, is opened with O_NOFOLLOW, so a symlink
     * anywhere in the path is refused ("path contains a symlink"). */
    SK_PATH_NOFOLLOW_ALL = 0,
    /* Ancestors are resolved by the kernel (symlinks allowed there); only
     * the final component must not be a symlink.  For ordinary tool inputs. */
    SK_PATH_NOFOLLOW_LEAF = 1
} sk_path_policy;

/* An open regular input file with its identity at open time. */
typedef struct sk_rfile sk_rfile;

/* Opens path under the policy; label names the input in messages
 * ("<label> path contains a symlink", "<label> must be a regular file",
 * "<label> does not exist or cannot be opened: <why>", ...).  The identity
 * of every directory on the way is remembered so that sk_rfile_finish can
 * re-verify the whole chain, not only the leaf. */
sk_err sk_rfile_open(const char *path, sk_path_policy policy, const char *label, sk_rfile **out,
                     sk_diag *d);
/* Opens relpath below the directory dirfd, walking every component with
 * O_NOFOLLOW and remembering each directory's (dev, ino) so that
 * sk_rfile_finish can re-walk and detect a swapped path.  relpath must be
 * relative, without "." or ".." components or empty segments (SK_E_PATH
 * otherwise).  Messages follow the reference's root-relative reader
 * ("... changed while hashing: <relpath>"). */
sk_err sk_rfile_openat(int dirfd, const char *relpath, const char *label, sk_rfile **out,
                       sk_diag *d);
/* sk_read_fn-compatible: reads the next bytes (retrying EINTR); *got == 0
 * means end of file.  A read may return fewer bytes than asked. */
sk_err sk_rfile_read(void *rfile, void *buf, size_t cap, size_t *got, sk_diag *d);
/* After the last read: fstat again and re-check the binding of the path.
 * For sk_rfile_open: every directory of the walk must still have its
 * (dev, ino), else "<label> path binding changed while reading"; the leaf
 * lstat must equal the after-fstat in (dev, ino, mode, size, ctime, mtime),
 * same message; and the before/after fstat must agree in those fields, else
 * SK_E_CHANGED "<label> changed while reading".
 * For sk_rfile_openat: every directory and the leaf (regular, same dev/ino)
 * are re-walked from dirfd, else "<label> path changed while hashing:
 * <relpath>"; before/after must agree in (dev, ino, size, ctime, mtime), else
 * "<label> changed while hashing: <relpath>".
 * In both cases, when the reader reached end of file, the number of bytes
 * read must equal the size.  Fills *after (may be NULL). */
sk_err sk_rfile_finish(sk_rfile *f, sk_stat *after, sk_diag *d);
const sk_stat *sk_rfile_stat(const sk_rfile *f); /* stat at open time */
int sk_rfile_fd(const sk_rfile *f);
/* Lexical absolute path (for sk_rfile_open) or the relpath (for openat). */
const char *sk_rfile_path(const sk_rfile *f);
void sk_rfile_free(sk_rfile *f);

/* Reads a whole file stably (open, read, finish) into a NUL-terminated
 * buffer the caller frees with sk_free.  max_bytes 0 = no limit; a larger
 * file fails before reading with SK_E_LIMIT "<label> exceeds byte limit ...",
 * and so does a file that grows past the limit while it is read.
 * Optional outputs (may be NULL): *st (after-stat), sha256_hex (65 bytes). */
sk_err sk_read_file(const char *path, sk_path_policy policy, const char *label, size_t max_bytes,
                    char **data, size_t *len, sk_stat *st, char *sha256_hex, sk_diag *d);
sk_err sk_read_file_at(int dirfd, const char *relpath, const char *label, size_t max_bytes,
                       char **data, size_t *len, sk_stat *st, char *sha256_hex, sk_diag *d);

/* Streams a file below dirfd through SHA-256 (1 MiB reads, posix_fadvise
 * SEQUENTIAL, constant memory) with the same no-follow walk and change
 * detection as sk_rfile_openat. */
sk_err sk_hash_file_at(int dirfd, const char *relpath, const char *label, char sha256_hex[65],
                       sk_stat *st, sk_diag *d);

/* Opens a directory (O_DIRECTORY|O_NOFOLLOW on the last component; the
 * ancestors follow policy).  Returns the fd in *fd (O_CLOEXEC). */
sk_err sk_dir_open(const char *path, sk_path_policy policy, const char *label, int *fd, sk_diag *d);

/* Python os.path.abspath: getcwd() + path with "//", "." and ".." collapsed
 * lexically (no symlink resolution; unlike Python, a leading "//" becomes
 * "/").  Returns NULL when out of memory (errno ENOMEM) or when the cwd
 * cannot be read (errno from getcwd).  Caller frees with sk_free. */
char *sk_path_abspath(const char *path);
/* realpath(3) of the parent directory, non-strict (components that do not
 * exist are kept lexically), + the final name appended verbatim (the
 * reference publication path rule).  A symlink loop (more than 40 links)
 * or a path whose last component is empty, "." or ".." fails with
 * SK_E_PATH in d.  Returns NULL on error.  Caller frees with sk_free. */
char *sk_path_publication(const char *path, sk_diag *d);
/* 1 when child equals parent or lies below it (string prefix on "/" boundary). */
int sk_path_is_within(const char *child, const char *parent);

/* Publishes data at path atomically and without overwriting: a temporary
 * file in the same directory (O_TMPFILE + linkat when available, otherwise a
 * ".<name>.<random>.tmp" created O_EXCL) is written, fsynced and linked to
 * the name (renameat2 RENAME_NOREPLACE when the filesystem has no hard
 * links); an existing name fails with SK_E_EXISTS "output already exists:
 * <path>".  The directory is fsynced (EINVAL/EROFS/ENOTSUP ignored) and no
 * temporary file is left behind on any path.  mode is applied exactly with
 * fchmod (0600 for contract evidence).  The parent directory must exist; it
 * is opened following symlinks (pass an sk_path_publication result). */
sk_err sk_publish(const char *path, const void *data, size_t len, unsigned mode, sk_diag *d);
/* The same below dirfd; name is one path component (no "/"). */
sk_err sk_publish_at(int dirfd, const char *name, const void *data, size_t len, unsigned mode,
                     sk_diag *d);

/* A set of output files that appears all at once or not at all.
 * sk_outdir_begin creates a hidden temporary directory next to path (and
 * fails early with SK_E_EXISTS when path exists and is not an empty
 * directory); sk_outdir_add writes one file into it (name is one component,
 * mode exact); sk_outdir_commit applies dir_mode, fsyncs and renames it to
 * path with RENAME_NOREPLACE (if path exists as an empty directory it is
 * removed with rmdir, which refuses non-empty directories atomically, and the
 * rename is retried; anything else fails with SK_E_EXISTS).  A name that is
 * not one component, or is added twice, is refused with SK_E_ARG and leaves
 * the set usable; any other failure of add or commit, and sk_outdir_free
 * without commit, removes the temporary directory and the files written
 * into it (add and commit then fail with SK_E_ARG). */
typedef struct sk_outdir sk_outdir;
sk_err sk_outdir_begin(const char *path, unsigned dir_mode, sk_outdir **out, sk_diag *d);
sk_err sk_outdir_add(sk_outdir *o, const char *name, const void *data, size_t len, unsigned mode,
                     sk_diag *d);
sk_err sk_outdir_commit(sk_outdir *o, sk_diag *d);
void sk_outdir_free(sk_outdir *o);

/* Interruption and stale staging (docs/filesystem.md).
 *
 * While a publication is under way its staging entry (the named temporary
 * file of sk_publish, the temporary directory of an output set and the files
 * in it) is listed in this process.  sk_fs_staging_abort removes every listed
 * entry with unlinkat alone and is async-signal-safe: a program's handler for
 * SIGINT, SIGTERM and SIGHUP calls it and then dies by the signal.  This
 * module installs no handler itself.
 *
 * A process that knows its identity (sk_fs_staging_set_identity) stamps
 * staging names as ".<name>.<tag>-<pid>-<start>-<8 hex>.tmp".  Before each
 * publication the output's directory is swept: a stamped entry with this
 * process's tag whose creator is gone (gone(pid, start) returns 1) is
 * removed, and the reporter, when set, is told about each one.  Entries of
 * another tag (another machine, boot or PID namespace), of a live, stopped
 * or undeterminable creator, and every other name are left alone. */
typedef struct sk_fs_identity {
    char tag[9];    /* 8 lowercase hex digits naming the boot and PID namespace */
    int64_t pid;    /* this process */
    uint64_t start; /* its start time (clock ticks since boot) */
    /* 1 when the process (pid, start) certainly no longer exists */
    int (*gone)(int64_t pid, uint64_t start);
} sk_fs_identity;
/* NULL (the default) turns stamping and sweeping off. */
void sk_fs_staging_set_identity(const sk_fs_identity *id);
/* dir names the directory as the publication shows it, name the removed entry. */
typedef void (*sk_fs_stale_report)(void *ctx, const char *dir, const char *name);
void sk_fs_staging_set_reporter(sk_fs_stale_report fn, void *ctx);
/* Async-signal-safe; afterwards no entry is listed. */
void sk_fs_staging_abort(void);

/* mkdir -p: ancestors are resolved by the kernel (symlinks followed, like
 * mkdir -p); created directories get mode filtered by the umask, as
 * mkdir(2) does.  An existing directory is fine; anything else on the way
 * fails with SK_E_PATH. */
sk_err sk_mkdir_p(const char *path, unsigned mode, sk_diag *d);

/* Test builds only (SK_TEST_HOOKS): pretend the filesystem lacks a feature
 * so that every publication route can be exercised.  The set is also read
 * from the environment variable SK_TEST_FS_DISABLE (comma-separated:
 * tmpfile, link, noreplace, emptypath).  Release builds ignore both. */
enum {
    SK_FS_TEST_NO_TMPFILE = 1,   /* O_TMPFILE fails with EOPNOTSUPP */
    SK_FS_TEST_NO_LINK = 2,      /* link/linkat fail with EPERM */
    SK_FS_TEST_NO_NOREPLACE = 4, /* renameat2 RENAME_NOREPLACE fails with EINVAL */
    SK_FS_TEST_NO_EMPTY_PATH = 8 /* linkat AT_EMPTY_PATH fails with ENOENT, as it
                                    does without CAP_DAC_READ_SEARCH */
};
#ifdef SK_TEST_HOOKS
void sk_fs_test_disable(unsigned features);
#endif

#endif
