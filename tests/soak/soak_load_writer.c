/* A load soak writer (soak_load.h): random operations on the shared
 * counter and on its own ConfigMaps, each answer checked against what the
 * writer knows the server acknowledged before — read-your-writes on every
 * read, no lost update on every write. */
#include <nodelet/meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soak_load.h"

#define COLLECTION "/api/v1/namespaces/" SOAK_NS "/configmaps"

static const char *const op_names[SOAK_NOPS] = {"increment", "create", "get",  "update",
                                                "patch",     "delete", "list", "missing"};

const char *soak_op_name(soak_op op)
{
	return op < SOAK_NOPS ? op_names[op] : "?";
}

/* "soak-w3-7" */
static void object_name(char *out, size_t outlen, unsigned writer, unsigned k)
{
	snprintf(out, outlen, "soak-w%u-%u", writer, k);
}

typedef struct {
	soak_writer *w;
	soak_http *h;
	char why[1024];
} ctx;

/* One request; -1 (already reported) when the answer was not valid. */
static long call(ctx *c, json_object **out, const char *method, const char *path, const char *body,
                 const char *content_type)
{
	c->w->requests++;
	if (soak_rand_chance(&c->w->rng, 0.05))
		soak_http_fresh(c->h);
	long code =
	    soak_http_do(c->h, out, method, path, body, content_type, c->why, sizeof(c->why));
	if (code < 0)
		soak_fail("writer %u: %s", c->w->id, c->why);
	return code;
}

static int expect(ctx *c, long code, long want, const char *what, json_object *answer)
{
	if (code == want)
		return 0;
	if (code >= 0)
		soak_fail("writer %u: %s answered %ld, expected %ld: %.300s", c->w->id, what, code,
		          want, answer ? json_object_to_json_string(answer) : "");
	return -1;
}

static unsigned long data_ulong(json_object *obj, const char *key)
{
	json_object *data = json_object_object_get(obj, "data"), *v;
	if (!json_object_object_get_ex(data, key, &v))
		return 0;
	return strtoul(json_object_get_string(v), NULL, 10);
}

static void set_data(json_object *obj, const char *key, unsigned long value)
{
	char s[32];
	json_object *data = json_object_object_get(obj, "data");
	if (!json_object_is_type(data, json_type_object)) {
		data = json_object_new_object();
		json_object_object_add(obj, "data", data);
	}
	snprintf(s, sizeof(s), "%lu", value);
	json_object_object_add(data, key, json_object_new_string(s));
}

/* The object as the server holds it must be what this writer last wrote. */
static int check_object(ctx *c, json_object *obj, unsigned k, const char *how)
{
	soak_object *o = &c->w->objects[k];
	unsigned long v = data_ulong(obj, "v"), p = data_ulong(obj, "p");
	if (v == o->v && p == o->p)
		return 0;
	soak_fail("writer %u: %s of object %u shows v=%lu p=%lu, acknowledged v=%lu p=%lu",
	          c->w->id, how, k, v, p, o->v, o->p);
	return -1;
}

/* --- the shared counter ---------------------------------------------------------------------- */

static void increment(ctx *c)
{
	char key[16], path[128];
	snprintf(key, sizeof(key), "w%u", c->w->id);
	snprintf(path, sizeof(path), COLLECTION "/" SOAK_SHARED);
	for (;;) {
		json_object *cm = NULL, *put = NULL;
		long code = call(c, &cm, "GET", path, NULL, NULL);
		if (expect(c, code, 200, "GET of the shared counter", cm) != 0) {
			json_object_put(cm);
			return;
		}
		unsigned long have = data_ulong(cm, key);
		if (have != c->w->increments) {
			soak_fail(
			    "writer %u: the shared counter shows %lu, acknowledged %lu (a lost "
			    "or phantom update)",
			    c->w->id, have, c->w->increments);
			json_object_put(cm);
			return;
		}
		set_data(cm, key, have + 1);
		code = call(c, &put, "PUT", path, json_object_to_json_string(cm), NULL);
		json_object_put(cm);
		if (code == 409) {
			c->w->conflicts++;
			json_object_put(put);
			continue;
		}
		if (expect(c, code, 200, "PUT of the shared counter", put) == 0)
			c->w->increments++;
		json_object_put(put);
		return;
	}
}

