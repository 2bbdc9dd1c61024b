/* client-go's certificate file store (util/certificate/certificate_store.go)
 * with one directory for certificates and keys: each pair in
 * <prefix>-<timestamp>.pem, the current one named by the
 * <prefix>-current.pem link. Writes are crash-safe (nl/fs.h) where client-go
 * truncates in place: a crash mid-rotation leaves the old pair current. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <nodelet/certificate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "certificate_internal.h"

struct nl_cert_store {
	char *dir;
	char *prefix;
	char current[PATH_MAX];
	char updated[PATH_MAX];
	const nl_fs_ops *fs;
};

static int path_join(char *out, const char *dir, const char *prefix, const char *qualifier)
{
	return snprintf(out, PATH_MAX, "%s/%s-%s.pem", dir, prefix, qualifier) < PATH_MAX ? 0 : -1;
}

/* An interrupted update: the 'updated' link was made but not yet renamed
 * over 'current' (client-go's recover). */
static int store_recover(nl_cert_store *s, nl_err *err)
{
	struct stat st;
	if (stat(s->current, &st) == 0)
		return 0;
	if (lstat(s->updated, &st) != 0)
		return errno == ENOENT
		           ? 0
		           : nl_err_set(err, NL_EIO, "%s: %s", s->updated, strerror(errno));
	if (!S_ISLNK(st.st_mode))
		return nl_err_set(err, NL_EIO, "expected \"%s\" to be a symlink but it is a file",
		                  s->updated);
	if (rename(s->updated, s->current) != 0)
		return nl_err_set(err, NL_EIO, "unable to rename \"%s\" to \"%s\": %s", s->updated,
		                  s->current, strerror(errno));
	return 0;
}

