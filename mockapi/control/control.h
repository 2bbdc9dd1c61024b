/* The test control API (/mockapi/v1/, docs/control-api.md) and the state it
 * controls: faults, the request journal, the delay timer, the built-in
 * controllers and the seeded state POST /mockapi/v1/reset returns to. One
 * mock_control per server; it takes part in requests through the hooks it
 * installs on the handlers' mock_api (handlers/api.h): its own paths and
 * what the garbage collector does around a DELETE. */
#ifndef MOCK_CONTROL_H
#define MOCK_CONTROL_H

#include <json-c/json.h>
#include <nodelet/errors.h>
#include <stddef.h>
#include <stdint.h>

#include "api/route.h"
#include "controllers/controllers.h"
#include "core/request.h"
#include "delays.h"
#include "faults.h"
#include "handlers/api.h"
#include "journal.h"

#define MOCK_CONTROL_PREFIX "/mockapi/"

typedef struct mock_control {
	mock_api *api;
	mock_faults *faults;
	mock_journal *journal;
	mock_delays *delays;
	mock_controllers *controllers;
	json_object *seed; /* the seeded objects (array), re-created by a reset */
} mock_control;

/* Build the control state for api, whose store is already seeded (default
 * namespaces and fixtures): snapshot that state, load --faults, set up the
 * controllers, and install api's hooks (its paths, DELETE's garbage
 * collection). Errors (NL_EPARSE, NL_EINVALID, NL_EIO for --faults; bad
 * --controllers) carry their message in err. *out: mock_control_free. */
int mock_control_new(mock_control **out, mock_api *api, nl_err *err);
/* Start the delay timer and the controller thread. */
int mock_control_start(mock_control *c, nl_err *err);
/* Resume delayed connections and stop the threads; before the HTTP daemon
 * stops. Idempotent. */
void mock_control_stop(mock_control *c);
/* After mock_control_stop and the HTTP daemon's stop, for a restart: the
 * delay timer goes (its connections are gone with the daemon) and
 * mock_control_start makes a new one. */
void mock_control_forget_delays(mock_control *c);
void mock_control_free(mock_control *c);

/* The server's clock, microseconds since the epoch (c may be NULL: wall). */
int64_t mock_control_now(const mock_control *c);

/* Whether path is served by the control API (enabled and under the
 * prefix); c NULL: none is. */
int mock_control_is_control_path(const mock_control *c, const char *path);

/* Authorization hook for the control API: a server running with
 * authentication (access.h) allows only members of --control-api-group
 * (default system:masters); without it, or for an internal request (user
 * NULL), every caller. 0 means refuse with mock_control_forbidden's 403. */
int mock_control_allowed(const mock_control *c, const char *user, const char *const *groups,
                         size_t ngroups);
/* kube-apiserver's 403 for a non-resource URL: `forbidden: User "<user>"
 * cannot <verb> path "<path>"`. Caller frees. */
nl_status *mock_control_forbidden(const char *user, const char *verb, const char *path);

/* The store back to the seeded state, faults and journal cleared. */
int mock_control_reset(mock_control *c, nl_err *err);
/* What a reset does besides the store: no faults, an empty journal, the
 * controllers as new. */
void mock_control_forget(mock_control *c);
#endif
