/* Port of kubelet's node lease controller (pkg/kubelet/nodelease, later
 * component-helpers/apimachinery/lease). Step names follow upstream:
 * sync, backoffEnsureLease, ensureLease, retryUpdateLease, newLease. */
#include "lease_internal.h"

#include <nodelet/doc.h>
#include <nodelet/json_text.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <nodelet/time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nl_lease_controller {
	nl_clock *clock;
	nl_lease_ops ops;
	int (*update_text)(char **out, size_t *out_len, nl_status **status, const char *ns,
	                   const char *name, const char *body, size_t len, void *payload);
	int (*update_pb)(char **out, size_t *out_len, int *out_protobuf, nl_status **status,
	                 const char *ns, const char *name, const void *body, size_t len,
	                 void *payload);
	char *node_name;
	char *holder_identity;
	char *lease_name;
	char *lease_namespace;
	int32_t lease_duration_seconds;
	void (*hook)(void *payload);
	void *hook_payload;
	uint64_t seed;
	/* latestLease: the server's answer to our last create or update, kept
	 * as compact JSON text (~1 KiB for a node lease; a json-c tree of it
	 * takes ~20 KiB), NULL when none. Renewals splice the new fields into
	 * it (see "The cached lease as text"). With update_pb the same bytes
	 * are an enveloped protobuf Lease instead (lease_protobuf.c). */
	char *latest;
	size_t latest_len;
	/* latest parsed, for nl_lease_controller_latest only; dropped with it. */
	json_object *latest_tree;
	/* The last retry_update's attempts, and how many of them sent nothing
	 * (the Node could not be read): what its failure message says. */
	int round_attempts, round_unsent;
	nl_jitter_until loop;
	/* The sync under way (see "sync as a state machine"). */
	struct lease_sync {
		enum { SYNC_IDLE, SYNC_RENEW, SYNC_ENSURE } stage;
		enum { ROUND_CACHED, ROUND_ENSURED, ROUND_ALONE } round;
		int attempt;             /* retryUpdateLease's next i */
		int last_rc;             /* the round's last update */
		int ensure_for_conflict; /* backoffEnsureLease called by retryUpdateLease */
		int64_t sleep;           /* backoffEnsureLease's last wait */
		/* The round's base: lc->latest unless has_base (a refetch after a
		 * conflict, or nl__lease_retry_update's; NULL = none), owned. */
		int has_base;
		char *base;
		size_t base_len;
		uint64_t wait_timer; /* the backoff's timer, 0 = none */
		int64_t wait_due;    /* when it fires (monotonic) */
	} sync;
};

/* --- small json-c helpers ---------------------------------------------------- */

/* Add val under key, taking ownership; NL_ENOMEM (val released) when val is
 * NULL (a failed json_object_new_*) or the add fails. */
static int put(json_object *obj, const char *key, json_object *val)
{
	if (!val)
		return NL_ENOMEM;
	if (json_object_object_add(obj, key, val) != 0) {
		json_object_put(val);
		return NL_ENOMEM;
	}
	return 0;
}

static int put_string(json_object *obj, const char *key, const char *s)
{
	return put(obj, key, json_object_new_string(s));
}

/* obj.key as an object, created (replacing a non-object) when needed. */
static json_object *child_object(json_object *obj, const char *key)
{
	json_object *child = json_object_object_get(obj, key);
	if (json_object_is_type(child, json_type_object))
		return child;
	child = json_object_new_object();
	return put(obj, key, child) == 0 ? child : NULL;
}

static int has_owner_references(json_object *lease)
{
	json_object *refs = nl_json_get_path(lease, "metadata.ownerReferences");
	return json_object_is_type(refs, json_type_array) && json_object_array_length(refs) > 0;
}

/* Go's err.Error() for a failed call: the server's Status message, else the
 * code's name. Frees the status. */
static int call_failed(nl_err *err, int rc, nl_status *status)
{
	nl_err_set(err, rc, "%s",
	           status && status->message && *status->message ? status->message
	                                                         : nl_strerror(rc));
	nl_status_free(status);
	return rc;
}

static char *dup_or(const char *s, const char *fallback)
{
	return strdup(s ? s : fallback);
}

/* --- newLease ------------------------------------------------------------------ */

/* The bare minimum, as upstream: other Lease fields exist for debugging and
 * legacy, heartbeats do not need them. */
static int lease_skeleton(json_object **out, const nl_lease_controller *lc)
{
	json_object *lease = json_object_new_object(), *meta, *spec;
	if (!lease)
		return NL_ENOMEM;
	if (put_string(lease, "kind", "Lease") != 0 ||
	    put_string(lease, "apiVersion", "coordination.k8s.io/v1") != 0 ||
	    !(meta = child_object(lease, "metadata")) ||
	    put_string(meta, "name", lc->lease_name) != 0 ||
	    put_string(meta, "namespace", lc->lease_namespace) != 0 ||
	    !(spec = child_object(lease, "spec")) ||
	    put_string(spec, "holderIdentity", lc->holder_identity) != 0) {
		json_object_put(lease);
		return NL_ENOMEM;
	}
	*out = lease;
	return 0;
}

static json_object *owner_reference(const char *node_name, const char *uid)
{
	json_object *refs = json_object_new_array(), *ref = json_object_new_object();
	if (!refs || !ref || json_object_array_add(refs, ref) != 0) {
		json_object_put(refs);
		json_object_put(ref);
		return NULL;
	}
	if (put_string(ref, "apiVersion", "v1") != 0 || put_string(ref, "kind", "Node") != 0 ||
	    put_string(ref, "name", node_name) != 0 || put_string(ref, "uid", uid) != 0) {
		json_object_put(refs);
		return NULL;
	}
	return refs;
}

