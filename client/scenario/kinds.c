/* The names a scenario uses for kinds, requirements and steps. */
#include <stdio.h>
#include <string.h>

#include "scenario.h"

static const struct {
	const char *kind;
	const nl_resource *r;
} kinds[] = {
    {"Lease", &nl_resource_leases},         {"Node", &nl_resource_nodes},
    {"ConfigMap", &nl_resource_configmaps}, {"Event", &nl_resource_events},
    {"Namespace", &nl_resource_namespaces},
};

const nl_resource *nl_scn_kind(const char *kind, const char *api_version)
{
	char gv[128];
	if (!kind)
		return NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const nl_resource *r = kinds[i].r;
		if (strcmp(kinds[i].kind, kind) != 0)
			continue;
		if (!api_version)
			return r;
		snprintf(gv, sizeof(gv), "%s%s%s", r->group, *r->group ? "/" : "", r->version);
		return strcmp(gv, api_version) == 0 ? r : NULL;
	}
	return NULL;
}

const char *nl_scn_kinds(void)
{
	return "Lease, Node, ConfigMap, Event, Namespace";
}

static const char *const req_names[] = {"faults", "journal", "virtual-time", "embedded", "mockapi"};

const char *nl_scn_req_name(unsigned bit)
{
	for (size_t i = 0; i < sizeof(req_names) / sizeof(req_names[0]); i++)
		if (bit == 1u << i)
			return req_names[i];
	return NULL;
}

unsigned nl_scn_req_bit(const char *name)
{
	for (size_t i = 0; i < sizeof(req_names) / sizeof(req_names[0]); i++)
		if (strcmp(req_names[i], name) == 0)
			return 1u << i;
	return 0;
}

static const char *const step_names[] = {
    [NL_STEP_FAULT] = "fault",     [NL_STEP_CLEAR_FAULTS] = "clearFaults",
    [NL_STEP_APPLY] = "apply",     [NL_STEP_CREATE] = "create",
    [NL_STEP_UPDATE] = "update",   [NL_STEP_PATCH] = "patch",
    [NL_STEP_DELETE] = "delete",   [NL_STEP_GET] = "get",
    [NL_STEP_WATCH] = "watch",     [NL_STEP_SYNC] = "sync",
    [NL_STEP_START] = "start",     [NL_STEP_STOP] = "stop",
    [NL_STEP_ADVANCE] = "advance", [NL_STEP_RUN] = "run",
    [NL_STEP_RESTART] = "restart", [NL_STEP_RESTART_SERVER] = "restartServer",
    [NL_STEP_EXPECT] = "expect",   [NL_STEP_PROGRAM] = "run",
};

const char *nl_scn_step_name(nl_scn_step_kind k)
{
	return (size_t)k < sizeof(step_names) / sizeof(step_names[0]) ? step_names[k] : "?";
}
