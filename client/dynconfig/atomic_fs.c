/* Atomic writes for the checkpoint store. The recipe (temp in the same
 * directory, fsync, rename, fsync the directory) is what makes a crash leave
 * either the old or the new content: rename(2) replaces the name atomically,
 * the file's fsync makes the data durable before the name points at it, and
 * the directory's fsync makes the rename itself durable. */
#include "atomic_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Keep temporary names below NAME_MAX even for a 255-byte target name. */
#define TMP_BASE_MAX 64
#define TMP_ATTEMPTS 100

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

static int io_error(nl_err *err, const char *what, const char *path)
{
	return nl_err_set(err, NL_EIO, "%s %s: %s", what, path, strerror(errno));
}

/* The parent directory of path ("." when it has none); caller frees. */
static char *parent_of(const char *path)
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

/* "<dir>/tmp_<base><pid>.<counter>.<ns>": upstream's prefix and a suffix
 * unique per attempt and per process (leftovers of a crash only cost a
 * retry on EEXIST). */
static char *temp_name(const char *path)
{
	static unsigned long counter;
	char *dir = parent_of(path), *out = NULL;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (dir && asprintf(&out, "%s/" NL__FS_TMP_PREFIX "%.*s%ld.%lu.%ld", dir, TMP_BASE_MAX,
	                    base_of(path), (long)getpid(), ++counter, (long)ts.tv_nsec) < 0)
		out = NULL;
	free(dir);
	return out;
}

static int write_all(const nl_fs_ops *fs, int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = fs->write(fd, data, len, fs->payload);
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

/* Write, fsync and close a new file; on failure the file is removed. */
static int write_new_file(const nl_fs_ops *fs, int fd, const char *path, const char *data,
                          size_t len, nl_err *err)
{
	int rc = 0;
	if (write_all(fs, fd, data, len) != 0)
		rc = io_error(err, "cannot write", path);
	else if (fs->fsync(fd, fs->payload) != 0)
		rc = io_error(err, "cannot fsync", path);
	if (fs->close(fd, fs->payload) != 0 && rc == 0)
		rc = io_error(err, "cannot close", path);
	if (rc != 0)
		fs->unlink(path, fs->payload);
	return rc;
}

static int fsync_dir(const nl_fs_ops *fs, const char *dir, nl_err *err)
{
	int fd = fs->open(dir, O_RDONLY | O_DIRECTORY, 0, fs->payload);
	if (fd < 0)
		return io_error(err, "cannot open directory", dir);
	int rc = 0;
	if (fs->fsync(fd, fs->payload) != 0)
		rc = io_error(err, "cannot fsync directory", dir);
	if (fs->close(fd, fs->payload) != 0 && rc == 0)
		rc = io_error(err, "cannot close directory", dir);
	return rc;
}

static int fsync_parent(const nl_fs_ops *fs, const char *path, nl_err *err)
{
	char *dir = parent_of(path);
	if (!dir)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	int rc = fsync_dir(fs, dir, err);
	free(dir);
	return rc;
}

/* --- existence ---------------------------------------------------------------- */

int nl__fs_dir_exists(const char *path, nl_err *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return errno == ENOENT ? 0 : io_error(err, "cannot stat", path);
	if (!S_ISDIR(st.st_mode))
		return nl_err_set(err, NL_EIO, "expected dir at \"%s\", but it is not a directory",
		                  path);
	return 1;
}

int nl__fs_ensure_dir(const nl_fs_ops *fs, const char *path, nl_err *err)
{
	int rc = nl__fs_dir_exists(path, err);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	char *parent = parent_of(path);
	if (!parent)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	/* MkdirAll: parents first; "/" and "." always exist. */
	if (strcmp(parent, path) != 0)
		rc = nl__fs_ensure_dir(fs, parent, err);
	if (rc == 0 && fs->mkdir(path, 0755, fs->payload) != 0 && errno != EEXIST)
		rc = io_error(err, "cannot create directory", path);
	if (rc == 0)
		rc = fsync_dir(fs, parent, err);
	free(parent);
	return rc;
}

int nl__fs_ensure_file(const nl_fs_ops *fs, const char *path, nl_err *err)
{
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISREG(st.st_mode))
			return 0;
		return nl_err_set(err, NL_EIO, "expected regular file at \"%s\"", path);
	}
	if (errno != ENOENT)
		return io_error(err, "cannot stat", path);
	int fd = fs->open(path, O_WRONLY | O_CREAT | O_EXCL, 0644, fs->payload);
	if (fd < 0)
		return io_error(err, "cannot create", path);
	int rc = write_new_file(fs, fd, path, "", 0, err);
	return rc != 0 ? rc : fsync_parent(fs, path, err);
}

