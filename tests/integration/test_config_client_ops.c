/* nl_config_ops_for_client: the dynamic config controller's API calls over
 * a real client, against the in-process mock. The status PATCH must be a
 * strategic merge (a JSON merge patch would replace the whole conditions
 * list), and a failed call hands the server's Status to the controller. */
#include <nodelet/config_controller.h>
#include <nodelet/meta.h>
#include <nodelet/node.h>
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "client_util.h"
#include "http_client.h"
#include "mockapi.h"

static mock_server *srv;
static nl_client *client; /* made by each test (the helper asserts) */

static void client_new(void)
{
	client = nl_test_client_at(mock_server_url(srv), NULL, -1);
}

static void client_free(void)
{
	nl_client_free(client);
	client = NULL;
}

static int setup(void)
{
	mock_options o;
	mock_options_init(&o);
	o.controller_tick_ms = 0;
	return nl_test_suite_server(&srv, NULL, &o);
}

static int teardown(void)
{
	mock_server_free(srv);
	return 0;
}

static size_t condition_count(json_object *node)
{
	json_object *conds = nl_json_get_path(node, "status.conditions");
	return conds ? json_object_array_length(conds) : 0;
}

static void test_config_client_ops__status_patch_merges_conditions(void)
{
	client_new();
	nl_config_ops ops = nl_config_ops_for_client(client);
	CU_ASSERT_PTR_EQUAL(ops.payload, client);
	json_object *node = nl_test_json(
	    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"ops-1\"}}");
	json_object *made = NULL, *out = NULL;
	nl_status *st = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_node_create(&made, client, node, NULL), 0);
	static const char ready[] =
	    "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}";
	static const char config_ok[] =
	    "{\"status\":{\"conditions\":[{\"type\":\"NodeConfigOK\",\"status\":\"True\"}]}}";
	CU_ASSERT_EQUAL_FATAL(
	    ops.patch_node_status(&out, &st, "ops-1", ready, strlen(ready), ops.payload), 0);
	json_object_put(out);
	out = NULL;
	CU_ASSERT_EQUAL_FATAL(
	    ops.patch_node_status(&out, &st, "ops-1", config_ok, strlen(config_ok), ops.payload),
	    0);
	CU_ASSERT_EQUAL(condition_count(out), 2); /* Ready kept beside NodeConfigOK */
	json_object_put(out);
	out = NULL;
	CU_ASSERT_EQUAL(ops.get_node(&out, &st, "ops-1", ops.payload), 0);
	CU_ASSERT_STRING_EQUAL(nl_meta_name(out), "ops-1");
	CU_ASSERT_PTR_NULL(st);
	json_object_put(out);
	json_object_put(made);
	json_object_put(node);
	client_free();
}

static void test_config_client_ops__a_failure_hands_over_the_status(void)
{
	client_new();
	nl_config_ops ops = nl_config_ops_for_client(client);
	json_object *out = NULL;
	nl_status *st = NULL;
	CU_ASSERT_EQUAL(ops.get_configmap(&out, &st, "default", "missing", ops.payload),
	                NL_ENOTFOUND);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(st->code, 404);
	CU_ASSERT_STRING_EQUAL(st->message, "configmaps \"missing\" not found");
	nl_status_free(st);
	st = NULL;
	/* Without a status out-parameter the call still fails cleanly. */
	CU_ASSERT_EQUAL(ops.get_node(&out, NULL, "absent", ops.payload), NL_ENOTFOUND);

	json_object *event = nl_test_json(
	    "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"e1\","
	    "\"namespace\":\"default\"},\"involvedObject\":{\"kind\":\"Node\",\"name\":\"ops-1\"},"
	    "\"reason\":\"NodeConfigChanged\",\"message\":\"m\",\"type\":\"Normal\","
	    "\"source\":{\"component\":\"nodelet\"}}");
	CU_ASSERT_EQUAL(ops.create_event(&out, &st, "default", event, ops.payload), 0);
	CU_ASSERT_STRING_EQUAL(nl_meta_name(out), "e1");
	json_object_put(out);
	out = NULL;
	/* The same name again: 409 with the server's message. */
	CU_ASSERT_EQUAL(ops.create_event(&out, &st, "default", event, ops.payload), NL_EEXISTS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_STRING_EQUAL(st->message, "events \"e1\" already exists");
	nl_status_free(st);
	json_object_put(event);
	client_free();
}

static CU_TestInfo tests[] = {
    {"status_patch_merges_conditions", test_config_client_ops__status_patch_merges_conditions},
    {"a_failure_hands_over_the_status", test_config_client_ops__a_failure_hands_over_the_status},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"config_client_ops", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
