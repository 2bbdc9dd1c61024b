/* /healthz, /livez and /readyz as kube-apiserver serves them
 * (k8s.io/apiserver/pkg/server/healthz): "ok", or with ?verbose one line
 * per check ("[+]ping ok") and "<name> check passed"; ?exclude=<check>;
 * each check alone at /<endpoint>/<check>.
 *
 * Checks: ping and log everywhere, shutdown on /readyz (ok while serving).
 * kube-apiserver also lists etcd and its post-start hooks; nodelet-mockapi
 * has neither. */
#ifndef MOCK_HEALTH_H
#define MOCK_HEALTH_H

#include "core/request.h"

/* Answer a health path; 1 when handled, 0 when the path is not a health
 * endpoint or check (the caller answers 404). */
int mock_handle_health(const mock_request *req, mock_response *resp);

#endif
