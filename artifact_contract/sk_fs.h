/* Safe file access: no-follow path walks, stable reads that detect change,
 * and atomic publication that never overwrites.
 *
 * Every open uses O_NOFOLLOW|O_CLOEXEC|O_NONBLOCK (so a FIFO or device never
 * blocks) and checks the type with fstat before reading; O_NONBLOCK is then
 * cleared for regular files.  No function here prints or exits.
 */
#ifndef SK_FS_H
#define SK_FS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sk_diag.h"
#include "sk_io.h"

typedef struct sk_stat {
    uint64_t dev;
    uint64_t ino;
    uint32_t mode;     /* st_mode including the type bits */
    uint64_t nlink;
    uint64_t size;
    int64_t ctime_ns;  /* st_ctim in ns since the epoch */
    int64_t mtime_ns;  /* st_mtim in ns since the epoch */
} sk_stat;

void sk_stat_from(sk_stat *out, const struct stat *st);
/* (dev, ino, size, ctime_ns, mtime_ns) equal: the reference "signature". */
int sk_stat_same_content(const sk_stat *a, const sk_stat *b);
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
 * "<label> does not exist or cannot be opened", ...). */
sk_err sk_rfile_open(const char *path, sk_path_policy policy, const char *label,
                     sk_rfile **out, sk_diag *d);
/* Opens relpath below the directory dirfd, walking every component with
 * O_NOFOLLOW and remembering each directory's (dev, ino) so that
 * sk_rfile_finish can re-walk and detect a swapped path.  relpath must be
 * relative, without "." or ".." components or empty segments. */
sk_err sk_rfile_openat(int dirfd, const char *relpath, const char *label, sk_rfile **out,
                       sk_diag *d);
/* sk_read_fn-compatible: reads the next bytes (retrying EINTR). */
sk_err sk_rfile_read(void *rfile, void *buf, size_t cap, size_t *got, sk_diag *d);
/* After the last read: fstat again and re-check the binding of the path
 * (leaf lstat; for openat also every directory).  Fails with SK_E_CHANGED
 * "<label> changed while reading" when (dev, ino, size, ctime, mtime)
 * differ from the open-time stat, or "<label> path binding changed while
 * reading" when the name now refers to something else.  Fills *after. */
sk_err sk_rfile_finish(sk_rfile *f, sk_stat *after, sk_diag *d);
const sk_stat *sk_rfile_stat(const sk_rfile *f); /* stat at open time */
int sk_rfile_fd(const sk_rfile *f);
/* Lexical absolute path (for sk_rfile_open) or the relpath (for openat). */
const char *sk_rfile_path(const sk_rfile *f);
void sk_rfile_free(sk_rfile *f);

/* Reads a whole file stably (open, read, finish) into a NUL-terminated
 * buffer the caller frees with sk_free.  max_bytes 0 = no limit; a larger
 * file fails before reading with SK_E_LIMIT "<label> exceeds byte limit ...".
 * Optional outputs (may be NULL): *st (after-stat), sha256_hex (65 bytes). */
sk_err sk_read_file(const char *path, sk_path_policy policy, const char *label, size_t max_bytes,
                    char **data, size_t *len, sk_stat *st, char *sha256_hex, sk_diag *d);
sk_err sk_read_file_at(int dirfd, const char *relpath, const char *label, size_t max_bytes,
                       char **data, size_t *len, sk_stat *st, char *sha256_hex, sk_diag *d);

/* Streams a file below dirfd through SHA-256 (1 MiB reads, posix_fadvise
 * SEQUENTIAL) with the same no-follow walk and change detection. */
sk_err sk_hash_file_at(int dirfd, const char *relpath, const char *label, char sha256_hex[65],
                       sk_stat *st, sk_diag *d);

/* Opens a directory (O_DIRECTORY|O_NOFOLLOW on the last component; the
 * ancestors follow policy).  Returns the fd in *fd. */
sk_err sk_dir_open(const char *path, sk_path_policy policy, const char *label, int *fd,
                   sk_diag *d);

/* Python os.path.abspath: getcwd() + path with "//", "." and ".." collapsed
 * lexically (no symlink resolution).  Returns NULL when out of memory or
 * when the cwd cannot be read. Caller frees. */
char *sk_path_abspath(const char *path);
/* realpath(3) of the parent directory + the final name appended verbatim
 * (the reference publication path rule).  Caller frees. */
char *sk_path_publication(const char *path, sk_diag *d);
/* 1 when child equals parent or lies below it (string prefix on "/" boundary). */
int sk_path_is_within(const char *child, const char *parent);

/* Publishes data at path atomically and without overwriting: a temporary
 * file in the same directory (O_TMPFILE + linkat when available, otherwise a
 * ".<name>.<random>.tmp" created O_EXCL) is written, fsynced and linked to
 * the name; an existing name fails with SK_E_EXISTS "output already exists:
 * <path>".  The directory is fsynced (EINVAL/EROFS/ENOTSUP ignored) and no
 * temporary file is left behind on any path.  mode is applied with fchmod
 * (0600 for contract evidence).  The parent directory must exist. */
sk_err sk_publish(const char *path, const void *data, size_t len, unsigned mode, sk_diag *d);
sk_err sk_publish_at(int dirfd, const char *name, const void *data, size_t len, unsigned mode,
                     sk_diag *d);

/* A set of output files that appears all at once or not at all.
 * sk_outdir_begin creates a hidden temporary directory next to path;
 * sk_outdir_add writes one file into it; sk_outdir_commit fsyncs and renames
 * it to path with RENAME_NOREPLACE (if path exists as an empty directory it
 * is replaced; anything else fails with SK_E_EXISTS); sk_outdir_free removes
 * the temporary directory if the set was not committed. */
typedef struct sk_outdir sk_outdir;
sk_err sk_outdir_begin(const char *path, unsigned dir_mode, sk_outdir **out, sk_diag *d);
sk_err sk_outdir_add(sk_outdir *o, const char *name, const void *data, size_t len, unsigned mode,
                     sk_diag *d);
sk_err sk_outdir_commit(sk_outdir *o, sk_diag *d);
void sk_outdir_free(sk_outdir *o);

/* mkdir -p with the given mode for created directories. */
sk_err sk_mkdir_p(const char *path, unsigned mode, sk_diag *d);

#endif
