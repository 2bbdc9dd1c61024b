/* What a watcher sends: which event type a change is for its selection,
 * and the WatchEvent lines ({"type":…,"object":…} and a newline, compact,
 * as kube-apiserver's JSON watch encoder writes them; or, for a protobuf
 * watch, length-prefixed WatchEvent frames, docs/protobuf.md). */
#include <inttypes.h>
#include <nodelet/json_text.h>
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "encoding/protobuf_out.h"
#include "watch_internal.h"

/* ------------------------------------------------------------------------
 * Selector attributes */

void mock__watch_attrs_free(watch_attrs *a)
{
	json_object_put(a->labels);
	free(a->name);
	free(a->ns);
	for (size_t i = 0; i < a->nfields; i++)
		free(a->fields[i]);
	free(a->fields);
	memset(a, 0, sizeof(*a));
}

static int attrs_fill(watch_attrs *a, const mock_resource *r, json_object *obj)
{
	const char *name = nl_meta_name(obj);
	const char *ns = r->namespaced ? nl_meta_namespace(obj) : NULL;
	json_object *labels = nl_meta_labels(obj);
	if (labels && json_object_object_length(labels) > 0)
		a->labels = json_object_get(labels);
	a->name = strdup(name ? name : "");
	a->ns = strdup(ns ? ns : "");
	if (!a->name || !a->ns)
		return NL_ENOMEM;
	size_t n = 0;
	for (const char *const *f = r->selectable_fields; f && *f; f++)
		n++;
	if (n == 0)
		return 0;
	a->fields = calloc(n, sizeof(char *));
	if (!a->fields)
		return NL_ENOMEM;
	a->nfields = n;
	for (size_t i = 0; i < a->nfields; i++)
		if (mock_resource_field_value(&a->fields[i], r, obj, r->selectable_fields[i]) != 0)
			return NL_ENOMEM;
	return 0;
}

/* Build the attrs of an object's JSON (for r's selectable fields). */
static int object_attrs(watch_attrs *a, const mock_resource *r, const char *json, size_t len)
{
	json_object *obj = NULL;
	enum json_tokener_error jerr;
	size_t end = 0;
	memset(a, 0, sizeof(*a));
	if (mock_parse_body(&obj, json, len, &jerr, &end) != 0)
		return NL_ENOMEM;
	if (!obj)
		return NL_EPARSE;
	int rc = attrs_fill(a, r, obj);
	json_object_put(obj); /* labels keep their own reference */
	if (rc != 0)
		mock__watch_attrs_free(a);
	return rc;
}

int mock__watch_event_attrs(watch_event *e, const mock_resource *r)
{
	if (e->attrs == 0) {
		int rc = object_attrs(&e->now, r, e->json, e->len);
		if (rc == 0 && e->old_json)
			rc = object_attrs(&e->old, r, e->old_json, e->old_len);
		e->attrs = rc == 0 ? 1 : rc;
		free(e->old_json);
		e->old_json = NULL;
	}
	return e->attrs < 0 ? e->attrs : 0;
}

/* ------------------------------------------------------------------------
 * Selection */

typedef struct {
	const mock_resource *r;
	const watch_attrs *a;
} field_ctx;

static const char *field_get(const char *field, void *payload)
{
	const field_ctx *c = payload;
	if (strcmp(field, "metadata.name") == 0)
		return c->a->name;
	if (strcmp(field, "metadata.namespace") == 0)
		return c->a->ns;
	for (size_t i = 0; i < c->a->nfields; i++)
		if (strcmp(field, c->r->selectable_fields[i]) == 0)
			return c->a->fields[i];
	return NULL;
}

static int selected(const mock_watcher *w, const watch_attrs *a)
{
	if (w->ns && strcmp(w->ns, a->ns) != 0)
		return 0;
	if (w->labels && !nl_label_selector_matches(w->labels, a->labels))
		return 0;
	field_ctx c = {w->r, a};
	return !w->fields || nl_field_selector_matches(w->fields, field_get, &c);
}

