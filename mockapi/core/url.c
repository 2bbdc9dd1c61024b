/* Percent-decoding (url.h). */
#include "url.h"

#include <nodelet/json_text.h>

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t mock_url_unescape(char *s)
{
	size_t j = 0;
	for (size_t i = 0; s[i]; i++) {
		int hi, lo;
		if (s[i] == '%' && (hi = hexval(s[i + 1])) >= 0 && (lo = hexval(s[i + 2])) >= 0) {
			int c = hi << 4 | lo;
			i += 2;
			if (c == 0) {
				s[j++] = NL_JSON_KEY_NUL[0];
				s[j++] = NL_JSON_KEY_NUL[1];
			} else {
				s[j++] = (char)c;
			}
		} else {
			s[j++] = s[i];
		}
	}
	s[j] = '\0';
	return j;
}
