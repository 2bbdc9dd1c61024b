/* JSON to protobuf with each thread's last conversion remembered
 * (protobuf_out.h). A conversion is a json-c parse and a schema walk,
 * twice the cost of the rest of a GET. */
#include "protobuf_out.h"

#include <nodelet/protobuf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"

/* Conversions larger than this are not kept (a thread holds one). */
#define PB_KEEP_MAX (64u * 1024u)

typedef struct {
	char *json, *pb;
	size_t json_len, pb_len;
} pb_kept;

static pthread_key_t kept_key;
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;
static int kept_ok;

/* A thread ends: its kept conversion goes with it. */
static void kept_free(void *p)
{
	pb_kept *k = p;
	if (k) {
		free(k->json);
		free(k->pb);
		free(k);
	}
}

static void kept_init(void)
{
	kept_ok = pthread_key_create(&kept_key, kept_free) == 0;
}

static pb_kept *kept_of_thread(int create)
{
	pthread_once(&kept_once, kept_init);
	if (!kept_ok)
		return NULL;
	pb_kept *k = pthread_getspecific(kept_key);
	if (!k && create) {
		k = calloc(1, sizeof(*k));
		if (k && pthread_setspecific(kept_key, k) != 0) {
			free(k);
			k = NULL;
		}
	}
	return k;
}

static void keep(const char *json, size_t json_len, const char *pb, size_t pb_len)
{
	pb_kept *k;
	if (json_len > PB_KEEP_MAX || pb_len > PB_KEEP_MAX || !(k = kept_of_thread(1)))
		return;
	char *j = malloc(json_len + 1), *p = malloc(pb_len + 1);
	if (!j || !p) {
		free(j);
		free(p);
		return;
	}
	memcpy(j, json, json_len);
	memcpy(p, pb, pb_len);
	free(k->json);
	free(k->pb);
	k->json = j, k->json_len = json_len;
	k->pb = p, k->pb_len = pb_len;
}

int mock_protobuf_from_json(nl_buf *out, const char *json, size_t len)
{
	const pb_kept *k = kept_of_thread(0);
	if (k && k->json && k->json_len == len && memcmp(k->json, json, len) == 0)
		return nl_buf_add(out, k->pb, k->pb_len);
	json_object *doc = NULL;
	enum json_tokener_error jerr;
	size_t used = 0;
	int rc = mock_parse_body(&doc, json, len, &jerr, &used);
	if (rc != 0)
		return rc;
	if (!doc || jerr != json_tokener_success)
		return NL_EPARSE;
	size_t mark = out->len;
	rc = nl_pb_encode_object(out, doc);
	json_object_put(doc);
	if (rc == 0)
		keep(json, len, out->data + mark, out->len - mark);
	return rc;
}
