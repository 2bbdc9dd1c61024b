/* A growable byte buffer with a hard size cap.
 *
 * Input from the network must never grow memory without bound (curl's dynbuf
 * "toobig"): every append that would exceed `cap` fails with NL_ETOOBIG and
 * leaves the buffer as it was. The content is always NUL-terminated. */
#ifndef NODELET_BUF_H
#define NODELET_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct {
	char *data; /* NUL-terminated; NULL until the first append */
	size_t len;
	size_t alloc;
	size_t cap; /* maximum len; 0 means SIZE_MAX/2 */
} nl_buf;

/* Initialise an empty buffer that may hold at most cap bytes. */
void nl_buf_init(nl_buf *b, size_t cap);
/* Append len bytes. NL_ETOOBIG past the cap, NL_ENOMEM on allocation failure. */
int nl_buf_add(nl_buf *b, const void *data, size_t len);
/* Append a NUL-terminated string. */
int nl_buf_adds(nl_buf *b, const char *s);
/* Append printf-formatted text. */
int nl_buf_printf(nl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int nl_buf_vprintf(nl_buf *b, const char *fmt, va_list ap);
/* Forget the content, keep the allocation. */
void nl_buf_reset(nl_buf *b);
/* Hand the content to the caller (free() it; never NULL on success: an empty
 * buffer yields ""), leaving b empty. Returns NULL only on allocation failure. */
char *nl_buf_detach(nl_buf *b, size_t *len_out);
/* Release the content; b may be reused after nl_buf_init. */
void nl_buf_free(nl_buf *b);

#endif
