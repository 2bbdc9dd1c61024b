/* List + watch + cache + handlers, on the client's loop. */
#include <nodelet/api.h>
#include <nodelet/informer.h>
#include <nodelet/meta.h>
#include <nodelet/watch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube.h"

#define DEFAULT_PAGE 500
#define BACKOFF_START (800 * NL_USEC_PER_MSEC)
#define BACKOFF_MAX (30 * NL_USEC_PER_SEC)

struct nl_informer {
	nl_client *client;
	char *path, *label_selector, *field_selector;
	int64_t resync_usec;
	long page_size;
	int watch_timeout;
	nl_informer_handlers h;
	void (*on_error)(const nl_result *res, void *payload);
	void *payload;
	json_object *cache;   /* key ("ns/name" or "name") -> object */
	json_object *pending; /* the list being paged in */
	char *list_rv;
	nl_watch *watch;
	nl_call *list_call;
	uint64_t relist_timer, resync_timer;
	int64_t backoff;
	unsigned lists;
	int synced;
	int depth;
	int stopping;
};

static void list_page(nl_informer *inf, const char *token);

static void informer_free(nl_informer *inf)
{
	nl_clock *clock = nl_client_clock(inf->client);
	if (inf->relist_timer)
		nl_clock_cancel(clock, inf->relist_timer);
	if (inf->resync_timer)
		nl_clock_cancel(clock, inf->resync_timer);
	nl_call_cancel(inf->list_call);
	nl_watch_stop(inf->watch);
	json_object_put(inf->cache);
	json_object_put(inf->pending);
	free(inf->list_rv);
	free(inf->path);
	free(inf->label_selector);
	free(inf->field_selector);
	free(inf);
}

/* After any handler: free if it asked to stop. Returns 1 when freed. */
static int leave(nl_informer *inf)
{
	inf->depth--;
	if (inf->depth == 0 && inf->stopping) {
		informer_free(inf);
		return 1;
	}
	return 0;
}

/* The caller must leave() afterwards. */
static void report(nl_informer *inf, const nl_result *res)
{
	inf->depth++;
	if (inf->on_error)
		inf->on_error(res, inf->payload);
}

/* client-go's MetaNamespaceKeyFunc. */
static void key_of(char *out, size_t n, const char *ns, const char *name)
{
	if (ns && *ns)
		snprintf(out, n, "%s/%s", ns, name);
	else
		snprintf(out, n, "%s", name);
}

static int obj_key(char *out, size_t n, json_object *obj)
{
	const char *name = nl_meta_name(obj);
	if (!name)
		return NL_EINVAL;
	key_of(out, n, nl_meta_namespace(obj), name);
	return 0;
}

/* ---- handlers --------------------------------------------------------------- */

static int call_add(nl_informer *inf, json_object *obj)
{
	if (!inf->h.on_add)
		return 0;
	inf->depth++;
	inf->h.on_add(obj, inf->payload);
	return leave(inf);
}

static int call_update(nl_informer *inf, json_object *old_obj, json_object *new_obj)
{
	if (!inf->h.on_update)
		return 0;
	inf->depth++;
	inf->h.on_update(old_obj, new_obj, inf->payload);
	return leave(inf);
}

static int call_delete(nl_informer *inf, json_object *obj)
{
	if (!inf->h.on_delete)
		return 0;
	inf->depth++;
	inf->h.on_delete(obj, inf->payload);
	return leave(inf);
}

/* ---- watch ------------------------------------------------------------------------ */

/* Returns 1 when the informer was freed by a handler. */
static int apply_event(nl_informer *inf, const nl_watch_event *ev)
{
	char key[640];
	if (obj_key(key, sizeof(key), ev->object) != 0)
		return 0;
	json_object *old = NULL;
	if (json_object_object_get_ex(inf->cache, key, &old))
		json_object_get(old);
	int freed = 0;
	if (ev->type == NL_WATCH_DELETED) {
		json_object_object_del(inf->cache, key);
		freed = call_delete(inf, ev->object);
	} else if (ev->type == NL_WATCH_ADDED || ev->type == NL_WATCH_MODIFIED) {
		json_object *obj = json_object_get(ev->object);
		json_object_object_add(inf->cache, key, obj);
		freed = old ? call_update(inf, old, obj) : call_add(inf, obj);
	}
	json_object_put(old);
	return freed;
}

static int on_watch_event(const nl_watch_event *ev, void *payload)
{
	nl_informer *inf = payload;
	if (inf->stopping)
		return 0;
	apply_event(inf, ev);
	return 0;
}