const char *mock__watch_classify(const mock_watcher *w, const watch_event *e)
{
	int now = !w->filtered || selected(w, &e->now);
	switch (e->type) {
	case MOCK_STORE_ADDED:
		return now ? "ADDED" : NULL;
	case MOCK_STORE_DELETED:
		return now ? "DELETED" : NULL;
	case MOCK_STORE_MODIFIED:
		break;
	}
	if (!w->filtered)
		return "MODIFIED";
	/* An update that moves an object into or out of the selection is an
	 * ADDED or DELETED for this watcher (the cacher compares old and new);
	 * the DELETED carries the new state. */
	int before = selected(w, &e->old);
	if (now)
		return before ? "MODIFIED" : "ADDED";
	return before ? "DELETED" : NULL;
}

/* ------------------------------------------------------------------------
 * Lines */

static void truncate_to(nl_buf *b, size_t len)
{
	if (b->data && b->len > len) {
		b->len = len;
		b->data[len] = '\0';
	}
}

/* Append one protobuf frame for the object JSON obj of len bytes; the
 * size of the object's own encoding to *obj_len. */
static int add_frame(nl_buf *out, const char *type, const char *obj, size_t len, size_t *obj_len)
{
	nl_buf pb;
	nl_buf_init(&pb, out->cap);
	int rc = mock_protobuf_from_json(&pb, obj, len);
	*obj_len = pb.len;
	if (rc == 0)
		rc = nl_pb_encode_watch_event(out, type, pb.data, pb.len);
	nl_buf_free(&pb);
	return rc;
}

/* The object an event carries: the encoder's form of json, or json. */
static int add_object(nl_buf *out, const watch_encoder *enc, const char *type, const char *json,
                      size_t len)
{
	return enc->fn ? enc->fn(out, enc->r, type, json, len, enc->payload)
	               : nl_buf_add(out, json, len);
}

/* Append one event to out: a line {"type":…,"object":…}\n, or a frame.
 * *obj_len: the bytes of the object's encoding, what the apiserver's
 * apiserver_watch_events_sizes observes. */
static int add_line(nl_buf *out, const watch_encoder *enc, const char *type, const char *json,
                    size_t len, size_t *obj_len)
{
	size_t mark = out->len;
	int rc;
	if (enc->protobuf && !enc->fn) {
		rc = add_frame(out, type, json, len, obj_len);
	} else if (enc->protobuf) {
		/* The encoder's form (metadata only) as JSON, then its frame. */
		nl_buf obj;
		nl_buf_init(&obj, out->cap);
		rc = add_object(&obj, enc, type, json, len);
		if (rc == 0)
			rc = add_frame(out, type, obj.data, obj.len, obj_len);
		nl_buf_free(&obj);
	} else {
		rc = nl_buf_printf(out, "{\"type\":\"%s\",\"object\":", type);
		size_t start = out->len;
		if (rc == 0)
			rc = add_object(out, enc, type, json, len);
		*obj_len = out->len - start;
		if (rc == 0)
			rc = nl_buf_add(out, "}\n", 2);
	}
	if (rc != 0)
		truncate_to(out, mark);
	return rc;
}

int mock__watch_add_error(nl_buf *out, size_t *obj_len, int protobuf, const nl_status *st)
{
	char *text = nl_status_to_string(st);
	if (!text)
		return NL_ENOMEM;
	size_t mark = out->len;
	*obj_len = strlen(text);
	int rc = protobuf ? add_frame(out, "ERROR", text, strlen(text), obj_len)
	                  : nl_buf_printf(out, "{\"type\":\"ERROR\",\"object\":%s}\n", text);
	if (rc != 0)
		truncate_to(out, mark);
	free(text);
	return rc;
}

/* What encoding/json writes for the zero value of the kind after its
 * metadata: struct fields without omitempty survive (LeaseSpec is "{}",
 * NodeStatus carries daemonEndpoints and nodeInfo, zero times are null). */
static const char *zero_body(mock_kind k)
{
	switch (k) {
	case MOCK_KIND_NAMESPACE:
		return ",\"spec\":{},\"status\":{}";
	case MOCK_KIND_NODE:
		return ",\"spec\":{},\"status\":{\"daemonEndpoints\":{\"kubeletEndpoint\":{"
		       "\"Port\":0}},"
		       "\"nodeInfo\":{\"machineID\":\"\",\"systemUUID\":\"\",\"bootID\":\"\","
		       "\"kernelVersion\":\"\",\"osImage\":\"\",\"containerRuntimeVersion\":\"\","
		       "\"kubeletVersion\":\"\",\"kubeProxyVersion\":\"\",\"operatingSystem\":\"\","
		       "\"architecture\":\"\"}}";
	case MOCK_KIND_EVENT:
		return ",\"involvedObject\":{},\"source\":{},\"firstTimestamp\":null,"
		       "\"lastTimestamp\":null,\"eventTime\":null,\"reportingComponent\":\"\","
		       "\"reportingInstance\":\"\"";
	case MOCK_KIND_LEASE:
		return ",\"spec\":{}";
	case MOCK_KIND_POD:
		return ",\"spec\":{\"containers\":null},\"status\":{}";
	case MOCK_KIND_CSR: /* request is a nil []byte, signerName has no omitempty */
		return ",\"spec\":{\"request\":null,\"signerName\":\"\"},\"status\":{}";
	default:
		return "";
	}
}

