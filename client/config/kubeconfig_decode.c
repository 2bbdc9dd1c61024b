/* One kubeconfig file into the kc_config model, with the types Go's decoder
 * enforces (clientcmd/api/v1): strings are strings, booleans booleans,
 * "-data" fields standard base64. Unknown fields are ignored, as kubectl
 * does; a wrong type anywhere in the file fails the file. */
#include "internal.h"
#include "kubeconfig.h"

#include <nodelet/base64.h>
#include <nodelet/doc.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ftype { F_STR, F_BOOL, F_B64 };

struct field {
	const char *key;
	enum ftype type;
	size_t off;
	size_t len_off; /* F_B64: where the decoded length goes */
};

static const struct field cluster_fields[] = {
    {"server", F_STR, offsetof(struct kc_cluster, server), 0},
    {"tls-server-name", F_STR, offsetof(struct kc_cluster, tls_server_name), 0},
    {"certificate-authority", F_STR, offsetof(struct kc_cluster, ca_file), 0},
    {"proxy-url", F_STR, offsetof(struct kc_cluster, proxy_url), 0},
    {"certificate-authority-data", F_B64, offsetof(struct kc_cluster, ca_data),
     offsetof(struct kc_cluster, ca_data_len)},
    {"insecure-skip-tls-verify", F_BOOL, offsetof(struct kc_cluster, insecure), 0},
};

static const struct field user_fields[] = {
    {"token", F_STR, offsetof(struct kc_user, token), 0},
    {"tokenFile", F_STR, offsetof(struct kc_user, token_file), 0},
    {"client-certificate", F_STR, offsetof(struct kc_user, cert_file), 0},
    {"client-key", F_STR, offsetof(struct kc_user, key_file), 0},
    {"username", F_STR, offsetof(struct kc_user, username), 0},
    {"password", F_STR, offsetof(struct kc_user, password), 0},
    {"client-certificate-data", F_B64, offsetof(struct kc_user, cert_data),
     offsetof(struct kc_user, cert_data_len)},
    {"client-key-data", F_B64, offsetof(struct kc_user, key_data),
     offsetof(struct kc_user, key_data_len)},
};

static const struct field context_fields[] = {
    {"cluster", F_STR, offsetof(struct kc_context, cluster), 0},
    {"user", F_STR, offsetof(struct kc_context, user), 0},
    {"namespace", F_STR, offsetof(struct kc_context, namespace_), 0},
};

static const struct field exec_fields[] = {
    {"command", F_STR, offsetof(nl_exec_config, command), 0},
    {"apiVersion", F_STR, offsetof(nl_exec_config, api_version), 0},
    {"installHint", F_STR, offsetof(nl_exec_config, install_hint), 0},
    {"interactiveMode", F_STR, offsetof(nl_exec_config, interactive_mode), 0},
    {"provideClusterInfo", F_BOOL, offsetof(nl_exec_config, provide_cluster_info), 0},
};

#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))

static const char *type_name(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_boolean:
		return "bool";
	case json_type_int:
	case json_type_double:
		return "number";
	case json_type_string:
		return "string";
	case json_type_array:
		return "array";
	case json_type_object:
		return "object";
	case json_type_null:
		break;
	}
	return "null";
}

static int wrong_type(nl_err *err, const char *path, const char *key, const char *want,
                      json_object *v)
{
	return nl_err_set(err, NL_EPARSE, "%s%s%s: expected %s, got %s", path, *path ? "." : "",
	                  key, want, type_name(v));
}

static int nomem(nl_err *err)
{
	return nl_err_set(err, NL_ENOMEM, "out of memory");
}

/* Go treats "" like an absent string, so it is stored as NULL. */
static int decode_str(char **dst, json_object *v, const char *path, const char *key, nl_err *err)
{
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return wrong_type(err, path, key, "string", v);
	if (json_object_get_string_len(v) == 0)
		return 0;
	if (!(*dst = strdup(json_object_get_string(v))))
		return nomem(err);
	return 0;
}

static int decode_b64(unsigned char **dst, size_t *len, json_object *v, const char *path,
                      const char *key, nl_err *err)
{
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return wrong_type(err, path, key, "base64 string", v);
	if (json_object_get_string_len(v) == 0)
		return 0;
	nl_err e = {0};
	int rc = nl_base64_decode(dst, len, json_object_get_string(v),
	                          (size_t)json_object_get_string_len(v), &e);
	if (rc)
		return nl_err_set(err, rc, "%s.%s: %s", path, key, e.msg);
	return 0;
}

/* Fill the members of dst that fields names from the mapping obj (absent or
 * null: nothing to do). */