/* Setting the owner needs the Node's uid (not known locally). The Node may
 * not be readable yet when the lease is first written, so every renewal
 * tries again until it succeeds. Only NL_ENOMEM is an error: an unreadable
 * Node leaves the lease without owner, which callers check. */
static int set_node_owner(json_object *lease, nl_lease_controller *lc)
{
	json_object *node = NULL, *meta, *refs;
	nl_status *status = NULL;
	nl_err err;
	int rc = lc->ops.get_node(&node, &status, lc->node_name, lc->ops.payload);

	if (rc != 0) {
		call_failed(&err, rc, status);
		NL_LOG_ERROR(err.msg,
		             "Failed to get node when trying to set owner ref to the node lease",
		             NL_KV_REF("node", NULL, lc->node_name));
		return 0;
	}
	nl_status_free(status);
	const char *uid = nl_meta_uid(node);
	if (!uid || !*uid) {
		/* An owner without uid would be rejected (422); treat as unreadable. */
		NL_LOG_ERROR("the node has no metadata.uid",
		             "Failed to get node when trying to set owner ref to the node lease",
		             NL_KV_REF("node", NULL, lc->node_name));
		json_object_put(node);
		return 0;
	}
	rc = NL_ENOMEM;
	if ((meta = nl_meta_ensure(lease)) && (refs = owner_reference(lc->node_name, uid)))
		rc = put(meta, "ownerReferences", refs);
	json_object_put(node);
	return rc;
}

/* newLease's changes, made on lease itself: the duration and renewTime
 * asserted, the owner added when missing and the Node is readable. */
static int renew_tree(json_object *lease, nl_lease_controller *lc, const char *renew)
{
	json_object *spec;

	/* Later upstream fix: the duration is asserted on every renewal, since
	 * the configuration may have changed since the lease was created. */
	if (!(spec = child_object(lease, "spec")) ||
	    put(spec, "leaseDurationSeconds", json_object_new_int(lc->lease_duration_seconds)) ||
	    put_string(spec, "renewTime", renew))
		return NL_ENOMEM;
	return has_owner_references(lease) ? 0 : set_node_owner(lease, lc);
}

int nl__lease_new_lease(json_object **out, nl_lease_controller *lc, json_object *base)
{
	json_object *lease = NULL;
	char renew[NL_TIME_BUFSZ];
	int rc;

	if (base) {
		/* A deep copy: the cached lease must stay as the server sent it. */
		if (json_object_deep_copy(base, &lease, NULL) != 0)
			return NL_ENOMEM;
	} else if ((rc = lease_skeleton(&lease, lc)) != 0) {
		return rc;
	}
	nl_time_format_micro(renew, nl_clock_now(lc->clock));
	if ((rc = renew_tree(lease, lc, renew)) != 0) {
		json_object_put(lease);
		return rc;
	}
	*out = lease;
	return 0;
}

/* --- the cached lease as text ------------------------------------------------------ */

/* A renewal changes two values of the lease the server last sent. With
 * thousands of controllers in one process (bench_heartbeat), a json-c tree
 * per node (~20 KiB) and a deep copy, serialization and free of it per
 * renewal cost more memory and CPU than the HTTP exchange. So the
 * controller keeps the answer as text and builds the next body by
 * replacing the two values in it: the object newLease would build, without
 * a tree. Only the usual shape qualifies — an ownerReference present, both
 * spec fields present, no key of interest twice or spelled with escapes
 * (json-c would decode those and could see another object than a byte
 * comparison); any other base takes the tree path, newLease proper. */

typedef struct {
	const char *p;
	size_t n;
} span;

/* json-c's default depth, the one the client's decoder uses: an answer the
 * client could not have parsed is not taken as text either. */
#define TEXT_MAX_DEPTH 32

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* p at '"': past the closing quote, or NULL when the string is not valid
 * JSON. */
static const char *scan_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '"')
			return p + 1;
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\')
			continue;
		if (++p >= end)
			return NULL;
		if (*p == 'u') {
			for (int i = 0; i < 4; i++)
				if (++p >= end || !is_hex(*p))
					return NULL;
		} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
			return NULL;
		}
	}
	return NULL;
}

static const char *scan_digits(const char *p, const char *end)
{
	const char *start = p;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p > start ? p : NULL;
}

/* Past a number or literal, or NULL. */
static const char *scan_scalar(const char *p, const char *end)
{
	static const char *const words[] = {"true", "false", "null"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i]);
		if ((size_t)(end - p) >= n && memcmp(p, words[i], n) == 0)
			return p + n;
	}
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (!(p = scan_digits(p, end)))
		return NULL;
	if (p < end && *p == '.' && !(p = scan_digits(p + 1, end)))
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		p = scan_digits(p, end);
	}
	return p;
}

static const char *scan_value(const char *p, const char *end, int depth);

