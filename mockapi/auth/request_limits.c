/* Requests in flight and the watch cap. */
#include "request_limits.h"

#include <nodelet/errors.h>
#include <string.h>
#include <time.h>

int64_t mock_inflight_now_sec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec;
}

/* Start the window of now_sec if it is new: the peaks of the one before
 * become what is shown (the count now, when whole seconds passed with no
 * request, as the apiserver's reset leaves it), and the new peaks start
 * at the counts now. A request racing the roll may land its peak in
 * either window; the gauge is a watermark, not an exact count. */
static void roll(mock_inflight *f, int64_t now_sec)
{
	long long w = atomic_load(&f->window);
	if (now_sec <= w || !atomic_compare_exchange_strong(&f->window, &w, (long long)now_sec))
		return;
	unsigned ro = atomic_load(&f->readonly), mu = atomic_load(&f->mutating);
	unsigned ro_peak = atomic_exchange(&f->peak_readonly, ro);
	unsigned mu_peak = atomic_exchange(&f->peak_mutating, mu);
	int adjacent = now_sec == w + 1;
	atomic_store(&f->shown_readonly, adjacent ? ro_peak : ro);
	atomic_store(&f->shown_mutating, adjacent ? mu_peak : mu);
}

static void raise_peak(atomic_uint *peak, unsigned n)
{
	unsigned p = atomic_load(peak);
	while (n > p && !atomic_compare_exchange_weak(peak, &p, n))
		;
}

int mock_inflight_watermarks(mock_inflight *f, int64_t now_sec, unsigned *readonly,
                             unsigned *mutating)
{
	if (f->max_readonly == 0 && f->max_mutating == 0)
		return -1;
	roll(f, now_sec);
	*readonly = atomic_load(&f->shown_readonly);
	*mutating = atomic_load(&f->shown_mutating);
	return 0;
}

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
	unsigned n = atomic_fetch_add(count, 1) + 1;
	if (n > max) {
		atomic_fetch_sub(count, 1);
		return NL_ETOOMANYREQUESTS;
	}
	roll(f, mock_inflight_now_sec());
	raise_peak(readonly ? &f->peak_readonly : &f->peak_mutating, n);
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
