#include "reply_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	struct MHD_Response *r;
	const char *body; /* r's bytes: valid while r is held */
	size_t len;
	unsigned code;
} kept_reply;

static unsigned long hits_total;

static pthread_key_t kept_key;
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;
static int kept_ok;

/* A worker thread ends: its response goes back to MHD, which frees it
 * once no connection sends it any more. */
static void kept_free(void *p)
{
	kept_reply *k = p;
	if (k->r)
		MHD_destroy_response(k->r);
	free(k);
}

static void kept_init(void)
{
	kept_ok = pthread_key_create(&kept_key, kept_free) == 0;
}

static kept_reply *kept_of_thread(int create)
{
	pthread_once(&kept_once, kept_init);
	if (!kept_ok)
		return NULL;
	kept_reply *k = pthread_getspecific(kept_key);
	if (!k && create) {
		k = calloc(1, sizeof(*k));
		if (k && pthread_setspecific(kept_key, k) != 0) {
			free(k);
			k = NULL;
		}
	}
	return k;
}

struct MHD_Response *mock_reply_cache_find(unsigned code, const char *body, size_t len)
{
	kept_reply *k = kept_of_thread(0);
	if (!k || !k->r || k->code != code || k->len != len || memcmp(k->body, body, len) != 0)
		return NULL;
	__atomic_fetch_add(&hits_total, 1, __ATOMIC_RELAXED);
	return k->r;
}

int mock_reply_cache_keep(unsigned code, const char *body, size_t len, struct MHD_Response *r)
{
	if (len > MOCK_REPLY_CACHE_MAX_BODY)
		return 0;
	kept_reply *k = kept_of_thread(1);
	if (!k)
		return 0;
	if (k->r)
		MHD_destroy_response(k->r);
	k->r = r;
	k->body = body;
	k->len = len;
	k->code = code;
	return 1;
}

unsigned long mock_reply_cache_hits(void)
{
	return __atomic_load_n(&hits_total, __ATOMIC_RELAXED);
}