/* p at '{' or '[': past the matching close, or NULL. */
static const char *scan_container(const char *p, const char *end, int depth)
{
	int object = *p == '{';
	char close = object ? '}' : ']';

	if (depth >= TEXT_MAX_DEPTH)
		return NULL;
	p = nl_json_text_skip_ws(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		if (object) {
			if (p >= end || *p != '"' || !(p = scan_string(p, end)))
				return NULL;
			p = nl_json_text_skip_ws(p, end);
			if (p >= end || *p != ':')
				return NULL;
			p = nl_json_text_skip_ws(p + 1, end);
		}
		if (!(p = scan_value(p, end, depth + 1)))
			return NULL;
		p = nl_json_text_skip_ws(p, end);
		if (p < end && *p == ',') {
			p = nl_json_text_skip_ws(p + 1, end);
			continue;
		}
		return p < end && *p == close ? p + 1 : NULL;
	}
}

/* Past one JSON value at p, or NULL when there is none. */
static const char *scan_value(const char *p, const char *end, int depth)
{
	if (p >= end)
		return NULL;
	if (*p == '"')
		return scan_string(p, end);
	if (*p == '{' || *p == '[')
		return scan_container(p, end, depth);
	return scan_scalar(p, end);
}

/* Whether text is one JSON object (whitespace around it allowed). */
static int is_json_object(const char *text, size_t len)
{
	const char *end = text + len, *p = nl_json_text_skip_ws(text, end);
	if (p >= end || *p != '{' || !(p = scan_value(p, end, 0)))
		return 0;
	return nl_json_text_skip_ws(p, end) == end;
}

/* In the object obj, the values of keys[0..n-1] (a NULL span when absent).
 * NL_EINVAL when obj is no object, a key of interest occurs twice or any
 * key has an escape. The text is known to be JSON (json-c wrote it, or
 * is_json_object accepted it when it arrived), so values are skipped
 * without checking them again: a renewal reads its base about twice. */
static int find_members(span *vals, span obj, const char *const *keys, size_t n)
{
	nl_json_text_iter it;
	const char *k, *v;
	size_t klen, vlen;
	int rc;

	for (size_t i = 0; i < n; i++)
		vals[i] = (span){NULL, 0};
	if (obj.n == 0 || *obj.p != '{' || nl_json_text_object(&it, obj.p, obj.p + obj.n) != 0)
		return NL_EINVAL;
	while ((rc = nl_json_text_next(&it, &k, &klen, &v, &vlen)) == 1) {
		if (memchr(k, '\\', klen))
			return NL_EINVAL;
		for (size_t i = 0; i < n; i++) {
			if (strlen(keys[i]) != klen || memcmp(k, keys[i], klen) != 0)
				continue;
			if (vals[i].p)
				return NL_EINVAL;
			vals[i] = (span){v, vlen};
		}
	}
	return rc == 0 ? 0 : NL_EINVAL;
}

static int nonempty_array(span v)
{
	const char *end = v.p + v.n, *p;
	if (!v.p || v.n == 0 || *v.p != '[')
		return 0;
	p = nl_json_text_skip_ws(v.p + 1, end);
	return p < end && *p != ']';
}

static char *append(char *w, const char *s, size_t n)
{
	memcpy(w, s, n);
	return w + n;
}

/* newLease(base) on base's text: *out (malloc'd, *out_len bytes) is base
 * with spec.leaseDurationSeconds and spec.renewTime replaced. NL_ENOTFOUND
 * when base does not have the shape described above; NL_ENOMEM. */
static int splice_renewal(char **out, size_t *out_len, const nl_lease_controller *lc,
                          const char *base, size_t len, const char *renew)
{
	static const char *const top_keys[] = {"metadata", "spec"};
	static const char *const meta_keys[] = {"ownerReferences"};
	static const char *const spec_keys[] = {"leaseDurationSeconds", "renewTime"};
	const char *end = base + len;
	span top, t[2], m[1], s[2];
	char val[2][NL_TIME_BUFSZ + 16];
	size_t vlen[2];

	top.p = nl_json_text_skip_ws(base, end);
	top.n = (size_t)(end - top.p);
	if (find_members(t, top, top_keys, 2) != 0 || !t[0].p || !t[1].p ||
	    find_members(m, t[0], meta_keys, 1) != 0 || !nonempty_array(m[0]) ||
	    find_members(s, t[1], spec_keys, 2) != 0 || !s[0].p || !s[1].p)
		return NL_ENOTFOUND;
	vlen[0] = (size_t)snprintf(val[0], sizeof(val[0]), "%d", (int)lc->lease_duration_seconds);
	vlen[1] = (size_t)snprintf(val[1], sizeof(val[1]), "\"%s\"", renew);

	/* The two values in text order, each replaced. */
	int a = s[0].p < s[1].p ? 0 : 1, b = 1 - a;
	const char *a_end = s[a].p + s[a].n, *b_end = s[b].p + s[b].n;
	size_t n = len - s[0].n - s[1].n + vlen[0] + vlen[1];
	char *body = malloc(n + 1), *w;
	if (!body)
		return NL_ENOMEM;
	w = append(body, base, (size_t)(s[a].p - base));
	w = append(w, val[a], vlen[a]);
	w = append(w, a_end, (size_t)(s[b].p - a_end));
	w = append(w, val[b], vlen[b]);
	w = append(w, b_end, (size_t)(end - b_end));
	*w = '\0';
	*out = body;
	*out_len = n;
	return 0;
}

/* A malloc'd copy of lease's compact text. */
static int tree_text(char **out, size_t *len_out, json_object *lease)
{
	size_t len = 0;
	const char *s = nl_json_compact(lease, &len);
	char *copy = s ? malloc(len + 1) : NULL;
	if (!copy)
		return NL_ENOMEM;
	memcpy(copy, s, len + 1);
	*out = copy;
	*len_out = len;
	return 0;
}

