/* Watch events from a byte stream. JSON is decoded incrementally by
 * json-c's tokener: whatever the chunking, every byte is parsed once.
 * Protobuf (…;stream=watch) is length-delimited frames, each collected
 * whole and decoded as a metav1.WatchEvent (nodelet/protobuf.h). */
#include <limits.h>
#include <nodelet/buf.h>
#include <nodelet/protobuf.h>
#include <nodelet/watch.h>
#include <stdlib.h>
#include <string.h>

struct nl_watch_decoder {
	json_tokener *tok;
	size_t max_event;
	size_t cur; /* bytes of the event being decoded */
	int in_event;
	nl_watch_event_cb cb;
	void *payload;
	/* protobuf frames */
	int protobuf;
	unsigned char head[4]; /* the length prefix being read */
	size_t head_len;
	size_t frame_len; /* the current frame's length, once head is complete */
	nl_buf frame;     /* its bytes so far */
};

static const char *const type_names[] = {"", "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};

const char *nl_watch_type_name(nl_watch_type t)
{
	return t >= NL_WATCH_ADDED && t <= NL_WATCH_ERROR ? type_names[t] : "";
}

static nl_watch_type type_of(const char *s)
{
	for (int t = NL_WATCH_ADDED; t <= NL_WATCH_ERROR; t++)
		if (strcmp(s, type_names[t]) == 0)
			return (nl_watch_type)t;
	return 0;
}

int nl_watch_decoder_new(nl_watch_decoder **out, size_t max_event, nl_watch_event_cb cb,
                         void *payload)
{
	if (!cb)
		return NL_EINVAL;
	nl_watch_decoder *d = calloc(1, sizeof(*d));
	if (!d)
		return NL_ENOMEM;
	d->tok = json_tokener_new();
	if (!d->tok) {
		free(d);
		return NL_ENOMEM;
	}
	/* Strict: no comments or other json-c extensions (Go's decoder has
	 * none), and stop at the end of a value instead of looking past it, so
	 * garbage after an event cannot swallow it depending on the chunking. */
	json_tokener_set_flags(d->tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	d->max_event = max_event ? max_event : NL_WATCH_DEFAULT_MAX_EVENT;
	nl_buf_init(&d->frame, 0);
	d->cb = cb;
	d->payload = payload;
	*out = d;
	return 0;
}

void nl_watch_decoder_free(nl_watch_decoder *d)
{
	if (!d)
		return;
	json_tokener_free(d->tok);
	nl_buf_free(&d->frame);
	free(d);
}

void nl_watch_decoder_reset(nl_watch_decoder *d)
{
	json_tokener_reset(d->tok);
	d->in_event = 0;
	d->cur = 0;
	d->head_len = 0;
	d->frame_len = 0;
	nl_buf_reset(&d->frame);
}

void nl_watch_decoder_set_protobuf(nl_watch_decoder *d, int protobuf)
{
	nl_watch_decoder_reset(d);
	d->protobuf = protobuf != 0;
}

/* The largest frame accepted: the decoder's cap, never above
 * NL_PB_MAX_FRAME. */
static size_t max_frame(const nl_watch_decoder *d)
{
	return d->max_event < NL_PB_MAX_FRAME ? d->max_event : NL_PB_MAX_FRAME;
}

static int is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Check the event's shape (client-go: "got invalid watch event type") and
 * hand it to the callback. */
static int deliver(nl_watch_decoder *d, json_object *obj, nl_err *err)
{
	json_object *type, *object;
	if (!json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, "type", &type) ||
	    !json_object_is_type(type, json_type_string))
		return nl_err_set(err, NL_EPARSE, "watch event without a type: %.200s",
		                  json_object_to_json_string(obj));
	nl_watch_event ev = {type_of(json_object_get_string(type)), NULL};
	if (!ev.type)
		return nl_err_set(err, NL_EPARSE, "got invalid watch event type: %.100s",
		                  json_object_get_string(type));
	if (!json_object_object_get_ex(obj, "object", &object) ||
	    !json_object_is_type(object, json_type_object))
		return nl_err_set(err, NL_EPARSE, "watch event %s without an object",
		                  json_object_get_string(type));
	ev.object = object;
	return d->cb(&ev, d->payload);
}

static int deliver_event(nl_watch_decoder *d, nl_watch_type type, json_object *object)
{
	nl_watch_event ev = {type, object};
	return d->cb(&ev, d->payload);
}

/* One complete frame: a WatchEvent, checked as client-go's decoder checks
 * it ("got invalid watch event type", "unable to decode watch event"). */
static int deliver_frame(nl_watch_decoder *d, const void *data, size_t len, nl_err *err)
{
	char type[32];
	json_object *obj = NULL;
	nl_err why = {0};
	int rc = nl_pb_decode_watch_event(type, sizeof(type), &obj, data, len, &why);
	if (rc == NL_ENOMEM)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	if (rc != 0)
		return nl_err_set(err, NL_EPARSE, "unable to decode watch event: %s", why.msg);
	nl_watch_type t = type_of(type);
	if (!t) {
		json_object_put(obj);
		return nl_err_set(err, NL_EPARSE, "got invalid watch event type: %.100s", type);
	}
	rc = deliver_event(d, t, obj);
	json_object_put(obj);
	return rc;
}

static int feed_protobuf(nl_watch_decoder *d, const char *data, size_t len, nl_err *err)
{
	while (len > 0) {
		if (d->head_len < sizeof(d->head)) {
			size_t n = sizeof(d->head) - d->head_len;
			if (n > len)
				n = len;
			memcpy(d->head + d->head_len, data, n);
			d->head_len += n;
			data += n;
			len -= n;
			if (d->head_len < sizeof(d->head))
				return 0;
			d->frame_len = (size_t)d->head[0] << 24 | (size_t)d->head[1] << 16 |
			               (size_t)d->head[2] << 8 | (size_t)d->head[3];
			if (d->frame_len > max_frame(d))
				return nl_err_set(
				    err, NL_ETOOBIG,
				    "watch frame of %zu bytes is larger than the maximum "
				    "of %zu bytes",
				    d->frame_len, max_frame(d));
			nl_buf_reset(&d->frame);
		}
		size_t want = d->frame_len - d->frame.len, n = want < len ? want : len;
		const char *whole = NULL;
		/* A frame inside one chunk is decoded in place, without a copy. */
		if (d->frame.len == 0 && n == d->frame_len)
			whole = data;
		else if (n > 0 && nl_buf_add(&d->frame, data, n) != 0)
			return nl_err_set(err, NL_ENOMEM, "out of memory");
		data += n;
		len -= n;
		if (!whole && d->frame.len < d->frame_len)
			return 0;
		int rc = deliver_frame(d, whole ? whole : d->frame.data, d->frame_len, err);
		d->head_len = 0;
		d->frame_len = 0;
		nl_buf_reset(&d->frame);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int nl_watch_decoder_feed(nl_watch_decoder *d, const char *data, size_t len, nl_err *err)
{
	if (d->protobuf)
		return feed_protobuf(d, data, len, err);
	while (len > 0) {
		if (!d->in_event) {
			while (len > 0 && is_space(*data))
				data++, len--;
			if (len == 0)
				return 0;
			d->in_event = 1;
			d->cur = 0;
		}
		/* One byte past the cap is enough to know an event is too big. */
		size_t n = d->max_event - d->cur + 1;
		if (n > len)
			n = len;
		if (n > INT_MAX)
			n = INT_MAX;
		json_object *obj = json_tokener_parse_ex(d->tok, data, (int)n);
		enum json_tokener_error e = json_tokener_get_error(d->tok);
		if (e == json_tokener_continue) {
			d->cur += n;
			if (d->cur > d->max_event)
				return nl_err_set(err, NL_ETOOBIG,
				                  "watch event larger than %zu bytes",
				                  d->max_event);
			data += n;
			len -= n;
			continue;
		}
		if (e != json_tokener_success || !obj) {
			json_object_put(obj);
			return nl_err_set(err, NL_EPARSE, "decoding watch stream: %s",
			                  json_tokener_error_desc(e));
		}
		size_t used = json_tokener_get_parse_end(d->tok);
		/* json-c goes on past the value over whitespace, as far as this
		 * chunk reaches: that is not the event's, or its size would
		 * depend on how the stream was split. */
		size_t own = used;
		while (own > 0 && is_space(data[own - 1]))
			own--;
		d->cur += own;
		data += used;
		len -= used;
		json_tokener_reset(d->tok);
		d->in_event = 0;
		if (d->cur > d->max_event) {
			json_object_put(obj);
			return nl_err_set(err, NL_ETOOBIG, "watch event larger than %zu bytes",
			                  d->max_event);
		}
		int rc = deliver(d, obj, err);
		json_object_put(obj);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int nl_watch_decoder_finish(nl_watch_decoder *d, nl_err *err)
{
	if (d->protobuf && d->head_len > 0)
		return nl_err_set(err, NL_EPARSE,
		                  "watch stream ended inside a frame (%zu of %zu bytes)",
		                  d->head_len < sizeof(d->head) ? d->head_len : d->frame.len,
		                  d->head_len < sizeof(d->head) ? sizeof(d->head) : d->frame_len);
	if (d->in_event)
		return nl_err_set(err, NL_EPARSE, "watch stream ended inside an event (%zu bytes)",
		                  d->cur);
	return 0;
}
