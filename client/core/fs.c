/* Crash-safe file replacement (nodelet/fs.h), shared by the agent and the
 * mock. The directory-of-files writes of the checkpoint store build on the
 * pieces in fs_steps.h (client/dynconfig/atomic_fs.c). */
#include "fs_steps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Keep temporary names below NAME_MAX even for a 255-byte target name. */
#define TMP_BASE_MAX 64

/* --- the real system calls ---------------------------------------------------- */

static int real_open(const char *path, int flags, mode_t mode, void *payload)
{
	(void)payload;
	return open(path, flags | O_CLOEXEC, mode);
}

static ssize_t real_write(int fd, const void *buf, size_t len, void *payload)
{
	(void)payload;
	return write(fd, buf, len);
}

static int real_fsync(int fd, void *payload)
{
	(void)payload;
	return fsync(fd);
}

static int real_close(int fd, void *payload)
{
	(void)payload;
	return close(fd);
}

static int real_rename(const char *from, const char *to, void *payload)
{
	(void)payload;
	return rename(from, to);
}

static int real_mkdir(const char *path, mode_t mode, void *payload)
{
	(void)payload;
	return mkdir(path, mode);
}

static int real_unlink(const char *path, void *payload)
{
	(void)payload;
	return unlink(path);
}

static int real_rmdir(const char *path, void *payload)
{
	(void)payload;
	return rmdir(path);
}

void nl__fs_ops_fill(nl_fs_ops *dst, const nl_fs_ops *src)
{
	nl_fs_ops ops = src ? *src : (nl_fs_ops){0};
	ops.open = ops.open ? ops.open : real_open;
	ops.write = ops.write ? ops.write : real_write;
	ops.fsync = ops.fsync ? ops.fsync : real_fsync;
	ops.close = ops.close ? ops.close : real_close;
	ops.rename = ops.rename ? ops.rename : real_rename;
	ops.mkdir = ops.mkdir ? ops.mkdir : real_mkdir;
	ops.unlink = ops.unlink ? ops.unlink : real_unlink;
	ops.rmdir = ops.rmdir ? ops.rmdir : real_rmdir;
	*dst = ops;
}

/* --- helpers ------------------------------------------------------------------ */

int nl__fs_io_error(nl_err *err, const char *what, const char *path)
{
	return nl_err_set(err, NL_EIO, "%s %s: %s", what, path, strerror(errno));
}

char *nl__fs_parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Upstream's prefix and a suffix unique per attempt and per process
 * (leftovers of a crash only cost a retry on EEXIST). */
char *nl__fs_temp_name(const char *path)
{
	static atomic_ulong counter;
	char *dir = nl__fs_parent_of(path), *out = NULL;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (dir && asprintf(&out, "%s/" NL__FS_TMP_PREFIX "%.*s%ld.%lu.%ld", dir, TMP_BASE_MAX,
	                    base_of(path), (long)getpid(), ++counter, (long)ts.tv_nsec) < 0)
		out = NULL;
	free(dir);
	return out;
}