/* The object in text, as the client's decoder would build it. */
static int parse_text(json_object **out, const char *text, size_t len)
{
	json_tokener *tok = json_tokener_new();
	json_object *obj;
	enum json_tokener_error e;

	if (!tok)
		return NL_ENOMEM;
	obj = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (!obj || e != json_tokener_success || !json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		return NL_EPARSE;
	}
	*out = obj;
	return 0;
}

/* metadata.resourceVersion of a lease's text, for the log; "" when absent. */
static void text_resource_version(char *buf, size_t size, const char *text, size_t len)
{
	static const char *const meta[] = {"metadata"}, *const rv[] = {"resourceVersion"};
	span top = {nl_json_text_skip_ws(text, text + len), 0}, m, v;

	top.n = (size_t)(text + len - top.p);
	*buf = '\0';
	if (find_members(&m, top, meta, 1) == 0 && m.p && find_members(&v, m, rv, 1) == 0 && v.p &&
	    v.n >= 2 && *v.p == '"')
		snprintf(buf, size, "%.*s", (int)(v.n - 2), v.p + 1);
}

/* --- the cached lease in the controller's encoding ----------------------------- */

/* The cache and every base of a renewal are JSON text, or with update_pb
 * enveloped protobuf: these convert at the edges, where a tree exists
 * anyway (an answer to GET or CREATE, the unusual base). */

/* lease (borrowed) in the controller's encoding, malloc'd. */
static int lease_blob(char **out, size_t *len_out, const nl_lease_controller *lc,
                      json_object *lease)
{
	if (!lc->update_pb)
		return tree_text(out, len_out, lease);
	nl_buf b;
	nl_buf_init(&b, 0);
	int rc = nl_pb_encode_object(&b, lease);
	char *data = rc == 0 ? nl_buf_detach(&b, len_out) : NULL;
	nl_buf_free(&b);
	if (rc != 0)
		return rc;
	if (!data)
		return NL_ENOMEM;
	*out = data;
	return 0;
}

/* The tree of a blob in the controller's encoding. */
static int blob_tree(json_object **out, const nl_lease_controller *lc, const char *blob, size_t len)
{
	if (!lc->update_pb)
		return parse_text(out, blob, len);
	int rc = nl_pb_decode_object(out, NULL, blob, len, NULL);
	return rc == NL_ENOMEM ? rc : rc != 0 ? NL_EPARSE : 0;
}

static void blob_resource_version(char *buf, size_t size, const nl_lease_controller *lc,
                                  const char *blob, size_t len)
{
	if (lc->update_pb)
		nl__lease_protobuf_resource_version(buf, size, blob, len);
	else
		text_resource_version(buf, size, blob, len);
}

/* Replace the cached lease with text (ownership passes; NULL clears). */
static void set_latest_text(nl_lease_controller *lc, char *text, size_t len)
{
	free(lc->latest);
	json_object_put(lc->latest_tree);
	lc->latest_tree = NULL;
	lc->latest = text;
	lc->latest_len = text ? len : 0;
}

/* --- ensureLease / backoffEnsureLease ------------------------------------------- */

/* GET the lease; create it when missing. *out NULL (and 0) when it is missing
 * and the Node cannot be read: creating it without an owner is never right,
 * the next sync tries again. */
static int ensure_lease(json_object **out, int *created, nl_lease_controller *lc, nl_err *err)
{
	json_object *lease = NULL, *fresh = NULL;
	nl_status *status = NULL;
	int rc = lc->ops.get_lease(&lease, &status, lc->lease_namespace, lc->lease_name,
	                           lc->ops.payload);

	if (rc == 0) {
		nl_status_free(status);
		*out = lease;
		*created = 0;
		return 0;
	}
	if (rc != NL_ENOTFOUND)
		return call_failed(err, rc, status);
	nl_status_free(status);
	status = NULL;

	if ((rc = nl__lease_new_lease(&fresh, lc, NULL)) != 0)
		return nl_err_set(err, rc, "%s", nl_strerror(rc));
	if (!has_owner_references(fresh)) {
		json_object_put(fresh);
		*out = NULL;
		*created = 0;
		return 0;
	}
	rc = lc->ops.create_lease(&lease, &status, lc->lease_namespace, fresh, lc->ops.payload);
	json_object_put(fresh);
	if (rc != 0)
		return call_failed(err, rc, status);
	nl_status_free(status);
	*out = lease;
	*created = 1;
	return 0;
}

/* --- retryUpdateLease ---------------------------------------------------------- */

void nl__lease_set_latest(nl_lease_controller *lc, json_object *lease)
{
	char *text = NULL;
	size_t len = 0;

	/* Out of memory leaves nothing cached: the next sync GETs the lease. */
	if (lease && lease_blob(&text, &len, lc, lease) != 0)
		text = NULL;
	json_object_put(lease);
	set_latest_text(lc, text, len);
}

/* newLease(base) through json-c, for a base (text, or NULL for none) the
 * splice does not take. */
static int renewal_tree(json_object **out, nl_lease_controller *lc, const char *base, size_t len,
                        const char *renew)
{
	json_object *lease = NULL;
	int rc = base ? blob_tree(&lease, lc, base, len) : lease_skeleton(&lease, lc);

	if (rc == 0 && (rc = renew_tree(lease, lc, renew)) != 0)
		json_object_put(lease);
	else if (rc == 0)
		*out = lease;
	return rc;
}

/* The protobuf update: body is the spliced bytes, or NULL with lease the
 * tree to send. An answer in JSON (a server that does not speak protobuf
 * back) is converted once; a protobuf one is kept as it came, after a
 * check of its envelope. */
