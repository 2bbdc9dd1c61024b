/* Requests in flight and the watch cap. */
#include "request_limits.h"

#include <nodelet/errors.h>
#include <string.h>

int mock_inflight_enter(mock_inflight_slot *slot, mock_inflight *f, const char *verb, int exempt)
{
	*slot = MOCK_SLOT_NONE;
	if (exempt || strcmp(verb, "watch") == 0)
		return 0;
	int readonly = strcmp(verb, "get") == 0 || strcmp(verb, "list") == 0;
	atomic_uint *count = readonly ? &f->readonly : &f->mutating;
	unsigned max = readonly ? f->max_readonly : f->max_mutating;
	if (max == 0)
		return 0;
	/* Optimistic increment: a request over the limit undoes its own. */
	if (atomic_fetch_add(count, 1) >= max) {
		atomic_fetch_sub(count, 1);
		return NL_ETOOMANYREQUESTS;
	}
	*slot = readonly ? MOCK_SLOT_READONLY : MOCK_SLOT_MUTATING;
	return 0;
}

void mock_inflight_leave(mock_inflight *f, mock_inflight_slot *slot)
{
	if (*slot == MOCK_SLOT_READONLY)
		atomic_fetch_sub(&f->readonly, 1);
	else if (*slot == MOCK_SLOT_MUTATING)
		atomic_fetch_sub(&f->mutating, 1);
	*slot = MOCK_SLOT_NONE;
}

void mock_response_too_many_requests(mock_response *resp)
{
	/* http.Error's body: the text and a newline. */
	static const char text[] = "Too many requests, please try again later.\n";
	nl_buf_reset(&resp->body);
	nl_buf_add(&resp->body, text, sizeof(text) - 1);
	resp->code = 429;
	resp->content_type = "text/plain; charset=utf-8";
	resp->retry_after = 1;
	mock_response_header(resp, "X-Content-Type-Options", "nosniff");
}

int mock_limits_admit_watch(size_t max, size_t open, mock_response *resp)
{
	if (max == 0 || open < max)
		return 1;
	mock_response_too_many_requests(resp);
	return 0;
}
