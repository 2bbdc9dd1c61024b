/* The server as its files share it (server.c: lifecycle and the HTTP glue;
 * embed.c: the rest of mockapi.h's C interface). */
#ifndef MOCK_SERVER_INTERNAL_H
#define MOCK_SERVER_INTERNAL_H

#include "control/control.h"
#include "handlers/api.h"
#include "mockapi.h"

struct MHD_Daemon;
struct mock_persist;
struct mock_conns;
struct mock_runner;

struct mock_server {
	mock_options opts;
	mock_api api;                 /* what the handlers read (handlers/api.h) */
	mock_control *ctl;            /* faults, journal, controllers (control/control.h) */
	struct mock_persist *persist; /* --state-file, or NULL */
	struct MHD_Daemon *daemon;
	struct mock_conns *conns;   /* admission and deadlines (conns.h), while started */
	struct mock_runner *runner; /* --request-timeout's workers (runner.h), while started */
	struct mock_runner *stopped_runner; /* handlers that outlived the last stop */
	struct mock_store_saved *saved;     /* mock_server_save's, or NULL */
	char url[128];
};

/* After mock_server_stop: whether request handlers are still running
 * (past the shutdown grace period). */
int mock_server_handlers_running(mock_server *s);

#endif