static int call_update_pb(char **out, size_t *out_len, nl_status **status, nl_lease_controller *lc,
                          json_object *lease, const char *body, size_t body_len)
{
	char *encoded = NULL, *answer = NULL;
	size_t answer_len = 0;
	int answer_pb = 1, rc;

	if (!body) {
		if ((rc = lease_blob(&encoded, &body_len, lc, lease)) != 0)
			return rc;
		body = encoded;
	}
	rc = lc->update_pb(&answer, &answer_len, &answer_pb, status, lc->lease_namespace,
	                   lc->lease_name, body, body_len, lc->ops.payload);
	free(encoded);
	if (rc != 0)
		return rc;
	if (!answer) {
		return NL_EPARSE;
	} else if (!answer_pb) {
		json_object *tree = NULL;
		rc = parse_text(&tree, answer, answer_len);
		free(answer);
		answer = NULL;
		if (rc == 0)
			rc = lease_blob(&answer, &answer_len, lc, tree);
		json_object_put(tree);
		if (rc != 0)
			return rc;
	} else if (!nl__lease_protobuf_is_object(answer, answer_len)) {
		free(answer);
		return NL_EPARSE;
	}
	/* Keep no slack of the receive buffer: one of these per node. */
	char *trimmed = realloc(answer, answer_len + 1);
	if (trimmed)
		answer = trimmed;
	*out = answer;
	*out_len = answer_len;
	return 0;
}

/* The server's answer to an update, as text (ownership to *out). */
static int call_update(char **out, size_t *out_len, nl_status **status, nl_lease_controller *lc,
                       json_object *lease, const char *body, size_t body_len)
{
	json_object *parsed = NULL, *updated = NULL;
	int rc;

	if (lc->update_pb)
		return call_update_pb(out, out_len, status, lc, lease, body, body_len);
	if (lc->update_text) {
		if (!body && !(body = nl_json_compact(lease, &body_len)))
			return NL_ENOMEM;
		rc = lc->update_text(out, out_len, status, lc->lease_namespace, lc->lease_name,
		                     body, body_len, lc->ops.payload);
		if (rc == 0 && (!*out || !is_json_object(*out, *out_len))) {
			free(*out);
			*out = NULL;
			return NL_EPARSE;
		}
		/* Keep no slack of the receive buffer: one of these per node. */
		char *trimmed = rc == 0 ? realloc(*out, *out_len + 1) : NULL;
		if (trimmed)
			*out = trimmed;
		return rc;
	}
	if (!lease && (rc = parse_text(&parsed, body, body_len)) != 0)
		return rc;
	rc = lc->ops.update_lease(&updated, status, lc->lease_namespace, lease ? lease : parsed,
	                          lc->ops.payload);
	json_object_put(parsed);
	if (rc == 0) {
		/* Renewed; if the copy fails, nothing is cached and the next sync
		 * GETs the lease. */
		if (tree_text(out, out_len, updated) != 0)
			*out = NULL;
		json_object_put(updated);
	}
	return rc;
}

/* One UPDATE of newLease(base), base the text of a lease or NULL.
 * NL_ENOTFOUND without a request when the Node cannot be read and the
 * lease has no owner yet (later upstream: a deleted Node must not be kept
 * alive by its lease). */
static int update_once(nl_lease_controller *lc, const char *base, size_t base_len)
{
	json_object *lease = NULL;
	nl_status *status = NULL;
	char *body = NULL, *answer = NULL, renew[NL_TIME_BUFSZ], rv[64];
	size_t body_len = 0, answer_len = 0;
	nl_err err;
	int rc;

	int64_t now = nl_clock_now(lc->clock);
	nl_time_format_micro(renew, now);
	if (!base)
		rc = NL_ENOTFOUND;
	else if (lc->update_pb)
		rc = nl__lease_splice_protobuf(&body, &body_len, base, base_len,
		                               lc->lease_duration_seconds, now);
	else
		rc = splice_renewal(&body, &body_len, lc, base, base_len, renew);
	if (rc == NL_ENOTFOUND)
		rc = renewal_tree(&lease, lc, base, base_len, renew);
	if (rc != 0) {
		NL_LOG_ERROR(nl_strerror(rc), "Failed to prepare node lease");
		return rc;
	}
	if (lease && !has_owner_references(lease)) {
		NL_LOG_ERROR("the node cannot be read, not renewing",
		             "Failed to prepare node lease",
		             NL_KV_REF("node", NULL, lc->node_name));
		json_object_put(lease);
		lc->round_unsent++;
		return NL_ENOTFOUND;
	}
	rc = call_update(&answer, &answer_len, &status, lc, lease, body, body_len);
	json_object_put(lease);
	free(body);
	if (rc == 0) {
		nl_status_free(status);
		/* base may be lc->latest: not used from here on. */
		set_latest_text(lc, answer, answer_len);
		if (nl_log_enabled(4)) {
			blob_resource_version(rv, sizeof(rv), lc, lc->latest ? lc->latest : "",
			                      lc->latest_len);
			NL_LOG_V(4, "Renewed node lease",
			         NL_KV_REF("lease", lc->lease_namespace, lc->lease_name),
			         NL_KV_STR("renewTime", renew), NL_KV_STR("resourceVersion", rv));
		}
		return 0;
	}
	call_failed(&err, rc, status);
	NL_LOG_ERROR(err.msg, "Failed to update lease");
	return rc;
}

