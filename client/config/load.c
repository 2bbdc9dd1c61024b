/* nl_rest_config_load: client-go's default loading order, the one place
 * that knows both loaders (kubeconfig.c, incluster.c). Kept apart from
 * rest_config.c, whose helpers those loaders call, so that the folder's
 * calls run one way. */
#include "internal.h"

#include <stdlib.h>

int nl_rest_config_load(nl_rest_config **out, const char *path, const char *context, nl_err *err)
{
	int no_config = 0;
	int rc = nl__kubeconfig_load(out, path, context, &no_config, err);
	if (rc == 0 || !no_config || path || context)
		return rc;
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	if (!host || !*host || !port || !*port)
		return rc;
	return nl_incluster_load(out, NULL, err);
}
