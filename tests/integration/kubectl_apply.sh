#!/bin/sh
# kubectl 1.32 beyond plain JSON against nodelet-mockapi: server-side columns
# (Table), create -f and replace -f with kubectl's default validation (which
# needs /openapi/v3 and sends fieldValidation=Strict), aggregated discovery,
# and the health endpoints. PATCH-based commands are tested elsewhere.
# Skips (exit 77) when no kubectl is installed.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"
expect() { grep -q -- "$1" "$work/out" || fail "$2"; }

start_mockapi --fixtures "$FIXTURES/manifests/sample.yaml" --kubeconfig-out "$work/kubeconfig"
echo "using $KUBECTL against $url"
k() { "$KUBECTL" --server "$url" --cache-dir "$work/cache" "$@"; }

# --- create -f with default validation (no --validate=false) -----------------
cat >"$work/objects.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
  namespace: default
data:
  mode: fast
  level: "3"
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: app-lock
  namespace: default
spec:
  holderIdentity: app-0
  leaseDurationSeconds: 15
---
apiVersion: v1
kind: Node
metadata:
  name: edge-2
  labels:
    node-role.kubernetes.io/worker: ""
status:
  nodeInfo:
    kubeletVersion: v1.32.0
    machineID: m
    systemUUID: s
    bootID: b
    kernelVersion: 6.1.0
    osImage: Debian GNU/Linux 12
    containerRuntimeVersion: containerd://1.7.0
    kubeProxyVersion: ""
    operatingSystem: linux
    architecture: amd64
EOF
k create -f "$work/objects.yaml" -v=6 >"$work/out" 2>&1 || fail "create -f with validation"
grep -v '^[IWE][0-9]' "$work/out"
expect 'configmap/app-config created' "ConfigMap not created"
expect 'lease.coordination.k8s.io/app-lock created' "Lease not created"
expect 'node/edge-2 created' "Node not created"
# Validation is the server's: kubectl found fieldValidation in /openapi/v3.
expect 'GET .*/openapi/v3/api/v1?hash=' "kubectl did not read the OpenAPI v3 document"
expect 'POST .*fieldValidation=Strict' "kubectl did not ask for strict field validation"
grep -q 'openapi/v2' "$work/out" && fail "kubectl fell back to /openapi/v2"

# An unknown field is refused by the server under default validation.
cat >"$work/bad.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: bad
  namespace: default
datta:
  a: b
EOF
if k create -f "$work/bad.yaml" >"$work/out" 2>&1; then
	fail "create with an unknown field succeeded"
fi
expect 'strict decoding error: unknown field "datta"' "no strict decoding error"

# --- get: the server's columns ------------------------------------------------
k get configmaps,leases -n default >"$work/out" 2>&1 || fail "get configmaps,leases"
cat "$work/out"
expect 'DATA' "no DATA column for ConfigMaps"
expect 'app-config   2 ' "ConfigMap DATA count wrong"
expect 'HOLDER' "no HOLDER column for Leases"
expect 'app-lock   app-0' "Lease holder missing"
k get nodes >"$work/out" 2>&1 || fail "get nodes"
cat "$work/out"
expect 'NAME *STATUS *ROLES *AGE *VERSION' "Node columns missing"
expect 'edge-2 *Unknown *worker .*v1.32.0' "Node row wrong"
k get nodes -o wide >"$work/out" 2>&1 || fail "get nodes -o wide"
expect 'OS-IMAGE' "wide columns missing"
expect 'Debian GNU/Linux 12' "OS image missing"

# --- replace -f with default validation -------------------------------------
k get configmap app-config -o yaml >"$work/cm.yaml" 2>"$work/out" || fail "get -o yaml"
sed 's/mode: fast/mode: slow/' "$work/cm.yaml" >"$work/cm2.yaml"
k replace -f "$work/cm2.yaml" -v=6 >"$work/out" 2>&1 || fail "replace -f with validation"
expect 'configmap/app-config replaced' "replace did not report success"
expect 'PUT .*fieldManager=kubectl-replace&fieldValidation=Strict' "replace not validated by the server"
k get configmap app-config -o jsonpath='{.data.mode}' >"$work/out" 2>&1
expect '^slow$' "replace did not store the new data"
# The file now carries a stale resourceVersion: the apiserver's conflict.
if k replace -f "$work/cm2.yaml" >"$work/out" 2>&1; then
	fail "stale replace succeeded"
fi
expect 'Operation cannot be fulfilled on configmaps "app-config"' "conflict message missing"

# --- aggregated discovery -----------------------------------------------------
rm -rf "$work/cache"
k get leases -A -v=8 >"$work/out" 2>&1 || fail "get with fresh discovery"
expect 'Content-Type: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' \
	"aggregated discovery not served"
grep -q 'GET .*/apis/coordination.k8s.io/v1?' "$work/out" &&
	fail "kubectl fell back to legacy per-group discovery"
k api-resources >"$work/out" 2>&1 || fail "api-resources"
expect 'leases .*coordination.k8s.io/v1 *true *Lease' "api-resources misses leases"
expect 'nodes *no *v1 *false *Node' "api-resources misses nodes"

# --- raw documents ------------------------------------------------------------
k get --raw /openapi/v3 >"$work/out" 2>&1 || fail "get --raw /openapi/v3"
expect '"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=' "OpenAPI index wrong"
k explain lease.spec.holderIdentity >"$work/out" 2>&1 || fail "explain"
expect 'FIELD: *holderIdentity <string>' "explain does not read the schema"
k get --raw '/readyz?verbose' >"$work/out" 2>&1 || fail "readyz"
expect 'readyz check passed' "readyz verbose output wrong"
k get --raw /livez/ping >"$work/out" 2>&1 || fail "livez/ping"
expect '^ok$' "livez/ping wrong"

# Through the written kubeconfig too.
"$KUBECTL" --kubeconfig "$work/kubeconfig" --cache-dir "$work/cache2" get lease -n kube-node-lease \
	>"$work/out" 2>&1 || fail "kubectl via --kubeconfig-out"
expect 'edge-1 *edge-1' "node lease holder missing via kubeconfig"
echo "PASS: Table columns, create/replace with default validation, OpenAPI v3, aggregated discovery and health"
