/* nl_rest_config's lifetime and the per-request bearer token, plus the
 * small helpers the config loaders share. The default loading order, which
 * calls the loaders, is load.c's. */
#include "internal.h"

#include <nodelet/doc.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One lock for every config's token cache: the critical section is a time
 * comparison and a strdup (plus a small file read once a minute). */
static pthread_mutex_t token_lock = PTHREAD_MUTEX_INITIALIZER;

void nl__free_secret(void *p, size_t len)
{
	if (!p)
		return;
	explicit_bzero(p, len);
	free(p);
}

void nl__free_secret_str(char *s)
{
	if (s)
		nl__free_secret(s, strlen(s));
}

char *nl__strdup_opt(const char *s, int *failed)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*failed = 1;
	return d;
}

static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void nl__exec_config_free(nl_exec_config *e)
{
	if (!e)
		return;
	free(e->api_version);
	free(e->command);
	free_strv(e->args);
	/* env values are often secrets handed to the plugin */
	for (size_t i = 0; e->env && e->env[i]; i++)
		nl__free_secret_str(e->env[i]);
	free(e->env);
	free(e->interactive_mode);
	free(e->install_hint);
	free(e);
}

void nl_rest_config_free(nl_rest_config *c)
{
	if (!c)
		return;
	free(c->server);
	free(c->tls_server_name);
	free(c->ca_file);
	free(c->ca_data);
	free(c->cert_file);
	free(c->cert_data);
	free(c->key_file);
	nl__free_secret(c->key_data, c->key_data_len);
	nl__free_secret_str(c->bearer_token);
	free(c->bearer_token_file);
	free(c->username);
	nl__free_secret_str(c->password);
	free(c->proxy_url);
	nl__exec_config_free(c->exec);
	free(c->namespace_);
	free(c->source);
	nl__free_secret_str(c->file_token);
	free(c);
}

int nl__check_readable(const char *path, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "open %s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

int nl__token_file_read(char **out, const char *path, nl_err *err)
{
	char *buf;
	size_t len;
	int rc = nl_file_read(&buf, &len, path, NL__SMALL_FILE_MAX, err);
	if (rc)
		return rc;
	size_t start = 0;
	while (start < len && isspace((unsigned char)buf[start]))
		start++;
	while (len > start && isspace((unsigned char)buf[len - 1]))
		len--;
	if (len == start) {
		nl__free_secret(buf, len);
		return nl_err_set(err, NL_EIO, "read empty token from file \"%s\"", path);
	}
	memmove(buf, buf + start, len - start);
	buf[len - start] = '\0';
	*out = buf;
	return 0;
}

/* Called with token_lock held. A failed re-read keeps the last good token
 * (client-go logs "Unable to rotate token" and carries on). */
static int refresh_file_token(nl_rest_config *c, int64_t now_usec, nl_err *err)
{
	if (c->file_token && now_usec - c->file_token_read_usec < NL_TOKEN_FILE_REFRESH_USEC &&
	    now_usec >= c->file_token_read_usec)
		return 0;
	char *tok;
	int rc = nl__token_file_read(&tok, c->bearer_token_file, err);
	if (rc)
		return c->file_token ? 0 : rc;
	nl__free_secret_str(c->file_token);
	c->file_token = tok;
	c->file_token_read_usec = now_usec;
	return 0;
}

int nl_rest_config_token(char **out, nl_rest_config *c, int64_t now_usec, nl_err *err)
{
	if (!out || !c)
		return nl_err_set(err, NL_EINVAL, "nl_rest_config_token: missing argument");
	const char *tok = c->bearer_token;
	int rc = 0;
	pthread_mutex_lock(&token_lock);
	if (c->bearer_token_file) {
		rc = refresh_file_token(c, now_usec, err);
		if (c->file_token)
			tok = c->file_token;
		else if (c->bearer_token)
			rc = 0;
	}
	char *copy = rc == 0 && tok ? strdup(tok) : NULL;
	pthread_mutex_unlock(&token_lock);
	if (rc)
		return rc;
	if (tok && !copy)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	*out = copy;
	return 0;
}

/* ---- aggregate errors ------------------------------------------------------ */

void nl__errlist_init(nl__errlist *l)
{
	nl_buf_init(&l->text, 0);
	l->count = 0;
	l->failed = 0;
}

void nl__errlist_add(nl__errlist *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if ((l->count && nl_buf_adds(&l->text, ", ")) || nl_buf_vprintf(&l->text, fmt, ap))
		l->failed = 1;
	va_end(ap);
	l->count++;
}

void nl__errlist_free(nl__errlist *l)
{
	nl_buf_free(&l->text);
}

int nl__errlist_finish(nl__errlist *l, nl_err *err, int code, const char *prefix)
{
	if (l->failed)
		code = nl_err_set(err, NL_ENOMEM, "out of memory");
	else if (l->count == 1)
		nl_err_set(err, code, "%s%s", prefix, l->text.data);
	else
		nl_err_set(err, code, "%s[%s]", prefix, l->text.data);
	nl__errlist_free(l);
	return code;
}
