/* Request patterns: how a scenario names a request of the mock's journal.
 *
 *   VERB TARGET [CODE] [+DURATION | @DURATION]
 *
 *   get leases/edge-1            verb, resource/name (any code)
 *   update leases/edge-1 409     with the answer's code
 *   create leases                a request without a name (create, list, watch)
 *   patch nodes/edge-1/status    a subresource
 *   get leases/edge-1 500 +3.2s  3.2 s (virtual) after the previous request
 *   update leases/edge-1 @10s    10 s after the scenario started
 *
 * Each token may use shell wildcards (*, ?, [..]): `* leases/NAME*`, `get
 * nodes/edge-1 5*`. A pattern without a name matches only requests without
 * one. Journal entries are the objects of GET /mockapi/v1/requests, with
 * the runner's "t" (microseconds since the scenario's start) added. */
#ifndef NL_SCENARIO_REQPAT_H
#define NL_SCENARIO_REQPAT_H

#include <json-c/json.h>
#include <nodelet/errors.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	char verb[32];
	char resource[128];
	char name[256];
	char subresource[64];
	int has_name;
	char code[8]; /* "" = any */
	char timing;  /* 0, '+' (since the previous request) or '@' (since the start) */
	int64_t at;   /* the timing's duration */
} nl_scn_reqpat;

/* NL_EPARSE with "request pattern \"...\": ..." in err. */
int nl_scn_reqpat_parse(nl_scn_reqpat *out, const char *s, nl_err *err);
/* Whether entry matches; prev_t is the time ("t") the '+' timing counts
 * from. */
int nl_scn_reqpat_match(const nl_scn_reqpat *p, json_object *entry, int64_t prev_t);
/* An entry as a pattern would name it exactly: "get leases/edge-1 404
 * +200ms" (the timing only when with_timing). */
void nl_scn_reqpat_describe(char *out, size_t outlen, json_object *entry, int64_t prev_t,
                            int with_timing);

#endif