/* Append a BOOKMARK line at rv, with the initial-events-end annotation when
 * initial_end. */
static int add_bookmark(nl_buf *out, size_t *obj_len, const watch_encoder *enc, uint64_t rv,
                        int initial_end)
{
	/* The cacher's bookmark: an empty object of the kind that carries only
	 * the resourceVersion (and the end-of-initial-events annotation). Its
	 * zero creationTimestamp is written, as encoding/json writes a zero
	 * metav1.Time: null. */
	char obj[1024];
	int n = snprintf(
	    obj, sizeof(obj),
	    "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":"
	    "\"%" PRIu64 "\",\"creationTimestamp\":null%s}%s}",
	    enc->r->kind, enc->r->api_version, rv,
	    initial_end ? ",\"annotations\":{\"" MOCK_WATCH_INITIAL_EVENTS_END "\":\"true\"}" : "",
	    zero_body(enc->r->id));
	if (n < 0 || (size_t)n >= sizeof(obj))
		return NL_ETOOBIG;
	return add_line(out, enc, "BOOKMARK", obj, (size_t)n, obj_len);
}

/* The line of an event of type for the object json (its resourceVersion
 * rv, 0 when unknown) as enc writes it: the shared one when it exists or
 * can be, else a private one. Under the hub lock when locked; otherwise
 * the lock is taken only around the table, and the line is built
 * outside it. NL_ETOOBIG: the hub's buffer limit. */
static int event_line(watch_blob **out, mock_watch_hub *h, const watch_encoder *enc,
                      const char *type, const char *json, size_t len, uint64_t rv, int locked)
{
	watch_key k = {(int)enc->r->id, mock__watch_line_type(type), enc->protobuf, rv};
	int keyed = !enc->fn && k.type >= 0 && rv != 0;
	if (keyed) {
		if (!locked)
			pthread_mutex_lock(&h->lock);
		*out = mock__watch_blob_find(h, &k);
		if (!locked)
			pthread_mutex_unlock(&h->lock);
		if (*out)
			return 0;
	}
	nl_buf line;
	size_t obj_len = 0;
	nl_buf_init(&line, WATCH_LINE_CAP);
	int rc = add_line(&line, enc, type, json, len, &obj_len);
	if (rc != 0) {
		nl_buf_free(&line);
		return rc;
	}
	if (!locked)
		pthread_mutex_lock(&h->lock);
	rc = mock__watch_blob_add(out, h, &line, obj_len, keyed ? &k : NULL);
	if (rc == NL_ETOOBIG)
		h->refused++;
	if (!locked)
		pthread_mutex_unlock(&h->lock);
	return rc;
}

/* A private line from out's content (a bookmark, an ERROR). */
static int private_line(watch_blob **b, mock_watch_hub *h, nl_buf *line, size_t obj_len, int locked)
{
	if (!locked)
		pthread_mutex_lock(&h->lock);
	int rc = mock__watch_blob_add(b, h, line, obj_len, NULL);
	if (rc == NL_ETOOBIG)
		h->refused++;
	if (!locked)
		pthread_mutex_unlock(&h->lock);
	return rc;
}

static int next_line_code(int rc)
{
	return rc == NL_ETOOBIG ? WATCH_OVER_LIMIT : WATCH_FAILED;
}

