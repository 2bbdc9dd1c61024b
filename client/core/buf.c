#include <nodelet/buf.h>
#include <nodelet/errors.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NL_BUF_MIN_ALLOC 64

static size_t effective_cap(const nl_buf *b)
{
	return b->cap ? b->cap : SIZE_MAX / 2;
}

void nl_buf_init(nl_buf *b, size_t cap)
{
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
	b->cap = cap;
}

/* Make room for `extra` more bytes plus the NUL. The cap is checked before
 * anything is touched so a refused append leaves the buffer as it was. */
static int reserve(nl_buf *b, size_t extra)
{
	size_t cap = effective_cap(b);
	if (extra > cap || b->len > cap - extra)
		return NL_ETOOBIG;
	size_t need = b->len + extra + 1;
	if (b->data && need <= b->alloc)
		return 0;
	/* Doubling keeps appends amortised O(1); never beyond cap + 1 (cap is at
	 * most SIZE_MAX / 2, so the doubling cannot overflow). */
	size_t alloc = b->alloc ? b->alloc : NL_BUF_MIN_ALLOC;
	while (alloc < need)
		alloc *= 2;
	if (alloc > cap + 1)
		alloc = cap + 1;
	char *p = realloc(b->data, alloc);
	if (!p)
		return NL_ENOMEM;
	if (!b->data)
		p[0] = '\0';
	b->data = p;
	b->alloc = alloc;
	return 0;
}

int nl_buf_add(nl_buf *b, const void *data, size_t len)
{
	int rc = reserve(b, len);
	if (rc)
		return rc;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int nl_buf_adds(nl_buf *b, const char *s)
{
	return nl_buf_add(b, s, strlen(s));
}

int nl_buf_vprintf(nl_buf *b, const char *fmt, va_list ap)
{
	va_list measure;
	va_copy(measure, ap);
	int n = vsnprintf(NULL, 0, fmt, measure);
	va_end(measure);
	if (n < 0)
		return NL_EINVAL;
	int rc = reserve(b, (size_t)n);
	if (rc)
		return rc;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int nl_buf_printf(nl_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = nl_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

void nl_buf_reset(nl_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

char *nl_buf_detach(nl_buf *b, size_t *len_out)
{
	char *s = b->data;
	size_t len = b->len;
	if (!s) {
		s = calloc(1, 1);
		if (!s)
			return NULL;
	}
	if (len_out)
		*len_out = len;
	nl_buf_init(b, b->cap);
	return s;
}

void nl_buf_free(nl_buf *b)
{
	free(b->data);
	nl_buf_init(b, b->cap);
}
