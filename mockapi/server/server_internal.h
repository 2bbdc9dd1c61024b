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

struct mock_server {
	mock_options opts;
	mock_api api;                 /* what the handlers read (handlers/api.h) */
	mock_control *ctl;            /* faults, journal, controllers (control/control.h) */
	struct mock_persist *persist; /* --state-file, or NULL */
	struct MHD_Daemon *daemon;
	struct mock_conns *conns; /* admission and deadlines (conns.h), while started */
	char url[128];
};

#endif
