/* The fault specification parser (mockapi/control/faults.h), fed as a --faults
 * file (YAML or JSON: one list, or one fault per document). A list is
 * added all or nothing; every fault added is listed and found by its id;
 * faults are decided against a set of requests and a status fault answers
 * a Status that encodes. */
#include <nodelet/doc.h>
#include <nodelet/errors.h>
#include <nodelet/status.h>
#include <stdlib.h>
#include <string.h>

#include "api/route.h"
#include "control/faults.h"
#include "fuzz.h"

static const char *const requests[][2] = {
    {"PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/edge-1"},
    {"GET", "/api/v1/nodes?watch=true"},
    {"PATCH", "/api/v1/nodes/edge-1/status"},
    {"DELETE", "/api/v1/namespaces/default/configmaps/cm"},
    {"GET", "/version"},
};

static void decide_all(mock_faults *fs)
{
	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		mock_req_attrs a;
		mock_request_attrs(&a, requests[i][0], requests[i][1], NULL, NULL);
		mock_fault_request r = {&a, "kubectl/v1.32.0", NULL};
		mock_fault_hit hit;
		memset(&hit, 0, sizeof(hit));
		if (mock_faults_decide(fs, &r, &hit)) {
			FUZZ_CHECK(hit.id[0] != '\0');
			if (hit.kind == MOCK_FAULT_STATUS) {
				nl_status *st = mock_fault_status(&hit, &a, "5", 100, 1024);
				FUZZ_CHECK(st != NULL);
				char *text = nl_status_to_string(st);
				FUZZ_CHECK(text != NULL);
				free(text);
				nl_status_free(st);
			}
		}
		mock_fault_hit_clear(&hit);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *docs = NULL;
	if (nl_doc_parse(&docs, (const char *)data, size, "<fuzz>", NULL) != 0)
		return 0;
	json_object *spec = docs;
	if (json_object_array_length(docs) == 1 &&
	    json_object_is_type(json_object_array_get_idx(docs, 0), json_type_array))
		spec = json_object_array_get_idx(docs, 0);

	mock_faults *fs = NULL;
	FUZZ_CHECK(mock_faults_new(&fs, 1) == 0);
	json_object *added = NULL;
	nl_err err = {0};
	int rc = mock_faults_add_json(&added, fs, spec, &err);
	json_object *listed = mock_faults_list_json(fs);
	FUZZ_CHECK(listed != NULL);
	if (rc != 0) {
		FUZZ_CHECK(err.msg[0] != '\0');
		FUZZ_CHECK(json_object_array_length(listed) == 0); /* all or nothing */
	} else {
		FUZZ_CHECK(json_object_array_length(added) == json_object_array_length(listed));
		decide_all(fs);
		for (size_t i = 0; i < json_object_array_length(listed); i++) {
			json_object *f = json_object_array_get_idx(listed, i);
			json_object *id = NULL;
			FUZZ_CHECK(json_object_object_get_ex(f, "id", &id));
			json_object *one = mock_faults_get(fs, json_object_get_string(id));
			FUZZ_CHECK(one != NULL);
			json_object_put(one);
		}
		json_object *removed = NULL;
		mock_faults_clear(&removed, fs);
		json_object *empty = mock_faults_list_json(fs);
		FUZZ_CHECK(json_object_array_length(empty) == 0);
		json_object_put(empty);
		json_object_put(removed);
	}
	json_object_put(listed);
	json_object_put(added);
	mock_faults_free(fs);
	json_object_put(docs);
	return 0;
}
