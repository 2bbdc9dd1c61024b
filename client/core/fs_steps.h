/* The pieces of client/core/fs.c that the checkpoint store's directory
 * writes (client/dynconfig/atomic_fs.c) build on. Not installed. */
#ifndef NL_CORE_FS_STEPS_H
#define NL_CORE_FS_STEPS_H

#include <nodelet/fs.h>

/* Upstream's prefix for temporary names ("tmp_" + target base name). */
#define NL__FS_TMP_PREFIX "tmp_"
/* Temporary names tried before giving up on EEXIST. */
#define NL__FS_TMP_ATTEMPTS 100

/* dst = src with NULL members replaced by the real system calls (src may
 * be NULL). */
void nl__fs_ops_fill(nl_fs_ops *dst, const nl_fs_ops *src);

/* NL_EIO with "<what> <path>: <strerror(errno)>" in err. */
int nl__fs_io_error(nl_err *err, const char *what, const char *path);
/* The parent directory of path ("." when it has none); caller frees. */
char *nl__fs_parent_of(const char *path);
/* A new temporary name beside path, unique per call and per process
 * ("<dir>/tmp_<base><pid>.<counter>.<ns>"); caller frees; NULL when out of
 * memory. */
char *nl__fs_temp_name(const char *path);
/* Write len bytes to the new file fd, fsync and close it; on failure the
 * file (named path) is removed. 0 or NL_EIO. */
int nl__fs_write_new_file(const nl_fs_ops *fs, int fd, const char *path, const void *data,
                          size_t len, nl_err *err);
/* fsync directory dir; of path's parent. 0, NL_EIO or NL_ENOMEM. */
int nl__fs_fsync_dir(const nl_fs_ops *fs, const char *dir, nl_err *err);
int nl__fs_fsync_parent(const nl_fs_ops *fs, const char *path, nl_err *err);

#endif
