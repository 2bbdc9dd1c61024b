/* Crash-safe file writing, for every file nodelet and the mock write: the
 * checkpoint store, certificates and keys, kubeconfigs, the mock's state
 * file. The recipe: a temporary file in the target's directory, written,
 * fsynced, renamed over the target, then the directory fsynced. rename(2)
 * replaces the name atomically, the file's fsync makes the data durable
 * before the name points at it, and the directory's fsync makes the rename
 * itself durable: after a crash a reader sees the old content or the new,
 * never a torn file.
 *
 * Each mutating system call goes through an nl_fs_ops table, so that tests
 * can fail any step; every function here takes one, NULL for the real
 * calls. */
#ifndef NODELET_FS_H
#define NODELET_FS_H

#include <stddef.h>
#include <sys/types.h>

#include "errors.h"

/* The system calls made; NULL members mean the real call. Each returns what
 * the system call returns and sets errno. For tests: production code
 * passes NULL where a table is asked for. */
typedef struct {
	int (*open)(const char *path, int flags, mode_t mode, void *payload);
	ssize_t (*write)(int fd, const void *buf, size_t len, void *payload);
	int (*fsync)(int fd, void *payload);
	int (*close)(int fd, void *payload);
	int (*rename)(const char *from, const char *to, void *payload);
	int (*mkdir)(const char *path, mode_t mode, void *payload);
	int (*unlink)(const char *path, void *payload);
	int (*rmdir)(const char *path, void *payload);
	void *payload;
} nl_fs_ops;

/* Replace path's content with len bytes of data. The temporary file
 * ("tmp_<base name>..." beside path) has exactly mode from its creation on,
 * whatever the umask, so that a key written 0600 is never readable by
 * others. On failure the temporary file is removed and NL_EIO returned with
 * the step, the path and strerror in err; path keeps its old content. When
 * only the final directory fsync fails, the new content is in place and
 * NL_EIO is still returned, since it might not survive a crash. */
int nl_fs_replace_file(const nl_fs_ops *fs, const char *path, const void *data, size_t len,
                       mode_t mode, nl_err *err);
/* The same through the temporary file tmp, a name the caller chose: for a
 * writer that is alone on path (under a lock) and removes a leftover tmp
 * when it starts, so that a crash mid-write leaves nothing that piles up.
 * tmp is truncated, never followed if it is a symbolic link. */
int nl_fs_replace_file_via(const nl_fs_ops *fs, const char *path, const char *tmp, const void *data,
                           size_t len, mode_t mode, nl_err *err);

/* For writers that stream: write all len bytes to fd, retrying short writes
 * and EINTR; 0, or -1 with errno (EIO for a write that wrote nothing). */
int nl_fs_write_all(const nl_fs_ops *fs, int fd, const void *data, size_t len);
/* fsync the directory holding path, so that a rename into it survives a
 * crash. 0, or -1 with errno. */
int nl_fs_sync_dir_of(const nl_fs_ops *fs, const char *path);

#endif
