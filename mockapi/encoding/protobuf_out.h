/* JSON answers as Kubernetes protobuf objects, for the responses
 * (negotiation.c) and the watch frames (watch/watch_stream.c) alike: one
 * JSON-to-protobuf step with a per-thread memory of the last one. */
#ifndef MOCK_PROTOBUF_OUT_H
#define MOCK_PROTOBUF_OUT_H

#include <nodelet/buf.h>
#include <nodelet/errors.h>
#include <stddef.h>

/* Append the enveloped protobuf object (nl_pb_encode_object) for the JSON
 * text json[0..len) to out. The calling thread's last conversion is kept,
 * keyed by the JSON bytes themselves (so it cannot go stale), and reused
 * when the same bytes come again: pollers of one object, and every watcher
 * a worker serves the same event to. 0; NL_EPARSE when json is not a JSON
 * value; NL_EUNSUPPORTED for a kind without a wire schema; NL_ENOMEM /
 * NL_ETOOBIG from out. */
int mock_protobuf_from_json(nl_buf *out, const char *json, size_t len);

#endif
