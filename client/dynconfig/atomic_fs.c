/* The checkpoint store's directory writes (kubeletconfig/util/files, plus
 * the directory fsyncs it leaves out), on client/core's crash-safe file
 * pieces (fs_steps.h): MkdirAll with each parent fsynced, an empty file
 * made durable, and a directory of files that appears whole or not at all. */
#include "atomic_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- existence ---------------------------------------------------------------- */

int nl__fs_dir_exists(const char *path, nl_err *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return errno == ENOENT ? 0 : nl__fs_io_error(err, "cannot stat", path);
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
	char *parent = nl__fs_parent_of(path);
	if (!parent)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	/* MkdirAll: parents first; "/" and "." always exist. */
	if (strcmp(parent, path) != 0)
		rc = nl__fs_ensure_dir(fs, parent, err);
	if (rc == 0 && fs->mkdir(path, 0755, fs->payload) != 0 && errno != EEXIST)
		rc = nl__fs_io_error(err, "cannot create directory", path);
	if (rc == 0)
		rc = nl__fs_fsync_dir(fs, parent, err);
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
		return nl__fs_io_error(err, "cannot stat", path);
	int fd = fs->open(path, O_WRONLY | O_CREAT | O_EXCL, 0644, fs->payload);
	if (fd < 0)
		return nl__fs_io_error(err, "cannot create", path);
	int rc = nl__fs_write_new_file(fs, fd, path, "", 0, err);
	return rc != 0 ? rc : nl__fs_fsync_parent(fs, path, err);
}

/* --- create a directory of files ----------------------------------------------- */

static int make_temp_dir(char **tmp_out, const nl_fs_ops *fs, const char *path, nl_err *err)
{
	for (unsigned attempt = 0; attempt < NL__FS_TMP_ATTEMPTS; attempt++) {
		char *tmp = nl__fs_temp_name(path);
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
			return nl__fs_io_error(err, "cannot create temporary directory next to",
			                       path);
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
		int rc = fd < 0
		             ? nl__fs_io_error(err, "cannot create", p)
		             : nl__fs_write_new_file(fs, fd, p, files[i].data, files[i].len, err);
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
		rc = nl__fs_fsync_dir(fs, tmp, err);
	if (rc == 0 && fs->rename(tmp, path, fs->payload) != 0) {
		/* rename(2) never replaces a non-empty directory. */
		rc = errno == ENOTEMPTY || errno == EEXIST
		         ? nl_err_set(err, NL_EEXISTS, "%s already exists", path)
		         : nl__fs_io_error(err, "cannot rename temporary directory to", path);
	}
	if (rc != 0)
		remove_temp_dir(fs, tmp, files, nwritten);
	free(tmp);
	return rc != 0 ? rc : nl__fs_fsync_parent(fs, path, err);
}
