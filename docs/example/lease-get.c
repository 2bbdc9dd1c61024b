/* Get a Lease with the nodelet client library and print its holder and
 * renew time: the smallest program against the installed library.
 *
 *   cc lease-get.c $(pkg-config --cflags --libs nodelet) -o lease-get
 *   ./lease-get [--kubeconfig FILE] NAMESPACE NAME
 *
 * Without --kubeconfig the configuration is found as kubectl finds it
 * ($KUBECONFIG, ~/.kube/config, then in-cluster). Exit status: 0 found,
 * 1 not found or failed, 2 usage. */
#include <nodelet/client.h>
#include <nodelet/config.h>
#include <nodelet/lease.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <string.h>

static int print_lease(json_object *lease)
{
	nl_lease_spec spec;
	char renew[NL_TIME_BUFSZ] = "<unset>";
	if (nl_lease_spec_read(&spec, lease) != 0)
		return -1;
	if (spec.renew_time != 0)
		nl_time_format_micro(renew, spec.renew_time);
	printf("holder=%s duration=%d renewTime=%s\n",
	       spec.holder_identity ? spec.holder_identity : "<unset>",
	       (int)spec.lease_duration_seconds, renew);
	return 0;
}

int main(int argc, char **argv)
{
	const char *kubeconfig = NULL;
	nl_rest_config *cfg = NULL;
	nl_client *client = NULL;
	json_object *lease = NULL;
	nl_result res = NL_RESULT_INIT;
	nl_err err = {0};
	int rc = 1;

	if (argc == 5 && strcmp(argv[1], "--kubeconfig") == 0) {
		kubeconfig = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: lease-get [--kubeconfig FILE] NAMESPACE NAME\n");
		return 2;
	}
	if (nl_rest_config_load(&cfg, kubeconfig, NULL, &err) != 0 ||
	    nl_client_new(&client, cfg, NULL, &err) != 0) {
		fprintf(stderr, "lease-get: %s\n", err.msg);
		goto cleanup;
	}
	if (nl_lease_get(&lease, client, argv[1], argv[2], &res) != 0) {
		/* res.message is the server's Status message, as kubectl prints it */
		fprintf(stderr, "Error from server (%s): %s\n", nl_result_reason(&res),
		        res.message);
		goto cleanup;
	}
	rc = print_lease(lease) == 0 ? 0 : 1;
cleanup:
	json_object_put(lease);
	nl_result_clear(&res);
	nl_client_free(client);
	nl_rest_config_free(cfg);
	return rc;
}
