/* Atomic file and directory replacement for the checkpoint store (kubelet's
 * kubeletconfig/util/files, plus the directory fsyncs it leaves out). Every
 * mutating system call goes through an nl_fs_ops table so tests can fail any
 * step. Not installed. */
#ifndef NL_AGENT_ATOMIC_FS_H
#define NL_AGENT_ATOMIC_FS_H

#include <nodelet/checkpoint_store.h>

/* Upstream's prefix for temporary names ("tmp_" + target base name). */
#define NL__FS_TMP_PREFIX "tmp_"

/* dst = src with NULL members replaced by the real system calls (src may
 * be NULL). */
void nl__fs_ops_fill(nl_fs_ops *dst, const nl_fs_ops *src);

/* A directory at path, created (with its missing parents, each parent
 * fsynced) when absent. NL_EIO when it cannot be created or path is not a
 * directory ("expected dir at ..."). */
int nl__fs_ensure_dir(const nl_fs_ops *fs, const char *path, nl_err *err);
/* A regular file at path, created empty (and made durable) when absent.
 * The parent must exist. NL_EIO. */
int nl__fs_ensure_file(const nl_fs_ops *fs, const char *path, nl_err *err);
/* 1 when path is a directory, 0 when it does not exist; NL_EIO when it is
 * something else or cannot be examined. */
int nl__fs_dir_exists(const char *path, nl_err *err);

/* Replace path's content with data: a temporary file in the same directory,
 * written and fsynced, renamed over path, then the directory fsynced. On
 * failure the temporary file is removed and NL_EIO returned; path keeps its
 * old content. */
int nl__fs_replace_file(const nl_fs_ops *fs, const char *path, const char *data, size_t len,
                        nl_err *err);
/* Create directory path holding files (names already validated): a
 * temporary directory next to it, each file written and fsynced, the
 * directory fsynced, renamed to path, then the parent fsynced. NL_EEXISTS
 * when path already exists (nothing changed); NL_EIO on failure (the
 * temporary directory is removed). */
int nl__fs_create_dir(const nl_fs_ops *fs, const char *path, const nl_checkpoint_file *files,
                      size_t nfiles, nl_err *err);

#endif