static void on_watch_error(const nl_result *res, void *payload)
{
	nl_informer *inf = payload;
	if (res->code == NL_EGONE) {
		/* The reflector's answer to "too old resource version": list
		 * again and watch from the new list. */
		json_object_put(inf->pending);
		inf->pending = NULL;
		list_page(inf, NULL);
		return;
	}
	report(inf, res);
	leave(inf);
}

static void start_watch(nl_informer *inf)
{
	if (inf->watch) {
		if (nl_watch_restart(inf->watch, inf->list_rv) == 0)
			return;
		nl_watch_stop(inf->watch);
		inf->watch = NULL;
	}
	nl_watch_options wo = {0};
	wo.path = inf->path;
	wo.label_selector = inf->label_selector;
	wo.field_selector = inf->field_selector;
	wo.resource_version = inf->list_rv;
	wo.timeout_seconds = inf->watch_timeout;
	wo.on_event = on_watch_event;
	wo.on_error = on_watch_error;
	wo.payload = inf;
	if (nl_watch_start(&inf->watch, inf->client, &wo) != 0)
		inf->watch = NULL; /* out of memory: the next relist tries again */
}

/* ---- list -------------------------------------------------------------------------- */

/* List items lack kind/apiVersion; give them the list's, as watch events
 * have them. */
static void set_type(json_object *item, const char *list_kind, const char *api_version)
{
	size_t n = list_kind ? strlen(list_kind) : 0;
	if (n > 4 && strcmp(list_kind + n - 4, "List") == 0 &&
	    !json_object_object_get_ex(item, "kind", NULL)) {
		json_object_object_add(item, "kind",
		                       json_object_new_string_len(list_kind, (int)n - 4));
	}
	if (api_version && !json_object_object_get_ex(item, "apiVersion", NULL))
		json_object_object_add(item, "apiVersion", json_object_new_string(api_version));
}

/* Make the cache the list's items, telling the handlers what changed.
 * Returns 1 when a handler freed the informer. */
static int replace(nl_informer *inf, json_object *list)
{
	json_object *items = NULL, *fresh = json_object_new_object();
	const char *kind = nl_json_get_string(list, "kind");
	const char *api_version = nl_json_get_string(list, "apiVersion");
	char key[640];
	if (!fresh)
		return 0;
	json_object_object_get_ex(list, "items", &items);
	size_t n =
	    json_object_is_type(items, json_type_array) ? json_object_array_length(items) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *item = json_object_array_get_idx(items, i);
		if (obj_key(key, sizeof(key), item) != 0)
			continue;
		set_type(item, kind, api_version);
		json_object_object_add(fresh, key, json_object_get(item));
	}
	json_object *old = inf->cache;
	inf->cache = fresh;
	inf->synced = 1;
	int freed = 0;
	/* A handler may stop (free) the informer: keep both maps alive. */
	json_object_get(fresh);
	json_object_object_foreach(fresh, k, obj)
	{
		json_object *prev = NULL;
		if (freed)
			break;
		if (!json_object_object_get_ex(old, k, &prev)) {
			freed = call_add(inf, obj);
		} else {
			const char *a = nl_meta_resource_version(prev),
			           *b = nl_meta_resource_version(obj);
			if (!a || !b || strcmp(a, b) != 0)
				freed = call_update(inf, prev, obj);
		}
	}
	json_object_object_foreach(old, k2, gone)
	{
		if (freed)
			break;
		if (!json_object_object_get_ex(fresh, k2, NULL))
			freed = call_delete(inf, gone);
	}
	json_object_put(old);
	json_object_put(fresh);
	return freed;
}

static void relist_due(void *payload)
{
	nl_informer *inf = payload;
	inf->relist_timer = 0;
	list_page(inf, NULL);
}

static void retry_list(nl_informer *inf)
{
	int64_t d = inf->backoff;
	inf->backoff = inf->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : inf->backoff * 2;
	if (nl_clock_after(&inf->relist_timer, nl_client_clock(inf->client), d, relist_due, inf) !=
	    0)
		inf->relist_timer = 0;
}

static void on_list(json_object *obj, const nl_result *res, void *payload)
{
	nl_informer *inf = payload;
	inf->list_call = NULL;
	if (!obj) {
		json_object_put(inf->pending);
		inf->pending = NULL;
		report(inf, res);
		if (leave(inf))
			return;
		retry_list(inf);
		return;
	}
	if (!inf->pending) {
		inf->pending = json_object_get(obj);
	} else {
		json_object *items = NULL, *dst = NULL;
		json_object_object_get_ex(obj, "items", &items);
		json_object_object_get_ex(inf->pending, "items", &dst);
		for (size_t i = 0; dst && items && i < json_object_array_length(items); i++)
			json_object_array_add(dst,
			                      json_object_get(json_object_array_get_idx(items, i)));
	}
	const char *token = nl_json_get_string(obj, "metadata.continue");
	if (token && *token) {
		list_page(inf, token);
		return;
	}
	json_object *list = inf->pending;
	inf->pending = NULL;
	/* The first page's resourceVersion is the whole list's snapshot. */
	const char *rv = nl_meta_resource_version(list);
	char *copy = strdup(rv ? rv : "");
	if (copy) {
		free(inf->list_rv);
		inf->list_rv = copy;
	}
	inf->backoff = BACKOFF_START;
	inf->lists++;
	int freed = replace(inf, list);
	json_object_put(list);
	if (!freed)
		start_watch(inf);
}

