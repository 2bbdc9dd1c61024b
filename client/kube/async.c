/* Asynchronous calls on the client's loop: rate limit and retry waits are
 * clock timers, attempts are transfers in the loop's multi handles, and the
 * callback runs once from nl_loop_step. */
#include <stdlib.h>
#include <string.h>

#include "kube.h"

struct nl_call {
	nl__io io; /* first: the loop hands back &io */
	nl__xfer x;
	nl_client *client;
	nl_response_cb cb;
	void *payload;
	nl_result res;
	void (*payload_free)(void *payload); /* on release, callback run or not */
	uint64_t timer;                      /* pending clock timer, 0 = none */
	int in_cb;                           /* the completion callback is running */
	nl_call *prev, *next;
};

static void finish(nl_call *call);
static void start_attempt(void *payload);

static void unlink_call(nl_call *call)
{
	nl_client *c = call->client;
	if (call->prev)
		call->prev->next = call->next;
	else if (c->calls == call)
		c->calls = call->next;
	if (call->next)
		call->next->prev = call->prev;
	call->prev = call->next = NULL;
}

static void release_call(nl__io *io)
{
	nl_call *call = (nl_call *)io;
	if (call->payload_free)
		call->payload_free(call->payload);
	nl__xfer_free(&call->x);
	nl__result_reset(&call->res);
	free(call);
}

/* Run fn after delay on the loop's clock, counting the call as waiting. */
static int after(nl_call *call, int64_t delay, nl_timer_fn fn)
{
	int rc = nl_clock_after(&call->timer, call->client->clock, delay, fn, call);
	if (rc == 0)
		nl__loop_waiting(call->client->loop, 1);
	return rc;
}

static void timer_fired(nl_call *call)
{
	call->timer = 0;
	nl__loop_waiting(call->client->loop, -1);
}

static void fail_now(void *payload)
{
	nl_call *call = payload;
	timer_fired(call);
	finish(call);
}

/* A failure found before any transfer: report it from the loop, never from
 * inside nl_client_send. */
static void fail_later(nl_call *call)
{
	if (after(call, 0, fail_now) != 0) {
		/* Not even a timer: the call cannot report; drop it quietly
		 * rather than call back from inside the caller. */
		nl__result_fail(&call->res, NL_ENOMEM, "out of memory");
	}
}

static void launch(nl_call *call)
{
	if (nl__xfer_begin(&call->x, &call->res) != 0) {
		fail_later(call);
		return;
	}
	int rc = nl__loop_add(call->client->loop, &call->io);
	if (rc != 0) {
		nl__result_fail(&call->res, rc, "cannot start the transfer");
		fail_later(call);
	}
}

/* Take a rate limiter token, waiting for it on a timer when needed. */
static void throttle_then_launch(nl_call *call)
{
	int64_t wait = nl_ratelimit_reserve(call->client->rl);
	if (wait > 0 && after(call, wait, start_attempt) == 0)
		return;
	launch(call);
}

static void start_attempt(void *payload)
{
	nl_call *call = payload;
	timer_fired(call);
	launch(call);
}

static void retry_wait_over(void *payload)
{
	nl_call *call = payload;
	timer_fired(call);
	throttle_then_launch(call);
}

static void finish(nl_call *call)
{
	nl_response resp, *rp = NULL;
	if (call->x.http && nl__xfer_response(&resp, &call->x) == 0)
		rp = &resp;
	/* Out of every multi by now: the callback's next request can have
	 * the handle. */
	if (!call->io.active)
		nl__xfer_recycle(&call->x);
	call->in_cb = 1;
	call->cb(rp, &call->res, call->payload);
	nl_response_clear(rp);
	unlink_call(call);
	nl__loop_release(call->client->loop, &call->io);
}

static void on_done(nl__io *io, CURLcode cc)
{
	nl_call *call = (nl_call *)io;
	int64_t wait = 0;
	int rc = nl__xfer_outcome(&call->x, cc, &call->res, &wait);
	if (rc == NL__RETRY) {
		if (wait > 0 && after(call, wait, retry_wait_over) == 0)
			return;
		throttle_then_launch(call);
		return;
	}
	finish(call);
}

static void on_drain(nl__io *io)
{
	nl_call *call = (nl_call *)io;
	if (nl__xfer_deliver(&call->x) == 0 || io->dead)
		return;
	/* The data callback ended the stream: not an error. */
	nl__loop_remove(call->client->loop, io);
	call->x.abort = NL__STOPPED;
	int64_t wait;
	nl__xfer_outcome(&call->x, CURLE_OK, &call->res, &wait);
	finish(call);
}

int nl_client_send(nl_call **out, nl_client *c, const nl_request *req, nl_response_cb cb,
                   void *payload)
{
	return nl__client_send(out, c, req, cb, payload, NULL);
}

int nl__client_send(nl_call **out, nl_client *c, const nl_request *req, nl_response_cb cb,
                    void *payload, void (*payload_free)(void *payload))
{
	if (!c || !cb)
		return NL_EINVAL;
	nl_call *call = calloc(1, sizeof(*call));
	if (!call)
		return NL_ENOMEM;
	call->client = c;
	call->cb = cb;
	call->payload = payload;
	int rc = nl__xfer_init(&call->x, c, req, NL__POOL_ASYNC, &call->res);
	if (rc != 0) {
		nl__result_reset(&call->res);
		free(call);
		return rc;
	}
	call->x.loop = c->loop;
	call->x.io = &call->io;
	call->io.easy = call->x.easy;
	call->io.stream = req->on_data != NULL;
	call->io.drain = on_drain;
	call->io.done = on_done;
	call->io.release = release_call;
	curl_easy_setopt(call->x.easy, CURLOPT_PRIVATE, (char *)&call->io);
	/* Owned from here on: freed with the call, even if it fails early. */
	call->payload_free = payload_free;
	call->next = c->calls;
	if (c->calls)
		c->calls->prev = call;
	c->calls = call;
	throttle_then_launch(call);
	if (out)
		*out = call;
	return 0;
}

void nl_call_cancel(nl_call *call)
{
	if (!call || call->in_cb || call->io.dead)
		return;
	nl_client *c = call->client;
	if (call->timer) {
		nl_clock_cancel(c->clock, call->timer);
		timer_fired(call);
	}
	nl__loop_remove(c->loop, &call->io);
	unlink_call(call);
	nl__loop_release(c->loop, &call->io);
}

void nl__client_cancel_all(nl_client *c)
{
	while (c->calls) {
		nl_call *k = c->calls;
		nl_call_cancel(k);
		if (c->calls == k) /* freed from inside its own callback: misuse */
			unlink_call(k);
	}
}
