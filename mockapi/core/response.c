#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"

/* Large enough for any list the store can hold; responses are built in
 * memory, the cap only guards against runaway growth. */
#define MOCK_RESPONSE_CAP (1024u * 1024u * 1024u)

const char *mock_request_query(const mock_request *req, const char *key)
{
	for (size_t i = 0; i < req->nquery; i++)
		if (strcmp(req->query[i].key, key) == 0)
			return req->query[i].value ? req->query[i].value : "";
	return NULL;
}

void mock_response_init(mock_response *resp)
{
	memset(resp, 0, sizeof(*resp));
	resp->code = 200;
	resp->content_type = "application/json";
	nl_buf_init(&resp->body, MOCK_RESPONSE_CAP);
}

void mock_response_free(mock_response *resp)
{
	nl_buf_free(&resp->body);
	if (resp->stream && resp->stream_free)
		resp->stream_free(resp->stream);
	resp->stream = NULL;
}

void mock_response_status(mock_response *resp, nl_status *st)
{
	char *text = st ? nl_status_to_string(st) : NULL;
	nl_buf_reset(&resp->body);
	if (!text) {
		/* Allocation failed while building the error itself. */
		resp->code = 500;
		nl_buf_adds(&resp->body,
		            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		            "\"status\":\"Failure\",\"code\":500}");
	} else {
		resp->code = st->code ? st->code : 200;
		nl_buf_adds(&resp->body, text);
		if (st->retry_after_seconds > 0)
			resp->retry_after = st->retry_after_seconds;
	}
	resp->content_type = "application/json";
	free(text);
	nl_status_free(st);
}

void mock_response_json(mock_response *resp, int code, const char *json, size_t len)
{
	resp->code = code;
	resp->content_type = "application/json";
	nl_buf_reset(&resp->body);
	if (nl_buf_add(&resp->body, json, len) != 0)
		mock_response_status(resp, nl_status_internal("response too large"));
}

void mock_response_json_take(mock_response *resp, int code, char *json, size_t len)
{
	if (len > resp->body.cap) {
		free(json);
		mock_response_status(resp, nl_status_internal("response too large"));
		return;
	}
	resp->code = code;
	resp->content_type = "application/json";
	nl_buf_free(&resp->body);
	/* An nl_buf over the caller's allocation: send_response detaches it. */
	resp->body.data = json;
	resp->body.len = len;
	resp->body.alloc = len + 1;
}

void mock_response_warn(mock_response *resp, const char *text)
{
	size_t used = strlen(resp->warning);
	/* Several warnings share one header, comma-separated (RFC 7234). */
	snprintf(resp->warning + used, sizeof(resp->warning) - used, "%s299 - \"%s\"",
	         used ? ", " : "", text);
}

void mock_response_header(mock_response *resp, const char *name, const char *value)
{
	size_t used = strlen(resp->headers);
	size_t need = strlen(name) + strlen(value) + 4;
	if (used + need < sizeof(resp->headers))
		snprintf(resp->headers + used, sizeof(resp->headers) - used, "%s: %s\r\n", name,
		         value);
}