static int decode_fields(void *dst, const struct field *fields, size_t n, json_object *obj,
                         const char *path, nl_err *err)
{
	char *base = dst;
	for (size_t i = 0; i < n; i++) {
		json_object *v = NULL;
		if (!json_object_object_get_ex(obj, fields[i].key, &v) || !v)
			continue;
		int rc = 0;
		switch (fields[i].type) {
		case F_STR:
			rc = decode_str((char **)(void *)(base + fields[i].off), v, path,
			                fields[i].key, err);
			break;
		case F_BOOL:
			if (!json_object_is_type(v, json_type_boolean))
				return wrong_type(err, path, fields[i].key, "bool", v);
			*(int *)(void *)(base + fields[i].off) = json_object_get_boolean(v);
			break;
		case F_B64:
			rc = decode_b64((unsigned char **)(void *)(base + fields[i].off),
			                (size_t *)(void *)(base + fields[i].len_off), v, path,
			                fields[i].key, err);
			break;
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* A member that must be a mapping when present; *out NULL when absent/null. */
static int get_object(json_object **out, json_object *parent, const char *key, const char *path,
                      nl_err *err)
{
	json_object *v = NULL;
	*out = NULL;
	if (!json_object_object_get_ex(parent, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_object))
		return wrong_type(err, path, key, "object", v);
	*out = v;
	return 0;
}

static int decode_args(nl_exec_config *e, json_object *obj, const char *path, nl_err *err)
{
	json_object *v = NULL;
	size_t n = 0;
	if (json_object_object_get_ex(obj, "args", &v) && v) {
		if (!json_object_is_type(v, json_type_array))
			return wrong_type(err, path, "args", "array", v);
		n = json_object_array_length(v);
	}
	if (!(e->args = calloc(n + 1, sizeof(*e->args))))
		return nomem(err);
	for (size_t i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(v, i);
		char key[32];
		snprintf(key, sizeof(key), "args[%zu]", i);
		if (!json_object_is_type(a, json_type_string))
			return wrong_type(err, path, key, "string", a);
		if (!(e->args[i] = strdup(json_object_get_string(a))))
			return nomem(err);
	}
	return 0;
}

/* ExecEnvVar {name, value} into "name=value"; unnamed entries are counted
 * for the validation of the user that is actually used. */
static int decode_env(nl_exec_config *e, size_t *unnamed, json_object *obj, const char *path,
                      nl_err *err)
{
	json_object *v = NULL;
	size_t n = 0, w = 0;
	if (json_object_object_get_ex(obj, "env", &v) && v) {
		if (!json_object_is_type(v, json_type_array))
			return wrong_type(err, path, "env", "array", v);
		n = json_object_array_length(v);
	}
	if (!(e->env = calloc(n + 1, sizeof(*e->env))))
		return nomem(err);
	for (size_t i = 0; i < n; i++) {
		char p[160];
		char *name = NULL, *value = NULL;
		json_object *ev = json_object_array_get_idx(v, i);
		snprintf(p, sizeof(p), "%s.env[%zu]", path, i);
		if (!json_object_is_type(ev, json_type_object))
			return nl_err_set(err, NL_EPARSE, "%s: expected object, got %s", p,
			                  type_name(ev));
		int rc = decode_str(&name, json_object_object_get(ev, "name"), p, "name", err);
		if (!rc)
			rc = decode_str(&value, json_object_object_get(ev, "value"), p, "value",
			                err);
		if (!rc && name && asprintf(&e->env[w], "%s=%s", name, value ? value : "") < 0) {
			e->env[w] = NULL;
			rc = nomem(err);
		}
		if (!rc && name)
			w++;
		else if (!rc)
			(*unnamed)++;
		free(name);
		nl__free_secret_str(value);
		if (rc)
			return rc;
	}
	return 0;
}

static int decode_exec(struct kc_user *u, json_object *obj, const char *path, nl_err *err)
{
	if (!(u->exec = calloc(1, sizeof(*u->exec))))
		return nomem(err);
	int rc = decode_fields(u->exec, exec_fields, NFIELDS(exec_fields), obj, path, err);
	if (!rc)
		rc = decode_args(u->exec, obj, path, err);
	if (!rc)
		rc = decode_env(u->exec, &u->exec_unnamed_env, obj, path, err);
	/* clientcmd's SetDefaults_ExecConfig: only the beta version defaults it */
	if (!rc && !u->exec->interactive_mode && u->exec->api_version &&
	    strcmp(u->exec->api_version, "client.authentication.k8s.io/v1beta1") == 0 &&
	    !(u->exec->interactive_mode = strdup("IfAvailable")))
		rc = nomem(err);
	return rc;
}

/* ---- named lists ----------------------------------------------------------- */

struct list_kind {
	const char *list;  /* "clusters" */
	const char *inner; /* "cluster" */
	size_t size;
	size_t name_off, origin_off;
	int (*decode)(void *entry, json_object *inner, const char *path, nl_err *err);
	void (*free_entry)(void *entry);
};

static int decode_cluster(void *entry, json_object *inner, const char *path, nl_err *err)
{
	return decode_fields(entry, cluster_fields, NFIELDS(cluster_fields), inner, path, err);
}

static int decode_user(void *entry, json_object *inner, const char *path, nl_err *err)
{
	struct kc_user *u = entry;
	char p[128];
	json_object *exec;
	int rc = decode_fields(u, user_fields, NFIELDS(user_fields), inner, path, err);
	if (!rc)
		rc = get_object(&exec, inner, "exec", path, err);
	snprintf(p, sizeof(p), "%s.exec", path);
	if (!rc && exec)
		rc = decode_exec(u, exec, p, err);
	return rc;
}

static int decode_context(void *entry, json_object *inner, const char *path, nl_err *err)
{
	return decode_fields(entry, context_fields, NFIELDS(context_fields), inner, path, err);
}

static void free_cluster(void *entry)
{
	struct kc_cluster *c = entry;
	free(c->name);
	free(c->origin);
	free(c->server);
	free(c->tls_server_name);
	free(c->ca_file);
	free(c->proxy_url);
	free(c->ca_data);
}

static void free_user(void *entry)
{
	struct kc_user *u = entry;
	free(u->name);
	free(u->origin);
	nl__free_secret_str(u->token);
	free(u->token_file);
	free(u->cert_file);
	free(u->key_file);
	free(u->username);
	nl__free_secret_str(u->password);
	free(u->cert_data);
	nl__free_secret(u->key_data, u->key_data_len);
	nl__exec_config_free(u->exec);
}

static void free_context(void *entry)
{
	struct kc_context *c = entry;
	free(c->name);
	free(c->origin);
	free(c->cluster);
	free(c->user);
	free(c->namespace_);
}

static const struct list_kind kinds[] = {
    {"clusters", "cluster", sizeof(struct kc_cluster), offsetof(struct kc_cluster, name),
     offsetof(struct kc_cluster, origin), decode_cluster, free_cluster},
    {"users", "user", sizeof(struct kc_user), offsetof(struct kc_user, name),
     offsetof(struct kc_user, origin), decode_user, free_user},
    {"contexts", "context", sizeof(struct kc_context), offsetof(struct kc_context, name),
     offsetof(struct kc_context, origin), decode_context, free_context},
};

static char **name_of(const struct list_kind *k, void *entry)
{
	return (char **)(void *)((char *)entry + k->name_off);
}

static char **origin_of(const struct list_kind *k, void *entry)
{
	return (char **)(void *)((char *)entry + k->origin_off);
}

/* Where kind i's array and count live in a kc_config. */
static void list_slot(struct kc_config *c, size_t i, void ***arr, size_t **n)
{
	if (i == 0) {
		*arr = (void **)&c->clusters;
		*n = &c->nclusters;
	} else if (i == 1) {
		*arr = (void **)&c->users;
		*n = &c->nusers;
	} else {
		*arr = (void **)&c->contexts;
		*n = &c->ncontexts;
	}
}

static int duplicate_in(const struct list_kind *k, char *arr, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		const char *other = *name_of(k, arr + i * k->size);
		if (strcmp(other ? other : "", name ? name : "") == 0)
			return 1;
	}
	return 0;
}

static int decode_entry(const struct list_kind *k, char *entry, json_object *item, size_t idx,
                        const char *origin, nl_err *err)
{
	char path[64];
	json_object *inner;
	snprintf(path, sizeof(path), "%s[%zu]", k->list, idx);
	if (!json_object_is_type(item, json_type_object))
		return nl_err_set(err, NL_EPARSE, "%s: expected object, got %s", path,
		                  type_name(item));
	int rc =
	    decode_str(name_of(k, entry), json_object_object_get(item, "name"), path, "name", err);
	if (!rc && !(*origin_of(k, entry) = strdup(origin)))
		rc = nomem(err);
	if (!rc)
		rc = get_object(&inner, item, k->inner, path, err);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s[%zu].%s", k->list, idx, k->inner);
	return inner ? k->decode(entry, inner, path, err) : 0;
}

static int decode_list(struct kc_config *c, size_t ki, json_object *root, const char *origin,
                       nl_err *err)
{
	const struct list_kind *k = &kinds[ki];
	json_object *v = NULL;
	void **arr;
	size_t *n;
	list_slot(c, ki, &arr, &n);
	if (!json_object_object_get_ex(root, k->list, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return wrong_type(err, "", k->list, "array", v);
	size_t len = json_object_array_length(v);
	if (len == 0)
		return 0;
	char *items = calloc(len, k->size);
	if (!items)
		return nomem(err);
	*arr = items;
	for (size_t i = 0; i < len; i++) {
		char *entry = items + i * k->size;
		/* counted first so nl__kc_config_free releases a half-decoded entry */
		(*n)++;
		int rc = decode_entry(k, entry, json_object_array_get_idx(v, i), i, origin, err);
		if (rc)
			return rc;
		const char *name = *name_of(k, entry);
		/* clientcmd's list-to-map conversion refuses a repeated name */
		if (duplicate_in(k, items, i, name))
			return nl_err_set(err, NL_EPARSE, "duplicate name \"%s\" in %s",
			                  name ? name : "", k->list);
	}
	return 0;
}

/* Append src's entries of kind ki that dst does not name yet; free the rest. */
static int merge_list(struct kc_config *dst, struct kc_config *src, size_t ki)
{
	const struct list_kind *k = &kinds[ki];
	void **darr, **sarr;
	size_t *dn, *sn;
	list_slot(dst, ki, &darr, &dn);
	list_slot(src, ki, &sarr, &sn);
	if (*sn == 0)
		return 0;
	char *grown = realloc(*darr, (*dn + *sn) * k->size);
	if (!grown)
		return NL_ENOMEM;
	*darr = grown;
	size_t have = *dn;
	for (size_t i = 0; i < *sn; i++) {
		char *entry = (char *)*sarr + i * k->size;
		if (duplicate_in(k, grown, have, *name_of(k, entry))) {
			k->free_entry(entry);
			continue;
		}
		memcpy(grown + (*dn)++ * k->size, entry, k->size);
	}
	free(*sarr);
	*sarr = NULL;
	*sn = 0;
	return 0;
}

int nl__kc_merge(struct kc_config *dst, struct kc_config *src)
{
	int rc = 0;
	for (size_t ki = 0; !rc && ki < NFIELDS(kinds); ki++)
		rc = merge_list(dst, src, ki);
	if (!rc && !dst->current_context) {
		dst->current_context = src->current_context;
		src->current_context = NULL;
	}
	nl__kc_config_free(src);
	return rc;
}

void nl__kc_config_free(struct kc_config *c)
{
	for (size_t ki = 0; ki < NFIELDS(kinds); ki++) {
		void **arr;
		size_t *n;
		list_slot(c, ki, &arr, &n);
		for (size_t i = 0; i < *n; i++)
			kinds[ki].free_entry((char *)*arr + i * kinds[ki].size);
		free(*arr);
		*arr = NULL;
		*n = 0;
	}
	free(c->current_context);
	c->current_context = NULL;
}

static int check_kind(json_object *root, nl_err *err)
{
	char *kind = NULL, *api = NULL;
	int rc = decode_str(&kind, json_object_object_get(root, "kind"), "", "kind", err);
	if (!rc)
		rc = decode_str(&api, json_object_object_get(root, "apiVersion"), "", "apiVersion",
		                err);
	if (!rc && ((kind && strcmp(kind, "Config") != 0) || (api && strcmp(api, "v1") != 0)))
		rc = nl_err_set(err, NL_EPARSE, "no kind \"%s\" is registered for version \"%s\"",
		                kind ? kind : "Config", api ? api : "v1");
	free(kind);
	free(api);
	return rc;
}

static int decode_root(struct kc_config *c, json_object *root, const char *origin, nl_err *err)
{
	if (!json_object_is_type(root, json_type_object))
		return nl_err_set(err, NL_EPARSE, "expected a mapping at the top level, got %s",
		                  type_name(root));
	int rc = check_kind(root, err);
	if (!rc)
		rc =
		    decode_str(&c->current_context, json_object_object_get(root, "current-context"),
		               "", "current-context", err);
	for (size_t ki = 0; !rc && ki < NFIELDS(kinds); ki++)
		rc = decode_list(c, ki, root, origin, err);
	return rc;
}

/* "null", comments only or "---" alone: Go decodes these as an empty Config. */
static int is_empty_yaml(const char *buf, size_t len)
{
	json_object *docs = NULL;
	nl_err e;
	if (nl_doc_parse(&docs, buf, len, "yaml", &e))
		return 0;
	int empty = json_object_array_length(docs) == 0;
	json_object_put(docs);
	return empty;
}

int nl__kc_decode(struct kc_config *out, const char *buf, size_t len, const char *origin,
                  nl_err *err)
{
	json_object *root = NULL;
	struct kc_config c = {0};
	if (len == 0) {
		*out = c;
		return 0;
	}
	/* "yaml" labels parser errors as Go's do ("yaml: line 3, ..."). */
	int rc = nl_doc_parse_one(&root, buf, len, "yaml", err);
	if (rc == NL_EPARSE && is_empty_yaml(buf, len)) {
		*out = c;
		return 0;
	}
	if (rc)
		return rc;
	rc = decode_root(&c, root, origin, err);
	json_object_put(root);
	if (rc) {
		nl__kc_config_free(&c);
		return rc;
	}
	*out = c;
	return 0;
}
