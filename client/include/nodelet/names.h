/* Name and key validation with Kubernetes' exact messages
 * (k8s.io/apimachinery/pkg/util/validation).
 *
 * Each function returns 0 when valid; otherwise NL_EINVALID and writes the
 * apimachinery message (e.g. "must be no more than 253 characters" or the
 * "a lowercase RFC 1123 subdomain must consist of ..." text) into why. When
 * several rules fail, the messages are joined with "; " as Go's callers do
 * with strings.Join. */
#ifndef NODELET_NAMES_H
#define NODELET_NAMES_H

#include <stddef.h>

#define NL_DNS1123_SUBDOMAIN_MAX 253
#define NL_DNS1123_LABEL_MAX 63
#define NL_CONFIGMAP_KEY_MAX 253

/* DNS-1123 subdomain: [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*, <= 253. */
int nl_name_is_dns1123_subdomain(const char *s, char *why, size_t whylen);
/* DNS-1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, <= 63 (namespaces). */
int nl_name_is_dns1123_label(const char *s, char *why, size_t whylen);
/* ConfigMap/Secret data key: [-._a-zA-Z0-9]+, <= 253, not "." or "..", not
 * starting with "..". */
int nl_name_is_config_key(const char *s, char *why, size_t whylen);
/* Label key (optional DNS subdomain prefix + '/' + qualified name) and value
 * rules, used by label selectors and metadata.labels validation. */
int nl_name_is_label_key(const char *s, char *why, size_t whylen);
int nl_name_is_label_value(const char *s, char *why, size_t whylen);
/* A safe single path component for on-disk stores: non-empty, no '/', not
 * "." or "..", <= 255 bytes, no NUL. Used before a name or UID from the
 * network becomes a file name. */
int nl_name_is_path_component(const char *s, char *why, size_t whylen);

/* The same rules over exactly len bytes of s, which may hold NULs (a Go
 * string may; every rule above refuses a NUL as a character outside its
 * set, and counts it as one byte). */
int nl_name_is_dns1123_subdomain_n(const char *s, size_t len, char *why, size_t whylen);
int nl_name_is_dns1123_label_n(const char *s, size_t len, char *why, size_t whylen);
int nl_name_is_config_key_n(const char *s, size_t len, char *why, size_t whylen);
int nl_name_is_label_key_n(const char *s, size_t len, char *why, size_t whylen);
int nl_name_is_label_value_n(const char *s, size_t len, char *why, size_t whylen);

#endif
