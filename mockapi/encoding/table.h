/* Server-side printing: metav1.Table with kube-apiserver's columns for each
 * served kind (pkg/printers/internalversion/printers.go, always generated
 * "wide" as the apiserver's TableConvertor does; kubectl hides priority-1
 * columns unless -o wide), and the PartialObjectMetadata[List] conversion.
 *
 * The watch stream can print events as tables too: mock_table_object gives
 * the Table for one object, with column definitions on the first event only
 * (set no_headers afterwards, as the apiserver's watch encoder does). */
#ifndef MOCK_TABLE_H
#define MOCK_TABLE_H

#include <json-c/json.h>
#include <nodelet/buf.h>
#include <nodelet/errors.h>
#include <nodelet/status.h>
#include <stdint.h>

#include "api/resources.h"

typedef enum {
	MOCK_INCLUDE_METADATA, /* default: rows carry PartialObjectMetadata */
	MOCK_INCLUDE_OBJECT,   /* the whole object */
	MOCK_INCLUDE_NONE,     /* "object": null */
} mock_include_object;

typedef struct {
	const char *version; /* "v1" or "v1beta1": meta.k8s.io/<version> */
	mock_include_object include;
	int no_headers; /* columnDefinitions null (watch events after the first) */
	int64_t now;    /* microseconds since the epoch, for the Age columns */
} mock_table_opts;

/* The includeObject query parameter (NULL or "" = Metadata). 0, or
 * NL_EBADREQUEST with the apiserver's 400 `Unable to convert to Table as
 * requested: includeObject: Unsupported value: "x": supported values: …` in
 * *st (caller frees). */
int mock_table_parse_include(mock_include_object *out, const char *value, nl_status **st);

/* kubectl's (apimachinery duration.HumanDuration) rendering of an elapsed
 * time in microseconds: "0s", "59s", "3m20s", "10m", "2h5m", "3d4h", "2y10d",
 * "<invalid>" for more than a second in the future. */
void mock_human_duration(char out[32], int64_t usec);

/* The columnDefinitions array for r (new reference). */
json_object *mock_table_columns(const mock_resource *r);
/* The cells of one object of r (new array; obj borrowed, without or with
 * kind/apiVersion). Missing fields print as kube-apiserver prints them
 * ("<none>", "<unknown>", ""). */
json_object *mock_table_cells(const mock_resource *r, json_object *obj, int64_t now);

/* Append to out the Table for one stored object of r (json: the object with
 * kind/apiVersion). metadata.resourceVersion is the object's. 0, NL_EPARSE
 * when json is not an object, NL_ENOMEM / NL_ETOOBIG from out. */
int mock_table_object(nl_buf *out, const mock_resource *r, const char *json, size_t len,
                      const mock_table_opts *o);
/* Append the Table for a <Kind>List document: one row per item, and the
 * list's resourceVersion, continue and remainingItemCount. */
int mock_table_list(nl_buf *out, const mock_resource *r, const char *json, size_t len,
                    const mock_table_opts *o);

/* Watch events printed as Tables: an encoder for watch.h's
 * mock_watch_encode_fn (payload: a mock_table_watch, released with
 * mock_table_watch_free). Every event's object, bookmarks included, becomes
 * a one-row Table; columnDefinitions are sent with the first event only and
 * null afterwards (the apiserver's watchEmbeddedEncoder). ERROR events carry
 * a Status and are not encoded. */
typedef struct mock_table_watch mock_table_watch;
int mock_table_watch_new(mock_table_watch **out, const char *version, mock_include_object include);
int mock_table_watch_encode(nl_buf *out, const mock_resource *r, const char *type, const char *json,
                            size_t len, void *payload);
void mock_table_watch_free(void *payload);

/* PartialObjectMetadata for one object / PartialObjectMetadataList for a
 * list, in meta.k8s.io/<version>. */
int mock_partial_object(nl_buf *out, const char *json, size_t len, const char *version);
int mock_partial_list(nl_buf *out, const char *json, size_t len, const char *version);

#endif
