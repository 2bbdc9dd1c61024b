/* Request framing checks, net/http's rules (http_framing.h). */
#include "http_framing.h"

#include <string.h>
#include <strings.h>

/* net/http's texts: a ProtocolError or other error from reading the
 * request is a bare "400 Bad Request"; a badRequestError adds its reason
 * after the status; an unsupported transfer coding is 501 with a fixed
 * text (server.go serve). */
#define TEXT_BAD "400 Bad Request"
#define TEXT_TE "Unsupported transfer encoding"

static void refuse(mock_framing *f, int code, const char *text)
{
	if (!f->code) { /* the first problem found is the one answered */
		f->code = code;
		f->text = text;
	}
}

void mock_framing_init(mock_framing *f)
{
	memset(f, 0, sizeof(*f));
}

/* RFC 7230 tchar, as textproto's isTokenTable. */
static int is_token_byte(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* httpguts.ValidHostHeader's byte set: what a URI host and port may hold. */
static int is_host_byte(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= 0x80) || (c && strchr("!$%&'()*+,-.:;=[]_~", c));
}

static int is_name(const char *name, size_t len, const char *want)
{
	return len == strlen(want) && strncasecmp(name, want, len) == 0;
}

/* textproto.TrimString: blanks off both ends. */
static const char *trim(const char *s, size_t *len)
{
	while (*len && (*s == ' ' || *s == '\t'))
		s++, (*len)--;
	while (*len && (s[*len - 1] == ' ' || s[*len - 1] == '\t'))
		(*len)--;
	return s;
}

void mock_framing_field(mock_framing *f, const char *name, size_t name_len, const char *value,
                        size_t value_len)
{
	for (size_t i = 0; i < name_len; i++)
		if (!is_token_byte((unsigned char)name[i])) {
			/* textproto lets a space before the colon through and
			 * readRequest then names it; other bytes fail earlier. */
			refuse(f, 400,
			       name[i] == ' ' ? TEXT_BAD ": invalid header name" : TEXT_BAD);
			break;
		}
	for (size_t i = 0; i < value_len; i++) {
		unsigned char c = (unsigned char)value[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			refuse(f, 400, TEXT_BAD);
			break;
		}
	}
	if (is_name(name, name_len, "Content-Length")) {
		size_t len = value_len;
		const char *v = trim(value, &len);
		if (f->n_length++ == 0) {
			f->length = v;
			f->length_len = len;
		} else if (len != f->length_len || memcmp(v, f->length, len) != 0) {
			f->length_differs = 1;
		}
	} else if (is_name(name, name_len, "Transfer-Encoding")) {
		/* Exactly what libmicrohttpd reads as chunked: a coding it would
		 * not decode must not reach it. */
		if (f->n_te++ == 0)
			f->te_chunked = is_name(value, value_len, "chunked");
	} else if (is_name(name, name_len, "Host")) {
		if (f->n_host++ == 0)
			for (size_t i = 0; i < value_len; i++)
				if (!is_host_byte((unsigned char)value[i]))
					f->host_bad = 1;
	}
}

void mock_framing_refuse_value(mock_framing *f)
{
	refuse(f, 400, TEXT_BAD);
}

int mock_framing_finish(mock_framing *f, int http11)
{
	/* In net/http's order: the header block, the transfer (TE, then
	 * Content-Length), then the Host checks. */
	if (f->n_te > 1 || (f->n_te == 1 && !f->te_chunked))
		refuse(f, 501, TEXT_TE);
	if (f->length_differs)
		refuse(f, 400, TEXT_BAD);
	if (http11 && f->n_host == 0)
		refuse(f, 400, TEXT_BAD ": missing required Host header");
	if (f->n_host > 1)
		refuse(f, 400, TEXT_BAD ": too many Host headers");
	if (f->n_host == 1 && f->host_bad)
		refuse(f, 400, TEXT_BAD ": malformed Host header");
	return f->code;
}
