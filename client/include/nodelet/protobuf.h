/* Kubernetes protobuf (application/vnd.kubernetes.protobuf), as
 * k8s.io/apimachinery's protobuf serializer writes and reads it, driven by
 * the wire schema (nodelet/schema.h). docs/protobuf.md has the facts and
 * where in the Go source each one comes from.
 *
 * An object on the wire is the 4-byte magic "k8s\0" and a runtime.Unknown
 * {typeMeta {apiVersion, kind}, raw, contentEncoding, contentType} whose raw
 * is the object's message. Messages are written as gogo's generated Marshal
 * writes them: fields in field-number order, every non-pointer field even
 * when empty, nil pointers and empty repeated fields and maps left out, map
 * entries sorted by key. Times are {seconds, nanos}: metav1.Time with nanos
 * 0, MicroTime truncated to microseconds, a zero Time an empty message.
 *
 * The codec converts between that form and the JSON tree nodelet keeps:
 * decoding yields the JSON kube-apiserver would have written for the same
 * object (field order, omitempty, null zero times), so either encoding
 * leads to the same bytes in the store. */
#ifndef NODELET_PROTOBUF_H
#define NODELET_PROTOBUF_H

#include <json-c/json.h>
#include <stddef.h>

#include "buf.h"
#include "errors.h"
#include "schema.h"

#define NL_PB_CONTENT_TYPE "application/vnd.kubernetes.protobuf"
#define NL_PB_WATCH_CONTENT_TYPE "application/vnd.kubernetes.protobuf;stream=watch"
#define NL_PB_MAGIC "k8s\0"
#define NL_PB_MAGIC_LEN 4

/* A watch frame's length prefix is 4 bytes; frames above this are refused
 * by the decoder (client-go's framer has no limit of its own but the
 * watch decoder's buffer; ours is explicit). */
#define NL_PB_MAX_FRAME (16u * 1024 * 1024)

/* The envelope's type, as sent (apiVersion and kind longer than the
 * buffers are cut; no served kind comes close). */
typedef struct {
	char api_version[128];
	char kind[128];
} nl_pb_type;

/* Append obj's message for schema s to out (no envelope). A NULL obj is
 * the zero value. JSON values of the wrong type are written as the zero
 * value of the field. 0, NL_ENOMEM or NL_ETOOBIG (out's cap). */
int nl_pb_encode_message(nl_buf *out, json_object *obj, const nl_schema *s);

/* Append obj as an enveloped object: magic, then runtime.Unknown with
 * obj's apiVersion and kind and its message. NL_EUNSUPPORTED when that
 * kind has no schema (nl_schema_for_kind), e.g. a Table. */
int nl_pb_encode_object(nl_buf *out, json_object *obj);

/* Append one watch stream frame: a 4-byte big-endian length, then a
 * metav1.WatchEvent {type, object: RawExtension{raw: obj_pb}} where obj_pb
 * is an enveloped object (nl_pb_encode_object). */
int nl_pb_encode_watch_event(nl_buf *out, const char *type, const void *obj_pb, size_t obj_len);

/* Decode a message of schema s into *out (new reference): the JSON Go
 * would write for it. kind/apiVersion are not set (the envelope carries
 * them). Unknown fields are skipped, as Go's generated Unmarshal skips
 * them. On malformed input NL_EPARSE with Go's error text in err, e.g.
 * "unexpected EOF", "proto: wrong wireType = 0 for field Name",
 * "proto: integer overflow", "proto: negative length found during
 * unmarshaling"; *out untouched. */
int nl_pb_decode_message(json_object **out, const void *data, size_t len, const nl_schema *s,
                         nl_err *err);

/* Decode an enveloped object into *out, with kind and apiVersion from the
 * envelope as its first keys. *type (may be NULL) receives the envelope's
 * type as soon as it is read, so a caller can name it in errors. Errors:
 *   NL_EPARSE   the magic is missing ("provided data does not appear to be
 *               a protobuf message, expected prefix [107 56 115 0]"), the
 *               envelope or the message is malformed (Go's text);
 *   NL_EUNSUPPORTED  the envelope names a kind without a schema. */
int nl_pb_decode_object(json_object **out, nl_pb_type *type, const void *data, size_t len,
                        nl_err *err);

/* nl_pb_decode_object for a body meant to be of a known type, as a server
 * decodes it: an envelope with an empty kind or apiVersion takes it from
 * defaults (NULL: none), as the serializer's gvkWithDefaults does. */
int nl_pb_decode_object_as(json_object **out, nl_pb_type *type, const void *data, size_t len,
                           const nl_pb_type *defaults, nl_err *err);

/* Decode one watch frame's payload (after the length prefix): the event
 * type into type (cut to size-1) and the object into *obj. */
int nl_pb_decode_watch_event(char *type, size_t size, json_object **obj, const void *data,
                             size_t len, nl_err *err);

#endif