int mock__watch_next_line(mock_watcher *w, int64_t now)
{
	mock_watch_hub *h = w->hub;
	const watch_ring *g = &h->rings[w->r->id];
	if (w->stall)
		return 0;
	if (w->next_seq < g->first)
		return WATCH_FELL_BEHIND; /* what it missed is gone */
	while (w->next_seq < g->first + g->n) {
		watch_event *e = mock__watch_ring_at(g, w->next_seq);
		if (w->filtered && mock__watch_event_attrs(e, w->r) != 0)
			return WATCH_FAILED;
		const char *type = mock__watch_classify(w, e);
		if (!type) {
			w->next_seq++;
			continue;
		}
		int rc = event_line(&w->cur, h, &w->enc, type, e->json, e->len, e->rv, 1);
		if (rc != 0)
			return next_line_code(rc);
		w->next_seq++;
		w->off = 0;
		w->rv = e->rv;
		if (w->limited && --w->events_left == 0)
			w->state = WATCH_ENDING; /* after this line */
		return 1;
	}
	if (w->next_bookmark_ms && now >= w->next_bookmark_ms) {
		/* Caught up with the ring, so every change up to the hub's
		 * resourceVersion has been seen. */
		uint64_t rv = h->rv > w->rv ? h->rv : w->rv;
		nl_buf line;
		size_t obj_len = 0;
		nl_buf_init(&line, WATCH_LINE_CAP);
		int rc = add_bookmark(&line, &obj_len, &w->enc, rv, 0);
		if (rc == 0)
			rc = private_line(&w->cur, h, &line, obj_len, 1);
		nl_buf_free(&line);
		if (rc != 0)
			return next_line_code(rc);
		w->off = 0;
		w->rv = rv;
		w->next_bookmark_ms = now + h->bookmark_ms;
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Initial event sets */

void mock_watch_initial_init(mock_watch_initial *in, mock_watch_hub *h)
{
	memset(in, 0, sizeof(*in));
	in->hub = h;
}

static int initial_push(mock_watch_initial *in, watch_blob *b)
{
	if (in->n == in->alloc) {
		size_t n = in->alloc ? in->alloc * 2 : 16;
		watch_blob **v = realloc(in->v, n * sizeof(*v));
		if (!v) {
			pthread_mutex_lock(&in->hub->lock);
			mock__watch_blob_unref(in->hub, b);
			pthread_mutex_unlock(&in->hub->lock);
			return NL_ENOMEM;
		}
		in->v = v;
		in->alloc = n;
	}
	in->v[in->n++] = b;
	return 0;
}

/* metadata.resourceVersion of a stored object, 0 when it has none. */
static uint64_t object_rv(const char *json, size_t len)
{
	const char *v;
	size_t vlen;
	if (nl_json_text_member(&v, &vlen, json, len, "metadata.resourceVersion") != 0 ||
	    vlen < 3 || v[0] != '"' || vlen > 22)
		return 0;
	char digits[24];
	memcpy(digits, v + 1, vlen - 2);
	digits[vlen - 2] = '\0';
	uint64_t rv = 0;
	return nl_rv_parse(&rv, digits) == 0 ? rv : 0;
}

int mock_watch_initial_add(mock_watch_initial *in, const mock_watch_spec *spec, const char *type,
                           const char *json, size_t len)
{
	watch_encoder enc = {spec->r, spec->encode, spec->encode_payload, NULL, spec->protobuf};
	watch_blob *b = NULL;
	int rc = event_line(&b, in->hub, &enc, type, json, len, object_rv(json, len), 0);
	return rc == 0 ? initial_push(in, b) : rc;
}

int mock_watch_initial_bookmark(mock_watch_initial *in, const mock_watch_spec *spec, uint64_t rv,
                                int initial_end)
{
	watch_encoder enc = {spec->r, spec->encode, spec->encode_payload, NULL, spec->protobuf};
	watch_blob *b = NULL;
	nl_buf line;
	size_t obj_len = 0;
	nl_buf_init(&line, WATCH_LINE_CAP);
	int rc = add_bookmark(&line, &obj_len, &enc, rv, initial_end);
	if (rc == 0)
		rc = private_line(&b, in->hub, &line, obj_len, 0);
	nl_buf_free(&line);
	return rc == 0 ? initial_push(in, b) : rc;
}

void mock_watch_initial_free(mock_watch_initial *in)
{
	if (in->n) {
		pthread_mutex_lock(&in->hub->lock);
		for (size_t i = 0; i < in->n; i++)
			mock__watch_blob_unref(in->hub, in->v[i]);
		pthread_mutex_unlock(&in->hub->lock);
	}
	free(in->v);
	in->v = NULL;
	in->n = in->alloc = 0;
}