static void list_page(nl_informer *inf, const char *token)
{
	nl_list_options lo = {0};
	lo.label_selector = inf->label_selector;
	lo.field_selector = inf->field_selector;
	lo.limit = inf->page_size;
	lo.continue_token = token;
	if (inf->list_call)
		return;
	if (nl_api_list_async(&inf->list_call, inf->client, inf->path, &lo, on_list, inf) != 0) {
		inf->list_call = NULL;
		retry_list(inf);
	}
}

/* ---- resync ------------------------------------------------------------------------ */

static void resync_due(void *payload)
{
	nl_informer *inf = payload;
	inf->resync_timer = 0;
	/* Handlers may change the cache (stop, say): walk a snapshot. */
	json_object *snap = json_object_get(inf->cache);
	int freed = 0;
	inf->depth++;
	json_object_object_foreach(snap, k, obj)
	{
		(void)k;
		if (inf->stopping)
			break;
		if (inf->h.on_update)
			inf->h.on_update(obj, obj, inf->payload);
	}
	json_object_put(snap);
	freed = leave(inf);
	if (!freed && nl_clock_after(&inf->resync_timer, nl_client_clock(inf->client),
	                             inf->resync_usec, resync_due, inf) != 0)
		inf->resync_timer = 0;
}

/* ---- public ------------------------------------------------------------------------ */

int nl_informer_start(nl_informer **out, nl_client *c, const nl_informer_options *o)
{
	if (!c || !o || !o->path || o->path[0] != '/' || o->resync_usec < 0)
		return NL_EINVAL;
	nl_informer *inf = calloc(1, sizeof(*inf));
	if (!inf)
		return NL_ENOMEM;
	inf->client = c;
	inf->path = strdup(o->path);
	inf->label_selector = o->label_selector ? strdup(o->label_selector) : NULL;
	inf->field_selector = o->field_selector ? strdup(o->field_selector) : NULL;
	inf->resync_usec = o->resync_usec;
	inf->page_size = o->page_size > 0 ? o->page_size : DEFAULT_PAGE;
	inf->watch_timeout = o->watch_timeout_seconds;
	inf->h = o->handlers;
	inf->on_error = o->on_error;
	inf->payload = o->payload;
	inf->backoff = BACKOFF_START;
	inf->cache = json_object_new_object();
	inf->list_rv = strdup("");
	if (!inf->path || !inf->cache || !inf->list_rv ||
	    (o->label_selector && !inf->label_selector) ||
	    (o->field_selector && !inf->field_selector) ||
	    (inf->resync_usec > 0 && nl_clock_after(&inf->resync_timer, nl_client_clock(c),
	                                            inf->resync_usec, resync_due, inf) != 0)) {
		informer_free(inf);
		return NL_ENOMEM;
	}
	list_page(inf, NULL);
	*out = inf;
	return 0;
}

void nl_informer_stop(nl_informer *inf)
{
	if (!inf)
		return;
	if (inf->depth > 0) {
		inf->stopping = 1;
		return;
	}
	informer_free(inf);
}

int nl_informer_synced(const nl_informer *inf)
{
	return inf->synced;
}

json_object *nl_informer_get(const nl_informer *inf, const char *ns, const char *name)
{
	char key[640];
	json_object *obj = NULL;
	key_of(key, sizeof(key), ns, name);
	return json_object_object_get_ex(inf->cache, key, &obj) ? obj : NULL;
}

size_t nl_informer_count(const nl_informer *inf)
{
	return (size_t)json_object_object_length(inf->cache);
}

void nl_informer_foreach(const nl_informer *inf, void (*fn)(json_object *obj, void *payload),
                         void *payload)
{
	json_object_object_foreach(inf->cache, k, obj)
	{
		(void)k;
		fn(obj, payload);
	}
}

const char *nl_informer_resource_version(const nl_informer *inf)
{
	return inf->watch ? nl_watch_resource_version(inf->watch) : inf->list_rv;
}

unsigned nl_informer_lists(const nl_informer *inf)
{
	return inf->lists;
}
