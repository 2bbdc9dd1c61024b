/* Directory writes for the checkpoint store (kubelet's
 * kubeletconfig/util/files, plus the directory fsyncs it leaves out); a
 * file's replacement is client/core's nl_fs_replace_file. Every mutating
 * system call goes through the store's filled nl_fs_ops table
 * (nl__fs_ops_fill), so tests can fail any step. Not installed. */
#ifndef NL_AGENT_ATOMIC_FS_H
#define NL_AGENT_ATOMIC_FS_H

#include <nodelet/checkpoint_store.h>

#include "../core/fs_steps.h"

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

/* Create directory path holding files (names already validated): a
 * temporary directory next to it, each file written and fsynced, the
 * directory fsynced, renamed to path, then the parent fsynced. NL_EEXISTS
 * when path already exists (nothing changed); NL_EIO on failure (the
 * temporary directory is removed). */
int nl__fs_create_dir(const nl_fs_ops *fs, const char *path, const nl_checkpoint_file *files,
                      size_t nfiles, nl_err *err);

#endif