int nl_cert_store_new(nl_cert_store **out, const char *dir, const char *prefix, nl_err *err)
{
	nl_cert_store *s = calloc(1, sizeof(*s));
	if (!s || !(s->dir = strdup(dir)) || !(s->prefix = strdup(prefix))) {
		nl_cert_store_free(s);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	int rc = 0;
	if (path_join(s->current, dir, prefix, "current") != 0 ||
	    path_join(s->updated, dir, prefix, "updated") != 0)
		rc = nl_err_set(err, NL_EINVAL, "%s: path too long", dir);
	else if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		rc = nl_err_set(err, NL_EIO,
		                "could not create directory \"%s\" to store certificates: %s", dir,
		                strerror(errno));
	else
		rc = store_recover(s, err);
	if (rc != 0) {
		nl_cert_store_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void nl_cert_store_free(nl_cert_store *s)
{
	if (!s)
		return;
	free(s->dir);
	free(s->prefix);
	free(s);
}

const char *nl_cert_store_current_path(const nl_cert_store *s)
{
	return s->current;
}

void nl_cert_store_set_fs(nl_cert_store *s, const nl_fs_ops *fs)
{
	s->fs = fs;
}

/* A whole file of at most NL_CERT_MAX_PEM bytes, NUL-terminated. */
static int file_read(char **out, size_t *len, const char *path, nl_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return nl_err_set(err, errno == ENOENT ? NL_ENOTFOUND : NL_EIO, "%s: %s", path,
		                  strerror(errno));
	char *buf = malloc(NL_CERT_MAX_PEM + 1);
	size_t n = 0;
	ssize_t r = 0;
	while (buf && n <= NL_CERT_MAX_PEM && (r = read(fd, buf + n, NL_CERT_MAX_PEM + 1 - n)) > 0)
		n += (size_t)r;
	int e = errno;
	close(fd);
	if (!buf)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	if (r < 0 || n > NL_CERT_MAX_PEM) {
		explicit_bzero(buf, n);
		free(buf);
		return r < 0 ? nl_err_set(err, NL_EIO, "%s: %s", path, strerror(e))
		             : nl_err_set(err, NL_ETOOBIG, "%s: larger than %u bytes", path,
		                          NL_CERT_MAX_PEM);
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int nl_cert_store_current(char **pem_out, nl_cert_info *info_out, nl_cert_store *s, nl_err *err)
{
	nl_cert_info local = {0}, *info = info_out ? info_out : &local;
	char *pem = NULL;
	size_t len = 0;
	int rc = file_read(&pem, &len, s->current, err);
	if (rc != 0)
		return rc;
	/* The file holds the chain and the key (tls.LoadX509KeyPair(f, f)). */
	if ((rc = nl_cert_pair_check(pem, len, pem, len, err)) == 0)
		rc = nl_cert_parse(info, pem, len, err);
	if (rc != 0) {
		char why[sizeof(err->msg)];
		snprintf(why, sizeof(why), "%s", err->msg);
		nl_err_set(err, rc, "could not convert data from \"%s\" into cert/key pair: %s",
		           s->current, why);
		nl_cert_secret_free(pem);
		return rc;
	}
	if (pem_out)
		*pem_out = pem;
	else
		nl_cert_secret_free(pem);
	return 0;
}

/* The certificate blocks of cert_pem re-encoded, then the key: the bytes
 * of the new pair file (client-go pem.Encodes each certificate, then the
 * key block). */
static int pair_bytes(char **out, const char *cert_pem, size_t cert_len, const char *key_pem,
                      nl_err *err)
{
	char *chain = NULL;
	int rc = nl_cert_chain_pem(&chain, cert_pem, cert_len, err);
	if (rc != 0)
		return rc;
	size_t clen = strlen(chain), klen = strlen(key_pem);
	char *buf = malloc(clen + klen + 2);
	if (!buf) {
		free(chain);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	memcpy(buf, chain, clen);
	memcpy(buf + clen, key_pem, klen);
	size_t n = clen + klen;
	if (n && buf[n - 1] != '\n')
		buf[n++] = '\n';
	buf[n] = '\0';
	free(chain);
	*out = buf;
	return 0;
}

/* Go's "2006-01-02-15-04-05" in local time, as time.Now().Format. */
static void timestamp(char out[32], int64_t now_usec)
{
	time_t t = (time_t)(now_usec / NL_USEC_PER_SEC);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%d-%H-%M-%S", &tm);
}

static int link_current(nl_cert_store *s, const char *target, nl_err *err)
{
	struct stat st;
	if (lstat(s->current, &st) == 0 && !S_ISLNK(st.st_mode))
		return nl_err_set(err, NL_EIO, "expected \"%s\" to be a symlink but it is a file",
		                  s->current);
	if (lstat(s->updated, &st) == 0) {
		if (!S_ISLNK(st.st_mode))
			return nl_err_set(err, NL_EIO,
			                  "expected \"%s\" to be a symlink but it is a file",
			                  s->updated);
		if (unlink(s->updated) != 0)
			return nl_err_set(err, NL_EIO, "unable to remove \"%s\": %s", s->updated,
			                  strerror(errno));
	}
	if (symlink(target, s->updated) != 0)
		return nl_err_set(err, NL_EIO,
		                  "unable to create a symlink from \"%s\" to \"%s\": %s",
		                  s->updated, target, strerror(errno));
	/* rename(2) replaces the old link atomically: there is always a
	 * current pair (client-go removes it first). */
	int (*ren)(const char *, const char *, void *) = s->fs ? s->fs->rename : NULL;
	int r = ren ? ren(s->updated, s->current, s->fs->payload) : rename(s->updated, s->current);
	if (r != 0)
		return nl_err_set(err, NL_EIO, "unable to rename \"%s\" to \"%s\": %s", s->updated,
		                  s->current, strerror(errno));
	if (nl_fs_sync_dir_of(s->fs, s->current) != 0)
		return nl_err_set(err, NL_EIO, "%s: fsync of the directory: %s", s->dir,
		                  strerror(errno));
	return 0;
}

int nl_cert_store_update(nl_cert_store *s, int64_t now_usec, const char *cert_pem, size_t cert_len,
                         const char *key_pem, size_t key_len, nl_err *err)
{
	int rc = nl_cert_pair_check(cert_pem, cert_len, key_pem, key_len, err);
	if (rc != 0)
		return rc;
	char ts[32], path[PATH_MAX], abs[PATH_MAX];
	timestamp(ts, now_usec);
	if (path_join(path, s->dir, s->prefix, ts) != 0)
		return nl_err_set(err, NL_EINVAL, "%s: path too long", s->dir);
	char *bytes = NULL;
	if ((rc = pair_bytes(&bytes, cert_pem, cert_len, key_pem, err)) != 0)
		return rc;
	rc = nl_fs_replace_file(s->fs, path, bytes, strlen(bytes), 0600, err);
	nl_cert_secret_free(bytes);
	if (rc != 0)
		return rc;
	/* The link's target is absolute, so a relative --cert-dir works. */
	if (!realpath(path, abs))
		return nl_err_set(err, NL_EIO, "%s: %s", path, strerror(errno));
	return link_current(s, abs, err);
}

int nl_cert_key_load_or_generate(char **pem_out, const char *path, nl_err *err)
{
	char *pem = NULL;
	size_t len = 0;
	int rc = file_read(&pem, &len, path, err);
	if (rc == 0 && nl_cert_key_valid(pem, len)) {
		*pem_out = pem;
		return 0;
	}
	nl_cert_secret_free(pem);
	if (rc != 0 && rc != NL_ENOTFOUND)
		return rc;
	if ((rc = nl_cert_key_generate(&pem, err)) != 0)
		return rc;
	if ((rc = nl_fs_replace_file(NULL, path, pem, strlen(pem), 0600, err)) != 0) {
		nl_cert_secret_free(pem);
		return rc;
	}
	*pem_out = pem;
	return 0;
}

const char *nl__cert_store_dir(const nl_cert_store *s)
{
	return s->dir;
}
