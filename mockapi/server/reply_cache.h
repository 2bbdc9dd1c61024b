/* The last plain answer to a GET, kept per worker thread as a ready
 * libmicrohttpd response.
 *
 * Clients that poll one object (leader election, controllers without a
 * watch, benchmarks) get the same bytes again and again; building the
 * MHD_Response and its headers is then a third of the mock's own work per
 * request. MHD lets one response be queued on any number of connections,
 * so a worker whose next answer is byte-identical to its last queues the
 * same response again. The key is the content itself (status, media type,
 * body), so nothing can go stale: a changed object is different bytes. */
#ifndef MOCK_REPLY_CACHE_H
#define MOCK_REPLY_CACHE_H

#include <microhttpd.h>
#include <stddef.h>

/* Answers larger than this are never kept (a worker holds at most one). */
#define MOCK_REPLY_CACHE_MAX_BODY (64u * 1024u)

/* The kept response when code and body equal the calling thread's last
 * kept answer, else NULL. Borrowed: queue it, do not destroy it. */
struct MHD_Response *mock_reply_cache_find(unsigned code, const char *body, size_t len);

/* Keep r (code, body of len bytes, which r sends and keeps alive) as the
 * calling thread's answer to reuse, dropping the one kept before. Takes
 * the caller's reference to r and returns 1, or returns 0 (too large, no
 * thread storage) and leaves r to the caller. */
int mock_reply_cache_keep(unsigned code, const char *body, size_t len, struct MHD_Response *r);

/* How many answers all threads' caches have served since the process
 * started (for tests). */
unsigned long mock_reply_cache_hits(void);

#endif
