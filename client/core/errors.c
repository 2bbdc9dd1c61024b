#include <nodelet/errors.h>

#include <stdarg.h>
#include <stdio.h>

const char *nl_strerror(int code)
{
	switch ((nl_error_code)code) {
	case NL_OK:
		return "success";
	case NL_ERROR:
		return "generic failure";
	case NL_ENOMEM:
		return "out of memory";
	case NL_EINVAL:
		return "invalid argument";
	case NL_EPARSE:
		return "parse error";
	case NL_EIO:
		return "I/O error";
	case NL_ETOOBIG:
		return "input too large";
	case NL_ENOTFOUND:
		return "not found";
	case NL_ECONFLICT:
		return "conflict";
	case NL_EEXISTS:
		return "already exists";
	case NL_EINVALID:
		return "invalid object";
	case NL_EGONE:
		return "resource version too old";
	case NL_EBADREQUEST:
		return "bad request";
	case NL_ETIMEOUT:
		return "timeout";
	case NL_EUNAUTHORIZED:
		return "unauthorized";
	case NL_EFORBIDDEN:
		return "forbidden";
	case NL_ETOOMANYREQUESTS:
		return "too many requests";
	case NL_ESERVER:
		return "server error";
	case NL_ETRANSPORT:
		return "transport error";
	case NL_ETLS:
		return "TLS error";
	case NL_ECONFIG:
		return "configuration error";
	case NL_EMETHOD:
		return "method not allowed";
	case NL_EUNSUPPORTED:
		return "unsupported media type";
	case NL_ECANCELED:
		return "canceled";
	}
	return "unknown error";
}

int nl_err_set(nl_err *err, int code, const char *fmt, ...)
{
	if (!err)
		return code;
	va_list ap;
	va_start(ap, fmt);
	err->code = code;
	/* vsnprintf truncates and always terminates: the struct never needs freeing. */
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}