/* --- replace a file ------------------------------------------------------------ */

/* Create a new temporary file next to path: its fd, name in *tmp_out. */
static int open_temp_file(int *fd_out, char **tmp_out, const nl_fs_ops *fs, const char *path,
                          nl_err *err)
{
	for (unsigned attempt = 0; attempt < TMP_ATTEMPTS; attempt++) {
		char *tmp = temp_name(path);
		if (!tmp)
			return nl_err_set(err, NL_ENOMEM, "out of memory");
		int fd = fs->open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644, fs->payload);
		if (fd >= 0) {
			*fd_out = fd;
			*tmp_out = tmp;
			return 0;
		}
		int saved = errno;
		if (saved != EEXIST) {
			errno = saved;
			io_error(err, "cannot create temporary file", tmp);
			free(tmp);
			return NL_EIO;
		}
		free(tmp);
	}
	return nl_err_set(err, NL_EIO, "cannot create a temporary file for %s", path);
}

int nl__fs_replace_file(const nl_fs_ops *fs, const char *path, const char *data, size_t len,
                        nl_err *err)
{
	char *tmp = NULL;
	int fd = -1, rc = open_temp_file(&fd, &tmp, fs, path, err);
	if (rc != 0)
		return rc;
	rc = write_new_file(fs, fd, tmp, data, len, err);
	if (rc == 0 && fs->rename(tmp, path, fs->payload) != 0) {
		rc = io_error(err, "cannot rename temporary file over", path);
		fs->unlink(tmp, fs->payload);
	}
	free(tmp);
	return rc != 0 ? rc : fsync_parent(fs, path, err);
}

/* --- create a directory of files ----------------------------------------------- */

static int make_temp_dir(char **tmp_out, const nl_fs_ops *fs, const char *path, nl_err *err)
{
	for (unsigned attempt = 0; attempt < TMP_ATTEMPTS; attempt++) {
		char *tmp = temp_name(path);
		if (!tmp)
			return nl_err_set(err, NL_ENOMEM, "out of memory");
		if (fs->mkdir(tmp, 0755, fs->payload) == 0) {
			*tmp_out = tmp;
			return 0;
		}
		int saved = errno;
		free(tmp);
		if (saved != EEXIST) {
			errno = saved;
			return io_error(err, "cannot create temporary directory next to", path);
		}
	}
	return nl_err_set(err, NL_EIO, "cannot create a temporary directory for %s", path);
}

/* Remove what was written into the temporary directory, then it. */
static void remove_temp_dir(const nl_fs_ops *fs, const char *tmp, const nl_checkpoint_file *files,
                            size_t nwritten)
{
	for (size_t i = 0; i < nwritten; i++) {
		char *p = NULL;
		if (asprintf(&p, "%s/%s", tmp, files[i].name) >= 0) {
			fs->unlink(p, fs->payload);
			free(p);
		}
	}
	fs->rmdir(tmp, fs->payload);
}

static int write_files(size_t *nwritten, const nl_fs_ops *fs, const char *tmp,
                       const nl_checkpoint_file *files, size_t nfiles, nl_err *err)
{
	for (size_t i = 0; i < nfiles; i++) {
		char *p = NULL;
		if (asprintf(&p, "%s/%s", tmp, files[i].name) < 0)
			return nl_err_set(err, NL_ENOMEM, "out of memory");
		int fd = fs->open(p, O_WRONLY | O_CREAT | O_EXCL, 0644, fs->payload);
		int rc = fd < 0 ? io_error(err, "cannot create", p)
		                : write_new_file(fs, fd, p, files[i].data, files[i].len, err);
		free(p);
		if (rc != 0)
			return rc;
		*nwritten = i + 1;
	}
	return 0;
}

int nl__fs_create_dir(const nl_fs_ops *fs, const char *path, const nl_checkpoint_file *files,
                      size_t nfiles, nl_err *err)
{
	char *tmp = NULL;
	size_t nwritten = 0;
	int rc = make_temp_dir(&tmp, fs, path, err);
	if (rc != 0)
		return rc;
	rc = write_files(&nwritten, fs, tmp, files, nfiles, err);
	if (rc == 0)
		rc = fsync_dir(fs, tmp, err);
	if (rc == 0 && fs->rename(tmp, path, fs->payload) != 0) {
		/* rename(2) never replaces a non-empty directory. */
		rc = errno == ENOTEMPTY || errno == EEXIST
		         ? nl_err_set(err, NL_EEXISTS, "%s already exists", path)
		         : io_error(err, "cannot rename temporary directory to", path);
	}
	if (rc != 0)
		remove_temp_dir(fs, tmp, files, nwritten);
	free(tmp);
	return rc != 0 ? rc : fsync_parent(fs, path, err);
}