int nl_fs_write_all(const nl_fs_ops *ops, int fd, const void *buf, size_t len)
{
	nl_fs_ops fs;
	const char *data = buf;
	nl__fs_ops_fill(&fs, ops);
	while (len > 0) {
		ssize_t n = fs.write(fd, data, len, fs.payload);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int nl__fs_write_new_file(const nl_fs_ops *fs, int fd, const char *path, const void *data,
                          size_t len, nl_err *err)
{
	int rc = 0;
	if (nl_fs_write_all(fs, fd, data, len) != 0)
		rc = nl__fs_io_error(err, "cannot write", path);
	else if (fs->fsync(fd, fs->payload) != 0)
		rc = nl__fs_io_error(err, "cannot fsync", path);
	if (fs->close(fd, fs->payload) != 0 && rc == 0)
		rc = nl__fs_io_error(err, "cannot close", path);
	if (rc != 0)
		fs->unlink(path, fs->payload);
	return rc;
}

int nl__fs_fsync_dir(const nl_fs_ops *fs, const char *dir, nl_err *err)
{
	int fd = fs->open(dir, O_RDONLY | O_DIRECTORY, 0, fs->payload);
	if (fd < 0)
		return nl__fs_io_error(err, "cannot open directory", dir);
	int rc = 0;
	if (fs->fsync(fd, fs->payload) != 0)
		rc = nl__fs_io_error(err, "cannot fsync directory", dir);
	if (fs->close(fd, fs->payload) != 0 && rc == 0)
		rc = nl__fs_io_error(err, "cannot close directory", dir);
	return rc;
}

int nl__fs_fsync_parent(const nl_fs_ops *fs, const char *path, nl_err *err)
{
	char *dir = nl__fs_parent_of(path);
	if (!dir)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	int rc = nl__fs_fsync_dir(fs, dir, err);
	free(dir);
	return rc;
}

/* --- replace a file ------------------------------------------------------------ */

/* Create a new temporary file next to path with exactly mode: its fd, name
 * in *tmp_out. */
static int open_temp_file(int *fd_out, char **tmp_out, const nl_fs_ops *fs, const char *path,
                          mode_t mode, nl_err *err)
{
	for (unsigned attempt = 0; attempt < NL__FS_TMP_ATTEMPTS; attempt++) {
		char *tmp = nl__fs_temp_name(path);
		if (!tmp)
			return nl_err_set(err, NL_ENOMEM, "out of memory");
		int fd = fs->open(tmp, O_WRONLY | O_CREAT | O_EXCL, mode, fs->payload);
		if (fd >= 0) {
			/* open's mode is masked by the umask; the file must
			 * have the mode asked for, no more and no less. */
			if (fchmod(fd, mode) != 0) {
				nl__fs_io_error(err, "cannot set the mode of", tmp);
				fs->close(fd, fs->payload);
				fs->unlink(tmp, fs->payload);
				free(tmp);
				return NL_EIO;
			}
			*fd_out = fd;
			*tmp_out = tmp;
			return 0;
		}
		int saved = errno;
		if (saved != EEXIST) {
			errno = saved;
			nl__fs_io_error(err, "cannot create temporary file", tmp);
			free(tmp);
			return NL_EIO;
		}
		free(tmp);
	}
	return nl_err_set(err, NL_EIO, "cannot create a temporary file for %s", path);
}

/* The caller's temporary file tmp, truncated, with exactly mode; never
 * through a symbolic link, since its name is known in advance. */
static int open_named_temp_file(int *fd_out, const nl_fs_ops *fs, const char *tmp, mode_t mode,
                                nl_err *err)
{
	int fd = fs->open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode, fs->payload);
	if (fd < 0)
		return nl__fs_io_error(err, "cannot create temporary file", tmp);
	if (fchmod(fd, mode) != 0) {
		nl__fs_io_error(err, "cannot set the mode of", tmp);
		fs->close(fd, fs->payload);
		fs->unlink(tmp, fs->payload);
		return NL_EIO;
	}
	*fd_out = fd;
	return 0;
}

/* Write, fsync and close fd (the temporary file tmp), rename it over path,
 * fsync the directory. */
static int replace_from(const nl_fs_ops *fs, int fd, const char *tmp, const char *path,
                        const void *data, size_t len, nl_err *err)
{
	int rc = nl__fs_write_new_file(fs, fd, tmp, data, len, err);
	if (rc == 0 && fs->rename(tmp, path, fs->payload) != 0) {
		rc = nl__fs_io_error(err, "cannot rename temporary file over", path);
		fs->unlink(tmp, fs->payload);
	}
	return rc != 0 ? rc : nl__fs_fsync_parent(fs, path, err);
}

int nl_fs_replace_file(const nl_fs_ops *ops, const char *path, const void *data, size_t len,
                       mode_t mode, nl_err *err)
{
	nl_fs_ops fs;
	char *tmp = NULL;
	int fd = -1;
	if (!path || (!data && len))
		return nl_err_set(err, NL_EINVAL, "nl_fs_replace_file: missing argument");
	nl__fs_ops_fill(&fs, ops);
	int rc = open_temp_file(&fd, &tmp, &fs, path, mode, err);
	if (rc == 0)
		rc = replace_from(&fs, fd, tmp, path, data, len, err);
	free(tmp);
	return rc;
}

int nl_fs_replace_file_via(const nl_fs_ops *ops, const char *path, const char *tmp,
                           const void *data, size_t len, mode_t mode, nl_err *err)
{
	nl_fs_ops fs;
	int fd = -1;
	if (!path || !tmp || (!data && len))
		return nl_err_set(err, NL_EINVAL, "nl_fs_replace_file_via: missing argument");
	nl__fs_ops_fill(&fs, ops);
	int rc = open_named_temp_file(&fd, &fs, tmp, mode, err);
	return rc != 0 ? rc : replace_from(&fs, fd, tmp, path, data, len, err);
}

int nl_fs_sync_dir_of(const nl_fs_ops *ops, const char *path)
{
	nl_fs_ops fs;
	nl__fs_ops_fill(&fs, ops);
	nl_err err = {0};
	int rc = nl__fs_fsync_parent(&fs, path, &err);
	if (rc == NL_ENOMEM)
		errno = ENOMEM;
	return rc == 0 ? 0 : -1;
}
