#include "kubeconfig_out.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_all(int fd, const char *p, size_t n)
{
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

/* fsync the directory so the rename itself survives a crash. */
static void sync_dir_of(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return;
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

int mock_kubeconfig_write(const char *path, const char *url, nl_err *err)
{
	char text[2048];
	char tmp[4096];
	int n = snprintf(text, sizeof(text),
	                 "apiVersion: v1\n"
	                 "kind: Config\n"
	                 "clusters:\n"
	                 "- name: nodelet-mockapi\n"
	                 "  cluster:\n"
	                 "    server: %s\n"
	                 "contexts:\n"
	                 "- name: nodelet-mockapi\n"
	                 "  context:\n"
	                 "    cluster: nodelet-mockapi\n"
	                 "    user: nodelet-mockapi\n"
	                 "current-context: nodelet-mockapi\n"
	                 "preferences: {}\n"
	                 "users:\n"
	                 "- name: nodelet-mockapi\n"
	                 "  user: {}\n",
	                 url);
	if (n < 0 || (size_t)n >= sizeof(text))
		return nl_err_set(err, NL_EINVAL, "server URL too long");
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return nl_err_set(err, NL_EINVAL, "kubeconfig path too long");
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return nl_err_set(err, NL_EIO, "%s: %s", tmp, strerror(errno));
	if (write_all(fd, text, (size_t)n) != 0 || fsync(fd) != 0) {
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
	sync_dir_of(path);
	return 0;
}