/* --- sync as a state machine -------------------------------------------------------- */

/* Upstream's sync is straight-line code that sleeps inside
 * backoffEnsureLease. Here the same steps run as a state machine: each
 * backoff wait ends a step, and the wait is either a blocking sleep
 * (nl_lease_controller_sync, the seed's shape) or a timer on the loop (the
 * periodic run), so a controller in a 7 s backoff holds no thread and
 * every other timer of the loop fires on time (docs/decisions/0032). The
 * requests, log lines and waits are the seed's, in its order:
 *
 *   sync:           [RENEW round CACHED]? → ENSURE (own) → [RENEW round ENSURED]
 *   retryUpdate:    RENEW attempt 0..4; a 409 → ENSURE (for the conflict) → RENEW
 *   backoffEnsure:  ENSURE; failed → wait 200 ms doubling to 7 s → ENSURE */

/* sync_step: the sync must wait *wait µs, then step again. */
#define STEP_WAIT 1
/* renew_round: a conflict sent the round to ensure the lease first. */
#define ROUND_ENSURE 2

static void sync_reset(nl_lease_controller *lc)
{
	struct lease_sync *s = &lc->sync;
	free(s->base);
	*s = (struct lease_sync){.stage = SYNC_IDLE};
}

/* The sync ended with rc: back to idle. */
static int sync_finish(nl_lease_controller *lc, int rc)
{
	sync_reset(lc);
	return rc;
}

static void begin_round(nl_lease_controller *lc, int round)
{
	struct lease_sync *s = &lc->sync;
	s->stage = SYNC_RENEW;
	s->round = round;
	s->attempt = 0;
	lc->round_attempts = lc->round_unsent = 0;
}

static void begin_ensure(nl_lease_controller *lc, int for_conflict)
{
	struct lease_sync *s = &lc->sync;
	s->stage = SYNC_ENSURE;
	s->ensure_for_conflict = for_conflict;
	s->sleep = NL_LEASE_BACKOFF_START_USEC;
}

/* retryUpdateLease's loop from the current attempt: 0 when one update
 * succeeded, ROUND_ENSURE after a conflict, else the last failure's code
 * (NL_ECANCELED on stop). */
static int renew_round(nl_lease_controller *lc)
{
	struct lease_sync *s = &lc->sync;
	int rc = s->last_rc ? s->last_rc : NL_ERROR;

	while (s->attempt < NL_LEASE_MAX_UPDATE_RETRIES) {
		int i = s->attempt++;
		if (nl_clock_stopped(lc->clock))
			return NL_ECANCELED;
		lc->round_attempts++;
		/* The base is lc->latest, which a success replaces: not used after. */
		rc = s->has_base ? update_once(lc, s->base, s->base_len)
		                 : update_once(lc, lc->latest, lc->latest_len);
		s->last_rc = rc;
		if (rc == 0)
			return 0;
		if (rc == NL_ECONFLICT) {
			/* Optimistic lock lost: take the server's current lease. Not a
			 * connectivity problem, so no hook. */
			begin_ensure(lc, 1);
			return ROUND_ENSURE;
		}
		if (i > 0 && lc->hook)
			lc->hook(lc->hook_payload);
	}
	return rc;
}

/* retryUpdateLease's error for the round just failed. Upstream always sends
 * its UPDATEs and says "failed 5 attempts"; here an attempt that found the
 * Node unreadable sends nothing, and the message says so. */
static void round_error(char *out, size_t outlen, const nl_lease_controller *lc)
{
	int n = lc->round_attempts, unsent = lc->round_unsent;
	if (unsent == 0)
		snprintf(out, outlen, "failed %d attempts to update node lease", n);
	else if (unsent == n)
		snprintf(out, outlen,
		         "node \"%s\" cannot be read, no node lease update sent in %d attempts",
		         lc->node_name, n);
	else
		snprintf(
		    out, outlen,
		    "failed %d attempts to update node lease, %d of them not sent: node \"%s\" "
		    "cannot be read",
		    n, unsent, lc->node_name);
}

/* A retry round ended with rc: what sync does next. */
static int round_over(nl_lease_controller *lc, int rc)
{
	char d[NL_DURATION_BUFSZ], why[384];

	switch (lc->sync.round) {
	case ROUND_CACHED:
		if (rc == 0 || rc == NL_ECANCELED)
			return sync_finish(lc, rc);
		round_error(why, sizeof(why), lc);
		NL_LOG_INFO("failed to update lease using latest lease, fallback to ensure lease",
		            NL_KV_STR("err", why));
		free(lc->sync.base);
		lc->sync.base = NULL;
		lc->sync.has_base = 0;
		begin_ensure(lc, 0);
		return 0;
	case ROUND_ENSURED:
		if (rc != 0 && rc != NL_ECANCELED) {
			nl_duration_format(d, nl_lease_controller_renew_interval(lc));
			round_error(why, sizeof(why), lc);
			NL_LOG_ERROR(why, "Will retry updating lease", NL_KV_STR("interval", d));
		}
		return sync_finish(lc, rc);
	default: /* ROUND_ALONE: nl__lease_retry_update */
		return sync_finish(lc, rc);
	}
}

/* ensureLease succeeded with lease (ownership passes; NULL when the Node
 * cannot be read). The sync's code when it ended (idle again), else 0. */
