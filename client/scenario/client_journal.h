/* The client-side journal: the requests the scenario's agents send,
 * recorded by their own clients as the answers come (nl_client_options.
 * on_attempt), as entries of the same shape as nodelet-mockapi's journal
 * (GET /mockapi/v1/requests: verb, resource, subresource, group,
 * namespace, name, code, userAgent, time ...), so `expect: requests` about
 * the agents' requests works against any cluster, where no server journal
 * is to be had. What it cannot know, it leaves empty: the answer's reason,
 * the user, a fault (null). The requests of programs are not in it: their
 * clients are not the runner's. */
#ifndef NL_SCENARIO_CLIENT_JOURNAL_H
#define NL_SCENARIO_CLIENT_JOURNAL_H

#include <json-c/json.h>
#include <nodelet/client.h>
#include <stdint.h>

typedef struct nl_scn_cjournal nl_scn_cjournal;

/* NL_ENOMEM. *out: nl_scn_cjournal_free. */
int nl_scn_cjournal_new(nl_scn_cjournal **out);
void nl_scn_cjournal_free(nl_scn_cjournal *j);

/* An nl_attempt_cb: payload is the journal. Any thread. */
void nl_scn_cjournal_record(const nl_request_attempt *a, void *payload);

/* The entries recorded since the previous call, oldest first (new array;
 * caller puts it); NULL when out of memory. */
json_object *nl_scn_cjournal_take(nl_scn_cjournal *j);

/* One attempt as a journal entry (new object; NULL when out of memory),
 * seq its number. */
json_object *nl_scn_cjournal_entry(const nl_request_attempt *a, uint64_t seq);

#endif
