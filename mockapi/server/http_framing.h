/* Request framing as strict as Go's net/http (what kube-apiserver serves
 * with): the checks libmicrohttpd 0.9.75 does not make, run on a request's
 * header fields before its body is read.
 *
 * - Content-Length: several that differ are refused (identical ones are
 *   one); a proxy honouring another one than we do would smuggle the rest
 *   of the body in as a request (transfer.go fixLength).
 * - Transfer-Encoding: one field, exactly `chunked`; anything else is 501
 *   (transfer.go parseTransferEncoding).
 * - field values: no control byte but HTAB (textproto readMIMEHeader);
 *   field names: tokens (server.go readRequest).
 * - Host: required on HTTP/1.1, at most one, and well formed (server.go
 *   readRequest, httpguts.ValidHostHeader).
 *
 * The answers are net/http's: plain text, Connection: close. The caller
 * feeds the fields one by one (mock_framing_field) in the order received;
 * no allocation. docs/decisions/0031-http-framing-and-timeouts.md. */
#ifndef MOCK_HTTP_FRAMING_H
#define MOCK_HTTP_FRAMING_H

#include <stddef.h>

typedef struct {
	int code;          /* 0 while acceptable, else 400 or 501 */
	const char *text;  /* the answer's body (static) when code != 0 */
	unsigned n_length; /* Content-Length fields */
	const char *length;
	size_t length_len;  /* the first one, trimmed */
	int length_differs; /* a later one says another length */
	unsigned n_te;      /* Transfer-Encoding fields */
	int te_chunked;     /* the (first) one is exactly "chunked" */
	unsigned n_host;    /* Host fields */
	int host_bad;       /* the (first) one is not a valid host */
} mock_framing;

void mock_framing_init(mock_framing *f);
/* One header field as received: name (without the colon), value (leading
 * blanks skipped). */
void mock_framing_field(mock_framing *f, const char *name, size_t name_len, const char *value,
                        size_t value_len);
/* A field value held a byte its parser could not pass on (a NUL): refuse
 * the request as a control byte in a value. */
void mock_framing_refuse_value(mock_framing *f);
/* After the last field: the verdict for a request of HTTP/1.1 or later
 * (http11) or HTTP/1.0. 0 to go on, else the HTTP code (400 or 501) with
 * f->text the body to send. */
int mock_framing_finish(mock_framing *f, int http11);

#endif
