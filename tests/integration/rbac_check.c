/* rbac_check RBAC.yaml JOURNAL.json: do the RBAC rules cover exactly what
 * the agent did? Every request in a nodelet-mockapi journal whose
 * User-Agent is nodelet's must be allowed by a rule (verb, API group,
 * resource[/subresource], namespace for a Role, resourceNames), and every
 * verb of every rule must have been used by one. Prints what is missing
 * and what is extra; exit 0 when nothing is, 1 otherwise, 2 on bad input.
 * tests/integration/rbac_coverage.sh drives it with docs/deploy/. */
#include <json-c/json.h>
#include <nodelet/doc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GRANTS 256

/* One (group, resource, verb) of a rule; ns "" = cluster-wide (ClusterRole). */
typedef struct {
	const char *kind, *role, *group, *resource, *verb, *ns;
	json_object *names; /* resourceNames array or NULL */
	int used;
} grant;

static const char *str(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return "";
}

static json_object *arr(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_array))
		return v;
	return NULL;
}

static int add_rule(grant *g, size_t *n, json_object *role, json_object *rule)
{
	json_object *meta = NULL, *groups = arr(rule, "apiGroups"),
	            *resources = arr(rule, "resources"), *verbs = arr(rule, "verbs");
	json_object_object_get_ex(role, "metadata", &meta);
	if (!groups || !resources || !verbs)
		return -1;
	for (size_t i = 0; i < json_object_array_length(groups); i++)
		for (size_t j = 0; j < json_object_array_length(resources); j++)
			for (size_t k = 0; k < json_object_array_length(verbs); k++) {
				if (*n == MAX_GRANTS)
					return -1;
				g[(*n)++] = (grant){
				    str(role, "kind"),
				    str(meta, "name"),
				    json_object_get_string(json_object_array_get_idx(groups, i)),
				    json_object_get_string(json_object_array_get_idx(resources, j)),
				    json_object_get_string(json_object_array_get_idx(verbs, k)),
				    strcmp(str(role, "kind"), "Role") == 0 ? str(meta, "namespace")
				                                           : "",
				    arr(rule, "resourceNames"),
				    0};
			}
	return 0;
}

static int name_allowed(json_object *names, const char *name)
{
	if (!names)
		return 1;
	for (size_t i = 0; i < json_object_array_length(names); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(names, i)), name) == 0)
			return 1;
	return 0;
}

/* Mark the grants that allow entry; 0 when none does. */
static int allow(grant *g, size_t n, json_object *entry)
{
	char resource[128];
	const char *sub = str(entry, "subresource");
	snprintf(resource, sizeof(resource), "%s%s%s", str(entry, "resource"), *sub ? "/" : "",
	         sub);
	int allowed = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(g[i].group, str(entry, "group")) == 0 &&
		    strcmp(g[i].resource, resource) == 0 &&
		    strcmp(g[i].verb, str(entry, "verb")) == 0 &&
		    (!*g[i].ns || strcmp(g[i].ns, str(entry, "namespace")) == 0) &&
		    name_allowed(g[i].names, str(entry, "name"))) {
			g[i].used = 1;
			allowed = 1;
		}
	return allowed;
}

int main(int argc, char **argv)
{
	json_object *docs = NULL, *journal = NULL, *items = NULL;
	nl_err err = {0};
	grant g[MAX_GRANTS];
	size_t n = 0;
	int bad = 0, rc = 2;
	if (argc != 3) {
		fprintf(stderr, "usage: rbac_check RBAC.yaml JOURNAL.json\n");
		return 2;
	}
	if (nl_doc_load_file(&docs, argv[1], &err) != 0 ||
	    nl_doc_load_file(&journal, argv[2], &err) != 0) {
		fprintf(stderr, "rbac_check: %s\n", err.msg);
		goto cleanup;
	}
	for (size_t i = 0; i < json_object_array_length(docs); i++) {
		json_object *d = json_object_array_get_idx(docs, i), *rules = arr(d, "rules");
		for (size_t j = 0; rules && j < json_object_array_length(rules); j++)
			if (add_rule(g, &n, d, json_object_array_get_idx(rules, j)) != 0) {
				fprintf(stderr, "rbac_check: a rule of %s is not understood\n",
				        str(d, "kind"));
				goto cleanup;
			}
	}
	items = arr(json_object_array_get_idx(journal, 0), "items");
	if (!items) {
		fprintf(stderr, "rbac_check: %s has no items\n", argv[2]);
		goto cleanup;
	}
	size_t checked = 0;
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *e = json_object_array_get_idx(items, i);
		if (strncmp(str(e, "userAgent"), "nodelet/", 8) != 0)
			continue;
		checked++;
		if (!allow(g, n, e)) {
			printf("missing: %s %s %s\n", str(e, "method"), str(e, "path"),
			       str(e, "verb"));
			bad = 1;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!g[i].used) {
			printf("extra: %s %s%s%s: %s \"%s\" %s\n", g[i].kind, g[i].role,
			       *g[i].ns ? " in " : "", g[i].ns, g[i].verb, g[i].group,
			       g[i].resource);
			bad = 1;
		}
	printf("%zu requests of nodelet against %zu granted verbs: %s\n", checked, n,
	       bad ? "MISMATCH" : "exactly covered");
	rc = bad || checked == 0;
cleanup:
	json_object_put(docs);
	json_object_put(journal);
	return rc;
}