static int ensured(nl_lease_controller *lc, json_object *lease, int created)
{
	struct lease_sync *s = &lc->sync;

	if (s->ensure_for_conflict) {
		free(s->base);
		s->base = NULL;
		s->base_len = 0;
		s->has_base = 1;
		int rc = lease ? lease_blob(&s->base, &s->base_len, lc, lease) : 0;
		json_object_put(lease);
		if (rc != 0)
			return round_over(lc, NL_ENOMEM);
		s->stage = SYNC_RENEW;
		return 0;
	}
	/* As upstream, the cache takes whatever ensure produced, none included. */
	nl__lease_set_latest(lc, lease);
	if (!lease)
		return sync_finish(lc, NL_ENOTFOUND);
	if (created) {
		NL_LOG_V(4, "Created node lease",
		         NL_KV_REF("lease", lc->lease_namespace, lc->lease_name));
		return sync_finish(lc, 0);
	}
	if (!lc->latest)
		return sync_finish(lc, NL_ENOMEM);
	begin_round(lc, ROUND_ENSURED);
	return 0;
}

/* backoffEnsureLease after a stop: the conflict's round ends canceled, the
 * sync's own ensure leaves nothing cached (as the seed's nil lease). */
static int ensure_canceled(nl_lease_controller *lc)
{
	if (lc->sync.ensure_for_conflict)
		return round_over(lc, NL_ECANCELED);
	nl__lease_set_latest(lc, NULL);
	return sync_finish(lc, NL_ECANCELED);
}

/* One ensureLease attempt: STEP_WAIT with the backoff in *wait, the sync's
 * code when it ended (idle again), else 0 to go on stepping. */
static int ensure_step(nl_lease_controller *lc, int64_t *wait)
{
	struct lease_sync *s = &lc->sync;
	json_object *lease = NULL;
	char d[NL_DURATION_BUFSZ];
	int created = 0;
	nl_err err;

	if (nl_clock_stopped(lc->clock))
		return ensure_canceled(lc);
	if (ensure_lease(&lease, &created, lc, &err) == 0)
		return ensured(lc, lease, created);
	s->sleep =
	    2 * s->sleep < NL_LEASE_MAX_BACKOFF_USEC ? 2 * s->sleep : NL_LEASE_MAX_BACKOFF_USEC;
	nl_duration_format(d, s->sleep);
	NL_LOG_ERROR(err.msg, "Failed to ensure lease exists, will retry",
	             NL_KV_STR("interval", d));
	*wait = s->sleep;
	return STEP_WAIT;
}

/* Run the sync from where it stands until it ends (its code, the machine
 * idle again) or must wait (STEP_WAIT, *wait µs). */
static int sync_step(nl_lease_controller *lc, int64_t *wait)
{
	struct lease_sync *s = &lc->sync;
	int rc;

	for (;;) {
		switch (s->stage) {
		case SYNC_IDLE:
			if (lc->latest) {
				/* The lease is (almost) only written by us: update
				 * from the cached copy and skip the GET, sparing etcd
				 * and the apiserver. */
				begin_round(lc, ROUND_CACHED);
			} else {
				begin_ensure(lc, 0);
			}
			break;
		case SYNC_RENEW:
			rc = renew_round(lc);
			if (rc == ROUND_ENSURE)
				break;
			rc = round_over(lc, rc);
			if (s->stage == SYNC_IDLE)
				return rc;
			break;
		case SYNC_ENSURE:
			rc = ensure_step(lc, wait);
			if (rc == STEP_WAIT || s->stage == SYNC_IDLE)
				return rc;
			break;
		}
	}
}

/* Drive the sync to its end on this thread, sleeping through the waits. */
static int sync_blocking(nl_lease_controller *lc)
{
	int64_t wait = 0;
	int rc;
	/* A stopped clock cuts the sleep short; the next step sees the stop. */
	while ((rc = sync_step(lc, &wait)) == STEP_WAIT)
		nl_clock_sleep(lc->clock, wait);
	return rc;
}

int nl__lease_retry_update(nl_lease_controller *lc, json_object *base)
{
	struct lease_sync *s = &lc->sync;
	char *text = NULL;
	size_t len = 0;
	int rc = base ? lease_blob(&text, &len, lc, base) : 0;

	if (rc != 0)
		return rc;
	sync_reset(lc);
	begin_round(lc, ROUND_ALONE);
	s->has_base = 1;
	s->base = text;
	s->base_len = len;
	return sync_blocking(lc);
}

int nl_lease_controller_sync(nl_lease_controller *lc)
{
	/* A periodic sync waiting in its backoff is the sync under way: finish
	 * that one here rather than start a second. */
	if (lc->sync.wait_timer) {
		nl_clock_cancel(lc->clock, lc->sync.wait_timer);
		lc->sync.wait_timer = 0;
		/* The rest of its wait first: the server sees the same schedule. */
		int64_t left = lc->sync.wait_due - nl_clock_mono(lc->clock);
		if (left > 0)
			nl_clock_sleep(lc->clock, left);
	}
	int held = lc->sync.stage != SYNC_IDLE;
	int rc = sync_blocking(lc);
	if (held)
		nl_jitter_until_done(&lc->loop);
	return rc;
}

/* --- lifecycle ----------------------------------------------------------------------- */

