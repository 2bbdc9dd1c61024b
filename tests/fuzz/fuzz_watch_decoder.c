/* The client's watch-stream decoder (nodelet/watch.h) against a hostile
 * server. The header promises that an event split at any byte boundary
 * decodes the same: the stream is decoded whole, byte by byte, and in
 * chunks whose sizes come from the input, and all three must deliver the
 * same events and end the same way. A small event cap (taken from the
 * input too) exercises NL_ETOOBIG.
 *
 * That promise rests on json-c's incremental tokener, which is more lenient
 * fed byte by byte than whole for some malformed numbers ("0-" passes as
 * 0). So the exact comparison applies to streams of well-formed JSON
 * values; for others the events decoded whole must be a prefix of those
 * decoded in pieces. */
#include <nodelet/errors.h>
#include <nodelet/watch.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

typedef struct {
	json_object *events; /* [[type, object], ...] */
	int stop_after;      /* the callback stops the decoder at this event (0 = never) */
} collected;

static int on_event(const nl_watch_event *ev, void *payload)
{
	collected *c = payload;
	FUZZ_CHECK(ev->type >= NL_WATCH_ADDED && ev->type <= NL_WATCH_ERROR);
	FUZZ_CHECK(json_object_is_type(ev->object, json_type_object));
	FUZZ_CHECK(nl_watch_type_name(ev->type)[0] != '\0');
	json_object *pair = json_object_new_array();
	json_object_array_add(pair, json_object_new_int(ev->type));
	json_object_array_add(pair, json_object_get(ev->object));
	json_object_array_add(c->events, pair);
	if (c->stop_after && (int)json_object_array_length(c->events) == c->stop_after)
		return 99;
	return 0;
}

/* Feed the stream in chunks whose sizes (1..17) come from sizes, cycled (no
 * sizes: all at once), then finish. Returns the first non-zero code. */
static int decode(collected *c, const char *s, size_t len, size_t max_event,
                  const unsigned char *sizes, size_t nsizes)
{
	nl_watch_decoder *d = NULL;
	nl_err err = {0};
	FUZZ_CHECK(nl_watch_decoder_new(&d, max_event, on_event, c) == 0);
	int rc = 0;
	size_t off = 0, k = 0;
	while (rc == 0 && off < len) {
		size_t n = nsizes ? (size_t)sizes[k++ % nsizes] % 17 + 1 : len;
		if (n > len - off)
			n = len - off;
		rc = nl_watch_decoder_feed(d, s + off, n, &err);
		off += n;
	}
	if (rc == 0)
		rc = nl_watch_decoder_finish(d, &err);
	FUZZ_CHECK(rc == 0 || rc == 99 || rc == NL_EPARSE || rc == NL_ETOOBIG);
	if (rc != 0 && rc != 99)
		FUZZ_CHECK(err.msg[0] != '\0');
	/* After a reset the decoder takes a fresh, valid stream. */
	nl_watch_decoder_reset(d);
	collected probe = {json_object_new_array(), 0};
	nl_watch_decoder_free(d);
	FUZZ_CHECK(nl_watch_decoder_new(&d, 0, on_event, &probe) == 0);
	const char *ok = "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{}}}\n";
	FUZZ_CHECK(nl_watch_decoder_feed(d, ok, strlen(ok), NULL) == 0);
	FUZZ_CHECK(json_object_array_length(probe.events) == 1);
	nl_watch_decoder_free(d);
	json_object_put(probe.events);
	return rc;
}

/* Whether s is a sequence of JSON objects or arrays (self-delimiting,
 * unlike "0-3") that json-c, given each whole, parses strictly. */
static int well_formed(const char *s, size_t len)
{
	int ok = 1;
	json_tokener *tok = json_tokener_new();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	while (ok) {
		while (len > 0 && (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t'))
			s++, len--;
		if (len == 0 || len > INT32_MAX)
			break;
		json_tokener_reset(tok);
		json_object *o = json_tokener_parse_ex(tok, s, (int)len);
		enum json_tokener_error e = json_tokener_get_error(tok);
		size_t used = json_tokener_get_parse_end(tok);
		if (e == json_tokener_continue) {
			/* A value at the very end (a number): the NUL ends it. */
			o = json_tokener_parse_ex(tok, "", 1);
			e = json_tokener_get_error(tok);
			used = len;
		}
		ok = e == json_tokener_success && used > 0 &&
		     (json_object_is_type(o, json_type_object) ||
		      json_object_is_type(o, json_type_array));
		json_object_put(o);
		s += used;
		len -= used;
	}
	json_tokener_free(tok);
	return ok;
}

/* Whether the events of a are the first events of b. */
static int is_prefix(json_object *a, json_object *b)
{
	size_t n = json_object_array_length(a);
	if (n > json_object_array_length(b))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!json_object_equal(json_object_array_get_idx(a, i),
		                       json_object_array_get_idx(b, i)))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	/* Byte 0: the event cap (0 = the default 16 MiB; else 16..4096 bytes);
	 * byte 1: stop the decoder from the callback at that event (0 = never);
	 * the rest is the stream, and also the chunk sizes. */
	size_t max_event = data[0] ? (size_t)data[0] * 16 : 0;
	int stop_after = data[1] % 8;
	const char *s = (const char *)data + 2;
	size_t len = size - 2;

	collected whole = {json_object_new_array(), stop_after};
	collected bytes = {json_object_new_array(), stop_after};
	collected chunks = {json_object_new_array(), stop_after};
	const unsigned char one = 0;
	int rc_whole = decode(&whole, s, len, max_event, NULL, 0);
	int rc_bytes = decode(&bytes, s, len, max_event, &one, 1);
	int rc_chunks = decode(&chunks, s, len, max_event, data + 2, len);

	if (well_formed(s, len)) {
		FUZZ_CHECK(rc_whole == rc_bytes);
		FUZZ_CHECK(rc_whole == rc_chunks);
		FUZZ_CHECK(json_object_equal(whole.events, bytes.events));
		FUZZ_CHECK(json_object_equal(whole.events, chunks.events));
	} else {
		FUZZ_CHECK(is_prefix(whole.events, bytes.events));
		FUZZ_CHECK(is_prefix(whole.events, chunks.events));
	}
	json_object_put(whole.events);
	json_object_put(bytes.events);
	json_object_put(chunks.events);
	return 0;
}