/* --- own objects ----------------------------------------------------------------------------- */

/* A random object that exists (want 1) or not (want 0); -1 when none. */
static int pick(ctx *c, int want)
{
	unsigned start = (unsigned)soak_rand_range(&c->w->rng, 0, SOAK_OBJECTS - 1);
	for (unsigned i = 0; i < SOAK_OBJECTS; i++) {
		unsigned k = (start + i) % SOAK_OBJECTS;
		if (c->w->objects[k].exists == want)
			return (int)k;
	}
	return -1;
}

static void object_path(char *out, size_t outlen, ctx *c, unsigned k)
{
	char name[64];
	object_name(name, sizeof(name), c->w->id, k);
	snprintf(out, outlen, COLLECTION "/%s", name);
}

static void create(ctx *c, unsigned k)
{
	char name[64], body[512];
	json_object *obj = NULL;
	object_name(name, sizeof(name), c->w->id, k);
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
	         "\"labels\":{\"" SOAK_LABEL "\":\"w%u\"}},\"data\":{\"v\":\"0\",\"p\":\"0\"}}",
	         name, c->w->id);
	long code = call(c, &obj, "POST", COLLECTION, body, NULL);
	if (expect(c, code, 201, "POST", obj) == 0)
		c->w->objects[k] = (soak_object){1, 0, 0};
	json_object_put(obj);
}

static void get(ctx *c, unsigned k)
{
	char path[128];
	json_object *obj = NULL;
	object_path(path, sizeof(path), c, k);
	long code = call(c, &obj, "GET", path, NULL, NULL);
	if (expect(c, code, 200, "GET", obj) == 0)
		check_object(c, obj, k, "GET");
	json_object_put(obj);
}

/* Read-modify-write with the resourceVersion read: nobody else writes
 * these objects, so a 409 here would be wrong. */
static void update(ctx *c, unsigned k)
{
	char path[128];
	json_object *obj = NULL, *put = NULL;
	object_path(path, sizeof(path), c, k);
	long code = call(c, &obj, "GET", path, NULL, NULL);
	if (expect(c, code, 200, "GET before PUT", obj) != 0 ||
	    check_object(c, obj, k, "GET before PUT") != 0) {
		json_object_put(obj);
		return;
	}
	set_data(obj, "v", c->w->objects[k].v + 1);
	code = call(c, &put, "PUT", path, json_object_to_json_string(obj), NULL);
	if (expect(c, code, 200, "PUT", put) == 0)
		c->w->objects[k].v++;
	json_object_put(obj);
	json_object_put(put);
}

static void patch(ctx *c, unsigned k)
{
	static const char *const types[] = {"application/merge-patch+json",
	                                    "application/strategic-merge-patch+json",
	                                    "application/json-patch+json"};
	char path[128], body[128];
	json_object *obj = NULL;
	unsigned long next = c->w->objects[k].p + 1;
	int t = (int)soak_rand_range(&c->w->rng, 0, 2);
	object_path(path, sizeof(path), c, k);
	if (t == 2)
		snprintf(body, sizeof(body),
		         "[{\"op\":\"replace\",\"path\":\"/data/p\",\"value\":\"%lu\"}]", next);
	else
		snprintf(body, sizeof(body), "{\"data\":{\"p\":\"%lu\"}}", next);
	long code = call(c, &obj, "PATCH", path, body, types[t]);
	if (expect(c, code, 200, "PATCH", obj) == 0) {
		c->w->objects[k].p = next;
		check_object(c, obj, k, "PATCH's answer");
	}
	json_object_put(obj);
}

static void delete (ctx *c, unsigned k)
{
	char path[128];
	json_object *obj = NULL;
	object_path(path, sizeof(path), c, k);
	long code = call(c, &obj, "DELETE", path, NULL, NULL);
	if (expect(c, code, 200, "DELETE", obj) == 0)
		c->w->objects[k].exists = 0;
	json_object_put(obj);
}

/* --- reads of many --------------------------------------------------------------------------- */

