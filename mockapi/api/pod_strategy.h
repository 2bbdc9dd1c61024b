/* The Pod kind's strategy hooks for the resources table (resources.h) and
 * the pod-only part of deletion. */
#ifndef MOCK_POD_STRATEGY_H
#define MOCK_POD_STRATEGY_H

#include <json-c/json.h>
#include <stdint.h>

/* SetDefaults_PodSpec, _Container, _ContainerPort and _Pod on a decoded pod. */
void mock_pod_defaults(json_object *obj);
/* PrepareForCreate (status Pending with its QoS class) and the
 * DefaultTolerationSeconds admission plugin (tolerations of 300 s for the
 * not-ready and unreachable NoExecute taints, unless tolerated). */
void mock_pod_prepare_create(json_object *obj);
/* CheckGracefulDelete: the grace period in seconds a DELETE of pod gives
 * it, from the request's gracePeriodSeconds (NULL: not given) or the pod's
 * terminationGracePeriodSeconds; 0 for a pod never scheduled or already
 * terminated, 1 for a negative request. 0 means delete at once. */
int64_t mock_pod_grace_period(json_object *pod, const int64_t *requested);

/* podutil.UpdatePodCondition with status True: the condition of that type
 * replaced or appended to status.conditions, lastTransitionTime (now,
 * RFC 3339) moved only when the status changes. */
void mock_pod_set_condition(json_object *pod, const char *type, const char *reason,
                            const char *message, const char *now);

#endif