static uint64_t default_seed(const char *node_name, int64_t now)
{
	/* FNV-1a of the node name mixed with the start time: nodes started
	 * together still spread their heartbeats. */
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	for (const char *p = node_name; *p; p++)
		h = (h ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
	return h ^ (uint64_t)now;
}

int nl_lease_controller_new(nl_lease_controller **out, const nl_lease_controller_options *opts)
{
	const nl_lease_ops *ops = opts ? opts->ops : NULL;
	nl_lease_controller *lc;

	if (!opts || !opts->clock || !ops || !ops->get_lease || !ops->create_lease ||
	    !ops->update_lease || !ops->get_node || !opts->node_name || !*opts->node_name ||
	    opts->lease_duration_seconds < 0)
		return NL_EINVAL;
	if (!(lc = calloc(1, sizeof(*lc))))
		return NL_ENOMEM;
	lc->clock = opts->clock;
	lc->ops = *ops;
	lc->update_text = opts->update_lease_text;
	lc->update_pb = opts->update_lease_protobuf;
	lc->node_name = strdup(opts->node_name);
	lc->holder_identity = dup_or(opts->holder_identity, opts->node_name);
	lc->lease_name = dup_or(opts->lease_name, opts->node_name);
	lc->lease_namespace = dup_or(opts->lease_namespace, NL_NAMESPACE_NODE_LEASE);
	if (!lc->node_name || !lc->holder_identity || !lc->lease_name || !lc->lease_namespace) {
		nl_lease_controller_free(lc);
		return NL_ENOMEM;
	}
	lc->lease_duration_seconds = opts->lease_duration_seconds
	                                 ? opts->lease_duration_seconds
	                                 : NL_LEASE_DEFAULT_DURATION_SECONDS;
	lc->hook = opts->on_repeated_heartbeat_failure;
	lc->hook_payload = opts->hook_payload;
	lc->seed = opts->jitter_seed ? opts->jitter_seed
	                             : default_seed(opts->node_name, nl_clock_now(opts->clock));
	*out = lc;
	return 0;
}

void nl_lease_controller_free(nl_lease_controller *lc)
{
	if (!lc)
		return;
	nl_lease_controller_stop(lc);
	set_latest_text(lc, NULL, 0);
	free(lc->node_name);
	free(lc->holder_identity);
	free(lc->lease_name);
	free(lc->lease_namespace);
	free(lc);
}

int64_t nl_lease_controller_renew_interval(const nl_lease_controller *lc)
{
	return (int64_t)((double)lc->lease_duration_seconds * (double)NL_USEC_PER_SEC *
	                 NL_LEASE_RENEW_INTERVAL_FRACTION);
}

static void backoff_over(void *payload);

/* Step the periodic sync; at a wait, a timer resumes it. 1 when it ended. */
static int sync_async(nl_lease_controller *lc)
{
	int64_t wait = 0;
	int rc;

	/* Failures are logged inside and retried at the next interval. */
	while ((rc = sync_step(lc, &wait)) == STEP_WAIT) {
		lc->sync.wait_due = nl_clock_mono(lc->clock) + wait;
		rc = nl_clock_sleep_async(&lc->sync.wait_timer, lc->clock, wait, backoff_over, lc);
		if (rc == 0)
			return 0;
		lc->sync.wait_timer = 0;
		if (rc != NL_ECANCELED) {
			/* No timer, no way to wait: give this sync up; the next
			 * interval starts over. */
			NL_LOG_ERROR(nl_strerror(rc), "Cannot schedule the node lease backoff");
			sync_reset(lc);
			return 1;
		}
		/* Stopped: the next step ends the sync canceled. */
	}
	return 1;
}

static void backoff_over(void *payload)
{
	nl_lease_controller *lc = payload;
	lc->sync.wait_timer = 0;
	if (sync_async(lc))
		nl_jitter_until_done(&lc->loop);
}

static void sync_tick(void *payload)
{
	nl_lease_controller *lc = payload;
	if (!sync_async(lc))
		nl_jitter_until_hold(&lc->loop);
}

int nl_lease_controller_start(nl_lease_controller *lc)
{
	if (lc->loop.running)
		return NL_EINVAL;
	return nl_jitter_until_start(&lc->loop, lc->clock, nl_lease_controller_renew_interval(lc),
	                             NL_LEASE_JITTER_FACTOR, 1, lc->seed, sync_tick, lc);
}

void nl_lease_controller_stop(nl_lease_controller *lc)
{
	nl_jitter_until_stop(&lc->loop);
	if (lc->sync.wait_timer)
		nl_clock_cancel(lc->clock, lc->sync.wait_timer);
	/* A sync waiting in its backoff is abandoned; the cache stays. */
	sync_reset(lc);
}

int nl_lease_controller_kick(nl_lease_controller *lc)
{
	/* Only a controller idle between syncs without a lease: one in its
	 * backoff tries again within a step anyway, one with a lease renews. */
	if (!lc->loop.running || lc->latest || lc->sync.stage != SYNC_IDLE)
		return 0;
	return nl_jitter_until_kick(&lc->loop);
}

int nl_lease_controller_set_lease_duration(nl_lease_controller *lc, int32_t seconds)
{
	if (seconds <= 0)
		return NL_EINVAL;
	lc->lease_duration_seconds = seconds;
	lc->loop.period = nl_lease_controller_renew_interval(lc);
	return 0;
}

json_object *nl_lease_controller_latest(const nl_lease_controller *lc)
{
	/* Parsed on first use and kept until the cache changes. Every
	 * controller comes from nl_lease_controller_new (calloc), so it is not
	 * const underneath. */
	nl_lease_controller *self = (nl_lease_controller *)lc;
	if (!self->latest_tree && self->latest &&
	    blob_tree(&self->latest_tree, self, self->latest, self->latest_len) != 0)
		self->latest_tree = NULL;
	return self->latest_tree;
}