/* The writer's own objects, by label: exactly those it created and did
 * not delete, each as last written. */
static void list(ctx *c)
{
	char path[160];
	json_object *l = NULL, *items;
	unsigned seen = 0, want = 0;
	snprintf(path, sizeof(path), COLLECTION "?labelSelector=" SOAK_LABEL "%%3Dw%u", c->w->id);
	long code = call(c, &l, "GET", path, NULL, NULL);
	if (expect(c, code, 200, "LIST", l) != 0 ||
	    !json_object_object_get_ex(l, "items", &items)) {
		json_object_put(l);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *item = json_object_array_get_idx(items, i);
		unsigned wid, k;
		const char *name = nl_meta_name(item);
		if (!name || sscanf(name, "soak-w%u-%u", &wid, &k) != 2 || wid != c->w->id ||
		    k >= SOAK_OBJECTS || !c->w->objects[k].exists) {
			soak_fail("writer %u: LIST shows %s, which it did not create or deleted",
			          c->w->id, name ? name : "(no name)");
			continue;
		}
		seen++;
		check_object(c, item, k, "LIST");
	}
	for (unsigned k = 0; k < SOAK_OBJECTS; k++)
		want += (unsigned)c->w->objects[k].exists;
	if (seen != want)
		soak_fail("writer %u: LIST shows %u of its objects, %u exist", c->w->id, seen,
		          want);
	json_object_put(l);
}

static void missing(ctx *c)
{
	char path[128];
	json_object *st = NULL;
	snprintf(path, sizeof(path), COLLECTION "/soak-never-%u", c->w->id);
	long code = call(c, &st, "GET", path, NULL, NULL);
	const char *reason = nl_json_get_string(st, "reason");
	if (expect(c, code, 404, "GET of a missing object", st) == 0 &&
	    (!reason || strcmp(reason, "NotFound") != 0))
		soak_fail("writer %u: 404 with reason %s", c->w->id, reason ? reason : "(none)");
	json_object_put(st);
}

/* --- the thread ------------------------------------------------------------------------------ */

static soak_op choose(nl_rand *r)
{
	/* Weights: the shared counter is what makes conflicts. */
	static const unsigned weights[SOAK_NOPS] = {25, 12, 10, 15, 15, 8, 10, 5};
	unsigned total = 0, x;
	for (int i = 0; i < SOAK_NOPS; i++)
		total += weights[i];
	x = (unsigned)soak_rand_range(r, 0, total - 1);
	for (int i = 0; i < SOAK_NOPS; i++) {
		if (x < weights[i])
			return (soak_op)i;
		x -= weights[i];
	}
	return SOAK_OP_INCREMENT;
}

static void one_op(ctx *c, soak_op op)
{
	int k;
	switch (op) {
	case SOAK_OP_INCREMENT:
		increment(c);
		break;
	case SOAK_OP_CREATE:
		if ((k = pick(c, 0)) >= 0)
			create(c, (unsigned)k);
		else if ((op = SOAK_OP_DELETE, k = pick(c, 1)) >= 0)
			delete (c, (unsigned)k);
		break;
	case SOAK_OP_LIST:
		list(c);
		break;
	case SOAK_OP_MISSING:
		missing(c);
		break;
	default:
		if ((k = pick(c, 1)) < 0) {
			op = SOAK_OP_CREATE;
			create(c, (unsigned)pick(c, 0));
		} else if (op == SOAK_OP_GET) {
			get(c, (unsigned)k);
		} else if (op == SOAK_OP_UPDATE) {
			update(c, (unsigned)k);
		} else if (op == SOAK_OP_PATCH) {
			patch(c, (unsigned)k);
		} else {
			delete (c, (unsigned)k);
		}
		break;
	}
	c->w->ops[op]++;
}

void *soak_writer_main(void *arg)
{
	ctx c = {.w = arg};
	if (!(c.h = soak_http_new(c.w->L->base))) {
		soak_fail("writer %u: out of memory", c.w->id);
		return NULL;
	}
	while (soak_load_running(c.w->L))
		one_op(&c, choose(&c.w->rng));
	soak_http_free(c.h);
	return NULL;
}
