/* Filesystem helpers for unit tests: scratch directories, file contents,
 * directory listings and the test-hook callback plumbing. */
#ifndef T_FS_H
#define T_FS_H

#include <stddef.h>

/* A fresh directory under $TMPDIR (or /tmp); the returned string is static
 * storage reused by the next call.  Aborts the test binary on failure. */
const char *tfs_scratch(void);
/* Removes a tree (no symlink is followed). */
void tfs_rm_rf(const char *path);
/* printf into a static rotating buffer (8 slots) for building paths. */
const char *tfs_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Creates or truncates path with exactly these bytes; 0 on success. */
int tfs_write(const char *path, const void *data, size_t len);
int tfs_write_str(const char *path, const char *text);
/* Whole file into a static buffer (NUL-terminated); NULL when unreadable. */
const char *tfs_read(const char *path, size_t *len);
/* Sorted, comma-separated names in dir (without "." and ".."), static buffer. */
const char *tfs_list(const char *dir);
/* st_mode & 07777 of path, or -1. */
int tfs_mode(const char *path);
/* Replaces path atomically with new content (write a sibling, rename). */
int tfs_replace(const char *path, const char *text);

/* Test-hook plumbing: action(path, arg) runs the first time point fires
 * after tfs_hook_on (every time when repeat is 1); every point fired is
 * appended to a log ("after_open,after_read,").  Needs SK_TEST_HOOKS. */
typedef void (*tfs_action)(const char *path, void *arg);
void tfs_hook_on(const char *point, tfs_action action, void *arg, int repeat);
void tfs_hook_off(void);
const char *tfs_hook_log(void);

#endif
