/* A watch served by libmicrohttpd: a chunked response whose content
 * reader pulls lines from the watcher, suspending the connection when
 * nothing is due (the hub resumes it). Needs MHD_ALLOW_SUSPEND_RESUME. */
#include <microhttpd.h>

#include "watch.h"

/* libmicrohttpd's write buffer per call; lines longer than this simply
 * take several calls. */
#define BLOCK_SIZE (16u * 1024u)

static ssize_t read_cb(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	ssize_t n = mock_watch_read(cls, buf, max);
	if (n == MOCK_WATCH_END)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (n == MOCK_WATCH_ABORT)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	return n;
}

static void free_cb(void *cls)
{
	mock_watch_close(cls);
}

/* Called by the hub from inside read_cb, which libmicrohttpd allows. */
static void park(void *conn)
{
	MHD_suspend_connection(conn);
}

static void wake(void *conn)
{
	MHD_resume_connection(conn);
}

struct MHD_Response *mock_watch_mhd_response(mock_watcher *w, void *conn)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	mock_watch_attach(w, conn, ci ? (int)ci->connect_fd : -1, park, wake);
	struct MHD_Response *r =
	    MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, BLOCK_SIZE, read_cb, w, free_cb);
	if (!r)
		mock_watch_close(w);
	return r;
}
