/* Seeding the store: the namespaces every cluster has, and manifests given
 * with --fixtures. Objects go through the same request path as a client's
 * POST (decode, defaults, validation), so a fixture can never hold what the
 * API would refuse. */
#ifndef MOCK_FIXTURES_H
#define MOCK_FIXTURES_H

#include <json-c/json.h>
#include <nodelet/errors.h>

#include "handlers/api.h"

/* Create default, kube-system, kube-public and kube-node-lease. */
int mock_fixtures_seed(mock_api *api, nl_err *err);
/* Create those of them a restored store has not got (a warning each), as
 * kube-apiserver's bootstrap controllers recreate a missing system
 * namespace; the others are left as clients changed them. */
int mock_fixtures_seed_missing(mock_api *api, nl_err *err);
/* Create (or replace, when the name exists) each object of docs (an array,
 * borrowed). A namespaced object without namespace goes to "default".
 * NL_EINVALID with the server's Status message in err on the first refusal. */
int mock_fixtures_apply(mock_api *api, json_object *docs, const char *source, nl_err *err);
/* nl_doc_load_file + mock_fixtures_apply. */
int mock_fixtures_load_file(mock_api *api, const char *path, nl_err *err);

#endif
