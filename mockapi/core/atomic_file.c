#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mock_write_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int mock_sync_dir_of(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return -1;
	int rc = -1, fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		rc = fsync(fd);
		close(fd);
	}
	free(copy);
	return rc;
}

int mock_atomic_write(const char *path, const void *data, size_t len, mode_t mode, nl_err *err)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return nl_err_set(err, NL_EINVAL, "%s: path too long", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return nl_err_set(err, NL_EIO, "%s: %s", tmp, strerror(errno));
	/* An existing temporary file keeps its old mode: set ours. */
	if (fchmod(fd, mode) != 0 || mock_write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return nl_err_set(err, NL_EIO, "%s: %s", tmp, strerror(e));
	}
	close(fd);
	if (rename(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		return nl_err_set(err, NL_EIO, "%s: %s", path, strerror(e));
	}
	mock_sync_dir_of(path); /* best effort: the new content is in place */
	return 0;
}
